"""The sample-size planner against exact power found by exhaustive enumeration in this file."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy.stats import binom, binomtest, multinomial

from analysis.plan import binomial_power, plan_binomial, plan_mcnemar
from analysis.power import exact_mcnemar_power, exact_mcnemar_power_curve
from conftest import REPO


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


def test_plan_command_prints_the_plan_and_rejects_bad_values() -> None:
    done = subprocess.run([sys.executable, "-m", "analysis", "plan", "binomial", "--accuracy",
                           "0.6", "--chance", "1/3"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"n_exact  {plan_binomial(0.6, 1 / 3).n_exact:g}" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "analysis", "plan", "mcnemar", "--only-a",
                          "0.2", "--only-b", "x"], cwd=REPO, capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip() == "error: --only-b: 'x' is not a probability"


def test_mcnemar_power_curve_is_the_power_at_each_n() -> None:
    # The curve carries the law of the discordant count from n to n + 1; the single-n function
    # sums the whole binomial law afresh. They differ only by rounding and the dropped tails
    # (TAIL per step), far below 1e-10.
    curve = exact_mcnemar_power_curve(2500, 0.2, 0.13, 0.05)
    for n in (1, 2, 7, 40, 333, 1024, 2500):
        assert curve[n - 1] == pytest.approx(exact_mcnemar_power(n, 0.2, 0.13, 0.05), abs=1e-10)
    assert not exact_mcnemar_power_curve(50, 0.0, 0.0).any()
