"""A linear length penalty, the reference of ``study/rewards/length_penalty.py``, a shaping: the
verdict's reward less lambda L / L_ref while the penalty is on."""

from __future__ import annotations

__all__ = ["lifted_at", "shaped"]


def shaped(reward: float, length: float, on: float, parameters: tuple[float, ...]) -> float:
    """r - on lambda L / L_ref."""
    penalty, reference_length, _ = parameters
    return reward - on * penalty * length / reference_length


def lifted_at(parameters: tuple[float, ...]) -> float:
    """The share of the largest budget after which the penalty is lifted."""
    return parameters[2]
