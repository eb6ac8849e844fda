"""Break-even cost per pull for each step between consecutive checkpoints, per cell, with the
sign test of the seeds whose deployed value rose against those whose value fell, Holm over the
table (``analysis.cost.break_even_costs``)."""

from __future__ import annotations

import pandas as pd

from analysis.cost import break_even_costs
from analysis.families import declare, family_name
from analysis.questions import Inputs
from analysis.questions.net_value import priced

TABLE = "break_even"
TEST = ("two-sided exact sign test of the seeds whose deployed value rose over a step against "
        "those whose value fell")


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell and step; empty for a study of one cost."""
    if not priced(inputs):
        return pd.DataFrame()
    return declare(break_even_costs(inputs.outcomes, inputs.analysis.deployment_pulls),
                   family_name(inputs.study, TABLE))
