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
from collections.abc import Callable
from pathlib import Path

import llvmlite.binding as llvm
import numba as nb
import platformdirs
from numba.core import compiler, ir_utils, typed_passes
from numba.core.codegen import get_host_cpu_features
from numba.core.errors import NumbaIRAssumptionWarning, TypingError
from numba.core.inline_closurecall import InlineWorker
from numba.core.typing import templates
from numba.extending import overload

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

CACHED_FOLDERS = ("core", "learners", "rewards", "corrections", "allocations")
"""The folders of ``study`` whose source the compiled kernels are made from."""
CACHED_FILES = ("model/registry.py",)
"""Files of ``study`` beside them that the compiled kernels depend on: the registry's order
gives the corrections' and allocation rules' codes the kernels are compiled with."""


def cache_dir() -> Path:
    """Where the compiled kernels are kept: ``NUMBA_CACHE_DIR`` if the user set it, else
    ``<per-user cache>/bandit-budget-study/numba/<hash>`` (``platformdirs.user_cache_dir``), the
    hash of the source of ``CACHED_FOLDERS`` and ``CACHED_FILES``.

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
    for name in CACHED_FILES:
        digest.update(name.encode() + (package / name).read_bytes())
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


_TYPED_ONCE = "_study_typed_once"
"""The attribute that marks an overload function as ``inline_overload``'s."""
_TYPED: dict[tuple, templates.Signature | None] = {}
"""``inline_overload``'s typings, by template, typing context and argument types."""
_NUMBA_GENERIC = templates._OverloadFunctionTemplate.generic


def inline_overload(stub: Callable[..., object]) -> Callable[[Callable], Callable]:
    """Decorator: ``numba.extending.overload(stub, inline="always")``, typed once per argument
    types. numba types an always-inlined overload's implementation again at every resolution of
    the call during type inference (6 times per driver for the drivers' rollout, each time with
    every nested overload typed again), and compiles it to machine code as a function of its own,
    which it never calls; the two made up half of a driver's compile time. A typing here is
    memoized and compiles nothing (numba's own proposals, numba#6667 and numba#6856, did the
    same); what is inlined is the same typed IR, which numba copies at each call site. An
    implementation's type errors still stop the driver's typing, at its call."""
    def register(function: Callable[..., object]) -> Callable[..., object]:
        setattr(function, _TYPED_ONCE, True)
        return overload(stub, inline="always")(function)
    return register


def _typed(template: templates._OverloadFunctionTemplate, args: tuple, kws: dict
           ) -> templates.Signature | None:
    """The signature of an ``inline_overload`` call with argument types ``args`` and ``kws``, its
    implementation's typed IR stored where numba's inliner looks for it (what numba's own typing
    does, less the compile); None where the overload function gives no implementation."""
    try:
        implementation = template._overload_func(*args, **kws)
    except TypeError as error:  # the stub called with arguments it does not take
        raise TypingError(str(error)) from error
    if implementation is None:
        return None
    dispatcher = template._get_jit_decorator()(**template._jit_options)(implementation)
    front = dispatcher._compiler
    flags = compiler.Flags()
    typing, target = front.targetdescr.typing_context, front.targetdescr.target_context
    worker = InlineWorker(typing, target, front.locals,
                          front.pipeline_class(typing, target, None, None, None, flags, None),
                          flags, None)
    _, folded = front.fold_argument_types(args, kws)
    function_ir = worker.run_untyped_passes(implementation, enable_ssa=True)
    typemap, returned, calltypes, _ = typed_passes.type_inference_stage(
        template.context, target, function_ir, folded, None)
    function_ir = typed_passes.PreLowerStripPhis()._strip_phi_nodes(function_ir)
    function_ir._definitions = ir_utils.build_definitions(function_ir.blocks)
    signature = templates.Signature(returned, folded, None)
    template._compiled_overloads[signature.args] = templates._EmptyImplementationEntry(
        "always inlined")
    template._inline_overloads[signature.args] = {
        "folded_args": folded,
        "iinfo": templates._inline_info(function_ir, typemap, calltypes, signature)}
    return signature


def _generic(template: templates._OverloadFunctionTemplate, args: tuple, kws: dict
             ) -> templates.Signature | None:
    if not getattr(template._overload_func, _TYPED_ONCE, False):
        return _NUMBA_GENERIC(template, args, kws)
    key = (type(template), template.context, tuple(args), tuple(sorted(kws.items())))
    if key not in _TYPED:
        _TYPED[key] = _typed(template, args, kws)
    return _TYPED[key]


templates._OverloadFunctionTemplate.generic = _generic
