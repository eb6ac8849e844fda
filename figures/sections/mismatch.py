"""A mismatched sampler (``analysis.questions.mismatch``): an off-policy study whose sampler's
logits carry noise somewhere gets this section (each mismatched cell against its partner without
noise on the pass rate, accuracy and collapse, the findings counted per correction), its figure
(the pass-rate difference against the noise, a colour per correction) and its paragraph of the
paper."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from figures.cite import Tables, read_table
from figures.claims import distinct, figure_name
from figures.numbers import Scope
from figures.paired_findings import paired_context, panels_by_lr_and_bandit
from figures.sections import Section
from figures.style import OKABE_ITO, REFERENCE
from figures.words import baseline_name

SECTION = Section(table="mismatch", title="Off-policy rollouts: a mismatched sampler",
                  template="mismatch.md.j2", order=18, figures=("mismatch",),
                  paper="mismatch.typ.j2")
PREFIX = "Mismatched"
"""The prefix of the section's named counts (``figures.paired_findings``)."""
SHOWN = ["environment", "lr", "mismatch", "top_p", "correction", "budget", "mean_a", "mean_b",
         "difference", "ci_low", "ci_high", "p_value_holm", "finding"]
"""The columns of the section's table of pass-rate tests."""


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """The findings counted per metric and correction; the families; the pass-rate rows at the
    headline estimator and the largest compared budget."""
    tests = cite.read(study, SECTION.table)
    settings = cite.read(study, "settings").iloc[0]
    context = paired_context(cite, study, numbers, tests, PREFIX, stratum=("top_p", "lr"))
    return {**context, "eps": distinct(cite, tests, "mismatch"),
            "headline": baseline_name(settings["headline_baseline"]),
            "table": tests[(tests["baseline"] == settings["headline_baseline"])
                           & (tests["metric"] == "served_pass_rate") & tests["distinct"]
                           & (tests["budget"] == tests["budget"].max())][SHOWN]}


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """The served pass rate of each mismatched cell minus its noiseless partner's at the
    largest compared budget against the noise eps, a colour per correction, 95% betting bars, at
    the headline estimator: a row per lr, a column per bandit and top_p (the effect depends on
    it)."""
    tests = read_table(tables, SECTION.table)
    settings = read_table(tables, "settings").iloc[0]
    rows = tests[(tests["baseline"] == settings["headline_baseline"])
                 & (tests["metric"] == "served_pass_rate")
                 & (tests["budget"] == tests["budget"].max())].sort_values("top_p",
                                                                          ascending=False)
    ticks = sorted(rows["mismatch"].unique())
    middle = (rows["correction"].nunique() - 1) / 2

    def draw_one(ax: Axes, i: int, correction: str, chosen: pd.DataFrame) -> None:
        chosen = chosen.sort_values("mismatch")
        # Nudged sideways so that the corrections' bars do not hide each other.
        x = chosen["mismatch"] * (1.0 + 0.04 * (i - middle))
        ax.errorbar(x, chosen["difference"],
                    yerr=np.vstack([chosen["difference"] - chosen["ci_low"],
                                    chosen["ci_high"] - chosen["difference"]]),
                    color=OKABE_ITO[i % len(OKABE_ITO)], marker="osD^v"[i % 5], markersize=3,
                    capsize=2, label=correction.replace("_", " "))

    def finish(ax: Axes) -> None:
        ax.axhline(0.0, **REFERENCE)
        ax.set_xscale("log")
        ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
        ax.minorticks_off()

    name = figure_name(study, SECTION.figure)
    return {name: panels_by_lr_and_bandit(
        rows, out_dir, name, "mismatch eps (logit noise sd, log scale)",
        "served pass rate minus\nthe noiseless sampler's", draw_one, finish, across="top_p")}
