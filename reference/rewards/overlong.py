"""DAPO's soft overlong punishment, the reference of ``study/rewards/overlong.py``, a shaping of
the verdict's reward: no penalty up to L_max - L_cache, a linear ramp to 1 at L_max, and an answer
past L_max cut there and failed (-1 while the penalty is on, 0 after it is lifted)."""

from __future__ import annotations

__all__ = ["cut", "lifted_at", "shaped"]


def shaped(reward: float, length: float, on: float, parameters: tuple[float, ...]) -> float:
    """The reward of an answer of ``length`` tokens."""
    longest, cache, _ = parameters
    if length > longest:
        return -on
    if length > longest - cache:
        return reward - on * ((length - (longest - cache)) / cache)
    return reward


def cut(parameters: tuple[float, ...]) -> float:
    """L_max: a longer answer is cut there and fails."""
    return parameters[0]


def lifted_at(parameters: tuple[float, ...]) -> float:
    """The share of the largest budget after which the penalty is lifted."""
    return parameters[2]
