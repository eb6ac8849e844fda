"""A softmax policy's two passes over the arms, shared by REINFORCE's ``prepare`` and ``choose``
(``study.learners.reinforce``) and the off-policy sampler (``study.core.offpolicy``), so that the
sampler's weights are the learner's, operation for operation, wherever its logits are.

Each runs over the lanes of an array laid out as the state (``study.core.state``), a chunk of
arms at a time (``study.core.arms``), its running numbers in rows 0 to 2 of a block's scratch
array ``w``.
"""

from __future__ import annotations

import numpy as np

from study.core.arms import whole_chunks
from study.core.bits import select
from study.core.fastexp import fast_exp
from study.core.jit import inline_jit
from study.core.state import arm_row, chunk_width, lane_row

_TOP, _LOST, _RUNNING = range(3)
"""The scratch rows: the largest logit (an inverse CDF's threshold), whether a logit is NaN, a
running sum."""


@inline_jit
def _largest(a, logit_block, lanes, w, first, width):  # pragma: no cover
    for j in range(lanes):
        # From -inf, not from the first logit: the same largest logit, the same zero of two
        # equal ones, and NaN is flagged apart.
        top = select(first == 0, -np.inf, w[lane_row(_TOP) + j])
        lost = select(first == 0, 0.0, w[lane_row(_LOST) + j])
        for i in range(width):
            logit = a[arm_row(logit_block, first + i) + j]
            top = select(logit > top, logit, top)
            lost = select(logit != logit, 1.0, lost)
        w[lane_row(_TOP) + j] = top
        w[lane_row(_LOST) + j] = lost


@inline_jit
def _weights(a, logit_block, weight_block, lanes, w, first, width):  # pragma: no cover
    for j in range(lanes):
        top = select(w[lane_row(_LOST) + j] != 0.0, np.nan, w[lane_row(_TOP) + j])
        total = select(first == 0, 0.0, w[lane_row(_RUNNING) + j])
        for i in range(width):
            k = first + i
            weight = fast_exp(a[arm_row(logit_block, k) + j] - top)
            a[arm_row(weight_block, k) + j] = weight
            total += weight
        w[lane_row(_RUNNING) + j] = total


@inline_jit
def softmax_weights(n_arms, a, logit_block, weight_block, norm, lanes, w):  # pragma: no cover
    """Every lane's softmax weights exp(l - max l) into ``weight_block`` of ``a``, from the
    logits in its ``logit_block`` (the same block: the weights overwrite the logits), and their
    sum into the single row at offset ``norm``; ``w`` is the block's scratch array."""
    # The largest logit, NaN if any is NaN, as np.maximum gives it; the NaN test kept off
    # the chain of comparisons, where np.maximum's NaN handling sat at every step. Which of
    # two equal zeros is kept does not matter: it is subtracted from the logits, and
    # exp(+0) = exp(-0) = 1.
    chunk = chunk_width(n_arms)
    split = whole_chunks(n_arms, chunk)
    for first in range(0, split, chunk):
        _largest(a, logit_block, lanes, w, first, chunk)
    for first in range(split, n_arms):
        _largest(a, logit_block, lanes, w, first, 1)
    for first in range(0, split, chunk):
        _weights(a, logit_block, weight_block, lanes, w, first, chunk)
    for first in range(split, n_arms):
        _weights(a, logit_block, weight_block, lanes, w, first, 1)
    for j in range(lanes):
        a[norm + j] = w[lane_row(_RUNNING) + j]


@inline_jit
def _cumulate(a, weight_block, norm, u, last, lanes, w, arms, first,
              width):  # pragma: no cover
    for j in range(lanes):
        threshold = u[j] * a[norm + j]
        cumulative = select(first == 0, 0.0, w[lane_row(_RUNNING) + j])
        arm = select(first == 0, 0.0, arms[j])
        for i in range(width):
            k = first + i
            cumulative += a[arm_row(weight_block, k) + j]
            arm = select((cumulative <= threshold) & (k < last), arm + 1.0, arm)
        w[lane_row(_RUNNING) + j] = cumulative
        arms[j] = arm


@inline_jit
def inverse_cdf(n_arms, a, weight_block, norm, u, lanes, w, arms):  # pragma: no cover
    """Every lane's arm (a double) into ``arms``: for the threshold u times the weights' sum (the
    uniform draws ``u``, the sums in the single row at offset ``norm``), the first arm whose
    cumulative weight in ``weight_block`` of ``a`` exceeds it (the last arm if rounding leaves
    none); ``w`` is the block's scratch array."""
    # Without a branch: the arm is the number of arms k < K - 1 whose cumulative weight is
    # <= the threshold (cumulative weights only grow). The count grows by ``select`` (a masked
    # add once vectorized), not by `x if c else y`, which numba lowers to branches.
    chunk = chunk_width(n_arms)
    split = whole_chunks(n_arms, chunk)
    for first in range(0, split, chunk):
        _cumulate(a, weight_block, norm, u, n_arms - 1, lanes, w, arms, first, chunk)
    for first in range(split, n_arms):
        _cumulate(a, weight_block, norm, u, n_arms - 1, lanes, w, arms, first, 1)
