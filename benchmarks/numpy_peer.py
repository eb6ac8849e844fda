"""REINFORCE as a careful numpy user would write it: all seeds at once, one array operation per
step of an episode over all seeds, arm-major arrays (K, seeds) so that every reduction over the
arms is an elementwise operation between rows, and in-place updates into preallocated buffers.
The strongest non-numba peer the benchmark compares the kernel with.

Same model as the kernel (running-mean baseline), but numpy's own generator for the draws, so it
is compared on speed, and on accuracy only statistically.
"""

from __future__ import annotations

import numpy as np


def numpy_reinforce(probs: np.ndarray, lr: float, budget: int, seeds: int,
                    rng: np.random.Generator) -> np.ndarray:
    """Greedy arm of each seed after ``budget`` episodes (running-mean baseline)."""
    arms = len(probs)
    logits = np.zeros((arms, seeds))
    weights = np.empty((arms, seeds))
    top = np.empty(seeds)
    norm = np.empty(seeds)
    total = np.zeros(seeds)
    draws = np.empty((2, seeds))
    arange = np.arange(arms)[:, None]
    for t in range(budget):
        np.max(logits, axis=0, out=top)
        np.subtract(logits, top, out=weights)
        np.exp(weights, out=weights)
        np.sum(weights, axis=0, out=norm)
        weights /= norm  # now the policy pi
        rng.random(out=draws)
        cumulative = np.cumsum(weights, axis=0)
        arm = np.minimum((cumulative <= draws[0]).sum(axis=0), arms - 1)
        reward = (draws[1] < probs[arm]).astype(np.float64)
        step = lr * (reward - (total / t if t > 0 else 0.0))
        # logits += step * (onehot(arm) - pi)
        weights *= -step
        weights += (arange == arm) * step
        logits += weights
        total += reward
    return logits.argmax(axis=0)
