"""REINFORCE, the reference of ``study/learners/reinforce.py``."""

from __future__ import annotations

import math

from reference import State, exp


def _softmax_weights(logits: list[float]) -> tuple[list[float], float]:
    top = max(logits)
    weights = [exp(x - top) for x in logits]
    norm = 0.0
    for w in weights:
        norm += w
    return weights, norm


def choose(t: int, u_action: float, state: State) -> tuple[int, tuple[list[float], float]]:
    """Sample from the softmax by inverse CDF; the weights and their sum are kept for ``learn``."""
    weights, norm = _softmax_weights(state.logits)
    target = u_action * norm
    arm, cumulative = len(weights) - 1, 0.0
    for k, w in enumerate(weights):
        cumulative += w
        if target < cumulative:
            arm = k
            break
    return arm, (weights, norm)


def learn(t: int, lr: float, baseline: str, arm: int, reward: float, state: State,
          memo: tuple[list[float], float]) -> None:
    """logits += lr (r - b) (onehot(a) - pi), with the baseline b before this episode."""
    weights, norm = memo
    if baseline == "running_mean":
        base = state.total * (1.0 / t) if t > 0 else 0.0
    elif baseline == "running_mean_inclusive":
        base = (state.total + reward) * (1.0 / (t + 1))
    elif baseline == "per_arm":
        base = state.arm_rewards[arm] / state.pulls[arm] if state.pulls[arm] > 0 else 0.0
    else:
        base = 0.0
    step = lr * (reward - base)
    inverse = 1.0 / norm
    for k in range(len(state.logits)):
        state.logits[k] += step * ((1.0 if k == arm else 0.0) - weights[k] * inverse)


def scores(state: State) -> tuple[list[float], bool]:
    """The logits, and whether they are all finite."""
    return list(state.logits), all(math.isfinite(x) for x in state.logits)


def best_mass(scores: list[float], is_best: list[bool]) -> float:
    """The softmax probability of the best arms."""
    weights, norm = _softmax_weights(scores)
    mass = 0.0
    for w, best in zip(weights, is_best, strict=True):
        if best:
            mass += w
    return mass / norm
