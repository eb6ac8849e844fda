"""Power against the number of seeds at the observed rates at 0.05, analytic and Monte Carlo, for
each headline comparison of ``power`` (an illustration of this run, not a plan)."""

from __future__ import annotations

import pandas as pd

from analysis.questions import Inputs
from analysis.questions.power import AFTER, both

TABLE = "power_curves"
TEST = ""
__all__ = ["AFTER", "TABLE", "TEST", "table"]


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per comparison, primary budget and number of seeds."""
    found = both(inputs)
    return pd.DataFrame() if found is None else found[1]
