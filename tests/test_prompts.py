"""Many prompts sharing one rollout budget (``study.core.prompts``): the kernel against its
reference, against theory at lr 0, and against the single-prompt group learner."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from conftest import config_text, make_config, run_cli
from reference import prompts as reference
from study.core.prompt_rules import BANDS, ESTIMATORS, FIELDS, MAX_PROMPTS, NORMALIZATIONS
from study.core.prompts import difficulty_bands
from study.core.state import UNROLLED_ARMS
from study.core.streams import run_keys
from study.model import registry
from study.model.config import StudyConfig
from study.model.environment import Environment
from study.model.grid import SAME_UNDER_EITHER, Simulation, cells
from study.model.schema import RUNS_FILE
from study.orchestration.runner import run_study
from study.orchestration.simulate import simulate, simulate_values
from study.orchestration.storage import read_runs

ALPHA = 1e-6
"""Each exact test below fails a correct kernel with probability at most 1e-6."""


def run_kernel(keys: np.ndarray, values: np.ndarray, lr: float, estimator: str, group: int,
               rule: str, budgets: list[int],
               normalization: str = "per_group") -> dict[str, np.ndarray]:
    """The kernel's outputs, by field, (runs, checkpoints, bands)."""
    result = simulate_values(values, keys, lr, estimator, group, rule, tuple(budgets),
                             normalization)
    return {name: getattr(result, name) for name in FIELDS}


@st.composite
def cases(draw: st.DrawFn, most_runs: int = 2, arms: tuple[int, ...] = (3,)) -> tuple:
    n_prompts = draw(st.integers(1, 9))
    n_arms = draw(st.sampled_from(arms))
    # A few repeated values, so that prompts and arms tie (best arms, bands, greedy ties).
    value = st.one_of(st.sampled_from([0.0, 0.2, 0.5, 1.0]), st.floats(0.0, 1.0))
    # Each run (seed) its own values, so that a run read with another's values or key fails.
    n_runs = draw(st.integers(1, most_runs))
    values = draw(st.lists(st.lists(st.lists(value, min_size=n_arms, max_size=n_arms),
                                    min_size=n_prompts, max_size=n_prompts),
                           min_size=n_runs, max_size=n_runs))
    group = draw(st.integers(2, 6))
    # Budgets anywhere, not only at the ends of passes (P G rollouts for most rules).
    budgets = sorted(draw(st.sets(st.integers(0, 40 * n_prompts), min_size=1, max_size=4)))
    return (np.array(values), draw(st.sampled_from([0.0, 0.2, 1.0, 8.0])),
            draw(st.sampled_from(ESTIMATORS)), group,
            draw(st.sampled_from(registry.allocation_names())), budgets,
            draw(st.integers(0, 2**32)),
            draw(st.sampled_from(NORMALIZATIONS)))


@settings(max_examples=60)
@given(cases())
def test_kernel_agrees_with_reference(case: tuple) -> None:
    assert_agrees(*case)


# The kernel is compiled once per K up to UNROLLED_ARMS, its loops over the arms unrolled, and
# once for every larger K, each compilation for tens of seconds: make test-fast compiles K = 3,
# the slow set two and three arms and one past UNROLLED_ARMS.
@pytest.mark.slow
@settings(max_examples=40)
@given(cases(most_runs=6, arms=(2, 3, UNROLLED_ARMS + 1)))
def test_kernel_agrees_with_reference_on_more_seeds(case: tuple) -> None:
    assert_agrees(*case)


def assert_agrees(values: np.ndarray, lr: float, estimator: str, group: int, rule: str,
                  budgets: list[int], root_seed: int, normalization: str) -> None:
    """Every field of every run of the kernel is the reference's on the same run key."""
    keys = run_keys(root_seed, np.arange(len(values)))
    got = run_kernel(keys, values, lr, estimator, group, rule, budgets, normalization)
    for run in range(len(values)):
        expected = reference.run(keys[run], values[run].tolist(), lr, estimator, group, rule,
                                 budgets, normalization)
        for name in FIELDS:
            assert got[name][run].tolist() == expected[name], (run, name)


