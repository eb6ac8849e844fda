"""Many prompts from a population of environments
(``analysis.prompts.questions.prompts_difficulty``):
a many-prompts study whose prompts come from a population (``study.model.population``) gets this
section (each rule against uniform allocation at the largest budget, on both metrics, then per
tenth of environment pass probability), its figure and its paragraph of the paper."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from analysis.prompts.outcomes import REFERENCE
from analysis.roles import Finding
from figures.cite import Tables, read_table
from figures.claims import families, figure_name
from figures.numbers import Named, Scope, macro_name
from figures.sections import Section
from figures.sections.prompt_allocation import METRIC_NAMES, rule_name
from figures.style import OKABE_ITO, save
from figures.style import REFERENCE as REFERENCE_LINE

SECTION = Section(table="prompts_difficulty",
                  title="Many environments: the allocation rules at scale",
                  template="environments.md.j2", order=21, figures=("prompts_difficulty",),
                  paper="environments.typ.j2")
METRICS = ("accuracy", "pass_rate")
"""The outcomes the section reads, in its order."""


def _bins(rows: pd.DataFrame, cite: Tables, column: str, above: bool) -> list[dict[str, Any]]:
    """The difficulty bins of ``rows`` (one rule, metric and budget) whose 95% interval of
    ``column`` lies wholly above 0 (``above``) or wholly below it, adjacent bins joined, as
    cited ranges (``close``: the bracket that ends a range, "]" for the last bin, which holds
    1)."""
    rows = rows.sort_values("pass_probability_low")
    low, high = rows[f"{column}_low"], rows[f"{column}_high"]
    chosen = rows[(low > 0) if above else (high < 0)]
    # A run of adjacent bins starts where a bin's lower edge is not the previous one's upper.
    starts = chosen["pass_probability_low"].ne(chosen["pass_probability_high"].shift())
    ranges = []
    for _, run in chosen.groupby(starts.cumsum()):
        last = cite.last(run)
        ranges.append({"low": Named(cite.first(run).pass_probability_low, ".1f"),
                       "high": Named(last.pass_probability_high, ".1f"),
                       "close": "]" if last.pass_probability_high.value >= 1.0 else ")"})
    return ranges


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """The dataset and its law, each rule's verdicts against uniform allocation at the largest
    budget, where the two metrics part, and per rule the difficulty bins where its difference
    from uniform allocation is shown above or below 0."""
    versus = cite.read(study, "prompts_vs_uniform")
    bins = cite.read(study, SECTION.table)
    first = cite.first(bins)
    numbers.put("ScalePrompts", first.prompts, ",")
    numbers.put("ScaleEnvironments", first.population_environments, ",.0f")
    numbers.put("ScaleArms", first.arms, ",")
    for name in ("a", "b", "concentration", "sigma"):
        numbers.put(f"Scale{name.capitalize()}", first[f"population_{name}"], "g")
    numbers.put("ScaleSeeds", cite.manifest_value(study, "seeds"), ",")
    largest = versus[versus["budget"] == versus["budget"].max()]
    numbers.put("ScaleBudget", cite.first(largest).budget, ",")
    verdicts, apart = [], []
    for rule, rows in largest.groupby("allocation", sort=False):
        found = {}
        for r in cite.rows(rows):
            metric = r.metric.value
            finding = Finding(r.finding.value)
            within = finding in (Finding.HIGHER, Finding.LOWER) and bool(r.within_margin.value)
            found[metric] = {"metric": METRIC_NAMES[metric], "reading": finding.value,
                             "margin": Named(r.margin, "g") if within else None,
                             "difference": Named(r.difference, "+.6f"),
                             "low": Named(r.difference_low, "+.6f"),
                             "high": Named(r.difference_high, "+.6f")}
            found[f"{metric}_finding"] = finding
        verdicts.append({"rule": rule_name(rule),
                         "metrics": [found[m] for m in METRICS if m in found]})
        shown = {found.get(f"{m}_finding") for m in METRICS} & {Finding.HIGHER, Finding.LOWER}
        if len(shown) == 2:
            apart.append(rule_name(rule))
    top = bins[bins["budget"] == bins["budget"].max()]
    strata = []
    for rule, rows in top[top["allocation"] != REFERENCE].groupby("allocation", sort=False):
        strata.append({"rule": rule_name(rule), "metrics": [
            {"metric": METRIC_NAMES[m], "above": _bins(rows, cite, f"{m}_vs_uniform", True),
             "below": _bins(rows, cite, f"{m}_vs_uniform", False)} for m in METRICS]})
    uniform = top[top["allocation"] == REFERENCE]
    extremes = {}
    for name, query in (("Hardest", uniform["pass_probability_low"].idxmin()),
                        ("Easiest", uniform["pass_probability_low"].idxmax())):
        row = cite.first(uniform.loc[[query]])
        for metric in METRICS:
            numbers.put(f"ScaleUniform{name}{macro_name(*metric.split('_'))}", row[metric],
                        ".3f")
        extremes[name.lower()] = {"low": Named(row.pass_probability_low, ".1f"),
                                  "high": Named(row.pass_probability_high, ".1f")}
    crossing = [s["rule"] for s in strata
                if any(m["above"] and m["below"] for m in s["metrics"])]
    return {"deepseek": cite.literal("DeepSeek V3.2"), "verdicts": verdicts, "apart": apart,
            "strata": strata, "extremes": extremes, "crossing": crossing,
            "families": families(cite, largest)}


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """Uniform allocation's accuracy and pass rate per tenth of environment pass probability at
    the largest budget, then each rule's difference from it per tenth, a panel per metric, with
    95% intervals over seeds."""
    bins = read_table(tables, SECTION.table)
    top = bins[bins["budget"] == bins["budget"].max()]
    middle = (top["pass_probability_low"] + top["pass_probability_high"]) / 2
    top = top.assign(middle=middle)
    fig, axes = plt.subplots(1, 3, figsize=(10.5, 3.2), layout="constrained")
    uniform = top[top["allocation"] == REFERENCE].sort_values("middle")
    for i, metric in enumerate(METRICS):
        axes[0].fill_between(uniform["middle"], uniform[f"{metric}_low"],
                             uniform[f"{metric}_high"], color=OKABE_ITO[i], alpha=0.3,
                             linewidth=0)
        axes[0].plot(uniform["middle"], uniform[metric], color=OKABE_ITO[i],
                     marker="os"[i], markersize=4, label=METRIC_NAMES[metric])
    axes[0].set_ylabel("uniform allocation (share)")
    axes[0].set_ylim(0, 1)
    axes[0].legend(fontsize="small")
    rules = [r for r in dict.fromkeys(top["allocation"]) if r != REFERENCE]
    for ax, metric in zip(axes[1:], METRICS, strict=True):
        column = f"{metric}_vs_uniform"
        for i, rule in enumerate(rules):
            rows = top[top["allocation"] == rule].sort_values("middle")
            colour = OKABE_ITO[(i + 2) % len(OKABE_ITO)]
            ax.fill_between(rows["middle"], rows[f"{column}_low"], rows[f"{column}_high"],
                            color=colour, alpha=0.25, linewidth=0)
            ax.plot(rows["middle"], rows[column], color=colour, marker="osD^v"[i % 5],
                    markersize=4, label=rule_name(rule))
        ax.axhline(0.0, **REFERENCE_LINE)
        ax.set_ylabel(f"{METRIC_NAMES[metric]},\nrule minus uniform")
    axes[1].legend(fontsize="x-small")
    for ax in axes:
        ax.set_xlim(0, 1)
        ax.set_xticks(np.linspace(0, 1, 6))
        ax.set_xlabel("environment's mean pass probability")
    name = figure_name(study, SECTION.figure)
    return {name: save(fig, out_dir, name)}
