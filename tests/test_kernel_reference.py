"""The numba kernel against the pure-Python reference (tests/reference.py), same random stream."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import fixed_budget_run
from reference import run as reference_run
from study.grid import Simulation
from study.model import NESTED
from study.runner import simulate
from study.streams import run_keys

probabilities = st.floats(0.0, 1.0, allow_nan=False)


@st.composite
def simulations(draw: st.DrawFn) -> tuple[Simulation, tuple[int, ...]]:
    arms = draw(st.integers(2, 6))
    # Repeated probabilities on purpose: they exercise ties between best arms.
    probs = tuple(draw(st.lists(st.sampled_from([0.0, 0.3, 0.5, 1.0]) | probabilities,
                                min_size=arms, max_size=arms)))
    algorithm = draw(st.sampled_from(["reinforce", "uniform", "successive_rejects",
                                      "sequential_halving"]))
    lr = 0.0
    if algorithm == "reinforce":
        lr = draw(st.sampled_from([0.0, 0.1, 1.0]) | st.floats(0.0, 20.0))
    baseline = draw(st.sampled_from(["none", "running_mean", "per_arm"]))
    budgets = tuple(sorted(draw(st.sets(st.integers(1, 300), min_size=1, max_size=4))))
    return Simulation(algorithm, probs, lr, baseline), budgets


@settings(max_examples=150)
@given(case=simulations(), root_seed=st.integers(0, 2**64), seeds=st.integers(1, 3))
def test_kernel_agrees_with_reference(case: tuple[Simulation, tuple[int, ...]], root_seed: int,
                                      seeds: int) -> None:
    sim, budgets = case
    keys = run_keys(root_seed, np.arange(seeds))
    out = simulate(sim, keys, budgets)
    for i in range(seeds):
        if NESTED[sim.algorithm]:
            expected = reference_run(keys[i], list(sim.probs), sim.algorithm, sim.lr,
                                     sim.baseline, list(budgets))
        else:
            expected = [fixed_budget_run(keys[i], list(sim.probs), sim.algorithm, b)
                        for b in budgets]
        for c, point in enumerate(expected):
            assert out.greedy[i, c] == point.greedy
            assert out.finite[i, c] == point.finite
            assert out.reward_sum[i, c] == point.reward_sum
            assert out.pulls[i, c].tolist() == point.pulls
            # The kernel and the reference do the same IEEE operations in the same order, so
            # today they agree to the bit; 1e-12 is the contract, leaving room for a faster exp.
            np.testing.assert_allclose(out.scores[i, c], point.scores, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(out.p_best[i, c], point.p_best, rtol=1e-12, atol=1e-12)
