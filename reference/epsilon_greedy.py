"""Epsilon-greedy, the reference of ``study/learners/epsilon_greedy.py``."""

from __future__ import annotations

import math

from reference import State

EPSILON = 0.1


def choose(t: int, u_action: float, state: State, shared: None) -> int:
    """Explore (uniform arm) when u < epsilon, else a greedy arm by sample mean, ties by u."""
    arms = len(state.pulls)
    if u_action < EPSILON:
        return min(math.floor(u_action / EPSILON * arms), arms - 1)
    estimates = [state.arm_rewards[k] / max(state.pulls[k], 1) for k in range(arms)]
    greedy = [k for k in range(arms) if estimates[k] == max(estimates)]
    v = (u_action - EPSILON) / (1.0 - EPSILON)
    return greedy[math.floor(v * len(greedy))]
