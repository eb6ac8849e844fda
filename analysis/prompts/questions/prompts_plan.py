"""The seeds each paired comparison with uniform allocation needs for the effect stated before the
run, on each metric (``analysis.prompts.seeds.plan_table``)."""

from __future__ import annotations

import pandas as pd

from analysis.prompts.outcomes import METRICS
from analysis.prompts.questions.prompts_vs_uniform import by_metric
from analysis.prompts.seeds import EFFECT, plan_table
from analysis.questions import Inputs

TABLE = "prompts_plan"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per comparison and metric: accuracy's effect is ``EFFECT``, the pass rate's its
    margin."""
    effects = {"accuracy": EFFECT, "pass_rate": inputs.analysis.pass_rate_margin}
    versus = by_metric(inputs)
    return pd.concat([plan_table(inputs.runs, versus[metric], effects[metric], metric=metric)
                      for metric in METRICS], ignore_index=True)
