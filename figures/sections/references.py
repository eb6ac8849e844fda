"""Above the never-training sampler and above uniform allocation: the study whose config
declares this section gets its headline cell's gap to chance (its primary family) and its paired
comparison with the reference learner its config names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analysis.families import ALPHA, plain
from analysis.questions import SETTINGS
from analysis.roles import Finding
from figures import plots
from figures.cite import Tables, read_table
from figures.claims import agreement, families, figure_name, headline_rows, printed, with_verdicts
from figures.numbers import Named, Scope
from figures.sections import Section
from figures.words import baseline_name, display, fraction, pvalue

SECTION = Section(table="accuracy",
                  title="Above the never-training sampler and above uniform allocation",
                  template="references.md.j2", order=2, declared=True, shared=True,
                  figures=("vs_reference",))

SHOWN = ["budget", "seeds", "accuracy_a", "accuracy_b", "difference", "ci_low", "ci_high",
         "only_a", "only_b", "p_value", "p_value_holm", "verdict"]
"""The columns of the paired table."""


def unfit(tables: Path, study: str) -> str:
    """The section compares the headline REINFORCE cell with a reference learner: a study whose
    headline cell does not train, or that has no reference to pair it with, does not fit."""
    settings = read_table(tables, SETTINGS).iloc[0]
    versus = read_table(tables, f"vs_{settings['reference']}") if settings["reference"] else None
    if versus is None or not (versus["cell_a"] == settings["headline_cell"]).any():
        return "whose headline cell has no paired comparison with a reference learner"
    return ""


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """The headline cell's gap to chance at the compared budgets with its tests, and its paired
    comparison with the reference: the rows at the compared budgets, those significant after
    Holm, and the whole family's counts of equivalent and unresolved rows."""
    accuracy = cite.read(study, SECTION.table)
    settings = cite.read(study, SETTINGS).iloc[0]
    versus = cite.read(study, f"vs_{settings['reference']}")
    head = headline_rows(accuracy, settings, or_every=True)
    rows = headline_rows(versus, settings, or_every=True)
    headline = (f"cell_a == {plain(settings['headline_cell'])} and budget in "
                f"{[int(b) for b in settings['compared_budgets']]!r}")
    gaps = []
    for r in cite.rows(head):
        gap = {end: Named(r[end] - r.chance, "+.3f") for end in ("accuracy", "ci_low", "ci_high")}
        gaps.append(gap | printed(r, budget=",", p_vs_chance=pvalue, p_vs_chance_holm=pvalue))
    return {
        "reference": display(settings["reference"]),
        "baseline": baseline_name(cite.first(head).baseline.value),
        "chance": Named(cite.first(head).chance, shown=fraction), "gaps": gaps,
        "primary": families(cite, head[head["primary"]]),
        "others": families(cite, accuracy[~accuracy["primary"]]),
        "versus": families(cite, versus),
        "table": with_verdicts(cite, rows)[SHOWN].rename(columns={"accuracy_a": "reinforce",
                                             "accuracy_b": str(settings["reference"])}),
        "significant": cite.count(versus, f"{headline} and p_value_holm < {ALPHA!r}"),
        "headline": cite.count(versus, headline),
        "found": [printed(r, difference="+.4f", ci_low="+.4f", ci_high="+.4f", budget=",",
                          p_value_holm=pvalue)
                  for r in cite.rows(rows[rows["p_value_holm"] < ALPHA])],
        "equivalent": cite.count(versus, f"finding == {Finding.EQUIVALENT.value!r}"),
        "rows": cite.count(versus), "margin": Named(cite.first(versus).margin, "g"),
        "unresolved": cite.count(versus, f"finding == {Finding.UNRESOLVED.value!r}"),
        "agreement": agreement(cite, versus)}


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """REINFORCE minus the reference learner, per lr, at the headline cell's baseline."""
    settings = read_table(tables, SETTINGS).iloc[0]
    versus = read_table(tables, f"vs_{settings['reference']}")
    cells = read_table(tables, "cells").set_index("cell")
    baseline = cells.loc[settings["headline_cell"], "baseline"]
    name = figure_name(study, SECTION.figures[0])
    return {name: plots.paired_difference(
        versus[versus["baseline"] == baseline], out_dir, name,
        f"accuracy difference\n(REINFORCE minus {display(settings['reference'])})")}
