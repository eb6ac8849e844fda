"""The share of updates (and so of rollouts) spent on groups with no signal (every rollout alike)
per arm at its best lr, with its interval (``analysis.groups.zero_signal_table``)."""

from __future__ import annotations

import pandas as pd

from analysis.groups import zero_signal_table
from analysis.questions import Inputs
from analysis.questions.group_best_lr import of_best
from analysis.study_tables import pass_rates

TABLE = "group_zero_signal"
TEST = ""
AFTER = ("group_best_lr",)


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per arm; empty for a study of one group size."""
    return of_best(inputs, lambda best: zero_signal_table(inputs.outcomes, best,
                                                          pass_rates(inputs.outcomes)))
