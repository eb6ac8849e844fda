"""Each group arm against single-rollout REINFORCE (running mean) at equal rollouts, on best-arm
accuracy, paired by seed on the odd seeds, Holm over the table, each row judged against the
equivalence margin (``analysis.groups.versus_single_table``)."""

from __future__ import annotations

import pandas as pd

from analysis.families import family_name
from analysis.groups import versus_single_table
from analysis.questions import Inputs
from analysis.questions.group_best_lr import of_best

TABLE = "group_vs_single"
TEST = "two-sided exact McNemar test (paired by seed)"
AFTER = ("group_best_lr",)


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per arm with G > 1 and checkpoint after its first update; empty for a study of
    one group size."""
    return of_best(inputs, lambda best: versus_single_table(
        inputs.outcomes, best, family_name(inputs.study, TABLE),
        inputs.analysis.equivalence_margin))
