"""Gaussian rewards: the arm's mean plus z_t of the run's noise stream."""

from __future__ import annotations

import math

import numpy as np

from reference import key_words, philox, unit53
from reference.elementary import cos_sin_turns, log


def own(key: np.ndarray, n: int, prompt: int = 0) -> list[float]:
    """z_0 .. z_n-1 of the run's noise stream, by Box-Muller on noise block (j, prompt, 1, 0):
    u1 = 1 - unit53(w0, w1), u2 = unit53(w2, w3), R = sqrt(-2 ln u1), z_2j = R cos(2 pi u2),
    z_2j+1 = R sin(2 pi u2)."""
    out = []
    for j in range((n + 1) // 2):
        w = philox((j, prompt, 1, 0), key_words(key))
        radius = math.sqrt(-2.0 * log(1.0 - unit53(w[0], w[1])))
        cosine, sine = cos_sin_turns(unit53(w[2], w[3]))
        out += [radius * cosine, radius * sine]
    return out[:n]


def outcome(value: float, u_reward: float, own: float, parameters: tuple[float, ...]) -> float:
    """mean + z."""
    return value + own
