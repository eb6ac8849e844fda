"""Each allocation rule against uniform allocation in the same cell otherwise, paired by seed, on
each metric (``analysis.prompts.outcomes.METRICS``), each metric its own Holm family
(``analysis.prompts.versus_uniform.versus_uniform``)."""

from __future__ import annotations

import pandas as pd

from analysis.families import family_name
from analysis.prompts.outcomes import METRICS
from analysis.prompts.versus_uniform import family, versus_uniform
from analysis.questions import Inputs

TABLE = "prompts_vs_uniform"
TEST = {family(metric): (f"two-sided paired t-test of mean {metric.replace('_', ' ')} over seeds "
                         "(the bound's p-value where few seeds differ)") for metric in METRICS}


def by_metric(inputs: Inputs) -> dict[str, pd.DataFrame]:
    """The comparisons on each metric, at its margin (``equivalence_margin`` for accuracy,
    ``pass_rate_margin`` for the pass rate), made once per study."""
    margins = {"accuracy": inputs.analysis.equivalence_margin,
               "pass_rate": inputs.analysis.pass_rate_margin}
    return inputs.shared(TABLE, lambda: {
        metric: versus_uniform(inputs.runs, margins[metric],
                               family_name(inputs.study, family(metric)), metric=metric)
        for metric in METRICS})


def table(inputs: Inputs) -> pd.DataFrame:
    """Every metric's rows, one after the other."""
    return pd.concat(by_metric(inputs).values(), ignore_index=True)
