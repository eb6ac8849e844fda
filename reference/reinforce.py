"""REINFORCE, the reference of ``study/learners/reinforce.py``."""

from __future__ import annotations

import math

from reference import State, exp


def softmax_weights(logits: list[float]) -> tuple[list[float], float]:
    """exp(l - max l) and their sum; the maximum is NaN where a logit is NaN (as the kernel's,
    whatever the logits' order), and every weight exp(NaN) = 0 then."""
    top = math.nan if any(x != x for x in logits) else max(logits)
    weights = [exp(x - top) for x in logits]
    norm = 0.0
    for w in weights:
        norm += w
    return weights, norm


def prepare(state: State) -> tuple[list[float], float]:
    """The policy of the whole group: the softmax weights and their sum."""
    return softmax_weights(state.logits)


def choose(t: int, u_action: float, state: State, shared: tuple[list[float], float]) -> int:
    """Sample from the group's softmax by inverse CDF."""
    weights, norm = shared
    target = u_action * norm
    arm, cumulative = len(weights) - 1, 0.0
    for k, w in enumerate(weights):
        cumulative += w
        if target < cumulative:
            arm = k
            break
    return arm


def advantages(t: int, baseline: str, arms: list[int], rewards: list[float],
               state: State) -> list[float]:
    """A_i of each rollout of the group that starts at rollout t (the baseline is computed
    before the group; the group estimators use the group itself)."""
    group = len(rewards)
    if baseline in ("group_mean", "group_zscore", "leave_one_out"):
        total = 0.0
        for r in rewards:
            total += r
        if baseline == "leave_one_out":
            return [r - (total - r) / (group - 1) for r in rewards]
        mean = total / group
        centred = [r - mean for r in rewards]
        if baseline == "group_mean":
            return centred
        squares = 0.0
        for c in centred:
            squares += c * c
        spread = math.sqrt(squares / (group - 1)) + 1e-4
        return [c / spread for c in centred]
    found = []
    for arm, reward in zip(arms, rewards, strict=True):
        if baseline == "running_mean":
            base = state.total * (1.0 / t) if t > 0 else 0.0
        elif baseline == "running_mean_inclusive":
            base = (state.total + reward) * (1.0 / (t + 1))
        elif baseline == "per_arm":
            base = state.arm_rewards[arm] / max(state.pulls[arm], 1)
        else:
            base = 0.0
        found.append(reward - base)
    return found


def learn(t: int, lr: float, baseline: str, arms: list[int], rewards: list[float], state: State,
          shared: tuple[list[float], float], divisor: int = 0) -> bool:
    """logits += lr (1 / G) A_i (onehot(a_i) - pi), rollout by rollout, G the group's size or,
    when given, ``divisor``; whether every A_i was 0 (an update with no signal)."""
    weights, norm = shared
    found = advantages(t, baseline, arms, rewards, state)
    scale = lr * (1.0 / (divisor or len(rewards)))
    inverse = 1.0 / norm
    for k in range(len(state.logits)):
        for arm, advantage in zip(arms, found, strict=True):
            state.logits[k] += (scale * advantage) * (
                (1.0 if k == arm else 0.0) - weights[k] * inverse)
    return all(a == 0.0 for a in found)


def scores(state: State) -> tuple[list[float], bool]:
    """The logits, and whether they are all finite."""
    return list(state.logits), all(math.isfinite(x) for x in state.logits)


def policy_mean(scores: list[float], per_arm: list[float]) -> float:
    """The softmax policy's expectation of ``per_arm``: sum pi[k] x[k], pi[k] = w[k] / sum w."""
    weights, norm = softmax_weights(scores)
    mass = 0.0
    for w, x in zip(weights, per_arm, strict=True):
        mass += w * x
    return mass / norm
