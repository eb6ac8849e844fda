"""The pass rate of each cell's policy per budget, with its interval
(``analysis.pass_rate.policy_table``): the metric post-training reports, beside best-arm
accuracy."""

from __future__ import annotations

import pandas as pd

from analysis.pass_rate import policy_table
from analysis.questions import Inputs

TABLE = "pass_rate"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell with a policy and budget; empty when no learner has a policy."""
    return policy_table(inputs.outcomes)
