"""The numba episode kernel: arrays in, arrays out; no Python objects, no I/O.

One call simulates every seed of one cell to the cell's largest budget and records the state at
each checkpoint budget (a budget-B run is exactly the first B episodes of a longer one, so one
simulation serves every checkpoint). The outer loop over runs is a ``prange``; each run writes only
its own rows of the output arrays, so results do not depend on the number of threads.

The model is specified in README.md ("The model") and, executably, by ``tests/reference.py``; the
two must agree exactly on the same random stream.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from study.jit import jit, parallel_jit
from study.model import BASELINE_PER_ARM, BASELINE_RUNNING_MEAN, REINFORCE
from study.philox import philox_block, to_unit

_ZERO = np.uint64(0)
_ONE = np.uint64(1)


@jit
def _break_tie(
    scores: np.ndarray, k0: np.uint64, k1: np.uint64, budget: int
) -> int:  # pragma: no cover
    """Index of the largest score; exact ties are broken uniformly at random from the run's
    tie-break stream at this budget (see ``study.philox``), so an untrained policy is right with
    probability 1/K."""
    best = scores[0]
    for k in range(1, scores.shape[0]):
        if scores[k] > best:
            best = scores[k]
    ties = 0
    for k in range(scores.shape[0]):
        if scores[k] == best:
            ties += 1
    pick = 0
    if ties > 1:
        u = to_unit(philox_block(np.uint64(budget), _ZERO, _ZERO, _ONE, k0, k1)[0])
        pick = int(u * ties)
    for k in range(scores.shape[0]):
        if scores[k] == best:
            if pick == 0:
                return k
            pick -= 1
    return -1  # unreachable for finite scores; NaN scores are caught by the caller


@jit
def _simulate_run(
    k0: np.uint64,
    k1: np.uint64,
    probs: np.ndarray,
    is_best: np.ndarray,
    algorithm: int,
    lr: float,
    baseline: int,
    budgets: np.ndarray,
    greedy: np.ndarray,
    p_best: np.ndarray,
    reward_sum: np.ndarray,
    pulls_out: np.ndarray,
    scores_out: np.ndarray,
    finite: np.ndarray,
) -> None:  # pragma: no cover
    """Simulate one run to ``budgets[-1]`` episodes, writing row c of each output at budgets[c]."""
    n_arms = probs.shape[0]
    logits = np.zeros(n_arms)
    weights = np.empty(n_arms)
    scores = np.empty(n_arms)
    pulls = np.zeros(n_arms, dtype=np.int64)
    arm_rewards = np.zeros(n_arms, dtype=np.int64)
    total_reward = 0
    checkpoint = 0
    w0 = w1 = w2 = w3 = _ZERO
    for t in range(budgets[-1]):
        # One Philox block feeds two episodes: words (0, 1) at even t, (2, 3) at odd t.
        if t % 2 == 0:
            w0, w1, w2, w3 = philox_block(np.uint64(t // 2 + 1), _ZERO, _ZERO, _ZERO, k0, k1)
            u_action, u_reward = to_unit(w0), to_unit(w1)
        else:
            u_action, u_reward = to_unit(w2), to_unit(w3)

        if algorithm == REINFORCE:
            top = logits[0]
            for k in range(1, n_arms):
                top = max(top, logits[k])
            norm = 0.0
            for k in range(n_arms):
                weights[k] = math.exp(logits[k] - top)
                norm += weights[k]
            # Inverse CDF on the unnormalised weights: arm a is the first whose cumulative
            # weight exceeds u * norm; the last arm absorbs rounding at the top end.
            target = u_action * norm
            arm = n_arms - 1
            cumulative = 0.0
            for k in range(n_arms):
                cumulative += weights[k]
                if target < cumulative:
                    arm = k
                    break
        else:
            arm = t % n_arms

        reward = 1 if u_reward < probs[arm] else 0

        if algorithm == REINFORCE:
            if baseline == BASELINE_RUNNING_MEAN:
                base = total_reward / t if t > 0 else 0.0
            elif baseline == BASELINE_PER_ARM:
                base = arm_rewards[arm] / pulls[arm] if pulls[arm] > 0 else 0.0
            else:
                base = 0.0
            step = lr * (reward - base)
            for k in range(n_arms):
                indicator = 1.0 if k == arm else 0.0
                logits[k] += step * (indicator - weights[k] / norm)

        pulls[arm] += 1
        arm_rewards[arm] += reward
        total_reward += reward

        if t + 1 == budgets[checkpoint]:
            ok = True
            if algorithm == REINFORCE:
                for k in range(n_arms):
                    scores[k] = logits[k]
                    ok = ok and math.isfinite(logits[k])
            else:
                # Empirical means; an arm never pulled (budget < K) is not a candidate.
                for k in range(n_arms):
                    scores[k] = arm_rewards[k] / pulls[k] if pulls[k] > 0 else -np.inf
            finite[checkpoint] = ok
            greedy[checkpoint] = _break_tie(scores, k0, k1, budgets[checkpoint]) if ok else -1
            if algorithm == REINFORCE and ok:
                top = scores[0]
                for k in range(1, n_arms):
                    top = max(top, scores[k])
                norm = 0.0
                best_mass = 0.0
                for k in range(n_arms):
                    weight = math.exp(scores[k] - top)
                    norm += weight
                    if is_best[k]:
                        best_mass += weight
                p_best[checkpoint] = best_mass / norm
            else:
                p_best[checkpoint] = np.nan
            reward_sum[checkpoint] = total_reward
            for k in range(n_arms):
                pulls_out[checkpoint, k] = pulls[k]
                scores_out[checkpoint, k] = scores[k]
            checkpoint += 1


@parallel_jit
def simulate_cell(
    keys: np.ndarray,
    probs: np.ndarray,
    is_best: np.ndarray,
    algorithm: int,
    lr: float,
    baseline: int,
    budgets: np.ndarray,
    greedy: np.ndarray,
    p_best: np.ndarray,
    reward_sum: np.ndarray,
    pulls: np.ndarray,
    scores: np.ndarray,
    finite: np.ndarray,
) -> None:  # pragma: no cover
    """Simulate one run per row of ``keys`` (uint64, shape (runs, 2)) and fill the outputs.

    Outputs have shape (runs, checkpoints) or (runs, checkpoints, K): ``greedy`` (int64, -1 when
    the state is not finite), ``p_best`` (policy mass on the best arms; NaN for ``uniform``),
    ``reward_sum`` (int64), ``pulls`` (int64), ``scores`` (the logits, or the empirical means for
    ``uniform``) and ``finite`` (bool).
    """
    for i in nb.prange(keys.shape[0]):
        _simulate_run(
            keys[i, 0], keys[i, 1], probs, is_best, algorithm, lr, baseline, budgets,
            greedy[i], p_best[i], reward_sum[i], pulls[i], scores[i], finite[i],
        )
