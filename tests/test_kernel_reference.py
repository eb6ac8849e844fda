"""The numba kernel against the pure-Python reference (reference/), same random stream:
every reward model of the registry with its parameters, fixed and drawn arm values, every learner
of the registry and every baseline, groups of 1 to 9 rollouts per update (budgets that are not
multiples of the group), and the per-step curves; in the slow set, runs that span two and three
blocks of ``LANES`` seeds run in lockstep (130 to 300 seeds), K drawn from 2 to 30 (each K up to
``UNROLLED_ARMS`` is a compilation of its own) and from 101 to 300, REINFORCE with groups of 10 to
64 and budgets up to 4,000."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from reference import fixed_budget_run, instance
from reference import run as reference_run
from study.core import fixed_budget
from study.core.kernel import CURVE_SCALE
from study.core.state import LANES, UNROLLED_ARMS
from study.core.streams import run_keys
from study.model import registry
from study.model.environment import DRAW_VALUES, Environment
from study.model.grid import Simulation
from study.orchestration.simulate import simulate
from study.rewards import RewardModel

probabilities = st.floats(0.0, 1.0, allow_nan=False)
means = st.floats(-50.0, 50.0, allow_nan=False)


@st.composite
def reward_parameters(draw: st.DrawFn, model: RewardModel) -> tuple[float, ...]:
    """Values of the model's parameters in their ranges, the ends and the default often, that
    the model accepts."""
    chosen = tuple(draw(st.sampled_from([p.low, p.default, p.high])
                        | st.floats(p.low, p.high, allow_nan=False)) for p in model.parameters)
    assume(model.constraint is None or model.constraint(chosen) is None)
    return chosen


@st.composite
def environments(draw: st.DrawFn, arms: st.SearchStrategy[int]) -> Environment:
    kind = draw(st.sampled_from(["probs", "means", "uniform", "beta", "normal"]))
    # A length-constraint model needs answers with lengths: tests/test_tokens.py draws those.
    model = draw(st.sampled_from([m for m in registry.reward_models()
                                  if m.values == DRAW_VALUES.get(kind, kind) and not m.lengths]))
    # A driver is compiled per reward model and K, for seconds: every model but the registry's
    # first (Bernoulli) runs on one small K and the scalar path only (K = 2 and 3 are the same
    # code with another constant; the reward is computed from the pulled arm's value either way).
    k = draw(arms if model == registry.reward_models()[0] else arms.filter(lambda n: n != 2))
    parameters = draw(reward_parameters(model))
    if kind == "probs":
        # Repeated probabilities on purpose: they exercise ties between best arms.
        env = Environment.fixed(draw(st.lists(st.sampled_from([0.0, 0.3, 0.5, 1.0])
                                              | probabilities, min_size=k, max_size=k)))
    elif kind == "means":
        env = Environment.fixed(draw(st.lists(st.sampled_from([0.0, 1.0]) | means,
                                              min_size=k, max_size=k)), "gaussian")
    elif kind == "uniform":
        low = draw(probabilities)
        env = Environment.drawn("uniform", k, (low, draw(st.floats(low, 1.0))))
    elif kind == "beta":
        env = Environment.drawn("beta", k, (draw(st.floats(0.1, 10.0)),
                                            draw(st.floats(0.1, 10.0))))
    else:
        env = Environment.drawn("normal", k, (draw(st.floats(-5.0, 5.0)),
                                              draw(st.floats(0.0, 3.0))))
    return env.with_reward(model.name, parameters)


SMALL = st.sampled_from([2, 3, UNROLLED_ARMS + 1])
"""Numbers of arms: the drivers are compiled once per small K (``UNROLLED_ARMS``), and once for
every larger K together, and each compilation takes seconds, so the cases share three values:
two and three arms (the same code with another constant) and one past the small ones."""


GROUPS = st.integers(1, 9)
"""Rollouts per update of a learner that trains (2 and more for a group estimator)."""
LEARNERS = st.sampled_from(registry.names())


@st.composite
def simulations(draw: st.DrawFn, arms: st.SearchStrategy[int] = SMALL, most: int = 300,
                groups: st.SearchStrategy[int] = GROUPS,
                learners: st.SearchStrategy[str] = LEARNERS,
                ) -> tuple[Simulation, tuple[int, ...]]:
    env = draw(environments(arms))
    learner = registry.learner(draw(learners))
    lr, baseline, group = 0.0, "none", 1
    if learner.trains:
        lr = draw(st.sampled_from([0.0, 0.1, 1.0]) | st.floats(0.0, 20.0))
        baseline = draw(st.sampled_from(learner.baselines))
        group = draw(groups.filter(lambda g: g >= 2 or baseline not in learner.group_baselines))
    algorithm = learner.name
    budgets = tuple(sorted(draw(st.sets(st.integers(1, most), min_size=1, max_size=4))))
    return Simulation(algorithm, env, lr, baseline, group), budgets


def reference_values(env: Environment, key: np.ndarray) -> list[float]:
    if env.values is not None:
        return list(env.values)
    return instance(key, env.draw, env.params, env.arms)


def assert_agrees(sim: Simulation, budgets: tuple[int, ...], root_seed: int, seeds: int) -> None:
    keys = run_keys(root_seed, np.arange(seeds))
    out = simulate(sim, keys, budgets, curves=True, scores=True)
    env = sim.environment
    rollouts = budgets[-1] // sim.group_size * sim.group_size
    optimal = np.zeros(rollouts, dtype=np.int64)
    gained = np.zeros(rollouts, dtype=np.int64)
    for i in range(seeds):
        values = reference_values(env, keys[i])
        assert out.values[i].tolist() == values
        if sim.learner.nested:
            expected, steps, _ = reference_run(keys[i], values, env.reward, sim.algorithm,
                                               sim.lr, sim.baseline, list(budgets),
                                               sim.group_size, env.reward_parameters)
            optimal += np.array([s.optimal for s in steps], dtype=np.int64)
            gained += np.array([round(s.reward * CURVE_SCALE) for s in steps], dtype=np.int64)
        else:
            expected = [fixed_budget_run(keys[i], values, env.reward, sim.algorithm, b,
                                         env.reward_parameters) for b in budgets]
        for c, point in enumerate(expected):
            assert out.greedy[i, c] == point.greedy
            assert out.finite[i, c] == point.finite
            assert out.reward_sum[i, c] == point.reward_sum
            assert out.pulls[i, c].tolist() == point.pulls
            assert out.zero_signal[i, c] == point.zero_signal
            # The kernel and the reference do the same IEEE operations in the same order, so
            # today they agree to the bit; 1e-12 is the contract, leaving room for a faster exp.
            np.testing.assert_allclose(out.scores[i, c], point.scores, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(out.p_best[i, c], point.p_best, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(out.pass_rate[i, c], point.pass_rate, rtol=1e-12,
                                       atol=1e-12)
    if sim.learner.nested:
        np.testing.assert_array_equal(out.curve_optimal, optimal)
        np.testing.assert_array_equal(out.curve_reward, gained)
    else:
        assert len(out.curve_optimal) == 0


# make test-fast compiles each learner's drivers for three arms alone; two arms and those past
# UNROLLED_ARMS (each another compilation of every driver) are the slow set's.
@settings(max_examples=150)
@given(case=simulations(arms=st.just(3)), root_seed=st.integers(0, 2**64),
       seeds=st.integers(1, 3))
def test_kernel_agrees_with_reference(case: tuple[Simulation, tuple[int, ...]], root_seed: int,
                                      seeds: int) -> None:
    assert_agrees(*case, root_seed, seeds)


@pytest.mark.slow
@settings(max_examples=6)
@given(case=simulations(most=40), root_seed=st.integers(0, 2**64),
       seeds=st.integers(LANES + 2, 2 * LANES + 44))
@example(case=(Simulation("reinforce", Environment.fixed([0.5, 0.55, 0.6]), 0.1, "running_mean"),
               (10, 40)), root_seed=1, seeds=2 * LANES + 44)
def test_kernel_agrees_with_reference_across_lane_blocks(
        case: tuple[Simulation, tuple[int, ...]], root_seed: int, seeds: int) -> None:
    # Two or three blocks of LANES seeds, the last one partly filled, spread over the threads.
    assert_agrees(*case, root_seed, seeds)


@pytest.mark.slow
@settings(max_examples=25)
@given(case=simulations(arms=SMALL | st.integers(2, 30), most=60),
       root_seed=st.integers(0, 2**64),
       seeds=st.integers(1, 3))
def test_kernel_agrees_with_reference_for_every_small_number_of_arms(
        case: tuple[Simulation, tuple[int, ...]], root_seed: int, seeds: int) -> None:
    # Each K up to UNROLLED_ARMS is compiled on its own (its arm loops unrolled, its lane loops
    # vectorized in full or in part); K past it all take the one scalar compilation.
    assert_agrees(*case, root_seed, seeds)


@pytest.mark.slow
@settings(max_examples=3)
@given(case=simulations(arms=st.integers(101, 300), most=40), root_seed=st.integers(0, 2**64))
def test_kernel_agrees_with_reference_with_more_than_a_hundred_arms(
        case: tuple[Simulation, tuple[int, ...]], root_seed: int) -> None:
    assert_agrees(*case, root_seed, 2)


@pytest.mark.slow
@settings(max_examples=8)
@given(case=simulations(most=4000, groups=st.integers(10, 64),
                        learners=st.just("reinforce")), root_seed=st.integers(0, 2**64))
def test_kernel_agrees_with_reference_with_large_groups_and_budgets(
        case: tuple[Simulation, tuple[int, ...]], root_seed: int) -> None:
    assert_agrees(*case, root_seed, 2)


@pytest.mark.parametrize("learner", ["successive_rejects", "sequential_halving"])
@pytest.mark.parametrize("env", [Environment.fixed([0.5, 0.55, 0.6]),
                                 Environment.fixed([0.2, 0.5, 0.4, 0.6], "gaussian"),
                                 Environment.fixed([0.5, 0.6], "noisy_verifier", (0.1, 0.2))],
                         ids=["bernoulli", "gaussian", "noisy_verifier"])
def test_learners_that_plan_from_the_budget_agree_with_the_reference_across_draw_windows(
        learner: str, env: Environment) -> None:
    # A run's draws are made WINDOW pulls at a time (study.core.fixed_budget): budgets just
    # short of, at and past a window's end, and over several windows, for a reward model with
    # and without draws of its own.
    window = fixed_budget.WINDOW
    budgets = (window - 1, window, window + 1, 3 * window + 7)
    assert_agrees(Simulation(learner, env, 0.0, "none"), budgets, 7, 2)
