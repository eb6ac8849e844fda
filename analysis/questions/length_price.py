"""The price of a length constraint: for a study whose answers cost tokens, per cell and token
budget, the policy's pass rate and its expected answer length sum pi[k] l[k], each a mean over
seeds with its 95% betting interval on the range the bandit fixes (``analysis.bounded
.betting_mean``: where a few seeds collapse, the values are a spike with far outliers, on which
a t interval falls well short of its level), beside best-arm accuracy
with its Wilson interval and the rollouts and tokens the runs spent. Across the penalty's lambda
at one budget the rows trace the frontier of pass rate against tokens per answer; the cells of
lambda 0 (or of a model without a penalty) show how the answers' length drifts as tokens are
spent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd

from analysis.accuracy import SAMPLER_KEYS, accuracy_table, cell_environments
from analysis.bounded import betting_mean
from analysis.cost import Support
from analysis.pass_rate import interval_columns, seed_pass_rates, value_range
from analysis.questions import Inputs
from study.model import registry

TABLE = "length_price"
TEST = ""
"""No p-values: means with their intervals, per cell and budget."""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell (first cost: cost does not change a simulation) whose learner has a
    policy, and checkpoint; empty unless the study's answers cost tokens."""
    outcomes = inputs.outcomes
    answers = outcomes.answers
    if answers is None:
        return pd.DataFrame()
    environments = cell_environments(outcomes)
    accuracy = accuracy_table(outcomes).set_index(["cell", "budget"])
    cells = inputs.cells
    rows = []
    for cell in cells[cells["cost"] == cells["cost"].min()].itertuples():
        row = outcomes.row(cell.cell)
        lengths = answers.expected_length[row]
        if not (lengths == lengths).any():
            continue  # a learner without a policy has no expected length
        env = environments[int(cell.cell)]
        rates = seed_pass_rates(outcomes, cell.cell)
        low, high = value_range(env)
        shortest, longest = min(env.lengths), max(env.lengths)
        for c, budget in enumerate(outcomes.budgets):
            right = accuracy.loc[(int(cell.cell), int(budget))]
            rows.append({
                "cell": int(cell.cell), "environment": cell.environment,
                "reward_model": env.reward,
                **env.reward_columns(), **sampler_columns(cells, cell),
                "algorithm": cell.algorithm, "baseline": cell.baseline, "lr": cell.lr,
                "group_size": cell.group_size, "budget": int(budget),
                "seeds": len(rates),
                "rollouts": float(answers.rollouts[row][:, c].mean()),
                "tokens": float(answers.tokens[row][:, c].mean()),
                **interval_columns("pass_rate", rates[:, c], Support((low, high), False),
                                   interval=betting_mean),
                **interval_columns("expected_length", lengths[:, c],
                                   Support((shortest, longest), False), interval=betting_mean),
                "accuracy": right["accuracy"], "accuracy_low": right["ci_low"],
                "accuracy_high": right["ci_high"]})
    return pd.DataFrame(rows)


Interval = tuple[str, str, str]
"""A comparison of a row with the row without a penalty: its interval's low and high columns and
the side (``below``: this row's upper limit under that row's lower one; ``above``: the reverse)."""


def alongside(frame: pd.DataFrame | pd.Series) -> list[str]:
    """The columns of ``frame`` (the labels of a row), besides the bandit's arms and a
    question's own, that a penalised cell and its partner without a penalty share where a study
    composes parts: the verdict the penalty shapes and its parameters, and an off-policy
    learner's sampler (none of them in a study of the penalty alone)."""
    verdicts = [p.name for m in registry.reward_models() if not m.lengths for p in m.parameters]
    return [c for c in ("verdict", *verdicts, *SAMPLER_KEYS) if c in frame]


def sampler_columns(cells: pd.DataFrame, cell: Any) -> dict[str, object]:
    """An off-policy cell's sampler axes (the columns of ``cells``, a row of which is ``cell``),
    for a table of its rows; none for an on-policy study."""
    return {key: getattr(cell, key) for key in SAMPLER_KEYS if key in cells}


def no_penalty_partners(found: pd.DataFrame, by: list[str]
                        ) -> Iterator[tuple[pd.Index, pd.Series]]:
    """For each bandit (its arms) and value of ``by`` (and of ``alongside``) that has a row
    without a penalty (lambda 0, never lifted): the index of its rows with a penalty, and that
    row."""
    arms = found["environment"].str.split(" ").str[0]
    for _, rows in found.groupby([arms, *by, *alongside(found)], sort=False):
        base = rows[(rows["penalty"] == 0.0) & (rows["penalty_until"] == 1.0)]
        if not base.empty:
            yield rows.index[rows["penalty"] > 0.0], base.iloc[0]


def against_no_penalty(found: pd.DataFrame, by: list[str], intervals: dict[str, Interval],
                       eligible: str = "") -> pd.DataFrame:
    """``found`` with a boolean column per entry of ``intervals``: for each row with a penalty
    (and ``eligible`` true, if named), whether its interval lies on that side of the interval of
    the row without one (``no_penalty_partners``); False for that row itself and where a bandit
    has none. Interval against interval, per row: no family, no p-value."""
    found = found.assign(**dict.fromkeys(intervals, False))
    for penalised, none in no_penalty_partners(found, by):
        if eligible:
            penalised = penalised[found.loc[penalised, eligible].to_numpy(dtype=bool)]
        for name, (low, high, side) in intervals.items():
            found.loc[penalised, name] = (found.loc[penalised, high] < none[low] if side == "below"
                                          else found.loc[penalised, low] > none[high])
    return found
