"""What reward noise costs (``analysis.reward_noise``): a study whose grid puts one bandit under
verifiers of several error rates beside the exact one gets this section."""

from __future__ import annotations

from typing import Any

from analysis.roles import Placement
from figures.cite import Tables
from figures.numbers import Scope
from figures.reward_noise import reward_noise_cost as draw
from figures.sections import Section
from figures.words import arm_values, baseline_name

SECTION = Section(table="reward_noise_cost", title="What a noisy verifier costs",
                  template="reward_noise.md.j2", figure="reward_noise_cost")

__all__ = ["SECTION", "claims", "draw"]

SHOWN = ["false_positive", "false_negative", "ratio", "ci_low", "ci_high", "predicted_ratio",
         "prediction", "resamples", "undefined_resamples"]
"""The columns of the section's table."""


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """Name the section's numbers in ``numbers``; return the template's phrases and table."""
    noisy = cite.read(study, SECTION.table)
    budgets = cite.read(study, "budget_to_target")
    first = cite.first(noisy)
    exact = cite.first(budgets[budgets["cell"] == first.exact_cell.value])
    costliest = cite.first(noisy[noisy["ratio"] == noisy["ratio"].max()])
    numbers.put("Verifiers", cite.count(noisy), ",")
    numbers.put("Seeds", first.seeds, ",")
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
    numbers.put("MoreResamples", cite.constant("analysis.budget_to_target.MORE_RESAMPLES"), ",")
    numbers.put("Level", cite.constant("1 - analysis.families.ALPHA"), ".0%")
    numbers.put("Resamples", cite.constant("analysis.budget_to_target.BOOTSTRAP"), ",")
    return {"baseline": baseline_name(first.baseline.value),
            "unresolved": bool((noisy["prediction"] == Placement.UNRESOLVED).any()),
            "shrink": cite.literal("1 - fp - fn"),
            "prediction": cite.literal("1 / (1 - fp - fn)^2"),
            "table": noisy[SHOWN]}
