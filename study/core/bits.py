"""Bit-level operations numba does not offer on scalars, as LLVM intrinsics for the kernels.

A bit cast between a 64-bit word and a double (free, and it keeps a loop vectorizable, unlike a
round trip through a NumPy view), and the 64 x 64 -> 128-bit multiply Philox needs.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def double_from_bits(typingctx, bits):  # type: ignore[no-untyped-def]  # pragma: no cover
    """The double whose IEEE-754 bit pattern is the uint64 or int64 ``bits``."""
    if not isinstance(bits, types.Integer) or bits.bitwidth != 64:
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.bitcast(args[0], context.get_value_type(types.float64))

    return types.float64(bits), codegen


@intrinsic
def bits_from_double(typingctx, value):  # type: ignore[no-untyped-def]  # pragma: no cover
    """The IEEE-754 bit pattern of the double ``value``, as a uint64."""
    if not isinstance(value, types.Float) or value.bitwidth != 64:
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.bitcast(args[0], context.get_value_type(types.uint64))

    return types.uint64(value), codegen


@intrinsic
def wide_multiply(typingctx, a, b):  # type: ignore[no-untyped-def]  # pragma: no cover
    """(high, low) 64-bit words of the 128-bit product of two uint64, as one LLVM ``mul i128``
    (a single ``mulx`` on x86-64, where four 32-bit partial products would take four)."""
    if not all(isinstance(x, types.Integer) and x.bitwidth == 64 and not x.signed for x in (a, b)):
        return None
    pair = types.UniTuple(types.uint64, 2)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        high = builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))
        low = builder.trunc(product, ir.IntType(64))
        return context.make_tuple(builder, pair, (high, low))

    return pair(a, b), codegen
