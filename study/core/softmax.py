"""A softmax policy's two passes over the arms, shared by REINFORCE's ``prepare`` and ``choose``
(``study.learners.reinforce``) and the off-policy sampler (``study.core.offpolicy``), so that the
sampler's weights are the learner's, operation for operation, wherever its logits are.

Each runs over the lanes of an array laid out as the state (``study.core.state``), a chunk of
arms at a time (``study.core.arms``), its running numbers in rows 0 to 2 of a block's scratch
array ``w``.
"""

from __future__ import annotations

import numpy as np

from study.core.arms import in_passes, padded
from study.core.bits import select
from study.core.fastexp import fast_exp
from study.core.jit import inline_jit
from study.core.state import STRIDE, VALUES, arm_row, chunk_width

_TOP, _LOST, _RUNNING = range(3)
"""The scratch rows: the largest logit, whether a logit is NaN, a running sum."""
_TOP_ROW, _LOST_ROW, _RUNNING_ROW = (np.uint64(row * STRIDE) for row in (_TOP, _LOST, _RUNNING))


SKIP_TOP_ARMS = 4
"""Up to this K, ``softmax_lane`` computes K - 1 exponentials, not K: the largest logit's weight
is exp(0) = 1 exactly, and which arm holds it only decides where the others' weights go (selects,
a few operations per arm where ``fast_exp`` is some thirty). The bound was chosen by timing K = 2
to 5 both ways in interleaved rounds: the saving shrinks as the selects grow with K, and was gone
at K = 5. (``make bench``'s floor still counts K exponentials.)"""


@inline_jit
def _largest(a, logit_block, n_arms, j, top, at, lost, first, width):  # pragma: no cover
    """Lane j's largest logit, an arm that holds it (a double) and whether a logit is NaN so far,
    with arms first .. first + width - 1 (those past K left out)."""
    for i in range(width):
        k = first + i
        logit = select(k < n_arms, a[arm_row(logit_block, k) + j], -np.inf)
        higher = logit > top
        top = select(higher, logit, top)
        at = select(higher, float(k), at)
        lost = lost | (logit != logit)
    return top, at, lost


@inline_jit
def _weights(a, logit_block, weight_block, n_arms, j, top, total, first,
             width):  # pragma: no cover
    """Lane j's weights exp(l - top) of arms first .. first + width - 1 stored (0 past K), and
    its sum so far with them."""
    for i in range(width):
        k = first + i
        weight = select(k < n_arms, fast_exp(a[arm_row(logit_block, k) + j] - top), 0.0)
        a[arm_row(weight_block, k) + j] = weight
        total += weight
    return total


@inline_jit
def _weights_but_top(a, logit_block, weight_block, n_arms, j, top, at):  # pragma: no cover
    """``_weights`` of lane j's K arms, every arm in one go, where the largest logit ``top`` is
    arm ``at``'s: its weight exp(top - top) is 1 exactly for a finite ``top`` and exp(NaN) = 0
    otherwise, so only the other K - 1 are computed: the i-th of them is arm i's below arm
    ``at``, arm i + 1's from it on, and is put in its arm's row after."""
    for i in range(n_arms - 1):
        logit = select(i < at, a[arm_row(logit_block, i) + j], a[arm_row(logit_block, i + 1) + j])
        a[arm_row(weight_block, i) + j] = fast_exp(logit - top)
    highest = select(top - top == 0.0, 1.0, 0.0)
    # Down from the last arm, so that the row below, which an arm past ``at`` takes its weight
    # from, still holds what the loop above put in it. (Arm 0 has no row below: arm_row(-1)
    # would be far out of the array, so that read is left out for it, not selected away.)
    for k in range(n_arms - 1, -1, -1):
        own = a[arm_row(weight_block, k) + j]
        below = a[arm_row(weight_block, k - 1) + j] if k > 0 else 0.0
        a[arm_row(weight_block, k) + j] = select(k == at, highest, select(k > at, below, own))
    # The sum in arm order, as ``_weights`` adds it (from the first weight rather than from
    # 0.0: a weight is never -0.0, so the sum is the same).
    total = a[arm_row(weight_block, 0) + j]
    for k in range(1, n_arms):
        total += a[arm_row(weight_block, k) + j]
    return total


@inline_jit
def softmax_lane(n_arms, a, logit_block, weight_block, j):  # pragma: no cover
    """``softmax_weights`` for lane j alone, every arm in one go; returns the weights' sum. The
    largest logit by a chain of K - 1 comparisons from the first arm's (this lane loop is bound
    by its latency); up to ``SKIP_TOP_ARMS`` its weight is not computed."""
    first = a[arm_row(logit_block, 0) + j]
    top, at, lost = _largest(a, logit_block, n_arms, j, first, 0.0, first != first, 1,
                             n_arms - 1)
    top = select(lost, np.nan, top)
    if n_arms <= SKIP_TOP_ARMS:
        return _weights_but_top(a, logit_block, weight_block, n_arms, j, top, at)
    return _weights(a, logit_block, weight_block, n_arms, j, top, 0.0, 0, n_arms)


