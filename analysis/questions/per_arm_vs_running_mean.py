"""The per-arm baseline against the running mean: each per-arm cell against the running-mean cell
that differs only in its baseline, paired by seed at every budget, Holm over the table, each row
judged against the equivalence margin."""

from __future__ import annotations

import pandas as pd

from analysis.families import family_name
from analysis.questions import Inputs
from analysis.study_tables import paired_family, partner, per_arm_cells

TABLE = "per_arm_vs_running_mean"
TEST = "two-sided exact McNemar test (paired by seed)"


def table(inputs: Inputs) -> pd.DataFrame:
    """The paired rows, empty unless the study compares the baselines."""
    pairs = [(c, partner(inputs.cells, c, baseline="running_mean"))
             for c in per_arm_cells(inputs)]
    pairs = [(a, b) for a, b in pairs if b is not None]
    if not pairs:
        return pd.DataFrame()
    return paired_family(inputs.outcomes, pairs, inputs.cells,
                         family_name(inputs.study, TABLE), inputs.analysis.equivalence_margin)
