"""``study.core.jit.inline_overload``: an overload inlined and never compiled as a function of
its own, which numba's own ``overload(inline="always")`` does for every argument types (and
types it again at every resolution of the call)."""

from __future__ import annotations

import numba as nb
import numpy as np
from numba.core import event

from study.core.jit import inline_overload


def _stub(x):  # type: ignore[no-untyped-def]
    """Doubles its argument, plus one."""


@inline_overload(_stub)
def _stub_overload(x):  # type: ignore[no-untyped-def]
    def implementation(x):  # type: ignore[no-untyped-def]  # pragma: no cover
        return 2 * x + 1

    return implementation


@nb.njit
def _twice(a):  # type: ignore[no-untyped-def]  # pragma: no cover
    total = 0.0
    for i in range(a.shape[0]):
        total += _stub(a[i]) + _stub(a[i] * 0.5)
    return total, _stub(3)


def test_an_inline_overload_is_inlined_and_never_compiled_alone() -> None:
    with event.install_recorder("numba:compile") as recorder:
        total, three = _twice(np.array([1.0, 2.0]))
    assert (total, three) == (2 * 1.0 + 1 + 2 * 0.5 + 1 + 2 * 2.0 + 1 + 2 * 1.0 + 1, 7)
    # The caller alone: numba's own overload compiles the implementation too, once for float64
    # and once for int64, a function nothing calls.
    compiled = {e.data["dispatcher"].py_func.__name__ for _, e in recorder.buffer if e.is_start}
    assert compiled == {"_twice"}
