"""Best-arm accuracy per (cell, budget) with binomial confidence intervals."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from analysis.binomial import proportion_interval
from analysis.outcomes import Outcomes
from study.model import registry
from study.model.environment import Environment
from study.rewards import DEFAULT_VERDICT

CELL_KEYS = ["cell", "algorithm", "baseline", "lr", "group_size", "reward_model", "environment",
             "cost"]

SAMPLER_KEYS = ["lag", "mismatch", "top_p", "correction", "kl_beta", "kl_estimator"]
"""An off-policy cell's further axes (``study.model.schema.OFFPOLICY_CELL_COLUMNS``)."""


def cells_frame(outcomes: Outcomes) -> pd.DataFrame:
    """One row per cell with its axes (``CELL_KEYS``, and an off-policy study's
    ``SAMPLER_KEYS``), in cell order."""
    return outcomes.cells[CELL_KEYS + [c for c in SAMPLER_KEYS if c in outcomes.cells]]


def cell_environments(outcomes: Outcomes) -> dict[int, Environment]:
    """The bandit of every cell, from its structured columns (with its answers' lengths where
    they cost tokens)."""
    found = {}
    for row in outcomes.cells.itertuples():
        env = Environment.from_columns(row.reward_model, row.draw, row.arms, row.arm_values,
                                       row.draw_parameters, partial(getattr, row))
        if "arm_lengths" in outcomes.cells:
            env = env.with_lengths(row.arm_lengths, row.length_law)
            if registry.reward_model(env.reward).lengths:
                # Runs written before verdicts were named have the default's.
                verdict = registry.reward_model(getattr(row, "verdict", DEFAULT_VERDICT))
                env = env.with_verdict(verdict.name,
                                       tuple(getattr(row, p.name) for p in verdict.parameters))
        found[int(row.cell)] = env
    return found


def chance_levels(outcomes: Outcomes) -> dict[int, float]:
    """Accuracy of a policy that never trains, per cell: its greedy arm is uniform over the K arms
    (ties broken at random), so it is right with probability (number of best arms) / K; 1 / K
    when the values are drawn (``Environment.chance``)."""
    return {cell: env.chance for cell, env in cell_environments(outcomes).items()}


def accuracy_table(outcomes: Outcomes, method: str = "wilson",
                   confidence: float = 0.95) -> pd.DataFrame:
    """One row per (cell, budget): seeds, correct, accuracy and its interval.

    ``method`` is passed to ``scipy.stats.binomtest(...).proportion_ci``: ``wilson`` (the
    default) or ``exact`` (Clopper-Pearson). Runs whose state was not finite count as wrong and
    are also counted in ``non_finite``, so they are never hidden.
    """
    cells, seeds, budgets = outcomes.correct.shape
    table = outcomes.cells.loc[np.repeat(np.arange(cells), budgets), CELL_KEYS].reset_index(
        drop=True)
    table["budget"] = np.tile(outcomes.budgets, cells)
    table["seeds"] = np.full(cells * budgets, seeds, dtype=np.int64)
    table["correct"] = outcomes.correct.sum(axis=1, dtype=np.int64).ravel()
    table["non_finite"] = seeds - outcomes.finite.sum(axis=1, dtype=np.int64).ravel()
    table["accuracy"] = table["correct"] / table["seeds"]
    intervals = [proportion_interval(k, n, confidence, method)
                 for k, n in zip(table["correct"], table["seeds"], strict=True)]
    table["ci_low"] = [low for low, _ in intervals]
    table["ci_high"] = [high for _, high in intervals]
    return table
