"""How far the model of main effects and two-part interactions misses the rows the factors'
roles name, on each metric (``analysis.prompts.factorial.model_check``): the interactions of
three parts or more there, which the aliasing otherwise hides (intervals only)."""

from __future__ import annotations

import pandas as pd

from analysis.prompts.factorial import model_check
from analysis.prompts.questions.factorial_effects import budgets, per_metric, support, values
from analysis.questions import Inputs

TABLE = "factorial_model_check"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """Every metric's misses (no rows without a design whose factors declare roles)."""
    return per_metric(inputs, lambda metric: model_check(
        values(inputs, metric), inputs.design, metric, budgets(inputs), support(inputs, metric)))
