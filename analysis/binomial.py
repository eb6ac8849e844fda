"""scipy's binomial test and its intervals, memoized by their integer arguments.

A study's tables ask for the same few counts again and again (a cell's correct seeds out of the
same n at every budget and in every comparison; the discordant pairs of every paired test), and
``scipy.stats.binomtest`` computes its two-sided p-value (a search over the pmf) even where only
an interval is wanted: most of an analysis's time went there. The values are scipy's own, bit
for bit; only repeats are skipped.
"""

from __future__ import annotations

from functools import cache

from scipy.stats import binomtest


@cache
def proportion_interval(successes: int, n: int, confidence: float = 0.95,
                        method: str = "wilson") -> tuple[float, float]:
    """``binomtest(successes, n).proportion_ci(confidence, method)`` as (low, high): ``wilson``
    or ``exact`` (Clopper-Pearson)."""
    interval = binomtest(int(successes), int(n)).proportion_ci(confidence, method=method)
    return float(interval.low), float(interval.high)


@cache
def two_sided_pvalue(successes: int, n: int, p: float = 0.5) -> float:
    """The exact two-sided p-value of ``successes`` out of ``n`` against probability ``p``
    (``binomtest(successes, n, p).pvalue``)."""
    return float(binomtest(int(successes), int(n), p).pvalue)
