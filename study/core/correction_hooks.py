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
from study.core.hooks import _IMPLEMENTATIONS, implement
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


def _implementation(stub: str, name: str) -> Callable[..., object]:
    found = _IMPLEMENTATIONS.get((stub, name))
    if found is None:
        raise TypeError(f"correction {name!r} does not implement {stub}")
    return _inline(found)


def _weight_chain(order: tuple[tuple[str, int], ...]) -> Callable[..., object]:
    """code, rho, A, parameters -> the weight of the correction whose code is ``code`` (1.0 for
    a code past the list: no weight)."""
    if not order:
        return _inline(lambda code, rho, advantage, parameters: 1.0)
    (name, first), rest = order[0], _weight_chain(order[1:])
    head, mine = _implementation("weight", name), len(_ORDER["weight"]) - len(order)

    def link(code, rho, advantage, parameters):  # type: ignore[no-untyped-def]  # pragma: no cover
        return select(code == mine, head(rho, advantage, parameters, first),
                      rest(code, rho, advantage, parameters))
    return _inline(link)


def _mask_chain(order: tuple[tuple[str, int], ...]) -> Callable[..., object]:
    """bits, rho, A, parameters -> whether every mask whose bit is set keeps the rollout."""
    if not order:
        return _inline(lambda bits, rho, advantage, parameters: True)
    (name, first), rest = order[0], _mask_chain(order[1:])
    head, bit = _implementation("keeps", name), len(_ORDER["keeps"]) - len(order)

    def link(bits, rho, advantage, parameters):  # type: ignore[no-untyped-def]  # pragma: no cover
        off = ((bits >> bit) & 1) == 0
        return (head(rho, advantage, parameters, first) | off) & rest(bits, rho, advantage,
                                                                      parameters)
    return _inline(link)


def weighted(code, rho, advantage, parameters):  # type: ignore[no-untyped-def]
    """The weight of the correction whose code is ``code`` (``declare``)."""


def kept(bits, rho, advantage, parameters):  # type: ignore[no-untyped-def]
    """Whether every mask whose bit is set in ``bits`` keeps the rollout (``declare``)."""


@inline_overload(weighted)
def _weighted(code, rho, advantage, parameters):  # type: ignore[no-untyped-def]
    chain = _weight_chain(_ORDER["weight"])

    def implementation(code, rho, advantage, parameters):  # type: ignore[no-untyped-def]  # pragma: no cover
        return chain(code, rho, advantage, parameters)
    return implementation


@inline_overload(kept)
def _kept(bits, rho, advantage, parameters):  # type: ignore[no-untyped-def]
    chain = _mask_chain(_ORDER["keeps"])

    def implementation(bits, rho, advantage, parameters):  # type: ignore[no-untyped-def]  # pragma: no cover
        return chain(bits, rho, advantage, parameters)
    return implementation
