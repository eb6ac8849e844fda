"""Truncated sampling (``analysis.questions.truncation``, with the shares of
``analysis.questions.truncation_collapse``): an off-policy study whose sampler keeps only the
top-p arms somewhere gets this section (each truncated cell against its untruncated partner on
the pass rate, accuracy and collapse, the findings counted per correction, with and without the
kept mask), its figure (the collapse share against top_p, a colour per correction) and its
paragraph of the paper."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes

from figures.cite import Tables, read_table
from figures.numbers import Scope
from figures.paired_findings import paired_context, panels_by_lr_and_bandit
from figures.sections import Section, distinct, figure_name
from figures.style import BAND_ALPHA, OKABE_ITO
from figures.words import baseline_name

SECTION = Section(table="truncation",
                  title="Off-policy rollouts: truncated sampling and the kept mask",
                  template="truncation.md.j2", order=17, figures=("truncation_collapse",),
                  paper="truncation.typ.j2")
PREFIX = "Truncated"
"""The prefix of the section's named counts (``figures.paired_findings``)."""
SHOWN = ["environment", "baseline", "lr", "mismatch", "top_p", "correction", "budget",
         "seeds", "collapsed", "collapsed_low", "collapsed_high", "accuracy", "accuracy_low",
         "accuracy_high"]
"""The columns of the section's table of collapse shares."""


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """The findings counted per metric and correction; the families; the shares' table at the
    headline estimator."""
    tests = cite.read(study, SECTION.table)
    shares = cite.read(study, "truncation_collapse")
    settings = cite.read(study, "settings").iloc[0]
    context = paired_context(cite, study, numbers, tests, PREFIX)
    numbers.put(f"{PREFIX}MostCollapsed", cite.largest(shares, "collapsed"), ".3f")
    return {**context, "top_p": distinct(cite, tests, "top_p"),
            "deepseek_mask": f"keep_mask ({cite.literal('DeepSeek V3.2')}'s kept sampling mask)",
            "headline": baseline_name(settings["headline_baseline"]),
            "table": shares[(shares["baseline"] == settings["headline_baseline"])
                            & (shares["budget"] == shares["budget"].max())][SHOWN]}


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """The share of collapsed runs at the largest compared budget against top_p, a colour per
    correction with its exact 95% band, at the headline estimator and the smallest mismatch:
    a row per lr, a column per bandit."""
    shares = read_table(tables, "truncation_collapse")
    settings = read_table(tables, "settings").iloc[0]
    rows = shares[(shares["baseline"] == settings["headline_baseline"])
                  & (shares["budget"] == shares["budget"].max())
                  & (shares["mismatch"] == shares["mismatch"].min())]

    def draw_one(ax: Axes, i: int, correction: str, chosen: pd.DataFrame) -> None:
        chosen = chosen.sort_values("top_p")
        colour = OKABE_ITO[i % len(OKABE_ITO)]
        # A marker each: corrections that change nothing here draw one line.
        ax.plot(chosen["top_p"], chosen["collapsed"], color=colour, marker="osD^v"[i % 5],
                markersize=4, label=correction.replace("_", " "))
        ax.fill_between(chosen["top_p"], chosen["collapsed_low"], chosen["collapsed_high"],
                        color=colour, alpha=BAND_ALPHA, linewidth=0)

    name = figure_name(study, SECTION.figure)
    return {name: panels_by_lr_and_bandit(
        rows, out_dir, name, "top_p (the sampler's kept mass)", "share of runs\ncollapsed",
        draw_one, Axes.invert_xaxis)}
