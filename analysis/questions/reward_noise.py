"""What reward noise costs in rollouts: each cell whose reward model scales the gaps between the
arms' expected rewards (``study.rewards.RewardModel.gap_factor``: a noisy verifier's error rates)
against the same cell under the model's defaults (the exact verifier), as the ratio of their
budgets to 0.9 with a paired bootstrap interval over seeds.

The cells share every seed's draws (common random numbers), so the ratio's interval is narrower
than the two budgets' intervals suggest. Beside it, the ratio a margin argument predicts: a model
that shrinks every gap by a factor f (1 - fp - fn for a noisy verifier with rates fp and fn)
would, were the budget to scale as 1 / gap^2, grow it by 1 / f^2. The prediction ignores
that the noise also changes the rewards' variance (q (1 - q) for an expected reward q), which
the margin argument holds fixed; the table says where each ratio lies against it, not why.
Checking whether an interval holds a value is a test at its level, so the checks of every row
are one family: ``prediction`` is ``inside``, ``below`` or ``above`` the row's simultaneous
interval (Bonferroni over the family, family-wise level ``FAMILY_ALPHA``), or ``unresolved``
while the prediction lies within a limit's Monte Carlo error
(``analysis.budget_to_target.BudgetRatio.holds``).
"""

from __future__ import annotations

import pandas as pd

from analysis.accuracy import cell_environments
from analysis.budget_to_target import (
    BOOTSTRAP,
    TARGET,
    budget_ratio,
    range_columns,
    resampled_crossings,
)
from analysis.families import ALPHA
from analysis.outcomes import Outcomes
from analysis.roles import Placement, typed
from study.spec import registry

TABLE = "reward_noise_cost"
FAMILY_ALPHA = ALPHA
"""Family-wise level of the prediction checks of one study's rows."""
FAMILY_RESAMPLES = 10_000
"""Resamples of each simultaneous interval: with fifteen rows its tails hold 0.05 / 30 of them,
about seventeen, enough for the limits' Monte Carlo ranges to be a few percent wide (they are
in the table, and a prediction inside one is unresolved); twice as many doubled the analysis's
time (each resample is an isotonic fit per cell) for ranges about a third narrower."""

_SAME = ["algorithm", "baseline", "lr", "group_size"]


def table(outcomes: Outcomes, cells: pd.DataFrame) -> pd.DataFrame:
    """One row per cell whose model has a ``gap_factor`` and whose parameters are not the
    model's defaults, that has a partner at the defaults (the same learner, lr, baseline, group
    size and bandit): the ratio of its budget to ``TARGET`` to the partner's with its pointwise
    95% paired bootstrap interval (``ci_low``, ``ci_high``); ``predicted_ratio`` (1 / f^2); and
    where the prediction lies against the simultaneous interval of the family of every row's
    check (``simultaneous_low``, ``simultaneous_high``: Bonferroni, each at 1 - 0.05 / rows,
    from ``FAMILY_RESAMPLES`` resamples, with the Monte Carlo ranges of its limits), which
    ``prediction`` gives. Empty when no cell has such a partner. First cost only (cost does not
    change the simulation)."""
    environments = cell_environments(outcomes)
    priced = cells[cells["cost"] == cells["cost"].min()]
    exact = {}
    for cell in priced.itertuples():
        env = environments[int(cell.cell)]
        model = registry.reward_model(env.reward)
        if model.gap_factor and env.reward_parameters == model.defaults():
            exact[(*(getattr(cell, k) for k in _SAME), env)] = int(cell.cell)
    pairs = []
    for cell in priced.itertuples():
        env = environments[int(cell.cell)]
        model = registry.reward_model(env.reward)
        if not model.gap_factor or env.reward_parameters == model.defaults():
            continue
        partner = exact.get((*(getattr(cell, k) for k in _SAME),
                             env.with_reward(env.reward, model.defaults())))
        if partner is not None:
            pairs.append((cell, env, model, partner))
    # Every noisy cell is divided by its exact verifier's resampled budgets: those are drawn once
    # per exact cell, not once per pair.
    exact_draws = {partner: [resampled_crossings(outcomes.outcomes(partner), outcomes.budgets,
                                                 resamples=resamples)
                             for resamples in (BOOTSTRAP, FAMILY_RESAMPLES)]
                   for partner in dict.fromkeys(pair[3] for pair in pairs)}
    rows = []
    for cell, env, model, partner in pairs:
        noisy, exact_outcomes = outcomes.outcomes(int(cell.cell)), outcomes.outcomes(partner)
        pointwise, whole = exact_draws[partner]
        ratio = budget_ratio(noisy, exact_outcomes, outcomes.budgets, resampled_b=pointwise)
        family = budget_ratio(noisy, exact_outcomes, outcomes.budgets,
                              resamples=FAMILY_RESAMPLES, tail=FAMILY_ALPHA / 2 / len(pairs),
                              resampled_b=whole)
        prediction = 1.0 / model.gap_factor(env.reward_parameters) ** 2
        rows.append({
            "cell": int(cell.cell), "exact_cell": partner, "algorithm": cell.algorithm,
            "baseline": cell.baseline, "lr": cell.lr, "group_size": cell.group_size,
            "reward_model": env.reward, "environment": cell.environment,
            **{p.name: v for p, v in zip(model.parameters, env.reward_parameters, strict=True)},
            "gap_factor": model.gap_factor(env.reward_parameters),
            "target": TARGET, "ratio": ratio.ratio, "ci_low": ratio.ci_low,
            "ci_high": ratio.ci_high, "seeds": ratio.seeds,
            "undefined_resamples": ratio.undefined_resamples,
            "predicted_ratio": prediction, "family_size": len(pairs),
            "simultaneous_low": family.ci_low, "simultaneous_high": family.ci_high,
            "resamples": family.resamples,
            **range_columns("simultaneous_low", "simultaneous_high", family.ci_low_range,
                            family.ci_high_range),
            "prediction": family.holds(prediction),
        })
    frame = pd.DataFrame(rows)
    if len(frame):
        frame["prediction"] = typed(frame["prediction"], Placement)
    return frame
