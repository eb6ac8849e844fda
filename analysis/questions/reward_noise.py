"""What reward noise costs in rollouts: each cell whose reward model scales the gaps between the
arms' expected rewards (``study.rewards.RewardModel.gap_factor``: a noisy verifier's error rates)
against the same cell under the model's defaults (the exact verifier), as the ratio of their
budgets to 0.9 with a paired bootstrap interval over seeds.

The cells share every seed's draws (common random numbers), so the ratio's interval is narrower
than the two budgets' intervals suggest. Beside it, the ratio a margin argument predicts: a model
that shrinks every gap by a factor f (1 - fp - fn for a noisy verifier with rates fp and fn)
would, were the budget to scale as 1 / gap^2, grow it by 1 / f^2. The prediction ignores
that the noise also changes the reward's variance and the learner's effective step; the table
says whether each interval holds it, not that it should: ``prediction`` is ``inside``,
``below`` or ``above`` the 95% interval, or ``unresolved`` while it lies within a limit's Monte
Carlo error (``analysis.budget_to_target.BudgetRatio.holds``; ``MORE_RESAMPLES`` resamples are
drawn first where ``BOOTSTRAP`` leave it there).
"""

from __future__ import annotations

import pandas as pd

from analysis.accuracy import cell_environments
from analysis.budget_to_target import MORE_RESAMPLES, TARGET, budget_ratio
from analysis.outcomes import Outcomes
from analysis.roles import Placement, typed
from study.spec import registry

TABLE = "reward_noise_cost"

_SAME = ["algorithm", "baseline", "lr", "group_size"]


def table(outcomes: Outcomes, cells: pd.DataFrame) -> pd.DataFrame:
    """One row per cell whose model has a ``gap_factor`` and whose parameters are not the
    model's defaults, that has a partner at the defaults (the same learner, lr, baseline, group
    size and bandit): the ratio of its budget to
    ``TARGET`` to the partner's, with its 95% paired bootstrap interval (pointwise, unadjusted:
    no test is made) and the Monte Carlo ranges of its limits, ``predicted_ratio`` (1 / f^2)
    and where it lies (``prediction``). Empty when no cell has such a partner. First cost only
    (cost does not change the simulation)."""
    environments = cell_environments(outcomes)
    priced = cells[cells["cost"] == cells["cost"].min()]
    exact = {}
    for cell in priced.itertuples():
        env = environments[int(cell.cell)]
        model = registry.reward_model(env.reward)
        if model.gap_factor and env.reward_parameters == model.defaults():
            exact[(*(getattr(cell, k) for k in _SAME), env)] = int(cell.cell)
    rows = []
    for cell in priced.itertuples():
        env = environments[int(cell.cell)]
        model = registry.reward_model(env.reward)
        if not model.gap_factor or env.reward_parameters == model.defaults():
            continue
        partner = exact.get((*(getattr(cell, k) for k in _SAME),
                             env.with_reward(env.reward, model.defaults())))
        if partner is None:
            continue
        noisy, exact_outcomes = outcomes.outcomes(int(cell.cell)), outcomes.outcomes(partner)
        ratio = budget_ratio(noisy, exact_outcomes, outcomes.budgets)
        prediction = 1.0 / model.gap_factor(env.reward_parameters) ** 2
        if ratio.holds(prediction) == Placement.UNRESOLVED:
            ratio = budget_ratio(noisy, exact_outcomes, outcomes.budgets,
                                 resamples=MORE_RESAMPLES)
        rows.append({
            "cell": int(cell.cell), "exact_cell": partner, "algorithm": cell.algorithm,
            "baseline": cell.baseline, "lr": cell.lr, "group_size": cell.group_size,
            "reward_model": env.reward, "environment": cell.environment,
            **{p.name: v for p, v in zip(model.parameters, env.reward_parameters, strict=True)},
            "target": TARGET, "ratio": ratio.ratio, "ci_low": ratio.ci_low,
            "ci_high": ratio.ci_high, "seeds": ratio.seeds,
            "undefined_resamples": ratio.undefined_resamples, "resamples": ratio.resamples,
            "ci_low_mc_low": ratio.ci_low_range[0], "ci_low_mc_high": ratio.ci_low_range[1],
            "ci_high_mc_low": ratio.ci_high_range[0], "ci_high_mc_high": ratio.ci_high_range[1],
            "predicted_ratio": prediction,
            "prediction": ratio.holds(prediction),
        })
    frame = pd.DataFrame(rows)
    if len(frame):
        frame["prediction"] = typed(frame["prediction"], Placement)
    return frame
