"""Budget to each of ``TARGETS`` for the rows a reader compares, so that the answer's dependence on
the target 0.9 is visible."""

from __future__ import annotations

import pandas as pd

from analysis.budget_to_target import budget_to_target
from analysis.outcomes import Outcomes
from analysis.questions import Inputs
from analysis.roles import LrRole, typed
from study.model import registry

TABLE = "budget_by_target"
TEST = ""
AFTER = ("budget_to_target",)
TARGETS = (0.8, 0.9, 0.95, 0.99)
"""Accuracy targets of the sensitivity table (0.9 is the study's target)."""


def table(inputs: Inputs) -> pd.DataFrame:
    """``target_sensitivity`` of the rows of the budget table."""
    return target_sensitivity(inputs.outcomes, inputs.tables["budget_to_target"])


def target_sensitivity(outcomes: Outcomes, budgets: pd.DataFrame) -> pd.DataFrame:
    """Budget to each of ``TARGETS`` for the rows a reader compares: REINFORCE at its best lr
    (the lr chosen for 0.9 on the even seeds, estimated on the odd seeds) and every reference
    learner (all seeds), so that the answer's dependence on the target 0.9 is visible."""
    _, odd = outcomes.halves()
    shown = budgets[(budgets["lr_role"] == LrRole.BEST)
                    | ~budgets["algorithm"].isin(registry.trained())]
    rows = []
    for _, row in shown.iterrows():
        seeds = odd if row["lr_role"] == LrRole.BEST else None
        correct = outcomes.outcomes(int(row["cell"]), seeds)
        for target in TARGETS:
            estimate = budget_to_target(correct, outcomes.budgets, target)
            rows.append({"cell": row["cell"], "algorithm": row["algorithm"],
                         "baseline": row["baseline"], "lr": row["lr"],
                         "lr_role": row["lr_role"],
                         "target": target,
                         "budget_to_target": estimate.estimate, "ci_low": estimate.ci_low,
                         "ci_high": estimate.ci_high, "reached": estimate.reached,
                         "at_first_checkpoint": estimate.at_first,
                         "largest_budget": estimate.largest_budget, "seeds": estimate.seeds})
    table = pd.DataFrame(rows)
    if len(table):
        table["lr_role"] = typed(table["lr_role"], LrRole)
    return table
