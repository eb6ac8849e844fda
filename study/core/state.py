"""The layout of the state of a block of runs in lockstep: one flat array of rows of ``LANES``
doubles, one row per quantity (per arm where it has one), lane j of a row at offset j.

The kernel's lane loops write several quantities of an episode at once (logits, pulls, reward
sums ...). Held in separate arrays, each pair of them would need a run-time overlap check before
LLVM vectorizes the loop, and past eight such checks it gives up and keeps the loop scalar. Rows
of one array whose stride is the constant ``LANES`` are a constant distance apart, so LLVM proves
them disjoint at compile time: no checks, whatever the number of quantities. With K known at
compile time (the kernel is specialised per K) every row offset below is a constant too.

Offsets and lane indices are unsigned: numba adds the length to a negative signed index, and that
select in every address keeps LLVM from seeing the rows as a constant distance apart (the loop
stays scalar); an unsigned index has no such case.

Rows: six blocks of K rows (``PARAMS`` ... ``BEST``), then the single rows (``TOTAL`` ...).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from study.core.bits import select
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
"""Blocks of K rows: the learner's parameters (REINFORCE's logits; zero at the start); its
scratch per arm (the softmax weights); each arm's pulls (counts as doubles: exact to 2^53, and
SIMD-friendly) and reward sum; the arms' values (probabilities or means) and 1.0 for the lane's
best arms (both read only)."""
TOTAL, ZERO_SIGNAL, NORM, WORK_A, WORK_B = range(5)
"""Single rows: the reward sum; the updates whose advantages were all 0; the learner's scratch
for a group (the softmax weights' sum, then its inverse); two more rows of scratch."""
BLOCKS = 6
SINGLES = 5
BUFFERED = 64
"""Episodes whose random draws are made in one go (even: a Philox block serves two episodes);
they are kept in arrays of their own (a row of the state read at an offset known only at run time
would need a run-time overlap check against every row the pass writes)."""


def _row_offset(context, builder, signature, args):  # type: ignore[no-untyped-def]
    """(block K + index) STRIDE in unsigned 64-bit arithmetic, from (K, block, index)."""
    n_arms, block, index = (context.cast(builder, value, kind, types.uint64)
                            for value, kind in zip(args, signature.args, strict=True))
    rows_before = builder.add(builder.mul(block, n_arms), index)
    return builder.mul(rows_before, ir.Constant(rows_before.type, STRIDE))


def _integers(*values: types.Type) -> bool:
    return all(isinstance(value, types.Integer) for value in values)


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
def arm_row(typingctx, n_arms, block, k):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Offset of arm k's row of ``block`` (``PARAMS`` ...), a uint64; lane j is at this plus
    j."""
    if not _integers(n_arms, block, k):
        return None
    return types.uint64(n_arms, block, k), _row_offset


@intrinsic
def lane_row(typingctx, n_arms, single):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Offset of the single row ``single`` (``TOTAL`` ...), a uint64; lane j is at this plus
    j."""
    if not _integers(n_arms, single):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        blocks = context.get_constant(types.intp, BLOCKS)
        return _row_offset(context, builder,
                           types.uint64(signature.args[0], types.intp, signature.args[1]),
                           (args[0], blocks, args[1]))

    return types.uint64(n_arms, single), codegen


@inline_jit
def pulled(n_arms, s, block, j, arm):  # type: ignore[no-untyped-def]  # pragma: no cover
    """Lane j's entry of the per-arm ``block`` (``VALUES``, ``PULLS`` ...) for the arm ``arm`` (a
    double): a ``select`` per arm, a masked move once the lane loop vectorizes, where a gather
    would be slow."""
    picked = 0.0
    for k in range(n_arms):
        picked = select(arm == k, s[arm_row(n_arms, block, k) + j], picked)
    return picked
