"""Budget to a pass-rate target in tokens against the budget in rollouts: for a study whose
answers cost tokens, per cell and share of the achievable gain (``analysis.pass_rate.FRACTIONS``,
from the untrained policy's pass rate to the best arm's), the tokens at which the seed-mean pass
rate first reaches it, and the rollouts, each read off the same isotonic fit against the token
checkpoints or against the mean rollouts the seeds spent by them, with 95% percentile
seed-bootstrap intervals (``analysis.pass_rate.budget_columns``). Their ratio is the tokens an
answer cost on the way: where a penalty shortens the answers, a budget that is larger in rollouts
can be smaller in tokens (``fewer_tokens``, ``more_rollouts``: against the same cell without a
penalty, interval against interval)."""

from __future__ import annotations

import pandas as pd

from analysis.accuracy import cell_environments
from analysis.pass_rate import FRACTIONS, achievable, budget_columns, seed_pass_rates
from analysis.questions import Inputs
from analysis.questions.length_price import against_no_penalty, sampler_columns

TABLE = "length_budgets"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell (first cost) whose learner has a policy, and share of the gain; empty
    unless the study's answers cost tokens and count them in its budgets."""
    outcomes = inputs.outcomes
    answers = outcomes.answers
    if answers is None:
        return pd.DataFrame()
    environments = cell_environments(outcomes)
    cells = inputs.cells
    rows = []
    for cell in cells[cells["cost"] == cells["cost"].min()].itertuples():
        rates = seed_pass_rates(outcomes, cell.cell).astype(float)
        if not (rates == rates).all():
            continue
        env = environments[int(cell.cell)]
        gain = achievable(env)
        # Every seed spends the same tokens by a checkpoint to within one update; the rollouts
        # differ more (short answers buy more of them), so their mean over seeds is the axis.
        spent = answers.rollouts[outcomes.row(cell.cell)].mean(axis=0)
        for fraction in FRACTIONS:
            target = gain.target(fraction)
            tokens = budget_columns(rates, outcomes.budgets.astype(float), target)
            rollouts = budget_columns(rates, spent, target)
            rows.append({
                "cell": int(cell.cell), "environment": cell.environment,
                "reward_model": env.reward,
                **env.reward_columns(), **sampler_columns(cells, cell),
                "baseline": cell.baseline, "group_size": cell.group_size, "lr": cell.lr,
                "fraction": fraction, "target": target, "seeds": len(rates),
                **_named("tokens", tokens), **_named("rollouts", rollouts)})
    found = pd.DataFrame(rows)
    if "penalty" not in found:
        return found
    # A budget not reached is only bounded: it sets nothing against the unpenalised one.
    return against_no_penalty(found, ["baseline", "group_size", "lr", "fraction"], {
        "fewer_tokens": ("tokens_low", "tokens_high", "below"),
        "more_tokens": ("tokens_low", "tokens_high", "above"),
        "more_rollouts": ("rollouts_low", "rollouts_high", "above")}, eligible="tokens_reached")


def _named(unit: str, columns: dict[str, object]) -> dict[str, object]:
    """``budget_columns``' keys in ``unit``: ``tokens``, ``tokens_low``, ``tokens_reached``..."""
    return {unit if key == "budget_to_target" else f"{unit}_{key.removeprefix('budget_')}": value
            for key, value in columns.items()}
