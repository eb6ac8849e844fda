"""Expected net value per cell, cost and budget with its 95% interval, for a study that prices
more than one cost per pull (``analysis.cost.net_value_table``)."""

from __future__ import annotations

import pandas as pd

from analysis.cost import net_value_table
from analysis.questions import Inputs

TABLE = "net_value"
TEST = ""


def priced(inputs: Inputs) -> bool:
    """Whether the study prices more than one cost per pull (its cost questions)."""
    return inputs.cells["cost"].nunique() > 1


def table(inputs: Inputs) -> pd.DataFrame:
    """The net values at the config's deployment pulls; empty for a study of one cost."""
    if not priced(inputs):
        return pd.DataFrame()
    return net_value_table(inputs.outcomes, inputs.analysis.deployment_pulls)
