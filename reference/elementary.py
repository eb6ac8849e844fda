"""The elementary functions of the model: exp for the softmax, ln, cos and sin for Box-Muller.

Each is a fixed sequence of IEEE-754 double operations (Python floats are IEEE doubles, rounded to
nearest), so its value is defined exactly, the same on every host; the kernel's
``study.core.fastexp`` and ``study.core.elementary`` perform the same operations in the same
order (without branches, so their code is arranged differently) and must agree bit for bit.
"""

from __future__ import annotations

import math

LN2_HI = 6.93147180369123816490e-01  # k * LN2_HI is exact for |k| < 2^21
LN2_LO = 1.90821492927058770002e-10

EXP_FLUSH = -708.39  # below it 2^k would be subnormal, and exp flushes to 0
# Q(r) ~ (e^r - 1 - r) / r^2 on |r| <= 0.3466: Chebyshev interpolation at 11 nodes.
EXP_Q = (0.5, 0.1666666666666667, 0.04166666666666667, 0.008333333333326136,
         0.001388888888888375, 0.00019841269874815834, 2.480158732554432e-05,
         2.7557255406285044e-06, 2.7557273647451087e-07, 2.5105214474751413e-08,
         2.0914685161418067e-09)

# (ln(1 + f) - 2 s) / s ~ Lg1 s^2 + ... + Lg7 s^14, s = f / (2 + f) (fdlibm e_log.c).
LOG_LG = (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
          2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
          1.479819860511658591e-01)
LOG_SQRT2 = 1.0 + 0x6A09C / 2**20  # fdlibm's threshold: mantissas from here on are halved

# sin x ~ x + S1 x^3 + ... (fdlibm k_sin.c); cos x ~ 1 - x^2/2 + C1 x^4 + ... (k_cos.c).
SIN_S = (-1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04,
         2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10)
COS_C = (4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05,
         -2.75573143513906633035e-07, 2.08757232129817482790e-09, -1.13596475577881948265e-11)
TWO_PI_MINUS_6 = 0.28318530717958645  # 6 v is exact for v a multiple of 2^-53, |v| <= 1/8


def fused_horner(coefficients: tuple[float, ...], x: float) -> float:
    """c0 + x (c1 + x (c2 + ...)), innermost first, each step one ``fma``."""
    total = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        total = fma(x, total, c)
    return total


def _integer(x: float) -> tuple[int, int]:
    """(n, e) with x = n 2^e exactly, n an integer."""
    mantissa, exponent = math.frexp(x)
    return int(mantissa * 2.0**53), exponent - 53


def fma(a: float, b: float, c: float) -> float:
    """a * b + c computed exactly and rounded once to the nearest double (IEEE 754
    fusedMultiplyAdd, as the kernel's ``study.core.bits.fma``), for finite arguments and a
    normal result.

    Exact integer arithmetic (a ``Fraction`` would do, at several times the cost): the sum is
    n 2^e; n is cut to 60 bits with the bits cut off kept as a sticky last bit, which leaves
    ``float`` (correctly rounded, ties to even) the same decision as on the whole of n."""
    na, ea = _integer(a)
    nb, eb = _integer(b)
    nc, ec = _integer(c)
    e = min(ea + eb, ec)
    n = (na * nb << (ea + eb - e)) + (nc << (ec - e))
    cut = abs(n).bit_length() - 60
    if cut > 0:
        magnitude = abs(n) >> cut | int(abs(n) & ((1 << cut) - 1) != 0)
        n = magnitude if n > 0 else -magnitude
        e += cut
    return math.ldexp(float(n), e)


def estrin(coefficients: tuple[float, ...], x: float) -> float:
    """c0 + c1 x + c2 x^2 + ... by Estrin's scheme: adjacent pairs fma(x, b, a), then pairs of
    those with x^2 (x * x), then with x^4 ((x * x) * (x * x)), ..., an odd last term carried
    up."""
    terms = list(coefficients)
    power = x
    while len(terms) > 1:
        paired = [fma(power, terms[i + 1], terms[i]) for i in range(0, len(terms) - 1, 2)]
        terms = paired + terms[len(paired) * 2:]
        power = power * power
    return terms[0]


