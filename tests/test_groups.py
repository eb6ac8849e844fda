"""Group rollouts (G rollouts per update, the group as baseline) against theory and against
single-rollout REINFORCE."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from conftest import make_config
from study.core.streams import run_keys
from study.model.environment import Environment
from study.model.grid import Simulation
from study.orchestration.runner import run_study
from study.orchestration.simulate import simulate

ALPHA = 1e-6
"""Each exact test below fails a correct kernel with probability at most 1e-6."""
PROBS = (0.5, 0.55, 0.6)


@pytest.mark.parametrize("baseline", ["group_mean", "group_zscore", "leave_one_out"])
@pytest.mark.parametrize("group", [2, 4, 8])
def test_at_lr_zero_the_zero_signal_share_is_its_exact_value(baseline: str, group: int) -> None:
    # With lr = 0 the policy stays uniform, so each rollout passes independently with probability
    # p_bar = mean(p), and a group carries no signal exactly when its rewards are all equal:
    # probability p_bar^G + (1 - p_bar)^G. Updates are independent, so the count over seeds x
    # updates is binomial; the greedy arm is uniform (chance 1/3).
    seeds, updates = 4000, 50
    out = simulate(Simulation("reinforce", Environment.fixed(PROBS), 0.0, baseline, group),
                   run_keys(21, np.arange(seeds)), (group * updates,))
    p_bar = float(np.mean(PROBS))
    share = p_bar**group + (1 - p_bar) ** group
    assert binomtest(int(out.zero_signal.sum()), seeds * updates, share).pvalue > ALPHA
    assert binomtest(int((out.greedy[:, 0] == 2).sum()), seeds, 1 / 3).pvalue > ALPHA


@pytest.mark.parametrize("group", [2, 4, 8])
def test_leave_one_out_is_group_mean_at_a_scaled_lr(group: int) -> None:
    # RLOO's advantages are G / (G - 1) times Dr. GRPO's, so RLOO at lr and Dr. GRPO at
    # lr * G / (G - 1) make the same updates in exact arithmetic; in floating point they differ
    # by rounding (about 1e-16 relative per update), so on common random numbers the policies
    # agree far below 1e-9 after 4000 rollouts, and the greedy arms differ only where two logits
    # are within rounding of a tie: the discordant seeds must be few and balanced (exact
    # McNemar).
    keys = run_keys(11, np.arange(4000))
    budgets = (200, 1000, 4000)
    env = Environment.fixed(PROBS)
    rloo = simulate(Simulation("reinforce", env, 0.5, "leave_one_out", group), keys, budgets)
    dr_grpo = simulate(Simulation("reinforce", env, 0.5 * group / (group - 1), "group_mean",
                                  group), keys, budgets)
    np.testing.assert_allclose(rloo.p_best, dr_grpo.p_best, rtol=0, atol=1e-9)
    for c in range(len(budgets)):
        a, b = rloo.greedy[:, c] == 2, dr_grpo.greedy[:, c] == 2
        only_a, only_b = int((a & ~b).sum()), int((b & ~a).sum())
        assert only_a + only_b <= 0.02 * len(keys)
        if only_a + only_b:
            assert binomtest(only_a, only_a + only_b, 0.5).pvalue > ALPHA
    np.testing.assert_array_equal(rloo.zero_signal, dr_grpo.zero_signal)


def test_group_size_one_is_single_rollout_reinforce() -> None:
    # The same cells with and without a group_size axis of [1, 4]: the G = 1 rows are the runs
    # of single-rollout REINFORCE, column for column.
    baselines = ["none", "running_mean", "per_arm", "running_mean_inclusive"]
    single = run_study(make_config({"seeds": 40}, baseline=baselines, budgets=[7, 50, 333]),
                       progress=False).runs
    both = run_study(make_config({"seeds": 40}, baseline=baselines, group_size=[1, 4],
                                 budgets=[7, 50, 333]), progress=False).runs
    ones = both[both["group_size"] == 1].drop(columns="cell").reset_index(drop=True)
    pd.testing.assert_frame_equal(ones, single.drop(columns="cell"))


def test_checkpoints_count_whole_updates() -> None:
    runs = run_study(make_config({"seeds": 4}, baseline=["group_zscore"], group_size=[8],
                                 budgets=[5, 8, 50]), progress=False).runs
    assert runs.groupby("budget")["rollouts"].unique().map(list).to_dict() == {
        5: [0], 8: [8], 50: [48]}
    start = runs[runs["budget"] == 5]
    # No update yet: the logits are 0, the greedy arm is a tie broken at random.
    np.testing.assert_allclose(start["p_best"], 1 / 3, rtol=1e-15)
    assert (start["reward_sum"] == 0).all()
    assert (runs["zero_signal_updates"] <= runs["rollouts"] // 8).all()
