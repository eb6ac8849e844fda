"""What a stale sampler costs (``analysis.questions.staleness``, with the budgets of
``analysis.questions.staleness_budgets``): an off-policy study whose grid has lags above 0 gets
this section (each stale cell against its lag-0 partner at the compared budgets, on accuracy and
on the pass rate, the findings counted per correction), its figure (the budget ratio to 0.9
against the lag, a colour per correction) and its paragraph of the paper."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib import ticker

from figures.cite import Cited, Tables, read_table, unmark
from figures.claims import distinct, figure_name
from figures.numbers import Scope
from figures.paired_findings import correction_word, name_budget_verdicts, paired_context
from figures.sections import Section
from figures.style import BAND_ALPHA, OKABE_ITO, REFERENCE, outside_legend, save
from figures.words import bandit, baseline_name, budget_ratio

SECTION = Section(table="staleness", title="Off-policy rollouts: what a stale sampler costs",
                  template="staleness.md.j2", order=15, figures=("staleness",),
                  paper="staleness.typ.j2")

SHOWN = ["environment", "baseline", "lr", "correction", "lag", "budget", "mean_a", "mean_b",
         "difference", "ci_low", "ci_high", "p_value_holm", "finding"]
"""The columns of the section's table of tests."""
BUDGETS = ["environment", "baseline", "lr", "correction", "lag", "metric", "target", "budget_a",
           "reached_a", "budget_b", "reached_b", "ratio [95%]", "equivalence"]
"""The columns of the section's table of budget ratios (``with_ratios``)."""
DIGIT_TICKS = 3.0
"""The widest span (largest over smallest) of a figure panel ticked at every digit: wider, the
labels of 0.8, 0.9 and 1 would touch."""


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """Per metric, the rows and their findings, counted in all and per correction; at the
    headline estimator and lr on the first bandit, each correction's budget ratio at the
    largest lag; the families and the tables."""
    tests = cite.read(study, SECTION.table)
    budgets = cite.read(study, "staleness_budgets")
    settings = cite.read(study, "settings").iloc[0]
    context = paired_context(cite, study, numbers, tests, "", stratum=("lr", "correction"))
    numbers.put_constant("Target", cite.constant("analysis.budget_to_target.TARGET"), "g")
    numbers.put("LargestLag", cite.largest(tests, "lag"), "")
    name_budget_verdicts(cite, numbers, budgets, "Budget", context["corrections"])
    headline = budgets[(budgets["baseline"] == settings["headline_baseline"])
                       & (budgets["lr"] == settings["headline_lr"])
                       & (budgets["environment"] == budgets["environment"].iat[0])
                       & (budgets["lag"] == budgets["lag"].max())
                       & (budgets["metric"] == "pass_rate")
                       # The sampler otherwise as plain as the study has it: one row per
                       # correction.
                       & (budgets["kl_beta"] == budgets["kl_beta"].min())
                       & (budgets["mismatch"] == budgets["mismatch"].min())
                       & (budgets["top_p"] == budgets["top_p"].max())].drop_duplicates(
                           "correction")
    first = cite.first(headline)
    numbers.put("HeadlineLr", first.lr, "g")
    numbers.put("HeadlineBandit", first.environment, shown=bandit)
    numbers.put("HeadlineTarget", first.target, ".4f")
    numbers.put("HeadlineBudget", first.budget_b, ",.0f")
    ratios = []
    for row in cite.rows(headline):
        name = f"Ratio{correction_word(row.correction.value)}"
        if row.reached_a.value and row.reached_b.value:
            numbers.put(name, row.ratio, ".2f")
            numbers.put(f"{name}Low", row.ci_low, ".2f")
            numbers.put(f"{name}High", row.ci_high, ".2f")
            ratios.append({"correction": row.correction.value, "name": name})
        else:
            ratios.append({"correction": row.correction.value, "name": ""})
    return {**context, "lags": distinct(cite, tests, "lag"), "lrs": distinct(cite, tests, "lr"),
            "ratios": ratios, "headline": baseline_name(settings["headline_baseline"]),
            "deepseek": cite.literal("DeepSeek V3.2"),
            "table": _headline(tests.query("metric == 'pass_rate' and distinct"),
                               settings)[SHOWN],
            "budgets": with_ratios(cite, _headline(budgets, settings))[BUDGETS]}


