"""Accuracy against rollouts per group arm on the odd seeds, at its best lr and at the package's
default lr, with 95% Wilson intervals (``analysis.groups.accuracy_table``)."""

from __future__ import annotations

import pandas as pd

from analysis.groups import accuracy_table
from analysis.questions import Inputs
from analysis.questions.group_best_lr import of_best

TABLE = "group_accuracy"
TEST = ""
AFTER = ("group_best_lr",)


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per arm, lr role and budget; empty for a study of one group size."""
    return of_best(inputs, lambda best: accuracy_table(inputs.outcomes, best))
