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
then ``learn_one`` (G = 1) or ``learn`` (G >= 2) from the whole group. Its state is the block's
state array ``s`` (``study.core.state``: rows of ``LANES`` doubles, lane j of a row at its offset
plus j). Each of these works on every lane of the block (``lanes``, a uint64), in passes whose
loop over the lanes is innermost and branch-free, so that it vectorizes: a pass over the arms
takes them a chunk at a time (``study.core.arms``), so it does whatever K is, and K =
``n_arms`` is a compile-time constant for small K (the loops over the chunks then unrolled).
``w`` is the block's scratch array (``study.core.state.SCRATCH``), any piece's between its
passes. ``PULLS``, ``ARM_REWARDS`` and ``TOTAL`` hold the sums before the update being learned.

``prepare_lane``, ``choose_lane`` and ``learn_one_lane`` are the same for one lane j, every arm
in one go: where K is a constant up to ``study.core.state.UNROLLED_ARMS``, a driver calls the
last two in one lane loop with the rollout's reward between them, which keeps a lane's arm,
reward and weights in registers (at K = 3 a fifth faster than a loop per piece), and the first in
a lane loop of its own. ``prepare``, ``choose`` and ``learn_one`` default to lane loops over
them, so a learner that needs no passes of its own implements the lane forms alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numba import types
from numba.extending import overload

from study.core.arms import count, pick, tallied
from study.core.jit import inline_jit, inline_overload
from study.core.state import NORM, TOTAL, VALUES, lane_row

_IMPLEMENTATIONS: dict[tuple[str, str], Callable[..., object]] = {}


def implement(stub: Callable[..., object], learner: str) -> Callable[[Callable], Callable]:
    """Decorator: ``function`` implements ``stub`` for the learner named ``learner``. It must take
    the stub's parameters, by the same names."""
    def register(function: Callable[..., object]) -> Callable[..., object]:
        _IMPLEMENTATIONS[(stub.__name__, learner)] = function
        return function
    return register


def registered(stub: str, name: str, what: str) -> Callable[..., object]:
    """The implementation of ``stub`` registered for ``name`` (a plain name, not a numba type);
    TypeError naming ``what`` (its kind of door) where there is none."""
    found = _IMPLEMENTATIONS.get((stub, name))
    if found is None:
        raise TypeError(f"{what} {name!r} does not implement {stub}")
    return found


def resolve(stub: str, name: types.Type, default: Callable[..., object] | None
            ) -> Callable[..., object] | None:
    """The implementation of ``stub`` registered for the literal ``name`` (``default`` if there is
    none); None while ``name`` is not yet a literal (numba then retries with the literal)."""
    if not isinstance(name, types.StringLiteral):
        return None
    return _IMPLEMENTATIONS.get((stub, name.literal_value), default)


def prepare(name, n_arms, s, lanes, w):  # type: ignore[no-untyped-def]
    """Before an update's rollouts, compute what every rollout of the group shares, for every
    lane (REINFORCE's softmax weights, into the ``WEIGHTS`` rows, and their sum, into the
    ``NORM`` row). Default: a lane loop over ``prepare_lane``."""


@inline_jit
def prepare_by_lane(name, n_arms, s, lanes, w):  # type: ignore[no-untyped-def]  # pragma: no cover
    """``prepare_lane`` for every lane, its number into the ``NORM`` row (``prepare``'s
    default, and the drivers' where K is taken whole)."""
    for j in range(lanes):
        s[lane_row(NORM) + j] = prepare_lane(name, n_arms, s, j)


def _prepare_lanes(name, n_arms, s, lanes, w):  # type: ignore[no-untyped-def]  # pragma: no cover
    prepare_by_lane(name, n_arms, s, lanes, w)


def prepare_lane(name, n_arms, s, j):  # type: ignore[no-untyped-def]
    """``prepare`` for lane j alone, every arm in one go: what its rollouts share, and the
    number they share (REINFORCE's softmax sum), which the caller puts in the ``NORM`` row.
    Default: nothing shared, 1.0."""


def _nothing_shared(name, n_arms, s, j):  # type: ignore[no-untyped-def]  # pragma: no cover
    return 1.0


def choose_lane(name, n_arms, t, s, j, u_action):  # type: ignore[no-untyped-def]
    """The arm (a float) that lane j pulls at rollout t; ``u_action`` is its uniform action draw
    (``study.core.streams``' MAIN)."""


def choose(name, n_arms, t, s, lanes, w, u_action, arms, values):  # type: ignore[no-untyped-def]
    """``choose_lane`` for every lane: its arm into ``arms`` (lanes,), and the arm's ``VALUES``
    entry, the reward model's input, into ``values`` (lanes,); ``u_action`` (lanes,) holds the
    draws. Default: a lane loop over ``choose_lane``, then the values picked."""


def _choose_by_lane(name, n_arms, t, s, lanes, w, u_action, arms,
                    values):  # type: ignore[no-untyped-def]  # pragma: no cover
    for j in range(lanes):
        arms[j] = choose_lane(name, n_arms, t, s, j, u_action[j])
    pick(n_arms, s, VALUES, arms, lanes, values, 0)


