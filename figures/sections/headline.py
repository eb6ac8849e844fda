"""How accuracy rises with the budget: the study whose config declares this section (its
headline cell's accuracy curve leads the report) gets the curve at its compared budgets, its
simultaneous band and the most accurate cells at the largest budget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analysis.families import plain
from analysis.questions import SETTINGS
from figures import plots
from figures.cite import Tables, read_table
from figures.claims import (
    figure_name,
    headline_rows,
    headline_setting,
    printed,
    without_reinforce,
)
from figures.numbers import Named, Scope
from figures.sections import Section
from figures.words import bandit, baseline_name, fraction
from study.model import registry

SECTION = Section(table="accuracy", title="How accuracy rises with the budget",
                  template="headline.md.j2", order=1, declared=True, shared=True,
                  figures=("accuracy_vs_budget", "accuracy_band", "lr_heatmap"))

SHOWN = ["lr", "baseline", "budget", "seeds", "accuracy", "ci_low", "ci_high", "non_finite"]
"""The columns of the section's table."""


def unfit(tables: Path, study: str) -> str:
    """The section describes REINFORCE's curve: a study without REINFORCE does not fit."""
    return without_reinforce(tables, SECTION.table)


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """The headline cell's accuracy at the compared budgets, the band's ends, and the most
    accurate trained cells of its setting (``headline_setting``) at the largest budget (every one
    of them where they tie)."""
    settings = cite.read(study, SETTINGS).iloc[0]
    accuracy = headline_setting(cite.read(study, SECTION.table), settings,
                                cite.read(study, "cells"))
    rows = headline_rows(accuracy, settings, or_every=True)
    one = cite.first(rows)
    band = cite.read(study, "accuracy_band")
    trained = accuracy[accuracy["algorithm"].isin(registry.trained())]
    last = trained[trained["budget"] == trained["budget"].max()]
    top = last[last["accuracy"] == last["accuracy"].max()].sort_values(["baseline", "lr"])
    # Cells with the same accuracy are named together: picking one of them would be a choice
    # made by the order of a sort, not by the data.
    tied = (f"algorithm in {registry.trained()!r} and budget == {plain(top['budget'].iat[0])} "
            f"and accuracy == {plain(top['accuracy'].iat[0])}")
    ends = "band_low", "band_high"
    return {
        "curve": [printed(r, accuracy=".3f", ci_low=".3f", ci_high=".3f", budget=",")
                  for r in cite.rows(rows)],
        "seeds": Named(one.seeds, ","), "bandit": Named(one.environment, shown=bandit),
        "lr": Named(one.lr, "g"), "baseline": baseline_name(one.baseline.value),
        "chance": Named(one.chance, shown=fraction), "table": rows[SHOWN],
        "band": band is not None and {
            "factor": Named(cite.first(band).band_factor, ".2f"),
            **{end: printed(row, budget=",.0f", **dict.fromkeys(ends, ".3f"))
               for end, row in (("first", cite.first(band)), ("last", cite.last(band)))}},
        "top": [{"lr": Named(r.lr, "g"), "baseline": baseline_name(r.baseline.value)}
                for r in cite.rows(top)],
        "final": printed(cite.first(top), budget=",", accuracy=".4f", ci_low=".4f",
                         ci_high=".4f"),
        "tie": len(top) > 1 and cite.count(accuracy, tied), "unit": settings["budget_unit"]}


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """Accuracy against budget and over lr x budget in the headline cell's setting
    (``headline_setting``), and the headline cell's simultaneous band where the analysis made
    it."""
    settings = read_table(tables, SETTINGS).iloc[0]
    accuracy = headline_setting(read_table(tables, SECTION.table), settings,
                                read_table(tables, "cells"))
    drawn = {name: plot(accuracy, out_dir, name, unit=settings["budget_unit"]) for name, plot in (
        (figure_name(study, "accuracy_vs_budget"), plots.accuracy_vs_budget),
        (figure_name(study, "lr_heatmap"), plots.lr_heatmap))}
    band = read_table(tables, "accuracy_band")
    if band is not None:
        name = figure_name(study, "accuracy_band")
        drawn[name] = plots.accuracy_band(band, out_dir, name)
    return drawn
