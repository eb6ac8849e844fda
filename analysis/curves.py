"""Per-step learning curves: the fraction of seeds taking a best arm at each step, with its
interval, and the mean reward at each step, per cell (from ``curves.parquet``)."""

from __future__ import annotations

import pandas as pd
from statsmodels.stats.proportion import proportion_confint

CURVE_CELL_KEYS = ["cell", "algorithm", "baseline", "lr", "group_size", "reward_model",
                   "environment"]


def curves_table(curves: pd.DataFrame, cells: pd.DataFrame, chance: dict[int, float],
                 confidence: float = 0.95) -> pd.DataFrame:
    """The curves of every cell at the first cost (cost does not change a simulation), with a
    Wilson interval for the optimal-action fraction at each step (at one step the seeds are
    independent runs, so the count of seeds on a best arm is binomial) and the cell's chance
    level (``chance``, by cell: the optimal-action rate of a policy that never trains)."""
    priced = cells[cells["cost"] == cells["cost"].min()][CURVE_CELL_KEYS].copy()
    priced["chance"] = priced["cell"].map(chance)
    table = priced.merge(curves, on="cell", how="inner").sort_values(["cell", "step"])
    count = (table["optimal_action"] * table["seeds"]).round().astype("int64")
    low, high = proportion_confint(count, table["seeds"], alpha=1 - confidence, method="wilson")
    table["optimal_ci_low"] = low
    table["optimal_ci_high"] = high
    return table.reset_index(drop=True)


def curve_points(table: pd.DataFrame, steps: tuple[int, ...]) -> pd.DataFrame:
    """The curves at a few steps (those within each cell's range), for text and comparisons."""
    return table[table["step"].isin(steps)].reset_index(drop=True)
