"""The nested many-prompts driver (``study.core.passes``): many prompts sharing one budget whose
groups come from a stale, mismatched or truncated sampler with its corrections and KL term, and
whose answers are judged by a verdict, shaped by their length and metered in tokens. Held to its
reference (``reference.prompts.run_passes``) over the product of the parts, and at neutral
settings to the many-prompts kernel of uniform allocation, bit for bit."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import make_config
from reference.prompts import FIELDS, PASS_FIELDS, run_passes
from study.core import prompt_rules
from study.core.streams import run_keys
from study.model import registry
from study.model.config import StudyConfig
from study.model.environment import LENGTH_LAWS, Environment
from study.model.grid import cells
from study.model.offpolicy import ESTIMATORS, OffPolicy
from study.orchestration.runner import run_study
from study.orchestration.simulate import (
    simulate_dataset,
    simulate_passes_values,
    simulate_values,
)

CORRECTIONS = [*(c.name for c in registry.corrections()), "tis+keep_mask", "tis+opsm+keep_mask"]


@pytest.mark.parametrize("rule", registry.allocation_names())
@pytest.mark.parametrize(("estimator", "normalization"), [
    ("group_mean", "per_group"), ("leave_one_out", "per_batch"), ("group_zscore", "per_group"),
    ("group_zscore", "per_batch")])
def test_at_neutral_settings_it_is_the_many_prompts_kernel(rule: str, estimator: str,
                                                            normalization: str) -> None:
    # 300 prompts: three blocks of lanes, the last partial; budgets before the first pass ends,
    # inside passes and at a pass's end (1,200 = one pass of 300 x 4); every allocation rule,
    # whose groups differ in size from prompt to prompt.
    keys = run_keys(9, np.arange(12))
    values = np.random.default_rng(1).beta(2.0, 2.0, size=(12, 300, 3))
    budgets = (1, 7, 500, 1200, 1201, 4000, 20000)
    many = simulate_values(values, keys, 0.7, estimator, 4, rule, budgets, normalization)
    passes = simulate_passes_values(values, keys, Environment.drawn("beta", 3, (2, 2)), 0.7,
                                    estimator, 4, budgets, rule=rule,
                                    normalization=normalization)
    assert passes.fields == prompt_rules.FIELDS
    for name in prompt_rules.FIELDS:
        np.testing.assert_array_equal(getattr(passes, name), getattr(many, name), err_msg=name)


@st.composite
def passes_case(draw: st.DrawFn) -> tuple:
    """Prompts of three arms under an allocation rule and a normalization, a sampler and
    correction, a verdict (the check or a noisy
    verifier) unshaped, or a noisy verifier's (its rates possibly 0) under the overlong
    punishment with lengths fixed or geometric, and budgets in rollouts or tokens (three
    compilations of the driver with the neutral test's: each verdict and shaping is one; the
    meter's code is the same whatever the pair)."""
    prompts = draw(st.sampled_from([1, 3, 9, 130]))
    values = np.asarray(draw(st.lists(st.lists(st.sampled_from([0.0, 0.2, 0.5, 0.6, 0.9, 1.0]),
                                               min_size=3, max_size=3),
                                      min_size=prompts, max_size=prompts)))
    noisy = draw(st.booleans())
    rates = draw(st.sampled_from([(0.0, 0.0), (0.1, 0.2)]))
    env = Environment.fixed((0.5, 0.5, 0.5), *(("noisy_verifier", rates) if noisy else ()))
    answers = draw(st.sampled_from(["none", "shaped"]))
    if answers == "shaped":
        longest = draw(st.integers(2, 12))
        env = Environment.fixed((0.5, 0.5, 0.5), "overlong", (
            float(longest), float(draw(st.integers(1, longest - 1))),
            draw(st.sampled_from([0.0, 0.3, 1.0])))).with_verdict("noisy_verifier", rates)
        env = env.with_lengths(tuple(draw(st.integers(1, 9)) for _ in range(3)),
                               draw(st.sampled_from(LENGTH_LAWS)))
    tokens = answers != "none" and draw(st.booleans())
    sampler = OffPolicy(
        lag=draw(st.integers(0, 3)), mismatch=draw(st.sampled_from([0.0, 0.3, 2.0])),
        top_p=draw(st.sampled_from([1.0, 0.8, 0.5])),
        correction=draw(st.sampled_from(CORRECTIONS)),
        kl_beta=draw(st.sampled_from([0.0, 0.1])),
        kl_estimator=draw(st.sampled_from(ESTIMATORS)),
        parameters=(("tis_cap", draw(st.sampled_from([1.5, 2.0]))),
                    ("opsm_threshold", draw(st.sampled_from([0.05, 0.5])))))
    estimator = draw(st.sampled_from(prompt_rules.ESTIMATORS))
    rule = draw(st.sampled_from([name for name in registry.allocation_names()
                                 if answers == "none"
                                 or not registry.allocation(name).reads_passes]))
    normalization = draw(st.sampled_from(prompt_rules.NORMALIZATIONS))
    group = draw(st.integers(2, 5))
    lr = draw(st.sampled_from([0.3, 1.0, 4.0]))
    most = 40 * prompts * group
    budgets = tuple(sorted(draw(st.sets(st.integers(1, most), min_size=1, max_size=3))))
    return values, env, sampler, estimator, rule, normalization, group, lr, budgets, tokens


@settings(max_examples=25, deadline=None)
@given(case=passes_case(), root_seed=st.integers(0, 2**64), seeds=st.integers(1, 2))
def test_kernel_agrees_with_reference(case: tuple, root_seed: int, seeds: int) -> None:
    agrees_with_reference(case, root_seed, seeds)


def test_a_checkpoint_at_each_pass_end_agrees_with_reference() -> None:
    # Every budget a checkpoint, so every pass's end is one: prompts that pass always or never
    # are skipped (their groups carry no signal), and a skipped prompt's served policy at a
    # pass's end is its sampler's a version on, which the mismatch's noise (keyed by the
    # version) shows.
    values = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.2, 0.5, 0.9], [0.6, 0.9, 0.5]])
    sampler = OffPolicy(lag=1, mismatch=2.0, top_p=0.8, correction="tis",
                        parameters=(("tis_cap", 2.0),))
    case = (values, Environment.fixed((0.5, 0.5, 0.5)), sampler, "group_mean",
            "skip_zero_signal", "per_group", 3, 1.0, tuple(range(1, 200)), False)
    agrees_with_reference(case, 5, 2)


