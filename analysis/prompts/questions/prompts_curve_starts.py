"""The compute curve fitted from each later first budget (ScaleRL fits after its runs' early
steps), on accuracy only, where the question arose: each first budget refits every resample
(``analysis.prompts.compute_curve.curve_starts``)."""

from __future__ import annotations

import pandas as pd

from analysis.prompts.compute_curve import curve_starts
from analysis.prompts.questions.prompts_curve import headline_runs, starts
from analysis.questions import Inputs

TABLE = "prompts_curve_starts"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per headline cell and first budget; empty without ``curve_cut``."""
    if not inputs.analysis.curve_cut:
        return pd.DataFrame()
    return curve_starts(headline_runs(inputs), inputs.analysis.curve_cut,
                        starts(inputs, "accuracy"))
