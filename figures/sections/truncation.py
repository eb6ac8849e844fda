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

from analysis.families import plain as plain_value
from figures.cite import Tables, read_table
from figures.claims import distinct, figure_name
from figures.numbers import Scope
from figures.paired_findings import paired_context, panels_by_lr_and_bandit
from figures.sections import Section
from figures.style import BAND_ALPHA, OKABE_ITO
from figures.words import baseline_name

SECTION = Section(table="truncation",
                  title="Off-policy rollouts: truncated sampling and the kept mask",
                  template="truncation.md.j2", order=17, figures=("truncation_collapse",),
                  paper="truncation.typ.j2")
PREFIX = "Truncated"
"""The prefix of the section's named counts (``figures.paired_findings``)."""
SHOWN = ["environment", "lr", "mismatch", "top_p", "correction", "budget", "served_pass_rate",
         "pass_rate", "stuck", "stuck_low", "stuck_high", "collapsed", "collapsed_low",
         "collapsed_high", "stalled_updates", "accuracy"]
"""The columns of the section's table of shares (every distinct simulation once)."""


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """The findings counted per metric and correction; the families; the shares' table at the
    headline estimator."""
    tests = cite.read(study, SECTION.table)
    shares = cite.read(study, "truncation_collapse")
    settings = cite.read(study, "settings").iloc[0]
    context = paired_context(cite, study, numbers, tests, PREFIX, stratum=("mismatch", "lr"))
    at_last = f"budget == {plain_value(shares['budget'].max())}"
    last = shares.query(at_last)
    numbers.put(f"{PREFIX}LastBudget", cite.largest(shares, "budget"), ",")
    numbers.put(f"{PREFIX}MostCollapsed", cite.largest(last, "collapsed"), ".3f")
    numbers.put(f"{PREFIX}MostStuck", cite.largest(last, "stuck"), ".3f")
    numbers.put(f"{PREFIX}Simulations", cite.count(shares, at_last), ",")
    numbers.put(f"{PREFIX}DistinctSimulations", cite.count(shares, f"{at_last} and distinct"),
                ",")
    # Whether the learner's collapse share and the served policy's stuck share part in
    # direction without logit noise (the first stratum): the paragraph says so only then.
    plain = f"distinct and mismatch == {plain_value(tests['mismatch'].min())}"
    hidden = (cite.count(tests, f"{plain} and metric == 'stuck' and finding == 'higher'").value
              > 0 and cite.count(tests, f"{plain} and metric == 'collapsed' and "
                                 "finding == 'lower'").value > 0)
    # The strata without logit noise, and with it (the first stratum column is the mismatch).
    quiet = [s for s in context["strata"] if s["values"][0]["value"].value
             == tests["mismatch"].min()]
    noisy = [s for s in context["strata"] if s not in quiet]
    return {**context, "hidden": hidden, "quiet": quiet, "noisy": noisy,
            "top_p": distinct(cite, tests, "top_p"),
            "deepseek_mask": f"keep_mask ({cite.literal('DeepSeek V3.2')}'s kept sampling mask)",
            "headline": baseline_name(settings["headline_baseline"]),
            "table": last[(last["baseline"] == settings["headline_baseline"])
                          & last["distinct"]][SHOWN]}


MEASURES = {"stuck": "stuck (served)", "collapsed": "collapsed (learner)"}
"""The shares the figure draws side by side, each titled by what it reads."""


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """The share of stuck runs (the served policy's) and of collapsed runs (the learner's) at
    the largest compared budget against top_p, a colour per correction with its exact 95% band,
    at the headline estimator and the smallest mismatch: a row per lr, a column per bandit and
    share."""
    shares = read_table(tables, "truncation_collapse")
    settings = read_table(tables, "settings").iloc[0]
    chosen = shares[(shares["baseline"] == settings["headline_baseline"])
                    & (shares["budget"] == shares["budget"].max())
                    & (shares["mismatch"] == shares["mismatch"].min())]
    # One row per share, so that the shares are a column of panels each.
    rows = pd.concat([chosen.assign(measure=measure, share=chosen[measure],
                                    share_low=chosen[f"{measure}_low"],
                                    share_high=chosen[f"{measure}_high"])
                      for measure in MEASURES], ignore_index=True)

    def draw_one(ax: Axes, i: int, correction: str, chosen: pd.DataFrame) -> None:
        chosen = chosen.sort_values("top_p")
        colour = OKABE_ITO[i % len(OKABE_ITO)]
        # A marker each: corrections that change nothing here draw one line.
        ax.plot(chosen["top_p"], chosen["share"], color=colour, marker="osD^v"[i % 5],
                markersize=4, label=correction.replace("_", " "))
        ax.fill_between(chosen["top_p"], chosen["share_low"], chosen["share_high"],
                        color=colour, alpha=BAND_ALPHA, linewidth=0)

    pad = 0.02 * (1.0 - rows["top_p"].min())

    def finish(ax: Axes) -> None:
        # Limits, not invert_xaxis: the panels share x, and each inversion undoes the last.
        ax.set_xlim(1.0 + pad, rows["top_p"].min() - pad)
        ax.set_ylim(-0.02, 1.02)

    name = figure_name(study, SECTION.figure)
    return {name: panels_by_lr_and_bandit(
        rows, out_dir, name, "top_p (the sampler's kept mass)", "share of runs", draw_one,
        finish, across="measure", titled=MEASURES.get)}