def agrees_with_reference(case: tuple, root_seed: int, seeds: int) -> None:
    """The nested driver's runs of ``case`` (``passes_case``'s tuple) on ``seeds`` seeds of
    ``root_seed`` equal the reference's, field by field."""
    values, env, sampler, estimator, rule, normalization, group, lr, budgets, tokens = case
    keys = run_keys(root_seed, np.arange(seeds))
    runs = np.broadcast_to(values, (seeds, *values.shape)).copy()
    out = simulate_passes_values(runs, keys, env, lr, estimator, group, budgets, sampler,
                                 tokens, rule, normalization)
    counted = env.lengths is not None
    assert out.fields == (*prompt_rules.FIELDS, *(("tokens", "expected_length") if counted
                                                  else ()), "served_pass_rate", "stuck")
    for i in range(seeds):
        expected = run_passes(keys[i], values.tolist(), lr, estimator, group, list(budgets),
                              sampler, env.reward, env.reward_parameters, env.verdict,
                              env.verdict_parameters, list(env.lengths) if counted else None,
                              env.length_law, tokens, rule, normalization)
        for name in FIELDS:
            ours = getattr(out, name)[i]
            if name in prompt_rules.FLOAT_FIELDS:
                # Same IEEE operations in the same order (1e-12: the contract of every driver).
                np.testing.assert_allclose(ours, expected[name], rtol=1e-12, atol=1e-12,
                                           err_msg=name)
            else:
                np.testing.assert_array_equal(ours, expected[name], err_msg=name)
        for name in PASS_FIELDS:
            if name == "stuck":
                # A count: equal (its two comparisons are of the same sums in the same order).
                np.testing.assert_array_equal(out.stuck[i], expected[name], err_msg=name)
            elif name in out.fields:
                np.testing.assert_allclose(getattr(out, name)[i], expected[name], rtol=1e-12,
                                           atol=1e-12, err_msg=name)


