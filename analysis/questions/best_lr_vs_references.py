"""The best-lr running-mean cell, when it is not the headline cell, against every reference
learner, on the odd seeds only, since the even seeds chose it: a family of its own. When the even
seeds choose the headline cell, its comparisons are those already made on all seeds
(pre-specified): testing them again would ask one question twice."""

from __future__ import annotations

import pandas as pd

from analysis.questions import Inputs
from analysis.questions.vs_best_arm_identification import asked, best_cell, partners, versus
from analysis.study_tables import reference_learners

TABLE = "best_lr_vs_references"
TEST = "two-sided exact McNemar test (paired by seed)"
AFTER = ("budget_to_target",)


def table(inputs: Inputs) -> pd.DataFrame:
    """The best-lr cell's paired rows on the odd seeds; empty when it is the headline cell."""
    best = best_cell(inputs)
    if not asked(inputs) or best == int(inputs.settings["headline_cell"]):
        return pd.DataFrame()
    _, odd = inputs.outcomes.halves()
    return versus(inputs, TABLE, best, partners(inputs, reference_learners(inputs.cells)), odd)
