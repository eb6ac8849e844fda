"""Building blocks of the learners that plan from the budget (successive rejects, sequential
halving): pulls, phases of pulls, and tie-break priorities.

Such a learner plans its phases from the whole budget B, so unlike REINFORCE a budget-B run is not
a prefix of a longer one: each checkpoint is simulated as its own run, from the start of the run's
stream (so budgets, and the other learners, still share common random numbers). Pull t of a run
draws its reward as episode t of every learner does: the reward model's outcome
(``study.core.reward_hooks``) from the reward word of main-stream block t div 2 and the model's
own draw of pull t. Within a phase the surviving arms are pulled in turn, in index order.
Ties in a mean are broken by a random priority per arm from the run's ``PHASE_TIE_BREAK`` stream
(``study.core.streams``): arm a in phase r (numbered from 1) at budget B uses word a mod 4 of
block (B, r, a div 4, 1), so ties are broken uniformly and independently of the rewards.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from study.core.jit import jit
from study.core.philox import philox_block, unit32
from study.core.reward_hooks import draws_own, outcome, own_pair, own_stream
from study.core.streams import MAIN_C2, MAIN_C3, TIE_BREAK_C3

_ZERO = np.uint64(0)
_MAIN_C2 = np.uint64(MAIN_C2)
_MAIN_C3 = np.uint64(MAIN_C3)
_TIE_BREAK_C3 = np.uint64(TIE_BREAK_C3)


WINDOW = 512
"""Pulls whose draws are made at once (``_fill``; even: a Philox block serves two pulls)."""
_BLOCKS = WINDOW // 2


@jit
def _fill(model, k0, k1, window, cache, own) -> None:  # pragma: no cover
    """The draws of the pulls of window ``window`` (pulls window W .. window W + W - 1, W =
    ``WINDOW``) into ``cache`` and ``own`` (``pull_phase`` says where), in loops over the
    window's Philox blocks: independent iterations, which LLVM vectorizes, where a block made
    at the pull that first needed it was a chain of dependent operations the pull waited for
    (with numba's reference counting at every pull, three quarters of a run's time)."""
    nb.literally(model)
    cache[0] = window + 1
    first = window * _BLOCKS
    for b in range(_BLOCKS):
        words = philox_block(np.uint64(first + b), _ZERO, _MAIN_C2, _MAIN_C3, k0, k1)
        cache[1 + 2 * b] = unit32(words[1])
        cache[2 + 2 * b] = unit32(words[3])
    if draws_own(model):
        c2, c3 = own_stream(model)
        for b in range(_BLOCKS):
            w0, w1, w2, w3 = philox_block(np.uint64(first + b), _ZERO, c2, c3, k0, k1)
            own[1 + 2 * b], own[2 + 2 * b] = own_pair(model, w0, w1, w2, w3)


@jit
def priorities(k0: np.uint64, k1: np.uint64, budget: int, phase: int,
               out: np.ndarray) -> None:  # pragma: no cover
    """Random tie-break priority of every arm for this phase (see the module docstring)."""
    for a in range(out.shape[0]):
        words = philox_block(np.uint64(budget), np.uint64(phase), np.uint64(a // 4), _TIE_BREAK_C3,
                             k0, k1)
        out[a] = unit32(words[a % 4])


@jit
def worst(alive: np.ndarray, means: np.ndarray, priority: np.ndarray) -> int:  # pragma: no cover
    """The surviving arm with the lowest mean, ties to the lowest priority."""
    found = -1
    for a in range(alive.shape[0]):
        if alive[a] and (found < 0 or means[a] < means[found]
                         or (means[a] == means[found] and priority[a] < priority[found])):
            found = a
    return found


@jit
def pull_phase(model, k0, k1, values, parameters, alive, repeats, t, pulls, wins, phase_wins,
               cache, own) -> int:  # pragma: no cover
    """Pull every surviving arm ``repeats`` times in turn from pull index t, summing pulls and
    rewards overall and in ``phase_wins``; returns the next pull index.

    Pull t's reward is the reward model's outcome from word 1 (t even) or 3 (t odd) of
    main-stream block t div 2, and the model's own draw of pull t. ``cache`` keeps the reward
    draws of the ``WINDOW`` pulls of t's window (pulls t - t mod W ...) and ``own`` the
    model's own draws (``new_run``), made a window at a time (``_fill``): entry 0 is the window
    + 1, entry 1 + t mod W pull t's draw (``own``'s entry 0 unused, its draws all 0 for a model
    without them). Written out here, not in a function of a pull: numba counted references to
    the two arrays at every call of one, inlined or not, four atomic operations per pull."""
    nb.literally(model)
    for _ in range(repeats):
        for a in range(values.shape[0]):
            if alive[a]:
                window = t // WINDOW
                if cache[0] != window + 1:
                    _fill(model, k0, k1, window, cache, own)
                at = 1 + t % WINDOW
                reward = outcome(model, values[a], cache[at], own[at], parameters)
                t += 1
                pulls[a] += 1
                wins[a] += reward
                phase_wins[a] += reward
    return t


@jit
def new_run(pulls: np.ndarray) -> tuple[np.ndarray, ...]:  # pragma: no cover
    """Zero the run's ``pulls`` (one per arm) and return the rest of a fresh run's state: (alive,
    wins, phase_wins, priority, decision, cache, own), every arm alive, no rewards, no draws
    made (``pull_phase``)."""
    arms = pulls.shape[0]
    pulls[:] = 0
    return (np.ones(arms, dtype=np.bool_), np.zeros(arms), np.zeros(arms), np.empty(arms),
            np.empty(arms), np.zeros(1 + WINDOW), np.zeros(1 + WINDOW))


@jit
def finish(alive: np.ndarray, pulls: np.ndarray, wins: np.ndarray,
           means: np.ndarray) -> tuple[int, float]:  # pragma: no cover
    """Write each arm's empirical mean over all its pulls into ``means`` (-inf if none) and return
    (the surviving arm, the run's total reward)."""
    recommended = -1
    for a in range(alive.shape[0]):
        means[a] = wins[a] / pulls[a] if pulls[a] > 0 else -np.inf
        if alive[a]:
            recommended = a
    return recommended, wins.sum()
