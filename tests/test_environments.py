"""Gaussian rewards, arm values drawn per seed and the per-step curves, against what theory fixes
and against an independent implementation of the textbook's experiment.

Tolerances, as in test_statistics: a mean over n independent seeds is allowed Z = 4.5 standard
errors (false-alarm probability below 1e-5 per check, normal tail 6.8e-6), and goodness of fit
uses scipy's tests at ALPHA = 1e-5. Each standard error is derived in the test from n and the
variance of what is averaged. Seeds are fixed, so every test is deterministic.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import beta, chisquare, kstest, norm, uniform
from textbook import gradient_bandit_curves

from conftest import make_config
from study.core.streams import run_keys
from study.model.environment import Environment
from study.model.grid import Simulation
from study.orchestration.runner import run_study
from study.orchestration.simulate import simulate

Z = 4.5
ALPHA = 1e-5


def assert_mean(observed: float, expected: float, variance: float, n: int) -> None:
    """``observed``, a mean of n independent draws of variance ``variance``, is within Z
    standard errors of ``expected``."""
    tolerance = Z * math.sqrt(variance / n)
    assert abs(observed - expected) <= tolerance, (observed, expected, tolerance)


@pytest.mark.parametrize(("env", "law"), [
    (Environment.drawn("normal", 10, (4.0, 1.0)), norm(4.0, 1.0)),
    (Environment.drawn("normal", 3, (-2.0, 0.5)), norm(-2.0, 0.5)),
    (Environment.drawn("beta", 5, (2.0, 5.0)), beta(2.0, 5.0)),
    (Environment.drawn("uniform", 4, (0.2, 0.7)), uniform(0.2, 0.5)),
])
def test_drawn_values_follow_their_distribution(env: Environment, law) -> None:
    # Arms of one seed are independent draws, and seeds have independent streams, so the pooled
    # values are an i.i.d. sample: Kolmogorov-Smirnov against the named law. The best arm of a
    # continuous draw is uniform over the arms: chi-square on its counts.
    values = env.arm_values(run_keys(17, np.arange(4000)))
    assert values.shape == (4000, env.arms)
    assert kstest(values.ravel(), law.cdf).pvalue > ALPHA
    assert chisquare(np.bincount(values.argmax(axis=1), minlength=env.arms)).pvalue > ALPHA


def test_drawn_values_depend_on_the_seed_only() -> None:
    # Common random numbers: the same seed index gives the same instance in every cell.
    env = Environment.drawn("normal", 10, (4.0, 1.0))
    keys = run_keys(5, np.arange(300))
    np.testing.assert_array_equal(env.arm_values(keys)[100:], env.arm_values(keys[100:]))
    assert not np.array_equal(env.arm_values(keys)[0], env.arm_values(keys)[1])


def test_gaussian_noise_is_standard_normal() -> None:
    # Uniform allocation pulls arm 0 first, so the reward of episode 1 is mean[0] + z_0.
    seeds = 20_000
    out = simulate(Simulation("uniform", Environment.fixed((1.5, -0.5), "gaussian"), 0.0, "none"),
                   run_keys(23, np.arange(seeds)), (1, 2))
    assert kstest(out.reward_sum[:, 0] - 1.5, norm.cdf).pvalue > ALPHA
    assert kstest(out.reward_sum[:, 1] - out.reward_sum[:, 0] + 0.5, norm.cdf).pvalue > ALPHA


@pytest.mark.parametrize("pulls", [1, 4, 25])
def test_uniform_allocation_on_two_gaussian_arms_matches_the_normal_law(pulls: int) -> None:
    # With n pulls of each arm the difference of the empirical means is N(gap, 2 / n), so the
    # better arm is recommended with probability Phi(gap sqrt(n / 2)) exactly.
    seeds, gap = 20_000, 0.3
    out = simulate(Simulation("uniform", Environment.fixed((0.0, gap), "gaussian"), 0.0, "none"),
                   run_keys(29, np.arange(seeds)), (2 * pulls,))
    exact = norm.cdf(gap * math.sqrt(pulls / 2))
    assert_mean(float((out.greedy[:, 0] == 1).mean()), exact, exact * (1 - exact), seeds)


def run_testbed(seeds: int, steps: int, lr: list[float], baselines: list[str],
            mean: float = 4.0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The Sutton-Barto testbed (10 arms, means N(mean, 1)) with curves: runs and curves."""
    config = make_config({"seeds": seeds, "curves": True}, algorithm=["reinforce"], probs=None,
                         means=[{"draw": "normal", "mean": mean, "sd": 1.0, "arms": 10}],
                         lr=lr, baseline=baselines, budgets=[steps])
    run = run_study(config, progress=False)
    cells = run.runs.drop_duplicates("cell").set_index("cell")
    curves = run.curves.join(cells[["lr", "baseline"]], on="cell")
    return run.runs, curves


