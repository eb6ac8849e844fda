"""The sample-size planner against exact power found by exhaustive enumeration in this file, and
its budget-ratio planner against hand computations and the bootstrap test's own size."""

from __future__ import annotations

import itertools
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from scipy.stats import binom, binomtest, multinomial, nct
from scipy.stats import t as student_t

from analysis.budget_to_target import budget_ratio
from analysis.plan import (
    BETTING_GRID,
    betting_power,
    binomial_power,
    normal_seeds,
    paired_t_power,
    pilot_spread,
    plan_betting,
    plan_binomial,
    plan_mcnemar,
    plan_paired_t,
    ratio_power,
    select_cell,
    stated_budgets,
)
from analysis.plan_cli import main as plan_main
from analysis.plan_cli import parse_selector
from analysis.power import exact_mcnemar_power, exact_mcnemar_power_curve
from conftest import REPO
from study.orchestration.storage import CELLS_SCHEMA, study_files


def enumerated_binomial_power(n: int, accuracy: float, chance: float, alpha: float) -> float:
    """Sum over every count k of P(k) times whether scipy's exact test rejects at k."""
    return sum(binom.pmf(k, n, accuracy)
               for k in range(n + 1)
               if binomtest(k, n, chance, alternative="greater").pvalue <= alpha)


def enumerated_mcnemar_power(n: int, only_a: float, only_b: float, alpha: float) -> float:
    """Sum over every split (only A, only B, concordant) of n seeds of its multinomial
    probability times whether the exact two-sided McNemar test (binomtest of the discordant
    split against 1/2) rejects."""
    law = multinomial(n, [only_a, only_b, 1 - only_a - only_b])
    power = 0.0
    for a, b in itertools.product(range(n + 1), repeat=2):
        if a + b > n or a + b == 0:
            continue
        if binomtest(a, a + b, 0.5).pvalue <= alpha:
            power += law.pmf([a, b, n - a - b])
    return power


@pytest.mark.parametrize("n", [1, 5, 12, 30, 61])
def test_binomial_power_is_the_enumerated_power(n: int) -> None:
    got = binomial_power(np.array([n]), 0.55, 1 / 3, 0.05)[0]
    assert got == pytest.approx(enumerated_binomial_power(n, 0.55, 1 / 3, 0.05), abs=1e-12)


@pytest.mark.parametrize("n", [1, 4, 9, 17, 26])
def test_mcnemar_power_is_the_enumerated_power(n: int) -> None:
    got = exact_mcnemar_power(n, 0.35, 0.05, 0.05)
    assert got == pytest.approx(enumerated_mcnemar_power(n, 0.35, 0.05, 0.05), abs=1e-12)


def test_binomial_plan_is_where_the_enumerated_power_stays_above_target() -> None:
    # Accuracy 0.6 against 1/3: tens of seeds, small enough to enumerate every n to twice it.
    plan = plan_binomial(0.6, 1 / 3, 0.8, 0.05)
    power = [enumerated_binomial_power(n, 0.6, 1 / 3, 0.05)
             for n in range(1, 2 * int(plan.n_exact) + 1)]
    n = int(plan.n_exact)
    assert power[n - 2] < 0.8  # n - 1 seeds fall short
    assert min(power[n - 1:]) >= 0.8  # from n on, never below
    assert plan.n_first == 1 + next(i for i, p in enumerate(power) if p >= 0.8)
    assert plan.n_first <= plan.n_exact


def test_mcnemar_plan_is_where_the_enumerated_power_stays_above_target() -> None:
    plan = plan_mcnemar(0.5, 0.05, 0.8, 0.05)
    n = int(plan.n_exact)
    power = [enumerated_mcnemar_power(m, 0.5, 0.05, 0.05) for m in range(1, 2 * n + 1)]
    assert power[n - 2] < 0.8
    assert min(power[n - 1:]) >= 0.8
    assert math.isfinite(plan.n_normal)


