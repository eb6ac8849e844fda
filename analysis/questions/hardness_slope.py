"""The slope of log budget to 0.9 on log H per learner, with its percentile interval over seeds and
its interval over bandits (``analysis.hardness``), from the resamples of ``hardness``."""

from __future__ import annotations

import pandas as pd

from analysis.questions import Inputs
from analysis.questions.hardness import both

TABLE = "hardness_slope"
TEST = ""
AFTER = ("budget_to_target",)


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per learner (``analysis.hardness.hardness_tables``)."""
    return both(inputs).get(TABLE, pd.DataFrame())
