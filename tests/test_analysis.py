"""Each statistical function against a case with a known answer."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import report_checks as checks
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom, binomtest, norm
from scipy.stats import t as student_t

from analysis.accuracy import accuracy_table, chance_levels
from analysis.bands import sup_t_band
from analysis.budget_to_target import (
    BudgetRatio,
    bootstrap_weights,
    budget_ratio,
    budget_to_target,
    crossing,
    crossings_of,
    hardness,
    percentile_range,
    resampled_crossings,
    resampled_crossings_of,
)
from analysis.cost import (
    SETTLED_SEEDS,
    Support,
    best_budgets,
    break_even_costs,
    compare_by_net_value,
    mean_interval,
    net_value_table,
)
from analysis.families import declare, family_sizes, holm
from analysis.hardness import bandit_interval, hardness_tables
from analysis.outcomes import Outcomes
from analysis.paired import PairedTable, compare_outcomes, mcnemar_power, paired_table
from analysis.power import (
    chance_power,
    chance_power_mc,
    paired_power_mc,
    seeds_for_power,
)
from analysis.questions.per_arm_vs_chance import chance_equivalence
from analysis.roles import LrRole
from analysis.tables import write_tables
from figures.words import budget_estimate
from study.model.schema import RUNS_FILE


def runs_frame(correct: np.ndarray, budgets: list[int], probs: str = "0.5,0.55,0.6",
               greedy: np.ndarray | None = None, cell: int = 0) -> pd.DataFrame:
    """A runs table for one cell from a (seeds, checkpoints) matrix of outcomes (the columns the
    analysis reads)."""
    seeds, checkpoints = correct.shape
    if greedy is None:
        greedy = np.where(correct, 2, 0)
    values = np.array([float(p) for p in probs.split(",")])
    return pd.DataFrame({
        "cell": cell, "algorithm": "reinforce", "nested": True, "baseline": "running_mean",
        "lr": 0.1, "group_size": 1, "normalization": "per_group",
        "reward_model": "bernoulli", "environment": probs, "draw": "fixed",
        "arms": len(values), "arm_values": [tuple(values)] * (seeds * checkpoints),
        "draw_parameters": [()] * (seeds * checkpoints), "cost": 0.0,
        "greedy_value": values[greedy.ravel()],
        "seed": np.repeat(np.arange(seeds), checkpoints),
        "budget": np.tile(budgets, seeds), "rollouts": np.tile(budgets, seeds),
        "greedy_arm": greedy.ravel(), "best_arm": 2,
        "correct": correct.ravel(), "finite": True, "zero_signal_updates": 0,
        "best_value": values.max(), "pass_rate": np.nan})


def outcomes_of(*frames: pd.DataFrame) -> Outcomes:
    """The outcomes of the cells of these runs tables."""
    return Outcomes.from_runs(pd.concat(frames, ignore_index=True))


def test_wilson_interval_matches_its_formula() -> None:
    k, n, z = 33, 40, norm.ppf(0.975)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    correct = np.zeros((n, 1), dtype=bool)
    correct[:k] = True
    row = accuracy_table(outcomes_of(runs_frame(correct, [50]))).iloc[0]
    assert row["accuracy"] == p and row["seeds"] == n and row["non_finite"] == 0
    assert row["ci_low"] == pytest.approx(centre - half, abs=1e-12)
    assert row["ci_high"] == pytest.approx(centre + half, abs=1e-12)


def test_chance_level_counts_tied_best_arms() -> None:
    correct = np.zeros((2, 1), dtype=bool)
    assert chance_levels(outcomes_of(runs_frame(correct, [10]))) == {0: pytest.approx(1 / 3)}
    assert chance_levels(outcomes_of(runs_frame(correct, [10], "0.6,0.5,0.6,0.1", cell=4))) == {
        4: pytest.approx(0.5)}


def test_mcnemar_on_agresti_presidential_approval_table() -> None:
    # Agresti (2007), An Introduction to Categorical Data Analysis, Table 8.1: 1600 people asked
    # twice; 794 approve both times, 150 approve then disapprove, 86 the reverse, 570 neither.
    # McNemar z^2 = (150 - 86)^2 / 236 = 17.36; the Wald 95% interval of the drop in approval
    # 0.59 - 0.55 = 0.04 is (0.020, 0.060); Newcombe's interval agrees to rounding at this n.
    table = PairedTable(both=794, only_a=150, only_b=86, neither=570)
    assert table.mcnemar_statistic() == pytest.approx(17.36, abs=0.005)
    assert table.mcnemar_pvalue() < 1e-4
    assert table.difference == pytest.approx(0.04)
    low, high = table.difference_ci()
    assert low == pytest.approx(0.020, abs=0.002) and high == pytest.approx(0.060, abs=0.002)


@pytest.mark.slow
def test_newcombe_interval_covers_the_true_difference_at_its_nominal_rate() -> None:
    # 4000 paired samples of 60 pairs with a true difference of 0.1; the interval's coverage is
    # estimated within 4.5 standard errors (sqrt(0.95 * 0.05 / 4000) = 0.0034), and Newcombe
    # reports method 10 close to nominal: we require 0.93 or more.
    rng = np.random.default_rng(7)
    probs = [0.55, 0.2, 0.1, 0.15]  # both, only A, only B, neither: difference 0.1
    hits = 0
    trials = 4000
    for counts in rng.multinomial(60, probs, size=trials):
        low, high = PairedTable(*map(int, counts)).difference_ci()
        hits += low <= 0.1 <= high
    assert hits / trials >= 0.93


def test_paired_table_counts_and_holm() -> None:
    table = paired_table(np.array([1, 1, 0, 0, 1], bool), np.array([1, 0, 1, 0, 0], bool))
    assert (table.both, table.only_a, table.only_b, table.neither) == (1, 2, 1, 1)
    # Holm by hand: sorted 0.01, 0.02, 0.04 times 3, 2, 1, then made monotone.
    np.testing.assert_allclose(holm(np.array([0.04, 0.01, 0.02])), [0.04, 0.03, 0.04])


def test_power_of_a_known_one_sample_design() -> None:
    # Cohen (1988), Table 6.3.1: h = 0.2 (0.6 against 0.5), n = 100, one-sided alpha = 0.05 gives
    # power 0.64. The exact binomial power is the reference for the Monte Carlo estimate
    # (2000 resamples: standard error <= 0.011, we allow 4.5 of them).
    assert chance_power(0.6, 0.5, [100])[0] == pytest.approx(0.64, abs=0.006)
    critical = int(binom.isf(0.05, 100, 0.5)) + 1  # smallest k with P(K >= k) <= 0.05
    exact = binom.sf(critical - 1, 100, 0.6)
    assert chance_power_mc(0.6, 0.5, np.array([100]))[0] == pytest.approx(exact, abs=0.05)
    n80 = seeds_for_power(lambda n: chance_power(0.6, 0.5, [n])[0])
    assert chance_power(0.6, 0.5, [n80])[0] >= 0.8 > chance_power(0.6, 0.5, [n80 - 1])[0]


def test_mcnemar_power_formula_and_monte_carlo_agree() -> None:
    # Connor (1987): n = ((z_a sqrt(psi) + z_b sqrt(psi - delta^2)) / delta)^2 pairs give power
    # 1 - beta; psi = 0.3, delta = 0.1, two-sided 0.05, power 0.8: n = 233.1.
    psi, delta = 0.3, 0.1
    n = ((norm.ppf(0.975) * math.sqrt(psi) + norm.ppf(0.8) * math.sqrt(psi - delta**2))
         / delta) ** 2
    assert n == pytest.approx(233.1, abs=0.1)
    # Connor's one-tailed formula gives 0.8 exactly; the far tail adds Phi(-4.8) = 7e-7.
    assert mcnemar_power(0.2, 0.1, np.array([n]))[0] == pytest.approx(0.8, abs=1e-6)
    assert mcnemar_power(0.1, 0.1, np.array([100, 10_000])) == pytest.approx(0.05)
    # With no discordant pairs the test has nothing to count and never rejects.
    assert mcnemar_power(0.0, 0.0, np.array([10, 10_000])).tolist() == [0.0, 0.0]
    # The exact test is slightly conservative against the approximation; 4.5 MC standard errors
    # (0.009 each) plus 0.02 for the approximation.
    assert paired_power_mc(0.2, 0.1, np.array([234]))[0] == pytest.approx(0.8, abs=0.06)


def test_crossing_interpolates_in_log_budget_and_reports_never() -> None:
    budgets = np.array([10.0, 100.0, 1000.0])
    assert crossing(budgets, np.array([0.5, 0.8, 1.0])) == pytest.approx(10 ** 2.5)
    assert crossing(budgets, np.array([0.95, 0.97, 0.99])) == 10.0
    assert math.isinf(crossing(budgets, np.array([0.5, 0.6, 0.7])))
    # isotonic: a dip is pooled before the crossing is read off
    assert crossing(budgets, np.array([0.5, 0.96, 0.9])) == pytest.approx(
        crossing(budgets, np.array([0.5, 0.93, 0.93])))


COVERAGE_REPETITIONS = 440
"""Repetitions of a coverage test: the fewest (in steps of ten) at which one threshold passes an
interval whose coverage is 0.85 with probability at most 0.01 (fails it with 0.99 or more) and
fails one whose coverage is 0.93 (a bootstrap interval a little short of its nominal 0.95) with
probability at most 0.001 (``coverage_threshold``)."""


def coverage_threshold(repetitions: int) -> int:
    """The least count of covering repetitions that passes: the smallest c with
    P(Binomial(repetitions, 0.85) >= c) <= 0.01 (scipy's isf); checked to fail a 0.93 interval
    with probability at most 0.001 at these repetitions."""
    threshold = int(binom.isf(0.01, repetitions, 0.85)) + 1
    assert binom.cdf(threshold - 1, repetitions, 0.93) <= 0.001
    return threshold


@pytest.mark.slow
def test_budget_to_target_interval_covers_a_known_logistic_crossing() -> None:
    # Seeds with a latent uniform u are right at budget B when u < acc(B), a logistic in log B
    # from chance 1/3 to 1: the marginal accuracy is exactly acc(B), and acc = 0.9 at B* below.
    # The count of repetitions whose 95% interval covers B* is binomial (COVERAGE_REPETITIONS).
    budgets = np.geomspace(100, 100_000, 25)
    chance, mid, slope = 1 / 3, math.log(3000.0), 1.3

    def accuracy(b: np.ndarray) -> np.ndarray:
        return chance + (1 - chance) / (1 + np.exp(-slope * (np.log(b) - mid)))

    share = (0.9 - chance) / (1 - chance)
    truth = math.exp(mid + math.log(share / (1 - share)) / slope)
    rng = np.random.default_rng(3)
    covered = 0
    for repetition in range(COVERAGE_REPETITIONS):
        latent = rng.random((400, 1))
        estimate = budget_to_target(latent < accuracy(budgets), budgets, resamples=300,
                                    seed=repetition)
        covered += estimate.ci_low <= truth <= estimate.ci_high
    assert covered >= coverage_threshold(COVERAGE_REPETITIONS)


def test_budget_not_reached_is_a_lower_bound() -> None:
    estimate = budget_to_target(np.zeros((50, 3), dtype=bool), np.array([10, 100, 1000]))
    assert not estimate.reached and estimate.estimate == 1000
    shown = (estimate.estimate, estimate.ci_low, estimate.ci_high, estimate.reached,
             estimate.at_first, estimate.largest_budget)
    assert budget_estimate(shown) == "not reached by 1,000 (budget > 1,000)"


def test_budget_reached_at_the_first_checkpoint_is_an_upper_bound() -> None:
    estimate = budget_to_target(np.ones((50, 3), dtype=bool), np.array([10, 100, 1000]))
    assert estimate.reached and estimate.at_first and estimate.estimate == 10
    shown = (estimate.estimate, estimate.ci_low, estimate.ci_high, estimate.reached,
             estimate.at_first, estimate.largest_budget)
    assert budget_estimate(shown) == "reached by the first checkpoint (budget <= 10)"


def test_resampled_crossings_asked_again_are_those_computed_afresh_and_a_caller_cannot_change_them(
) -> None:
    # Kept results must be exactly what the resamples give (each row's crossing of its own
    # resampled curve), for every matrix of a call whether or not it was asked for before, and a
    # caller that writes into what it got must not change what the next caller gets.
    rng = np.random.default_rng(5)
    budgets = np.array([10.0, 20.0, 40.0, 80.0, 160.0])
    first, second = (np.sort(rng.random((30, 5)) < 0.8, axis=1).astype(float) for _ in range(2))
    weights = bootstrap_weights(30, 200, 3)
    fresh = [crossings_of(budgets, weights @ m / 30, 0.9) for m in (first, second)]
    got = resampled_crossings(first, budgets, 0.9, 200, 3)
    np.testing.assert_array_equal(got, fresh[0])
    got[:] = -1.0
    again = resampled_crossings_of([second, first], budgets, 0.9, 200, 3)
    np.testing.assert_array_equal(again[0], fresh[1])
    np.testing.assert_array_equal(again[1], fresh[0])
    # Another target, resample count or seed is another result.
    assert not np.array_equal(resampled_crossings(first, budgets, 0.9, 200, 4), fresh[0])


def test_budget_ratio_counts_resamples_where_neither_reaches_the_target() -> None:
    # Forty seeds, two checkpoints; A is right on 37 seeds at the second (0.925) and B on 36
    # (0.9), both wrong at the first. In a resample drawing more of the wrong seeds neither curve
    # reaches 0.9: those resamples count against both limits instead of being dropped.
    budgets = np.array([10, 100])
    a = np.zeros((40, 2), dtype=bool)
    a[:37, 1] = True
    b = np.zeros((40, 2), dtype=bool)
    b[:36, 1] = True
    ratio = budget_ratio(a, b, budgets, resamples=400)
    assert ratio.undefined_resamples > 0.025 * 400
    assert (ratio.ci_low, ratio.ci_high) == (0.0, math.inf)
    assert budget_ratio(a, a, budgets, resamples=400).undefined_resamples > 0


def test_budget_ratio_equivalence_is_two_one_sided_tests_on_the_90_percent_interval() -> None:
    inside = BudgetRatio(1.0, 0.7, 1.4, 100, 0, 0.82, 1.2)
    assert inside.equivalent(1.25) and not inside.equivalent(1.15)
    assert not BudgetRatio(1.0, 0.5, 2.0, 100, 0, 0.6, 1.7).equivalent(1.25)


def test_an_equivalence_verdict_within_monte_carlo_error_is_unresolved() -> None:
    # The referee's case: an upper 90% limit of 1.2488 against the margin 1.25, with a Monte
    # Carlo range of about +-0.005 around it, could as well have been 1.2528.
    close = BudgetRatio(1.0, 0.7, 1.4, 100, 0, 0.82, 1.2488, 1000, (0.81, 0.83), (1.244, 1.254))
    assert close.equivalent(1.25) and close.equivalence(1.25) == "unresolved"
    clear = BudgetRatio(1.0, 0.7, 1.4, 100, 0, 0.82, 1.2, 1000, (0.81, 0.83), (1.19, 1.21))
    assert clear.equivalence(1.25) == "equivalent" and clear.equivalence(1.15) == "not shown"
    assert clear.equivalence(1 / 0.825) == "unresolved"  # the lower limit's range holds 0.825
    # A range wholly on the failing side settles it, whatever the other limit's range holds.
    far = BudgetRatio(1.0, 0.7, 1.7, 100, 0, 0.8, 1.55, 1000, (0.79, 0.81), (1.5, 1.6))
    assert far.equivalence(1.25) == "not shown"


def test_percentile_range_covers_the_true_quantile_at_its_level() -> None:
    # Ranks from the binomial(n, q) count below the quantile: coverage is at least 95% by
    # construction. 2,000 replicates of 1,000 uniform draws estimate it with a standard error
    # of sqrt(0.95 * 0.05 / 2000) = 0.0049; three of them below 0.95 is the failure line.
    rng = np.random.default_rng(7)
    for q in (0.05, 0.95):
        covered = np.mean([low <= q <= high for low, high in
                           (percentile_range(rng.random(1000), q) for _ in range(2000))])
        assert covered >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / 2000)


def test_hardness_of_the_headline_and_narrow_instances() -> None:
    assert hardness((0.5, 0.55, 0.6)) == pytest.approx(1 / 0.1**2 + 1 / 0.05**2)
    assert hardness((0.50, 0.51, 0.52)) == pytest.approx(2500 + 10_000)


def test_families_adjust_within_and_count_cost_twins_once() -> None:
    # Two costs of one simulation: the second cost's rows are the same hypotheses, so Holm runs
    # over the two first-cost rows only (0.01, 0.04 -> 0.02, 0.04) and the twins carry those.
    table = pd.DataFrame({"algorithm": "reinforce", "baseline": "running_mean", "lr": 0.1,
                          "group_size": 1, "reward_model": "bernoulli", "environment": "e",
                          "budget": [10, 20, 10, 20], "cost": [0.0, 0.0, 0.5, 0.5],
                          "p_value": [0.01, 0.04, 0.01, 0.04]})
    got = declare(table, "s/t")
    assert got["p_value_holm"].tolist() == pytest.approx([0.02, 0.04, 0.02, 0.04])
    assert family_sizes(got) == {"s/t": 2}
    # A primary family of two rows leaves the rest in its own family.
    primary = pd.Series([True, False, False, False])
    split = declare(declare(table.assign(cost=0.0), "s/primary", primary), "s/t", ~primary)
    assert split["family"].tolist() == ["s/primary", "s/t", "s/t", "s/t"]
    assert split["p_value_holm"].tolist() == pytest.approx([0.01, 0.08, 0.03, 0.08])


def test_chance_equivalence_names_above_below_and_equivalent() -> None:
    # 900 seeds per cell, chance 1/3. Cell 0 right on exactly 300 (at chance): two one-sided
    # exact tests against 1/3 -+ 0.05 each reject (|z| about 3.2), and the two-sided test does not.
    # Cell 1 right on 450 (0.5): above chance, and not within 0.05 of it. Cell 2 right on 200:
    # below.
    frames = []
    for cell, right in enumerate((300, 450, 200)):
        correct = np.zeros((900, 1), dtype=bool)
        correct[:right] = True
        frames.append(runs_frame(correct, [100], cell=cell))
    table = chance_equivalence(outcomes_of(*frames), [0, 1, 2], "s", 0.05)
    assert table["finding"].tolist() == ["equivalent", "higher", "lower"]
    assert table["within_margin"].tolist() == [True, False, False]
    # TOST's p-value is the larger of the two one-sided exact tail probabilities.
    tails = (binom.sf(299, 900, 1 / 3 - 0.05), binom.cdf(300, 900, 1 / 3 + 0.05))
    assert table["p_equivalence"].iat[0] == pytest.approx(max(tails), rel=1e-9)
    assert set(table["family"]) == {"s/chance_two_sided"}
    assert set(table["equivalence_family"]) == {"s/chance_equivalence"}


def test_paired_interval_and_test_disagreement_is_flagged() -> None:
    # 0 against 5 discordant seeds of 100: the Newcombe interval excludes 0, McNemar's exact
    # p = 2 / 2^5 = 0.0625; 0 against 7: both say different.
    a = np.r_[np.ones(5, dtype=bool), np.zeros(95, dtype=bool)]
    b = np.zeros(100, dtype=bool)
    five = compare_outcomes(a, b)
    assert five["p_value"] == pytest.approx(0.0625) and five["ci_low"] > 0
    assert not five["interval_agrees"]
    a[:7] = True
    assert compare_outcomes(a, b)["interval_agrees"]


def test_net_value_and_break_even_on_a_hand_made_table() -> None:
    # Eight seeds; at budget 10 half deploy the 0.6 arm and half the 0.5 arm (mean 0.55), in
    # both the even seeds (which choose the best budget) and the odd ones (which estimate it);
    # at 20 all deploy 0.6. With D = 1000 the step 10 -> 20 gains 1000 * 0.05 over 10 pulls:
    # break-even 5.
    correct = np.array([[1, 1], [1, 1], [0, 1], [0, 1]] * 2, dtype=bool)
    runs = outcomes_of(runs_frame(correct, [10, 20]))
    net = net_value_table(runs, 1000)
    assert net["net_value"].tolist() == pytest.approx([550.0, 600.0])
    best = best_budgets(runs, 1000).iloc[0]
    # Gains per odd seed 0, 0, 100, 100: mean 50, but two differing seeds of four bound it only
    # by the support [-100, 100] times the Clopper-Pearson bound of P(gain != 0): it includes 0.
    assert best["best_budget"] == 20 and best["runner_up_budget"] == 10
    assert best["gain_over_runner_up"] == pytest.approx(50.0)
    assert best["gain_over_runner_up_low"] < 0 < best["gain_over_runner_up_high"]
    assert not best["resolved"]
    step = break_even_costs(runs, 1000).iloc[0]
    assert step["break_even_cost"] == pytest.approx(5.0)
    assert step["ci_low"] < 5.0 < step["ci_high"]
    # The seeds beside the bound: four of the eight deploy a better arm after the step and none
    # a worse one; the exact sign test gives 2 (1/2)^4 = 1/8.
    assert (step["seeds_better"], step["seeds_worse"]) == (4, 0)
    assert step["p_value"] == pytest.approx(0.125, rel=1e-12)


def test_mean_interval_at_the_boundary_is_the_rule_of_three() -> None:
    # No seed of 10,000 away from 0.55, deployed values 0.5, 0.55 or 0.6: P(X > 0.55) and
    # P(X < 0.55) are each bounded by the one-sided Clopper-Pearson limit 1 - 0.0125^(1/n) (the
    # four one-sided limits of the bound at 1 - 0.05 / 4 each), so the mean lies within 0.05 times
    # that of 0.55, not in a zero-width interval.
    n = 10_000
    support = Support((0.5, 0.55, 0.6))
    got = mean_interval(np.full(n, 0.55), support)
    u = 1 - 0.0125 ** (1 / n)
    assert got.method == "bound"
    assert (got.low, got.high) == (pytest.approx(0.55 - 0.05 * u), pytest.approx(0.55 + 0.05 * u))
    # 24 seeds above and none below: the lower limit counts the smallest possible gain (0.05)
    # times the lower Clopper-Pearson limit of 24 of n, and lies above 0.55.
    some = mean_interval(np.r_[np.full(n - 24, 0.55), np.full(24, 0.6)], support)
    lower = binomtest(24, n, alternative="greater").proportion_ci(0.9875).low
    upper = binomtest(24, n, alternative="less").proportion_ci(0.9875).high
    assert (some.low, some.high) == (pytest.approx(0.55 + 0.05 * lower - 0.05 * u),
                                     pytest.approx(0.55 + 0.05 * upper))
    assert some.low > 0.55
    # Enough seeds away from the common value: the t interval.
    values = np.r_[np.full(n - 50, 0.6), np.full(50, 0.5)]
    t = mean_interval(values, support)
    half = student_t.ppf(0.975, n - 1) * values.std(ddof=1) / math.sqrt(n)
    assert t.method == "t" and t.high - t.mean == pytest.approx(half)


@pytest.mark.parametrize("rate", [1e-4, 5e-4, 2e-3])
def test_mean_interval_covers_a_rare_event_rate(rate: float) -> None:
    # Exact coverage of the interval for E X, X ~ Bernoulli(rate) on n seeds, summed over every
    # count k (no simulation error). Below SETTLED_SEEDS differing seeds the interval is a
    # Clopper-Pearson bound, conservative by construction; above it the t interval, whose
    # coverage with 30 or more differing seeds is near 95% (the normal approximation to a
    # Poisson count of mean >= 30 is off by about a percent: allowed 0.935). A plain t interval
    # would cover rate 1e-4 with probability at most 1 - P(k = 0) = 1 - e^-1.
    n = 10_000
    coverage = 0.0
    for k in range(0, 200):
        values = np.r_[np.ones(k), np.zeros(n - k)]
        interval = mean_interval(values, Support((0.0, 1.0)))
        coverage += binom.pmf(k, n, rate) * (interval.low <= rate <= interval.high)
    assert coverage >= (0.95 if rate * n * 3 < SETTLED_SEEDS else 0.935)


def test_net_value_comparison_names_the_higher_learner_or_none() -> None:
    # REINFORCE (cell 0) deploys 0.6 on every seed from budget 20; uniform (cell 1) deploys 0.5
    # on every seed. At cost 0 each is best at its cheapest budget with the highest value;
    # REINFORCE's lead 1000 * 0.1 on every odd seed is certain up to the rule-of-three bound.
    seeds = 40
    ours = runs_frame(np.c_[np.zeros(seeds), np.ones(seeds)].astype(bool), [10, 20])
    theirs = runs_frame(np.zeros((seeds, 2), dtype=bool), [10, 20], cell=1).assign(
        algorithm="uniform")
    table = compare_by_net_value(outcomes_of(ours, theirs), [(0, 1)], 1000)
    row = table[table["deployment_pulls"] == 1000].iloc[0]
    assert (row["best_budget_a"], row["best_budget_b"]) == (20, 10)
    assert row["difference"] == pytest.approx(100.0)
    assert row["ci_low"] > 0 and row["higher"] == "reinforce"
    assert set(table["deployment_pulls"]) == {100.0, 1000.0, 10_000.0}


def test_net_value_direction_needs_the_simultaneous_interval() -> None:
    # Odd seeds (100): REINFORCE right and uniform wrong on 25, the reverse on 12, both right on
    # the rest; both right on every even seed and at both budgets, so each deploys the same at
    # either best budget. The paired gains D * 0.1 * {+1, -1, 0} have t = 0.13 / (s / 10) = 2.19
    # (s = 0.594) at every D: past the per-row 95% t quantile (1.98, 99 df) but not the
    # Bonferroni one of the table's 3 rows (1 - 0.05 / 6: 2.43), so no direction is claimed.
    seeds = 200
    odd = np.arange(100)
    ours_odd = (odd < 25) | (odd >= 37)
    theirs_odd = odd >= 25
    ours, theirs = np.ones(seeds, dtype=bool), np.ones(seeds, dtype=bool)
    ours[1::2], theirs[1::2] = ours_odd, theirs_odd
    table = compare_by_net_value(outcomes_of(
        runs_frame(np.c_[ours, ours], [10, 20]),
        runs_frame(np.c_[theirs, theirs], [10, 20], cell=1).assign(algorithm="uniform")),
        [(0, 1)], 1000)
    assert (table["interval"] == "t").all() and (table["ci_low"] > 0).all()
    assert (table["simultaneous_low"] < 0).all() and (table["higher"] == "unresolved").all()


def test_p_values_are_shown_to_two_digits_and_floored_at_1e_15() -> None:
    from analysis.tables import floored, p_text, readable
    from figures.words import pvalue

    assert p_text(0.01349) == "p = 0.013"
    assert p_text(1.3e-268) == p_text(0.0) == p_text(5e-324) == "p < 1e-15"
    assert pvalue(2e-15) == "= 2e-15"
    assert pvalue(0.0) == "< 1e-15"
    table = pd.DataFrame({"p_value": [0.5, 1e-300, np.nan], "p_vs_chance_holm": [1e-16, 1.0, 0.04],
                          "gain": [6.1846e-15, -2.0, 1e-12], "arm": ["a", "b", "c"]})
    shown = readable(table)
    assert shown["p_value"].tolist() == ["0.5", "< 1e-15", ""]
    assert shown["p_vs_chance_holm"].tolist() == ["< 1e-15", "1", "0.04"]
    # Not a p-value: a rounding residue is 0, anything at or above ROUNDING_NOISE is kept.
    assert shown["gain"].tolist() == [0.0, -2.0, 1e-12]
    assert shown["arm"].tolist() == ["a", "b", "c"]
    # The CSV keeps each computed p-value in full down to the floor, and never prints 0 (a
    # p-value that underflowed).
    written = floored(table)
    assert written["p_value"].tolist() == ["0.5", "< 1e-15", ""]
    assert written["p_vs_chance_holm"].tolist() == ["< 1e-15", "1.0", "0.04"]
    assert floored(pd.DataFrame({"p_value": [0.0123456789]}))["p_value"].tolist() == [
        "0.0123456789"]


def test_a_missing_run_is_an_error_not_a_correct_outcome() -> None:
    runs = runs_frame(np.array([[False, True], [True, True]]), [10, 20])
    outcomes = Outcomes.from_runs(runs.iloc[::-1])
    assert outcomes.outcomes(0).tolist() == [[False, True], [True, True]]
    assert outcomes.budgets.tolist() == [10, 20] and outcomes.seeds.tolist() == [0, 1]
    with pytest.raises(ValueError, match="one row per"):
        Outcomes.from_runs(runs.drop(index=1))
    # Every cell on the same seeds: a cell with a seed the others lack cannot be paired.
    other = runs_frame(np.ones((3, 2), dtype=bool), [10, 20], cell=1)
    with pytest.raises(ValueError, match="one row per"):
        outcomes_of(runs, other)
    with pytest.raises(ValueError, match="no column zero_signal_updates"):
        Outcomes.from_runs(runs.drop(columns="zero_signal_updates"))


@pytest.mark.slow
def test_sup_t_band_covers_a_known_curve_at_every_checkpoint_at_once() -> None:
    # Seeds with a latent uniform u are right at checkpoint j when u < acc_j: the marginal
    # accuracies are exactly acc_j and a seed's checkpoints are correlated, as in a run. The
    # count of repetitions whose band covers the whole curve is binomial
    # (COVERAGE_REPETITIONS). The pointwise intervals cover the whole curve less often, and the
    # band is wider by a common factor above 1.
    truth = np.linspace(0.4, 0.99, 25)
    rng = np.random.default_rng(11)
    whole, pointwise_whole = 0, 0
    for repetition in range(COVERAGE_REPETITIONS):
        correct = rng.random((400, 1)) < truth
        band = sup_t_band(correct, resamples=300, seed=repetition)
        whole += bool(np.all((band.band_low <= truth) & (truth <= band.band_high)))
        pointwise_whole += bool(np.all((band.low <= truth) & (truth <= band.high)))
        assert band.factor > 1
    assert whole >= coverage_threshold(COVERAGE_REPETITIONS) and pointwise_whole < whole


def test_hardness_slope_recovers_a_known_power_law() -> None:
    # Four bandits whose accuracy is a logistic in log B centred at 20 * H^0.8, so the budget to
    # 0.9 is exactly proportional to H^0.8: the fitted slope of log budget on log H is 0.8. With
    # 2,000 seeds a crossing's log has standard error about 0.025 (0.0067 in accuracy over the
    # logistic's slope 0.27 at 0.9); over log H with standard deviation 1.1 and four bandits the
    # slope's is about 0.012, so 0.05 is four of them, and the 95% interval must cover 0.8.
    hs = np.array([100.0, 400.0, 2000.0, 9000.0])
    checkpoints = np.geomspace(10, 1e6, 60)
    rng = np.random.default_rng(5)
    latent = rng.random((2000, 1))
    outcomes, rows = {}, []
    for cell, h in enumerate(hs):
        accuracy = 1 / (1 + np.exp(-3 * (np.log(checkpoints) - np.log(20 * h**0.8))))
        outcomes[cell] = (latent < accuracy, checkpoints)
        rows.append({"cell": cell, "algorithm": "uniform", "lr_role": LrRole.GRID,
                     "environment": f"bandit {cell}", "arms": 2, "baseline": "none", "lr": 0.0,
                     "hardness_H": h})
    slope = hardness_tables(outcomes, pd.DataFrame(rows), resamples=200)["hardness_slope"]
    got = slope.iloc[0]
    assert got["slope"] == pytest.approx(0.8, abs=0.05)
    assert got["ci_low"] <= 0.8 <= got["ci_high"]


def test_bandit_interval_is_the_least_squares_slopes_t_interval() -> None:
    # An independent reference: statsmodels' OLS of log budget on log H and its 95% interval.
    import statsmodels.api as sm

    h = np.array([125.0, 400.0, 900.0, 2500.0, 7600.0])
    budgets = np.array([300.0, 1100.0, 1700.0, 6000.0, 14000.0])
    fit = sm.OLS(np.log(budgets), sm.add_constant(np.log(h))).fit()
    assert bandit_interval(h, budgets) == pytest.approx(tuple(fit.conf_int(0.05)[1]), rel=1e-12)


def test_writing_tables_removes_a_table_no_longer_made(tmp_path: Path) -> None:
    write_tables({"kept": pd.DataFrame({"a": [1]}), "gone": pd.DataFrame({"a": [2]})},
                 tmp_path)
    write_tables({"kept": pd.DataFrame({"a": [1]})}, tmp_path)
    assert sorted(p.name for p in tmp_path.glob("*.csv")) == ["kept.csv"]
    assert not (tmp_path / "gone.md").exists()


def test_a_cost_twin_follows_its_first_cost_row_into_that_rows_family() -> None:
    # The primary row's twin at cost 0.5 is in the primary family with the same adjusted p,
    # even though the mask of the secondary family covers it.
    table = pd.DataFrame({"algorithm": "reinforce", "baseline": "running_mean", "lr": 0.1,
                          "group_size": 1, "reward_model": "bernoulli", "environment": "e",
                          "budget": [10, 20, 10, 20], "cost": [0.0, 0.0, 0.5, 0.5],
                          "p_value": [0.01, 0.04, 0.01, 0.04]})
    primary = pd.Series([True, False, False, False])
    got = declare(declare(table, "s/primary", primary), "s/t", ~primary)
    assert got["family"].tolist() == ["s/primary", "s/t", "s/primary", "s/t"]
    assert got["p_value_holm"].tolist() == pytest.approx([0.01, 0.04, 0.01, 0.04])
    assert family_sizes(got) == {"s/primary": 1, "s/t": 1}


def test_outcomes_load_reads_what_the_tidy_table_holds(tmp_path: Path) -> None:
    from study.model.config import config_from_dict
    from study.orchestration.outputs import run_and_write
    from study.orchestration.storage import read_runs

    config = config_from_dict({"study": {"name": "shape", "root_seed": 5, "seeds": 24},
                               "grid": {"probs": [[0.5, 0.7], [0.2, 0.5, 0.6]],
                                        "lr": [0.1, 1.0], "cost": [0.0, 0.01],
                                        "budgets": [4, 16, 64]}})
    run_and_write(config, tmp_path, quiet=True)
    loaded, tidy = Outcomes.load(tmp_path), Outcomes.from_runs(read_runs(tmp_path))
    pd.testing.assert_frame_equal(loaded.cells, tidy.cells)
    for name in ("seeds", "budgets", "correct", "finite", "greedy_value", "zero_signal",
                 "rollouts"):
        got, expected = getattr(loaded, name), getattr(tidy, name)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)
    assert len(loaded.cells) > 1 and not loaded.correct.all() and loaded.correct.any()
    # A runs table missing one run is refused, not read with a hole in it.
    runs = pq.read_table(tmp_path / RUNS_FILE)
    pq.write_table(runs.slice(1), tmp_path / RUNS_FILE)
    with pytest.raises(ValueError, match="not one row per"):
        Outcomes.load(tmp_path)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 12), st.integers(1, 60), st.floats(0.0, 1.05), st.integers(0, 2**32 - 1),
       st.sampled_from([0.0, 0.01, 0.1]))
def test_crossings_of_many_curves_are_each_curves_crossing(
        checkpoints: int, rows: int, target: float, seed: int, noise: float) -> None:
    # Rising, tied and falling curves alike, read at once, against the report's checker, which
    # fits each curve by scipy's isotonic regression and reads it in scalar arithmetic
    # (math.log and math.exp: within an ulp or two of numpy's, hence 1e-12).
    rng = np.random.default_rng(seed)
    budgets = np.cumsum(rng.integers(1, 50, checkpoints)).astype(float)
    curves = np.sort(rng.uniform(0, 1, (rows, checkpoints)), axis=1)
    curves = np.clip(curves + rng.normal(0, noise, curves.shape), 0, 1)
    curves[::3] = np.round(curves[::3] * 8) / 8
    found = crossings_of(budgets, curves, target)
    expected = np.array([checks.crossing(budgets, curve, target) for curve in curves])
    np.testing.assert_allclose(found, expected, rtol=1e-12)
