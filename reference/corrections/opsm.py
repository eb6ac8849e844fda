"""Off-policy sequence masking: drop a negative-advantage rollout with log(mu / pi) > delta."""

from __future__ import annotations

import math

from reference.elementary import log

SMALLEST_NORMAL = 2.2250738585072014e-308


def keeps(rho: float, advantage: float, parameters: tuple[float, ...]) -> bool:
    """False where A < 0 and rho is below the smallest normal number or (finite and) log rho <
    -delta; a ratio that is not finite has no logarithm to compare and is kept."""
    (delta,) = parameters
    usable = SMALLEST_NORMAL <= rho < math.inf
    drifted = rho < SMALLEST_NORMAL or (usable and log(rho) < -delta)
    return not (advantage < 0.0 and drifted)
