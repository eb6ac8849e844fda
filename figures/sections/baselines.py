"""Per-arm baseline against running-mean baseline: a study whose grid has both baselines (its
analysis makes ``per_arm_vs_chance``) gets their paired comparison and the per-arm cells' tests
against chance, two-sided and for equivalence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analysis.families import ALPHA, plain
from analysis.questions import SETTINGS
from analysis.roles import Finding
from figures import plots
from figures.cite import Row, Tables, read_table
from figures.claims import agreement, distinct, families, figure_name, printed, with_verdicts
from figures.numbers import Named, Scope
from figures.sections import Section
from figures.words import pvalue

SECTION = Section(table="per_arm_vs_chance",
                  title="Per-arm baseline against running-mean baseline",
                  template="baselines.md.j2", order=3, shared=True,
                  figures=("per_arm_vs_running_mean",))

SHOWN = ["lr", "budget", "seeds", "accuracy_a", "accuracy_b", "difference", "ci_low", "ci_high",
         "p_value", "p_value_holm", "verdict"]
"""The columns of the paired table."""


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """The paired comparison at the headline lr and compared budgets with the whole family's
    counts, and what the per-arm cells show against chance (``against_chance``)."""
    paired = cite.read(study, "per_arm_vs_running_mean")
    settings = cite.read(study, SETTINGS).iloc[0]
    rows = paired[(paired["lr"] == settings["headline_lr"])
                  & paired["budget"].isin(settings["compared_budgets"])]
    significant = f"p_value_holm < {ALPHA!r}"
    return {
        "parts": [printed(r, difference="+.3f", ci_low="+.3f", ci_high="+.3f", budget=",",
                          p_value=pvalue, p_value_holm=pvalue) for r in cite.rows(rows)],
        "families": families(cite, paired), "rows": cite.count(paired),
        "worse": cite.count(paired, f"{significant} and difference < 0"),
        "better": cite.count(paired, f"{significant} and difference > 0"),
        "agreement": agreement(cite, paired),
        "table": with_verdicts(cite, rows)[SHOWN].rename(columns={"accuracy_a": "per_arm",
                                             "accuracy_b": "running_mean"}),
        **against_chance(cite, cite.read(study, SECTION.table))}


def against_chance(cite: Tables, chance: Any) -> dict[str, Any]:
    """What the per-arm cells show against chance, from the ``per_arm_vs_chance`` table: the
    counts above, below and equivalent after Holm, the latest budget with a cell above chance,
    the range of accuracy beyond it, the smallest equivalence p-value the design allows against
    Holm's first threshold, and the cells above chance by lr."""
    above_rows = chance[chance["finding"] == Finding.HIGHER]
    above, below = (f"finding == {Finding.HIGHER.value!r}",
                    f"finding == {Finding.LOWER.value!r}")
    within = f"p_equivalence_holm < {ALPHA!r}"
    late = (chance[chance["budget"] > above_rows["budget"].max()] if len(above_rows)
            else chance)
    if late.empty:  # above chance at the largest budget too
        late = chance
    latest = cite.largest(above_rows, "budget") if len(above_rows) else None
    floor = cite.smallest(chance, "p_equivalence_at_chance")
    threshold = cite.constant("analysis.families.ALPHA") / cite.count(chance)

    def cell(row: Row) -> dict[str, Named]:
        return printed(row, accuracy=".4f", ci_low=".4f", ci_high=".4f", lr="g", budget=",")

    return {
        "chance": Named(cite.first(chance).chance, ".4f"),
        "margin": Named(cite.first(chance).margin, "g"),
        "tested": families(cite, chance),
        "equivalence": families(cite, chance, "equivalence_family"),
        "cells": cite.count(chance), "above": cite.count(chance, above),
        "below": cite.count(chance, below), "within": cite.count(chance, within),
        "latest": latest and {"budget": Named(latest, ","),
                              "cells": cite.count(chance, f"budget <= {int(latest)!r}")},
        "low": cell(cite.first(late.loc[[late["accuracy"].idxmin()]])),
        "high": cell(cite.first(late.loc[[late["accuracy"].idxmax()]])),
        "design": floor > threshold and {
            "floor": Named(floor, ".2g"), "threshold": Named(threshold, ".2g"),
            "passing": cite.count(chance, f"p_equivalence < {ALPHA!r}")},
        "any_below": bool((chance["finding"] == Finding.LOWER).any()),
        "any_within": bool((chance["p_equivalence_holm"] < ALPHA).any()),
        "zero": cite.declared("0"),
        "mean_advantage": cite.declared("E[r - b_a | a] = p_a - E[b_a | a]"),
        "advantage": cite.declared("p_a - b_a"),
        "by_lr": [{"lr": Named(lr, "g"),
                   "cells": cite.count(chance, f"{above} and lr == {plain(lr.value)}")}
                  for lr in distinct(cite, chance, "lr")] if len(above_rows) else []}


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """Per-arm minus running-mean accuracy, per lr."""
    paired = read_table(tables, "per_arm_vs_running_mean")
    if paired is None:
        return {}
    name = figure_name(study, "per_arm_vs_running_mean")
    return {name: plots.paired_difference(paired, out_dir, name,
                                          "accuracy difference\n(per-arm minus running-mean)")}
