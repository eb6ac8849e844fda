"""The floor: only what every episode must do whatever the algorithm around it, namely draw its
random numbers and compute K exponentials, in the kernel's own lockstep layout (``LANES`` seeds
advanced together, draws made ``BUFFERED`` episodes at a time by the kernel's own function, the
same vectorizable exp). The kernel can only be this fast plus the arithmetic of sampling and the
update."""

from __future__ import annotations

import numba as nb
import numpy as np

from study.core.fastexp import fast_exp
from study.core.kernel import draw_uniforms, main_schedule
from study.core.state import BUFFERED, aligned, aligned_rows


@nb.njit(cache=True, error_model="numpy")
def floor_loop(keys: np.ndarray, arms: int, budget: int, lanes: int) -> float:  # pragma: no cover
    """Sum of K exponentials of the draws per episode, for ``keys.shape[0]`` seeds (a multiple
    of ``lanes``; ``keys`` as the kernel takes them); the sum keeps the work from being
    optimized away."""
    uniforms = aligned_rows(2 * BUFFERED, lanes)
    acc = aligned(lanes)
    acc[:] = 0.0
    for block in range(keys.shape[0] // lanes):
        main = main_schedule(keys[block * lanes:(block + 1) * lanes, 0].copy(),
                             keys[block * lanes:(block + 1) * lanes, 1].copy(),
                             np.zeros(lanes, np.uint64))
        for t in range(budget):
            row = t % BUFFERED
            if row == 0:
                draw_uniforms(t // 2, main, uniforms)
            for k in range(arms):
                for j in range(lanes):
                    acc[j] += fast_exp(-(uniforms[2 * row, j] + uniforms[2 * row + 1, j]) * (k + 1))
    return acc.sum()
