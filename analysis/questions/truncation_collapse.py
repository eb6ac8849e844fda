"""How often truncated sampling collapses: for an off-policy study whose sampler keeps only the
top-p arms somewhere, per cell and compared budget, the share of runs whose policy has collapsed
(0.99 or more of its mass on arms that are not best, or a state that is not finite,
``analysis.offpolicy.COLLAPSED``) with its
exact (Clopper-Pearson) 95% interval, and the accuracy with its Wilson interval: the shares the
truncation table's McNemar tests compare, for the figure of collapse against top_p."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from analysis.cost import CONFIDENCE
from analysis.offpolicy import DESCRIBED, collapsed, readouts
from analysis.questions import Inputs

TABLE = "truncation_collapse"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell and compared budget; empty for a study that never truncates."""
    outcomes = inputs.outcomes
    if outcomes is None or "top_p" not in outcomes.cells or not (
            outcomes.cells["top_p"] < 1.0).any():
        return pd.DataFrame()
    budgets = [b for b in inputs.analysis.compared_budgets if b in set(outcomes.budgets)] or [
        int(outcomes.budgets[-1])]
    mass = readouts(inputs, ["p_best"])["p_best"]
    described = inputs.cells.set_index("cell")
    rows = []
    for cell in outcomes.cells["cell"]:
        row = outcomes.row(int(cell))
        fallen = collapsed(outcomes, mass, int(cell))
        for budget in budgets:
            c = int(np.flatnonzero(outcomes.budgets == budget)[0])
            count = int(fallen[:, c].sum())
            right = int(outcomes.correct[row][:, c].sum())
            seeds = mass.shape[1]
            share = binomtest(count, seeds).proportion_ci(CONFIDENCE, method="exact")
            accuracy = binomtest(right, seeds).proportion_ci(CONFIDENCE, method="wilson")
            rows.append({"cell": int(cell), **described.loc[int(cell), DESCRIBED].to_dict(),
                         "budget": int(budget), "seeds": seeds, "collapsed": count / seeds,
                         "collapsed_low": share.low, "collapsed_high": share.high,
                         "accuracy": right / seeds, "accuracy_low": accuracy.low,
                         "accuracy_high": accuracy.high})
    return pd.DataFrame(rows)