@pytest.mark.parametrize("rule", SAME_UNDER_EITHER[1:])
@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_uniform_allocation_is_the_same_under_either_normalization(estimator: str,
                                                                   rule: str) -> None:
    # Under uniform allocation, and skipping, every group that runs has the configured size G,
    # so dividing by n_i or by G is the same floating-point operation: every field equal, bit
    # for bit.
    keys = run_keys(3, np.arange(40))
    values = np.random.default_rng(3).beta(2.0, 2.0, size=(40, 16, 3))
    budgets = [16, 100, 333, 1024]
    group_mean, batch = (run_kernel(keys, values, 0.5, estimator, 4, rule, budgets, n)
                         for n in NORMALIZATIONS)
    for name in FIELDS:
        np.testing.assert_array_equal(group_mean[name], batch[name])


def expected_step(values: list[float], logits: list[float], size: int, normalization: str,
                  group: int, lr: float) -> np.ndarray:
    """The exact expected change of the logits over one leave-one-out group of ``size``
    rollouts (the reference's update, every outcome of the group enumerated with its
    probability)."""
    from itertools import product

    from reference import reinforce as policy

    step = np.zeros(len(values))
    divisor = group if normalization == "per_batch" else 0
    outcomes = list(product(range(len(values)), (0.0, 1.0)))
    for drawn in product(outcomes, repeat=size):
        state = policy.State(list(logits), [0] * len(values), [0.0] * len(values))
        weights, norm = policy.prepare(state)
        probability = 1.0
        for arm, reward in drawn:
            p = values[arm]
            probability *= weights[arm] / norm * (p if reward else 1.0 - p)
        policy.learn(0, lr, "leave_one_out", [a for a, _ in drawn], [r for _, r in drawn],
                     state, (weights, norm), divisor)
        step += probability * (np.array(state.logits) - logits)
    return step


def test_per_batch_steps_grow_with_the_rollouts_and_per_group_steps_do_not() -> None:
    # Leave-one-out advantages are unbiased: one rollout's expected term r_j (onehot - pi) minus
    # the others' mean times a zero-mean factor is the policy gradient of the pass rate,
    # g_k = pi_k (v_k - sum_i pi_i v_i), whatever the group's size. So a group of n rollouts
    # moves the logits by lr (n / G) g in expectation under per_batch and by lr g under
    # per_group: twice the rollouts, twice the step, or the same step. Exact enumeration:
    # agreement to rounding.
    values, logits, group, lr = [0.2, 0.5, 0.7], [0.3, -0.1, 0.0], 2, 0.4
    pi = np.exp(logits) / np.exp(logits).sum()
    gradient = pi * (np.array(values) - pi @ values)
    for size in (2, 4):
        np.testing.assert_allclose(expected_step(values, logits, size, "per_batch", group, lr),
                                   lr * size / group * gradient, rtol=0, atol=1e-12)
        np.testing.assert_allclose(expected_step(values, logits, size, "per_group", group, lr),
                                   lr * gradient, rtol=0, atol=1e-12)


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


def _knapsack_value(n: int, p: float) -> float:
    """Knapsack RL's value of a prompt with pass rate p given n rollouts."""
    return (1.0 - p**n - (1.0 - p) ** n) * p * (1.0 - p) ** 2 if n else 0.0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)), min_size=1, max_size=5),
       st.integers(2, 5))