@inline_jit
def softmax_weights(n_arms, a, logit_block, weight_block, norm, lanes, w):  # pragma: no cover
    """Every lane's softmax weights exp(l - max l) into ``weight_block`` of ``a``, from the
    logits in its ``logit_block`` (the same block: the weights overwrite the logits), and their
    sum into the single row at offset ``norm``; ``w`` is the block's scratch array."""
    # The largest logit, NaN if any is NaN, as np.maximum gives it; the NaN test kept off the
    # chain of comparisons, where np.maximum's NaN handling sat at every step. From -inf, not
    # from the first arm's logit: the same largest logit, the same of two equal zeros (which
    # does not matter: it is subtracted from the logits, and exp(+0) = exp(-0) = 1), and NaN
    # is flagged apart. A sum that adds 0.0 for the arms past K is the same sum (it is never
    # -0.0).
    chunk = chunk_width(n_arms)
    room = padded(n_arms)
    for first in range(0, room, chunk):
        for j in range(lanes):
            top, _, lost = _largest(a, logit_block, n_arms, j,
                                    select(first == 0, -np.inf, w[_TOP_ROW + j]), 0.0,
                                    (first > 0) & (w[_LOST_ROW + j] != 0.0), first, chunk)
            w[_TOP_ROW + j] = top
            w[_LOST_ROW + j] = select(lost, 1.0, 0.0)
    for first in range(0, room, chunk):
        for j in range(lanes):
            top = select(w[_LOST_ROW + j] != 0.0, np.nan, w[_TOP_ROW + j])
            w[_RUNNING_ROW + j] = _weights(a, logit_block, weight_block, n_arms, j, top,
                                           select(first == 0, 0.0, w[_RUNNING_ROW + j]), first,
                                           chunk)
    for j in range(lanes):
        a[norm + j] = w[_RUNNING_ROW + j]


@inline_jit
def _cumulate(a, weight_block, s, j, threshold, last, cumulative, arm, value, first, width,
              picking):  # pragma: no cover
    """Lane j's cumulative weight, arm and, where ``picking``, the arm's value so far, with arms
    first .. first + width - 1. The value is picked as the arm grows: when arm k is reached, the
    arm so far is k exactly if every arm before it was passed, and the arm never grows past the
    one drawn, so the last pick is the drawn arm's."""
    for i in range(width):
        k = first + i
        if picking:
            value = select(arm == k, s[arm_row(VALUES, k) + j], value)
        cumulative += a[arm_row(weight_block, k) + j]
        arm = select((cumulative <= threshold) & (k < last), arm + 1.0, arm)
    return cumulative, arm, value


@inline_jit
def inverse_cdf_lane(n_arms, a, weight_block, norm, j, u, s):  # pragma: no cover
    """``inverse_cdf`` for lane j alone, its draw ``u``, every arm in one go: (arm, value)."""
    # Arm 0's step taken here, its running sum the first weight itself rather than 0.0 plus
    # it (a weight is never -0.0, so the same sum): an addition less per lane and rollout.
    threshold = u * a[norm + j]
    cumulative = a[arm_row(weight_block, 0) + j]
    _, arm, value = _cumulate(a, weight_block, s, j, threshold, n_arms - 1, cumulative,
                              select((cumulative <= threshold) & (n_arms > 1), 1.0, 0.0),
                              s[arm_row(VALUES, 0) + j], 1, n_arms - 1, True)
    return arm, value


@inline_jit
def inverse_cdf(n_arms, a, weight_block, norm, u, lanes, w, s, arms, values):  # pragma: no cover
    """Every lane's arm (a double) into ``arms`` and its ``VALUES`` entry in the state ``s`` into
    ``values``: for the threshold u times the weights' sum (the uniform draws ``u``, the sums in
    the single row at offset ``norm``), the first arm whose cumulative weight in
    ``weight_block`` of ``a`` exceeds it (the last arm if rounding leaves none); ``w`` is the
    block's scratch array."""
    # Without a branch: the arm is the number of arms k < K - 1 whose cumulative weight is
    # <= the threshold (cumulative weights only grow). The count grows by ``select`` (a masked
    # add once vectorized), not by `x if c else y`, which numba lowers to branches.
    # The value is picked in the same pass where K is taken all at once; past it, a lane's own
    # arm's entry is read after it, one lane at a time (a pick in the pass reads every arm's).
    chunk = chunk_width(n_arms)
    passes = in_passes(n_arms)
    for first in range(0, padded(n_arms), chunk):
        for j in range(lanes):
            cumulative, arms[j], values[j] = _cumulate(
                a, weight_block, s, j, u[j] * a[norm + j], n_arms - 1,
                select(first == 0, 0.0, w[_RUNNING_ROW + j]), select(first == 0, 0.0, arms[j]),
                select(first == 0, 0.0, values[j]), first, chunk, not passes)
            w[_RUNNING_ROW + j] = cumulative
    if passes:
        for j in range(lanes):
            values[j] = s[arm_row(VALUES, np.uint64(arms[j])) + j]
