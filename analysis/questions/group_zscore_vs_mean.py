"""GRPO (the group's z-scored advantage) against Dr. GRPO (the group mean as baseline), each at its
best lr, paired by seed on the odd seeds, with the factor by which dividing by the group's spread
scales the step (``analysis.groups.zscore_table``)."""

from __future__ import annotations

import pandas as pd

from analysis.families import family_name
from analysis.groups import zscore_table
from analysis.questions import Inputs
from analysis.questions.group_best_lr import of_best
from analysis.study_tables import pass_rates

TABLE = "group_zscore_vs_mean"
TEST = "two-sided exact McNemar test (paired by seed)"
AFTER = ("group_best_lr",)


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per bandit, G and checkpoint; empty for a study of one group size."""
    return of_best(inputs, lambda best: zscore_table(
        inputs.outcomes, best, pass_rates(inputs.outcomes), family_name(inputs.study, TABLE),
        inputs.analysis.equivalence_margin))
