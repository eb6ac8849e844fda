"""Passes over the arms of every lane of a block: the lane loop is outermost in each, taking a
chunk of arms at a time (``study.core.state.chunk_width``), so it vectorizes for any K, and a
lane's operations are those of a loop over its arms, in the same order.

Past ``UNROLLED_ARMS`` the state has room for a whole number of chunks (``padded``): the arms past
K are never pulled, their rows are zeros or what a step left in them, and a pass leaves them
out of what it computes (a mask where one is needed), so a pass is one loop over the chunks with
no loop per arm for the rest. A pass keeps a lane's running numbers (a maximum, a sum) in a
block's scratch array (``study.core.state.SCRATCH``) between its chunks, and starts them in
registers in its first chunk; it writes the state's rows or the scratch array's, never both in
a lane loop beside reading the other (``study.core.state.SCRATCH`` says why).

Here are the pieces every nested driver shares: an arm's entry picked by a lane's arm, and a
rollout added to the sums.
"""

from __future__ import annotations

import numpy as np

from study.core.bits import select
from study.core.jit import inline_jit
from study.core.state import ARM_REWARDS, PULLS, TOTAL, arm_row, chunk_width, lane_row


@inline_jit
def padded(n_arms):  # pragma: no cover
    """The arms the state has room for: K rounded up to a whole number of chunks."""
    chunk = chunk_width(n_arms)
    return (n_arms + chunk - 1) // chunk * chunk


@inline_jit
def picked(s, block, j, arm, entry, first, width):  # pragma: no cover
    """Lane j's ``entry`` so far replaced by that of ``block`` of the arm ``arm`` (a double) if
    it is among arms first .. first + width - 1: a ``select`` per arm, a masked move once the
    lane loop vectorizes, where a gather would be slow."""
    for i in range(width):
        k = first + i
        entry = select(arm == k, s[arm_row(block, k) + j], entry)
    return entry


@inline_jit
def pick(n_arms, s, block, arms, lanes, out, at):  # pragma: no cover
    """Every lane's entry of ``block`` (``VALUES``, ``PULLS`` ...) for its arm in ``arms`` into
    ``out[at + j]`` (``picked``)."""
    chunk = chunk_width(n_arms)
    for first in range(0, padded(n_arms), chunk):
        for j in range(lanes):
            out[at + j] = picked(s, block, j, arms[j], select(first == 0, 0.0, out[at + j]),
                                 first, chunk)


@inline_jit
def counted(s, j, arm, reward, first, width):  # pragma: no cover
    """Lane j's rollout (it pulled ``arm`` and got ``reward``) added to the pulls and reward sum
    of its arm if it is among arms first .. first + width - 1."""
    for i in range(width):
        k = first + i
        hit = arm == k
        pulls = s[arm_row(PULLS, k) + j]
        s[arm_row(PULLS, k) + j] = select(hit, pulls + 1.0, pulls)
        sums = s[arm_row(ARM_REWARDS, k) + j]
        s[arm_row(ARM_REWARDS, k) + j] = select(hit, sums + reward, sums)


@inline_jit
def in_passes(n_arms):  # pragma: no cover
    """Whether a pass over K = ``n_arms`` arms takes them a chunk at a time (K past
    ``UNROLLED_ARMS``), not all at once; a constant for LLVM."""
    return chunk_width(n_arms) < n_arms


@inline_jit
def tallied(n_arms, s, j, arm, reward):  # pragma: no cover
    """Lane j's rollout (it pulled ``arm`` and got ``reward``) added to its arm's pulls and reward
    sum, the other arms' sums untouched (no 0 is added to them, nor a non-finite reward times 0).
    Where K is taken all at once, a masked addition per arm once vectorized (``counted``); past
    it, the arm's two entries at its own offset: a pass over every arm's rows for the one arm a
    lane pulled cost a tenth of an episode at K = 50."""
    if in_passes(n_arms):
        at = np.uint64(arm)
        s[arm_row(PULLS, at) + j] += 1.0
        s[arm_row(ARM_REWARDS, at) + j] += reward
    else:
        counted(s, j, arm, reward, 0, n_arms)


@inline_jit
def tally(n_arms, s, arms, rewards, lanes):  # pragma: no cover
    """``tallied`` every lane's rollout (its arm in ``arms``, its reward in ``rewards``)."""
    for j in range(lanes):
        tallied(n_arms, s, j, arms[j], rewards[j])


@inline_jit
def count(n_arms, s, arms, rewards, lanes):  # pragma: no cover
    """``tally`` every lane's rollout, and add its reward to the lane's reward sum."""
    tally(n_arms, s, arms, rewards, lanes)
    for j in range(lanes):
        s[lane_row(TOTAL) + j] += rewards[j]
