"""Each trained cell against each nested reference learner of the grid (uniform allocation's
table is ``vs_uniform``) on the same bandit and seeds: paired by seed at every budget, Holm over
the table, each row judged against the equivalence margin."""

from __future__ import annotations

import pandas as pd

from analysis.families import family_name
from analysis.questions import Inputs
from analysis.study_tables import (
    compared_cells,
    paired_family,
    reference_learners,
    reference_partner,
)

TABLE = "vs_{learner}"
TEST = "two-sided exact McNemar test (paired by seed)"


def table(inputs: Inputs) -> dict[str, pd.DataFrame]:
    """One table per nested reference learner (by its name) with a partner for some compared
    cell (``analysis.study_tables.compared_cells``)."""
    tables = {}
    for name in reference_learners(inputs.cells, nested=True):
        pairs = [(c, partner) for c in compared_cells(inputs)
                 if (partner := reference_partner(inputs.cells, c, name)) is not None]
        if pairs:
            tables[name] = paired_family(inputs.outcomes, pairs, inputs.cells,
                                         family_name(inputs.study, f"vs_{name}"),
                                         inputs.analysis.equivalence_margin)
    return tables
