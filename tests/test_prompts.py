"""Many prompts sharing one rollout budget (``study.core.prompts``): the kernel against its
reference, against theory at lr 0, and against the single-prompt group learner."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest

from reference import prompts as reference
from study.core import prompts
from study.orchestration.simulate import simulate
from study.spec.environment import Environment
from study.spec.grid import Simulation
from study.spec.streams import kernel_keys, run_keys

ALPHA = 1e-6
"""Each exact test below fails a correct kernel with probability at most 1e-6."""
FLOATS = ("greedy_value", "pass_rate")


def run_kernel(keys: np.ndarray, values: np.ndarray, lr: float, estimator: str, group: int,
               rule: str, budgets: list[int]) -> dict[str, np.ndarray]:
    """The kernel's outputs, by field, (runs, checkpoints, bands)."""
    runs, checkpoints = len(values), len(budgets)
    out = tuple(np.zeros((runs, checkpoints, prompts.BANDS),
                         dtype=np.float64 if name in FLOATS else np.int64)
                for name in prompts.FIELDS)
    prompts.simulate_prompts(kernel_keys(keys), values, values == values.max(axis=2, keepdims=True),
                             prompts.difficulty_bands(values), lr,
                             prompts.ESTIMATORS.index(estimator), group,
                             prompts.RULES.index(rule), np.asarray(budgets, dtype=np.int64), out)
    return dict(zip(prompts.FIELDS, out, strict=True))


@st.composite
def cases(draw: st.DrawFn) -> tuple:
    n_prompts = draw(st.integers(1, 9))
    n_arms = draw(st.integers(2, 4))
    # A few repeated values, so that prompts and arms tie (best arms, bands, greedy ties).
    value = st.one_of(st.sampled_from([0.0, 0.2, 0.5, 1.0]), st.floats(0.0, 1.0))
    values = draw(st.lists(st.lists(value, min_size=n_arms, max_size=n_arms),
                           min_size=n_prompts, max_size=n_prompts))
    group = draw(st.integers(2, 6))
    # Budgets anywhere, not only at the ends of passes (P G rollouts for most rules).
    budgets = sorted(draw(st.sets(st.integers(0, 40 * n_prompts), min_size=1, max_size=4)))
    return (np.array([values]), draw(st.sampled_from([0.0, 0.2, 1.0, 8.0])),
            draw(st.sampled_from(prompts.ESTIMATORS)), group,
            draw(st.sampled_from(prompts.RULES)), budgets, draw(st.integers(0, 2**32)))


@given(cases())
def test_kernel_agrees_with_reference(case: tuple) -> None:
    values, lr, estimator, group, rule, budgets, root_seed = case
    keys = run_keys(root_seed, np.arange(1))
    got = run_kernel(keys, values, lr, estimator, group, rule, budgets)
    expected = reference.run(keys[0], values[0].tolist(), lr, estimator, group, rule, budgets)
    for name in prompts.FIELDS:
        assert got[name][0].tolist() == expected[name], name


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40), st.integers(2, 12))
def test_variance_allocation_keeps_the_pass_total_and_follows_the_quotas(
        weights: list[float], group: int) -> None:
    sizes = reference.allocate(weights, group)
    extra = len(weights) * (group - reference.FLOOR)
    total = sum(weights) or float(len(weights))
    shares = [w / total if sum(weights) else 1.0 / len(weights) for w in weights]
    assert sum(sizes) == len(weights) * group
    for size, share in zip(sizes, shares, strict=True):
        assert size >= reference.FLOOR
        assert abs(size - reference.FLOOR - extra * share) < 1 + 1e-9


def test_bands_split_the_prompts_by_their_best_value() -> None:
    values = np.array([[[0.9, 0.1], [0.2, 0.3], [0.5, 0.5], [0.3, 0.2], [0.8, 0.0]]])
    # Best values 0.9, 0.3, 0.5, 0.3, 0.8: ranks 4, 0, 2, 1, 3 (the tie by index).
    assert prompts.difficulty_bands(values).tolist() == [[3, 0, 1, 0, 2]]


@pytest.mark.parametrize("group", [2, 5])
def test_at_lr_zero_the_zero_signal_share_is_its_exact_value(group: int) -> None:
    # With lr = 0 every policy stays uniform, so prompt i's rollouts pass independently with
    # probability p_i = mean of its values, and a group carries no signal exactly when its
    # rewards are all equal: p_i^G + (1 - p_i)^G. Under uniform allocation each prompt runs
    # floor-many whole groups by the last checkpoint, independent across groups and seeds, so
    # each band's count (one prompt per band here) is binomial: an exact test per band, at
    # ALPHA / 4 each (Bonferroni over the four bands).
    seeds, passes = 2000, 25
    probs = [[0.1, 0.1, 0.1], [0.2, 0.6, 0.4], [0.5, 0.9, 0.7], [0.95, 0.9, 1.0]]
    values = np.tile(np.array(probs), (seeds, 1, 1))
    out = run_kernel(run_keys(5, np.arange(seeds)), values, 0.0, "group_mean", group, "uniform",
                     [4 * group * passes])
    for band, row in enumerate(probs):
        p = float(np.mean(row))
        share = p**group + (1 - p) ** group
        assert out["groups"][:, 0, band].sum() == seeds * passes
        assert binomtest(int(out["zero_signal"][:, 0, band].sum()), seeds * passes,
                         share).pvalue > ALPHA / 4


@pytest.mark.parametrize("estimator", prompts.ESTIMATORS)
@pytest.mark.parametrize("group", [2, 3, 8])
def test_one_prompt_under_uniform_allocation_is_the_group_learner(estimator: str,
                                                                  group: int) -> None:
    # P = 1: one group of G per pass from the single-prompt stream, so every checkpoint equals
    # the group learner's (study.core.kernel), budgets at and between multiples of G.
    keys = run_keys(9, np.arange(300))
    budgets = sorted({1, group, 7, 50, 301, 2000})
    env = Environment.drawn("beta", 3, (2.0, 2.0))
    single = simulate(Simulation("reinforce", env, 0.7, estimator, group), keys, tuple(budgets))
    many = run_kernel(keys, single.values[:, None, :], 0.7, estimator, group, "uniform", budgets)
    right = single.best[np.arange(len(keys))[:, None], np.maximum(single.greedy, 0)]
    np.testing.assert_array_equal(many["best"].sum(axis=2), right & (single.greedy >= 0))
    np.testing.assert_array_equal(many["zero_signal"].sum(axis=2), single.zero_signal)
    np.testing.assert_array_equal(many["rollouts"].sum(axis=2),
                                  np.tile([b // group * group for b in budgets], (len(keys), 1)))
    np.testing.assert_array_equal(many["non_finite"].sum(axis=2), ~single.finite)
    # The greedy arm's value, and the policy's mass on the best arm where it has one best arm.
    rows = np.arange(len(keys))[:, None]
    np.testing.assert_array_equal(many["greedy_value"].sum(axis=2),
                                  single.values[rows, np.maximum(single.greedy, 0)])
    assert math.isfinite(float(many["pass_rate"].sum()))