@example(counts=[(0, 0), (0, 0)], group=2)  # ties: pairs before a third rollout
def test_knapsack_allocation_is_the_exact_optimum_where_it_spends_the_budget(
        counts: list[tuple[int, int]], group: int) -> None:
    # Against the knapsack solved exactly by dynamic programming over the prompts and the
    # rollouts spent (Knapsack RL's own solver): the greedy fill spends every rollout, gives no
    # prompt a lone rollout, and falls short of the optimum by at most one first rollout's value
    # (p q w, the largest over the prompts: the greedy is optimal where a prompt's first pair may
    # be split, and differs from that problem's fill only in its last rollout); 1e-12 is
    # rounding on values below 1. The kernel's fill is the reference's, rollout for rollout.
    from reference.allocations.knapsack import sizes as reference_sizes
    from reference.prompts import Prompt
    from study.core.prompts import allocate_greedily

    prompts = [Prompt([0.5, 0.5], None, passed=a, failed=b) for a, b in counts]
    given_ = reference_sizes(prompts, group, (0, 0), 0)
    budget = len(prompts) * group
    rates = [(1.0 + a) / (2.0 + a + b) for a, b in counts]
    best = [0.0] * (budget + 1)  # best[c]: the largest value of the prompts so far in c rollouts
    for p in rates:
        best = [max(best[c - n] + _knapsack_value(n, p) for n in range(c + 1))
                for c in range(budget + 1)]
    found = sum(_knapsack_value(n, p) for n, p in zip(given_, rates, strict=True))
    assert sum(given_) == budget and all(n != 1 for n in given_)
    first = max(p * (1.0 - p) ** 2 * p * (1.0 - p) for p in rates)
    assert best[budget] - first - 1e-12 <= found <= best[budget] + 1e-12
    kernel = np.empty(len(prompts), dtype=np.int64)
    allocate_greedily(np.array(rates), group, kernel, np.empty((2, len(prompts)),
                                                                dtype=np.int64))
    assert kernel.tolist() == given_


def test_knapsack_allocation_runs_as_uniform_allocation_for_its_first_pass() -> None:
    # Every prompt starts at p = 1/2, where every prompt's steps are worth the same: the first
    # pass gives each G (the declaration's uniform_first_pass), so up to P G rollouts the runs
    # are uniform allocation's, draw for draw; past it the knapsack moves rollouts.
    assert registry.allocation("knapsack").uniform_first_pass
    keys = run_keys(8, np.arange(40))
    sim = {"lr": 0.5, "estimator": "leave_one_out", "group": 4}
    rng = np.random.default_rng(3)
    arms = rng.beta(2.0, 2.0, size=(40, 16, 3))
    budgets = (16 * 4, 16 * 4 + 30, 4000)
    uniform = simulate_values(arms, keys, sim["lr"], sim["estimator"], sim["group"], "uniform",
                              budgets)
    knapsack = simulate_values(arms, keys, sim["lr"], sim["estimator"], sim["group"],
                               "knapsack", budgets)
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(knapsack, field)[:, 0],
                                      getattr(uniform, field)[:, 0], field)
    assert not np.array_equal(knapsack.rollouts[:, 2], uniform.rollouts[:, 2])


def test_bands_split_the_prompts_by_their_best_value() -> None:
    values = np.array([[[0.9, 0.1], [0.2, 0.3], [0.5, 0.5], [0.3, 0.2], [0.8, 0.0]]])
    # Best values 0.9, 0.3, 0.5, 0.3, 0.8: ranks 4, 0, 2, 1, 3 (the tie by index).
    assert difficulty_bands(values).tolist() == [[3, 0, 1, 0, 2]]


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


@pytest.mark.parametrize("estimator", ESTIMATORS)
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
    # The pass rate sums pi[k] v[k] in another order (pi first, then times v), so it agrees to
    # rounding, not to the bit.
    np.testing.assert_allclose(many["pass_rate"].sum(axis=2), single.pass_rate, rtol=0,
                               atol=1e-15)
    np.testing.assert_array_equal(many["best_value"].sum(axis=2),
                                  np.repeat(single.values.max(axis=1)[:, None], len(budgets), 1))


