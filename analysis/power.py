"""How many seeds a claim needs: power against the number of seeds, analytic and Monte Carlo.

Two designs, matching the study's tests:
  * one-sample: accuracy against the chance level 1/K, one-sided exact binomial test;
  * paired: two cells on common random numbers, two-sided exact McNemar test.
Analytic power uses normal approximations (statsmodels' ``NormalIndPower`` on Cohen's h for the
one-sample design; Connor's formula for McNemar). Monte Carlo power resamples seeds of the runs
table with replacement: resampling n seeds is drawing the counts of outcomes from a multinomial
with the observed frequencies, and each draw gets the exact test the study itself uses.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.optimize import brentq
from scipy.stats import binom
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_effectsize

from analysis.paired import mcnemar_power

ALPHA = 0.05
RESAMPLES = 2000  # Monte Carlo standard error of a power estimate <= 0.5 / sqrt(2000) = 0.011


def chance_power(accuracy: float, chance: float, seeds: np.ndarray,
                 alpha: float = ALPHA) -> np.ndarray:
    """Analytic power of the one-sided test that accuracy exceeds ``chance``."""
    effect = proportion_effectsize(accuracy, chance)
    return np.array([NormalIndPower().power(effect, n, alpha, ratio=0, alternative="larger")
                     for n in seeds])


def chance_power_mc(accuracy: float, chance: float, seeds: np.ndarray, alpha: float = ALPHA,
                    resamples: int = RESAMPLES, seed: int = 0) -> np.ndarray:
    """Monte Carlo power of the exact one-sided binomial test, resampling seeds."""
    rng = np.random.default_rng(seed)
    power = []
    for n in seeds:
        correct = rng.binomial(int(n), accuracy, size=resamples)
        p_values = binom.sf(correct - 1, int(n), chance)
        power.append(float(np.mean(p_values < alpha)))
    return np.array(power)


def paired_power_mc(only_a_rate: float, only_b_rate: float, seeds: np.ndarray,
                    alpha: float = ALPHA, resamples: int = RESAMPLES, seed: int = 0) -> np.ndarray:
    """Monte Carlo power of the two-sided exact McNemar test, resampling seeds."""
    rng = np.random.default_rng(seed)
    rest = max(1.0 - only_a_rate - only_b_rate, 0.0)
    power = []
    for n in seeds:
        counts = rng.multinomial(int(n), [only_a_rate, only_b_rate, rest], size=resamples)
        b, c = counts[:, 0], counts[:, 1]
        discordant = b + c
        two_sided = np.minimum(1.0, 2 * binom.cdf(np.minimum(b, c), discordant, 0.5))
        p_values = np.where(discordant > 0, two_sided, 1.0)
        power.append(float(np.mean(p_values < alpha)))
    return np.array(power)


def seeds_for_power(power_at: Callable[[int], float], target: float = 0.8,
                    most: int = 10**7) -> float:
    """Smallest number of seeds whose analytic power reaches ``target`` (inf if none <= most)."""
    if power_at(most) < target:
        return math.inf
    low, high = 1, most
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if power_at(middle) < target else (low, middle)
    return float(high)


def smallest_chance_effect(chance: float, seeds: int, target: float = 0.8,
                           alpha: float = ALPHA) -> float:
    """The accuracy above chance that ``seeds`` seeds detect with power ``target``."""
    return brentq(lambda p: chance_power(p, chance, [seeds], alpha)[0] - target,
                  chance + 1e-9, 1 - 1e-9) - chance


def smallest_paired_effect(discordant_rate: float, seeds: int, target: float = 0.8,
                           alpha: float = ALPHA) -> float:
    """The accuracy difference that ``seeds`` paired seeds detect with power ``target`` when a
    fraction ``discordant_rate`` of pairs disagree (the effect cannot exceed that fraction)."""
    def gap(delta: float) -> float:
        return mcnemar_power((discordant_rate + delta) / 2, (discordant_rate - delta) / 2,
                             np.array([seeds]), alpha)[0] - target
    if gap(discordant_rate * (1 - 1e-9)) < 0:
        return math.inf
    return brentq(gap, 1e-12, discordant_rate * (1 - 1e-9))


def exact_mcnemar_power(seeds: int, only_a_rate: float, only_b_rate: float,
                        alpha: float = ALPHA) -> float:
    """Exact power of the two-sided exact McNemar test the study runs (the discordant count
    split tested against 1/2), by enumerating the binomial number of discordant seeds: with d
    discordant seeds it rejects when the smaller count is at most c_d, the largest c with
    2 P(Bin(d, 1/2) <= c) <= alpha."""
    discordance = only_a_rate + only_b_rate
    if discordance <= 0:
        return 0.0
    share = only_a_rate / discordance
    d = np.arange(seeds + 1)
    critical = binom.ppf(alpha / 2, d, 0.5)
    # ppf gives the smallest c with P(<= c) >= alpha / 2; step back where that overshoots.
    critical = np.where(binom.cdf(critical, d, 0.5) * 2 > alpha, critical - 1, critical)
    reject = np.where(critical >= 0, binom.cdf(critical, d, share)
                      + binom.sf(d - critical - 1, d, share), 0.0)
    return float(np.sum(binom.pmf(d, seeds, discordance) * reject))


def seeds_for_exact_power(only_a_rate: float, only_b_rate: float, target: float = 0.8,
                          alpha: float = ALPHA, most: int = 200_000) -> int:
    """The smallest n from which the exact McNemar power stays at or above ``target`` (exact
    power is a sawtooth in n, so the first n that reaches it is not enough): found by bisection on
    a coarse grid, then checked seed by seed over the following 2% of n."""
    def power(n: int) -> float:
        return exact_mcnemar_power(n, only_a_rate, only_b_rate, alpha)

    low, high = 1, most
    while high - low > max(1, low // 100):
        middle = (low + high) // 2
        low, high = (middle, high) if power(middle) < target else (low, middle)
    n = low
    while True:
        window = range(n, n + max(2, n // 50))
        failing = [m for m in window if power(m) < target]
        if not failing:
            return n
        n = failing[-1] + 1
