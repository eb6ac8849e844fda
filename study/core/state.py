"""The layout of the state of a block of runs in lockstep: one flat array of rows of ``LANES``
doubles, one row per quantity (per arm where it has one), lane j of a row at offset j.

The kernel's lane loops write several quantities of an episode at once (logits, pulls, reward
sums ...). Held in separate arrays, each pair of them would need a run-time overlap check before
LLVM vectorizes the loop, and past eight such checks it gives up and keeps the loop scalar. Rows
of one array whose stride is the constant ``LANES`` are a constant distance apart, so LLVM proves
them disjoint at compile time: no checks, whatever the number of quantities.

The rows are arm-major: the single rows first (``TOTAL`` ...), then arm 0's ``BLOCKS`` rows
(``PARAMS`` ... ``BEST``), arm 1's, and so on. So the rows of arms k, k + 1, ... of every block are
a constant distance apart whatever K is, and a lane loop over a few arms at a time
(``ARM_CHUNK``) vectorizes with K known only at run time, where K rows of a block-major layout
would be K apart, a distance LLVM does not know; and no offset depends on K, so a state is laid
out the same for every K.

Offsets and lane indices are unsigned: numba adds the length to a negative signed index, and that
select in every address keeps LLVM from seeing the rows as a constant distance apart (the loop
stays scalar); an unsigned index has no such case.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from study.core.jit import inline_jit

LANES = 128
"""Seeds advanced together, and the stride of a row: sixteen AVX-512 or thirty-two AVX2 vectors
of doubles per lane loop, so that a loop's fixed cost (its entry, its tests of the baseline, the
draws' bookkeeping between passes) is spread over more seeds (faster than 64 lanes at K = 3 in
``benchmarks.ab``'s interleaved rounds, and no slower up to K = 100: ``make bench``'s K axis).
The state of K arms is (6 K + 5) rows of ``STRIDE`` doubles: whether K = 100's fits in a host's L2
is that host's to say. The kernels take the
number of lanes as a run-time argument on purpose: with a constant trip count LLVM fully unrolls
each lane loop and then fails to vectorize the unrolled code."""

VECTOR = 8
"""Doubles in a 512-bit vector: a block of fewer runs than ``LANES`` (a study's last) is run in
a whole number of them."""

STRIDE = LANES + 8
"""Doubles from one row to the next: a whole number of cache lines, but not a divisor of 4 KiB,
so that rows a few apart do not fall on the same 4 KiB offset (a load then waits on a store to
another row that the CPU's quick address check mistakes for its own)."""

PARAMS, WEIGHTS, PULLS, ARM_REWARDS, VALUES, BEST = range(6)
"""An arm's rows: the learner's parameters (REINFORCE's logits; zero at the start); its scratch
per arm (the softmax weights); the arm's pulls (counts as doubles: exact to 2^53, and
SIMD-friendly) and reward sum; its value (probability or mean) and 1.0 if it is a best arm (both
read only)."""
TOTAL, ZERO_SIGNAL, NORM, WORK_A, WORK_B = range(5)
"""Single rows: the reward sum; the updates whose advantages were all 0; the learner's scratch
for a group (the softmax weights' sum); two more rows of scratch."""
BLOCKS = 6
SINGLES = 5
SCRATCH = 3
"""Rows of a block's scratch array, an array of its own beside the state (lane j of row i at
i STRIDE + j): the running numbers of a pass over the arms (a softmax's largest logit and sum,
an inverse CDF's running sum, an arm's picked entry ...), each pass saying which rows it uses.
In the state they would sit a distance from the arms' rows that depends on K, and a lane loop
that wrote either beside reading the other would need a run-time overlap check; LLVM's check
took the rows of two interleaved blocks of the arms for overlapping and ran the loop scalar. Of
another array, the check is one range against another, which passes."""
UNROLLED_ARMS = 16
"""The largest K the drivers are compiled for one by one (they take K itself up to it, 0 past
it): with K a constant every loop over the arms is unrolled, and a pass over them is one lane
loop that takes them all at once (``chunk_width``). One compilation serves every larger K."""
ARM_CHUNK = 4
"""Arms a lane loop over the arms takes at a time past ``UNROLLED_ARMS``: their rows' loads and
stores, and a lane's running numbers (a maximum, a sum) held in registers across them, where a
loop per arm would load and store the running numbers at every arm. A chunk's loop over its arms
has this constant trip count, so LLVM unrolls it and vectorizes the lane loop around it, for
any K; the state has room for a whole number of chunks (``study.core.arms.padded``)."""
ALIGNMENT = 64
"""Bytes a lane loop's arrays are aligned to (``aligned``): a cache line, and a 512-bit vector."""
BUFFERED = 64
"""Episodes whose random draws are made in one go (even: a Philox block serves two episodes);
they are kept in arrays of their own (a row of the state read at an offset known only at run time
would need a run-time overlap check against every row the pass writes)."""


def _integers(*values: types.Type) -> bool:
    return all(isinstance(value, types.Integer) for value in values)


def _unsigned(context, builder, signature, args):  # type: ignore[no-untyped-def]
    return [context.cast(builder, value, kind, types.uint64)
            for value, kind in zip(args, signature.args, strict=True)]


# The offsets are intrinsics, not inlined numba functions: the kernel computes one at every
# access, and numba types an inlined function's body again at each call site, which was most of
# the kernel's compile time (paid once per K).
@intrinsic
def rows(typingctx, n_arms):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Rows of the state of K = ``n_arms`` arms (an intp)."""
    if not _integers(n_arms):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        n = context.cast(builder, args[0], signature.args[0], types.intp)
        return builder.add(builder.mul(n, ir.Constant(n.type, BLOCKS)),
                           ir.Constant(n.type, SINGLES))

    return types.intp(n_arms), codegen


@intrinsic
def arm_row(typingctx, block, k):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Offset of arm k's row of ``block`` (``PARAMS`` ...), (SINGLES + k BLOCKS + block) STRIDE,
    a uint64; lane j is at this plus j."""
    if not _integers(block, k):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        block, k = _unsigned(context, builder, signature, args)
        row = builder.add(builder.mul(k, ir.Constant(k.type, BLOCKS)),
                          builder.add(block, ir.Constant(k.type, SINGLES)))
        return builder.mul(row, ir.Constant(row.type, STRIDE))

    return types.uint64(block, k), codegen


@intrinsic
def lane_row(typingctx, single):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Offset of the single row ``single`` (``TOTAL`` ...), or of row ``single`` of a block's
    scratch array (``SCRATCH``): single STRIDE, a uint64; lane j is at this plus j."""
    if not _integers(single):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        (single,) = _unsigned(context, builder, signature, args)
        return builder.mul(single, ir.Constant(single.type, STRIDE))

    return types.uint64(single), codegen


@intrinsic
def arm_count(typingctx, n_arms, otherwise):  # type: ignore[no-untyped-def]  # pragma: no cover
    """K from the driver's literal ``n_arms`` (an intp): the literal itself, a compile-time
    constant of LLVM's, or where it is 0, ``otherwise`` (the arm values' K, which is then past
    ``UNROLLED_ARMS``) as max(otherwise, UNROLLED_ARMS + 1), so that LLVM knows it is past
    ``UNROLLED_ARMS`` and ``chunk_width`` is the constant ``ARM_CHUNK``. (numba passes a literal
    argument at run time all the same, so arithmetic on it would stay symbolic in LLVM's
    eyes.)"""
    if not isinstance(n_arms, types.IntegerLiteral) or not isinstance(otherwise, types.Integer):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        if n_arms.literal_value:
            return context.get_constant(types.intp, n_arms.literal_value)
        k = context.cast(builder, args[1], otherwise, types.intp)
        least = ir.Constant(k.type, UNROLLED_ARMS + 1)
        return builder.select(builder.icmp_signed(">", k, least), k, least)

    return types.intp(n_arms, otherwise), codegen


@intrinsic
def chunk_width(typingctx, n_arms):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Arms a lane loop of a pass over K = ``n_arms`` arms takes at once: K up to
    ``UNROLLED_ARMS``, else ``ARM_CHUNK`` (a constant for LLVM where K is one, and past
    ``UNROLLED_ARMS`` where K is ``arm_count``'s)."""
    if not _integers(n_arms):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        k = context.cast(builder, args[0], signature.args[0], types.intp)
        whole = builder.icmp_signed("<=", k, ir.Constant(k.type, UNROLLED_ARMS))
        return builder.select(whole, k, ir.Constant(k.type, ARM_CHUNK))

    return types.intp(n_arms), codegen


@inline_jit
def aligned(n, kind=np.float64):  # pragma: no cover
    """An array of n numbers of dtype ``kind``, uninitialized, whose first starts at a multiple
    of ``ALIGNMENT`` bytes (a view of a slightly longer one). numba aligns an array to 32 bytes
    only, so that in a process whose allocations fall 32 bytes past a cache line, every 512-bit
    load or store of a lane loop straddled two lines: the kernel ran in one of two speeds, a third
    apart, by the process (rows and blocks of lanes are whole cache lines, so the first element
    decides)."""
    buffer = np.empty(n + ALIGNMENT, kind)
    skip = (ALIGNMENT - buffer.ctypes.data % ALIGNMENT) % ALIGNMENT // buffer.itemsize
    return buffer[skip:skip + n]


@inline_jit
def aligned_rows(count, width, kind=np.float64):  # pragma: no cover
    """``aligned``'s ``count`` times ``width`` numbers as ``count`` rows of ``width`` (a
    multiple of ``VECTOR`` keeps every row aligned)."""
    return aligned(count * width, kind).reshape((count, width))
