"""The design's rows that its factors' roles name, compared pairwise on each metric: the
remedies under every hazard, the hazards alone against the plain learner, ...
(``analysis.prompts.factorial.pairs``), each metric its own Holm family."""

from __future__ import annotations

import pandas as pd

from analysis.families import family_name
from analysis.prompts.factorial import METRICS, pairs
from analysis.prompts.questions.factorial_effects import (
    budgets,
    margin,
    per_metric,
    support,
    values,
)
from analysis.questions import Inputs
from study.model.schema import ENVIRONMENT_INDEX

TABLE = "factorial_pairs"
TEST = {f"{TABLE}_{metric}": f"two-sided paired t-test of mean {words} over seeds"
        for metric, words in METRICS.items()}


def table(inputs: Inputs) -> pd.DataFrame:
    """Every metric's pairs (no rows without a design whose factors declare roles), with the
    ``environments`` of the population the study's prompts come from (0: one difficulty law),
    which tells a claim's row at V3.2's scale from one on a few prompts."""
    found = per_metric(inputs, lambda metric: pairs(
        values(inputs, metric), inputs.design, metric, budgets(inputs), support(inputs, metric),
        margin(inputs, metric), family_name(inputs.study, f"{TABLE}_{metric}")))
    per_environment = inputs.environment_runs
    held = (0 if per_environment is None
            else int(per_environment.loc[per_environment[ENVIRONMENT_INDEX] >= 0,
                                         ENVIRONMENT_INDEX].nunique()))
    return found.assign(environments=held) if len(found) else found
