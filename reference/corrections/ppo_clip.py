"""PPO's clip: weight rho, 0 where the clipped surrogate is flat."""

from __future__ import annotations


def weight(rho: float, advantage: float, parameters: tuple[float, ...]) -> float:
    """0 where A > 0 and rho > 1 + c, or A < 0 and rho < 1 - c; else rho."""
    (clip,) = parameters
    flat = (advantage > 0 and rho > 1 + clip) or (advantage < 0 and rho < 1 - clip)
    return 0.0 if flat else rho
