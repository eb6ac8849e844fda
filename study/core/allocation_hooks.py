"""The allocation protocol: the numba piece an allocation rule supplies to the many-prompts
kernel (``study.core.prompts``).

At the start of each pass a rule gives every prompt its group size (``sizes``), from the
pass's number, the run's key, the prompts' policies (their softmax weights and sums) and
counts. A rule implements the stub with ``implement(sizes, name)`` (``study.allocations``); the
kernel takes the rule by its code at run time and ``allocated`` runs the rule of that code,
a branch per rule once a pass (not in a lane loop), so one compiled kernel serves every rule.
``declare`` gives the order (the codes, ``study.model.registry``) before the kernel first
compiles.
"""

from __future__ import annotations

from collections.abc import Callable

import numba as nb

from study.core.hooks import implement, registered
from study.core.jit import inline_overload

__all__ = ["allocated", "declare", "implement", "sizes"]

_ORDER: list[tuple[str, ...]] = [()]
"""The rules, in code order (``declare``)."""

_compiled = nb.njit(nogil=True, error_model="numpy")
_inline = nb.njit(nogil=True, error_model="numpy", inline="always")


def sizes(arms, group, r, k0, k1, values, weights, norm, run, passed, failed, scratch, work,
          out):  # type: ignore[no-untyped-def]
    """Pass r's group size of every prompt into ``out`` (int64, P; 0: skipped this pass), G =
    ``group`` the configured size; ``arms`` K (a compile-time constant for small K); ``k0``,
    ``k1`` the run's key; ``values`` (P, K) the arms' pass probabilities; ``weights`` (K, P)
    and ``norm`` (P) the policies' softmax at the start of the pass; ``run`` the prompts' runs of
    groups without signal, ``passed`` and ``failed`` their rollouts that passed and failed so
    far; ``scratch`` room for P floats and ``work`` for (2, P) integers."""


def declare(rules: tuple[str, ...]) -> None:
    """The rules in code order (``study.model.registry``)."""
    _ORDER[0] = rules


_ARGUMENTS = ("arms, group, r, k0, k1, values, weights, norm, run, passed, failed, scratch, "
              "work, out")


def _dispatch(order: tuple[str, ...]) -> Callable[..., object]:
    """code, ... -> the rule of that code fills ``out`` (nothing for a code past the list): one
    function, a branch per rule with the rule's ``sizes`` inlined, compiled once as a function
    of its own that the kernel calls once a pass (a call costs nothing there; inlined into the
    kernel, the rules made its compilation a quarter slower)."""
    rules = {f"rule_{code}": _inline(registered("sizes", name, "allocation rule"))
             for code, name in enumerate(order)}
    lines = [f"def dispatch(code, {_ARGUMENTS}):", "    pass"]
    for code in range(len(order)):
        lines += [f"    {'if' if code == 0 else 'elif'} code == {code}:",
                  f"        rule_{code}({_ARGUMENTS})"]
    # A branch per rule, spelt out: numba compiles no loop over a tuple of functions.
    exec("\n".join(lines), rules)
    return _compiled(rules["dispatch"])


def allocated(code, arms, group, r, k0, k1, values, weights, norm, run, passed, failed, scratch,
              work, out):  # type: ignore[no-untyped-def]
    """The group sizes of the rule whose code is ``code`` (``declare``), as ``sizes``."""


@inline_overload(allocated)
def _allocated(code, arms, group, r, k0, k1, values, weights, norm, run, passed, failed, scratch,
               work, out):  # type: ignore[no-untyped-def]
    chain = _dispatch(_ORDER[0])

    def implementation(code, arms, group, r, k0, k1, values, weights, norm, run, passed, failed,
                       scratch, work, out):  # type: ignore[no-untyped-def]  # pragma: no cover
        chain(code, arms, group, r, k0, k1, values, weights, norm, run, passed, failed, scratch,
              work, out)
    return implementation
