"""Philox4x64-10 (Salmon et al. 2011) in numba, bit-exact with ``numpy.random.Philox``.

Why a counter-based generator written here rather than numpy's BitGenerator through ctypes: a
block of output is a pure function of (counter, key), so any run can jump to any point of its
stream without state, a tie-break at checkpoint B can draw from its own counter range without
shifting the episodes after it, and the kernel can draw the words of a block of seeds for many
episodes ahead in one tight loop. The 64 x 64 -> 128-bit multiply is one scalar ``mulx``
(``study.core.bits.wide_multiply``); AVX2 has no 64-bit vector multiply, so the block is not
vectorized. Matching numpy's Philox bit for bit lets the tests' pure-Python reference consume
numpy's own generator, so the spec is checked against an implementation we did not write.

The sub-streams of a run (which counters serve episodes, noise, instances and tie-breaks) are
defined once, in ``study.core.streams``.
"""

from __future__ import annotations

import numpy as np

from study.core.bits import double_from_bits, wide_multiply
from study.core.jit import jit

_M0 = np.uint64(0xD2E7470EE14C6C93)
_M1 = np.uint64(0xCA5A826395121157)
_W0 = np.uint64(0x9E3779B97F4A7C15)
_W1 = np.uint64(0xBB67AE8584CAA73B)
_LOW32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_S11 = np.uint64(11)
_TWO_M53 = 1.0 / 9007199254740992.0
_TWO_M32 = 1.0 / 4294967296.0
_TWO_52 = 4503599627370496.0
_TWO_52_BITS = np.uint64(0x4330000000000000)
ROUNDS = 10


@jit
def philox_block(
    c0: np.uint64, c1: np.uint64, c2: np.uint64, c3: np.uint64, k0: np.uint64, k1: np.uint64
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:  # pragma: no cover
    """The four output words of Philox4x64-10 for counter (c0, c1, c2, c3) and key (k0, k1)."""
    for _ in range(ROUNDS):
        hi0, lo0 = wide_multiply(_M0, c0)
        hi1, lo1 = wide_multiply(_M1, c2)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
        k0 += _W0
        k1 += _W1
    return c0, c1, c2, c3


@jit
def to_unit(x: np.uint64) -> float:  # pragma: no cover
    """A uniform double in [0, 1) from the top 53 bits of x (numpy's ``next_double``)."""
    return float(x >> _S11) * _TWO_M53


@jit
def high_unit(x: np.uint64) -> float:  # pragma: no cover
    """The high 32 bits of x as a uniform in [0, 1) with 32-bit resolution: (x >> 32) / 2^32.

    The integer becomes a double by placing it in the mantissa of 2^52 and subtracting 2^52,
    which is exact and vectorizes (AVX2 has no 64-bit integer to double conversion)."""
    return (double_from_bits((x >> _S32) | _TWO_52_BITS) - _TWO_52) * _TWO_M32


@jit
def low_unit(x: np.uint64) -> float:  # pragma: no cover
    """The low 32 bits of x as a uniform in [0, 1): (x mod 2^32) / 2^32 (see ``high_unit``)."""
    return (double_from_bits((x & _LOW32) | _TWO_52_BITS) - _TWO_52) * _TWO_M32


@jit
def fill_stream(k0: np.uint64, k1: np.uint64, out: np.ndarray) -> None:  # pragma: no cover
    """Write the first ``len(out)`` words of a run's main stream into ``out`` (for the tests)."""
    n = out.shape[0]
    for j in range((n + 3) // 4):
        words = philox_block(np.uint64(j + 1), np.uint64(0), np.uint64(0), np.uint64(0), k0, k1)
        for w in range(4):
            if 4 * j + w < n:
                out[4 * j + w] = words[w]