def composed_config(**grid: object) -> StudyConfig:
    """A many-prompts study whose groups come from a stale sampler with TIS and whose answers,
    judged by a noisy verifier under a length penalty, cost tokens (``grid`` overrides)."""
    return make_config({"seeds": 20}, **{
        "prompts": [9], "probs": [{"draw": "beta", "arms": 3, "a": 2, "b": 2}],
        "baseline": ["leave_one_out"], "group_size": [4], "lr": [0.5], "lag": [0, 2],
        "correction": ["none", "tis"], "reward_model": "length_penalty", "penalty": [0.05],
        "verdict": "noisy_verifier", "false_positive": [0.1], "lengths": [[1, 2, 4]],
        "token_budgets": [50, 400, 3000], "budgets": None, **grid})


def test_a_composed_study_writes_every_parts_columns_whatever_the_shards() -> None:
    config = composed_config()
    whole = run_study(config, progress=False).runs
    assert list(whole.columns[-4:]) == ["tokens", "expected_length_sum", "served_pass_rate_sum",
                                        "stuck_prompts"]
    for column in ("lag", "correction", "verdict", "arm_lengths", "allocation", "penalty",
                   "false_positive", "tis_cap"):
        assert column in whole.columns, column
    # lag 0 with and without TIS: every weight is 1.0, one simulation's rows.
    cells = whole.drop_duplicates("cell").set_index("cell")
    assert len(cells) == 4 and set(cells["lag"]) == {0, 2}
    first, second = (whole[whole["cell"] == c].drop(columns=["cell", "correction", "tis_cap"])
                     .reset_index(drop=True) for c in (0, 1))
    pd.testing.assert_frame_equal(first, second)
    # A group stops the budget short of its tokens: a seed never spends more than a checkpoint
    # counts, and every prompt is in one band.
    per_seed = whole.groupby(["cell", "seed", "budget"])[["tokens", "band_prompts"]].sum()
    assert (per_seed["tokens"] <= per_seed.index.get_level_values("budget")).all()
    assert (per_seed["band_prompts"] == 9).all()
    pd.testing.assert_frame_equal(run_study(config, chunk=7, progress=False).runs, whole)


def test_a_noisy_verifier_alone_runs_the_nested_driver() -> None:
    # A verdict other than the check, with no sampler and no lengths, is not the many-prompts
    # kernel's Bernoulli reward: the study runs the nested driver, whose reference it matches.
    config = make_config({"seeds": 6}, prompts=[9], reward_model="noisy_verifier",
                         false_positive=[0.5], baseline=["group_mean"], group_size=[4],
                         lr=[1.0], probs=[[0.2, 0.5, 0.6]], budgets=[40, 300])
    simulation = cells(config)[0].simulation
    keys = run_keys(config.root_seed, np.arange(6))
    out = simulate_dataset(simulation, keys, config.budgets)
    plain = simulate_dataset(replace(simulation, environment=Environment.fixed(
        (0.2, 0.5, 0.6)).with_prompts(9)), keys, config.budgets)
    assert not np.array_equal(out.pass_rate, plain.pass_rate)
    env = simulation.environment
    for i in range(6):
        expected = run_passes(keys[i], [[0.2, 0.5, 0.6]] * 9, 1.0, "group_mean", 4,
                              list(config.budgets), OffPolicy(), env.reward,
                              env.reward_parameters)
        np.testing.assert_allclose(out.pass_rate[i], expected["pass_rate"], rtol=1e-12,
                                   atol=1e-12)
        np.testing.assert_array_equal(out.best[i], expected["best"])
