"""Budget to 0.9 for every cell, and at the best lr per (bandit, baseline, group size), chosen on
the even seeds and estimated on the odd ones, with the lr the choosing seeds cannot tell from it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analysis.accuracy import cell_environments
from analysis.budget_to_target import (
    BudgetEstimate,
    budget_ratio,
    budget_to_target,
    crossing,
    environment_hardness,
)
from analysis.outcomes import Outcomes
from analysis.questions import Inputs
from analysis.roles import LrRole, typed
from analysis.study_tables import trained_cells

TABLE = "budget_to_target"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """``budget_table`` of the study."""
    return budget_table(inputs.outcomes, inputs.cells)


def _estimate_row(estimate: BudgetEstimate, h: float) -> dict[str, object]:
    return {"budget_to_target": estimate.estimate, "ci_low": estimate.ci_low,
            "ci_high": estimate.ci_high, "reached": estimate.reached,
            "at_first_checkpoint": estimate.at_first,
            "largest_budget": estimate.largest_budget, "seeds": estimate.seeds,
            "hardness_H": h,
            "ratio_to_H": estimate.estimate / h if h > 0 and estimate.reached else math.nan}


def _point_crossing(outcomes: Outcomes, cell: int, seeds: np.ndarray) -> float:
    return crossing(outcomes.budgets, outcomes.outcomes(cell, seeds).mean(axis=0))


def _tied_lr(outcomes: Outcomes, chosen: int, others: list[int], cells: pd.DataFrame,
             seeds: np.ndarray) -> list[float]:
    """The lr of the cells in ``others`` that the choosing seeds cannot tell from ``chosen``:
    the paired bootstrap interval of their budget to 0.9 over the chosen cell's contains 1."""
    ours = outcomes.outcomes(chosen, seeds)
    tied = []
    for cell in others:
        ratio = budget_ratio(outcomes.outcomes(cell, seeds), ours, outcomes.budgets)
        if not ratio.ci_low > 1:
            tied.append(float(cells.loc[cells["cell"] == cell, "lr"].iat[0]))
    return sorted(tied)


def budget_table(outcomes: Outcomes, cells: pd.DataFrame) -> pd.DataFrame:
    """Budget to 0.9 for every cell (first cost only: cost does not change the simulation), and
    at the best lr per (bandit, baseline): the lr is chosen on the even seeds (smallest estimated
    budget) and its budget estimated on the odd seeds, so the choice does not bias the estimate.
    ``tied_lr`` lists the other lr the even seeds cannot tell from the chosen one (the paired
    bootstrap interval of the ratio of budgets contains 1): then the best lr is a tie.
    ``lr_role`` (``analysis.roles.LrRole``: ``grid`` or ``best``) says which a row is."""
    rows = []
    environments = cell_environments(outcomes)
    priced = cells[cells["cost"] == cells["cost"].min()]
    for _, cell in priced.iterrows():
        h = environment_hardness(environments[int(cell["cell"])])
        estimate = budget_to_target(outcomes.outcomes(int(cell["cell"])), outcomes.budgets)
        rows.append({**cell.to_dict(), "lr_role": LrRole.GRID,
                     "tied_lr": "",
                     **_estimate_row(estimate, h)})
    even, odd = outcomes.halves()
    # One best lr per group size as well: a G is an arm of its own, not another lr.
    for _, group in trained_cells(priced).groupby(
            ["reward_model", "environment", "baseline", "group_size"], sort=False):
        if len(group) < 2:
            continue
        chosen = min(group.itertuples(), key=lambda c: _point_crossing(outcomes, c.cell, even))
        cell = cells[cells["cell"] == chosen.cell].iloc[0]
        h = environment_hardness(environments[int(chosen.cell)])
        estimate = budget_to_target(outcomes.outcomes(chosen.cell, odd), outcomes.budgets)
        tied = _tied_lr(outcomes, chosen.cell, [c for c in group["cell"] if c != chosen.cell],
                        cells, even)
        rows.append({**cell.to_dict(), "lr_role": LrRole.BEST,
                     "tied_lr": ", ".join(f"{lr:g}" for lr in tied),
                     **_estimate_row(estimate, h)})
    table = pd.DataFrame(rows)
    table["lr_role"] = typed(table["lr_role"], LrRole)
    return table
