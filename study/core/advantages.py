"""The group estimators' advantages (Dr. GRPO's group mean, GRPO's z-score, RLOO's leave-one-out):
one piece that REINFORCE's group update (``study.learners.reinforce``) and the off-policy group
learner (``study.core.offpolicy``) both inline, so the two compute them with the same operations
in the same order."""

from __future__ import annotations

import numpy as np

from study.core.jit import inline_jit


@inline_jit
def group_advantages(s, base, spare, lanes, rewards, advantage, leave_one_out, zscore,
                     epsilon) -> None:  # pragma: no cover
    """Fill ``advantage`` (G, lanes) from ``rewards`` (G, lanes): r_i - (sum of the others) /
    (G - 1) with ``leave_one_out``; else r_i - m, m the group's mean, divided by the sample
    standard deviation (G - 1 in the denominator) plus ``epsilon`` with ``zscore``. Rows
    ``base`` and ``spare`` of the state ``s`` are scratch (lane j at offset j)."""
    group = rewards.shape[0]
    for j in range(lanes):
        s[base + j] = 0.0  # the group's reward sum
    for i in range(group):
        for j in range(lanes):
            s[base + j] += rewards[i, j]
    if leave_one_out:
        for i in range(group):
            for j in range(lanes):
                others = s[base + j] - rewards[i, j]
                advantage[i, j] = rewards[i, j] - others / (group - 1)
    else:
        for j in range(lanes):
            s[base + j] = s[base + j] / group  # the group's mean
        for i in range(group):
            for j in range(lanes):
                advantage[i, j] = rewards[i, j] - s[base + j]
    if zscore:
        for j in range(lanes):
            s[spare + j] = 0.0
        for i in range(group):
            for j in range(lanes):
                s[spare + j] += advantage[i, j] * advantage[i, j]
        for j in range(lanes):
            s[spare + j] = np.sqrt(s[spare + j] / (group - 1)) + epsilon
        for i in range(group):
            for j in range(lanes):
                advantage[i, j] = advantage[i, j] / s[spare + j]


@inline_jit
def count_zero_signal(s, spare, row, lanes, advantage) -> None:  # pragma: no cover
    """Add 1 to row ``row`` of the state, lane by lane, where every advantage of the group is 0
    (an update with no signal); row ``spare`` is scratch."""
    for j in range(lanes):
        s[spare + j] = 1.0
    for i in range(advantage.shape[0]):
        for j in range(lanes):
            s[spare + j] *= np.float64(advantage[i, j] == 0.0)
    for j in range(lanes):
        s[row + j] += s[spare + j]
