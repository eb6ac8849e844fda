"""Many prompts from a population of environments
(``analysis.prompts.questions.prompts_difficulty``):
a many-prompts study whose prompts come from a population (``study.model.population``) gets this
section (each rule against uniform allocation at the largest budget, on both metrics, then per
tenth of environment pass probability), its figure and its paragraph of the paper."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from analysis.prompts.outcomes import REFERENCE
from analysis.roles import Finding
from figures.cite import Tables, read_table
from figures.claims import difficulty_ranges, families, figure_name, with_intervals
from figures.numbers import Named, Scope, macro_name
from figures.sections import Section
from figures.sections.prompt_allocation import METRIC_NAMES, rule_name
from figures.style import OKABE_ITO, save
from figures.style import REFERENCE as REFERENCE_LINE

SECTION = Section(table="prompts_difficulty",
                  title="Many environments: the allocation rules at scale",
                  template="environments.md.j2", order=21, figures=("prompts_difficulty",),
                  paper="environments.typ.j2")
SHOWN = ["allocation", "metric", "budget", "difference [95%, six decimals]", "interval_method",
         "p_value_holm", "finding", "within_margin"]
"""The columns of the section's table of ``prompts_vs_uniform``'s rows."""
METRICS = ("accuracy", "pass_rate")
"""The outcomes the section reads, in its order."""


def unfit(tables: Path, study: str) -> str:
    """The section reads each rule against uniform allocation once per metric and budget: a
    study whose cells differ in more than their rule, or that compares no rule, does not fit."""
    path = tables / "prompts_vs_uniform.parquet"
    if not path.is_file():
        return "whose analysis compared no allocation rule with uniform allocation"
    versus = pd.read_parquet(path, columns=["allocation", "metric", "budget"])
    if versus.duplicated().any():
        return ("whose cells differ in more than their allocation rule (its tables hold each "
                "comparison)")
    return ""


def _within(r: Any) -> bool:
    """Whether a comparison shown higher or lower is also shown within its margin."""
    return (Finding(r.finding.value) in (Finding.HIGHER, Finding.LOWER)
            and bool(r.within_margin.value))


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """The dataset and its law, each rule's verdicts against uniform allocation at every budget
    and their estimates at the largest, the budgets at which a rule's runs are uniform
    allocation's, where the two metrics part, and per rule the difficulty bins where its
    difference from uniform allocation is shown above or below 0 (the Bonferroni family of the
    largest budget)."""
    versus = cite.read(study, "prompts_vs_uniform")
    bins = cite.read(study, SECTION.table)
    first = cite.first(bins)
    numbers.put("PopulationPrompts", first.prompts, ",")
    numbers.put("PopulationEnvironments", first.population_environments, ",.0f")
    numbers.put("PopulationArms", first.arms, ",")
    for name in ("a", "b", "concentration", "sigma"):
        numbers.put(f"Population{name.capitalize()}", first[f"population_{name}"], "g")
    # The study's seeds, as every study names them (``figures.named.headline``).
    numbers.put("Seeds", cite.manifest_value(study, "seeds"), ",")
    largest = versus[versus["budget"] == versus["budget"].max()]
    numbers.put("PopulationBudget", cite.first(largest).budget, ",")
    verdicts, apart, same, margins = [], [], [], set()
    for rule, rows in largest.groupby("allocation", sort=False):
        found = {}
        for r in cite.rows(rows):
            word = macro_name(*r.metric.value.split("_"))
            name = f"Population{macro_name(*rule.split('_'))}{word}"
            numbers.put(name, r.difference, "+.6f")
            if word not in margins:  # one margin per metric, named from its first row
                margins.add(word)
                numbers.put(f"PopulationMargin{word}", r.margin, "g")
            found[r.metric.value] = {"name": name, "margin_name": f"PopulationMargin{word}",
                "metric": METRIC_NAMES[r.metric.value], "reading": r.finding.value,
                "margin": Named(r.margin, "g") if _within(r) else None,
                "difference": Named(r.difference, "+.6f"),
                "low": Named(r.difference_low, "+.6f"), "high": Named(r.difference_high, "+.6f"),
                "finding": Finding(r.finding.value)}
        verdicts.append({"rule": rule_name(rule),
                         "metrics": [found[m] for m in METRICS if m in found]})
        shown = {found[m]["finding"] for m in METRICS if m in found}
        if {Finding.HIGHER, Finding.LOWER} <= shown:
            apart.append(rule_name(rule))
        compared = set(versus.loc[versus["allocation"] == rule, "budget"])
        earlier = bins[(bins["allocation"] == rule) & ~bins["budget"].isin(compared)]
        if len(earlier):
            last = earlier[earlier["budget"] == earlier["budget"].max()]
            same.append((int(last["budget"].iat[0]), rule_name(rule), cite.first(last).budget))
    table = with_intervals(cite, versus, "+.6f", **{
        "difference [95%, six decimals]": ("difference", "difference_low",
                                           "difference_high")})[SHOWN]
    top = bins[bins["budget"] == bins["budget"].max()]
    varying = top[top["vs_uniform_intervals"].notna()]
    numbers.put("PopulationBinIntervals", cite.first(varying).vs_uniform_intervals, ",.0f")
    numbers.put("PopulationBinLevel", cite.first(varying).vs_uniform_confidence, ".4%")
    strata = []
    for rule, rows in top[top["allocation"] != REFERENCE].groupby("allocation", sort=False):
        strata.append({"rule": rule_name(rule), "metrics": [
            {"metric": METRIC_NAMES[m],
             "above": difficulty_ranges(rows, cite, f"{m}_vs_uniform", True),
             "below": difficulty_ranges(rows, cite, f"{m}_vs_uniform", False)}
            for m in METRICS]})
    uniform = top[top["allocation"] == REFERENCE]
    extremes = {}
    for name, query in (("Hardest", uniform["pass_probability_low"].idxmin()),
                        ("Easiest", uniform["pass_probability_low"].idxmax())):
        row = cite.first(uniform.loc[[query]])
        for metric in METRICS:
            numbers.put(f"PopulationUniform{name}{macro_name(*metric.split('_'))}", row[metric],
                        ".3f")
        numbers.put(f"PopulationUniform{name}Environments", row.bin_environments, ",")
        numbers.put(f"PopulationUniform{name}Prompts", row.bin_prompts, ",")
        extremes[name.lower()] = {"low": Named(row.pass_probability_low, ".1f"),
                                  "high": Named(row.pass_probability_high, ".1f"),
                                  "close": "]" if row.pass_probability_high.value >= 1.0
                                  else ")"}
    crossing = [s["rule"] for s in strata
                if any(m["above"] and m["below"] for m in s["metrics"])]
    law = {"polarised": first.population_a.value < 1 and first.population_b.value < 1,
           "lognormal": first.population_sigma.value > 0}
    return {"deepseek": cite.literal("DeepSeek V3.2"), "verdicts": verdicts, "apart": apart,
            "law": law,
            "same": [{"budget": Named(group[0][2], ","), "rules": [g[1] for g in group]}
                     for _, group in itertools.groupby(sorted(same, key=lambda g: g[:2]),
                                                       key=lambda g: g[0])
                     for group in [list(group)]],
            "strata": strata, "extremes": extremes, "crossing": crossing,
            "families": families(cite, largest), "table": table}


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """Uniform allocation's accuracy and pass rate per tenth of environment pass probability at
    the largest budget (with 95% intervals over seeds) beside the tenth's share of the prompts,
    then each rule's difference from it per tenth, a panel per metric, with the Bonferroni
    family's intervals."""
    bins = read_table(tables, SECTION.table)
    top = bins[bins["budget"] == bins["budget"].max()]
    middle = (top["pass_probability_low"] + top["pass_probability_high"]) / 2
    top = top.assign(middle=middle)
    fig, axes = plt.subplots(1, 3, figsize=(10.5, 3.2), layout="constrained")
    uniform = top[top["allocation"] == REFERENCE].sort_values("middle")
    axes[0].bar(uniform["middle"], uniform["bin_prompts"] / uniform["prompts"], width=0.08,
                color="0.85", label="share of the prompts")
    for i, metric in enumerate(METRICS):
        axes[0].fill_between(uniform["middle"], uniform[f"{metric}_low"],
                             uniform[f"{metric}_high"], color=OKABE_ITO[i], alpha=0.3,
                             linewidth=0)
        axes[0].plot(uniform["middle"], uniform[metric], color=OKABE_ITO[i],
                     marker="os"[i], markersize=4, label=METRIC_NAMES[metric])
    axes[0].set_ylabel("uniform allocation (share of prompts)")
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
