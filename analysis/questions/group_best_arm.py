"""Per bandit, the group arm with the largest even-seed accuracy (is it G = 1?) and its paired
difference from single-rollout REINFORCE at each compared checkpoint
(``analysis.groups.best_arm_table``)."""

from __future__ import annotations

import pandas as pd

from analysis.groups import best_arm_table
from analysis.questions import Inputs
from analysis.questions.group_best_lr import of_best

TABLE = "group_best_arm"
TEST = ""
AFTER = ("group_best_lr", "group_vs_single")


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per bandit and compared checkpoint; empty for a study of one group size."""
    return of_best(inputs, lambda best: best_arm_table(best, inputs.tables["group_vs_single"]))
