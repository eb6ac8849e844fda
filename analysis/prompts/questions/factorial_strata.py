"""Each interaction of two parts that its metric's family shows, read per stratum: each part's
effect at each level of the other, with its interval (``analysis.prompts.factorial.strata``)."""

from __future__ import annotations

import pandas as pd

from analysis.families import ALPHA
from analysis.prompts.factorial import strata
from analysis.prompts.questions.factorial_effects import TABLE as EFFECTS
from analysis.prompts.questions.factorial_effects import support, values
from analysis.questions import Inputs

TABLE = "factorial_strata"
TEST = ""
AFTER = (EFFECTS,)


def table(inputs: Inputs) -> pd.DataFrame:
    """The strata of every interaction shown (Holm-adjusted p below 0.05) on any metric."""
    found = inputs.tables.get(EFFECTS)
    if found is None or inputs.design is None:
        return pd.DataFrame()
    shown = found[(found["order"] == 2) & (found["p_value_holm"] < ALPHA)]
    return pd.concat([strata(values(inputs, metric), inputs.design, rows,
                             support(inputs, metric))
                      for metric, rows in shown.groupby("metric", sort=False)] or
                     [pd.DataFrame()], ignore_index=True)
