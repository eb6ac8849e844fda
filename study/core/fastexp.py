"""An exponential that LLVM vectorizes, for the softmax weights exp(l - max l) <= 1.

numba's pip build has no SVML, so ``math.exp`` is a scalar libm call and stops the lane loop of the
kernel from vectorizing; libm's result could also differ between hosts. ``fast_exp`` is built only
from correctly rounded IEEE-754 additions, subtractions, multiplications and fused multiply-adds,
a comparison and integer operations on bit patterns, so every x86-64 host computes the same bits,
and the pure-Python ``exp`` of the tests' reference (``reference/elementary.py``), which
performs the same operations in the same order, computes them too. See ``fast_exp`` for the
algorithm and ``tests/test_fastexp.py`` for the measured error.
"""

from __future__ import annotations

import numpy as np

from study.core.bits import bits_from_double, double_from_bits, fma, select
from study.core.jit import inline_jit

LN2_HI = 6.93147180369123816490e-01  # ln 2 with its low 32 bits zero: k * LN2_HI is exact
LN2_LO = 1.90821492927058770002e-10  # ln 2 - LN2_HI
INV_LN2 = 1.44269504088896338700e00
UNDERFLOW = -708.39  # below this 2^k would be subnormal; the result is flushed to 0
# Q(r) = (e^r - 1 - r) / r^2 ~ E0 + E1 r + ... + E10 r^10 on |r| <= 0.3466 (a little over ln(2)/2):
# the Chebyshev interpolant at 11 nodes, computed in exact rational arithmetic and rounded to
# double. Its error, r^2 |Q - P|, is below 2.9e-19 (0.003 ulp of exp(r)), a near-minimax
# degree 12 for exp where a Taylor polynomial would need degree 13.
E0 = 0.5
E1 = 0.1666666666666667
E2 = 0.04166666666666667
E3 = 0.008333333333326136
E4 = 0.001388888888888375
E5 = 0.00019841269874815834
E6 = 2.480158732554432e-05
E7 = 2.7557255406285044e-06
E8 = 2.7557273647451087e-07
E9 = 2.5105214474751413e-08
E10 = 2.0914685161418067e-09
# Adding 1.5 * 2^52 to |z| < 2^51 rounds z to the nearest integer k (ties to even), since the
# doubles of [2^52, 2^53) are the integers: subtracting it again gives k without a floor() (which
# on a CPU without SSE4.1 is a libm call), and the low mantissa bits of the sum hold k itself.
_SHIFTER = 6755399441055744.0
# With 1023 added, those low bits shifted left by 52 are the exponent field of 2^k.
_BIAS = np.uint64(1023)
_S52 = np.uint64(52)


@inline_jit
def fast_exp(x: float) -> float:  # pragma: no cover
    """exp(x) for UNDERFLOW <= x <= 709 (used on x <= 0); 0 below UNDERFLOW, for -inf and NaN.

    Cody-Waite: x = k ln 2 + r with k = rint(x / ln 2), |r| <= ln(2)/2, ln 2 in two parts so that
    hi = x - k LN2_HI is exact and r = hi - lo, lo = k LN2_LO. Then exp(r) = 1 + r + r^2 Q(r)
    with the degree-10 polynomial Q above, and exp(x) = 2^k exp(r), 2^k built from exponent bits.
    No division (fdlibm's rational form needs one) and no branch, so the kernel's lane loops
    vectorize. Q is evaluated as E0 + r P(r) with P in Estrin's scheme (pairs, then pairs of
    pairs): its dependency chain is 5 multiply-adds long where Horner's is 10, and a lane loop
    of a few vectors is bound by that latency, while E0 + r P(r) keeps the single rounding of the
    leading term that makes Horner accurate. 1 + hi is carried as a double-double (its rounding
    error recovered exactly, |hi| < 1), so r, which is rounded, enters only the small r^2 Q(r),
    and every rounding but the last is of a term under 0.07.

    Every multiply-add is a fused one (``fma``, rounded once): half the operations of separate
    multiplications and additions, and correctly rounded, so the bits are the same on every host
    and the tests' reference computes them exactly (``reference/elementary.py``). k comes
    from one rounding of x / ln 2 + 1.5 * 2^52 (see ``_SHIFTER``).

    Accuracy, measured on 2.6 million points of [UNDERFLOW, 0], most near the reduction edges
    (``tests/test_fastexp.py``): within ``EXP_ULPS`` of that test of the exact exp (computed in
    64-bit extended precision), at most 1 ulp from ``math.exp``; exp(0) = 1 exactly.
    """
    shifted = fma(x, INV_LN2, _SHIFTER)
    k = shifted - _SHIFTER
    hi = fma(-k, LN2_HI, x)
    lo = k * LN2_LO
    r = hi - lo
    r2 = r * r
    r4 = r2 * r2
    low = fma(r2, fma(r, E4, E3), fma(r, E2, E1))
    high = fma(r2, fma(r, E8, E7), fma(r, E6, E5))
    p = fma(r4 * r4, fma(r, E10, E9), fma(r4, high, low))
    q = fma(r, p, E0)
    head = 1.0 + hi
    y = head + fma(r2, q, ((1.0 - head) + hi) - lo)
    scale = double_from_bits((bits_from_double(shifted) + _BIAS) << _S52)
    # The flush is a ``select`` (a masked move in a lane loop), not ``if`` (numba lowers it to
    # branches) nor a multiplication by 1.0 or 0.0: below UNDERFLOW y * scale may be anything
    # (NaN for x = -inf, where hi = -inf + inf), and a product with 0.0 keeps NaN. (Only for
    # -708.74 < x < UNDERFLOW is it subnormal, which may cost a slow microcode assist.)
    return select(x >= UNDERFLOW, y * scale, 0.0)
