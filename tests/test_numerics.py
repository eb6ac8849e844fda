"""Logits stay finite where the model says they must, a non-finite state is reported, and one
lane's softmax weights are the reference's on any logits, infinite and NaN ones included."""

from __future__ import annotations

import dataclasses
import functools
import json
import math

import numba as nb
import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import make_config
from reference.reinforce import softmax_weights
from study.core.softmax import SKIP_TOP_ARMS, softmax_lane
from study.core.state import PARAMS, STRIDE, WEIGHTS, arm_row, rows
from study.core.streams import run_keys
from study.model.environment import Environment
from study.model.grid import Simulation
from study.orchestration.outputs import run_and_write
from study.orchestration.simulate import simulate


def test_logits_stay_finite_for_lr_1e3_over_a_million_episodes() -> None:
    # Each update moves a logit by at most lr * |advantage| <= lr, so after 1e6 episodes
    # |logit| <= 1e9; the stable softmax (max subtracted) never overflows on that.
    for baseline in ("none", "running_mean", "per_arm"):
        out = simulate(Simulation("reinforce", Environment.fixed((0.5, 0.55, 0.6)), 1e3, baseline),
                       run_keys(9, np.arange(4)), (10, 1000, 1_000_000), scores=True)
        assert out.finite.all()
        assert np.isfinite(out.scores).all()
        assert np.abs(out.scores).max() <= 1e3 * 1_000_000
        np.testing.assert_allclose(out.scores.sum(axis=2), 0.0, atol=1e-3 * 1e3)


def test_a_non_finite_state_is_recorded_and_reported(tmp_path, capsys) -> None:
    # Validated configs cannot reach a non-finite state (updates are bounded by lr and the policy
    # saturates), so the config is built past validation with lr = inf, which breaks the first
    # update: the run must then be flagged, scored wrong, and reported, never silently counted.
    config = dataclasses.replace(make_config({"seeds": 5}, budgets=[1, 50]), lr=(math.inf,))
    run_and_write(config, tmp_path, quiet=True)
    assert "non-finite" in capsys.readouterr().err
    runs = pd.read_parquet(tmp_path / "runs.parquet")
    late = runs[runs["budget"] == 50]
    assert not late["finite"].any()
    assert (late["greedy_arm"] == -1).all() and not late["correct"].any()
    assert late["p_best"].isna().all()
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["non_finite_rows"] >= len(late)


@functools.cache
def lane_weights(n_arms: int):  # type: ignore[no-untyped-def]
    """``softmax_lane`` of every column of logits (K, lanes), K a constant as in the drivers:
    the weights (K, lanes) and their sums (lanes,). (A constant of the closure, not a literal
    argument: numba types a call with a literal argument again at every call.)"""

    @nb.njit(error_model="numpy")
    def weights_of(logits):  # type: ignore[no-untyped-def]  # pragma: no cover
        lanes = logits.shape[1]
        a = np.zeros(rows(n_arms) * STRIDE)
        for k in range(n_arms):
            for j in range(lanes):
                a[arm_row(PARAMS, k) + j] = logits[k, j]
        norms = np.empty(lanes)
        for j in range(lanes):
            norms[j] = softmax_lane(n_arms, a, PARAMS, WEIGHTS, j)
        weights = np.empty((n_arms, lanes))
        for k in range(n_arms):
            for j in range(lanes):
                weights[k, j] = a[arm_row(WEIGHTS, k) + j]
        return weights, norms

    return weights_of


SPECIAL = st.sampled_from([0.0, -0.0, 1.0, -1.0, 700.0, -800.0, math.inf, -math.inf, math.nan])
"""Logits that test the largest one's weight: ties (at zero of either sign, as every run
starts), differences past exp's underflow, infinities of either sign and NaN."""


@settings(max_examples=60, deadline=None)
@given(arms=st.integers(1, SKIP_TOP_ARMS + 1), data=st.data())
def test_one_lanes_softmax_weights_are_the_references_bit_for_bit(arms: int, data) -> None:
    # Up to SKIP_TOP_ARMS the largest logit's weight is not computed but set (1, or 0 where the
    # largest logit is not finite); one K past it computes every weight. Either must give the
    # reference's bits, where the reference computes exp(l - max l) for every arm.
    lanes = 16
    logits = np.array(data.draw(st.lists(
        st.lists(SPECIAL | st.floats(-50.0, 50.0) | st.floats(allow_nan=True),
                 min_size=lanes, max_size=lanes), min_size=arms, max_size=arms)))
    weights, norms = lane_weights(arms)(logits)
    for j in range(lanes):
        expected, norm = softmax_weights(logits[:, j].tolist())
        assert weights[:, j].tobytes() == np.array(expected).tobytes(), logits[:, j]
        assert norms[j:j + 1].tobytes() == np.array([norm]).tobytes(), logits[:, j]
