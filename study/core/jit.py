"""The one place numba's options are set, so every kernel compiles the same way.

``cache=True`` keeps the compiled machine code on disk (under ``out/numba-cache``) so a warm process
starts in well under a second. ``fastmath`` stays off: the kernels must agree exactly with the
pure-Python reference in the tests, and reassociating or fusing floating-point operations would
break that. ``error_model="numpy"`` makes a division by zero give inf or NaN instead of raising,
so a division inside a lane loop needs no per-element check that would stop it vectorizing.
"""

from __future__ import annotations

import numba as nb

jit = nb.njit(cache=True, nogil=True, error_model="numpy")
"""Decorator for serial kernels and helpers."""

parallel_jit = nb.njit(cache=True, nogil=True, parallel=True, error_model="numpy")
"""Decorator for the top-level kernels whose outer loop over runs is a ``prange``."""

inline_jit = nb.njit(cache=True, nogil=True, error_model="numpy", inline="always")
"""Decorator for helpers that lane loops call and that LLVM would not inline by itself (too large
for its inliner: Philox's ten rounds): numba inlines them into the caller's IR, so the caller's
loop over seeds still vectorizes."""
