"""A length penalty lifted late with many prompts and whatever else the run has
(``analysis.prompts.questions.prompts_lifted``): a many-prompts study holding a cell whose penalty
is lifted part way and its partner keeping it to the end gets this section (each metric's
difference after the switch, with its interval and finding) and its figure (the differences
against the token budget, a panel per metric) and its paragraph of the paper."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from figures.cite import Tables, read_table
from figures.claims import families, figure_name, with_intervals
from figures.numbers import Named, Scope, macro_name
from figures.sections import Section
from figures.sections.factorial import WORDS, metric_order
from figures.style import OKABE_ITO, REFERENCE, save

SECTION = Section(table="prompts_lifted",
                  title="The length penalty lifted late, under the whole protocol",
                  template="lifted.md.j2", order=20, figures=("prompts_lifted",),
                  paper="lifted.typ.j2")
SHOWN = ["metric", "budget", "mean_a", "mean_b", "difference [95%]", "interval_method",
         "p_value_holm", "p_equivalence_holm", "finding", "within_margin"]
"""The columns of the section's table: A is the cell whose penalty is lifted, B its partner
keeping it to the end."""


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """The share after which the penalty is lifted, the seeds, the margin, each metric's rows at
    every budget after the switch (with their findings), and the families."""
    tests = cite.read(study, SECTION.table).sort_values("budget").sort_values(
        "metric", key=metric_order, kind="stable")
    numbers.put("LiftedAt", cite.first(tests).lifted_at, ".0%")
    numbers.put("LiftedSeeds", cite.first(tests).seeds, ",")
    margins = [{"metric": WORDS[r.metric.value], "margin": Named(r.margin, "g")}
               for r in cite.rows(tests[tests["margin"].notna()].drop_duplicates("metric"))]
    largest = tests[tests["budget"] == tests["budget"].max()]
    numbers.put("LiftedBudget", cite.first(largest).budget, ",")
    for r in cite.rows(largest):
        word = macro_name(*r.metric.value.split("_"))
        for column, suffix in (("difference", ""), ("difference_low", "Low"),
                               ("difference_high", "High")):
            numbers.put(f"Lifted{word}{suffix}", r[column], "+.4f")
    rows = []
    for r in cite.rows(tests):
        rows.append({"metric": WORDS[r.metric.value], "budget": Named(r.budget, ","),
                     "finding": r.finding.value, "within": bool(r.within_margin.value),
                     "difference": Named(r.difference, "+.4f"),
                     "low": Named(r.difference_low, "+.4f"),
                     "high": Named(r.difference_high, "+.4f")})
    # Where best-arm accuracy and the served pass rate part: one shows a difference beyond its
    # margin and the other does not show the same (another finding, or one within its margin).
    served = tests[tests["metric"] == "served_pass_rate"]
    accuracy = tests[tests["metric"] == "accuracy"].set_index("budget")
    apart = []
    for r in cite.rows(served[served["budget"].isin(accuracy.index)]):
        budget = r.budget.value
        pair = [_reading(served[served["budget"] == budget].iloc[0]),
                _reading(accuracy.loc[budget])]
        if pair[0] != pair[1] and any(p.endswith("more than its margin") for p in pair):
            apart.append({"budget": Named(r.budget, ","), "served": pair[0],
                          "accuracy": pair[1]})
    return {"speciale": cite.literal("DeepSeek V3.2-Speciale"),
            "deepseek": cite.literal("DeepSeek V3.2"), "rows": rows, "margins": margins,
            "apart": apart, "families": families(cite, tests),
            "equivalence_families": families(cite, tests, "equivalence_family"),
            "table": with_intervals(cite, tests, "+.4f", **{
                "difference [95%]": ("difference", "difference_low", "difference_high")})[SHOWN]}


def _reading(row: pd.Series) -> str:
    """A paired row's finding as the section reads it against its margin."""
    if row["finding"] in ("higher", "lower"):
        return f"{row['finding']} by {'less' if row['within_margin'] else 'more'} than its margin"
    return str(row["finding"])


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """Each metric's difference, lifted late minus kept to the end, with its 95% t interval over
    seeds, at each token budget after the switch; a panel per metric."""
    tests = read_table(tables, SECTION.table)
    metrics = [m for m in WORDS if m in set(tests["metric"])]
    fig, axes = plt.subplots(1, len(metrics), figsize=(3.2 * len(metrics), 3.0),
                             squeeze=False, layout="constrained")
    for ax, metric in zip(axes[0], metrics, strict=True):
        rows = tests[tests["metric"] == metric].sort_values("budget")
        ax.errorbar(rows["budget"], rows["difference"],
                    yerr=np.vstack([rows["difference"] - rows["difference_low"],
                                    rows["difference_high"] - rows["difference"]]),
                    color=OKABE_ITO[0], marker="o", markersize=4, capsize=3, linestyle="none")
        ax.axhline(0.0, **REFERENCE)
        margin = float(rows["margin"].iloc[0])
        if np.isfinite(margin):
            for side in (-margin, margin):
                ax.axhline(side, color=OKABE_ITO[1], linestyle=":", linewidth=1.0)
        ax.set_xscale("log")
        ax.set_xticks(rows["budget"], [f"{b:,}" for b in rows["budget"]])
        ax.minorticks_off()
        ax.set_xlim(rows["budget"].min() / 1.15, rows["budget"].max() * 1.15)
        ax.set_xlabel("token budget (tokens, log scale)")
        ax.set_ylabel(f"{WORDS[metric]},\nlifted minus kept")
    name = figure_name(study, SECTION.figure)
    return {name: save(fig, out_dir, name)}
