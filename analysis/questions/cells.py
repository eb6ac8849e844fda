"""The study's cells, each described once (``analysis.accuracy.cells_frame``): the rows of every
other table name their cell by its number."""

from __future__ import annotations

import pandas as pd

from analysis.questions import Inputs

TABLE = "cells"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell: its learner, lr, baseline, group size, bandit, reward model and cost."""
    return inputs.cells
