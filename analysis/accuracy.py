"""Best-arm accuracy per (cell, budget) with binomial confidence intervals."""

from __future__ import annotations

import pandas as pd
from scipy.stats import binomtest

from study.spec.environment import Environment

CELL_KEYS = ["cell", "algorithm", "baseline", "lr", "group_size", "reward_model", "environment",
             "cost"]
ENVIRONMENT_COLUMNS = ["reward_model", "draw", "arms", "arm_values", "draw_parameters"]
"""The runs table's structured description of a cell's bandit (``study.spec.schema``)."""


def cells_frame(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per cell with its axes (``CELL_KEYS``), in cell order."""
    return runs.drop_duplicates("cell")[CELL_KEYS].sort_values("cell").reset_index(drop=True)


def cell_environments(runs: pd.DataFrame) -> dict[int, Environment]:
    """The bandit of every cell of the runs table, from its structured columns."""
    first = runs.drop_duplicates("cell")
    return {int(row.cell): Environment.from_columns(
        row.reward_model, row.draw, row.arms, row.arm_values, row.draw_parameters)
        for row in first[["cell", *ENVIRONMENT_COLUMNS]].itertuples()}


def chance_levels(runs: pd.DataFrame) -> dict[int, float]:
    """Accuracy of a policy that never trains, per cell: its greedy arm is uniform over the K arms
    (ties broken at random), so it is right with probability (number of best arms) / K; 1 / K
    when the values are drawn (``Environment.chance``)."""
    return {cell: env.chance for cell, env in cell_environments(runs).items()}


def accuracy_table(runs: pd.DataFrame, method: str = "wilson",
                   confidence: float = 0.95) -> pd.DataFrame:
    """One row per (cell, budget): seeds, correct, accuracy and its interval.

    ``method`` is passed to ``scipy.stats.binomtest(...).proportion_ci``: ``wilson`` (the
    default) or ``exact`` (Clopper-Pearson). Runs whose state was not finite count as wrong and
    are also counted in ``non_finite``, so they are never hidden.
    """
    grouped = runs.groupby([*CELL_KEYS, "budget"], sort=True, observed=True)
    table = grouped.agg(seeds=("correct", "size"), correct=("correct", "sum"),
                        finite=("finite", "sum")).reset_index()
    table["non_finite"] = table["seeds"] - table.pop("finite")
    table["accuracy"] = table["correct"] / table["seeds"]
    intervals = [binomtest(int(k), int(n)).proportion_ci(confidence, method=method)
                 for k, n in zip(table["correct"], table["seeds"], strict=True)]
    table["ci_low"] = [ci.low for ci in intervals]
    table["ci_high"] = [ci.high for ci in intervals]
    return table