def test_with_step_size_zero_the_optimal_action_rate_is_one_in_ten() -> None:
    # lr = 0 keeps the policy uniform: every step's action is uniform over the 10 arms and
    # independent of the instance and of the other steps, so the optimal-action indicators of all
    # seeds x steps are i.i.d. Bernoulli(1/10), and each step's reward has mean 4 (the mean of
    # N(4, 1) values) and variance 1 (arm value) + 1 (noise) = 2.
    seeds, steps = 2000, 300
    runs, curves = run_testbed(seeds, steps, [0.0, 0.1, 0.4], ["running_mean_inclusive", "none"])
    zero = curves[curves["lr"] == 0.0]
    hits = (zero["optimal_action"] * zero["seeds"]).sum()
    assert_mean(hits / (len(zero) * seeds), 0.1, 0.1 * 0.9, len(zero) * seeds)
    # The average of the per-step means (each of variance 2 / seeds, correlated through the
    # instance) has variance at most 2 / seeds.
    assert_mean(float(zero["mean_reward"].mean()), 4.0, 2.0, seeds)
    # At step 1 every policy is still uniform, whatever its lr.
    first = curves[curves["step"] == 1]
    for row in first.itertuples():
        assert_mean(row.optimal_action, 0.1, 0.1 * 0.9, seeds)
        assert_mean(row.mean_reward, 4.0, 2.0, seeds)
    # An untrained policy's greedy arm is a uniform tie-break: right 1 time in 10 (one cell: the
    # two lr-0 cells share their streams, so their outcomes are the same draws).
    untrained = runs[(runs["lr"] == 0.0) & (runs["baseline"] == "none")]
    assert_mean(float(untrained["correct"].mean()), 0.1, 0.1 * 0.9, len(untrained))
    # Every cell of a seed sees the same drawn instance (common random numbers).
    assert runs.groupby("seed")["best_value"].nunique().eq(1).all()


@pytest.mark.slow
@pytest.mark.parametrize(("lr", "baseline"), [(0.1, "running_mean_inclusive"),
                                              (0.4, "running_mean_inclusive"),
                                              (0.1, "none"), (0.4, "none")])
def test_curves_agree_with_an_independent_textbook_implementation(lr: float,
                                                                  baseline: str) -> None:
    # Two independent samples of n seeds from the same experiment: at a step, the difference of
    # the optimal-action fractions has variance 2 p (1 - p) / n (p pooled), and that of the mean
    # rewards 2 v / n, with v the variance of one seed's reward at that step, estimated from the
    # textbook implementation's 10,000 runs (to about 1.5%). Z = 4.5 on each of 4 x 3 x 2 checks.
    seeds, steps = 10_000, 1000
    _, curves = run_testbed(seeds, steps, [lr], [baseline])
    optimal, reward, variance = gradient_bandit_curves(seeds, steps, lr, baseline != "none", 4.0,
                                                       10, seed=31)
    for step in (10, 100, 1000):
        ours = curves[curves["step"] == step].iloc[0]
        p = (ours["optimal_action"] + optimal[step - 1]) / 2
        assert_mean(ours["optimal_action"] - optimal[step - 1], 0.0, 2 * p * (1 - p), seeds)
        assert_mean(ours["mean_reward"] - reward[step - 1], 0.0, 2 * variance[step - 1], seeds)
