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

from study.core.bits import double_from_bits, fma
from study.core.jit import inline_jit, jit
from study.core.state import aligned_rows

_M0 = np.uint64(0xD2511F53)
_M1 = np.uint64(0xCD9E8D57)
_W0 = np.uint64(0x9E3779B9)
_W1 = np.uint64(0xBB67AE85)
_LOW32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_S11 = np.uint64(11)
_TWO_M32 = 1.0 / 4294967296.0
_TWO_M53 = 1.0 / 9007199254740992.0
_TWO_20 = 1048576.0
_TWO_52_BITS = np.uint64(0x4330000000000000)
ROUNDS = 10
Words = tuple[np.uint64, np.uint64, np.uint64, np.uint64]


@inline_jit
def _keyed_round(c0: np.uint64, c1: np.uint64, c2: np.uint64, c3: np.uint64, key0: np.uint64,
                 key1: np.uint64) -> Words:  # pragma: no cover
    """One round with its (bumped) key words ``key0`` and ``key1``. The low halves of the
    products stay unmasked (their high bits are garbage that the next round's masked multiply or
    the final mask drops): masking both halves of one product made LLVM keep the loop over seeds
    scalar."""
    p0 = _M0 * (c0 & _LOW32)
    p1 = _M1 * (c2 & _LOW32)
    return (p1 >> _S32) ^ c1 ^ key0, p1, (p0 >> _S32) ^ c3 ^ key1, p0


@inline_jit
def _round(c0: np.uint64, c1: np.uint64, c2: np.uint64, c3: np.uint64, k0: np.uint64,
           k1: np.uint64,
           r: int) -> Words:  # pragma: no cover
    """Round ``r`` (0 .. 9), its key bumped r times by the Weyl constants."""
    bump = np.uint64(r)
    return _keyed_round(c0, c1, c2, c3, (k0 + _W0 * bump) & _LOW32, (k1 + _W1 * bump) & _LOW32)


@inline_jit
def philox_block(
    c0: np.uint64, c1: np.uint64, c2: np.uint64, c3: np.uint64, k0: np.uint64, k1: np.uint64
) -> Words:  # pragma: no cover
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


SCHEDULE_ROWS = 20
"""Rows of a stream's per-lane schedule (``stream_schedule``)."""


@jit
def stream_schedule(c2: np.uint64, c3: np.uint64, k0: np.ndarray, k1: np.ndarray,
                    c1: np.ndarray) -> np.ndarray:  # pragma: no cover
    """A (``SCHEDULE_ROWS``, lanes) uint64 array whose column j holds what the blocks
    (c, c1[j], c2, c3) of key (k0[j], k1[j]) share whatever the counter c, for ``stream_block``
    (c1 is 0 but in a lane that holds prompt c1 of a many-prompts run).

    A stream's blocks differ only in c0, which is the same in every lane. So round 0's product
    of c2 and round 1's product of word 0 (the key's work, not the counter's) are the same for
    every block of a lane, and so is every round's bumped key: made once per run here rather
    than at every block, they save a block about a third of the vector instructions of
    ``philox_block``'s ten rounds. Rows 0-3: c3 ^ round 0's key word 1; round 0's word 1 ^
    round 1's key word 0; the high half of round 1's first product ^ its key word 1; the low
    half of that product. Rows 2r and 2r + 1 for r = 2 .. 9: round r's key."""
    schedule = aligned_rows(SCHEDULE_ROWS, k0.shape[0], np.uint64)
    p1 = _M1 * (c2 & _LOW32)
    for j in range(k0.shape[0]):
        key0 = k0[j] & _LOW32
        key1 = k1[j] & _LOW32
        p0 = _M0 * (((p1 >> _S32) ^ (c1[j] & _LOW32) ^ key0) & _LOW32)
        schedule[0, j] = (c3 ^ key1) & _LOW32
        schedule[1, j] = (p1 ^ (key0 + _W0)) & _LOW32
        schedule[2, j] = ((p0 >> _S32) ^ (key1 + _W1)) & _LOW32
        schedule[3, j] = p0 & _LOW32
        for r in range(2, ROUNDS):
            schedule[2 * r, j] = (key0 + _W0 * np.uint64(r)) & _LOW32
            schedule[2 * r + 1, j] = (key1 + _W1 * np.uint64(r)) & _LOW32
    return schedule


