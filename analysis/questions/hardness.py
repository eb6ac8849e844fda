"""Budget to 0.9 against the bandit's hardness H, per bandit and learner, for a study of at least
three bandits of different H (``analysis.hardness``); the fitted slopes are ``hardness_slope``,
from the same resamples."""

from __future__ import annotations

import pandas as pd

from analysis.hardness import hardness_tables, is_hardness_study
from analysis.questions import Inputs

TABLE = "hardness"
TEST = ""
AFTER = ("budget_to_target",)


def both(inputs: Inputs) -> dict[str, pd.DataFrame]:
    """``hardness`` and ``hardness_slope`` (``analysis.hardness.hardness_tables``, on the odd
    seeds, those the best lr was not chosen on), made once per study; none for a study that is
    not a hardness study."""
    def compute() -> dict[str, pd.DataFrame]:
        budgets = inputs.tables["budget_to_target"]
        if not is_hardness_study(budgets):
            return {}
        outcomes = inputs.outcomes
        _, odd = outcomes.halves()
        matrices = {int(c): (outcomes.outcomes(int(c), odd), outcomes.budgets)
                    for c in budgets["cell"].unique()}
        # K from the cell's structured columns, never from the bandit's display text.
        arms = outcomes.cells.set_index("cell")["arms"]
        return hardness_tables(matrices, budgets.assign(arms=budgets["cell"].map(arms)))

    return inputs.shared("hardness", compute)


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per bandit and learner (``analysis.hardness.hardness_tables``)."""
    return both(inputs).get(TABLE, pd.DataFrame())
