"""Best-arm accuracy per (cell, budget) with binomial confidence intervals."""

from __future__ import annotations

import pandas as pd
from scipy.stats import binomtest

from study.environment import Environment

CELL_KEYS = ["cell", "algorithm", "baseline", "lr", "reward_model", "environment", "cost"]


def chance_level(environment: str) -> float:
    """Accuracy of a policy that never trains on the bandit the runs table's ``environment``
    names: its greedy arm is uniform over the K arms (ties broken at random), so it is right with
    probability (number of best arms) / K; 1 / K when the values are drawn."""
    return Environment.from_text(environment).chance


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
