"""Truncated importance sampling: weight min(rho, C)."""

from __future__ import annotations


def weight(rho: float, advantage: float, parameters: tuple[float, ...]) -> float:
    """min(rho, C); NaN for a NaN rho."""
    (cap,) = parameters
    return min(rho, cap)
