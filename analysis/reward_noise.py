"""What reward noise costs in rollouts: each cell whose reward model has parameters (a noisy
verifier's error rates) against the same cell under the model's defaults (the exact verifier),
as the ratio of their budgets to 0.9 with a paired bootstrap interval over seeds.

The cells share every seed's draws (common random numbers), so the ratio's interval is narrower
than the two budgets' intervals suggest. Beside it, the ratio a margin argument predicts: a noisy
verifier with rates fp and fn shrinks every gap between arms' expected rewards by 1 - fp - fn,
and a budget that scaled as 1 / gap^2 would grow by 1 / (1 - fp - fn)^2. The prediction ignores
that the noise also changes the reward's variance and the learner's effective step; the table
says whether each interval holds it, not that it should.
"""

from __future__ import annotations

import math

import pandas as pd

from analysis.accuracy import cell_environments
from analysis.budget_to_target import TARGET, budget_ratio
from analysis.outcomes import Outcomes
from study.spec import registry

_SAME = ["algorithm", "baseline", "lr", "group_size"]


def predicted_ratio(parameters: tuple[float, ...]) -> float:
    """1 / (1 - fp - fn)^2, the budget's growth if it scaled as 1 / gap^2 (rates in the noisy
    verifier's order: false positive, false negative)."""
    return 1.0 / (1.0 - sum(parameters)) ** 2


def reward_noise_cost(outcomes: Outcomes, cells: pd.DataFrame) -> pd.DataFrame:
    """One row per cell whose reward parameters differ from its model's defaults and that has a
    partner at the defaults (the same learner, lr, baseline, group size and bandit): the ratio of
    its budget to ``TARGET`` to the partner's, with its 95% paired bootstrap interval (pointwise,
    unadjusted: no test is made), and ``predicted_ratio`` for the noisy verifier. Empty when no
    cell has such a partner. First cost only (cost does not change the simulation)."""
    environments = cell_environments(outcomes)
    priced = cells[cells["cost"] == cells["cost"].min()]
    exact = {}
    for cell in priced.itertuples():
        env = environments[int(cell.cell)]
        model = registry.reward_model(env.reward)
        if model.parameters and env.reward_parameters == model.defaults():
            exact[(*(getattr(cell, k) for k in _SAME), env)] = int(cell.cell)
    rows = []
    for cell in priced.itertuples():
        env = environments[int(cell.cell)]
        model = registry.reward_model(env.reward)
        if not model.parameters or env.reward_parameters == model.defaults():
            continue
        partner = exact.get((*(getattr(cell, k) for k in _SAME),
                             env.with_reward(env.reward, model.defaults())))
        if partner is None:
            continue
        ratio = budget_ratio(outcomes.outcomes(int(cell.cell)), outcomes.outcomes(partner),
                             outcomes.budgets)
        prediction = (predicted_ratio(env.reward_parameters) if model.name == "noisy_verifier"
                      else math.nan)
        rows.append({
            "cell": int(cell.cell), "exact_cell": partner, "algorithm": cell.algorithm,
            "baseline": cell.baseline, "lr": cell.lr, "group_size": cell.group_size,
            "reward_model": env.reward, "environment": cell.environment,
            **{p.name: v for p, v in zip(model.parameters, env.reward_parameters, strict=True)},
            "target": TARGET, "ratio": ratio.ratio, "ci_low": ratio.ci_low,
            "ci_high": ratio.ci_high, "seeds": ratio.seeds,
            "undefined_resamples": ratio.undefined_resamples,
            "predicted_ratio": prediction,
            "prediction_inside": bool(ratio.ci_low <= prediction <= ratio.ci_high),
        })
    return pd.DataFrame(rows)
