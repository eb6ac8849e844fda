"""Each part's main effect and every two parts' interaction on the tokens to the config's served
pass-rate target (``analysis.prompts.factorial.tokens_to_target``), for a factorial study whose
runs have a served pass rate and whose config names ``pass_rate_target``."""

from __future__ import annotations

import pandas as pd

from analysis.families import family_name
from analysis.prompts.factorial import tokens_to_target
from analysis.prompts.questions.factorial_effects import values
from analysis.questions import Inputs

TABLE = "factorial_tokens"
TEST = ""
"""Intervals only, no p-values: their Bonferroni family is named in the rows."""


def table(inputs: Inputs) -> pd.DataFrame:
    """The ratios of every term (none without a design, a served pass rate or a target)."""
    target = inputs.analysis.pass_rate_target
    if inputs.design is None or not target or "served_pass_rate_sum" not in inputs.runs:
        return pd.DataFrame()
    return tokens_to_target(values(inputs, "served_pass_rate"), inputs.design, target,
                            inputs.analysis.ratio_margin,
                            family_name(inputs.study, TABLE))
