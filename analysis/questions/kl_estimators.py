"""How far each KL estimator's gradient is from the exact one: for an off-policy study whose
runs record the estimators' errors (``study.model.offpolicy``: at each checkpoint, for the
state and the next update's sampler, the norm of each estimator's bias against the exact
gradient of KL(pi || the initial policy) and its mean squared error for a group of G), the mean
bias norm and the root mean squared error of k1, k3 and k3_is over runs, by the policy's state:
``early`` (every run at the first checkpoint), ``late`` (the runs that have not collapsed at the
last checkpoint) and ``collapsed`` (those that have: 0.99 or more of the policy's mass on arms
that are not best). For a study whose grid has a KL term, over its cells without one, whose
states are the learner's own. Means
with a 95% Student t interval over runs, cut at 0 (both are nonnegative; none where every run
has the same value or there is one run): a description of each state, not a test, and
approximate where an estimator's error has heavy tails (k3's, near a vertex of the simplex,
where its factor 1 - 1 / (K pi) explodes); the RMS interval is the square root of the mean
squared error's. k3_is's bias is 0 by algebra wherever the sampler covers the policy's support
(top_p 1): what its runs record there is a double's rounding, a constant, printed without an
interval."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import ttest_1samp

from analysis.cost import MeanInterval, Support
from analysis.offpolicy import COLLAPSED, DESCRIBED, readouts
from analysis.pass_rate import interval_columns
from analysis.questions import Inputs
from analysis.roles import PolicyState, typed

TABLE = "kl_estimators"
TEST = ""
ESTIMATORS = ("k1", "k3", "k3_is")
"""The estimators whose errors the runs record."""
UNBOUNDED = Support((0.0, math.inf), discrete=False)
"""What a bias norm or a squared error can be."""


def _t_mean(values: np.ndarray, support: Support, confidence: float) -> MeanInterval:
    """The mean of nonnegative per-run values with its Student t interval, cut at 0 (NaN limits
    for one run); ``support`` is unused (a t interval needs none)."""
    mean = float(np.mean(values))
    if len(values) < 2:
        return MeanInterval(mean, math.nan, math.nan, "t")
    low, high = ttest_1samp(values, 0.0).confidence_interval(confidence)
    return MeanInterval(mean, max(float(low), 0.0), float(high), "t")


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell without a KL term, state and estimator; empty for a study whose grid
    has no KL term (the question is its)."""
    outcomes = inputs.outcomes
    if outcomes is None or "kl_beta" not in outcomes.cells or not (
            outcomes.cells["kl_beta"] > 0.0).any():
        return pd.DataFrame()
    found = readouts(inputs, ["p_best", *(f"{e}_{kind}" for e in ESTIMATORS
                                          for kind in ("bias", "mse"))])
    described = inputs.cells.set_index("cell")
    rows = []
    for cell in outcomes.cells.loc[outcomes.cells["kl_beta"] == 0.0, "cell"]:
        row = outcomes.row(int(cell))
        # A state that is not finite has no error to read: its runs are in no state there.
        finite = outcomes.finite[row]
        collapsed = found["p_best"][row][:, -1] <= COLLAPSED
        states = {PolicyState.EARLY: (0, finite[:, 0]),
                  PolicyState.LATE: (-1, finite[:, -1] & ~collapsed),
                  PolicyState.COLLAPSED: (-1, finite[:, -1] & collapsed)}
        for state, (checkpoint, runs) in states.items():
            if not runs.any():
                continue
            for estimator in ESTIMATORS:
                bias = found[f"{estimator}_bias"][row][runs, checkpoint]
                mse = found[f"{estimator}_mse"][row][runs, checkpoint]
                squared = interval_columns("mse", mse, UNBOUNDED, interval=_t_mean)
                biased = interval_columns("bias", bias, UNBOUNDED, interval=_t_mean)
                if estimator == "k3_is" and described.loc[int(cell), "top_p"] >= 1.0:
                    biased |= {"bias_low": math.nan, "bias_high": math.nan,
                               "bias_interval": "constant"}
                rows.append({"cell": int(cell), **described.loc[int(cell), DESCRIBED].to_dict(),
                             "state": state, "budget": int(outcomes.budgets[checkpoint]),
                             "estimator": estimator, "runs": int(runs.sum()),
                             **biased,
                             "rms": math.sqrt(squared["mse"]),
                             "rms_low": math.sqrt(squared["mse_low"]),
                             "rms_high": math.sqrt(squared["mse_high"])})
    frame = pd.DataFrame(rows)
    if len(frame):
        frame["state"] = typed(frame["state"], PolicyState)
    return frame
