"""Bit-level operations numba does not offer on scalars, as LLVM intrinsics for the kernels.

A bit cast between a 64-bit word and a double (free, and it keeps a loop vectorizable, unlike a
round trip through a NumPy view), the fused multiply-add the exponential is built on, a select
without a branch (the kernels' one-hot arithmetic), and an integer literal as a compile-time
constant (the kernel's K).
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
def fma(typingctx, a, b, c):  # type: ignore[no-untyped-def]  # pragma: no cover
    """a * b + c rounded once (IEEE 754 fusedMultiplyAdd), as LLVM's ``llvm.fma.f64``: one
    instruction where the host has FMA, the correctly rounded libm ``fma`` where it has not, so
    the bits are the same on every host (unlike ``llvm.fmuladd``, which may or may not fuse)."""
    if not all(isinstance(x, types.Float) and x.bitwidth == 64 for x in (a, b, c)):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        double = ir.DoubleType()
        fused = builder.module.declare_intrinsic(
            "llvm.fma", [double], ir.FunctionType(double, [double, double, double]))
        return builder.call(fused, args)

    return types.float64(a, b, c), codegen



@intrinsic
def select(typingctx, condition, if_true, if_false):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``if_true`` where ``condition`` holds, else ``if_false`` (two doubles), as one LLVM
    ``select``: no branch, so the lane loop around it still vectorizes (numba lowers
    ``a if c else b`` to branches), and a vector blend or masked move where it does."""
    if not (isinstance(condition, types.Boolean)
            and all(isinstance(x, types.Float) and x.bitwidth == 64
                    for x in (if_true, if_false))):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        flag = context.cast(builder, args[0], signature.args[0], types.boolean)
        return builder.select(flag, args[1], args[2])

    return types.float64(condition, if_true, if_false), codegen
