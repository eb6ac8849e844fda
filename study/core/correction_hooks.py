"""The correction protocol: the numba pieces an off-policy correction supplies to the off-policy
driver (``study.core.offpolicy``).

A correction (``study.corrections``) is a *weight* of a rollout's step, from its importance
ratio rho = pi(a) / mu(a) and its advantage A (``weight``), or a *mask*, which drops a rollout
(its weight 0) where it does not keep it (``keeps``); a third kind, the sampler's support,
changes the policy the score uses and is the driver's own. Each implements its stub with
``implement(stub, name)`` and reads its parameters from the update's parameter array, from
``first`` on (its place among every correction's parameters, ``declare``).

The driver takes the correction by its code at run time (a study's cells differ in it), so the
pieces are joined, not dispatched: ``weighted`` computes every weight and selects the one of
the code, and ``kept`` ands every mask whose bit is set, each a ``select``, branch-free, so that
the lane loop around them vectorizes as it did with a closed list. ``declare`` gives the order
(the codes, ``study.model.registry``) before the driver first compiles.
"""

from __future__ import annotations

from collections.abc import Callable

import numba as nb

from study.core.bits import select
from study.core.hooks import implement, registered
from study.core.jit import inline_overload

__all__ = ["declare", "implement", "keeps", "kept", "weight", "weighted"]

_ORDER: dict[str, tuple[tuple[str, int], ...]] = {"weight": (), "keeps": ()}
"""Per stub, the corrections that implement it, in code order, each with its first parameter's
place (``declare``)."""

_inline = nb.njit(nogil=True, error_model="numpy", inline="always")


def weight(rho, advantage, parameters, first):  # type: ignore[no-untyped-def]
    """A rollout's weight in the step from its ratio ``rho`` and ``advantage``; the correction's
    parameters are ``parameters[first]``, ``parameters[first + 1]``, ..."""


def keeps(rho, advantage, parameters, first):  # type: ignore[no-untyped-def]
    """Whether a mask keeps a rollout (a bool), from its ``rho`` and ``advantage``."""


def declare(weights: tuple[tuple[str, int], ...], masks: tuple[tuple[str, int], ...]) -> None:
    """The weights (their codes: their places here) and the masks (their bits), each with its
    first parameter's place in the update's parameter array (``study.model.registry``)."""
    _ORDER["weight"], _ORDER["keeps"] = weights, masks


def _joined(stub: str, order: tuple[tuple[str, int], ...]) -> Callable[..., object]:
    """One branch-free function of every correction of ``stub`` (``_ORDER``), spelt out line by
    line (numba compiles no loop over a tuple of functions): for ``weight``, code, rho, A,
    parameters -> the weight of the correction whose code is ``code`` (1.0 past the list); for
    ``keeps``, bits, rho, A, parameters -> whether every mask whose bit is set keeps the
    rollout. One level of inlining: nested, the joins made the driver's compilation slower."""
    pieces = {"select": select}
    if stub == "weight":
        lines = ["def joined(code, rho, advantage, parameters):", "    found = 1.0"]
    else:
        lines = ["def joined(bits, rho, advantage, parameters):", "    found = True"]
    for place, (name, first) in enumerate(order):
        pieces[f"piece_{place}"] = _inline(registered(stub, name, "correction"))
        call = f"piece_{place}(rho, advantage, parameters, {first})"
        lines.append(f"    found = select(code == {place}, {call}, found)" if stub == "weight"
                     else f"    found = found & ({call} | (((bits >> {place}) & 1) == 0))")
    lines.append("    return found")
    exec("\n".join(lines), pieces)
    return pieces["joined"]


def weighted(code, rho, advantage, parameters):  # type: ignore[no-untyped-def]
    """The weight of the correction whose code is ``code`` (``declare``)."""


def kept(bits, rho, advantage, parameters):  # type: ignore[no-untyped-def]
    """Whether every mask whose bit is set in ``bits`` keeps the rollout (``declare``)."""


@inline_overload(weighted)
def _weighted(code, rho, advantage, parameters):  # type: ignore[no-untyped-def]
    return _joined("weight", _ORDER["weight"])


@inline_overload(kept)
def _kept(bits, rho, advantage, parameters):  # type: ignore[no-untyped-def]
    return _joined("keeps", _ORDER["keeps"])
