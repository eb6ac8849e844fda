"""Per-step learning curves of a study that records them (``curves = true``): per cell, the
fraction of seeds taking a best arm at each step with its Wilson interval, and the mean reward
(``analysis.curves.curves_table``)."""

from __future__ import annotations

import pandas as pd

from analysis.accuracy import chance_levels
from analysis.curves import curves_table
from analysis.questions import Inputs
from study.model.schema import CURVES_FILE

TABLE = "curves"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell at the first cost and step; empty when the run recorded no curves."""
    path = inputs.run_dir / CURVES_FILE
    if not path.is_file():
        return pd.DataFrame()
    return curves_table(pd.read_parquet(path), inputs.cells, chance_levels(inputs.outcomes))
