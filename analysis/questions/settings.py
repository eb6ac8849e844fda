"""The study's ``[analysis]`` settings and what they resolve to (``analysis.questions.SETTINGS``):
one row, which the write-up reads its comparisons from."""

from __future__ import annotations

import pandas as pd

from analysis.questions import SETTINGS, Inputs

TABLE = SETTINGS
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """The settings row (``analysis.study_tables.settings_table``)."""
    return inputs.settings_frame
