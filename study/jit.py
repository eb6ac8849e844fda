"""The one place numba's options are set, so every kernel compiles the same way.

``cache=True`` keeps the compiled machine code on disk (under ``out/numba-cache``) so a warm process
starts in well under a second. ``fastmath`` stays off: the kernels must agree exactly with the
pure-Python reference in the tests, and reassociating floating-point sums would break that.
"""

from __future__ import annotations

import numba as nb

jit = nb.njit(cache=True, nogil=True)
"""Decorator for serial kernels and helpers."""

parallel_jit = nb.njit(cache=True, nogil=True, parallel=True)
"""Decorator for the top-level kernels whose outer loop over runs is a ``prange``."""
