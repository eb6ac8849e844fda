"""Each group arm's budget to fractions of the achievable pass rate on the odd seeds
(``analysis.groups.pass_rate_budget_table``)."""

from __future__ import annotations

import pandas as pd

from analysis.groups import pass_rate_budget_table
from analysis.questions import Inputs
from analysis.questions.group_best_lr import of_best

TABLE = "group_pass_rate_budgets"
TEST = ""
AFTER = ("group_best_lr",)


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per arm and pass-rate target; empty for a study of one group size."""
    return of_best(inputs, lambda best: pass_rate_budget_table(inputs.outcomes, best))
