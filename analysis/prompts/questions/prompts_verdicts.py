"""One row per rule, law, normalization and metric of the comparisons with uniform allocation at
the headline baseline and group size: how its budgets came out
(``analysis.prompts.versus_uniform.verdict_table``)."""

from __future__ import annotations

import pandas as pd

from analysis.prompts.versus_uniform import verdict_table
from analysis.questions import Inputs

TABLE = "prompts_verdicts"
TEST = ""
AFTER = ("prompts_vs_uniform",)


def table(inputs: Inputs) -> pd.DataFrame:
    """The verdicts of ``prompts_vs_uniform``; empty where no rule is compared with uniform
    allocation."""
    if "prompts_vs_uniform" not in inputs.tables:
        return pd.DataFrame()
    return verdict_table(inputs.tables["prompts_vs_uniform"], inputs.analysis.headline_baseline,
                         inputs.analysis.headline_group_size)