def test_paired_t_plan_is_where_the_noncentral_t_power_first_reaches_target() -> None:
    # The two-sided one-sample t-test of n normal differences of mean d and sd s rejects when
    # |T| > t_(1 - alpha/2, n - 1), T noncentral t with n - 1 degrees of freedom and
    # noncentrality d sqrt(n) / s: its power from scipy's distributions, not statsmodels'.
    def power(n: int, d: float, s: float, alpha: float) -> float:
        critical = student_t.isf(alpha / 2, n - 1)
        shift = d * math.sqrt(n) / s
        return float(nct.sf(critical, n - 1, shift) + nct.cdf(-critical, n - 1, shift))

    # The last two: a handful of seeds, where statsmodels' solvers fail (the normal
    # approximation's, and the t-test's where two seeds suffice: there is no n - 1 to try).
    for d, s, alpha in ((0.01, 0.023, 0.05 / 64), (0.5, 1.0, 0.05), (0.01, 0.0529, 0.05 / 64),
                        (0.01, 0.003, 0.025), (0.01, 0.00004, 0.05 / 15)):
        plan = plan_paired_t(d, s, 0.8, alpha)
        n = int(plan.n_exact)
        assert (n == 2 or power(n - 1, d, s, alpha) < 0.8) and power(n, d, s, alpha) >= 0.8
        assert plan.n_first == plan.n_exact and plan.n_normal <= plan.n_exact
        assert math.isfinite(plan.power_at_n_normal)


def test_paired_t_plan_holds_where_the_noncentral_t_fails() -> None:
    # A difference of 5.9 standard deviations at alpha 0.05 / 15: scipy's noncentral t is NaN
    # at three and four seeds (a large noncentrality on two and three degrees of freedom), and
    # the planner integrates over the spread instead. Its power against a Monte Carlo of the
    # t-test itself, 200,000 samples of n normal differences: the estimate's standard error is
    # at most sqrt(0.25 / 200,000) = 0.0011, and the bound is 5 of them.
    # The last case: two seeds at a small alpha, where the spread's density on one degree of
    # freedom is unbounded near 0 (the integral is over its square root).
    d, s, alpha = 0.01, 0.0017, 0.05 / 15
    rng = np.random.default_rng(5)
    for effect, n, level in ((d / s, 2, alpha), (d / s, 3, alpha), (d / s, 4, alpha),
                             (d / s, 5, alpha), (11.0, 2, 0.05 / 64)):
        draws = rng.standard_normal((200_000, n)) + effect
        statistic = draws.mean(axis=1) / (draws.std(axis=1, ddof=1) / math.sqrt(n))
        simulated = float((np.abs(statistic) > student_t.isf(level / 2, n - 1)).mean())
        assert abs(paired_t_power(effect, n, level) - simulated) < 5 * 0.0011
    assert plan_paired_t(d, s, 0.8, alpha).n_exact == 4


