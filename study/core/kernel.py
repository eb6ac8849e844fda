"""The kernel's drivers: arrays in, arrays out; no Python objects, no I/O.

``simulate_nested`` runs a learner whose budget-B run is the first B rollouts of a longer one: one
call simulates every seed to the largest budget and records the state at each checkpoint. Its
rollouts come in groups of G per update (G = 1: one episode per update); rollout j of update u is
rollout t = u G + j of the run's stream, whatever G is, and checkpoint B records the state after
floor(B / G) updates.
``simulate_fixed_budget`` runs a learner that plans from the budget: each checkpoint is a run of
its own from the start of the stream. Either takes the learner's name first, as a string literal,
and is compiled once per learner with the learner's pieces inlined (``study.core.hooks``).

Seeds advance in lockstep, ``LANES`` at a time: the state is a structure of arrays of shape
(K, LANES) and every loop over lanes is innermost and branch-free, so LLVM turns it into SIMD code
(the random draws, the exponentials, sampling and the update all vectorize). The blocks of lanes
are spread over threads with ``prange``; a run writes only its own rows, and its arithmetic does
not depend on which block or thread it lands in, so results are the same for any thread count or
chunking. The per-step curves are the one output
shared by runs: blocks are grouped (one group per thread), each group adds into its own row, and
the sums are integers (rewards in fixed point, ``CURVE_SCALE``), so the rows add up to the same
totals however the seeds are grouped, threaded or sharded.

Arm values come in per run (drawn instances differ by seed); Bernoulli rewards compare the run's
reward draw with the pulled arm's probability, Gaussian rewards add the run's noise
(``study.core.gaussian``) to the pulled arm's mean. Random numbers come from the sub-streams of
``study.core.streams``.

The model is specified in README.md ("The model") and, executably, by ``tests/reference/``; the
two agree exactly on the same random stream.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from study.core.gaussian import noise_block
from study.core.hooks import best_mass, choose, learn, prepare, run_budget, score
from study.core.jit import jit, parallel_jit
from study.core.philox import philox_block, unit32
from study.core.streams import MAIN_C2, MAIN_C3, TIE_BREAK_C3

LANES = 64
"""Seeds advanced together: eight AVX-512 or sixteen AVX2 vectors of doubles per lane loop, so
that a loop's fixed cost is spread over more seeds (measured with Philox4x32: about 10% less per
episode than 32 lanes, and 16 lanes cost about twice as much), and the state of K = 100 arms
still fits in L2.
The kernels take it as a run-time argument on purpose: with a constant trip count LLVM fully
unrolls each lane loop and then fails to vectorize the unrolled code (measured: about three times
the time per exponential)."""

BUFFERED = 64
"""Episodes whose random draws are made in one go (even: a block serves two episodes)."""

CURVE_SCALE = 2.0**24
"""Fixed point of the per-step reward sums: each reward is counted as round(r * 2^24), exactly
for Bernoulli rewards and to within 2^-25 for Gaussian ones. With |r| < 2^12 (config limits on
means and spreads, plus noise under 8.6) and at most 10^7 seeds a step's sum stays below 2^60,
inside int64, and integer sums do not depend on the order of addition."""

BERNOULLI = 0
GAUSSIAN = 1
REWARD_CODES: dict[str, int] = {"bernoulli": BERNOULLI, "gaussian": GAUSSIAN}
"""The kernel's code for each reward model."""

_ZERO = np.uint64(0)
_MAIN_C2 = np.uint64(MAIN_C2)
_MAIN_C3 = np.uint64(MAIN_C3)
_TIE_BREAK_C3 = np.uint64(TIE_BREAK_C3)


@jit
def _break_tie(
    scores: np.ndarray, k0: np.uint64, k1: np.uint64, budget: int
) -> int:  # pragma: no cover
    """Index of the largest score; exact ties are broken uniformly at random from the run's
    tie-break stream at this budget (``study.core.streams.TIE_BREAK``), so an untrained policy is
    right with probability 1/K."""
    best = scores[0]
    for k in range(1, scores.shape[0]):
        if scores[k] > best:
            best = scores[k]
    ties = 0
    for k in range(scores.shape[0]):
        if scores[k] == best:
            ties += 1
    pick = 0
    if ties > 1:
        u = unit32(philox_block(np.uint64(budget), _ZERO, _ZERO, _TIE_BREAK_C3, k0, k1)[0])
        pick = int(u * ties)
    for k in range(scores.shape[0]):
        if scores[k] == best:
            if pick == 0:
                return k
            pick -= 1
    return -1  # unreachable for finite scores; NaN scores are caught by the caller


