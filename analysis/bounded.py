"""Means of bounded per-seed values by betting (Waudby-Smith and Ramdas 2024, "Estimating means
of bounded random variables by betting", JRSSB 86(1)): intervals and tests whose level holds at
every number of seeds and for every distribution on a known range, however heavy its tails.

Where a few seeds of one cell collapse onto another arm, per-seed differences are a spike with a
few far outliers; a t interval's coverage then falls well below its level (the count of outliers
in a sample is nearly Poisson), and so does a bootstrap's. The range is known from the config
(a pass rate lies between the lowest and highest pass probability), and a bet on it needs
nothing else.

For a candidate mean m, values rescaled to x in [0, 1] and seeds taken in their order, the
hedged capital K(m) = max(K+(m), K-(m)) / 2 with K+(m) = prod(1 + l+_i (x_i - m)) and K-(m) =
prod(1 - l-_i (x_i - m)) is at most the average of two nonnegative martingales of mean 1 when
m is the true mean, so P(K(m) >= 1 / alpha) <= alpha (Markov): {m : K(m) < 1 / alpha} is a
1 - alpha interval and min(1, 1 / K(m0)) a p-value of the mean m0. The bets are the paper's
predictable plug-in for a fixed number of seeds n (its section 5.1): l_i = sqrt(2 log(2 / alpha)
/ (n s_{i-1}^2)) from the running variance s^2 of the seeds before i, truncated at ``TRUNCATION``
/ m (K+) and ``TRUNCATION`` / (1 - m) (K-), which keeps every factor positive. One side alone is
a one-sided test at alpha: K+(m) >= 1 / alpha rejects a mean at most m (the capital is then a
supermartingale), which is what two one-sided tests of equivalence use.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.optimize import brentq

from analysis.cost import MeanInterval, Support, differing_seeds

TRUNCATION = 0.5
"""The largest fraction of its capital a bet may stake (the paper's c = 1/2)."""
GRID = 2001
"""Candidate means on the rescaled range searched for the interval, before its limits are
refined by root finding, where the capital rejects the data's own mean."""


def _rescaled(values: np.ndarray, low: float, high: float) -> np.ndarray:
    if not high > low:
        raise ValueError(f"the range [{low}, {high}] is empty")
    x = (np.asarray(values, dtype=float) - low) / (high - low)
    if len(x) == 0 or x.min() < -1e-9 or x.max() > 1 + 1e-9:
        raise ValueError(f"the values are not all in the range [{low}, {high}]")
    return np.clip(x, 0.0, 1.0)


def _bets(x: np.ndarray, alpha: float) -> np.ndarray:
    """The predictable plug-in bet of each seed, from the seeds before it."""
    n = len(x)
    seen = np.arange(1, n + 1)
    means = (0.5 + np.cumsum(x)) / (seen + 1)
    variances = (0.25 + np.cumsum((x - means) ** 2)) / (seen + 1)
    before = np.concatenate(([0.25], variances[:-1]))
    return np.sqrt(2 * math.log(2 / alpha) / (n * before))


def _log_capital(x: np.ndarray, bets: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, ...]:
    """log K+ and log K- at each candidate mean in ``m`` (rescaled)."""
    m = np.asarray(m, dtype=float)[None, :]
    # A candidate at (or within a subnormal of) an end of the range caps no bet: c / m is inf.
    with np.errstate(divide="ignore", over="ignore"):
        up = np.minimum(bets[:, None], TRUNCATION / m)
        down = np.minimum(bets[:, None], TRUNCATION / (1 - m))
    step = x[:, None] - m
    return np.log1p(up * step).sum(axis=0), np.log1p(-down * step).sum(axis=0)


def betting_interval(values: np.ndarray, low: float, high: float,
                     confidence: float = 0.95) -> MeanInterval:
    """The mean of ``values`` (each in [low, high]) with its betting interval at ``confidence``
    (method ``betting``). Raises ValueError if a value is outside the range."""
    x = _rescaled(values, low, high)
    alpha = 1 - confidence
    bets = _bets(x, alpha)
    threshold = math.log(1 / alpha)

    def excess(m: float) -> float:
        up, down = _log_capital(x, bets, np.array([m]))
        return float(max(up[0], down[0]) - math.log(2) - threshold)

    centre = float(x.mean())
    if excess(centre) < 0:
        # The capital is quasiconvex in m (the paper's Proposition 4), so the interval is the
        # run around the mean where it stays below 1 / alpha: one crossing on each side.
        lower = 0.0 if excess(0.0) < 0 else brentq(excess, 0.0, centre, xtol=1e-12)
        upper = 1.0 if excess(1.0) < 0 else brentq(excess, centre, 1.0, xtol=1e-12)
    else:
        lower, upper = _searched(x, bets, threshold, excess)
    span = high - low
    return MeanInterval(float(np.mean(values)), low + span * lower, low + span * upper, "betting")


def _searched(x: np.ndarray, bets: np.ndarray, threshold: float,
              excess: Callable[[float], float]) -> tuple[float, float]:
    """The interval's limits found on a grid of candidate means (``GRID``), for data whose own
    mean the capital rejects: a rare event, at most alpha's probability."""
    grid = np.linspace(0.0, 1.0, GRID)
    up, down = _log_capital(x, bets, grid)
    inside = np.flatnonzero(np.maximum(up, down) - math.log(2) < threshold)
    if len(inside) == 0:
        # Every candidate rejected: the interval is the candidate the data bet against least.
        best = float(grid[np.argmin(np.maximum(up, down))])
        return best, best
    first, last = inside[0], inside[-1]
    lower = 0.0 if first == 0 else brentq(excess, grid[first - 1], grid[first], xtol=1e-12)
    upper = 1.0 if last == GRID - 1 else brentq(excess, grid[last], grid[last + 1], xtol=1e-12)
    return lower, upper


def betting_p_value(values: np.ndarray, low: float, high: float, mean: float = 0.0,
                    alternative: str = "two-sided", alpha: float = 0.05) -> float:
    """The p-value of the hypothesis that the values' mean is ``mean`` (two-sided), at most
    ``mean`` (``greater``: K+ alone) or at least ``mean`` (``less``: K- alone): one over the
    capital bet against it, capped at 1. The bets are tuned for a test at ``alpha``; the p-value
    is valid whatever ``alpha`` is, and, two-sided, below ``alpha`` exactly when the ``1 -
    alpha`` interval (its bets tuned alike) excludes ``mean``."""
    x = _rescaled(values, low, high)
    m = np.array([(mean - low) / (high - low)])
    if not 0 <= m[0] <= 1:
        return 0.0  # a mean outside the range is impossible
    up, down = _log_capital(x, _bets(x, alpha), m)
    capital = {"two-sided": max(up[0], down[0]) - math.log(2), "greater": up[0],
               "less": down[0]}[alternative]
    return float(min(1.0, math.exp(-capital)))


def paired_betting(differences: np.ndarray, low: float, high: float, hypotheses: int,
                   margin: float = 0.0, alpha: float = 0.05,
                   confidence: float = 0.95) -> dict[str, float | int | str]:
    """Per-seed differences of two cells in [low, high] (a range the config fixes) compared by
    betting: their mean with its ``confidence`` interval and its 1 - 2 ``alpha`` interval, the
    two-sided p-value of mean 0 with bets tuned for Holm's first step in a family of
    ``hypotheses`` (alpha / hypotheses), and, where ``margin`` > 0, the p-value of two one-sided
    tests of equivalence within +-margin (the larger of the one-sided p-values that the mean is
    at most -margin and at least +margin, bets tuned likewise; NaN without a margin). Keys as
    ``analysis.paired.judge`` reads them."""
    differences = np.asarray(differences, dtype=float)
    if np.all(differences == differences[0]):
        # Every seed alike: no interval around a constant (the tests still bet on it).
        interval = equivalence = MeanInterval(float(differences[0]), math.nan, math.nan,
                                              "constant")
    else:
        interval = betting_interval(differences, low, high, confidence)
        equivalence = betting_interval(differences, low, high, 1 - 2 * alpha)
    tuned = alpha / hypotheses
    p_equivalence = (max(betting_p_value(differences, low, high, -margin, "greater", tuned),
                         betting_p_value(differences, low, high, margin, "less", tuned))
                     if margin > 0 else math.nan)
    return {"seeds": len(differences), "differing_seeds": differing_seeds(differences),
            "difference": interval.mean, "ci_low": interval.low, "ci_high": interval.high,
            "ci90_low": equivalence.low, "ci90_high": equivalence.high,
            "interval_method": interval.method,
            "p_value": betting_p_value(differences, low, high, 0.0, alpha=tuned),
            "p_equivalence": p_equivalence}


def pair_halves(values: np.ndarray) -> np.ndarray:
    """Half the squared difference of seeds 2j and 2j + 1 for each whole pair: independent
    draws, each of mean the values' variance, so a mean interval of them is an interval of the
    variance, and paired against another cell's on the same seeds, of the difference of two
    variances. An odd last seed is left out."""
    values = np.asarray(values, dtype=float)
    pairs = len(values) // 2
    return (values[0:2 * pairs:2] - values[1:2 * pairs:2]) ** 2 / 2


def betting_mean(values: np.ndarray, support: Support, confidence: float = 0.95) -> MeanInterval:
    """``betting_interval`` on the range from ``support``'s least to its largest value: the
    interval ``analysis.pass_rate.interval_columns`` takes in place of ``mean_interval``."""
    return betting_interval(values, support.values[0], support.values[-1], confidence)
