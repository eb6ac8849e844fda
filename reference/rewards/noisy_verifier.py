"""A noisy verifier: the Bernoulli check, its verdict flipped with a false-positive rate and a
false-negative rate, by the verdict draw v_t, word t mod 2 of block (t div 2, 0, 3, 0)."""

from __future__ import annotations

import numpy as np

from reference import key_words, philox, unit32


def own(key: np.ndarray, n: int, prompt: int = 0) -> list[float]:
    """v_0 .. v_n-1: words 0 and 1 of verifier block (j, prompt, 3, 0) for pulls 2j and
    2j + 1."""
    out = []
    for j in range((n + 1) // 2):
        w = philox((j, prompt, 3, 0), key_words(key))
        out += [unit32(w[0]), unit32(w[1])]
    return out[:n]


def outcome(value: float, u_reward: float, own: float, parameters: tuple[float, ...]) -> float:
    """After a pass (u < p) the reward is 0 if v < fn, else 1; after a failure 1 if v < fp."""
    false_positive, false_negative = parameters
    if u_reward < value:
        return 0.0 if own < false_negative else 1.0
    return 1.0 if own < false_positive else 0.0
