"""REINFORCE against the best-arm-identification algorithms (the reference learners that plan from
the budget) on the same seeds: the headline cell against each, at every budget, on all seeds, one
family (its comparison with uniform allocation is in ``vs_uniform``). Also what the best-lr tables
of this question share (``best_cell``, ``partners``, ``versus``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.families import family_name
from analysis.questions import Inputs
from analysis.roles import LrRole
from analysis.study_tables import paired_family, reference_learners, reference_partner

TABLE = "vs_best_arm_identification"
TEST = "two-sided exact McNemar test (paired by seed)"
AFTER = ("budget_to_target",)


def asked(inputs: Inputs) -> bool:
    """Whether the study's grid has a learner that plans from the budget."""
    return bool(reference_learners(inputs.cells, nested=False))


def best_cell(inputs: Inputs) -> int:
    """The running-mean cell with single rollouts at its best lr (chosen on the even seeds,
    ``budget_to_target``), else the headline cell."""
    budgets = inputs.tables["budget_to_target"]
    best = budgets[(budgets["lr_role"] == LrRole.BEST) & (budgets["baseline"] == "running_mean")
                   & (budgets["group_size"] == 1)]
    return int(best["cell"].iat[0]) if len(best) else int(inputs.settings["headline_cell"])


def partners(inputs: Inputs, names: list[str]) -> list[int]:
    """The cells of the reference learners ``names`` beside the headline cell (same bandit and
    cost), those the grid has."""
    headline = int(inputs.settings["headline_cell"])
    return [c for c in (reference_partner(inputs.cells, headline, a) for a in names)
            if c is not None]


def versus(inputs: Inputs, name: str, cell: int, references: list[int],
           seeds: np.ndarray | None) -> pd.DataFrame:
    """``cell`` against each of ``references`` on ``seeds`` (all if None), the family ``name``
    of the study, with the reference's learner beside its cell (``algorithm_b``)."""
    found = paired_family(inputs.outcomes, [(cell, b) for b in references], inputs.cells,
                          family_name(inputs.study, name), inputs.analysis.equivalence_margin,
                          seeds)
    found.insert(2, "algorithm_b", found["cell_b"].map(inputs.cells.set_index("cell")["algorithm"]))
    return found


def table(inputs: Inputs) -> pd.DataFrame:
    """The headline cell's paired rows against each learner that plans from the budget."""
    if not asked(inputs):
        return pd.DataFrame()
    return versus(inputs, TABLE, int(inputs.settings["headline_cell"]),
                  partners(inputs, reference_learners(inputs.cells, nested=False)), None)
