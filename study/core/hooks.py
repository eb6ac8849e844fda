"""The learner protocol: the numba pieces a learner supplies to the kernel's drivers.

Each function below is a stub that the drivers (``study.core.kernel``) call with the learner's
name as a string literal first argument. A learner implements a stub with ``implement(stub,
name)`` (``study.learners``); numba resolves the call when it compiles the driver for that name
and inlines the implementation at the call site (``inline="always"``), so each learner gets its
own specialization of the driver, with no dispatch and no reference counting at the call, and its
lane loops vectorize as if they were written in the driver. A stub a learner does not implement
falls back to the default below it.

A nested learner's run is a sequence of updates, each on a group of G rollouts (G = 1: one
episode per update): ``prepare`` once before the group, ``choose`` for each rollout of the group,
then ``learn`` from the whole group. State the drivers hand to the nested hooks, per block of
``lanes`` runs in lockstep (K arms): ``params`` (K, lanes), the learner's parameters (REINFORCE's
logits), zero at the start; ``weights`` (K, lanes) and ``norm`` (lanes,), scratch that ``prepare``
may fill for ``choose`` and ``learn``; ``pulls`` and ``arm_rewards`` (K, lanes), each arm's pulls
and reward sum before this update; ``total`` (lanes,), the reward sum before this update;
``work_a``, ``work_b`` (lanes,), scratch.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numba import types
from numba.extending import overload

_IMPLEMENTATIONS: dict[tuple[str, str], Callable[..., object]] = {}


def implement(stub: Callable[..., object], learner: str) -> Callable[[Callable], Callable]:
    """Decorator: ``function`` implements ``stub`` for the learner named ``learner``. It must take
    the stub's parameters, by the same names."""
    def register(function: Callable[..., object]) -> Callable[..., object]:
        _IMPLEMENTATIONS[(stub.__name__, learner)] = function
        return function
    return register


def _resolve(stub: str, name: types.Type, default: Callable[..., object] | None
             ) -> Callable[..., object] | None:
    if not isinstance(name, types.StringLiteral):
        return None
    return _IMPLEMENTATIONS.get((stub, name.literal_value), default)


def prepare(name, params, weights, norm, work_a):  # type: ignore[no-untyped-def]
    """Before an update's rollouts: compute what every rollout of the group shares (REINFORCE's
    softmax weights and their sum, into ``weights`` and ``norm``). Default: nothing."""


def _nothing_shared(name, params, weights, norm,
                    work_a):  # type: ignore[no-untyped-def]  # pragma: no cover
    pass


def choose(name, t, u_action, params, weights, norm, pulls, arm_rewards, arm, work_a,
           work_b):  # type: ignore[no-untyped-def]
    """Write into ``arm[j]`` (as a float) the arm that lane j pulls at rollout t; ``u_action[j]``
    is the lane's uniform action draw (high 32 bits of main-stream word t)."""


def learn(name, t, lr, baseline, arms, rewards, advantage, params, weights, norm, pulls,
          arm_rewards, total, zero_signal, work_a, work_b):  # type: ignore[no-untyped-def]
    """Update ``params`` from a group of rollouts t, t + 1, ..., t + G - 1 that pulled ``arms``
    and got ``rewards`` (both (G, lanes)); ``advantage`` (G, lanes) is scratch; add 1 to
    ``zero_signal[j]`` when every advantage of lane j's group is 0. ``pulls``, ``arm_rewards``
    and ``total`` do not include the group yet. Default: nothing to learn."""


def _no_learning(name, t, lr, baseline, arms, rewards, advantage, params, weights, norm, pulls,
                 arm_rewards, total, zero_signal, work_a,
                 work_b):  # type: ignore[no-untyped-def]  # pragma: no cover
    pass


def score(name, lane, params, pulls, arm_rewards, scores):  # type: ignore[no-untyped-def]
    """Fill ``scores`` (K,) with lane's score of every arm for the greedy pick (argmax, exact
    ties at random) and return whether all are finite. Default: the empirical means, -inf for an
    arm never pulled (it is not a candidate)."""


def _empirical_means(name, lane, params, pulls, arm_rewards,
                     scores):  # type: ignore[no-untyped-def]  # pragma: no cover
    for k in range(scores.shape[0]):
        if pulls[k, lane] > 0.0:
            scores[k] = arm_rewards[k, lane] / pulls[k, lane]
        else:
            scores[k] = -np.inf
    return True


def best_mass(name, scores, is_best):  # type: ignore[no-untyped-def]
    """The policy's probability of the best arms (``is_best`` (K,), 1.0 for a best arm) given the
    finite ``scores`` of ``score``. Default: NaN, for a learner without a stochastic policy."""


def _no_policy(name, scores, is_best):  # type: ignore[no-untyped-def]  # pragma: no cover
    return math.nan


def run_budget(name, k0, k1, values, gaussian, budget, pulls,
               means):  # type: ignore[no-untyped-def]
    """One whole run with budget ``budget`` of a learner that plans from the budget (its runs are
    not nested): fill ``pulls`` and ``means`` (K,) and return (recommended arm, reward sum)."""


@overload(prepare, inline="always")
def _prepare(name, params, weights, norm, work_a):  # type: ignore[no-untyped-def]
    return _resolve("prepare", name, _nothing_shared)


@overload(choose, inline="always")
def _choose(name, t, u_action, params, weights, norm, pulls, arm_rewards, arm, work_a,
            work_b):  # type: ignore[no-untyped-def]
    return _resolve("choose", name, None)


@overload(learn, inline="always")
def _learn(name, t, lr, baseline, arms, rewards, advantage, params, weights, norm, pulls,
           arm_rewards, total, zero_signal, work_a, work_b):  # type: ignore[no-untyped-def]
    return _resolve("learn", name, _no_learning)


@overload(score, inline="always")
def _score(name, lane, params, pulls, arm_rewards, scores):  # type: ignore[no-untyped-def]
    return _resolve("score", name, _empirical_means)


@overload(best_mass, inline="always")
def _best_mass(name, scores, is_best):  # type: ignore[no-untyped-def]
    return _resolve("best_mass", name, _no_policy)


@overload(run_budget)
def _run_budget(name, k0, k1, values, gaussian, budget, pulls,
                means):  # type: ignore[no-untyped-def]
    return _resolve("run_budget", name, None)
