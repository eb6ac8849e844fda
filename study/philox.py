"""Philox4x64-10 (Salmon et al. 2011) in numba, bit-exact with ``numpy.random.Philox``.

Why a counter-based generator written here rather than numpy's BitGenerator through ctypes: a
block of output is a pure function of (counter, key), so any run can jump to any point of its
stream without state, a tie-break at checkpoint B can draw from its own counter range without
shifting the episodes after it, and (for the benchmark issue) many seeds can be advanced in SIMD
lockstep because the function has no branches and no memory state. Matching numpy's Philox
bit for bit lets the tests' pure-Python reference consume numpy's own generator, so the spec is
checked against an implementation we did not write.

Stream layout of one run (key = two 64-bit words from ``numpy.random.SeedSequence``):
  * main stream: block j (j = 0, 1, ...) is ``philox(counter=(j + 1, 0, 0, 0), key)``, exactly the
    blocks ``numpy.random.Philox(key=key)`` emits in order; episode t uses words 2t and 2t + 1 of
    the concatenated stream (action draw, then reward draw);
  * tie-break stream: the tie-break at checkpoint budget B uses word 0 of
    ``philox(counter=(B, 0, 0, 1), key)``, i.e. the first word of
    ``numpy.random.Philox(key=key, counter=[B - 1, 0, 0, 1])``. The main stream would need 2^193
    episodes to reach counter word 3 = 1, so the two never overlap.
"""

from __future__ import annotations

import numpy as np

from study.jit import jit

_M0 = np.uint64(0xD2E7470EE14C6C93)
_M1 = np.uint64(0xCA5A826395121157)
_W0 = np.uint64(0x9E3779B97F4A7C15)
_W1 = np.uint64(0xBB67AE8584CAA73B)
_LOW32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_S11 = np.uint64(11)
_TWO_M53 = 1.0 / 9007199254740992.0
ROUNDS = 10


@jit
def mulhilo(a: np.uint64, b: np.uint64) -> tuple[np.uint64, np.uint64]:  # pragma: no cover
    """High and low 64-bit words of the 128-bit product a * b, from 32-bit halves (numba has no
    128-bit integer)."""
    a_lo = a & _LOW32
    a_hi = a >> _S32
    b_lo = b & _LOW32
    b_hi = b >> _S32
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    cross = (lo_lo >> _S32) + (hi_lo & _LOW32) + lo_hi
    hi = a_hi * b_hi + (hi_lo >> _S32) + (cross >> _S32)
    return hi, a * b


@jit
def philox_block(
    c0: np.uint64, c1: np.uint64, c2: np.uint64, c3: np.uint64, k0: np.uint64, k1: np.uint64
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:  # pragma: no cover
    """The four output words of Philox4x64-10 for counter (c0, c1, c2, c3) and key (k0, k1)."""
    for _ in range(ROUNDS):
        hi0, lo0 = mulhilo(_M0, c0)
        hi1, lo1 = mulhilo(_M1, c2)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
        k0 += _W0
        k1 += _W1
    return c0, c1, c2, c3


@jit
def to_unit(x: np.uint64) -> float:  # pragma: no cover
    """A uniform double in [0, 1) from the top 53 bits of x (numpy's ``next_double``)."""
    return float(x >> _S11) * _TWO_M53


@jit
def fill_stream(k0: np.uint64, k1: np.uint64, out: np.ndarray) -> None:  # pragma: no cover
    """Write the first ``len(out)`` words of a run's main stream into ``out`` (for the tests)."""
    n = out.shape[0]
    for j in range((n + 3) // 4):
        words = philox_block(np.uint64(j + 1), np.uint64(0), np.uint64(0), np.uint64(0), k0, k1)
        for w in range(4):
            if 4 * j + w < n:
                out[4 * j + w] = words[w]
