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
    """The seeds, each metric's margin, each pair's rows at every budget after its switch (with
    their findings), where accuracy and the served pass rate part, and the families; where the
    study holds one pair, its share and each metric's difference at the largest budget named for
    the paper."""
    tests = cite.read(study, SECTION.table).sort_values(["lifted_at", "budget"]).sort_values(
        "metric", key=metric_order, kind="stable")
    numbers.put("LiftedSeeds", cite.first(tests).seeds, ",")
    margins = [{"metric": WORDS[r.metric.value], "margin": Named(r.margin, "g")}
               for r in cite.rows(tests[tests["margin"].notna()].drop_duplicates("metric"))]
    single = tests["cell_a"].nunique() == 1
    named = []
    if single:
        numbers.put("LiftedAt", cite.first(tests).lifted_at, ".0%")
        largest = tests[tests["budget"] == tests["budget"].max()]
        numbers.put("LiftedBudget", cite.first(largest).budget, ",")
        for r in cite.rows(largest):
            word = macro_name(*r.metric.value.split("_"))
            for column, suffix in (("difference", ""), ("difference_low", "Low"),
                                   ("difference_high", "High")):
                numbers.put(f"Lifted{word}{suffix}", r[column], "+.4f")
            named.append({"metric": WORDS[r.metric.value], "word": word})
    readings = tests.apply(_reading, axis=1)
    rows = [{"metric": WORDS[r.metric.value], "budget": Named(r.budget, ","),
             "lifted_at": Named(r.lifted_at, ".0%"), "reading": reading,
             "difference": Named(r.difference, "+.4f"), "low": Named(r.difference_low, "+.4f"),
             "high": Named(r.difference_high, "+.4f")}
            for r, reading in zip(cite.rows(tests), readings, strict=True)]
    # Where best-arm accuracy and the served pass rate part: one shows a difference beyond its
    # margin and the other does not show the same.
    on_accuracy = tests["metric"] == "accuracy"
    accuracy = readings[on_accuracy].set_axis(
        pd.MultiIndex.from_frame(tests.loc[on_accuracy, ["cell_a", "budget"]]))
    apart = []
    served = tests["metric"] == "served_pass_rate"
    for r, reading in zip(cite.rows(tests[served]), readings[served], strict=True):
        key = (r.cell_a.value, r.budget.value)
        if key not in accuracy.index:
            continue
        pair = [reading, accuracy[key]]
        if pair[0] != pair[1] and any(p.endswith("(beyond its margin)") for p in pair):
            apart.append({"budget": Named(r.budget, ","), "lifted_at": Named(r.lifted_at, ".0%"),
                          "served": pair[0], "accuracy": pair[1]})
    return {"speciale": cite.literal("DeepSeek V3.2-Speciale"),
            "deepseek": cite.literal("DeepSeek V3.2"), "single": single, "named": named,
            "rows": rows, "margins": margins, "apart": apart,
            "families": families(cite, tests),
            "equivalence_families": families(cite, tests, "equivalence_family"),
            "table": with_intervals(cite, tests, "+.4f", **{
                "difference [95%]": ("difference", "difference_low", "difference_high")})[SHOWN]}


def _reading(row: pd.Series) -> str:
    """A paired row's finding against its margin: a difference beyond the margin (its 95%
    interval wholly outside it), one shown within it (its equivalence test), or neither; the
    finding alone for a metric without a margin."""
    if row["finding"] not in ("higher", "lower") or pd.isna(row["margin"]):
        return str(row["finding"])
    if row["within_margin"]:
        return f"{row['finding']} (within its margin)"
    beyond = row["difference_low"] > row["margin"] or row["difference_high"] < -row["margin"]
    return f"{row['finding']} ({'beyond' if beyond else 'not shown within'} its margin)"


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """Each metric's difference, lifted late minus kept to the end, with its 95% t interval over
    seeds, at each token budget after the switch; a panel per metric, a colour per share after
    which the penalty is lifted."""
    tests = read_table(tables, SECTION.table)
    metrics = [m for m in WORDS if m in set(tests["metric"])]
    fig, axes = plt.subplots(1, len(metrics), figsize=(3.2 * len(metrics), 3.0),
                             squeeze=False, layout="constrained")
    shares = sorted(tests["lifted_at"].unique())
    for ax, metric in zip(axes[0], metrics, strict=True):
        rows = tests[tests["metric"] == metric].sort_values("budget")
        # A colour per share after which the penalty is lifted (each its own pair of cells).
        for i, share in enumerate(shares):
            pair = rows[rows["lifted_at"] == share]
            ax.errorbar(pair["budget"], pair["difference"],
                        yerr=np.vstack([pair["difference"] - pair["difference_low"],
                                        pair["difference_high"] - pair["difference"]]),
                        color=OKABE_ITO[i % len(OKABE_ITO)], marker="osD^v"[i % 5],
                        markersize=4, capsize=3, linestyle="none",
                        label=f"lifted after {share:.0%}")
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
    if len(shares) > 1:
        axes[0][0].legend(fontsize="small")
    name = figure_name(study, SECTION.figure)
    return {name: save(fig, out_dir, name)}
