"""The reward-model protocol: the numba pieces a reward model supplies to the kernel.

As for the learners (``study.core.hooks``), each function below is a stub that the kernel calls
with the reward model's name as a string literal first argument; a model implements it with
``implement(stub, name)`` (``study.rewards``), and numba inlines the implementation where the
kernel compiles for that model, so a model's reward is computed with no dispatch, in the lane
loops, which still vectorize. Every pull t of a run has two draws: the reward word u of the main
stream (``study.core.streams``' MAIN), and, for a model with a stream of its own (``own_stream``),
the model's own draw of pull t, made two pulls at a time from a block of that stream
(``own_pair``).

A shaping (a length-constraint model: ``study.rewards.length_penalty``, ``study.rewards.overlong``)
shapes a verdict's reward by the answer's length in the drivers that meter tokens
(``study.core.kernel.simulate_tokens``, ``study.core.offpolicy.simulate_offpolicy``), which take
the verdict's name and the shaping's: it
implements ``shaped`` (the reward of an answer of a given length, while the constraint is on or
after it is lifted), ``cut`` (the length past which an answer is cut and fails) and ``lifted_at``
(the share of the largest budget after which the constraint is lifted), and no ``outcome``. A
verdict keeps the defaults of these three: the reward as drawn, no cut, never lifted; so a
verdict named as its own shaping is the verdict unshaped.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core import errors

from study.core.hooks import implement, resolve
from study.core.jit import inline_overload

_ZERO = np.uint64(0)

__all__ = ["cut", "implement", "lifted_at", "outcome", "own_pair", "own_stream", "shaped"]


def outcome(model, value, u_reward, own, parameters):  # type: ignore[no-untyped-def]
    """The reward of a pull of an arm with value ``value`` (its pass probability or mean): a
    function of the pull's reward draw ``u_reward`` (uniform in [0, 1)), its own draw ``own``
    (0.0 for a model without a stream) and the model's ``parameters`` (float64 array, in the
    order the model declares them). Branch-free where it can be: it runs in the lane loops."""


def draws_own(model):  # type: ignore[no-untyped-def]
    """Whether the model draws from a stream of its own: whether it implements ``own_pair`` (a
    constant; the kernel skips the draws when not). Not a stub a model implements."""


def own_stream(model):  # type: ignore[no-untyped-def]
    """(c2, c3), uint64, of the Philox counters (j, 0, c2, c3) of the model's own stream
    (``study.core.streams``), implemented from the model's declaration
    (``study.rewards.RewardModel.register_stream``). Default: (0, 0), never drawn from
    (``draws_own``)."""


def own_pair(model, w0, w1, w2, w3):  # type: ignore[no-untyped-def]
    """The model's own draws of pulls 2j and 2j + 1 of a run, from the four words of block j of
    its own stream (the kernel computes the block: every lane's at once). Default: none
    (0.0, 0.0)."""


def shaped(model, reward, length, on, parameters):  # type: ignore[no-untyped-def]
    """The reward of an answer of ``length`` tokens whose drawn reward is ``reward``
    (``outcome``), while the length constraint is on (``on`` 1.0) or after it is lifted (0.0).
    Default: ``reward``."""


def cut(model, parameters):  # type: ignore[no-untyped-def]
    """The longest answer the model lets through: a longer one is cut there (it costs that many
    tokens) and fails. Default: inf."""


def lifted_at(model, parameters):  # type: ignore[no-untyped-def]
    """The share of the study's largest budget after which the length constraint is lifted (1.0:
    never). Default: 1.0."""


def _no_stream(model):  # type: ignore[no-untyped-def]  # pragma: no cover
    return _ZERO, _ZERO


def _no_pair(model, w0, w1, w2, w3):  # type: ignore[no-untyped-def]  # pragma: no cover
    return 0.0, 0.0


@inline_overload(outcome)
def _outcome(model, value, u_reward, own, parameters):  # type: ignore[no-untyped-def]
    return resolve("outcome", model, None)


@inline_overload(draws_own)
def _draws_own(model):  # type: ignore[no-untyped-def]
    if not isinstance(model, types.StringLiteral):
        return None
    own = resolve("own_pair", model, None) is not None

    def implementation(model):  # type: ignore[no-untyped-def]  # pragma: no cover
        return own
    return implementation


@inline_overload(own_stream)
def _own_stream(model):  # type: ignore[no-untyped-def]
    # The default, (0, 0), is the main stream's range: a model that draws its own words without
    # naming its stream would reuse the action and reward draws, so that is an error.
    if not isinstance(model, types.StringLiteral):
        return None
    stream = resolve("own_stream", model, None)
    if stream is None and resolve("own_pair", model, None) is not None:
        raise errors.TypingError(f"reward model {model.literal_value!r} implements own_pair but "
                                 "not own_stream: its REWARD declares no stream (c2, c3)")
    return stream or _no_stream


@inline_overload(own_pair)
def _own_pair(model, w0, w1, w2, w3):  # type: ignore[no-untyped-def]
    return resolve("own_pair", model, _no_pair)


def _as_drawn(model, reward, length, on, parameters):  # type: ignore[no-untyped-def]  # pragma: no cover
    return reward


def _no_cut(model, parameters):  # type: ignore[no-untyped-def]  # pragma: no cover
    return np.inf


def _never_lifted(model, parameters):  # type: ignore[no-untyped-def]  # pragma: no cover
    return 1.0


@inline_overload(shaped)
def _shaped(model, reward, length, on, parameters):  # type: ignore[no-untyped-def]
    return resolve("shaped", model, _as_drawn)


@inline_overload(cut)
def _cut(model, parameters):  # type: ignore[no-untyped-def]
    return resolve("cut", model, _no_cut)


@inline_overload(lifted_at)
def _lifted_at(model, parameters):  # type: ignore[no-untyped-def]
    return resolve("lifted_at", model, _never_lifted)
