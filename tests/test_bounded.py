"""Means of bounded values by betting (``analysis.bounded``): against a slow reference written
from the paper, the test's duality with its interval, and the coverage the interval promises
where a t interval's fails."""

from __future__ import annotations

import math

import numpy as np
import pytest
from betting_reference import capital, p_value
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import t as student_t

from analysis.bounded import betting_interval, betting_p_value, pair_halves, paired_betting


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=2, max_size=60),
       st.floats(-0.4, 0.4), st.floats(0.001, 0.2), st.sampled_from([0.05, 0.01, 0.0005]))
def test_the_p_value_is_the_references(unit, shift, null, alpha) -> None:
    low, high = -0.5 + shift, 0.5 + shift
    values = [low + u * (high - low) for u in unit]
    mean = low + null * (high - low)
    expected = p_value(values, low, high, mean, alpha)
    assert betting_p_value(np.array(values), low, high, mean, alpha=alpha) == pytest.approx(
        expected, rel=1e-9, abs=1e-300)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=2, max_size=60), st.sampled_from([0.9, 0.95]))
def test_the_interval_is_where_the_references_capital_stays_below_one_over_alpha(
        unit, confidence) -> None:
    # Inside the interval the hedged capital is below 1 / alpha, at its limits it reaches it
    # (or the limit is the range's end); the p-value is alpha at a limit, the duality a
    # referee reads the table by.
    values = np.array(unit)
    alpha = 1 - confidence
    interval = betting_interval(values, 0.0, 1.0, confidence)
    hedged = [max(capital(list(values), 0.0, 1.0, m, alpha)) / 2
              for m in np.linspace(interval.low, interval.high, 7)[1:-1]]
    assert max(hedged) < 1 / alpha
    for limit, end in ((interval.low, 0.0), (interval.high, 1.0)):
        if limit != end:
            assert max(capital(list(values), 0.0, 1.0, limit, alpha)) / 2 == pytest.approx(
                1 / alpha, rel=1e-6)


def test_the_interval_covers_a_mean_that_rare_outliers_carry() -> None:
    # Per-seed differences as a few collapsed seeds make them: a spike at 0.0002 (sd 0.0005)
    # with, at rate 1/250, a seed 0.1 lower. 400 samples of 500 seeds; the count of outliers is
    # nearly Poisson(2), so a t interval misses the mean far more often than 5%. The betting
    # interval's coverage is at least 95% for any distribution on the range; its estimate from
    # 400 samples has sd at most sqrt(0.95 * 0.05 / 400) = 0.011, and the test allows 3 sd
    # below 0.95 (a false alarm at most once in 700 runs). The t interval is checked to fail
    # here (3 sd below 0.95), so that a betting interval quietly replaced by a t interval fails.
    rng = np.random.default_rng(20261205)
    samples, n, rate = 400, 500, 1 / 250
    truth = (1 - rate) * 0.0002 + rate * -0.1
    covered = t_covered = 0
    for _ in range(samples):
        d = rng.normal(0.0002, 0.0005, n)
        outliers = rng.random(n) < rate
        d[outliers] = -0.1
        d = np.clip(d, -0.1, 0.1)
        interval = betting_interval(d, -0.1, 0.1)
        covered += interval.low <= truth <= interval.high
        half = student_t.ppf(0.975, n - 1) * d.std(ddof=1) / math.sqrt(n)
        t_covered += abs(d.mean() - truth) <= half
    floor = 0.95 - 3 * math.sqrt(0.95 * 0.05 / samples)
    assert covered / samples >= floor
    assert t_covered / samples < floor


def test_pair_halves_are_unbiased_for_the_variance() -> None:
    # E[(X1 - X2)^2 / 2] = Var X for independent X1, X2. 200,000 pairs of uniforms on [0, 1]:
    # the halves have mean 1/12 and variance E[h^2] - 1/144 with E[(X1 - X2)^4] / 4 = 1/60, so
    # sd sqrt((1/60 - 1/144) / 200000) = 2.2e-4; the test allows 5 sd.
    rng = np.random.default_rng(7)
    halves = pair_halves(rng.random(400_001))
    assert len(halves) == 200_000
    assert abs(halves.mean() - 1 / 12) < 5 * math.sqrt((1 / 60 - 1 / 144) / 200_000)


def test_paired_betting_rows() -> None:
    differences = 0.006 + np.random.default_rng(3).uniform(-0.001, 0.001, 300)
    row = paired_betting(differences, -0.1, 0.1, 4, margin=0.02)
    # Every seed 0.005 to 0.007 above: the mean is shown positive and within the margin.
    assert row["ci_low"] > 0 and row["ci_high"] < 0.02 and row["p_value"] < 0.05 / 4
    assert row["p_equivalence"] < 0.05 / 4 and row["interval_method"] == "betting"
    # Every seed alike: no interval around a constant, the tests still made.
    constant = paired_betting(np.full(300, 0.006), -0.1, 0.1, 4, margin=0.02)
    assert math.isnan(constant["ci_low"]) and constant["differing_seeds"] == 0
    assert constant["p_value"] < 0.05 / 4 and constant["interval_method"] == "constant"
    with pytest.raises(ValueError, match="not all in the range"):
        paired_betting(np.array([0.2, 0.0]), -0.1, 0.1, 1)
