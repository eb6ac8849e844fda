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
from scipy.stats import binom, norm
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_effectsize

from analysis.families import ALPHA

EFFECTS_OF_INTEREST = (0.01, 0.02, 0.05, 0.1)
"""Differences in accuracy worth detecting, stated before any run (not read off the data): the
seeds each test needs are planned for these."""
TARGET_POWER = 0.8
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


def exact_mcnemar_power(seeds: int, only_a_rate: float, only_b_rate: float,
                        alpha: float = ALPHA) -> float:
    """Exact power of the two-sided exact McNemar test the study runs (the discordant count
    split tested against 1/2) with ``seeds`` seeds, summed over the binomial number of discordant
    seeds."""
    discordance = only_a_rate + only_b_rate
    if discordance <= 0:
        return 0.0
    reject = _rejection_by_discordance(seeds, only_a_rate / discordance, alpha)
    return float(np.sum(binom.pmf(np.arange(seeds + 1), seeds, discordance) * reject))


def _rejection_by_discordance(most: int, share: float, alpha: float) -> np.ndarray:
    """P(the exact McNemar test rejects | d discordant seeds) for d = 0..most, when each
    discordant seed is "only A" with probability ``share``: with d discordant it rejects when the
    smaller count is at most c_d, the largest c with 2 P(Bin(d, 1/2) <= c) <= alpha."""
    d = np.arange(most + 1)
    # Start from the normal approximation (off by a few counts at most) and step each count to
    # the exact critical value: up while the next count still has tail <= alpha / 2, down while
    # this one's tail is above it. Cheaper than binom.ppf over hundreds of thousands of d.
    critical = np.floor(d / 2 - norm.isf(alpha / 2) * np.sqrt(d) / 2)
    while np.any(up := 2 * binom.cdf(critical + 1, d, 0.5) <= alpha):
        critical = np.where(up, critical + 1, critical)
    while np.any(down := (critical >= 0) & (2 * binom.cdf(critical, d, 0.5) > alpha)):
        critical = np.where(down, critical - 1, critical)
    return np.where(critical >= 0, binom.cdf(critical, d, share)
                    + binom.sf(d - critical - 1, d, share), 0.0)


TAIL = 1e-18
"""Binomial probabilities below this are dropped from the ends of the window that
``exact_mcnemar_power_curve`` carries from block to block: over 10^6 seeds the mass dropped stays
below 1e-14, far under any power difference the planner reports."""
BLOCK = 256
"""Seeds the power curve advances per block (see ``exact_mcnemar_power_curve``)."""


def exact_mcnemar_power_curve(most: int, only_a_rate: float, only_b_rate: float,
                              alpha: float = ALPHA) -> np.ndarray:
    """Exact power of the two-sided exact McNemar test at every n = 1..most, the same numbers as
    ``exact_mcnemar_power`` for each n without summing the whole law of the discordant count
    afresh each time.

    The rejection probability R(d) given d discordant seeds does not depend on n. With the law
    L of d at n0 seeds, the law at n0 + k is L convolved with Binomial(k, discordance), so the
    power there is sum_j P(Bin(k) = j) c_j with c_j = sum_d L(d) R(d + j): one matrix product
    gives c for j = 0..BLOCK, a second the powers at n0 + 1..n0 + BLOCK, and one convolution
    carries L to the next block.
    """
    discordance = only_a_rate + only_b_rate
    if discordance <= 0:
        return np.zeros(most)
    reject = _rejection_by_discordance(most + BLOCK, only_a_rate / discordance, alpha)
    steps = np.arange(BLOCK + 1)
    # kernel[k - 1, j] = P(Bin(k, discordance) = j) for k = 1..BLOCK
    kernel = binom.pmf(steps[None, :], steps[1:, None], discordance)
    advance = binom.pmf(steps, BLOCK, discordance)
    power = np.empty(most)
    law, low = np.ones(1), 0  # P(d = low + i) at n0 seeds, i over the window
    for n0 in range(0, most, BLOCK):
        windows = np.lib.stride_tricks.sliding_window_view(
            reject[low:low + len(law) + BLOCK], len(law))
        count = min(BLOCK, most - n0)
        power[n0:n0 + count] = (kernel @ (windows @ law))[:count]
        law = np.convolve(law, advance)
        kept = np.flatnonzero(law >= TAIL)
        law, low = law[kept[0]:kept[-1] + 1], low + int(kept[0])
    return power
