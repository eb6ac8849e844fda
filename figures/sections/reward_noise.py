"""What reward noise costs (``analysis.questions.reward_noise``): a study whose grid puts one bandit
under verifiers of several error rates beside the exact one gets this section, its figure (the
ratio of rollouts to 0.9 against the verifier's total error rate, with the ratio a margin
argument predicts) and its paragraph of the paper."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib import pyplot as plt
from matplotlib import ticker

from analysis.roles import Placement
from figures.cite import Tables
from figures.numbers import Scope
from figures.sections import Section
from figures.style import REFERENCE, ordered_colours, outside_legend, save
from figures.words import arm_values, baseline_name

SECTION = Section(table="reward_noise_cost", title="What a noisy verifier costs",
                  template="reward_noise.md.j2", order=11, figure="reward_noise_cost",
                  paper="reward_noise.typ.j2")

SHOWN = ["false_positive", "false_negative", "ratio", "ci_low", "ci_high", "simultaneous_low",
         "simultaneous_high", "predicted_ratio", "prediction", "undefined_resamples"]
"""The columns of the section's table."""


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """Name the section's numbers in ``numbers``; return the template's phrases and table."""
    noisy = cite.read(study, SECTION.table)
    budgets = cite.read(study, "budget_to_target")
    first = cite.first(noisy)
    exact = cite.first(budgets[budgets["cell"] == first.exact_cell.value])
    # The costliest verifier by design, the largest total error rate (of those, the largest
    # ratio, should several share it).
    total = noisy["false_positive"] + noisy["false_negative"]
    largest = noisy[total == total.max()]
    costliest = cite.first(largest[largest["ratio"] == largest["ratio"].max()])
    numbers.put("Verifiers", cite.count(noisy), ",")
    # The study's seeds, as every study names them (``figures.named.headline``).
    numbers.put("Seeds", cite.manifest_value(study, "seeds"), ",")
    numbers.put("Lr", first.lr, "g")
    numbers.put("Arms", cite.manifest_value(study, "config.environments.0.values"),
                shown=arm_values)
    numbers.put("RateLow", cite.smallest(noisy, "false_negative"), "g")
    numbers.put("RateHigh", cite.largest(noisy, "false_positive"), "g")
    numbers.put("Target", first.target, "g")
    numbers.put("ExactBudget", exact.budget_to_target, ",.0f")
    numbers.put("ExactBudgetLow", exact.ci_low, ",.0f")
    numbers.put("ExactBudgetHigh", exact.ci_high, ",.0f")
    numbers.put("CostliestFalsePositive", costliest.false_positive, "g")
    numbers.put("CostliestFalseNegative", costliest.false_negative, "g")
    numbers.put("CostliestRatio", costliest.ratio, ".2f")
    numbers.put("CostliestRatioLow", costliest.ci_low, ".2f")
    numbers.put("CostliestRatioHigh", costliest.ci_high, ".2f")
    numbers.put("CostliestPredicted", costliest.predicted_ratio, ".2f")
    for name, placement in (("Inside", Placement.INSIDE), ("CostMore", Placement.BELOW),
                            ("CostLess", Placement.ABOVE), ("Unresolved", Placement.UNRESOLVED)):
        numbers.put(name, cite.count(noisy, f"prediction == {placement.value!r}"), ",")
    numbers.put("FamilyAlpha", cite.constant("analysis.questions.reward_noise.FAMILY_ALPHA"),
                "g")
    numbers.put("FamilyResamples",
                cite.constant("analysis.questions.reward_noise.FAMILY_RESAMPLES"), ",")
    numbers.put_constant("Level", cite.constant("1 - analysis.families.ALPHA"), ".0%")
    effective = cite.read(study, "effective_hardness")
    exact_unit = cite.first(effective[effective["cell"] == first.exact_cell.value])
    costliest_unit = cite.first(effective[effective["cell"] == costliest.cell.value])
    numbers.put("H", exact_unit.hardness_H, ",.0f")
    for name, row in (("Exact", exact_unit), ("Costliest", costliest_unit)):
        numbers.put(f"{name}PerEffectiveH", row.per_effective_H, ".2f")
        numbers.put(f"{name}PerEffectiveHLow", row.per_effective_H_low, ".2f")
        numbers.put(f"{name}PerEffectiveHHigh", row.per_effective_H_high, ".2f")
    numbers.put_constant("Resamples", cite.constant("analysis.budget_to_target.BOOTSTRAP"), ",")
    return {"baseline": baseline_name(first.baseline.value),
            "unresolved": bool((noisy["prediction"] == Placement.UNRESOLVED).any()),
            "shrink": cite.literal("1 - fp - fn"),
            "prediction": cite.literal("1 / (1 - fp - fn)^2"),
            "effective_h": cite.literal("H / (1 - fp - fn)^2"),
            "table": noisy[SHOWN],
            "effective": effective[["false_positive", "false_negative", "gap_factor",
                                    "effective_H", "budget_to_target", "per_effective_H",
                                    "per_effective_H_low", "per_effective_H_high"]]}


def draw(tables: Path, out_dir: Path, name: str) -> list[Path]:
    """The section's figure from the study's tables in ``tables``: the ratio against
    false_positive + false_negative, one colour and marker per false-positive
    rate (nudged sideways so that rates of one total stay apart), 95% paired bootstrap bars; the
    dashed line is 1 / (1 - fp - fn)^2."""
    table = pd.read_parquet(tables / f"{SECTION.table}.parquet")
    figure, ax = plt.subplots(figsize=(5.6, 3.4), layout="constrained")
    total = table["false_positive"] + table["false_negative"]
    rates = sorted(table["false_positive"].unique())
    nudge = 0.012 * total.max()
    for i, (colour, rate) in enumerate(zip(ordered_colours(len(rates)), rates, strict=True)):
        rows = table[table["false_positive"] == rate]
        x = rows["false_positive"] + rows["false_negative"] + nudge * (i - (len(rates) - 1) / 2)
        ax.errorbar(x, rows["ratio"], yerr=[rows["ratio"] - rows["ci_low"],
                                            rows["ci_high"] - rows["ratio"]],
                    color=colour, marker="osD^v<>"[i % 7], markersize=4, linestyle="none",
                    capsize=2, label=f"false positive {rate:g}")
    grid = np.linspace(0.0, total.max(), 100)
    ax.plot(grid, 1.0 / (1.0 - grid) ** 2, **REFERENCE, label="1 / (1 - fp - fn)$^2$")
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(ticker.FixedLocator([1, 1.5, 2, 3, 5, 7, 10, 15, 20, 30, 50]))
    ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_xlabel("verifier's total error rate, false positive + false negative")
    ax.set_ylabel("rollouts to 0.9 accuracy,\nratio to the exact verifier")
    outside_legend(figure, ax)
    return save(figure, out_dir, name)
