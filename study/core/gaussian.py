"""Standard normal reward noise for the Gaussian reward model, from the words of a block of a
run's own noise stream (the kernel computes the blocks).

The noise stream is ``study.core.streams``' NOISE, blocks (j, 0, 1, 0). Block j makes the normal
pair of pulls 2j and 2j + 1 by Box-Muller: u1 = 1 - unit53(w0, w1), in (0, 1] so its log is
finite, u2 = unit53(w2, w3) (``study.core.philox``), R = sqrt(-2 ln u1), z_2j = R cos(2 pi u2),
z_2j+1 = R sin(2 pi u2). Box-Muller rather than numpy's ziggurat because it has no rejection loop
(seeds advance in lockstep), and with the log and the sine and cosine of
``study.core.elementary`` (polynomials, no libm call) it vectorizes across seeds and gives the
same bits on every host; the tests' pure-Python reference performs the same operations.
|z| <= sqrt(2 ln 2^53) < 8.6.
"""

from __future__ import annotations

import numpy as np

from study.core.elementary import cos_sin_turns, fast_log
from study.core.jit import inline_jit
from study.core.philox import unit53


@inline_jit
def box_muller(w0: np.uint64, w1: np.uint64, w2: np.uint64,
               w3: np.uint64) -> tuple[float, float]:  # pragma: no cover
    """z_2j and z_2j+1, the normal pair of noise block j's four words."""
    radius = np.sqrt(-2.0 * fast_log(1.0 - unit53(w0, w1)))
    cosine, sine = cos_sin_turns(unit53(w2, w3))
    return radius * cosine, radius * sine