def learn_one_lane(name, n_arms, t, lr, baseline, s, j, arm,
                   reward):  # type: ignore[no-untyped-def]
    """Update lane j's state from rollout t alone (G = 1), which pulled ``arm`` and got
    ``reward``, and add the rollout to its sums (``study.core.arms.tallied``); add 1 to its
    ``ZERO_SIGNAL`` row when its advantage is 0. Default: the sums, nothing learned."""


def _count_lane(name, n_arms, t, lr, baseline, s, j, arm,
                reward):  # type: ignore[no-untyped-def]  # pragma: no cover
    tallied(n_arms, s, j, arm, reward)
    s[lane_row(TOTAL) + j] += reward


def learn_one(name, n_arms, t, lr, baseline, s, lanes, w, arms, rewards,
              advantage):  # type: ignore[no-untyped-def]
    """``learn_one_lane`` for every lane, which pulled ``arms`` and got ``rewards`` (both
    (lanes,)); ``advantage`` (lanes,) is scratch. Default: a lane loop over
    ``learn_one_lane``."""


def _learn_one_by_lane(name, n_arms, t, lr, baseline, s, lanes, w, arms, rewards,
                       advantage):  # type: ignore[no-untyped-def]  # pragma: no cover
    for j in range(lanes):
        learn_one_lane(name, n_arms, t, lr, baseline, s, j, arms[j], rewards[j])


def learn(name, n_arms, t, lr, baseline, s, lanes, w, arms, rewards,
          advantage):  # type: ignore[no-untyped-def]
    """Update the state of every lane from a group of G >= 2 rollouts t, t + 1, ..., t + G - 1
    that pulled ``arms`` and got ``rewards`` (both (G, lanes)), and add them to the sums, rollout
    by rollout; ``advantage`` (G, lanes) is scratch, and the state's rows hold what ``prepare``
    left there; add 1 to a lane's ``ZERO_SIGNAL`` when every advantage of its group is 0.
    Default: the sums, nothing learned."""


def _learn_nothing(name, n_arms, t, lr, baseline, s, lanes, w, arms, rewards,
                   advantage):  # type: ignore[no-untyped-def]  # pragma: no cover
    for i in range(arms.shape[0]):
        count(n_arms, s, arms[i], rewards[i], lanes)


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


def policy_mean(name, scores, per_arm):  # type: ignore[no-untyped-def]
    """The policy's expectation sum_k pi[k] x[k] of a quantity of the arms (``per_arm`` (K,)),
    given the finite ``scores`` of ``score``: with x the best-arm indicator (1.0 for a best arm)
    the policy's probability of the best arms, with x the arm values its pass rate (its
    expected reward). Default: NaN, for a learner without a stochastic policy."""


def _no_policy(name, scores, per_arm):  # type: ignore[no-untyped-def]  # pragma: no cover
    return math.nan


def run_budget(name, model, k0, k1, values, parameters, budget, pulls,
               means):  # type: ignore[no-untyped-def]
    """One whole run with budget ``budget`` of a learner that plans from the budget (its runs are
    not nested), its rewards from the reward model ``model`` (a string literal) with
    ``parameters`` (``study.core.fixed_budget.pull``): fill ``pulls`` and ``means`` (K,) and
    return (recommended arm, reward sum)."""


@inline_overload(prepare_lane)
def _prepare_lane(name, n_arms, s, j):  # type: ignore[no-untyped-def]
    return resolve("prepare_lane", name, _nothing_shared)


@inline_overload(prepare)
def _prepare(name, n_arms, s, lanes, w):  # type: ignore[no-untyped-def]
    return resolve("prepare", name, _prepare_lanes)


@inline_overload(choose_lane)
def _choose_lane(name, n_arms, t, s, j, u_action):  # type: ignore[no-untyped-def]
    return resolve("choose_lane", name, None)


@inline_overload(choose)
def _choose(name, n_arms, t, s, lanes, w, u_action, arms, values):  # type: ignore[no-untyped-def]
    return resolve("choose", name, _choose_by_lane)


@inline_overload(learn_one_lane)
def _learn_one_lane(name, n_arms, t, lr, baseline, s, j, arm,
                    reward):  # type: ignore[no-untyped-def]
    return resolve("learn_one_lane", name, _count_lane)


@inline_overload(learn_one)
def _learn_one(name, n_arms, t, lr, baseline, s, lanes, w, arms, rewards,
               advantage):  # type: ignore[no-untyped-def]
    return resolve("learn_one", name, _learn_one_by_lane)


@inline_overload(learn)
def _learn(name, n_arms, t, lr, baseline, s, lanes, w, arms, rewards,
           advantage):  # type: ignore[no-untyped-def]
    return resolve("learn", name, _learn_nothing)


@inline_overload(score)
def _score(name, lane, params, pulls, arm_rewards, scores):  # type: ignore[no-untyped-def]
    return resolve("score", name, _empirical_means)


@inline_overload(policy_mean)
def _policy_mean(name, scores, per_arm):  # type: ignore[no-untyped-def]
    return resolve("policy_mean", name, _no_policy)


@overload(run_budget)
def _run_budget(name, model, k0, k1, values, parameters, budget, pulls,
                means):  # type: ignore[no-untyped-def]
    return resolve("run_budget", name, None)
