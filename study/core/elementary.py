"""The logarithm and the sine and cosine of Box-Muller, as code LLVM vectorizes, same on every host.

numba's pip build has no SVML, so ``math.log``, ``math.cos`` and ``math.sin`` are scalar libm calls
that stop a lane loop from vectorizing, and libm may round differently on another host or version.
These are built only from IEEE-754 basic operations (+, -, *, / and the fused multiply-add, each
correctly rounded) and integer operations on bit patterns, without a branch, so every x86-64
host, with any vector width, computes the same bits, and the pure-Python functions of the tests'
reference (``reference/elementary.py``), which perform the same operations in the same
order (each fma exactly, rounded once), compute them too. The polynomials are fdlibm's,
evaluated by Horner's scheme with one fused multiply-add a step where fdlibm rounds a product
and a sum: half a polynomial's vector instructions (the loop of the Gaussian noise is bound by
their number) and one rounding fewer a step. A product known to be exact (by a power of two, by
6, of k and ln 2's high part) followed by a sum is one fma too, with the bits of the two. The
measured errors are tested in ``tests/test_elementary.py``.
"""

from __future__ import annotations

import numpy as np

from study.core.bits import bits_from_double, double_from_bits, fma
from study.core.jit import inline_jit

LN2_HI = 6.93147180369123816490e-01  # ln 2 with its low 32 bits zero: k * LN2_HI is exact
LN2_LO = 1.90821492927058770002e-10  # ln 2 - LN2_HI
# fdlibm e_log.c: (log(1 + f) - 2 s) / s ~ Lg1 s^2 + ... + Lg7 s^14, s = f / (2 + f).
LG1 = 6.666666666666735130e-01
LG2 = 3.999999999940941908e-01
LG3 = 2.857142874366239149e-01
LG4 = 2.222219843214978396e-01
LG5 = 1.818357216161805012e-01
LG6 = 1.531383769920937332e-01
LG7 = 1.479819860511658591e-01
# fdlibm k_sin.c: sin(x) ~ x + S1 x^3 + ... + S6 x^13 on |x| <= pi/4.
S1 = -1.66666666666666324348e-01
S2 = 8.33333333332248946124e-03
S3 = -1.98412698298579493134e-04
S4 = 2.75573137070700676789e-06
S5 = -2.50507602534068634195e-08
S6 = 1.58969099521155010221e-10
# FreeBSD k_cos.c (fdlibm's, made branch-free): cos(x) ~ 1 - x^2 / 2 + C1 x^4 + ... + C6 x^14.
C1 = 4.16666666666666019037e-02
C2 = -1.38888888888741095749e-03
C3 = 2.48015872894767294178e-05
C4 = -2.75573143513906633035e-07
C5 = 2.08757232129817482790e-09
C6 = -1.13596475577881948265e-11
# 2 pi = 6 + TWO_PI_TAIL: 6 v is exact for the v of ``cos_sin_turns`` (at most 51 significant
# bits), so 2 pi v costs one rounding of a term a twentieth its size instead of one of its own.
TWO_PI_TAIL = 0.28318530717958645  # 2 pi - 6, to within 2.3e-17

_FRACTION = np.uint64(0x000FFFFFFFFFFFFF)
_IMPLICIT = np.uint64(0x0010000000000000)
_ONE_EXPONENT = np.uint64(0x3FF0000000000000)
# Added to the fraction bits, this carries into bit 52 exactly when the mantissa is at least
# 1 + 0x6A09C / 2^20 ~ sqrt(2) (fdlibm's 0x95f64 on the high word).
_SQRT2_CARRY = np.uint64(0x95F64 << 32)
# The bits of 2^52 plus a biased exponent e (< 2^11) are those of the double 2^52 + e: the
# exponent as a double without an integer conversion (which AVX2 does not vectorize).
_TWO52_BITS = np.uint64(0x4330000000000000)
_TWO52_PLUS_BIAS = 4503599627370496.0 + 1023.0
_TWO52 = 4503599627370496.0  # the doubles of [2^52, 2^53) are the integers: 2^52 + z rounds z
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_S52 = np.uint64(52)
_S63 = np.uint64(63)