def with_ratios(cite: Tables, frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (budget ratios, ``analysis.offpolicy.budget_ratios``) with the text column
    ``ratio [95%]``: each ratio with its interval, or the bound or "not estimated" where a cell
    does not reach the target (``figures.words.budget_ratio``), recorded as it goes into its
    cell."""
    return frame.assign(**{"ratio [95%]": [unmark(Cited.gather(
        r.ratio, r.ci_low, r.ci_high, r.reached_a, r.reached_b, r.budget_a, r.budget_b).shown(
            budget_ratio)) for r in cite.rows(frame)]})


def _headline(frame: pd.DataFrame, settings: pd.Series) -> pd.DataFrame:
    """The rows of ``frame`` at the headline estimator and lr (the whole tables are the
    study's files)."""
    return frame[(frame["baseline"] == settings["headline_baseline"])
                 & (frame["lr"] == settings["headline_lr"])]


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """The budget to 0.9 of each stale cell over its lag-0 partner's, a colour per correction
    with its 95% interval, at the headline estimator, a column per bandit and metric: against the
    lag, a row per lr, with bands, where the study has several lags; against the lr, points with
    bars, where it has one. A ratio is drawn where both cells reach the target and its interval
    has a lower limit (``_estimated``); a limit unbounded above is drawn to the panel's top,
    ending in an arrow."""
    budgets = read_table(tables, "staleness_budgets")
    settings = read_table(tables, "settings").iloc[0]
    rows = budgets[budgets["baseline"] == settings["headline_baseline"]]
    shown = rows[_estimated(rows)]
    lags = sorted(rows["lag"].unique())
    several = len(lags) > 1
    lrs = sorted(rows["lr"].unique())
    # A bandit and metric with no ratio drawn has no panel; where none has one, every panel
    # says why.
    every = list(itertools.product(dict.fromkeys(rows["environment"]), ("pass_rate", "accuracy")))
    panels = [(environment, metric) for environment, metric in every
              if ((shown["environment"] == environment) & (shown["metric"] == metric)).any()
              ] or every
    corrections = list(dict.fromkeys(rows["correction"]))
    figure, axes = plt.subplots(len(lrs) if several else 1, len(panels),
                                figsize=(3.0 * len(panels), 2.4 * len(lrs) if several else 2.6),
                                squeeze=False, sharex=True, layout="constrained")
    for (r, lr), (c, (environment, metric)) in itertools.product(
            enumerate(lrs if several else [None]), enumerate(panels)):
        ax = axes[r][c]
        panel = (rows["environment"] == environment) & (rows["metric"] == metric)
        if several:
            panel &= rows["lr"] == lr
        chosen = shown[panel[shown.index]]
        ax.set_yscale("log")
        _limits(ax, chosen)
        ax.axhline(1.0, **REFERENCE)
        if chosen.empty:
            reached = rows[panel & rows["reached_a"] & rows["reached_b"]]
            ax.text(0.5, 0.75, "no interval bounded below" if len(reached)
                    else "target not reached", transform=ax.transAxes, ha="center",
                    va="center", color="0.35", backgroundcolor="white")
        for i, correction in enumerate(corrections):
            one = chosen[chosen["correction"] == correction].sort_values(
                "lag" if several else "lr")
            style = {"color": OKABE_ITO[i % len(OKABE_ITO)], "marker": "osD^v"[i % 5],
                     "markersize": 3, "label": correction.replace("_", " ")}
            if several:
                _banded(ax, one["lag"], one, style)
                # A ratio with no neighbour to share its band: a point with its bar.
                at = one["lag"].map(lags.index)
                alone = ~(at.diff().eq(1) | at.diff(-1).eq(-1))
                _barred(ax, one["lag"][alone], one[alone], {**style, "label": None})
            else:
                # Side by side at each lr, so that no correction's bar hides another's.
                _barred(ax, one["lr"].map(lrs.index) + 0.12 * (i - (len(corrections) - 1) / 2),
                        one, style)
        if several:
            ax.set_xscale("log", base=2)
            ax.set_xticks(lags, [f"{v:g}" for v in lags])
        else:
            ax.set_xticks(range(len(lrs)), [f"{v:g}" for v in lrs])
            ax.set_xlim(-0.5, len(lrs) - 0.5)
        ax.minorticks_off()
        ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
        if r == 0:
            ax.set_title(f"{environment}\n{metric.replace('_', ' ')}", fontsize="small")
        if r == len(axes) - 1:
            ax.set_xlabel("lag d (updates, log scale)" if several
                          else f"lr (lag {lags[0]:g} against lag 0)")
        if c == 0:
            ax.set_ylabel(f"lr {lr:g}: budget ratio\n(stale / lag 0, log scale)" if several
                          else "budget ratio\n(stale / lag 0, log scale)")
    outside_legend(figure, axes[0][0], title="correction")
    name = figure_name(study, SECTION.figure)
    return {name: save(figure, out_dir, name)}


def _estimated(rows: pd.DataFrame) -> pd.Series:
    """The budget ratios the figure draws: both cells reach the target and the interval has a
    lower limit (an interval from 0, where too many resamples of the stale cell never reach the
    target, bounds nothing)."""
    return rows["reached_a"] & rows["reached_b"] & (rows["ci_low"] > 0)


def _limits(ax: plt.Axes, chosen: pd.DataFrame) -> None:
    """A panel's log scale around 1 and every finite ratio and limit it draws, with room above
    for the arrows of the limits unbounded above, and ticks at every digit where it spans less
    than a factor ``DIGIT_TICKS`` (else at 1, 2 and 5 of each decade)."""
    values = np.concatenate([[1.0], chosen["ratio"], chosen["ci_low"],
                             chosen["ci_high"][np.isfinite(chosen["ci_high"])]])
    room = 1.6 if (~np.isfinite(chosen["ci_high"])).any() else 1.15
    low, high = values.min() / 1.15, values.max() * room
    ax.set_ylim(low, high)
    ax.yaxis.set_major_locator(ticker.LogLocator(
        subs=np.arange(1.0, 10.0) if high / low < DIGIT_TICKS else (1.0, 2.0, 5.0)))


def _unbounded(ax: plt.Axes, x: pd.Series, chosen: pd.DataFrame, style: dict[str, Any]) -> None:
    """An arrow at the panel's top above each ratio whose interval is unbounded above."""
    top = ax.get_ylim()[1]
    for at in x[~np.isfinite(chosen["ci_high"])]:
        ax.plot(at, top, marker="^", color=style["color"], markersize=5, clip_on=False)


def _banded(ax: plt.Axes, x: pd.Series, chosen: pd.DataFrame, style: dict[str, Any]) -> None:
    """Ratios against the lag as a line with its band, drawn to the top where unbounded (a
    ratio alone, with no drawn neighbour, has a band of no width)."""
    ax.plot(x, chosen["ratio"], **style)
    high = chosen["ci_high"].where(np.isfinite(chosen["ci_high"]), ax.get_ylim()[1])
    ax.fill_between(x, chosen["ci_low"], high, color=style["color"], alpha=BAND_ALPHA,
                    linewidth=0)
    _unbounded(ax, x, chosen, style)


def _barred(ax: plt.Axes, x: pd.Series, chosen: pd.DataFrame, style: dict[str, Any]) -> None:
    """Ratios as points with bars, drawn to the top where unbounded."""
    high = chosen["ci_high"].where(np.isfinite(chosen["ci_high"]), ax.get_ylim()[1])
    ax.errorbar(x, chosen["ratio"], yerr=np.vstack([chosen["ratio"] - chosen["ci_low"],
                                                    high - chosen["ratio"]]),
                linestyle="none", capsize=2, **style)
    _unbounded(ax, x, chosen, style)