def test_plan_command_prints_the_plan_and_rejects_bad_values() -> None:
    done = subprocess.run([sys.executable, "-m", "analysis", "plan", "binomial", "--accuracy",
                           "0.6", "--chance", "1/3"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"n_exact  {plan_binomial(0.6, 1 / 3).n_exact:g}" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "analysis", "plan", "mcnemar", "--only-a",
                          "0.2", "--only-b", "x"], cwd=REPO, capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip() == "error: --only-b: 'x' is not a probability"


def test_betting_power_holds_the_level_and_the_plan_reaches_the_target() -> None:
    # With no difference every rejection is false: the betting test's size is at most alpha for
    # any law on the range, so its Monte Carlo estimate from 400 draws may exceed 0.05 only by
    # chance, by 3 standard errors sqrt(0.05 * 0.95 / 400) = 0.011 at most once in 700 runs.
    assert betting_power(0.0, 0.02, -0.1, 0.1, 300, 0.05) <= 0.05 + 3 * math.sqrt(
        0.05 * 0.95 / 400)
    plan = plan_betting(0.01, 0.023, -0.1, 0.1, 0.8, 0.05 / 64)
    n = int(plan.n_exact)
    assert betting_power(0.01, 0.023, -0.1, 0.1, n, 0.05 / 64) >= 0.8
    # The grid n below it falls short: the plan is the first n of the grid, not a later one.
    below = int(np.ceil(plan.n_normal * BETTING_GRID[list(
        np.ceil(plan.n_normal * BETTING_GRID).astype(int)).index(n) - 1]))
    assert betting_power(0.01, 0.023, -0.1, 0.1, below, 0.05 / 64) < 0.8
    # A bet can only lose to the t-test on normal differences, which it was planned against.
    assert plan.n_exact > plan.n_normal == plan_paired_t(0.01, 0.023, 0.8, 0.05 / 64).n_exact


def test_betting_plan_command_rejects_bad_values(capsys: pytest.CaptureFixture[str]) -> None:
    for flags, message in [(["--sd", "0"], "--sd: '0' is not a positive number"),
                           (["--high", "-0.2"], "--high: '-0.2' is not above --low -0.1"),
                           (["--difference", "0.5"], "--difference: '0.5' is not a nonzero "
                            "difference inside [-0.1, 0.1]")]:
        arguments = {"--difference": "0.01", "--sd": "0.02", "--low": "-0.1", "--high": "0.1"}
        arguments.update(dict(zip(flags[::2], flags[1::2], strict=True)))
        assert plan_main(["betting", *itertools.chain.from_iterable(arguments.items())]) == 2
        printed = capsys.readouterr()
        assert printed.out == "" and printed.err.strip() == f"error: {message}"
    # A number too large for a float is one line too, in every test that reads numbers.
    assert plan_main(["paired-t", "--difference", "0.01", "--sd", "1e999"]) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and printed.err.strip() == "error: --sd: '1e999' is not a number"


def test_mcnemar_power_curve_is_the_power_at_each_n() -> None:
    # The curve carries the law of the discordant count from n to n + 1; the single-n function
    # sums the whole binomial law afresh. They differ only by rounding and the dropped tails
    # (TAIL per step), far below 1e-10.
    curve = exact_mcnemar_power_curve(2500, 0.2, 0.13, 0.05)
    for n in (1, 2, 7, 40, 333, 1024, 2500):
        assert curve[n - 1] == pytest.approx(exact_mcnemar_power(n, 0.2, 0.13, 0.05), abs=1e-10)
    assert not exact_mcnemar_power_curve(50, 0.0, 0.0).any()


# The budget-ratio planner. A synthetic pilot: seed i of a cell is right at checkpoint j when its
# latent uniform is below ACCURACY[j], so every seed's outcomes rise with the budget (as nested
# runs do) and the mean curve is ACCURACY, crossing 0.9 at the fifth checkpoint. Half of the seeds
# share their latent value between A and B: the pairing that common random numbers give.
BUDGETS = np.array([100, 200, 400, 800, 1600, 3200, 6400], dtype=float)
ACCURACY = np.array([0.4, 0.55, 0.7, 0.82, 0.9, 0.95, 0.98])


def synthetic_pilot(seeds: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Outcome matrices of two cells with the same law, paired seed by seed."""
    rng = np.random.default_rng(seed)
    latent_a = rng.random(seeds)
    latent_b = np.where(rng.random(seeds) < 0.5, latent_a, rng.random(seeds))
    return latent_a[:, None] < ACCURACY, latent_b[:, None] < ACCURACY


def test_normal_seeds_is_the_hand_computed_formula() -> None:
    # z quantiles to six decimals: 0.975 -> 1.959964, 0.8 -> 0.841621, 0.95 -> 1.644854,
    # 0.9 -> 1.281552. Unrounded, the three n are 394.08, 429.97 and 945.84.
    assert normal_seeds(0.05, 1000, 1.25) == math.ceil(
        1000 * (0.05 * (1.959964 + 0.841621) / math.log(1.25)) ** 2) == 395
    assert normal_seeds(0.05, 1000, 0.8) == 395  # a ratio and its inverse are as far from 1
    assert normal_seeds(0.05, 1000, 1.0, margin=1.25) == math.ceil(
        1000 * (0.05 * (1.644854 + 1.281552) / math.log(1.25)) ** 2) == 430
    assert normal_seeds(0.05, 1000, 1.1, margin=1.25) == math.ceil(
        1000 * (0.05 * (1.644854 + 0.841621) / (math.log(1.25) - math.log(1.1))) ** 2) == 946


def test_pilot_spread_reads_the_studys_interval() -> None:
    a, b = synthetic_pilot(400)
    ratio = budget_ratio(a, b, BUDGETS)
    point, log_se = pilot_spread(a, b, BUDGETS, BUDGETS)
    assert point == ratio.ratio
    assert log_se == pytest.approx(math.log(ratio.ci_high / ratio.ci_low) / (2 * 1.959964),
                                   rel=1e-6)
    with pytest.raises(ValueError, match="not finite and of positive width"):
        pilot_spread(a, a, BUDGETS, BUDGETS)  # one cell against itself: every resample gives 1


@pytest.mark.parametrize("stated", [0.5, 1.0, 1.25, 3.0])
def test_rescaling_makes_the_pilots_point_ratio_the_stated_one(stated: float) -> None:
    a, b = synthetic_pilot(400)
    b = b[:, [0, 1, 2, 3, 3, 4, 5]]  # B slower: the pilot's own ratio is not 1
    observed = budget_ratio(a, b, BUDGETS).ratio
    assert observed == pytest.approx(0.5, rel=0.3)
    budgets_a = stated_budgets(a, b, BUDGETS, BUDGETS, stated)
    assert budget_ratio(a, b, budgets_a, budgets_b=BUDGETS).ratio == pytest.approx(stated,
                                                                                   rel=1e-12)
    assert np.allclose(budgets_a / BUDGETS, stated / observed, rtol=1e-15)  # shapes kept


def test_ratio_power_at_no_effect_is_the_size_of_the_test() -> None:
    # Two cells with the same law, stated ratio 1: every rejection is a false one, so the Monte
    # Carlo power is the size of the study's 95% percentile interval, nominally 0.05 (0.041 at
    # 300 seeds in 1000 draws). With 200 draws its standard error is sqrt(0.05 * 0.95 / 200) =
    # 0.015; above 0.05 + 3 * 0.015 it would be a size the interval does not have.
    a, b = synthetic_pilot(2000)
    power, draws = ratio_power(a, b, stated_budgets(a, b, BUDGETS, BUDGETS, 1.0), BUDGETS,
                               np.array([300]), draws=200)
    assert draws.tolist() == [200]
    assert power[0] <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 200)


def test_cell_selectors() -> None:
    cells = pd.DataFrame({"cell": [0, 1, 2], "algorithm": ["reinforce", "reinforce", "uniform"],
                          "lr": [0.01, 0.1, 0.0], "environment": ["0.5,0.6"] * 3})
    assert parse_selector("algorithm=reinforce,environment=0.5,0.6,lr=0.1") == {
        "algorithm": "reinforce", "environment": "0.5,0.6", "lr": "0.1"}
    assert select_cell(cells, parse_selector("algorithm=reinforce,lr=1e-1")) == 1
    assert select_cell(cells, parse_selector("cell=2")) == 2
    for text, message in [("lr", "not key=value"), ("alpha=1", "the key 'alpha'"),
                          ("lr=0.1,lr=0.1", "'lr' twice")]:
        with pytest.raises(ValueError, match=message):
            parse_selector(text)
    for text, message in [("lr=x", "not a number"), ("algorithm=reinforce", "cells 0, 1"),
                          ("algorithm=uniform,lr=0.1", "no cell")]:
        with pytest.raises(ValueError, match=message):
            select_cell(cells, parse_selector(text))


def write_pilot(folder: Path) -> None:
    """A study's files (``cells.parquet`` and ``runs.parquet``) of three cells on the synthetic
    pilot's 400 seeds: REINFORCE at lr 0.01 and uniform allocation (the two cells of
    ``synthetic_pilot``), and REINFORCE at lr 0.1, which never reaches 0.9."""
    a, b = synthetic_pilot(400)
    never = np.zeros_like(a)
    cells, frames = [], []
    for cell, (algorithm, lr, correct) in enumerate([("reinforce", 0.01, a),
                                                     ("reinforce", 0.1, never),
                                                     ("uniform", 0.0, b)]):
        cells.append({"cell": cell, "algorithm": algorithm, "nested": True,
                      "baseline": "running_mean", "lr": lr, "group_size": 1,
                      "normalization": "per_group", "reward_model": "bernoulli",
                      "environment": "0.5,0.6", "arms": 2,
                      "draw": "fixed", "arm_values": [0.5, 0.6], "draw_parameters": [],
                      "cost": 0.0})
        seed, budget = np.meshgrid(np.arange(len(correct)), BUDGETS, indexing="ij")
        frames.append(pd.DataFrame({
            "cell": cell, "seed": seed.ravel(), "budget": budget.ravel().astype(int),
            "rollouts": budget.ravel().astype(int), "correct": correct.ravel(), "finite": True,
            "greedy_value": np.where(correct.ravel(), 0.6, 0.5), "zero_signal_updates": 0,
            "best_value": 0.6, "pass_rate": np.nan}))
    table = pa.Table.from_pylist(cells, schema=CELLS_SCHEMA)
    with study_files(folder, table, "synthetic pilot") as files:
        for frame in frames:
            files.add(pa.Table.from_pandas(frame, preserve_index=False))


def test_ratio_command_prints_the_plan(tmp_path: Path) -> None:
    write_pilot(tmp_path)
    done = subprocess.run([sys.executable, "-m", "analysis", "plan", "ratio", "--runs",
                           str(tmp_path), "--a", "algorithm=reinforce,lr=0.01", "--b",
                           "algorithm=uniform", "--ratio", "1.5", "--draws", "20"],
                          cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("paired percentile-bootstrap test that A's budget to 0.9 over "
                               "B's differs from 1")
    assert lines[1].startswith(f"  pilot    {tmp_path}, A cell 0, B cell 2, 400 seeds")
    a, b = synthetic_pilot(400)
    n_normal = normal_seeds(pilot_spread(a, b, BUDGETS, BUDGETS)[1], 400, 1.5)
    assert lines[3].startswith(f"  n_normal {n_normal:g}  (")
    # The printed curve obeys the rule n_exact states: every n from it on reaches 0.8, and the
    # evaluated n just below it (if any) does not.
    curve = [(int(n), float(p)) for p, n in re.findall(r"([\d.]+) at (\d+) \(20 draws\)",
                                                       lines[4])]
    n_exact = float(re.match(r"  n_exact  (\S+)  \(", lines[2]).group(1))
    assert curve and all(p >= 0.8 for n, p in curve if n >= n_exact)
    below = [p for n, p in curve if n < n_exact]
    assert not below or below[-1] < 0.8


@pytest.mark.parametrize(("arguments", "message"), [
    (["--runs", "{missing}"], "error: --runs: '{missing}' has no runs.parquet"),
    (["--a", "algorithm=reinforce"], "error: --a: 'algorithm=reinforce' matches cells 0, 1: "
     "add keys to pick one"),
    (["--a", "lr=0.1"], "error: --a: 'lr=0.1' (cell 1) does not reach accuracy 0.9 in the pilot "
     "by its largest budget, 6,400"),
    (["--b", "cell=0"], "error: --b: 'cell=0' is cell 0, the same as --a"),
    (["--ratio", "0"], "error: --ratio: '0' is not a ratio > 0"),
    (["--ratio", "1"], "error: --ratio: '1' is no difference to detect (to show that the ratio "
     "is near 1, plan with --equivalence MARGIN)"),
    (["--equivalence", "1"], "error: --equivalence: '1' is not a ratio margin > 1"),
    (["--equivalence", "1.25"], "error: --ratio: '1.5' is not inside the equivalence margin "
     "[1/1.25, 1.25]"),
    (["--draws", "0.5"], "error: --draws: '0.5' is not a whole number >= 1"),
])
def test_ratio_command_rejects_bad_values(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          arguments: list[str], message: str) -> None:
    write_pilot(tmp_path / "pilot")
    given = {"--runs": str(tmp_path / "pilot"), "--a": "cell=0", "--b": "cell=2",
             "--ratio": "1.5"}
    for flag, value in zip(arguments[::2], arguments[1::2], strict=True):
        given[flag] = value.format(missing=tmp_path / "missing")
    assert plan_main(["ratio", *itertools.chain.from_iterable(given.items())]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == message.format(missing=tmp_path / "missing") + "\n"
