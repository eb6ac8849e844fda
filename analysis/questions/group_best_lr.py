"""Per arm of a group study (bandit, baseline, G): the lr chosen on the even seeds, whether it lies
at an edge of the grid, and the robust range of lr (``analysis.groups.best_lr_table``); every
other group table reads its choice."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from analysis.groups import best_lr_table, is_group_study
from analysis.questions import Inputs

TABLE = "group_best_lr"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per arm; empty for a study of one group size, or whose answers cost tokens (the
    group tables read each cell's rollouts at a checkpoint, which then differ by seed)."""
    if not is_group_study(inputs.cells) or inputs.outcomes.answers is not None:
        return pd.DataFrame()
    return best_lr_table(inputs.outcomes)


def of_best(inputs: Inputs, build: Callable[[pd.DataFrame], pd.DataFrame]) -> pd.DataFrame:
    """``build`` of this table (every other group table reads its choice of lr); empty for a
    study of one group size, which has none."""
    best = inputs.tables.get(TABLE)
    return pd.DataFrame() if best is None else build(best)
