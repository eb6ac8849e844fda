"""The compute curves' predictions beyond the fitted budgets against what the runs reached
(``analysis.prompts.compute_curve``), from the fits of ``prompts_curve``."""

from __future__ import annotations

import pandas as pd

from analysis.prompts.questions.prompts_curve import fits
from analysis.questions import Inputs

TABLE = "prompts_curve_predictions"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per headline cell, metric and predicted budget; empty without ``curve_cut``."""
    found = fits(inputs)
    return (pd.concat([c.predictions for c in found], ignore_index=True) if found
            else pd.DataFrame())
