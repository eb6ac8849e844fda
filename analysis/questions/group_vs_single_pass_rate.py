"""Each group arm against single-rollout REINFORCE at equal rollouts on the policy's pass rate,
paired by seed on the odd seeds, Holm over the table, each row judged against the pass-rate margin
(``analysis.groups.versus_single_table``)."""

from __future__ import annotations

import pandas as pd

from analysis.families import family_name
from analysis.groups import versus_single_table
from analysis.questions import Inputs
from analysis.questions.group_best_lr import of_best

TABLE = "group_vs_single_pass_rate"
TEST = ("two-sided paired t-test of mean pass rate over seeds (the bound's p-value where few "
        "seeds differ)")
AFTER = ("group_best_lr",)


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per arm with G > 1 and checkpoint after its first update; empty for a study of
    one group size."""
    return of_best(inputs, lambda best: versus_single_table(
        inputs.outcomes, best, family_name(inputs.study, TABLE), inputs.analysis.pass_rate_margin,
        metric="pass_rate"))
