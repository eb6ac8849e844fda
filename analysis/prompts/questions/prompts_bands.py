"""Per cell, budget and difficulty band, what the budget was spent on and what it bought
(``analysis.prompts.means.band_spending``)."""

from __future__ import annotations

import pandas as pd

from analysis.prompts.means import band_spending
from analysis.questions import Inputs

TABLE = "prompts_bands"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell, budget and band."""
    return band_spending(inputs.runs)