@inline_jit
def stream_block(counter: np.uint64, schedule: np.ndarray,
                 lane: int) -> Words:  # pragma: no cover
    """``philox_block(counter, c1, c2, c3, k0, k1)`` for the stream, key and c1 whose schedule
    column ``lane`` holds (``stream_schedule``), the same four words."""
    p0 = _M0 * (counter & _LOW32)
    p1 = _M1 * (((p0 >> _S32) ^ schedule[0, lane]) & _LOW32)
    c0, c1, c2, c3 = (p1 >> _S32) ^ schedule[1, lane], p1, schedule[2, lane] ^ p0, schedule[3, lane]
    c0, c1, c2, c3 = _keyed_round(c0, c1, c2, c3, schedule[4, lane], schedule[5, lane])
    c0, c1, c2, c3 = _keyed_round(c0, c1, c2, c3, schedule[6, lane], schedule[7, lane])
    c0, c1, c2, c3 = _keyed_round(c0, c1, c2, c3, schedule[8, lane], schedule[9, lane])
    c0, c1, c2, c3 = _keyed_round(c0, c1, c2, c3, schedule[10, lane], schedule[11, lane])
    c0, c1, c2, c3 = _keyed_round(c0, c1, c2, c3, schedule[12, lane], schedule[13, lane])
    c0, c1, c2, c3 = _keyed_round(c0, c1, c2, c3, schedule[14, lane], schedule[15, lane])
    c0, c1, c2, c3 = _keyed_round(c0, c1, c2, c3, schedule[16, lane], schedule[17, lane])
    c0, c1, c2, c3 = _keyed_round(c0, c1, c2, c3, schedule[18, lane], schedule[19, lane])
    return c0 & _LOW32, c1 & _LOW32, c2 & _LOW32, c3 & _LOW32


@jit
def unit32(word: np.uint64) -> float:  # pragma: no cover
    """A 32-bit word as a uniform in [0, 1) with 32-bit resolution: word / 2^32.

    The integer becomes a double by placing it in the mantissa of 2^52, 2^52 + word (AVX2 has no
    64-bit integer to double conversion); one fused multiply-add scales it by 2^-32 and takes
    2^20 away, and as the exact result is a double it is what the fma returns."""
    return fma(double_from_bits(word | _TWO_52_BITS), _TWO_M32, -_TWO_20)


@jit
def unit53(high: np.uint64, low: np.uint64) -> float:  # pragma: no cover
    """A uniform in [0, 1) with 53-bit resolution from two 32-bit words: the 32 bits of
    ``high`` above the top 21 bits of ``low``, over 2^53. Each word goes into the mantissa of
    2^52 as in ``unit32``; two fused multiply-adds, each of an exact result, give
    high 2^-32 - 1/2, then (2^52 + low div 2^11) 2^-53 plus that."""
    top = fma(double_from_bits(high | _TWO_52_BITS), _TWO_M32, -_TWO_20 - 0.5)
    return fma(double_from_bits((low >> _S11) | _TWO_52_BITS), _TWO_M53, top)


@jit
def fill_stream(k0: np.uint64, k1: np.uint64, c2: np.uint64, c3: np.uint64,
                out: np.ndarray) -> None:  # pragma: no cover
    """Write the first ``len(out)`` words of the stream of blocks (j, 0, c2, c3), j = 0, 1, ...,
    of key (k0, k1) into ``out``, by ``stream_block`` as the kernels draw them (for the tests)."""
    schedule = stream_schedule(c2, c3, np.full(1, k0), np.full(1, k1), np.zeros(1, np.uint64))
    n = out.shape[0]
    for j in range((n + 3) // 4):
        words = stream_block(np.uint64(j), schedule, 0)
        for w in range(4):
            if 4 * j + w < n:
                out[4 * j + w] = words[w]
