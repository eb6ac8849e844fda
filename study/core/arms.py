"""Passes over the arms of every lane of a block: the lane loop is outermost in each, taking a
chunk of arms at a time (``study.core.state.chunk_width``), so it vectorizes for any K, and a
lane's operations are those of a loop over its arms, in the same order.

A pass keeps a lane's running numbers (a maximum, a sum) in a block's scratch array
(``study.core.state.SCRATCH``) between its chunks, and starts them in registers in its first
chunk; it writes the state's rows or the scratch array's, never both in a lane loop beside
reading the other (``study.core.state.SCRATCH`` says why).

Here are the pieces every nested driver shares: an arm's entry picked by a lane's arm, and a
rollout added to the sums.
"""

from __future__ import annotations

from study.core.bits import select
from study.core.jit import inline_jit
from study.core.state import ARM_REWARDS, PULLS, TOTAL, arm_row, chunk_width, lane_row


@inline_jit
def whole_chunks(n_arms, chunk):  # pragma: no cover
    """The end of the whole chunks of ``chunk`` arms among K = ``n_arms``: a pass takes arms 0,
    chunk, ... below it a chunk at a time, and the rest one at a time."""
    return n_arms // chunk * chunk


@inline_jit
def _pick(s, block, arms, lanes, w, out, first, width):  # pragma: no cover
    for j in range(lanes):
        arm = arms[j]
        picked = select(first == 0, 0.0, w[out + j])
        for i in range(width):
            k = first + i
            picked = select(arm == k, s[arm_row(block, k) + j], picked)
        w[out + j] = picked


@inline_jit
def pick(n_arms, s, block, arms, lanes, w, out):  # pragma: no cover
    """Every lane's entry of ``block`` (``VALUES``, ``PULLS`` ...) for its arm in ``arms`` (a
    double) into row ``out`` of the scratch array ``w``: a ``select`` per arm, a masked move once
    the lane loop vectorizes, where a gather would be slow."""
    chunk = chunk_width(n_arms)
    split = whole_chunks(n_arms, chunk)
    for first in range(0, split, chunk):
        _pick(s, block, arms, lanes, w, out, first, chunk)
    for first in range(split, n_arms):
        _pick(s, block, arms, lanes, w, out, first, 1)


@inline_jit
def _count(s, arms, rewards, lanes, first, width):  # pragma: no cover
    for j in range(lanes):
        arm = arms[j]
        reward = rewards[j]
        for i in range(width):
            k = first + i
            hit = arm == k
            pulls = s[arm_row(PULLS, k) + j]
            s[arm_row(PULLS, k) + j] = select(hit, pulls + 1.0, pulls)
            sums = s[arm_row(ARM_REWARDS, k) + j]
            s[arm_row(ARM_REWARDS, k) + j] = select(hit, sums + reward, sums)


@inline_jit
def count(n_arms, s, arms, rewards, lanes):  # pragma: no cover
    """Add every lane's rollout (its arm in ``arms``, its reward in ``rewards``) to its arm's pulls
    and reward sum and to its reward sum: a masked addition per arm once vectorized, which leaves
    the other arms' sums untouched (no 0 is added to them, nor a non-finite reward times 0)."""
    chunk = chunk_width(n_arms)
    split = whole_chunks(n_arms, chunk)
    for first in range(0, split, chunk):
        _count(s, arms, rewards, lanes, first, chunk)
    for first in range(split, n_arms):
        _count(s, arms, rewards, lanes, first, 1)
    for j in range(lanes):
        s[lane_row(TOTAL) + j] += rewards[j]
