"""Fixed-budget best-arm identification in numba: successive rejects and sequential halving.

Both plan their phases from the whole budget B, so unlike REINFORCE a budget-B run is not a prefix
of a longer one: each checkpoint is simulated as its own run, from the start of the run's stream
(so budgets, and the other algorithms, still share common random numbers). Pull t of a run draws
its reward as episode t of every algorithm does: Bernoulli from the low 32 bits of main-stream word
t, Gaussian as the arm's mean plus normal z_t of the noise stream (``study.gaussian``).

* Successive rejects (Audibert and Bubeck 2010): with log-bar(K) = 1/2 + sum_{i=2..K} 1/i and
  n_k = ceil((B - K) / (log-bar(K) (K + 1 - k))) (0 if negative), phase k = 1 .. K - 1 pulls each
  surviving arm n_k - n_{k-1} more times, then rejects the surviving arm with the lowest empirical
  mean over all its pulls. The last survivor is recommended.
* Sequential halving (Karnin, Koren and Somekh 2013): ceil(log2 K) rounds; round r pulls each of
  its S_r surviving arms floor(B / (|S_r| ceil(log2 K))) times and keeps the ceil(|S_r| / 2) with
  the highest mean *of that round's pulls* (as in the paper). The last survivor is recommended.

Within a phase the surviving arms are pulled in turn, in index order. An arm with no pulls (tiny
budgets) has mean -inf. Ties in a mean are broken by a random priority per arm drawn from the
run's tie-break stream: arm a in phase r (numbered from 1) at budget B uses word a mod 4 of Philox
block (B, r, a div 4, 1), so ties are broken uniformly and independently of the rewards.
"""

from __future__ import annotations

import math

import numpy as np

from study.gaussian import noise_block
from study.jit import jit
from study.model import GAUSSIAN, SUCCESSIVE_REJECTS
from study.philox import low_unit, philox_block, to_unit

_ZERO = np.uint64(0)
_ONE = np.uint64(1)


@jit
def _pull(k0: np.uint64, k1: np.uint64, t: int, value: float, gaussian: bool, cache: np.ndarray,
          noise: np.ndarray) -> float:  # pragma: no cover
    """Reward of pull t of an arm with value ``value``. ``cache`` keeps the last main-stream
    Philox block ([block + 1, w0, w1, w2, w3]) and ``noise`` the last noise block's normals
    ([block + 1, z0, z1, z2, z3]), so each block is computed once for four pulls."""
    block = t // 4
    if gaussian:
        if noise[0] != block + 1:
            noise[0] = block + 1
            noise[1], noise[2], noise[3], noise[4] = noise_block(block, k0, k1)
        return value + noise[1 + t % 4]
    if cache[0] != np.uint64(block + 1):
        words = philox_block(np.uint64(block + 1), _ZERO, _ZERO, _ZERO, k0, k1)
        cache[0] = np.uint64(block + 1)
        cache[1] = words[0]
        cache[2] = words[1]
        cache[3] = words[2]
        cache[4] = words[3]
    return 1.0 if low_unit(cache[1 + t % 4]) < value else 0.0


@jit
def _priorities(k0: np.uint64, k1: np.uint64, budget: int, phase: int,
                out: np.ndarray) -> None:  # pragma: no cover
    """Random tie-break priority of every arm for this phase (see the module docstring)."""
    for a in range(out.shape[0]):
        words = philox_block(np.uint64(budget), np.uint64(phase), np.uint64(a // 4), _ONE, k0, k1)
        out[a] = to_unit(words[a % 4])


@jit
def _worst(alive: np.ndarray, means: np.ndarray, priority: np.ndarray) -> int:  # pragma: no cover
    """The surviving arm with the lowest mean, ties to the lowest priority."""
    worst = -1
    for a in range(alive.shape[0]):
        if alive[a] and (worst < 0 or means[a] < means[worst]
                         or (means[a] == means[worst] and priority[a] < priority[worst])):
            worst = a
    return worst


@jit
def _phase(k0: np.uint64, k1: np.uint64, values: np.ndarray, gaussian: bool, alive: np.ndarray,
           repeats: int, t: int, pulls: np.ndarray, wins: np.ndarray, phase_wins: np.ndarray,
           cache: np.ndarray, noise: np.ndarray) -> int:  # pragma: no cover
    """Pull every surviving arm ``repeats`` times in turn from pull index t, summing pulls and
    rewards overall and in ``phase_wins``; returns the next pull index."""
    for _ in range(repeats):
        for a in range(values.shape[0]):
            if alive[a]:
                reward = _pull(k0, k1, t, values[a], gaussian, cache, noise)
                t += 1
                pulls[a] += 1
                wins[a] += reward
                phase_wins[a] += reward
    return t


@jit
def fixed_budget_run(k0: np.uint64, k1: np.uint64, values: np.ndarray, reward_model: int,
                     algorithm: int, budget: int, pulls: np.ndarray,
                     means: np.ndarray) -> tuple[int, float]:  # pragma: no cover
    """One run of successive rejects or sequential halving with budget ``budget`` on arms with
    values ``values`` (probabilities or means, by ``reward_model``).

    Fills ``pulls`` (per arm) and ``means`` (empirical mean of all pulls, -inf if none); returns
    (recommended arm, total reward)."""
    arms = values.shape[0]
    gaussian = reward_model == GAUSSIAN
    alive = np.ones(arms, dtype=np.bool_)
    wins = np.zeros(arms)
    round_wins = np.zeros(arms)
    priority = np.empty(arms)
    decision = np.empty(arms)
    cache = np.zeros(5, dtype=np.uint64)
    noise = np.zeros(5)
    pulls[:] = 0
    t = 0
    survivors = arms
    if algorithm == SUCCESSIVE_REJECTS:
        log_bar = 0.5
        for i in range(2, arms + 1):
            log_bar += 1.0 / i
        previous = 0
        for phase in range(1, arms):
            target = max(math.ceil((budget - arms) / (log_bar * (arms + 1 - phase))), 0)
            t = _phase(k0, k1, values, gaussian, alive, target - previous, t, pulls, wins,
                       round_wins, cache, noise)
            previous = target
            for a in range(arms):
                decision[a] = wins[a] / pulls[a] if pulls[a] > 0 else -np.inf
            _priorities(k0, k1, budget, phase, priority)
            alive[_worst(alive, decision, priority)] = False
    else:
        rounds = math.ceil(math.log2(arms))
        for phase in range(1, rounds + 1):
            each = budget // (survivors * rounds)
            round_wins[:] = 0
            t = _phase(k0, k1, values, gaussian, alive, each, t, pulls, wins, round_wins, cache,
                       noise)
            for a in range(arms):
                decision[a] = round_wins[a] / each if each > 0 else -np.inf
            _priorities(k0, k1, budget, phase, priority)
            keep = (survivors + 1) // 2
            while survivors > keep:
                alive[_worst(alive, decision, priority)] = False
                survivors -= 1
    recommended = -1
    for a in range(arms):
        means[a] = wins[a] / pulls[a] if pulls[a] > 0 else -np.inf
        if alive[a]:
            recommended = a
    return recommended, wins.sum()
