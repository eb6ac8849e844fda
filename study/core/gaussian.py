"""Standard normal reward noise for the Gaussian reward model, from a run's own noise stream.

The noise stream is ``study.core.streams.NOISE``, blocks (j + 1, 0, 1, 0). Words 2m and 2m + 1
make normal pair m by Box-Muller: u1 = 1 - (top 53 bits of word 2m) / 2^53, in (0, 1] so its log
is finite, u2 = (top 53 bits of word 2m + 1) / 2^53, R = sqrt(-2 ln u1), z_2m = R cos(2 pi u2),
z_2m+1 = R sin(2 pi u2). Pull (or episode) t gets z_t, so one Philox block serves four pulls.
Box-Muller rather than numpy's ziggurat because it has no rejection loop (seeds advance in
lockstep) and its four operations are libm calls that Python's ``math`` makes identically, so the
tests' pure-Python reference reproduces every variate. |z| <= sqrt(2 ln 2^53) < 8.6.
"""

from __future__ import annotations

import math

import numpy as np

from study.core.jit import jit
from study.core.philox import philox_block, to_unit
from study.core.streams import NOISE_C2

_ZERO = np.uint64(0)
_NOISE_C2 = np.uint64(NOISE_C2)
TWO_PI = 2.0 * math.pi


@jit
def box_muller(first: np.uint64, second: np.uint64) -> tuple[float, float]:  # pragma: no cover
    """The normal pair (z_2m, z_2m+1) of noise words 2m and 2m + 1."""
    radius = math.sqrt(-2.0 * math.log(1.0 - to_unit(first)))
    angle = TWO_PI * to_unit(second)
    return radius * math.cos(angle), radius * math.sin(angle)


@jit
def noise_block(block: int, k0: np.uint64,
                k1: np.uint64) -> tuple[float, float, float, float]:  # pragma: no cover
    """z_4j .. z_4j+3, the normals of noise block j = ``block``."""
    w0, w1, w2, w3 = philox_block(np.uint64(block + 1), _ZERO, _NOISE_C2, _ZERO, k0, k1)
    z0, z1 = box_muller(w0, w1)
    z2, z3 = box_muller(w2, w3)
    return z0, z1, z2, z3
