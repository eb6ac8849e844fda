"""A slow reference for ``analysis.bounded``, written from Waudby-Smith and Ramdas (2024) line by
line: the hedged capital of a candidate mean, seed after seed, with the predictable plug-in bet
for a fixed number of seeds (their section 5.1) and bets truncated at c / m and c / (1 - m)."""

from __future__ import annotations

import math


def capital(values: list[float], low: float, high: float, mean: float, alpha: float,
            c: float = 0.5) -> tuple[float, float]:
    """(K+, K-) after every value, for the candidate ``mean``, with bets tuned for ``alpha``."""
    x = [(v - low) / (high - low) for v in values]
    m = (mean - low) / (high - low)
    n = len(x)
    up = down = 1.0
    total, squares = 0.0, 0.0
    variance = 0.25  # sigma^2_0: the paper's prior value before any seed
    for t, value in enumerate(x, start=1):
        bet = math.sqrt(2 * math.log(2 / alpha) / (n * variance))
        up *= 1 + min(bet, c / m if m > 0 else math.inf) * (value - m)
        down *= 1 - min(bet, c / (1 - m) if m < 1 else math.inf) * (value - m)
        total += value
        mu = (0.5 + total) / (t + 1)
        squares += (value - mu) ** 2
        variance = (0.25 + squares) / (t + 1)
    return up, down


def p_value(values: list[float], low: float, high: float, mean: float, alpha: float) -> float:
    """The two-sided p-value: one over the hedged capital max(K+, K-) / 2, capped at 1."""
    up, down = capital(values, low, high, mean, alpha)
    return min(1.0, 2 / max(up, down))
