"""The budget per unit of effective hardness. A reward model that scales every gap between the
arms' expected rewards by one factor f (``study.rewards.RewardModel.gap_factor``: 1 - fp - fn for
a noisy verifier) turns a bandit of hardness H into one of H / f^2 as the expected rewards see
it. Were the budget to 0.9 to grow as that effective hardness, the budget per unit of it would be
the same under every verifier; the table gives it per cell with its interval (the budget's 95%
seed-bootstrap interval over the same constant), so a reader sees where it rises, the noise
costing more than the margins it shrinks."""

from __future__ import annotations

import math

import pandas as pd

from analysis.accuracy import cell_environments
from analysis.budget_to_target import budget_to_target, environment_hardness
from analysis.questions import Inputs
from study.model import registry
from study.rewards import ROLES

TABLE = "effective_hardness"
TEST = ""
"""No p-values: a budget per unit of hardness with its interval, per cell."""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell of fixed arm values whose reward model has a ``gap_factor``: its
    parameters by role (``study.rewards.ROLES``, NaN where the model has no such role), H, the
    factor f, H / f^2, the budget to 0.9 with its interval, and the budget per unit of H / f^2
    with that interval. Empty when no cell has such a model. First cost only (cost does not
    change the simulation)."""
    outcomes, cells = inputs.outcomes, inputs.cells
    environments = cell_environments(outcomes)
    rows = []
    for cell in cells[cells["cost"] == cells["cost"].min()].itertuples():
        env = environments[int(cell.cell)]
        model = registry.reward_model(env.reward)
        if model.gap_factor is None or env.values is None:
            continue
        factor = model.gap_factor(env.reward_parameters)
        roles = model.by_role(env.reward_parameters)
        h = environment_hardness(env)
        effective = h / factor**2
        estimate = budget_to_target(outcomes.outcomes(int(cell.cell)), outcomes.budgets)
        rows.append({
            "cell": int(cell.cell), "algorithm": cell.algorithm, "baseline": cell.baseline,
            "lr": cell.lr, "group_size": cell.group_size, "reward_model": env.reward,
            "environment": cell.environment,
            # By role (a verifier's error rates), so that every model's rows share the columns.
            **{role: roles.get(role, math.nan) for role in ROLES},
            "gap_factor": factor, "hardness_H": h, "effective_H": effective,
            "budget_to_target": estimate.estimate, "ci_low": estimate.ci_low,
            "ci_high": estimate.ci_high, "reached": estimate.reached, "seeds": estimate.seeds,
            "per_effective_H": estimate.estimate / effective,
            "per_effective_H_low": estimate.ci_low / effective,
            "per_effective_H_high": estimate.ci_high / effective,
        })
    return pd.DataFrame(rows)
