"""Each trained cell against each nested reference learner by net value, each at its best budget
chosen on the even seeds, with simultaneous intervals over the table
(``analysis.cost.compare_by_net_value``)."""

from __future__ import annotations

import pandas as pd

from analysis.cost import compare_by_net_value
from analysis.questions import Inputs
from analysis.questions.net_value import priced
from analysis.study_tables import reference_learners, reference_partner, trained_cells

TABLE = "net_value_vs_reference"
TEST = ""
"""No p-values: Bonferroni simultaneous intervals, whose direction ``higher`` reads."""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per pair and deployment factor; empty for a study of one cost or without a nested
    reference learner."""
    cells = inputs.cells
    if not priced(inputs):
        return pd.DataFrame()
    pairs = [(c, reference_partner(cells, c, name)) for c in trained_cells(cells)["cell"]
             for name in reference_learners(cells, nested=True)]
    pairs = [(a, b) for a, b in pairs if b is not None]
    if not pairs:
        return pd.DataFrame()
    return compare_by_net_value(inputs.outcomes, pairs, inputs.analysis.deployment_pulls)
