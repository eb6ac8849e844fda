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


@jit
def pull(model, k0, k1, t, value, parameters, cache, own) -> float:  # pragma: no cover
    """Reward of pull t of an arm with value ``value`` under the reward model ``model`` (a
    string literal) with ``parameters``. ``cache`` keeps the last main-stream Philox block
    ([block + 1, w0, w1, w2, w3]) and ``own`` the model's last own draws ([block + 1, d0, d1]),
    so each block is computed once for two pulls."""
    nb.literally(model)
    block = t // 2
    if draws_own(model) and own[0] != block + 1:
        own[0] = block + 1
        c2, c3 = own_stream(model)
        w0, w1, w2, w3 = philox_block(np.uint64(block), _ZERO, c2, c3, k0, k1)
        own[1], own[2] = own_pair(model, w0, w1, w2, w3)
    if cache[0] != np.uint64(block + 1):
        words = philox_block(np.uint64(block), _ZERO, _MAIN_C2, _MAIN_C3, k0, k1)
        cache[0] = np.uint64(block + 1)
        cache[1] = words[0]
        cache[2] = words[1]
        cache[3] = words[2]
        cache[4] = words[3]
    return outcome(model, value, unit32(cache[2 + 2 * (t % 2)]), own[1 + t % 2], parameters)


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
    rewards overall and in ``phase_wins``; returns the next pull index."""
    nb.literally(model)
    for _ in range(repeats):
        for a in range(values.shape[0]):
            if alive[a]:
                reward = pull(model, k0, k1, t, values[a], parameters, cache, own)
                t += 1
                pulls[a] += 1
                wins[a] += reward
                phase_wins[a] += reward
    return t


@jit
def new_run(pulls: np.ndarray) -> tuple[np.ndarray, ...]:  # pragma: no cover
    """Zero the run's ``pulls`` (one per arm) and return the rest of a fresh run's state: (alive,
    wins, phase_wins, priority, decision, cache, own), every arm alive, no rewards, empty block
    caches."""
    arms = pulls.shape[0]
    pulls[:] = 0
    return (np.ones(arms, dtype=np.bool_), np.zeros(arms), np.zeros(arms), np.empty(arms),
            np.empty(arms), np.zeros(5, dtype=np.uint64), np.zeros(3))


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
