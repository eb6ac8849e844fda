"""What a stale sampler costs in budget: for each stale cell and its lag-0 partner
(``analysis.questions.staleness.stale_partners``), the budgets to 0.9 accuracy and to 0.9 of the
achievable pass rate and their ratio with its paired interval and per-row equivalence verdict
(``analysis.offpolicy.budget_ratios``)."""

from __future__ import annotations

import pandas as pd

from analysis.offpolicy import budget_ratios
from analysis.questions import Inputs
from analysis.questions.staleness import stale_partners

TABLE = "staleness_budgets"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per stale cell and metric; empty for a study without lags."""
    pairs = stale_partners(inputs)
    return budget_ratios(inputs, pairs) if pairs else pd.DataFrame()
