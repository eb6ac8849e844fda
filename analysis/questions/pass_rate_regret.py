"""The headline cell's pass-rate regret beside its best-arm accuracy, at the compared budgets.

Regret is the seed's best arm value less the policy's pass rate (``analysis.pass_rate``); the
never-training policy's is the bandit's best value less its mean value, ``best - start`` of the
achievable gain, the same for every seed of a fixed bandit and, for drawn arms, in expectation.
Each row asks whether training lowered the mean regret below that: a one-sided one-sample t-test
over seeds, Holm within the table. The t-test is asked only where the mean's interval is a t
interval (at least ``analysis.cost.SETTLED_SEEDS`` seeds away from the most common regret);
elsewhere the row has its bound interval and no p-value, so it is no hypothesis.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import ttest_1samp

from analysis.accuracy import accuracy_table, cell_environments
from analysis.cost import CONFIDENCE, Support
from analysis.families import declare, family_name
from analysis.pass_rate import (
    achievable,
    has_policy,
    interval_columns,
    seed_pass_rates,
    value_range,
)
from analysis.questions import Inputs

TABLE = "pass_rate_regret"
TEST = ("one-sided one-sample t-test over seeds of mean pass-rate regret below the "
        "never-training policy's")


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per compared budget (``settings["compared_budgets"]``) of the headline cell
    (``settings["headline_cell"]``), where its learner has a policy: best-arm accuracy with its
    95% Wilson interval, the mean pass rate and the mean regret with their intervals
    (``analysis.pass_rate.interval_columns``), the never-training policy's regret (a constant,
    no interval), and the t-test's p-value and Holm-adjusted p-value. Empty where the headline
    cell has no policy."""
    outcomes, cells, settings = inputs.outcomes, inputs.cells, inputs.settings
    cell = int(settings["headline_cell"])
    if cell not in set(cells["cell"]) or not has_policy(outcomes, cell):
        return pd.DataFrame()
    env = cell_environments(outcomes)[cell]
    gain = achievable(env)
    untrained = gain.best - gain.start
    low, high = value_range(env)
    rates = seed_pass_rates(outcomes, cell)
    regrets = outcomes.best_value[outcomes.row(cell)][:, None] - rates
    accuracy = accuracy_table(outcomes, confidence=CONFIDENCE)
    accuracy = accuracy[accuracy["cell"] == cell].set_index("budget")
    budgets = list(outcomes.budgets)
    rows = []
    for budget in settings["compared_budgets"]:
        c = budgets.index(int(budget))
        regret = interval_columns("regret", regrets[:, c], Support((0.0, high - low), False))
        asked = regret["regret_interval"] == "t"
        at = accuracy.loc[int(budget)]
        rows.append({
            "cell": cell, "budget": int(budget), "seeds": len(rates),
            "accuracy": at["accuracy"], "accuracy_low": at["ci_low"],
            "accuracy_high": at["ci_high"],
            **interval_columns("pass_rate", rates[:, c], Support((low, high), False)),
            **regret, "untrained_regret": untrained,
            "p_value": (float(ttest_1samp(regrets[:, c], untrained, alternative="less").pvalue)
                        if asked else np.nan)})
    found = pd.DataFrame(rows)
    if found.empty:
        return found  # no compared budgets
    return declare(found, family_name(str(settings["study"]), TABLE),
                   members=found["p_value"].notna())