BETA = [{"draw": "beta", "arms": 3, "a": 2, "b": 2}]


def prompt_config(**grid: object) -> StudyConfig:
    """A small many-prompts study (``grid`` overrides)."""
    return make_config({"seeds": 300}, **{
        "prompts": [1], "allocation": ["uniform"], "baseline": ["leave_one_out"],
        "group_size": [4], "lr": [0.5], "probs": BETA, "budgets": [3, 40, 401], **grid})


def test_a_normalization_that_cannot_change_the_update_shares_its_simulation() -> None:
    # Uniform allocation and a single bandit's group learner: both normalizations are cells of
    # their own that share one simulation, so their rows are the same but for the cell.
    for config in (prompt_config(prompts=[8], allocation=["uniform", "variance"],
                                 normalization=["per_group", "per_batch"], budgets=[40, 400]),
                   make_config({"seeds": 300}, baseline=["leave_one_out"], group_size=[4],
                               lr=[0.5], probs=BETA, budgets=[40, 400],
                               normalization=["per_group", "per_batch"])):
        grid = cells(config)
        assert [c.normalization for c in grid][:2] == ["per_group", "per_batch"]
        first, second = grid[0].simulation, grid[1].simulation
        assert first == second and first.normalization == "per_group"
        if len(grid) > 2:
            assert grid[3].simulation.normalization == "per_batch"
        runs = run_study(config, progress=False).runs
        rows = [runs[runs["cell"] == c].drop(columns=["cell", "normalization"])
                .reset_index(drop=True) for c in (0, 1)]
        pd.testing.assert_frame_equal(*rows)


def test_one_prompt_under_uniform_allocation_is_the_group_learners_runs_table() -> None:
    # The same seeds, draws and group update: one row per (seed, budget) of the group learner,
    # one per (seed, budget, band) of the many-prompts study, whose prompt is in band 0.
    config = prompt_config()
    many = run_study(config, progress=False).runs
    many = many[many["band"] == 0].reset_index(drop=True)
    single = run_study(make_config({"seeds": 300}, baseline=["leave_one_out"], group_size=[4],
                                   lr=[0.5], probs=BETA, budgets=[3, 40, 401]),
                       progress=False).runs
    np.testing.assert_array_equal(many["correct_prompts"], single["correct"].astype(int))
    np.testing.assert_array_equal(many["zero_signal_groups"], single["zero_signal_updates"])
    np.testing.assert_array_equal(many["rollouts"], single["rollouts"])
    np.testing.assert_array_equal(many["greedy_value_sum"], single["greedy_value"])


@pytest.mark.slow
def test_a_many_prompts_table_does_not_depend_on_threads_or_shards(write_config,
                                                                    tmp_path: Path) -> None:
    grid = {"prompts": [5, 64], "allocation": list(registry.allocation_names()),
            "budgets": [50, 333, 1000]}
    config = prompt_config(**grid)
    whole = run_study(config, progress=False).runs
    pd.testing.assert_frame_equal(run_study(config, chunk=256, progress=False).runs, whole)
    assert len(whole) == 2 * len(registry.allocation_names()) * 300 * 3 * BANDS
    assert (whole.groupby(["cell", "seed", "budget"])["band_prompts"].sum()
            == whole.groupby(["cell", "seed", "budget"])["prompts"].first()).all()
    path = write_config(config_text({"seeds": 300}, **{
        "prompts": [64], "allocation": list(registry.allocation_names()),
        "baseline": ["group_zscore"], "group_size": [3], "probs": [[0.3, 0.5, 0.55]],
        "budgets": [50, 1000]}))
    for threads in ("1", "2"):
        done = run_cli("run", str(path), "--out", str(tmp_path / threads),
                       env={"NUMBA_NUM_THREADS": threads})
        assert done.returncode == 0, done.stderr
    assert ((tmp_path / "1" / RUNS_FILE).read_bytes()
            == (tmp_path / "2" / RUNS_FILE).read_bytes())


