"""Budget against hardness (``analysis.hardness``): a study of fixed bandits of at least three
different H gets this section, its figure (the budget to 0.9 against H per algorithm, with the
fitted lines) and its slopes of log budget on log H."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib import pyplot as plt

from analysis.families import plain
from figures.cite import Tables
from figures.claims import figure_name
from figures.numbers import Scope
from figures.sections import Section
from figures.style import OKABE_ITO, save
from figures.words import display
from study.model import registry

SECTION = Section(table="hardness_slope", title="Budget against hardness",
                  template="hardness.md.j2", order=10,
                  figures=("budget_against_hardness",))

SHOWN = ["algorithm", "bandits", "bandits_reached", "slope", "ci_low", "ci_high",
         "bandit_ci_low", "bandit_ci_high", "budget_per_H_at_median_H", "residual_sd_log",
         "censored_resamples"]
"""The columns of the section's table."""


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """Name the section's numbers in ``numbers``; return the template's algorithm keys and
    table."""
    points, slopes = cite.read(study, "hardness"), cite.read(study, SECTION.table)
    numbers.put_constant("Target", cite.constant("analysis.budget_to_target.TARGET"), "g")
    numbers.put_constant("Level", cite.constant("1 - analysis.families.ALPHA"), ".0%")
    numbers.put("Bandits", cite.count(points, f"algorithm == {plain(points['algorithm'].iat[0])}"),
                "")
    numbers.put("ArmsLow", cite.smallest(points, "arms"), "")
    numbers.put("ArmsHigh", cite.largest(points, "arms"), "")
    numbers.put("HLow", cite.smallest(points, "hardness_H"), ",.0f")
    numbers.put("HHigh", cite.largest(points, "hardness_H"), ",.0f")
    numbers.put("OddSeeds", cite.first(points).seeds, ",")
    numbers.put("ScatterLow", cite.smallest(slopes, "residual_sd_log"), ".2f")
    numbers.put("ScatterHigh", cite.largest(slopes, "residual_sd_log"), ".2f")
    keys = []
    for row in cite.rows(slopes):
        parts = [row.learner.value] + ([row.baseline.value]
                                       if row.learner.value in registry.trained() else [])
        key = "".join(word.capitalize() for part in parts for word in part.split("_"))
        keys.append(key)
        numbers.put(f"{key}Name", row.algorithm, shown=display)
        for name, column in (("Slope", "slope"), ("SlopeLow", "ci_low"),
                             ("SlopeHigh", "ci_high"), ("BanditLow", "bandit_ci_low"),
                             ("BanditHigh", "bandit_ci_high"),
                             ("PerHAtMedian", "budget_per_H_at_median_H")):
            numbers.put(f"{key}{name}", row[column], ".2f")
    return {"one": cite.literal("1"), "algorithms": keys, "table": slopes[SHOWN]}


def draw(tables: Path, out_dir: Path, study: str) -> dict[str, list[Path]]:
    """The section's figure from the study's tables in ``tables``: budget to 0.9 against H on
    log-log axes, a colour per algorithm: each bandit's estimate
    with its 95% bootstrap interval (drawn up to the estimate where it is unbounded above), and
    the fitted line of log budget on log H. The algorithms' points at one H are spread a little
    sideways so that their bars do not hide each other."""
    name = figure_name(study, SECTION.figures[0])
    points = pd.read_parquet(tables / "hardness.parquet")
    slopes = pd.read_parquet(tables / f"{SECTION.table}.parquet")
    figure, ax = plt.subplots(figsize=(6.2, 4.4), layout="constrained")
    algorithms = list(slopes["algorithm"])
    spread = np.exp(0.035 * (np.arange(len(algorithms)) - (len(algorithms) - 1) / 2))
    for i, (algorithm, colour, marker) in enumerate(zip(algorithms, OKABE_ITO, "osD^v<>",
                                                        strict=False)):
        rows = points[points["algorithm"] == algorithm].sort_values("hardness_H")
        fit = slopes[slopes["algorithm"] == algorithm].iloc[0]
        high = np.where(np.isfinite(rows["ci_high"]), rows["ci_high"], rows["budget_to_target"])
        label = registry.display(algorithm) if algorithm in registry.names() else algorithm
        ax.errorbar(rows["hardness_H"] * spread[i], rows["budget_to_target"], fmt=marker,
                    color=colour, markersize=4, capsize=2, linewidth=0.8,
                    yerr=[rows["budget_to_target"] - rows["ci_low"],
                          high - rows["budget_to_target"]],
                    label=f"{label}: slope {fit['slope']:.2f} "
                          f"[{fit['ci_low']:.2f}, {fit['ci_high']:.2f}]")
        h = np.geomspace(rows["hardness_H"].min(), rows["hardness_H"].max(), 50)
        level = fit["budget_per_H_at_median_H"] * fit["median_H"]
        ax.plot(h, level * (h / fit["median_H"]) ** fit["slope"], color=colour, linewidth=1.0)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_minor_formatter(plt.NullFormatter())
    ax.set_xlabel("hardness H = sum of 1 / gap^2 (log scale)")
    ax.set_ylabel("rollouts to 0.9 accuracy (log scale)")
    ax.legend(loc="lower right", fontsize="small",
              title="slope of log budget on log H [95%]", title_fontsize="small")
    return {name: save(figure, out_dir, name)}