@jit
def draw_uniforms(first_block: int, k0: np.ndarray, k1: np.ndarray,
                  uniforms: np.ndarray) -> None:  # pragma: no cover
    """The action and reward draws of the episodes of main-stream blocks first_block,
    first_block + 1, ... of every lane: rows 2e and 2e + 1 of ``uniforms`` for the e-th episode.

    A tight loop of its own, apart from the episodes' lane loops, so that Philox vectorizes
    across lanes; the four words go into one array because stores into two arrays made LLVM
    fall back to its scalar loop (its run-time overlap checks)."""
    for b in range(uniforms.shape[0] // 4):
        counter = np.uint64(first_block + b)
        for j in range(k0.shape[0]):
            w0, w1, w2, w3 = philox_block(counter, _ZERO, _MAIN_C2, _MAIN_C3, k0[j], k1[j])
            uniforms[4 * b, j] = unit32(w0)
            uniforms[4 * b + 1, j] = unit32(w1)
            uniforms[4 * b + 2, j] = unit32(w2)
            uniforms[4 * b + 3, j] = unit32(w3)


@jit
def _draw_noise(first_block: int, k0: np.ndarray, k1: np.ndarray,
                noise: np.ndarray) -> None:  # pragma: no cover
    """Gaussian reward noise of the episodes of noise blocks first_block, first_block + 1, ...
    of every lane (``study.core.gaussian``), one row of ``noise`` per episode."""
    for b in range(noise.shape[0] // 2):
        for j in range(k0.shape[0]):
            z0, z1 = noise_block(first_block + b, k0[j], k1[j])
            noise[2 * b, j] = z0
            noise[2 * b + 1, j] = z1


@jit
def _record(name, row, lane, checkpoint, budget, k0, k1, is_best, params, pulls, arm_rewards,
            total, zero_signal, scores, greedy, p_best, reward_sum, pulls_out, scores_out,
            finite, zero_signal_out) -> None:  # pragma: no cover
    """Write lane ``lane``'s state at a checkpoint into output row ``row`` (``is_best``: the
    lane's best arms, (K,)); the per-arm scores only when ``scores_out`` is not empty. (A call
    per lane and checkpoint, not per episode, so its reference counting costs nothing.)"""
    nb.literally(name)
    zero_signal_out[row, checkpoint] = np.int64(zero_signal[lane])
    ok = score(name, lane, params, pulls, arm_rewards, scores)
    finite[row, checkpoint] = ok
    greedy[row, checkpoint] = _break_tie(scores, k0, k1, budget) if ok else -1
    p_best[row, checkpoint] = best_mass(name, scores, is_best) if ok else np.nan
    reward_sum[row, checkpoint] = total[lane]
    for k in range(params.shape[0]):
        pulls_out[row, checkpoint, k] = np.int64(pulls[k, lane])
    if scores_out.shape[0] > 0:
        for k in range(params.shape[0]):
            scores_out[row, checkpoint, k] = scores[k]


@jit
def _record_due(name, updates, checkpoint, used, group, k0, k1, best, budgets, params, pulls,
                arm_rewards, total, zero_signal, scores, greedy, p_best, reward_sum, pulls_out,
                scores_out, finite, zero_signal_out) -> int:  # pragma: no cover
    """Record every checkpoint B from ``checkpoint`` on that falls after ``updates`` updates
    (floor(B / G) = updates); return the next checkpoint to wait for."""
    nb.literally(name)
    while checkpoint < budgets.shape[0] and budgets[checkpoint] // group == updates:
        for j in range(used):
            _record(name, j, j, checkpoint, budgets[checkpoint], k0[j], k1[j], best[j], params,
                    pulls, arm_rewards, total, zero_signal, scores, greedy, p_best, reward_sum,
                    pulls_out, scores_out, finite, zero_signal_out)
        checkpoint += 1
    return checkpoint


@jit
def _simulate_block(name, keys, lanes, values, best, reward_model, lr, baseline, group, budgets,
                    greedy, p_best, reward_sum, pulls_out, scores_out, finite, zero_signal_out,
                    curve_optimal, curve_reward) -> None:  # pragma: no cover
    """Simulate the runs of ``keys`` (at most ``lanes`` rows) in lockstep to ``budgets[-1]``
    rollouts in groups of ``group``, adding the per-step sums of the curves into
    ``curve_optimal`` and ``curve_reward`` unless they are empty.

    One function on purpose: every lane loop below, and in the learner's inlined pieces, is
    innermost and branch-free so that it vectorizes, and passing the state arrays to helpers that
    are not inlined would cost numba reference counting (atomic operations) at every call, more
    than the arithmetic of an episode.
    """
    nb.literally(name)
    used = keys.shape[0]
    n_arms = values.shape[1]
    gaussian = reward_model == GAUSSIAN
    curves = curve_optimal.shape[0] > 0
    # Unused lanes of a last, partial block repeat the first run; their results are not written
    # and they are left out of the curves.
    k0 = np.full(lanes, keys[0, 0])
    k1 = np.full(lanes, keys[0, 1])
    value = np.empty((n_arms, lanes))  # the arms' values (probabilities or means) per lane
    is_best = np.empty((n_arms, lanes))  # 1.0 for the lane's best arms
    for j in range(lanes):
        row = j if j < used else 0
        k0[j] = keys[row, 0]
        k1[j] = keys[row, 1]
        for k in range(n_arms):
            value[k, j] = values[row, k]
            is_best[k, j] = np.float64(best[row, k])
    params = np.zeros((n_arms, lanes))
    weights = np.zeros((n_arms, lanes))
    pulls = np.zeros((n_arms, lanes))  # counts as doubles: exact to 2^53, and SIMD-friendly
    arm_rewards = np.zeros((n_arms, lanes))
    total = np.zeros(lanes)
    zero_signal = np.zeros(lanes)
    uniforms = np.empty((2 * BUFFERED, lanes))
    noise = np.zeros((BUFFERED, lanes))
    norm = np.empty(lanes)
    work_a = np.empty(lanes)
    work_b = np.empty(lanes)
    arm = np.empty(lanes)
    reward = np.empty(lanes)
    count = np.empty(lanes)
    arms = np.empty((group, lanes))
    rewards = np.empty((group, lanes))
    advantage = np.empty((group, lanes))
    scores = np.empty(n_arms)
    checkpoint = _record_due(name, 0, 0, used, group, k0, k1, best, budgets, params, pulls,
                             arm_rewards, total, zero_signal, scores, greedy, p_best, reward_sum,
                             pulls_out, scores_out, finite, zero_signal_out)
    for update in range(budgets[-1] // group):
        prepare(name, params, weights, norm, work_a)
        for i in range(group):
            t = update * group + i
            # Rollout t's draws come from main-stream block t // 2 (and noise block t // 2),
            # made for BUFFERED rollouts at a time.
            row = t % BUFFERED
            if row == 0:
                draw_uniforms(t // 2, k0, k1, uniforms)
                if gaussian:
                    _draw_noise(t // 2, k0, k1, noise)
            u_reward = uniforms[2 * row + 1]

            choose(name, t, uniforms[2 * row], params, weights, norm, pulls, arm_rewards, arm,
                   work_a, work_b)

            # The reward, summed over the arms with [arm = k] (no gather): Bernoulli
            # [u < p[arm]], or Gaussian mean[arm] + z (adding the zero terms leaves mean[arm]
            # exact).
            for j in range(lanes):
                reward[j] = 0.0
            if gaussian:
                for k in range(n_arms):
                    for j in range(lanes):
                        reward[j] += value[k, j] * np.float64(arm[j] == k)
                for j in range(lanes):
                    reward[j] += noise[row, j]
            else:
                for k in range(n_arms):
                    for j in range(lanes):
                        reward[j] += (np.float64(u_reward[j] < value[k, j])
                                      * np.float64(arm[j] == k))
            for j in range(lanes):
                arms[i, j] = arm[j]
                rewards[i, j] = reward[j]

            if curves:
                # Integer sums (rewards in fixed point), so the totals do not depend on how the
                # seeds are split among blocks, threads or shards.
                for j in range(lanes):
                    count[j] = 0.0
                for k in range(n_arms):
                    for j in range(lanes):
                        count[j] += is_best[k, j] * np.float64(arm[j] == k)
                optimal = 0.0
                gained = 0.0
                for j in range(used):
                    optimal += count[j]
                    gained += np.rint(reward[j] * CURVE_SCALE)
                curve_optimal[t] += np.int64(optimal)
                curve_reward[t] += np.int64(gained)

        learn(name, update * group, lr, baseline, arms, rewards, advantage, params, weights, norm,
              pulls, arm_rewards, total, zero_signal, work_a, work_b)

        for i in range(group):
            for k in range(n_arms):
                for j in range(lanes):
                    hit = np.float64(arms[i, j] == k)
                    pulls[k, j] += hit
                    arm_rewards[k, j] += rewards[i, j] * hit
            for j in range(lanes):
                total[j] += rewards[i, j]

        # Checked here, so that the call (and numba's reference counting of its two dozen
        # array arguments) happens only at a checkpoint, not after every update.
        if checkpoint < budgets.shape[0] and budgets[checkpoint] // group == update + 1:
            checkpoint = _record_due(name, update + 1, checkpoint, used, group, k0, k1, best,
                                     budgets, params, pulls, arm_rewards, total, zero_signal,
                                     scores, greedy, p_best, reward_sum, pulls_out, scores_out,
                                     finite, zero_signal_out)


@parallel_jit
def simulate_nested(
    name: str,
    keys: np.ndarray,
    lanes: int,
    values: np.ndarray,
    best: np.ndarray,
    reward_model: int,
    lr: float,
    baseline: int,
    group: int,
    budgets: np.ndarray,
    greedy: np.ndarray,
    p_best: np.ndarray,
    reward_sum: np.ndarray,
    pulls: np.ndarray,
    scores: np.ndarray,
    finite: np.ndarray,
    zero_signal: np.ndarray,
    curve_optimal: np.ndarray,
    curve_reward: np.ndarray,
) -> None:  # pragma: no cover
    """Simulate one run of the nested learner ``name`` per row of ``keys`` (uint64, shape (runs,
    2)) and fill the outputs; ``lanes`` runs at a time advance in lockstep (pass ``LANES``).
    ``values`` (runs, K) are each run's arm values (probabilities or means, by ``reward_model``)
    and ``best`` (runs, K) its best arms; ``lr``, ``baseline`` (the learner's baseline code) and
    ``group`` (G, rollouts per update) are passed to the learner.

    Outputs have shape (runs, checkpoints) or (runs, checkpoints, K): ``greedy`` (int64, -1 when
    the state is not finite), ``p_best`` (policy mass on the best arms; NaN for learners without
    a policy), ``reward_sum`` (float64), ``pulls`` (int64), ``finite`` (bool), and ``scores``
    (the learner's scores of the arms at each checkpoint; pass an empty (0, 0, 0) array to skip
    them, as the runs table does) and ``zero_signal`` (int64: updates so far whose advantages
    were all 0).

    The curves: ``curve_optimal`` and ``curve_reward`` (int64, shape (groups, steps)) get, for
    every rollout t < steps, the number of runs whose arm was a best arm and the sum of the
    rewards times ``CURVE_SCALE`` (rounded), summed over the runs of each group of blocks of
    lanes (group g takes blocks g, g + groups, ...). With steps = 0 nothing is recorded and groups
    should be the number of blocks, so that every block is its own parallel task.
    """
    nb.literally(name)
    blocks = (keys.shape[0] + lanes - 1) // lanes
    groups = curve_optimal.shape[0]
    for g in nb.prange(groups):
        for b in range(g, blocks, groups):
            lo = b * lanes
            hi = min(lo + lanes, keys.shape[0])
            _simulate_block(name, keys[lo:hi], lanes, values[lo:hi], best[lo:hi], reward_model,
                            lr, baseline, group, budgets, greedy[lo:hi], p_best[lo:hi],
                            reward_sum[lo:hi], pulls[lo:hi],
                            scores[lo:hi] if scores.shape[0] > 0 else scores, finite[lo:hi],
                            zero_signal[lo:hi], curve_optimal[g], curve_reward[g])


@parallel_jit
def simulate_fixed_budget(
    name: str,
    keys: np.ndarray,
    values: np.ndarray,
    reward_model: int,
    budgets: np.ndarray,
    greedy: np.ndarray,
    p_best: np.ndarray,
    reward_sum: np.ndarray,
    pulls: np.ndarray,
    scores: np.ndarray,
    finite: np.ndarray,
    zero_signal: np.ndarray,
) -> None:  # pragma: no cover
    """Simulate the learner ``name``, which plans from the budget, once per (run, checkpoint),
    one seed per thread task; the outputs are those of ``simulate_nested`` (``scores``: the
    empirical means, -inf for an arm never pulled; empty to skip them)."""
    nb.literally(name)
    n_arms = values.shape[1]
    for i in nb.prange(keys.shape[0]):
        means = np.empty(n_arms)
        for c in range(budgets.shape[0]):
            greedy[i, c], reward_sum[i, c] = run_budget(
                name, keys[i, 0], keys[i, 1], values[i], reward_model == GAUSSIAN, budgets[c],
                pulls[i, c], means)
            p_best[i, c] = np.nan
            finite[i, c] = True
            zero_signal[i, c] = 0
            if scores.shape[0] > 0:
                scores[i, c] = means