def exp(x: float) -> float:
    """e^x for -708.39 <= x <= 709, 0 below (and for NaN): x = k ln 2 + r (k the nearest integer
    to x / ln 2 + 1.5 * 2^52 rounded once, less 1.5 * 2^52; r = hi - lo with hi = x - k LN2_HI
    exact), exp(r) = 1 + r + r^2 Q(r) with Q(r) = q0 + r P(r), P by Estrin's scheme, every
    multiply-add fused, and the sum 1 + hi carried as a double-double; times 2^k."""
    if not x >= EXP_FLUSH:
        return 0.0
    k = fma(x, 1.44269504088896338700e00, 1.5 * 2.0**52) - 1.5 * 2.0**52
    hi = fma(-k, LN2_HI, x)
    lo = k * LN2_LO
    r = hi - lo
    q = fma(r, estrin(EXP_Q[1:], r), EXP_Q[0])
    head = 1.0 + hi
    head_error = (1.0 - head) + hi
    y = head + fma(r * r, q, head_error - lo)
    return y * 2.0 ** int(k)


def log(x: float) -> float:
    """ln x for normal positive x, fdlibm's e_log.c: x = 2^k (1 + f), sqrt(2)/2 <= 1 + f <
    sqrt(2), s = f / (2 + f), ln(1 + f) = f - (f^2/2 - s (f^2/2 + R)) with R its polynomial in
    s^2, evaluated as fdlibm does in even and odd powers of s^4."""
    mantissa, exponent = math.frexp(x)  # x = mantissa 2^exponent, 1/2 <= mantissa < 1
    if 2.0 * mantissa >= LOG_SQRT2:
        f, k = mantissa - 1.0, float(exponent)
    else:
        f, k = 2.0 * mantissa - 1.0, float(exponent - 1)
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    lg1, lg2, lg3, lg4, lg5, lg6, lg7 = LOG_LG
    r = fma(z, fused_horner((lg1, lg3, lg5, lg7), w), w * fused_horner((lg2, lg4, lg6), w))
    hfsq = 0.5 * f * f
    head = fma(k, LN2_HI, f)
    head_error = fma(k, LN2_HI, -head) + f
    return head + (head_error - (hfsq - fma(s, hfsq + r, k * LN2_LO)))


def cos_sin_turns(u: float) -> tuple[float, float]:
    """(cos 2 pi u, sin 2 pi u) for u in [0, 1): u = v + q/4 with q the nearest integer to 4u
    (ties to even) and |v| <= 1/8 exact, 2 pi v as the double-double x + y (2 pi = 6 + its
    rest, 6 v exact), fdlibm's kernels k_sin.c and (FreeBSD's) k_cos.c on x + y, then the
    quadrant q mod 4."""
    q = round(4.0 * u)
    v = u - q / 4
    rest = TWO_PI_MINUS_6 * v
    x = fma(6.0, v, rest)
    y = fma(6.0, v, -x) + rest
    z = x * x
    s1, *s_rest = SIN_S
    cube = z * x
    sine = x - fma(-cube, s1, fma(z, fma(-cube, fused_horner(tuple(s_rest), z), 0.5 * y), -y))
    c1, c2, c3, c4, c5, c6 = COS_C
    r = fma((z * z) * (z * z), fused_horner((c4, c5, c6), z), z * fused_horner((c1, c2, c3), z))
    head = fma(-0.5, z, 1.0)
    cosine = head + (fma(-0.5, z, 1.0 - head) + fma(z, r, -(x * y)))
    return [(cosine, sine), (-sine, cosine), (-cosine, -sine), (sine, -cosine)][q % 4]
