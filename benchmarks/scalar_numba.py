"""The straightforward numba kernel a user would write first: one seed at a time, ``math.exp``
(a libm call per arm), numba's own ``np.random.random()`` for each draw. Same model as the
package's kernel (running-mean baseline); a reference for speed only."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

# Imported for its setting of numba's cache folder (the per-user cache, not benchmarks/).
import study.core.jit  # noqa: F401


@nb.njit(cache=True)
def scalar_reinforce(probs: np.ndarray, lr: float, budget: int, seeds: int,
                     seed: int) -> np.ndarray:  # pragma: no cover
    """Greedy arm of each seed after ``budget`` episodes."""
    np.random.seed(seed)
    arms = probs.shape[0]
    greedy = np.empty(seeds, dtype=np.int64)
    logits = np.empty(arms)
    weights = np.empty(arms)
    for s in range(seeds):
        logits[:] = 0.0
        total = 0.0
        for t in range(budget):
            top = logits.max()
            norm = 0.0
            for k in range(arms):
                weights[k] = math.exp(logits[k] - top)
                norm += weights[k]
            target = np.random.random() * norm
            arm = arms - 1
            cumulative = 0.0
            for k in range(arms):
                cumulative += weights[k]
                if target < cumulative:
                    arm = k
                    break
            reward = 1.0 if np.random.random() < probs[arm] else 0.0
            step = lr * (reward - (total / t if t > 0 else 0.0))
            for k in range(arms):
                logits[k] += step * ((1.0 if k == arm else 0.0) - weights[k] / norm)
            total += reward
        greedy[s] = np.argmax(logits)
    return greedy
