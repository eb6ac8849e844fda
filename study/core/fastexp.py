"""An exponential that LLVM vectorizes, for the softmax weights exp(l - max l) <= 1.

numba's pip build has no SVML, so ``math.exp`` is a scalar libm call and stops the lane loop of the
kernel from vectorizing. This is fdlibm's ``__ieee754_exp`` algorithm (Cody-Waite reduction by
ln 2 in two parts, then its degree-5 rational approximation of exp(r) on |r| <= ln(2)/2), with the
scaling 2^k built from the exponent bits instead of a call, and no branches.

Accuracy (``tests/test_fastexp.py``, against ``math.exp``): at most 1 ulp for
-708.39 <= x <= 0, the range it is used on; below -708.39 it returns 0 where ``math.exp`` returns a
subnormal, an absolute error under 2.3e-308 that no softmax weight (largest weight 1) can notice.
Every step is an IEEE operation that Python performs the same way, so the tests' reference
(``tests/reference/``) computes bit-identical values.
"""

from __future__ import annotations

import numpy as np

from study.core.bits import bits_from_double, double_from_bits
from study.core.jit import jit

LN2_HI = 6.93147180369123816490e-01  # ln 2 with its low 32 bits zero: k * LN2_HI is exact
LN2_LO = 1.90821492927058770002e-10
INV_LN2 = 1.44269504088896338700e00
P1 = 1.66666666666666019037e-01
P2 = -2.77777777770155933842e-03
P3 = 6.61375632143793436117e-05
P4 = -1.65339022054652515390e-06
P5 = 4.13813679705723846039e-08
UNDERFLOW = -708.39  # below this 2^k would be subnormal; the result is flushed to 0
# Adding 2^52 + 1023 to an integral k leaves k + 1023 in the low mantissa bits; shifted left by 52
# they become the exponent field of 2^k.
_EXPONENT_BIAS = 4503599627370496.0 + 1023.0
_S52 = np.uint64(52)


@jit
def fast_exp(x: float) -> float:  # pragma: no cover
    """exp(x) within 1 ulp for UNDERFLOW <= x <= 0 (and x up to 709); 0 below UNDERFLOW."""
    k = np.floor(x * INV_LN2 + 0.5)
    hi = x - k * LN2_HI
    lo = k * LN2_LO
    r = hi - lo
    t = r * r
    c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))))
    y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
    scale = double_from_bits(bits_from_double(k + _EXPONENT_BIAS) << _S52)
    return y * scale if x >= UNDERFLOW else 0.0
