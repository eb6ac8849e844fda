"""CISPO: weight rho clipped to [1 - e_low, 1 + e_high]."""

from __future__ import annotations

import math


def weight(rho: float, advantage: float, parameters: tuple[float, ...]) -> float:
    """rho clipped to [1 - e_low, 1 + e_high]; NaN for a NaN rho."""
    e_low, e_high = parameters
    if math.isnan(rho):
        return rho
    return max(min(rho, 1.0 + e_high), 1.0 - e_low)
