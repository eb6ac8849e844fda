"""The floor: only what every episode must do whatever the algorithm around it, namely draw its
random word and compute K exponentials, in the kernel's own lockstep layout (``LANES`` seeds
advanced together, the same Philox and the same vectorizable exp). The kernel can only be this
fast plus the arithmetic of sampling and the update."""

from __future__ import annotations

import numba as nb
import numpy as np

from study.core.fastexp import fast_exp
from study.core.philox import high_unit, philox_block

_ZERO = np.uint64(0)


@nb.njit(cache=True, error_model="numpy")
def floor_loop(keys: np.ndarray, arms: int, budget: int, lanes: int) -> float:  # pragma: no cover
    """Sum of K exponentials of a draw per episode, for ``keys.shape[0]`` seeds (a multiple of
    ``lanes``); the sum keeps the work from being optimized away."""
    words = np.empty((4, lanes), dtype=np.uint64)
    draw = np.empty(lanes)
    acc = np.zeros(lanes)
    for block in range(keys.shape[0] // lanes):
        k0 = keys[block * lanes:(block + 1) * lanes, 0]
        k1 = keys[block * lanes:(block + 1) * lanes, 1]
        for t in range(budget):
            if t % 4 == 0:
                counter = np.uint64(t // 4 + 1)
                for j in range(lanes):
                    w0, w1, w2, w3 = philox_block(counter, _ZERO, _ZERO, _ZERO, k0[j], k1[j])
                    words[0, j] = w0
                    words[1, j] = w1
                    words[2, j] = w2
                    words[3, j] = w3
            for j in range(lanes):
                draw[j] = high_unit(words[t % 4, j])
            for k in range(arms):
                for j in range(lanes):
                    acc[j] += fast_exp(-draw[j] * (k + 1))
    return acc.sum()
