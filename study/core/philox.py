"""Philox4x32-10 (Salmon et al. 2011) in numba, bit-exact with Random123's published
known-answer vectors and with ``randomgen.Philox(number=4, width=32)`` (both checked in
``tests/test_philox.py``).

Why a counter-based generator written here rather than numpy's BitGenerator through ctypes: a
block of output is a pure function of (counter, key), so any run can jump to any point of its
stream without state, a tie-break at checkpoint B can draw from its own counter range without
shifting the episodes after it, and the kernel draws the words of a block of seeds for many
episodes ahead in one tight loop. Why the 4x32 variant rather than numpy's Philox4x64: its
multiplies are 32 x 32 -> 64 bits, which AVX2 and AVX-512 do four or eight at a time
(``vpmuludq``), so that loop vectorizes across seeds; the 64 x 64 -> 128-bit multiply of 4x64 has
no vector instruction and ran one seed at a time, most of the floor of an episode.

Words are held in uint64 variables with the high 32 bits zero (the masks below tell LLVM so,
which is what lets it use the 32-bit multiply). A block is four 32-bit words; the key is two.
The sub-streams of a run (which counters serve episodes, noise and tie-breaks) are defined once,
in ``study.core.streams``.
"""

from __future__ import annotations

import numpy as np

from study.core.bits import double_from_bits
from study.core.jit import inline_jit, jit

_M0 = np.uint64(0xD2511F53)
_M1 = np.uint64(0xCD9E8D57)
_W0 = np.uint64(0x9E3779B9)
_W1 = np.uint64(0xBB67AE85)
_LOW32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_S11 = np.uint64(11)
_TWO_M32 = 1.0 / 4294967296.0
_TWO_M53 = 1.0 / 9007199254740992.0
_TWO_21 = 2097152.0
_TWO_52 = 4503599627370496.0
_TWO_52_BITS = np.uint64(0x4330000000000000)
ROUNDS = 10


@inline_jit
def _round(c0: np.uint64, c1: np.uint64, c2: np.uint64, c3: np.uint64, k0: np.uint64,
           k1: np.uint64,
           r: int) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:  # pragma: no cover
    """Round ``r`` (0 .. 9), its key bumped r times by the Weyl constants. The low halves of the
    products stay unmasked (their high bits are garbage that the next round's masked multiply or
    the final mask drops): masking both halves of one product made LLVM keep the loop over seeds
    scalar."""
    p0 = _M0 * (c0 & _LOW32)
    p1 = _M1 * (c2 & _LOW32)
    bump = np.uint64(r)
    return ((p1 >> _S32) ^ c1 ^ ((k0 + _W0 * bump) & _LOW32), p1,
            (p0 >> _S32) ^ c3 ^ ((k1 + _W1 * bump) & _LOW32), p0)


@inline_jit
def philox_block(
    c0: np.uint64, c1: np.uint64, c2: np.uint64, c3: np.uint64, k0: np.uint64, k1: np.uint64
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:  # pragma: no cover
    """The four 32-bit output words of Philox4x32-10 for counter (c0, c1, c2, c3) and key
    (k0, k1), every argument a 32-bit value held in a uint64.

    Inlined into the caller by numba, with the ten rounds written out: called, or as a ``range``
    loop, it kept LLVM from vectorizing the caller's loop over seeds (measured: scalar ``imul``
    only)."""
    k0 &= _LOW32
    k1 &= _LOW32
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1, 0)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1, 1)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1, 2)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1, 3)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1, 4)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1, 5)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1, 6)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1, 7)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1, 8)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1, 9)
    return c0 & _LOW32, c1 & _LOW32, c2 & _LOW32, c3 & _LOW32


@jit
def unit32(word: np.uint64) -> float:  # pragma: no cover
    """A 32-bit word as a uniform in [0, 1) with 32-bit resolution: word / 2^32.

    The integer becomes a double by placing it in the mantissa of 2^52 and subtracting 2^52,
    which is exact and vectorizes (AVX2 has no 64-bit integer to double conversion)."""
    return (double_from_bits(word | _TWO_52_BITS) - _TWO_52) * _TWO_M32


@jit
def unit53(high: np.uint64, low: np.uint64) -> float:  # pragma: no cover
    """A uniform in [0, 1) with 53-bit resolution from two 32-bit words: the 32 bits of
    ``high`` above the top 21 bits of ``low``, over 2^53 (every step exact)."""
    top = double_from_bits(high | _TWO_52_BITS) - _TWO_52
    bottom = double_from_bits((low >> _S11) | _TWO_52_BITS) - _TWO_52
    return (top * _TWO_21 + bottom) * _TWO_M53


@jit
def fill_stream(k0: np.uint64, k1: np.uint64, c2: np.uint64, c3: np.uint64,
                out: np.ndarray) -> None:  # pragma: no cover
    """Write the first ``len(out)`` words of the stream of blocks (j, 0, c2, c3), j = 0, 1, ...,
    into ``out`` (for the tests)."""
    n = out.shape[0]
    for j in range((n + 3) // 4):
        words = philox_block(np.uint64(j), np.uint64(0), c2, c3, k0, k1)
        for w in range(4):
            if 4 * j + w < n:
                out[4 * j + w] = words[w]
