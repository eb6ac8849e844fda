"""Uniform allocation, the reference of ``study/learners/uniform.py``: round robin, no learning,
empirical-best pick (the package's defaults)."""

from __future__ import annotations

from reference import State


def choose(t: int, u_action: float, state: State, shared: None) -> int:
    """Arm t mod K."""
    return t % len(state.pulls)
