"""The budget of the largest expected net value per cell and cost, ranked on the even seeds and
estimated on the odd ones (``analysis.cost.best_budgets``)."""

from __future__ import annotations

import pandas as pd

from analysis.cost import best_budgets
from analysis.questions import Inputs
from analysis.questions.net_value import priced

TABLE = "best_budget"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell and cost; empty for a study of one cost."""
    if not priced(inputs):
        return pd.DataFrame()
    return best_budgets(inputs.outcomes, inputs.analysis.deployment_pulls)
