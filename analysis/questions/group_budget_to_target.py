"""Each group arm's budget to 0.9 on the odd seeds, and its ratio to single rollouts' and to the
reference learner's (``analysis.groups.budget_table``)."""

from __future__ import annotations

import pandas as pd

from analysis.groups import budget_table
from analysis.questions import Inputs
from analysis.questions.group_best_lr import of_best

TABLE = "group_budget_to_target"
TEST = ""
AFTER = ("group_best_lr",)


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per arm; empty for a study of one group size."""
    return of_best(inputs, lambda best: budget_table(inputs.outcomes, best,
                                                     str(inputs.settings["reference"])))
