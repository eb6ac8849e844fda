"""Importance sampling: weight rho."""

from __future__ import annotations


def weight(rho: float, advantage: float, parameters: tuple[float, ...]) -> float:
    """rho."""
    return rho