@pytest.mark.parametrize(("grid", "message"), [
    ({"prompts": [0]}, f"grid.prompts[0]: 0 is outside [1, {MAX_PROMPTS}]"),
    ({"prompts": [MAX_PROMPTS + 1]},
     f"grid.prompts[0]: {MAX_PROMPTS + 1} is outside [1, {MAX_PROMPTS}]"),
    ({"allocation": ["random"]}, "grid.allocation[0]: 'random' is not one of uniform, "
                                 "knapsack, oracle_variance, skip_zero_signal, variance"),
    ({"baseline": ["running_mean"]}, "grid.baseline[0]: 'running_mean' is not a group "
                                     "estimator"),
    ({"group_size": [1]}, "grid.group_size[0]: 1 is below 2"),
    ({"algorithm": ["uniform"]}, "grid.algorithm: ['uniform'] is not [\"reinforce\"]"),
    ({"prompts": None}, "grid.prompts: None is missing (grid.allocation needs it)"),
    ({"normalization": ["per_token"]}, "grid.normalization[0]: 'per_token' is not one of "
                                       "per_group, per_batch"),
    ({"allocation": ["uniform", "knapsack"], "reward_model": "length_penalty",
      "penalty": [0.1], "lengths": [[1, 3]]},
     "grid.allocation: ['uniform', 'knapsack'] names knapsack, which estimates a prompt's pass "
     "rate from its last group's passes and fails, beside the shaping length_penalty"),
    ({"means": [[0.5, 0.6]], "probs": None},
     "grid.means: 'gaussian' does not judge pass or fail"),
])
def test_a_wrong_many_prompts_config_is_one_line_and_exit_status_2(
        grid: dict[str, object], message: str, write_config) -> None:
    path = write_config(config_text({"seeds": 4}, **{
        "prompts": [4], "allocation": ["uniform"], "baseline": ["group_mean"],
        "group_size": [4], "probs": [[0.5, 0.6]], "budgets": [10], **grid}))
    done = run_cli("run", str(path), "--out", str(path.parent / "out"))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: " + message) and done.stderr.count("\n") == 1
    assert not (path.parent / "out").exists()


def test_per_step_curves_of_a_many_prompts_study_are_refused_with_why(write_config) -> None:
    path = write_config(config_text({"seeds": 4, "curves": True}, **{
        "prompts": [4], "allocation": ["uniform"], "baseline": ["group_mean"],
        "group_size": [4], "probs": [[0.5, 0.6]], "budgets": [10]}))
    done = run_cli("run", str(path), "--out", str(path.parent / "out"))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("error: study.curves: True is per step of one run, and a many-prompts "
                           "run's prompts share its steps (grid.prompts makes it one): its "
                           "readouts are per budget\n")
    assert not (path.parent / "out").exists()


@pytest.mark.slow
def test_summarize_prints_each_cells_mean_accuracy(write_config, tmp_path: Path) -> None:
    path = write_config(config_text({"seeds": 40}, **{
        "prompts": [8], "allocation": ["uniform", "variance"], "baseline": ["group_mean"],
        "group_size": [4], "probs": BETA, "budgets": [32, 320]}))
    assert run_cli("run", str(path), "--out", str(tmp_path / "out")).returncode == 0
    done = run_cli("summarize", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    runs = read_runs(tmp_path / "out")
    totals = runs.groupby(["cell", "budget"])[["correct_prompts", "band_prompts"]].sum()
    # A seed's accuracy is its share of the prompts; every seed has the same P, so the mean
    # over seeds is the pooled share.
    means = totals["correct_prompts"] / totals["band_prompts"]
    for (cell, budget), mean in means.items():
        block = done.stdout.split("\n\n")[cell]
        assert re.search(rf"^\s+{budget}\s+{mean:.3f}\s", block, re.MULTILINE), (cell, budget)
