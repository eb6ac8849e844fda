"""Bernoulli rewards: 1 when the reward draw is below the pass probability."""

from __future__ import annotations

import numpy as np


def own(key: np.ndarray, n: int, prompt: int = 0) -> None:
    """No stream of its own."""
    return None


def outcome(value: float, u_reward: float, own: float, parameters: tuple[float, ...]) -> float:
    """1.0 if u < p, else 0.0."""
    return 1.0 if u_reward < value else 0.0
