"""The one place numba's options are set, so every kernel compiles the same way.

``cache=True`` keeps the compiled machine code on disk, in a per-user cache (``cache_dir``), so a
warm process starts in well under a second. ``fastmath`` stays off: the kernels must agree
exactly with the pure-Python reference in the tests, and reassociating or fusing floating-point
operations would break that. ``error_model="numpy"`` makes a division by zero give inf or NaN
instead of raising, so a division inside a lane loop needs no per-element check that would stop
it vectorizing."""

from __future__ import annotations

import hashlib
import os
import warnings
from pathlib import Path

import llvmlite.binding as llvm
import numba as nb
import platformdirs
from numba.core.codegen import get_host_cpu_features
from numba.core.errors import NumbaIRAssumptionWarning

# numba's inliner checks, pedantically, that every variable is in scope where it is used, and
# flags the scalars a learner's per-lane hooks carry through their loops over the arms (the
# softmax's maximum and sum, a cumulative weight) once the hooks are inlined into the lane loop:
# a warning for numba's developers, printed to every user. What the compiled code computes is
# checked instead, bit for bit, by the kernel-against-reference tests.
warnings.filterwarnings("ignore", category=NumbaIRAssumptionWarning)

UNROLL_THRESHOLD = 2000
"""LLVM's limit on the size of a loop it unrolls fully (its default is 300 at -O3). The kernel's
single-rollout pass vectorizes across lanes only when every loop over the K arms inside it is
unrolled, and with the default that stops at K = 5; with this limit it holds up to K = 10
(``study.core.state.UNROLLED_ARMS``; a higher limit did not help at K = 20). Set for the whole
process, before numba compiles anything; it is in this file so that changing it changes the
numba cache's folder (``cache_dir``)."""
llvm.set_option("", f"-unroll-threshold={UNROLL_THRESHOLD}")

UNSWITCH_THRESHOLD = 2000
"""LLVM's limit on the size of a loop it copies once per value of a condition that does not change
in it (its default is 50): the drivers' single-rollout lane loop tests the learner's baseline
code, and only in a copy per baseline are the per-arm baseline's picks, which the others do not
use, left out (at K = 3 a tenth of the episode). Set, as the unroll limit, for the whole
process."""
llvm.set_option("", f"-unswitch-threshold={UNSWITCH_THRESHOLD}")

WIDE_VECTORS = "-prefer-256-bit"
"""Added to the host's CPU features where it has AVX-512 (and the user named no CPU or features
of their own, ``NUMBA_CPU_NAME`` / ``NUMBA_CPU_FEATURES``): LLVM's tuning for some CPU models
with AVX-512 prefers 256-bit vectors, and it then emits no 512-bit instruction at all.
The kernel's lane loops are bound by the number of vector instructions, which 512-bit vectors
halve; on hosts whose tuning already allows them this changes nothing. ``make bench`` times both
widths on every host (``benchmarks.ab.compare_widths``), so a host where 256-bit is faster shows
it. The width never changes a result (every operation is an IEEE one, none reassociated).
numba's cache keys its entries on the features, so each choice has its own."""


def _allow_512_bit_vectors() -> None:
    """Compile for the host with ``WIDE_VECTORS`` where it has AVX-512; must run before numba
    creates its code generator, which reads the features once. (numba reads its configuration
    from the environment again when a ``NUMBA_`` variable changes; a process that changes one
    after importing this module compiles for the host as numba would.)"""
    if nb.config.CPU_NAME is None and nb.config.CPU_FEATURES is None:
        # numba's own reading of the host: it honours NUMBA_ENABLE_AVX=0 and a host LLVM cannot
        # read (then empty).
        host = get_host_cpu_features()
        if "+avx512f" in host.split(","):
            nb.config.CPU_FEATURES = f"{host},{WIDE_VECTORS}"


_allow_512_bit_vectors()

CACHED_FOLDERS = ("core", "learners", "rewards")
"""The folders of ``study`` whose source the compiled kernels are made from."""


def cache_dir() -> Path:
    """Where the compiled kernels are kept: ``NUMBA_CACHE_DIR`` if the user set it, else
    ``<per-user cache>/bandit-budget-study/numba/<hash>`` (``platformdirs.user_cache_dir``), the
    hash of the source of ``CACHED_FOLDERS``.

    Never the package's own folders (numba's default, beside each source file): an installed
    package may be read-only, and a repository's working tree is for code. And a folder per
    source hash, because numba checks a cached function against its own file only, not against
    the files of the functions it calls or inlines (the drivers inline every learner's pieces),
    so a cache that outlived an edit of a learner would run the old code.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for folder in CACHED_FOLDERS:
        for path in sorted((package / folder).glob("*.py")):
            digest.update(path.name.encode() + path.read_bytes())
    return (Path(platformdirs.user_cache_dir("bandit-budget-study")) / "numba"
            / digest.hexdigest()[:16])


# numba reads NUMBA_CACHE_DIR once, when it is first imported, which may be before this module
# (pytest imports it to read a warning filter); its cache locator reads the setting below when
# each cached function is decorated, so setting it here, before the decorators, is enough.
nb.config.CACHE_DIR = str(cache_dir())

jit = nb.njit(cache=True, nogil=True, error_model="numpy")
"""Decorator for serial kernels and helpers."""

parallel_jit = nb.njit(cache=True, nogil=True, parallel=True, error_model="numpy")
"""Decorator for the top-level kernels whose outer loop over runs is a ``prange``."""

inline_jit = nb.njit(cache=True, nogil=True, error_model="numpy", inline="always")
"""Decorator for helpers that lane loops call and that LLVM would not inline by itself (too large
for its inliner: Philox's ten rounds): numba inlines them into the caller's IR, so the caller's
loop over seeds still vectorizes."""
