"""The learning curves at a few steps (``CURVE_STEPS``, those within each cell's range), which the
text cites and compares."""

from __future__ import annotations

import pandas as pd

from analysis.curves import curve_points
from analysis.questions import Inputs

TABLE = "curve_points"
TEST = ""
AFTER = ("curves",)
CURVE_STEPS = (1, 10, 100, 250, 500, 1000)
"""Steps at which a study's curves are tabulated and cited (those within its budget)."""


def table(inputs: Inputs) -> pd.DataFrame:
    """The rows of ``curves`` at ``CURVE_STEPS``; empty without curves."""
    curves = inputs.tables.get("curves")
    if curves is None:
        return pd.DataFrame()
    return curve_points(curves, CURVE_STEPS)