@inline_jit
def fast_log(x: float) -> float:  # pragma: no cover
    """ln(x) for normal positive x; used on the Box-Muller u1 in [2^-53, 1]. (0, subnormals,
    infinities and NaN are not special-cased: they give meaningless values.)

    fdlibm's ``__ieee754_log`` (e_log.c): x = 2^k (1 + f) with sqrt(2)/2 <= 1 + f < sqrt(2), both
    taken from the bits of x, s = f / (2 + f), and ln(1 + f) = f - (f^2/2 - s (f^2/2 + R(s)))
    with fdlibm's degree-14 polynomial R, then ln(x) = k ln 2 + ln(1 + f) with ln 2 in two parts.
    fdlibm picks between this form and a cheaper one, and special-cases f = 0 and small |f|, by
    branches; this always takes the form fdlibm keeps for the largest |f| (the more accurate
    one, and it gives ln 1 = 0 exactly), and moves the mantissa to [sqrt(2)/2, sqrt(2)) by
    adding to the bits, so it has no branch. The division is the one fdlibm has: a correctly
    rounded IEEE operation, so still the same on every host, and vectorized (a polynomial in f
    itself would need a far higher degree, |f| being up to 0.41). R's two chains, and s times
    the rest, are fused multiply-adds (see the module docstring).

    k ln 2 + f is summed as a double-double, the rest of ln(1 + f) added to its error term, so
    that where the sum partly cancels (k = -1) its rounding does not add to the last one: on
    [2^-53, 1/2] this takes the worst case from fdlibm's 0.76 ulp to 0.59, and the results
    more than half an ulp off from 6-11% to about 1%.

    Accuracy, measured on 2.2 million points of [2^-53, 1] (``tests/test_elementary.py``): at
    most 0.857 ulp from the exact ln (computed in 64-bit extended precision; 0.87 seen on 20
    million more), for x in [1/2, 1/sqrt(2)], where ln x = -ln 2 + ln(1 + f) still half cancels;
    absolute error at most 3.6e-15 (half an ulp of ln 2^-53 = -36.7); at most 1 ulp from
    ``math.log``; ln 1 = 0 exactly. On the whole normal range, 0.61 ulp.
    """
    bits = bits_from_double(x)
    fraction = bits & _FRACTION
    carry = (fraction + _SQRT2_CARRY) & _IMPLICIT  # 2^52 when the mantissa is >= sqrt(2)
    mantissa = double_from_bits(fraction | (carry ^ _ONE_EXPONENT))  # the exponent 0 or -1
    k = double_from_bits(_TWO52_BITS + (bits >> _S52) + (carry >> _S52)) - _TWO52_PLUS_BIAS
    f = mantissa - 1.0
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    # fdlibm's split of R into even and odd powers of w, for two independent chains.
    t1 = w * fma(w, fma(w, LG6, LG4), LG2)
    r = fma(z, fma(w, fma(w, fma(w, LG7, LG5), LG3), LG1), t1)
    hfsq = 0.5 * f * f
    # k ln 2 + f as a double-double: for k != 0, |k LN2_HI| >= ln 2 > |f|, so the rounding error
    # of the sum is recovered exactly (for k = 0 there is none).
    head = fma(k, LN2_HI, f)
    head_error = fma(k, LN2_HI, -head) + f
    return head + (head_error - (hfsq - fma(s, hfsq + r, k * LN2_LO)))


@inline_jit
def cos_sin_turns(u: float) -> tuple[float, float]:  # pragma: no cover
    """(cos(2 pi u), sin(2 pi u)) for u in [0, 1) a multiple of 2^-53 (a 53-bit uniform).

    The argument is reduced exactly in turns: q = rint(4 u), v = u - q/4 (exact, |v| <= 1/8), so
    2 pi u = 2 pi v + q pi/2 with no error from pi, unlike a reduction of the radian argument
    2 pi u, which is itself rounded. x = 2 pi v is formed as a double-double x + y (6 v exact,
    the rest rounded once, its rounding error recovered), and fdlibm's kernels, which take the
    tail y, give cos x and sin x on |x| <= pi/4: ``__kernel_sin`` (k_sin.c) and FreeBSD's
    branch-free ``__kernel_cos`` (k_cos.c). The quadrant q mod 4 swaps and negates them by
    bit operations, which are exact and keep the lane loop free of branches.

    The kernels' polynomials, and the sums that take the tail y in, are fused multiply-adds
    (see the module docstring).

    Accuracy, against the exact values (computed in 64-bit extended precision) on 2.2 million
    uniforms n 2^-53 (``tests/test_elementary.py``): absolute error at most 8.9e-17 for cos and
    8.9e-17 for sin, at most 0.80 and 0.79 ulp (0.81 and 0.81 seen on 20 million more; mostly
    the rounding of x^2, largest at |x| ~ pi/4); u = 0, 1/4, 1/2, 3/4 give exactly +-1 and
    (signed) 0. ``math.cos(2 * math.pi * u)`` is off by up to 6.9e-16, as it rounds 2 pi u
    before reducing it.
    """
    shifted = fma(4.0, u, _TWO52)
    q = shifted - _TWO52
    v = fma(-0.25, q, u)
    tail = TWO_PI_TAIL * v
    x = fma(6.0, v, tail)
    y = fma(6.0, v, -x) + tail  # the rounding error of x (|6 v| >= |tail|): x + y = 2 pi v
    z = x * x
    cube = z * x
    rs = fma(z, fma(z, fma(z, fma(z, S6, S5), S4), S3), S2)
    sine = x - fma(-cube, S1, fma(z, fma(-cube, rs, 0.5 * y), -y))
    w = z * z
    rc = fma(w * w, fma(z, fma(z, C6, C5), C4), z * fma(z, fma(z, C3, C2), C1))
    head = fma(-0.5, z, 1.0)
    cosine = head + (fma(-0.5, z, 1.0 - head) + fma(z, rc, -(x * y)))
    # Quadrant n = q mod 4 (the low bits of ``shifted``): (cos, sin) of 2 pi u is (c, s),
    # (-s, c), (-c, -s), (s, -c) for n = 0, 1, 2, 3.
    n = bits_from_double(shifted)
    cos_bits = bits_from_double(cosine)
    sin_bits = bits_from_double(sine)
    swap = (cos_bits ^ sin_bits) & (_ZERO - (n & _ONE))  # all of the differing bits if n is odd
    negate_cos = ((n + _ONE) >> _ONE) << _S63  # n = 1, 2
    negate_sin = (n >> _ONE) << _S63  # n = 2, 3
    return (double_from_bits(cos_bits ^ swap ^ negate_cos),
            double_from_bits(sin_bits ^ swap ^ negate_sin))
