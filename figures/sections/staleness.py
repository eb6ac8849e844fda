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

from figures.cite import Tables, read_table
from figures.numbers import Scope
from figures.paired_findings import correction_word, name_budget_verdicts, paired_context
from figures.sections import Section, distinct, figure_name
from figures.style import BAND_ALPHA, OKABE_ITO, REFERENCE, outside_legend, save
from figures.words import bandit, baseline_name

SECTION = Section(table="staleness", title="Off-policy rollouts: what a stale sampler costs",
                  template="staleness.md.j2", order=15, figures=("staleness",),
                  paper="staleness.typ.j2")

SHOWN = ["environment", "baseline", "lr", "correction", "lag", "budget", "mean_a", "mean_b",
         "difference", "ci_low", "ci_high", "p_value_holm", "finding"]
"""The columns of the section's table of tests."""
BUDGETS = ["environment", "baseline", "lr", "correction", "lag", "metric", "target", "budget_a",
           "reached_a", "budget_b", "reached_b", "ratio", "ci_low", "ci_high", "equivalence"]
"""The columns of the section's table of budget ratios."""


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """Per metric, the rows and their findings, counted in all and per correction; at the
    headline estimator and lr on the first bandit, each correction's budget ratio at the
    largest lag; the families and the tables."""
    tests = cite.read(study, SECTION.table)
    budgets = cite.read(study, "staleness_budgets")
    settings = cite.read(study, "settings").iloc[0]
    context = paired_context(cite, study, numbers, tests, "", stratum="lr")
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
            "budgets": _headline(budgets, settings)[BUDGETS]}


def _headline(frame: pd.DataFrame, settings: pd.Series) -> pd.DataFrame:
    """The rows of ``frame`` at the headline estimator and lr (the whole tables are the
    study's files)."""
    return frame[(frame["baseline"] == settings["headline_baseline"])
                 & (frame["lr"] == settings["headline_lr"])]


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """The budget to 0.9 of each stale cell over its lag-0 partner's against the lag, a colour
    per correction with its 95% band, at the headline estimator: a row per lr, a column per
    bandit and metric; a point only where both reach the target."""
    budgets = read_table(tables, "staleness_budgets")
    settings = read_table(tables, "settings").iloc[0]
    rows = budgets[budgets["baseline"] == settings["headline_baseline"]]
    reached = rows[rows["reached_a"] & rows["reached_b"]]
    lrs = sorted(rows["lr"].unique())
    # A bandit and metric on which no cell reaches its target has no panel.
    panels = [(environment, metric) for environment, metric in itertools.product(
        dict.fromkeys(rows["environment"]), ("pass_rate", "accuracy"))
        if ((reached["environment"] == environment) & (reached["metric"] == metric)).any()]
    corrections = list(dict.fromkeys(rows["correction"]))
    figure, axes = plt.subplots(len(lrs), len(panels), figsize=(3.0 * len(panels),
                                                               2.4 * len(lrs)),
                                squeeze=False, sharex=True, layout="constrained")
    for (r, lr), (c, (environment, metric)) in itertools.product(enumerate(lrs),
                                                                   enumerate(panels)):
        ax = axes[r][c]
        ax.axhline(1.0, **REFERENCE)
        shown = reached[(reached["lr"] == lr) & (reached["environment"] == environment)
                        & (reached["metric"] == metric)]
        if shown.empty:
            ax.text(0.5, 0.75, "target not reached", transform=ax.transAxes, ha="center",
                    va="center", color="0.35", backgroundcolor="white")
        for i, correction in enumerate(corrections):
            colour = OKABE_ITO[i % len(OKABE_ITO)]
            chosen = shown[shown["correction"] == correction].sort_values("lag")
            ax.plot(chosen["lag"], chosen["ratio"], color=colour, marker="osD^v"[i % 5],
                    markersize=3, label=correction.replace("_", " "))
            # An unbounded limit (too many resamples never reach the target) is drawn to the
            # panel's edge.
            high = chosen["ci_high"].replace(np.inf, np.nan)
            ax.fill_between(chosen["lag"], chosen["ci_low"], high.fillna(ax.get_ylim()[1]),
                            color=colour, alpha=BAND_ALPHA, linewidth=0)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(sorted(rows["lag"].unique()), [f"{v:g}" for v in
                                                     sorted(rows["lag"].unique())])
        ax.minorticks_off()
        ax.yaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
        if r == 0:
            ax.set_title(f"{environment}\n{metric.replace('_', ' ')}", fontsize="small")
        if r == len(lrs) - 1:
            ax.set_xlabel("lag d (updates, log scale)")
        if c == 0:
            ax.set_ylabel(f"lr {lr:g}: budget ratio\n(stale / lag 0, log scale)")
    outside_legend(figure, axes[0][0], title="correction")
    name = figure_name(study, SECTION.figure)
    return {name: save(figure, out_dir, name)}

