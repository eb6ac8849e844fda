"""What a KL term costs in budget: for each cell with a KL term and the same cell without one
(``analysis.questions.kl_term.term_partners``), the budgets to 0.9 accuracy and to 0.9 of the
achievable pass rate and their ratio with its paired interval and per-row equivalence verdict
(``analysis.offpolicy.budget_ratios``)."""

from __future__ import annotations

import pandas as pd

from analysis.offpolicy import budget_ratios
from analysis.questions import Inputs
from analysis.questions.kl_term import term_partners

TABLE = "kl_term_budgets"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell with a KL term and metric; empty without one."""
    pairs = term_partners(inputs)
    return budget_ratios(inputs, pairs) if pairs else pd.DataFrame()
