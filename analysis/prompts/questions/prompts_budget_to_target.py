"""Per cell and target, the budget at which the seed-mean metric first reaches it: accuracy to
``analysis.prompts.budget_to_target.TARGETS``, the pass rate to
``analysis.pass_rate.FRACTIONS`` of each law's achievable gain
(``analysis.prompts.budget_to_target.budget_to_target``)."""

from __future__ import annotations

import pandas as pd

from analysis.pass_rate import FRACTIONS, achievable
from analysis.prompts.budget_to_target import TARGETS, budget_to_target
from analysis.prompts.outcomes import METRICS
from analysis.questions import Inputs

TABLE = "prompts_budget_to_target"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell, metric and target."""
    gains = {text: achievable(env) for text, env in inputs.environments.items()}
    targets = {"accuracy": TARGETS, "pass_rate": FRACTIONS}
    return pd.concat([budget_to_target(inputs.runs, targets[metric], metric=metric, gains=gains)
                      for metric in METRICS], ignore_index=True)
