"""A population of environments (``study.model.population``): its draw against its law, its
prompts' values against their environments' laws, the kernels against their reference with the
readouts per environment, the runs table's rows, and bad input."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from analysis.pass_rate import achievable
from analysis.prompts.outcomes import band_rows
from analysis.prompts.questions.factorial_effects import support
from analysis.prompts.study_tables import study_tables
from conftest import config_text, make_config, run_cli
from reference import prompts as reference
from study.core import prompt_rules
from study.core.streams import POPULATION, run_keys
from study.model import population, registry
from study.model.environment import LENGTH_LAWS, Environment
from study.model.offpolicy import OffPolicy
from study.orchestration.runner import run_study
from study.orchestration.simulate import readout_groups, simulate_passes_values, simulate_values

ALPHA = 1e-6
"""Each goodness-of-fit test below fails a correct draw with probability at most 1e-6."""


def population_of(prompts: int, environments: int, a: float = 0.5, b: float = 0.5,
                  concentration: float = 8.0, sigma: float = 1.5, arms: int = 3,
                  root_seed: int = 7, fewest_arms: int | None = None, exact_share: float = 0.0,
                  length_spread: float = 0.0) -> Environment:
    """A population's dataset as a config makes it (its environments of ``fewest_arms`` to
    ``arms`` arms, ``arms`` each by default; a share ``exact_share`` of exact verifiers, their
    lengths spread by ``length_spread``)."""
    law = population.stated((environments, a, b, concentration, sigma, fewest_arms or arms,
                             exact_share, length_spread), arms)
    return Environment.drawn(population.NAME, arms, law).with_prompts(
        prompts).with_population_seed(root_seed)


def ragged(values: np.ndarray, present: np.ndarray) -> list[list[float]]:
    """A run's prompts' values (P, K) as the reference takes them: prompt i's first
    ``present[i]``."""
    return [row[:count].tolist() for row, count in zip(values, present, strict=True)]


def test_the_environments_difficulties_follow_their_beta_law() -> None:
    # 4,000 environments: the Kolmogorov-Smirnov test of their difficulties against beta(a, b)
    # rejects a correct draw with probability ALPHA; it detects a shift of the law's distribution
    # function by about sqrt(-ln(ALPHA / 2) / (2 n)) = 0.043 at n = 4,000.
    drawn = population_of(8000, 4000, a=0.4, b=1.7).population
    assert stats.kstest(drawn.pass_probability, stats.beta(0.4, 1.7).cdf).pvalue > ALPHA


@pytest.mark.parametrize(("prompts", "environments"), [(10, 10), (11, 3), (85_000, 1_827)])
def test_equal_shares_split_the_prompts_as_evenly_as_they_can(prompts: int,
                                                              environments: int) -> None:
    drawn = population_of(prompts, environments, sigma=0.0).population
    assert drawn.holdings.sum() == prompts
    assert drawn.holdings.max() - drawn.holdings.min() <= 1
    assert (np.diff(drawn.holdings) <= 0).all()


def test_lognormal_shares_hold_one_prompt_each_and_the_rest_in_proportion() -> None:
    # Every environment holds a prompt; the other P - E go to environment e with probability
    # w_e / sum w. Given the weights (redrawn here from the same stream), environment e's extra
    # prompts are binomial(P - E, w_e / sum w): an exact two-sided binomial test on the largest
    # environment, which fails a correct draw with probability ALPHA.
    prompts, environments, sigma = 5000, 40, 1.2
    drawn = population_of(prompts, environments, sigma=sigma, root_seed=11).population
    assert drawn.holdings.sum() == prompts and drawn.holdings.min() >= 1
    state = np.random.SeedSequence(11, spawn_key=(POPULATION,)).generate_state(2, np.uint64)
    generator = np.random.Generator(np.random.Philox(key=state))
    generator.beta(0.5, 0.5, environments)
    weights = np.exp(sigma * generator.standard_normal(environments))
    largest = int(np.argmax(weights))
    test = stats.binomtest(int(drawn.holdings[largest] - 1), prompts - environments,
                           weights[largest] / weights.sum())
    assert test.pvalue > ALPHA


def test_a_prompts_values_follow_its_environments_law() -> None:
    # One run's 3 x 6,000 values of the environment that holds the most prompts, against
    # beta(m c, (1 - m) c): Kolmogorov-Smirnov at ALPHA, as above.
    env = population_of(6000, 1, a=2.0, b=3.0, concentration=5.0)
    drawn = env.population
    values = env.prompt_values(run_keys(3, np.arange(1)))[0]
    a, b = (p[0] for p in drawn.prompt_parameters(5.0))
    assert stats.kstest(values.ravel(), stats.beta(a, b).cdf).pvalue > ALPHA


def test_the_population_is_the_studys_and_the_values_are_the_seeds() -> None:
    # Drawn once per root seed: every seed and cell trains on the same environments, and the
    # seeds differ in their prompts' values.
    env = population_of(300, 20)
    assert np.array_equal(env.population.holdings, population_of(300, 20).population.holdings)
    assert not np.array_equal(env.population.pass_probability,
                              population_of(300, 20, root_seed=8).population.pass_probability)
    values = env.prompt_values(run_keys(7, np.arange(2)))
    assert not np.array_equal(values[0], values[1])
    assert np.array_equal(values, env.prompt_values(run_keys(7, np.arange(2))))


def test_the_environments_arms_follow_their_uniform_law() -> None:
    # 5,000 environments of 2 to 6 arms: Pearson's chi-square test of their counts against the
    # uniform law on {2, ..., 6} rejects a correct draw with probability ALPHA; with 1,000
    # expected per count it detects a shift of about 0.04 in one count's share.
    drawn = population_of(20000, 5000, arms=6, fewest_arms=2).population
    counts = np.bincount(drawn.arms, minlength=7)[2:]
    assert counts.sum() == 5000
    assert stats.chisquare(counts).pvalue > ALPHA
    assert (drawn.prompt_arms == np.repeat(drawn.arms, drawn.holdings)).all()


def test_the_arms_are_drawn_last_so_a_population_of_k_arms_each_is_unchanged() -> None:
    # The difficulties and shares are those of the same law with K arms each; so are the
    # prompts' values of arms they keep, and the arms they lose are 0.
    mixed = population_of(500, 40, arms=5, fewest_arms=2)
    even = population_of(500, 40, arms=5)
    assert even.params == (40, 0.5, 0.5, 8.0, 1.5) and len(mixed.params) == 6
    assert (even.population.arms == 5).all() and mixed.population.arms.min() == 2
    for name in ("pass_probability", "holdings", "band"):
        assert np.array_equal(getattr(mixed.population, name), getattr(even.population, name))
    keys = run_keys(3, np.arange(2))
    kept = np.arange(5)[None, :] < mixed.prompt_arms()[:, None]
    assert np.array_equal(mixed.prompt_values(keys)[:, kept], even.prompt_values(keys)[:, kept])
    assert (mixed.prompt_values(keys)[:, ~kept] == 0.0).all()
    assert mixed.chance == pytest.approx(np.mean(1.0 / mixed.prompt_arms()), rel=1e-12)


def test_the_exact_verifiers_and_length_factors_follow_their_laws() -> None:
    # 5,000 environments: an exact two-sided binomial test of the exact verifiers' count
    # against exact_share, and the Kolmogorov-Smirnov test of the log length factors against
    # normal(0, length_spread), each failing a correct draw with probability ALPHA (the KS
    # test detects a shift of about sqrt(-ln(ALPHA / 2) / (2 n)) = 0.038 in the distribution
    # function at n = 5,000).
    drawn = population_of(20000, 5000, exact_share=0.3, length_spread=0.8).population
    assert stats.binomtest(int(drawn.exact.sum()), 5000, 0.3).pvalue > ALPHA
    assert stats.kstest(np.log(drawn.length_factor), stats.norm(0.0, 0.8).cdf).pvalue > ALPHA


def test_the_verifiers_and_lengths_have_streams_of_their_own() -> None:
    # The difficulties, shares and arms are those of the same law without them; the exact
    # verifiers do not depend on the lengths' spread or the arms, the length factors not on
    # the exact share or the arms; a larger exact share makes a superset exact (each
    # environment's one uniform against the share).
    base = population_of(500, 40, arms=5, fewest_arms=2)
    spread = population_of(500, 40, arms=5, fewest_arms=2, exact_share=0.4, length_spread=1.0)
    exact = population_of(500, 40, arms=5, exact_share=0.4)
    lengths = population_of(500, 40, arms=5, length_spread=1.0)
    more = population_of(500, 40, arms=5, exact_share=0.7)
    assert len(base.params) == 6 and len(exact.params) == 7 and len(spread.params) == 8
    for name in ("pass_probability", "holdings", "band", "arms"):
        assert np.array_equal(getattr(spread.population, name), getattr(base.population, name))
    assert np.array_equal(spread.population.exact, exact.population.exact)
    assert np.array_equal(spread.population.length_factor, lengths.population.length_factor)
    assert (more.population.exact >= exact.population.exact).all()
    assert more.population.exact.sum() > exact.population.exact.sum()


def test_a_law_or_a_dataset_of_the_wrong_size_is_refused() -> None:
    with pytest.raises(ValueError, match="5 to 8 parameters, not 4"):
        population.law((10.0, 1.0, 1.0, 20.0), 3)
    env = population_of(40, 5)
    values = population_of(41, 5).prompt_values(run_keys(1, np.arange(1)))
    with pytest.raises(ValueError, match="holds 40 prompts, and the values 41"):
        simulate_passes_values(values, run_keys(1, np.arange(1)), env, 0.5, "group_mean", 4,
                               (100,), OffPolicy(lag=1))


def test_each_prompt_has_its_environments_verifier_and_lengths() -> None:
    # An exact environment's prompts have the noisy verifier's rates at 0 (both have the noise
    # roles); a prompt's lengths are the study's times its environment's factor, whole tokens
    # from 1 for fixed lengths, at least 1 for geometric means.
    # The longest arm's 300,000 tokens take the clip at 1e6 where a factor passes 10 / 3.
    env = population_of(300, 30, exact_share=0.5, length_spread=1.5).with_reward(
        "noisy_verifier", (0.2, 0.1))
    drawn = env.population
    exact = drawn.exact[drawn.environment_of]
    assert 0 < exact.sum() < 300
    verdicts = env.prompt_verdicts()
    assert (verdicts[:, exact] == 0.0).all() and (verdicts[:, ~exact].T == (0.2, 0.1)).all()
    factor = drawn.length_factor[drawn.environment_of]
    arms = (3.0, 1.0, 300_000.0)
    fixed = env.with_lengths(arms).prompt_lengths()
    assert np.array_equal(fixed, np.clip(np.rint(np.outer(arms, factor)), 1.0, 1e6))
    geometric = env.with_lengths(arms, "geometric").prompt_lengths()
    assert np.array_equal(geometric, np.clip(np.outer(arms, factor), 1.0, 1e6))
    assert (fixed[2] == 1e6).any() and (fixed[1] == 1.0).any() and (fixed[1] > 1.0).any()


def test_an_exact_verifier_is_the_noisy_verifiers_rates_at_zero() -> None:
    # Every environment exact: the nested driver's runs are those of the noisy verifier with
    # rates 0 everywhere (the Bernoulli check, bit for bit), whatever the study's rates; under
    # the overlong cut, the pair the other tests here compile.
    exact = population_of(150, 8, exact_share=1.0)
    keys = run_keys(3, np.arange(2))
    values = exact.prompt_values(keys)
    groups = readout_groups(exact, values)
    runs = [simulate_passes_values(values, keys, env.with_reward("overlong", (12.0, 4.0, 1.0))
                                   .with_verdict("noisy_verifier", rates)
                                   .with_lengths((3.0, 1.0, 8.0)), 0.5, "group_mean", 4,
                                   (300, 1200), OffPolicy(lag=1), groups=groups)
            for env, rates in ((exact, (0.2, 0.1)), (population_of(150, 8), (0.0, 0.0)),
                               (population_of(150, 8), (0.2, 0.1)))]
    for name in prompt_rules.FIELDS:
        assert np.array_equal(getattr(runs[0], name), getattr(runs[1], name)), name
    assert not np.array_equal(runs[0].pass_rate, runs[2].pass_rate)


def test_bands_hold_whole_environments_ranked_by_difficulty() -> None:
    drawn = population_of(400, 37).population
    order = np.argsort(drawn.pass_probability, kind="stable")
    assert (np.diff(drawn.band[order]) >= 0).all()
    assert np.bincount(drawn.band).tolist() == np.bincount(
        np.arange(37) * prompt_rules.BANDS // 37).tolist()


@st.composite
def population_case(draw: st.DrawFn) -> tuple:
    # Environments of 2 or 3 arms, or of 3 each: the drivers compiled for K = 3 run prompts
    # of fewer arms than their dataset's K beside prompts of K.
    environments = draw(st.integers(1, 6))
    prompts = draw(st.integers(environments, 14))
    env = population_of(prompts, environments, a=draw(st.sampled_from([0.2, 1.0, 3.0])),
                        b=draw(st.sampled_from([0.2, 1.0, 3.0])),
                        concentration=draw(st.sampled_from([0.5, 8.0, 200.0])),
                        sigma=draw(st.sampled_from([0.0, 1.5])),
                        root_seed=draw(st.integers(0, 2**32)),
                        fewest_arms=draw(st.sampled_from([2, 3])))
    budgets = sorted(draw(st.sets(st.integers(1, 40 * prompts), min_size=1, max_size=3)))
    return env, draw(st.integers(0, 2**32)), draw(st.integers(1, 2)), budgets


@settings(max_examples=30, deadline=None)
@given(population_case(), st.sampled_from(registry.allocation_names()))
def test_the_kernel_agrees_with_the_reference_per_environment(case: tuple, rule: str) -> None:
    env, root_seed, seeds, budgets = case
    keys = run_keys(root_seed, np.arange(seeds))
    values = env.prompt_values(keys)
    groups = readout_groups(env, values)
    assert groups[1] == len(env.population.holdings)
    present = env.prompt_arms()
    out = simulate_values(values, keys, 0.5, "leave_one_out", 4, rule, tuple(budgets),
                          groups=groups, present=present)
    for run in range(seeds):
        expected = reference.run(keys[run], ragged(values[run], present), 0.5, "leave_one_out",
                                 4, rule, budgets, groups=(groups[0][run].tolist(), groups[1]))
        for name in prompt_rules.FIELDS:
            assert getattr(out, name)[run].tolist() == expected[name], (run, name)


@settings(max_examples=15, deadline=None)
@given(population_case(), st.integers(0, 3), st.sampled_from(["none", "tis"]),
       st.sampled_from([(0.0, 1.0, 0.0, "exact"), (0.5, 0.9, 0.1, "k3_is"),
                        (0.0, 1.0, 0.1, "k3"), (0.5, 1.0, 0.1, "exact")]))
def test_the_nested_driver_agrees_with_the_reference_per_environment(
        case: tuple, lag: int, correction: str, serving: tuple) -> None:
    # 130 prompts or more put the lanes in more than one block; a mismatch, top-p and a KL
    # term whose uniform policy is over each prompt's own arms, with prompts of fewer arms.
    env, root_seed, seeds, budgets = case
    env = replace(env, prompts=env.prompts + 130)
    keys = run_keys(root_seed, np.arange(seeds))
    values = env.prompt_values(keys)
    groups = readout_groups(env, values)
    present = env.prompt_arms()
    mismatch, top_p, kl_beta, kl_estimator = serving
    sampler = OffPolicy(lag=lag, correction=correction, mismatch=mismatch, top_p=top_p,
                        kl_beta=kl_beta, kl_estimator=kl_estimator)
    out = simulate_passes_values(values, keys, env, 0.5, "group_mean", 4, tuple(budgets),
                                 sampler, groups=groups, present=present)
    for run in range(seeds):
        expected = reference.run_passes(keys[run], ragged(values[run], present), 0.5,
                                        "group_mean", 4, budgets, sampler,
                                        groups=(groups[0][run].tolist(), groups[1]),
                                        arms=env.arms)
        for name in prompt_rules.FIELDS:
            assert getattr(out, name)[run].tolist() == expected[name], (run, name)
        for name in ("served_pass_rate", "stuck"):
            assert getattr(out, name)[run].tolist() == expected[name], (run, name)


@settings(max_examples=12, deadline=None)
@given(population_case(), st.sampled_from([0.0, 0.5, 1.0]), st.sampled_from([0.0, 1.2]),
       st.sampled_from(LENGTH_LAWS), st.booleans(),
       st.sampled_from([name for name in registry.allocation_names()
                        if not registry.allocation(name).reads_passes]))
def test_the_nested_driver_gives_each_environment_its_verifier_and_lengths(
        case: tuple, exact_share: float, length_spread: float, law: str, tokens: bool,
        rule: str) -> None:
    # A noisy verifier under the overlong punishment (the pair test_passes compiles), each
    # environment's verifier exact or not and its answers' lengths its own, in rollouts or
    # tokens, over two lane blocks: the reference run on each prompt's own verdict and lengths.
    # The budgets, drawn for the case's prompts, scaled to the 130 more.
    env, root_seed, seeds, budgets = case
    scale = -(-(env.prompts + 130) // env.prompts)
    law_parameters = population.law(env.params, env.arms)[:-population.OPTIONAL + 1]
    env = replace(env, prompts=env.prompts + 130, params=population.stated(
        (*law_parameters, exact_share, length_spread), env.arms))
    agrees_per_environment(env, law, tokens, rule, root_seed, seeds,
                           [budget * scale for budget in budgets])


def test_the_nested_driver_gives_mixed_environments_their_verifiers_and_lengths() -> None:
    # Exact and noisy environments side by side in both lane blocks, lengths spread, tokens,
    # a rule of sizes per prompt: a driver that read one lane's or one block's column for
    # every lane would differ from the reference here.
    env = population_of(200, 12, a=1.0, b=1.0, sigma=0.5, fewest_arms=2, exact_share=0.5,
                        length_spread=1.2, root_seed=3)
    drawn = env.population
    first, second = drawn.exact[drawn.environment_of][:128], drawn.exact[drawn.environment_of][128:]
    assert 0 < first.sum() < 128 and 0 < second.sum() < 72
    agrees_per_environment(env, "geometric", True, "skip_zero_signal", 9, 2, [2000, 9000, 30000])


def agrees_per_environment(env: Environment, law: str, tokens: bool, rule: str,
                           root_seed: int, seeds: int, budgets: list[int]) -> None:
    """The nested driver's runs of the population ``env`` with a noisy verifier under the
    overlong punishment and lengths of ``law`` equal the reference's on each prompt's own
    verdict and lengths, field by field."""
    env = env.with_reward("overlong", (12.0, 4.0, 1.0)).with_verdict(
        "noisy_verifier", (0.2, 0.1)).with_lengths((3.0, 1.0, 8.0), law)
    keys = run_keys(root_seed, np.arange(seeds))
    values = env.prompt_values(keys)
    groups = readout_groups(env, values)
    present = env.prompt_arms()
    sampler = OffPolicy(lag=1, correction="tis")
    out = simulate_passes_values(values, keys, env, 0.5, "group_mean", 4, tuple(budgets),
                                 sampler, tokens, rule, groups=groups, present=present)
    verdicts = env.prompt_verdicts().T.tolist()
    lengths = env.prompt_lengths().T.tolist()
    for run in range(seeds):
        expected = reference.run_passes(
            keys[run], ragged(values[run], present), 0.5, "group_mean", 4, budgets, sampler,
            env.reward, env.reward_parameters, env.verdict, env.verdict_parameters, None, law,
            tokens, rule, groups=(groups[0][run].tolist(), groups[1]), arms=env.arms,
            verdicts=verdicts, prompt_lengths=lengths)
        for name in (*prompt_rules.FIELDS, "served_pass_rate", "stuck", "tokens"):
            assert getattr(out, name)[run].tolist() == expected[name], (run, name)
        # A sum over the policy of each prompt's lengths: the same operations, in the order
        # test_passes holds every float field to (1e-12).
        np.testing.assert_allclose(out.expected_length[run], expected["expected_length"],
                                   rtol=1e-12, atol=1e-12)


def test_a_study_of_exact_verifiers_and_spread_lengths_runs_to_its_tables(tmp_path: Path
                                                                         ) -> None:
    # From the config to prompts_environments: each environment's verifier and length factor
    # as drawn, and the runs' tokens those of each prompt's own lengths (a seed never spends
    # more than a checkpoint counts).
    config = make_config({"seeds": 3, "root_seed": 5}, prompts=[60], probs=[
        {"draw": "population", "arms": 3, "environments": 9, "a": 0.5, "b": 0.5,
         "concentration": 8, "exact_share": 0.5, "length_spread": 0.8}],
        baseline=["group_mean"], group_size=[4], lr=[0.5], reward_model="overlong",
        max_length=[12], cache_length=[4], verdict="noisy_verifier", false_positive=[0.2],
        lengths=[[1, 2, 4]],
        token_budgets=[500, 2000], budgets=None, allocation=["uniform"])
    env = config.environments[0]
    assert env.params[-2:] == (0.5, 0.8)
    runs = run_study(config, progress=False).runs
    per_seed = runs.groupby(["seed", "budget"])["tokens"].sum()
    assert (per_seed <= per_seed.index.get_level_values("budget")).all()
    table = study_tables(runs, "t", config.analysis, {env.text: env}, tmp_path)[
        "prompts_environments"]
    drawn = env.population
    assert table["exact_verifier"].tolist() == drawn.exact.tolist()
    assert table["length_factor"].tolist() == drawn.length_factor.tolist()


def test_an_effect_on_expected_length_lies_within_the_longest_prompts_answer() -> None:
    # The distribution-free bound of a factorial's effect on the expected length holds only
    # where every per-seed effect lies in its support: +-the longest answer of any prompt,
    # which a population's length factors put past the study's lengths.
    env = population_of(300, 30, length_spread=1.5).with_reward(
        "length_penalty", (0.05, 1.0, 1.0)).with_lengths((1.0, 2.0, 4.0))
    longest = float(np.rint(4.0 * env.population.length_factor.max()))
    assert longest > 4.0
    found = support(SimpleNamespace(environments={env.text: env}), "expected_length")
    assert found.values == (-longest, longest) and not found.discrete


@pytest.mark.parametrize("nested", [False, True])
def test_a_prompt_of_fewer_arms_whose_state_is_not_finite_draws_its_own(nested: bool) -> None:
    # An infinite lr (no config allows it; the kernels take it) makes every prompt's logits
    # NaN at its first update, as an overflow does: such a prompt's softmax weighs no arm, and
    # a prompt of fewer arms than the dataset's K draws its own last arm there, as the
    # reference's bandit of its own arms does (its rewards, and so the allocation rules' reads
    # of every prompt, follow from it). A finite lr saturates the softmax before the logits
    # overflow.
    env = population_of(140, 6, arms=3, fewest_arms=2, root_seed=5)
    keys = run_keys(2, np.arange(2))
    values = env.prompt_values(keys)
    groups = readout_groups(env, values)
    present = env.prompt_arms()
    budgets = (200, 8000)
    if nested:
        out = simulate_passes_values(values, keys, env, math.inf, "group_mean", 4, budgets,
                                     OffPolicy(lag=1), rule="variance", groups=groups,
                                     present=present)
    else:
        out = simulate_values(values, keys, math.inf, "group_mean", 4, "variance", budgets,
                              groups=groups, present=present)
    assert out.non_finite[:, -1].sum() > 0 and (present < 3).any()
    for run in range(2):
        expected = reference.run_passes(
            keys[run], ragged(values[run], present), math.inf, "group_mean", 4, list(budgets),
            OffPolicy(lag=1) if nested else OffPolicy(), rule="variance",
            groups=(groups[0][run].tolist(), groups[1]), arms=env.arms)
        for name in prompt_rules.FIELDS:
            assert getattr(out, name)[run].tolist() == expected[name], (run, name)


def test_the_runs_are_per_environment_and_sum_to_the_bands() -> None:
    config = make_config({"seeds": 3, "root_seed": 5}, prompts=[60], probs=[
        {"draw": "population", "arms": 3, "environments": 9, "a": 0.5, "b": 0.5,
         "concentration": 8, "sigma": 1.0}], baseline=["leave_one_out"], group_size=[4],
        lr=[0.5], budgets=[240, 960], allocation=["uniform"])
    runs = run_study(config, progress=False).runs
    drawn = config.environments[0].population
    assert len(runs) == 3 * 2 * 9
    first = runs[(runs["seed"] == 0) & (runs["budget"] == 960)]
    assert first["environment_index"].tolist() == list(range(9))
    assert first["band_prompts"].tolist() == drawn.holdings.tolist()
    assert first["band"].tolist() == drawn.band.tolist()


@pytest.mark.parametrize(("entry", "prompts", "field"), [
    ({"environments": 0}, 100, "grid.probs[0].environments"),
    ({"environments": 2.5}, 100, "grid.probs[0].environments"),
    ({"a": 0.0}, 100, "grid.probs[0].a"),
    ({"concentration": -1}, 100, "grid.probs[0].concentration"),
    ({"sigma": 9}, 100, "grid.probs[0].sigma"),
    ({"fewest_arms": 1}, 100, "grid.probs[0].fewest_arms"),
    ({"fewest_arms": 4}, 100, "grid.probs[0].fewest_arms"),
    ({"fewest_arms": 2.5}, 100, "grid.probs[0].fewest_arms"),
    ({"exact_share": 1.5}, 100, "grid.probs[0].exact_share"),
    ({"exact_share": 0.5}, 100, "grid.probs[0].exact_share"),  # the check has no noise
    ({"length_spread": -0.1}, 100, "grid.probs[0].length_spread"),
    ({"length_spread": 3}, 100, "grid.probs[0].length_spread"),
    ({"length_spread": 0.5}, 100, "grid.probs[0].length_spread"),  # answers of no length
    ({"environments": 50}, 20, "grid.probs[0].environments"),
    ({}, 0, "grid.prompts[0]"),
    ({}, [100, 200], "grid.prompts"),
])
def test_a_population_that_cannot_be_drawn_is_one_line_and_exit_status_2(
        write_config, entry: dict, prompts: int | list[int], field: str) -> None:
    law = {"draw": "population", "arms": 3, "environments": 10, "a": 1, "b": 1,
           "concentration": 4} | entry
    sizes = prompts if isinstance(prompts, list) else [prompts]
    path = write_config(config_text(prompts=sizes, probs=[law], baseline=["leave_one_out"],
                                    group_size=[4]))
    result = run_cli("run", str(path), "--out", str(path.parent / "out"))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and field in result.stderr
    assert not (path.parent / "out").exists()


def test_a_population_without_many_prompts_is_refused(write_config) -> None:
    path = write_config(config_text(probs=[{"draw": "population", "arms": 3, "environments": 4,
                                            "a": 1, "b": 1, "concentration": 4}]))
    result = run_cli("run", str(path), "--out", str(path.parent / "out"))
    assert result.returncode == 2 and "grid.probs[0].draw" in result.stderr


@pytest.mark.parametrize(("arms", "fewest_arms"), [(3, 3), (5, 2)])
def test_the_achievable_pass_rate_of_a_population_is_its_prompts_mean(
        arms: int, fewest_arms: int) -> None:
    # The start (E[mean_k v]) and best (E[max_k v]) of a population's dataset against a Monte
    # Carlo over 400 seeds of its own draws: each seed's mean over the prompts is one value, the
    # seeds independent, so the estimate's error is its standard error; the bound is 4.9 of
    # them (a two-sided normal test at ALPHA).
    # Environments of 2 to 5 arms as well: a prompt's start is the mean of its own arms.
    env = population_of(60, 12, a=0.5, b=0.5, concentration=8.0, sigma=1.0, arms=arms,
                        fewest_arms=fewest_arms)
    values = env.prompt_values(run_keys(13, np.arange(400)))
    present = env.prompt_arms()
    found = achievable(env)
    bound = stats.norm.isf(ALPHA / 2)
    for expected, per_seed in ((found.start, (values.sum(axis=2) / present).mean(axis=1)),
                               (found.best, values.max(axis=2).mean(axis=1))):
        error = per_seed.std(ddof=1) / np.sqrt(len(per_seed))
        assert abs(per_seed.mean() - expected) < bound * error


def test_the_difficulty_table_is_its_bins_means_over_seeds(tmp_path) -> None:
    # prompts_difficulty recomputed from the runs with numpy and scipy alone: a bin's per-seed
    # accuracy is the correct prompts of its environments over their prompts, and a rule's
    # difference from uniform allocation the mean of the per-seed differences, its interval
    # Student's t at 1 - 0.05 / m, m the differences at the budget that vary (Bonferroni).
    config = make_config({"seeds": 40, "root_seed": 3}, prompts=[300], probs=[
        {"draw": "population", "arms": 3, "environments": 30, "a": 0.7, "b": 0.7,
         "concentration": 4, "sigma": 1.0}], baseline=["leave_one_out"], group_size=[4],
        lr=[0.5], budgets=[1200, 4800], allocation=["uniform", "skip_zero_signal"])
    env = config.environments[0]
    runs = run_study(config, progress=False).runs
    tables = study_tables(runs, "t", config.analysis, {env.text: env}, tmp_path)
    drawn = env.population
    assert (tables["prompts_bands"].groupby(["cell", "budget"])["band_prompts"].sum() == 300).all()
    table = tables["prompts_difficulty"]
    bins = np.minimum((drawn.pass_probability * 10).astype(int), 9)
    last = runs[runs["budget"] == 4800]
    checked = 0
    for where in np.unique(bins):
        members = np.flatnonzero(bins == where)
        per_seed = {}
        for cell in (0, 1):
            rows = last[(last["cell"] == cell) & last["environment_index"].isin(members)]
            sums = rows.groupby("seed")[["correct_prompts", "band_prompts"]].sum()
            per_seed[cell] = (sums["correct_prompts"] / sums["band_prompts"]).to_numpy()
        row = table[(table["cell"] == 1) & (table["budget"] == 4800)
                    & np.isclose(table["pass_probability_low"], where / 10)].iloc[0]
        assert row["bin_environments"] == len(members)
        assert row["bin_prompts"] == drawn.holdings[members].sum()
        assert row["accuracy"] == pytest.approx(per_seed[1].mean(), abs=1e-12)
        differences = per_seed[1] - per_seed[0]
        assert row["accuracy_vs_uniform"] == pytest.approx(differences.mean(), abs=1e-12)
        if row["accuracy_vs_uniform_interval"] == "t":
            varying = table[(table["budget"] == 4800) & (table["cell"] == 1)]
            intervals = int((varying["accuracy_vs_uniform_interval"] != "constant").sum()
                            + (varying["pass_rate_vs_uniform_interval"] != "constant").sum())
            assert row["vs_uniform_intervals"] == intervals
            level = 1 - 0.05 / intervals
            half = stats.t.ppf(1 - (1 - level) / 2, 39) * differences.std(ddof=1) / np.sqrt(40)
            # The package takes the spread of the differences rounded to 9 decimals (equal
            # values in exact arithmetic are one value there), which moves it by about 1e-10.
            assert row["accuracy_vs_uniform_high"] == pytest.approx(differences.mean() + half,
                                                                    abs=1e-8)
            checked += 1
    assert checked


def test_a_population_beside_another_bandit_keeps_each_ones_rows() -> None:
    # A study of a population and a drawn bandit: the population's cells have a row per
    # environment, the bandit's a row per band (environment -1); the analysis sums the first per
    # band and leaves the second as it is, and reads per environment the population alone.
    config = make_config({"seeds": 4, "root_seed": 9}, prompts=[30], probs=[
        {"draw": "population", "arms": 3, "environments": 5, "a": 1, "b": 1,
         "concentration": 4}, {"draw": "beta", "arms": 3, "a": 2, "b": 2}],
        baseline=["leave_one_out"], group_size=[4], lr=[0.5], budgets=[120, 480],
        allocation=["uniform", "variance"])
    runs = run_study(config, progress=False).runs
    populated = runs["draw"] == "population"
    assert (runs.loc[~populated, "environment_index"] == -1).all()
    assert (runs.loc[populated, "environment_index"] >= 0).all()
    bands = band_rows(runs)
    plain = runs[~populated].drop(columns="environment_index").reset_index(drop=True)
    kept = bands[bands["draw"] != "population"].reset_index(drop=True)
    assert kept[plain.columns].equals(plain)
    summed = bands[bands["draw"] == "population"]
    # Two cells, four seeds, two budgets, a row per band that holds an environment.
    assert len(summed) == 2 * 4 * 2 * len(set(config.environments[0].population.band))
    assert (summed.groupby(["cell", "seed", "budget"])["band_prompts"].sum() == 30).all()
    tables = study_tables(runs, "t", config.analysis,
                          {env.text: env for env in config.environments}, Path("unused"))
    assert set(tables["prompts_environments"]["environment"]) == {config.environments[0].text}
    assert len(tables["prompts_environments"]) == 2 * 5


def test_a_population_study_does_not_depend_on_its_shards() -> None:
    config = make_config({"seeds": 6, "root_seed": 2}, prompts=[40], probs=[
        {"draw": "population", "arms": 3, "environments": 6, "a": 0.5, "b": 0.5,
         "concentration": 8, "sigma": 1.0}], baseline=["leave_one_out"], group_size=[4],
        lr=[0.5], budgets=[160, 640], allocation=["uniform", "knapsack"])
    whole = run_study(config, progress=False).runs
    pieces = run_study(config, chunk=1, progress=False).runs
    pd.testing.assert_frame_equal(whole, pieces)
