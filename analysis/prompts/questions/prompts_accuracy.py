"""Per cell and budget, over seeds: the mean accuracy, the mean pass rate of the policies and the
share of prompts learned, with their intervals (``analysis.prompts.means.accuracy_table``)."""

from __future__ import annotations

import pandas as pd

from analysis.prompts.means import accuracy_table
from analysis.questions import Inputs

TABLE = "prompts_accuracy"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell and budget."""
    return accuracy_table(inputs.runs)
