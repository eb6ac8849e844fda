"""Answers that cost tokens (``study.core.kernel.simulate_tokens``): the kernel against the
reference (``reference.run`` with lengths) over lengths, laws, verdicts, the shapings of a length
constraint, their schedules, group sizes and budget units; with every length 1 and no penalty the
runs of today's drivers, bit for bit, and a shaping of a noisy verifier at its neutral settings
the shaping alone or the verifier alone; geometric lengths of the stated mean."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from reference import run as reference_run
from study.core.kernel import CURVE_SCALE
from study.core.streams import run_keys
from study.model.environment import LENGTH_LAWS, Environment
from study.model.grid import Simulation
from study.orchestration.simulate import simulate

FIELDS = ("greedy", "p_best", "pass_rate", "reward_sum", "pulls", "scores", "finite",
          "zero_signal")
"""What every driver records at a checkpoint."""


@st.composite
def counted(draw: st.DrawFn) -> tuple[Simulation, tuple[int, ...], bool]:
    """A REINFORCE simulation on three arms whose answers have lengths, under Bernoulli rewards,
    a noisy verifier, or a length penalty or the overlong punishment of either verdict, with its
    budgets and their unit."""
    values = tuple(draw(st.sampled_from([0.0, 0.3, 0.5, 0.55, 0.6, 1.0])) for _ in range(3))
    law = draw(st.sampled_from(LENGTH_LAWS))
    lengths = tuple(draw(st.integers(1, 9)) for _ in range(3))
    model = draw(st.sampled_from(["bernoulli", "noisy_verifier", "length_penalty", "overlong"]))
    rates = draw(st.sampled_from([(0.0, 0.0), (0.1, 0.2), (0.3, 0.0)]))
    until = draw(st.sampled_from([0.0, 0.3, 1.0]))
    parameters: tuple[float, ...] = ()
    if model == "length_penalty":
        parameters = (draw(st.sampled_from([0.0, 0.05, 0.5])), draw(st.sampled_from([1.0, 4.0])),
                      until)
    elif model == "overlong":
        longest = draw(st.integers(2, 12))
        parameters = (float(longest), float(draw(st.integers(1, longest - 1))), until)
    elif model == "noisy_verifier":
        parameters = rates
    env = Environment.fixed(values, model, parameters).with_lengths(lengths, law)
    if model in ("length_penalty", "overlong"):
        env = env.with_verdict(draw(st.sampled_from(["bernoulli", "noisy_verifier"])), rates)
    baseline, group = draw(st.sampled_from([("running_mean", 1), ("none", 1), ("per_arm", 1),
                                            ("group_mean", 4), ("leave_one_out", 3),
                                            ("group_zscore", 2)]))
    lr = draw(st.sampled_from([0.1, 1.0, 5.0]))
    tokens = draw(st.booleans())
    budgets = tuple(sorted(draw(st.sets(st.integers(1, 150), min_size=1, max_size=3))))
    return Simulation("reinforce", env, lr, baseline, group), budgets, tokens


@settings(max_examples=60, deadline=None)
@given(case=counted(), root_seed=st.integers(0, 2**64), seeds=st.integers(1, 3))
def test_kernel_agrees_with_reference_on_answers_that_cost_tokens(
        case: tuple[Simulation, tuple[int, ...], bool], root_seed: int, seeds: int) -> None:
    sim, budgets, tokens = case
    env = sim.environment
    keys = run_keys(root_seed, np.arange(seeds))
    out = simulate(sim, keys, budgets, curves=True, scores=True, tokens=tokens)
    # The curves: each step's sums over the runs whose rollouts reach it, and their number.
    optimal, gained, reached = (np.zeros(len(out.curve_seeds), dtype=np.int64) for _ in range(3))
    for i in range(seeds):
        expected, steps, _ = reference_run(
            keys[i], list(env.values), env.reward, sim.algorithm, sim.lr, sim.baseline,
            list(budgets), sim.group_size, env.reward_parameters, list(env.lengths),
            env.length_law, tokens, env.verdict, env.verdict_parameters)
        optimal[:len(steps)] += np.array([s.optimal for s in steps], dtype=np.int64)
        gained[:len(steps)] += np.array([round(s.reward * CURVE_SCALE) for s in steps],
                                        dtype=np.int64)
        reached[:len(steps)] += 1
        for c, point in enumerate(expected):
            assert (out.greedy[i, c], out.finite[i, c], out.zero_signal[i, c]) == (
                point.greedy, point.finite, point.zero_signal)
            assert out.reward_sum[i, c] == point.reward_sum
            assert out.pulls[i, c].tolist() == point.pulls
            assert (out.rollouts[i, c], out.tokens[i, c]) == (point.rollouts, point.tokens)
            # Same IEEE operations in the same order (1e-12: the contract of every driver).
            for ours, theirs in ((out.scores[i, c], point.scores),
                                 (out.pass_rate[i, c], point.pass_rate),
                                 (out.expected_length[i, c], point.expected_length)):
                np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    for ours, theirs in ((out.curve_optimal, optimal), (out.curve_reward, gained),
                         (out.curve_seeds, reached)):
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize(("algorithm", "baseline", "group", "budgets"), [
    ("reinforce", "running_mean", 1, (1, 10, 57, 300)),
    ("reinforce", "per_arm", 1, (3, 40)),
    ("reinforce", "group_zscore", 4, (3, 10, 57, 300)),
    ("epsilon_greedy", "none", 1, (5, 50))])
def test_lengths_of_one_and_no_penalty_are_todays_runs(algorithm: str, baseline: str, group: int,
                                                       budgets: tuple[int, ...]) -> None:
    # Past one block of lanes (300 seeds: three blocks, the last partly filled).
    keys = run_keys(3, np.arange(300))
    env = Environment.fixed([0.5, 0.55, 0.6])
    today = simulate(Simulation(algorithm, env, 0.3, baseline, group), keys, budgets, scores=True)
    ones = env.with_lengths((1, 1, 1))
    for counted_env, tokens in ((ones, False), (ones, True),
                                (ones.with_reward("length_penalty", (0.0, 1.0, 0.5)), True)):
        out = simulate(Simulation(algorithm, counted_env, 0.3, baseline, group), keys, budgets,
                       scores=True, tokens=tokens)
        for name in FIELDS:
            np.testing.assert_array_equal(getattr(out, name), getattr(today, name), name)
        np.testing.assert_array_equal(out.rollouts, np.tile(np.array(budgets) // group * group,
                                                            (300, 1)))
        np.testing.assert_array_equal(out.tokens, out.rollouts)


@pytest.mark.parametrize("shaping", [("length_penalty", (0.05, 1.0, 0.5)),
                                     ("overlong", (6.0, 2.0, 1.0))])
def test_a_shaped_noisy_verifier_at_neutral_settings_is_either_part_alone(
        shaping: tuple[str, tuple[float, ...]]) -> None:
    # Past one block of lanes (130 seeds: two blocks, the last partly filled), geometric lengths.
    keys = run_keys(5, np.arange(130))
    budgets = (40, 300, 2000)
    answers = Environment.fixed([0.5, 0.55, 0.6]).with_lengths((1, 4, 8), "geometric")
    name, parameters = shaping
    shaped = answers.with_reward(name, parameters)
    noisy = answers.with_reward("noisy_verifier", (0.1, 0.2))

    def runs(env: Environment) -> object:
        return simulate(Simulation("reinforce", env, 0.5, "leave_one_out", 4), keys, budgets,
                        scores=True, tokens=True)

    # Error rates of 0 are the Bernoulli check, bit for bit; a shaping that changes nothing (no
    # penalty, lifted at once) leaves the verifier's rewards alone (every answer within the cut).
    silent = (0.0, 1.0, 0.0) if name == "length_penalty" else (1e12, 1.0, 0.0)
    for composed, alone in ((shaped.with_verdict("noisy_verifier", (0.0, 0.0)), shaped),
                            (noisy.with_reward(name, silent).with_verdict("noisy_verifier",
                                                                          (0.1, 0.2)), noisy)):
        out, expected = runs(composed), runs(alone)
        for field in (*FIELDS, "rollouts", "tokens", "expected_length"):
            np.testing.assert_array_equal(getattr(out, field), getattr(expected, field), field)


def test_geometric_lengths_have_the_stated_mean() -> None:
    # A policy that never trains (lr 0) pulls the three arms a third of the time each, so an
    # answer's expected length is the mean of the arms' means, 13/3, and its variance that of
    # the mixture: E[L^2] = mean over arms of (2 - q) / q^2 (q = 1 / l), less the mean squared.
    # The tokens of 4,000 seeds of 300 rollouts each are 1.2 million answers, independent: their
    # mean is normal about 13/3 with sd sqrt(variance / n); the test allows 5 sd (a false alarm
    # once in 3.5 million runs).
    means = (1.0, 4.0, 8.0)
    env = Environment.fixed([0.5, 0.55, 0.6]).with_lengths(means, "geometric")
    out = simulate(Simulation("reinforce", env, 0.0, "none"), run_keys(11, np.arange(4000)),
                   (300,))
    n = out.rollouts.sum()
    mean = float(np.mean(means))
    second = float(np.mean([(2 - 1 / m) * m * m for m in means]))
    sd = math.sqrt((second - mean**2) / n)
    z = (out.tokens.sum() / n - mean) / sd
    assert abs(z) < norm.isf(0.5 / 3.5e6), z


def test_the_length_tables_are_the_runs_recomputed(tmp_path) -> None:
    # From the tidy runs of a small study whose answers cost tokens, by scipy, statsmodels and
    # the slow betting reference (tests/betting_reference.py) rather than the package's calls:
    # the Speciale rows are betting tests of the per-seed differences on the bandit's range,
    # bets tuned for Holm's first step, Holm within each metric's family; the stability rows
    # are the sample standard deviation, a betting interval of the variance from pairs of
    # seeds and Clopper-Pearson intervals of the collapsed runs; their tests against no penalty
    # a betting test of the pairs' variance difference and McNemar's exact test, of the
    # collapsed and of the stuck runs; the price
    # rows are means over seeds.
    from betting_reference import capital, p_value
    from scipy.stats import binomtest
    from statsmodels.stats.multitest import multipletests

    from analysis.study_tables import analyze_outcomes, load
    from conftest import config_text
    from study.model.config import parse_config
    from study.orchestration.outputs import run_and_write
    from study.orchestration.storage import read_runs

    config = parse_config(config_text(
        {"seeds": 300}, probs=[[0.5, 0.55, 0.6]], lengths=[[1, 2, 4]],
        reward_model="length_penalty", penalty=[0.0, 0.05], penalty_until=[1.0, 0.5],
        baseline=["group_mean"], group_size=[4], lr=[1.0], budgets=None,
        token_budgets=[200, 2000]))
    run_and_write(config, tmp_path, quiet=True)
    outcomes, manifest = load(tmp_path)
    tables = analyze_outcomes(outcomes, manifest, tmp_path, config.analysis)
    runs = read_runs(tmp_path).sort_values(["cell", "seed", "budget"])
    params = pd.Series(list(zip(runs["penalty"], runs["reference_length"],
                                runs["penalty_until"], strict=True)), index=runs.index)
    late = runs[params == (0.05, 1.0, 0.5)]
    kept = runs[params == (0.05, 1.0, 1.0)]
    never = runs[params == (0.0, 1.0, 1.0)]
    # The analysis holds pass rates in single precision (analysis.outcomes).
    kinds = {"pass_rate": np.float32, "expected_length": np.float64}
    spans = {"pass_rate": 0.6 - 0.5, "expected_length": 4.0 - 1.0}

    def final(frame: pd.DataFrame, metric: str) -> np.ndarray:
        return frame[frame["budget"] == 2000][metric].to_numpy(dtype=kinds[metric]).astype(float)

    speciale = tables["speciale"]
    assert set(speciale["budget"]) == {2000}  # after the switch at 1000 tokens only
    for metric in ("pass_rate", "expected_length"):
        rows = speciale[speciale["metric"] == metric]
        p_values, holm = [], []
        for against, partner in (("no_penalty", never), ("penalty_throughout", kept)):
            ours, theirs = final(late, metric), final(partner, metric)
            row = rows[rows["against"] == against].iloc[0]
            assert row["difference"] == pytest.approx((ours - theirs).mean(), rel=1e-9)
            p_values.append(p_value(list(ours - theirs), -spans[metric], spans[metric], 0.0,
                                    0.05 / len(rows)))
            assert row["p_value"] == pytest.approx(p_values[-1], rel=1e-9, abs=1e-300)
            holm.append(row["p_value_holm"])
        np.testing.assert_allclose(holm, multipletests(p_values, method="holm")[1],
                                   rtol=1e-9, atol=1e-300)
    stability = tables["length_stability"].set_index("cell")
    halves = {}
    for cell, rows in runs[runs["budget"] == 2000].groupby("cell"):
        row = stability.loc[cell]
        rates = rows["pass_rate"].to_numpy(dtype=np.float32).astype(float)
        assert row["pass_rate_sd"] == pytest.approx(np.std(rates, ddof=1), rel=1e-9)
        halves[cell] = [(a - b) ** 2 / 2 for a, b in zip(rates[0::2], rates[1::2], strict=True)]
        # At a limit of the variance's interval the reference's hedged capital is 1 / 0.05.
        for limit in (row["pass_rate_sd_low"], row["pass_rate_sd_high"]):
            if limit > 0:
                hedged = max(capital(halves[cell], 0.0, 0.1**2 / 2, limit**2, 0.05)) / 2
                assert hedged == pytest.approx(20.0, rel=1e-6)
        collapsed = int((rows["p_best"] <= 0.01).sum())
        interval = binomtest(collapsed, len(rows)).proportion_ci(method="exact")
        assert (row["collapsed"], row["collapsed_low"], row["collapsed_high"]) == (
            collapsed, pytest.approx(interval.low), pytest.approx(interval.high))
    tests = tables["length_stability_tests"]
    assert len(tests) == 3  # the penalty kept, against none: one row per metric

    def stuck(cell: int) -> np.ndarray:
        # Half or more of the mass off the best arm (0.6) at the last checkpoint, and no gain
        # past 1e-6 since the one before; a state that is not finite is stuck.
        frame = runs[runs["cell"] == cell].sort_values(["seed", "budget"])
        mass = frame.pivot(index="seed", columns="budget", values="p_best").to_numpy()
        finite = frame.pivot(index="seed", columns="budget", values="finite").to_numpy(bool)
        return ((~(1.0 - mass[:, -1] < 0.5) & ~(mass[:, -1] > mass[:, -2] + 1e-6))
                | ~finite[:, -1])

    for row in tests.itertuples():
        a = runs[(runs["cell"] == row.cell_a) & (runs["budget"] == 2000)]
        b = runs[(runs["cell"] == row.cell_b) & (runs["budget"] == 2000)]
        if row.metric == "stuck":
            x, y = stuck(row.cell_a), stuck(row.cell_b)
            only_a, only_b = int((x & ~y).sum()), int((~x & y).sum())
            assert (row.stuck_a, row.stuck_b) == (int(x.sum()), int(y.sum()))
            expected = (1.0 if only_a + only_b == 0
                        else binomtest(only_a, only_a + only_b).pvalue)
        elif row.metric == "collapsed":
            only_a = int(((a["p_best"].to_numpy() <= 0.01) & (b["p_best"].to_numpy() > 0.01)).sum())
            only_b = int(((a["p_best"].to_numpy() > 0.01) & (b["p_best"].to_numpy() <= 0.01)).sum())
            expected = (1.0 if only_a + only_b == 0
                        else binomtest(only_a, only_a + only_b).pvalue)
        else:
            span = 0.1**2 / 2
            expected = p_value([x - y for x, y in zip(halves[row.cell_a], halves[row.cell_b],
                                                       strict=True)], -span, span, 0.0, 0.05)
        assert row.p_value == pytest.approx(expected, rel=1e-9, abs=1e-300)
        assert row.p_value_holm == pytest.approx(expected, rel=1e-9, abs=1e-300)
    price = tables["length_price"].set_index(["cell", "budget"])
    for (cell, budget), rows in runs.groupby(["cell", "budget"]):
        row = price.loc[(cell, budget)]
        assert row["tokens"] == pytest.approx(rows["tokens"].mean())
        assert row["expected_length"] == pytest.approx(rows["expected_length"].mean(), rel=1e-9)
        assert row["accuracy"] == pytest.approx(rows["correct"].mean())


def test_a_zero_penalty_lifted_part_way_is_one_bandit_with_the_zero_penalty() -> None:
    # lambda 0 lifted at 0.5 simulates exactly what lambda 0 kept does: one bandit of the grid,
    # so no simulation (and no hypothesis of a family) is counted twice.
    from conftest import make_config

    config = make_config(probs=[[0.5, 0.6]], lengths=[[1, 3]], reward_model="length_penalty",
                         penalty=[0.0, 0.1], penalty_until=[1.0, 0.5], budgets=None,
                         token_budgets=[10, 40])
    assert [env.reward_parameters for env in config.environments] == [
        (0.0, 1.0, 1.0), (0.1, 1.0, 1.0), (0.1, 1.0, 0.5)]


def test_the_simulation_text_names_a_verdict_only_where_a_shaping_names_one() -> None:
    # Naming the default verdict is the same simulation, and every study that names none keeps
    # the text (and so the hash, which make compares) it had before verdicts could be named.
    from study.model.config import config_from_dict

    def config(**grid: object) -> object:
        return config_from_dict({"study": {"name": "v", "root_seed": 1, "seeds": 2}, "grid": {
            "probs": [[0.5, 0.6]], "lengths": [[1, 2]], "budgets": [10],
            "reward_model": "length_penalty", **grid}})

    plain, named, noisy = (config(), config(verdict="bernoulli"),
                           config(verdict="noisy_verifier", false_positive=[0.1]))
    assert plain.content_hash() == named.content_hash()
    assert "verdict" not in plain.simulation_text()
    assert '"verdict":"noisy_verifier"' in noisy.simulation_text()
    assert noisy.content_hash() != plain.content_hash()
