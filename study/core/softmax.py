"""A softmax policy's two per-lane pieces, shared by REINFORCE's ``prepare`` and ``choose``
(``study.learners.reinforce``) and the off-policy sampler (``study.core.offpolicy``), so that the
sampler's weights are the learner's, operation for operation, wherever its logits are.

Each takes a block of K rows of a flat array laid out as the state (``study.core.state``: arm
k's row of block b at ``arm_row(K, b, k)``, lane j at that plus j): the logits' block and the
weights' block may be in different arrays, or the same rows (the weights then overwrite the
logits).
"""

from __future__ import annotations

import numpy as np

from study.core.bits import select
from study.core.fastexp import fast_exp
from study.core.jit import inline_jit
from study.core.state import arm_row


@inline_jit
def softmax_weights(n_arms, logits, logit_block, weights, weight_block, j):  # pragma: no cover
    """Lane j's softmax weights exp(l - max l) into ``weight_block`` of ``weights``, from the
    logits in ``logit_block`` of ``logits``; returns their sum."""
    # The largest logit, NaN if any is NaN, as np.maximum gives it; the NaN test kept off
    # the chain of comparisons, where np.maximum's NaN handling sat at every step (this
    # loop is bound by its latency). Which of two equal zeros is kept does not matter:
    # it is subtracted from the logits, and exp(+0) = exp(-0) = 1.
    top = logits[arm_row(n_arms, logit_block, 0) + j]
    lost = top != top
    for k in range(1, n_arms):
        logit = logits[arm_row(n_arms, logit_block, k) + j]
        top = select(logit > top, logit, top)
        lost = lost | (logit != logit)
    top = select(lost, np.nan, top)
    norm = 0.0
    for k in range(n_arms):
        weight = fast_exp(logits[arm_row(n_arms, logit_block, k) + j] - top)
        weights[arm_row(n_arms, weight_block, k) + j] = weight
        norm += weight
    return norm


@inline_jit
def inverse_cdf(n_arms, weights, weight_block, j, threshold):  # pragma: no cover
    """Lane j's arm (a double) for ``threshold`` = u times the weights' sum: the first arm whose
    cumulative weight in ``weight_block`` of ``weights`` exceeds it (the last arm if rounding
    leaves none)."""
    # Without a branch: the arm is the number of arms k < K - 1 whose cumulative weight is
    # <= the threshold (cumulative weights only grow). The count grows by ``select`` (a masked
    # add once vectorized), not by `x if c else y`, which numba lowers to branches.
    cumulative = 0.0
    arm = 0.0
    for k in range(n_arms - 1):
        cumulative += weights[arm_row(n_arms, weight_block, k) + j]
        arm = select(cumulative <= threshold, arm + 1.0, arm)
    return arm
