"""The kernel's drivers: arrays in, arrays out; no Python objects, no I/O.

``simulate_single`` runs a block of runs of a learner whose budget-B run is the first B rollouts
of a longer one: one call simulates the block's seeds to the largest budget and records the state
at each checkpoint, one rollout per update. ``simulate_groups`` does the same with groups of
G >= 2 rollouts per update: rollout j of update u is rollout t = u G + j of the run's stream,
whatever G is, and checkpoint B records the state after floor(B / G) updates.
``simulate_fixed_budget`` runs a learner that plans from the budget: each checkpoint is a run of
its own from the start of the stream. Either takes the learner's name first, as a string literal,
and is compiled once per learner with the learner's pieces inlined (``study.core.hooks``);
the nested drivers also once per small K (``study.core.state.UNROLLED_ARMS``).

Seeds advance in lockstep, ``LANES`` at a time: the state is one array of rows of lanes
(``study.core.state``) and every loop over lanes is innermost and branch-free, so LLVM turns it
into SIMD code. With K a constant up to ``UNROLLED_ARMS`` a single-rollout episode is two passes
over the lanes, every arm in one go: the learner's ``prepare`` (the exponentials), then
everything else (``choose_lane``, the reward, ``learn_one_lane``); past it, and for the pieces of
a group, each piece makes passes over chunks of arms (``study.core.arms``), so that the lane
loops vectorize whatever K is and the cost grows linearly in K. The random draws are made
``BUFFERED`` episodes at a time in a loop of their own. (One pass for everything was slower: a
lane's episode is then a long chain of dependent operations, and the processor could not overlap
enough lanes to hide its latency.) The nested drivers simulate one block of
lanes per call: the caller spreads the blocks over threads (the drivers hold no Python lock),
rather than a numba ``prange``, whose parallel lowering is compiled again for every learner and
K, as is any numba loop over blocks around a driver. A run writes only its own rows, and its
arithmetic does not depend on which block or thread it lands in, so results are the same for any
thread count or chunking. The per-step curves are the one output shared by runs: each thread
adds into its own curve rows, and the sums are integers (rewards in fixed point,
``CURVE_SCALE``), so the rows add up to the same totals however the seeds are grouped, threaded
or sharded.

Arm values come in per run (drawn instances differ by seed); the reward of a pull is the reward
model's (``study.core.reward_hooks``), from the pulled arm's value, the pull's reward draw and the
model's own draw; the drivers are compiled once per reward model too, with its pieces inlined.
Random numbers come from the sub-streams of ``study.core.streams``.

The model is specified in README.md ("The model") and, executably, by ``reference/``; the
two agree exactly on the same random stream.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from study.core.arms import padded, pick, picked
from study.core.bits import select
from study.core.elementary import fast_log
from study.core.hooks import (
    choose,
    choose_lane,
    learn,
    learn_one,
    learn_one_lane,
    policy_mean,
    prepare,
    prepare_by_lane,
    run_budget,
    score,
)
from study.core.jit import inline_jit, inline_overload, jit, parallel_jit
from study.core.philox import philox_block, stream_block, stream_schedule, unit32
from study.core.reward_hooks import cut, draws_own, lifted_at, outcome, own_pair, own_stream, shaped
from study.core.state import (
    ARM_REWARDS,
    BEST,
    BLOCKS,
    BUFFERED,
    PARAMS,
    PULLS,
    SCRATCH,
    SINGLES,
    STRIDE,
    TOTAL,
    UNROLLED_ARMS,
    VALUES,
    ZERO_SIGNAL,
    aligned,
    aligned_rows,
    arm_count,
    arm_row,
    lane_row,
    rows,
)
from study.core.streams import LENGTH_C2, LENGTH_C3, MAIN_C2, MAIN_C3, TIE_BREAK_C3

CURVE_SCALE = 2.0**24
"""Fixed point of the per-step reward sums: each reward is counted as round(r * 2^24), exactly
for Bernoulli rewards and to within 2^-25 for Gaussian ones. With |r| < 2^12 (config limits on
means and spreads, plus noise under 8.6) and at most 10^7 seeds a step's sum stays below 2^60,
inside int64, and integer sums do not depend on the order of addition."""

_ZERO = np.uint64(0)
# Typed as int64, not as the integer literals 0 and 1, so that the checkpoint functions are
# compiled once for every call (numba compiles a function again for each literal argument).
_FIRST = np.int64(0)
_SINGLE = np.int64(1)
_MAIN_C2 = np.uint64(MAIN_C2)
_MAIN_C3 = np.uint64(MAIN_C3)
_LENGTH_C2 = np.uint64(LENGTH_C2)
_LENGTH_C3 = np.uint64(LENGTH_C3)
_TIE_BREAK_C3 = np.uint64(TIE_BREAK_C3)


@jit
def break_tie(
    scores: np.ndarray, k0: np.uint64, k1: np.uint64, budget: int, c1: np.uint64
) -> int:  # pragma: no cover
    """Index of the largest score; exact ties are broken uniformly at random from the run's
    tie-break stream at this budget (``study.core.streams.TIE_BREAK``: block (budget, c1, 0, 1),
    c1 0 but for a many-prompts run's prompt c1), so an untrained policy is right with
    probability 1/K."""
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
        u = unit32(philox_block(np.uint64(budget), c1, _ZERO, _TIE_BREAK_C3, k0, k1)[0])
        pick = int(u * ties)
    for k in range(scores.shape[0]):
        if scores[k] == best:
            if pick == 0:
                return k
            pick -= 1
    return -1  # unreachable for finite scores; NaN scores are caught by the caller


@jit
def main_schedule(k0: np.ndarray, k1: np.ndarray, c1: np.ndarray) -> np.ndarray:  # pragma: no cover
    """The main stream's ``stream_schedule`` of the lanes' keys and words c1, for
    ``draw_uniforms``."""
    return stream_schedule(_MAIN_C2, _MAIN_C3, k0, k1, c1)


@jit
def draw_uniforms(first_block: int, schedule: np.ndarray,
                  uniforms: np.ndarray) -> None:  # pragma: no cover
    """The action and reward draws of the episodes of main-stream blocks first_block,
    first_block + 1, ... of every lane (``schedule``: ``main_schedule`` of the lanes' keys):
    rows 2e and 2e + 1 of ``uniforms`` for the e-th episode.

    A tight loop of its own, apart from the episodes' lane loops, so that Philox vectorizes
    across lanes; the four words go into one array because stores into two arrays made LLVM
    fall back to its scalar loop (its run-time overlap checks)."""
    for b in range(uniforms.shape[0] // 4):
        counter = np.uint64(first_block + b)
        for j in range(schedule.shape[1]):
            w0, w1, w2, w3 = stream_block(counter, schedule, j)
            uniforms[4 * b, j] = unit32(w0)
            uniforms[4 * b + 1, j] = unit32(w1)
            uniforms[4 * b + 2, j] = unit32(w2)
            uniforms[4 * b + 3, j] = unit32(w3)


@jit
def _draw_own(model, first_block, schedule, own) -> None:  # pragma: no cover
    """The reward model's own draws of the episodes of its stream's blocks first_block,
    first_block + 1, ... of every lane (``schedule``: its stream's ``stream_schedule`` of the
    lanes' keys), one row of ``own`` per episode."""
    nb.literally(model)
    for b in range(own.shape[0] // 2):
        counter = np.uint64(first_block + b)
        for j in range(schedule.shape[1]):
            w0, w1, w2, w3 = stream_block(counter, schedule, j)
            z0, z1 = own_pair(model, w0, w1, w2, w3)
            own[2 * b, j] = z0
            own[2 * b + 1, j] = z1


@jit
def _record(name, lane, checkpoint, budget, k0, k1, is_best, values, grid, n_arms, scores,
            out) -> None:  # pragma: no cover
    """Write lane ``lane``'s state at a checkpoint into row ``lane`` of the block's outputs
    ``out`` (greedy, p_best, pass_rate, reward_sum, pulls, scores, finite, zero_signal: those of
    ``simulate_single``, the block's rows); ``is_best`` and ``values``: the lane's best arms and
    arm values, (K,); ``grid``:
    the block's state as rows of lanes. The per-arm scores only when ``out``'s are not empty. (A
    call per lane and checkpoint, not per episode, so its reference counting costs nothing.)"""
    nb.literally(name)
    greedy, p_best, pass_rate, reward_sum, pulls_out, scores_out, finite, zero_signal_out = out
    last = SINGLES + BLOCKS * n_arms
    params = grid[SINGLES + PARAMS:last:BLOCKS]
    pulls = grid[SINGLES + PULLS:last:BLOCKS]
    arm_rewards = grid[SINGLES + ARM_REWARDS:last:BLOCKS]
    zero_signal_out[lane, checkpoint] = np.int64(grid[ZERO_SIGNAL, lane])
    ok = score(name, lane, params, pulls, arm_rewards, scores)
    finite[lane, checkpoint] = ok
    greedy[lane, checkpoint] = break_tie(scores, k0, k1, budget, _ZERO) if ok else -1
    p_best[lane, checkpoint] = policy_mean(name, scores, is_best) if ok else np.nan
    pass_rate[lane, checkpoint] = policy_mean(name, scores, values) if ok else np.nan
    reward_sum[lane, checkpoint] = grid[TOTAL, lane]
    for k in range(n_arms):
        pulls_out[lane, checkpoint, k] = np.int64(pulls[k, lane])
    if scores_out.shape[0] > 0:
        for k in range(n_arms):
            scores_out[lane, checkpoint, k] = scores[k]


@jit
def _record_due(name, updates, checkpoint, used, group, k0, k1, best, values, budgets, grid,
                n_arms, scores, out) -> int:  # pragma: no cover
    """Record every checkpoint B from ``checkpoint`` on that falls after ``updates`` updates
    (floor(B / G) = updates); return the next checkpoint to wait for."""
    nb.literally(name)
    while checkpoint < budgets.shape[0] and budgets[checkpoint] // group == updates:
        for j in range(used):
            _record(name, j, checkpoint, budgets[checkpoint], k0[j], k1[j], best[j], values[j],
                    grid, n_arms, scores, out)
        checkpoint += 1
    return checkpoint


def of_lane(table, j):  # type: ignore[no-untyped-def]
    """Lane j's entries of ``table``: the table itself where every lane has the same (1-D), else
    its column j (2-D, a row per entry: a column per lane, so that the lanes' entries are
    adjacent and a lane loop reads them as vectors)."""


def lane_entry(table, k, j):  # type: ignore[no-untyped-def]
    """Entry k of lane j of ``table`` (``of_lane``'s), read in place: no view of the column."""


@inline_overload(of_lane)
def _of_lane(table, j):  # type: ignore[no-untyped-def]
    if table.ndim == 1:
        return lambda table, j: table
    return lambda table, j: table[:, j]


@inline_overload(lane_entry)
def _lane_entry(table, k, j):  # type: ignore[no-untyped-def]
    if table.ndim == 1:
        return lambda table, k, j: table[k]
    return lambda table, k, j: table[k, j]


@inline_jit
def _rewards(model, lanes, values, u_reward, own, parameters,
             rewards) -> None:  # pragma: no cover
    """Every lane's reward into ``rewards``: the reward model's outcome for the pulled arm's value
    in ``values`` (``choose``'s), from the lane's reward draw in ``u_reward`` and own draw in
    ``own``, with the model's ``parameters``, the lanes' own where 2-D (``of_lane``)."""
    for j in range(lanes):
        rewards[j] = outcome(model, values[j], u_reward[j], own[j], of_lane(parameters, j))


@inline_jit
def _rollout_lane(name, model, n_arms, t, s, j, u_action, u_reward, own,
                  parameters):  # pragma: no cover
    """Lane j's rollout t, every arm in one go: (arm, reward)."""
    arm = choose_lane(name, n_arms, t, s, j, u_action)
    return arm, outcome(model, picked(s, VALUES, j, arm, 0.0, 0, n_arms), u_reward, own,
                        parameters)


def _whole(literal: types.Type) -> bool | None:
    """Whether a driver compiled for the literal K ``literal`` runs a rollout lane by lane, every
    arm in one go (``study.core.hooks``: K a constant up to ``UNROLLED_ARMS``), rather than in
    passes over chunks of arms; None while ``literal`` is not yet a literal (numba then retries
    with it). Decided when numba types the driver, so that it compiles one of the two: typed
    both, a driver took twice as long to compile."""
    if not isinstance(literal, types.IntegerLiteral):
        return None
    return 0 < literal.literal_value <= UNROLLED_ARMS


def _rollouts(literal, name, model, n_arms, t, s, lanes, w, actions, draws, own, parameters,
              arms, values, rewards):  # type: ignore[no-untyped-def]
    """Every lane's rollout t: its arm (the learner's ``choose``) into ``arms``, its reward
    into ``rewards`` (``values``: scratch); lane by lane where ``literal``, the driver's literal
    K, is one to take whole (``_whole``)."""


def _rollouts_by_lane(literal, name, model, n_arms, t, s, lanes, w, actions, draws, own,
                      parameters, arms, values, rewards):  # pragma: no cover
    for j in range(lanes):
        arms[j], rewards[j] = _rollout_lane(name, model, n_arms, t, s, j, actions[j], draws[j],
                                            own[j], parameters)


def _rollouts_in_passes(literal, name, model, n_arms, t, s, lanes, w, actions, draws, own,
                        parameters, arms, values, rewards):  # pragma: no cover
    choose(name, n_arms, t, s, lanes, w, actions, arms, values)
    _rewards(model, lanes, values, draws, own, parameters, rewards)


@inline_overload(_rollouts)
def _rollouts_overload(literal, name, model, n_arms, t, s, lanes, w, actions, draws, own,
                       parameters, arms, values, rewards):  # type: ignore[no-untyped-def]
    whole = _whole(literal)
    if whole is None:
        return None
    return _rollouts_by_lane if whole else _rollouts_in_passes


def _prepare(literal, name, n_arms, s, lanes, w):  # type: ignore[no-untyped-def]
    """The learner's ``prepare``: lane by lane where ``literal`` is a K to take whole
    (``_whole``)."""


@inline_overload(_prepare)
def _prepare_overload(literal, name, n_arms, s, lanes, w):  # type: ignore[no-untyped-def]
    whole = _whole(literal)
    if whole is None:
        return None

    def in_passes(literal, name, n_arms, s, lanes, w):  # pragma: no cover
        prepare(name, n_arms, s, lanes, w)

    def by_lane(literal, name, n_arms, s, lanes, w):  # pragma: no cover
        prepare_by_lane(name, n_arms, s, lanes, w)

    return by_lane if whole else in_passes


def _one_rollout(literal, name, model, n_arms, t, lanes, lr, baseline, s, w, actions, draws,
                 own, parameters, arms, values, rewards,
                 advantage):  # type: ignore[no-untyped-def]
    """A single-rollout update of every lane (G = 1): the learner's ``prepare`` (the
    exponentials), then its ``choose``, the rewards and its ``learn_one``, the three in one lane
    loop where ``literal`` is a K to take whole (``_whole``). The arms and rewards are left in
    ``arms`` and ``rewards`` for the curves. No store in a lane loop is conditional (that would
    keep LLVM from vectorizing it)."""


def _one_rollout_by_lane(literal, name, model, n_arms, t, lanes, lr, baseline, s, w, actions,
                         draws, own, parameters, arms, values, rewards,
                         advantage):  # pragma: no cover
    prepare_by_lane(name, n_arms, s, lanes, w)
    for j in range(lanes):
        arm, reward = _rollout_lane(name, model, n_arms, t, s, j, actions[j], draws[j], own[j],
                                    parameters)
        learn_one_lane(name, n_arms, t, lr, baseline, s, j, arm, reward)
        arms[j] = arm
        rewards[j] = reward


def _one_rollout_in_passes(literal, name, model, n_arms, t, lanes, lr, baseline, s, w, actions,
                           draws, own, parameters, arms, values, rewards,
                           advantage):  # pragma: no cover
    prepare(name, n_arms, s, lanes, w)
    _rollouts(literal, name, model, n_arms, t, s, lanes, w, actions, draws, own, parameters, arms,
              values, rewards)
    learn_one(name, n_arms, t, lr, baseline, s, lanes, w, arms, rewards, advantage)


@inline_overload(_one_rollout)
def _one_rollout_overload(literal, name, model, n_arms, t, lanes, lr, baseline, s, w, actions,
                          draws, own, parameters, arms, values, rewards,
                          advantage):  # type: ignore[no-untyped-def]
    whole = _whole(literal)
    if whole is None:
        return None
    return _one_rollout_by_lane if whole else _one_rollout_in_passes


@inline_jit
def _add_trace(n_arms, s, lanes, w, used, arms, rewards, t, curve_optimal,
               curve_reward) -> None:  # pragma: no cover
    """Add rollout t of the used lanes, which pulled ``arms`` and got ``rewards``, to the
    curves: the runs whose arm was a best arm (picked into row 0 of the scratch array ``w``), and
    the rewards in fixed point. Integer sums, so the totals do not depend on how the seeds are
    split among blocks, threads or shards; and LLVM vectorizes an integer sum, where it must add
    doubles in order, one lane after another. Inlined, as the drivers' other per-rollout pieces:
    a call would cost numba's reference counting of the arrays at every rollout."""
    optimal = 0
    gained = 0
    best = lane_row(0)
    pick(n_arms, s, BEST, arms, lanes, w, best)
    for j in range(np.uint64(used)):
        optimal += np.int64(w[best + j])
        gained += np.int64(np.rint(rewards[j] * CURVE_SCALE))
    curve_optimal[t] += optimal
    curve_reward[t] += gained


@inline_jit
def add_metered_traces(n_arms, s, lanes, w, used, group, first, arms, rewards, due, last,
                       curves) -> None:  # pragma: no cover
    """``_add_trace`` for rollouts ``first``, ..., ``first + group - 1`` of a metered update
    (``arms`` and ``rewards``: its rows of rollouts), of the lanes whose run it belongs to: those
    that have not passed their last checkpoint (``due`` below ``last``), which lanes passing their
    checkpoints at updates of their own leave at different steps; ``curves``: (optimal, reward,
    seeds), the last counting the runs each step has."""
    curve_optimal, curve_reward, curve_seeds = curves
    best = lane_row(0)
    running = 0
    for j in range(np.uint64(used)):
        running += np.int64(due[j] < last)
    for i in range(group):
        pick(n_arms, s, BEST, arms[i], lanes, w, best)
        optimal = 0
        gained = 0
        for j in range(np.uint64(used)):
            on = np.int64(due[j] < last)
            optimal += on * np.int64(w[best + j])
            gained += on * np.int64(np.rint(rewards[i, j] * CURVE_SCALE))
        curve_optimal[first + i] += optimal
        curve_reward[first + i] += gained
        curve_seeds[first + i] += running


@inline_jit
def _start(n_arms, model, keys, lanes, values, best, c1):  # pragma: no cover
    """The state of a block of runs (``study.core.state``), flat and as rows, the Philox keys of
    its lanes, their counters' word c1 (``c1``, one per run: 0 but for a many-prompts run's
    prompt) and the schedules of the main stream and the reward model's (``stream_schedule``;
    the second unused for a model without a stream of its own), and room for the draws of
    ``BUFFERED`` rollouts (the reward model's own draws zero for a model without them), the
    block's scratch array (``study.core.state.SCRATCH``) and room for one lane's scores. The
    state has room for ``study.core.arms.padded`` arms. Unused lanes of a last, partial block
    repeat the first run; their results are not written and they are left out of the curves."""
    used = keys.shape[0]
    k0 = np.full(lanes, keys[0, 0])
    k1 = np.full(lanes, keys[0, 1])
    words = np.full(lanes, c1[0])
    room = padded(n_arms)
    s = aligned(rows(room) * STRIDE)
    s[:] = 0.0
    for j in range(np.uint64(lanes)):
        row = j if j < used else np.uint64(0)
        k0[j] = keys[row, 0]
        k1[j] = keys[row, 1]
        words[j] = c1[row]
        for k in range(n_arms):
            s[arm_row(VALUES, k) + j] = values[row, k]
            s[arm_row(BEST, k) + j] = np.float64(best[row, k])
    c2, c3 = own_stream(model)
    own = aligned_rows(BUFFERED, lanes)
    own[:] = 0.0
    return (s, s.reshape((rows(room), STRIDE)), aligned(SCRATCH * STRIDE), k0, k1, words,
            main_schedule(k0, k1, words), stream_schedule(c2, c3, k0, k1, words),
            aligned_rows(2 * BUFFERED, lanes), own, np.empty(n_arms))


@inline_jit
def _draw(t, main, mine, model, uniforms, own) -> int:  # pragma: no cover
    """The row of rollout t's draws: from main-stream block t // 2 (and block t // 2 of the reward
    model's own stream), made for ``BUFFERED`` rollouts at a time."""
    row = t % BUFFERED
    if row == 0:
        draw_uniforms(t // 2, main, uniforms)
        if draws_own(model):
            _draw_own(model, t // 2, mine, own)
    return row


@jit
def simulate_single(name, n_arms, model, keys, lanes, values, best, parameters, lr, baseline,
                    budgets, out, curve_optimal, curve_reward) -> None:  # pragma: no cover
    """Simulate one block of runs of the nested learner ``name`` in lockstep, one run per row of
    ``keys`` (at most ``lanes`` of them, which is at most ``LANES``), learning from every rollout
    (``simulate_groups``: from groups of G), and fill the outputs. ``n_arms`` is K up to
    ``UNROLLED_ARMS`` and 0 past it; ``model`` is the reward model's name (numba compiles the
    driver once per learner, value of ``n_arms`` and reward model). A caller runs the blocks of
    a simulation on threads (the function holds no Python lock).

    ``keys`` (uint64, (runs, 2)) are the runs' Philox keys; ``values`` (runs, K) each run's arm
    values (probabilities or means, by the reward model) and ``best`` (runs, K) its best arms;
    ``parameters`` (float64) the reward model's; ``lr`` and ``baseline`` (the learner's baseline
    code) are passed to the learner.

    ``out`` holds the outputs, of shape (runs, checkpoints) or (runs, checkpoints, K): ``greedy``
    (int64, -1 when the state is not finite), ``p_best`` (policy mass on the best arms; NaN for
    learners without a policy), ``pass_rate`` (the policy's expected reward sum pi[k] v[k]; NaN
    likewise), ``reward_sum`` (float64), ``pulls`` (int64), ``scores`` (the
    learner's scores of the arms at each checkpoint; an empty (0, 0, 0) array skips them, as
    the runs table does), ``finite`` (bool) and ``zero_signal`` (int64: updates so far whose
    advantages were all 0). The curves (int64, (steps,)) get, for every rollout t < steps, the
    number of the block's runs whose arm was a best arm and the sum of their rewards times
    ``CURVE_SCALE`` (rounded), added to what they hold; with steps = 0 nothing is recorded.
    (One function with the learner's pieces inlined: passing the state to helpers that are not
    inlined would cost numba reference counting, atomic operations, at every call.)"""
    nb.literally(name)
    nb.literally(n_arms)
    nb.literally(model)
    arms = arm_count(n_arms, values.shape[1])
    used = keys.shape[0]
    s, grid, w, k0, k1, _, main, mine, uniforms, own, scores = _start(
        arms, model, keys, lanes, values, best, np.zeros(keys.shape[0], np.uint64))
    width = np.uint64(lanes)
    pulled = aligned(lanes)
    chosen = aligned(lanes)
    rewards = aligned(lanes)
    advantage = aligned(lanes)
    checkpoint = _record_due(name, _FIRST, _FIRST, used, _SINGLE, k0, k1, best, values, budgets,
                             grid, arms, scores, out)
    for t in range(budgets[-1]):
        row = _draw(t, main, mine, model, uniforms, own)
        _one_rollout(n_arms, name, model, arms, t, width, lr, baseline, s, w, uniforms[2 * row],
                     uniforms[2 * row + 1], own[row], parameters, pulled, chosen, rewards,
                     advantage)
        if curve_optimal.shape[0] > 0:
            _add_trace(arms, s, width, w, used, pulled, rewards, t, curve_optimal, curve_reward)
        # Checked here, so that the call (and numba's reference counting of its arguments)
        # happens only at a checkpoint, not after every update.
        if checkpoint < budgets.shape[0] and budgets[checkpoint] == t + 1:
            checkpoint = _record_due(name, t + 1, checkpoint, used, _SINGLE, k0, k1, best,
                                     values, budgets, grid, arms, scores, out)


@jit
def simulate_groups(name, n_arms, model, keys, lanes, values, best, parameters, lr, baseline,
                    group, budgets, out, curve_optimal, curve_reward) -> None:  # pragma: no cover
    """``simulate_single`` for a learner that learns from groups of ``group`` >= 2 rollouts
    (rollout t = u G + i of the run's stream is rollout i of update u; checkpoint B records the
    state after floor(B / G) updates): a pass over the lanes for ``prepare``, one per rollout
    for ``choose`` and the reward, the learner's ``learn``, and one per rollout for the sums. A
    driver of its own, so that a study without groups never compiles the group update, nor one
    with them the single-rollout pass."""
    nb.literally(name)
    nb.literally(n_arms)
    nb.literally(model)
    arms = arm_count(n_arms, values.shape[1])
    used = keys.shape[0]
    s, grid, w, k0, k1, _, main, mine, uniforms, own, scores = _start(
        arms, model, keys, lanes, values, best, np.zeros(keys.shape[0], np.uint64))
    width = np.uint64(lanes)
    pulled = aligned_rows(group, lanes)
    chosen = aligned(lanes)
    rewards = aligned_rows(group, lanes)
    advantage = aligned_rows(group, lanes)
    checkpoint = _record_due(name, _FIRST, _FIRST, used, group, k0, k1, best, values, budgets,
                             grid, arms, scores, out)
    for update in range(budgets[-1] // group):
        _prepare(n_arms, name, arms, s, width, w)
        for i in range(group):
            t = update * group + i
            row = _draw(t, main, mine, model, uniforms, own)
            _rollouts(n_arms, name, model, arms, t, s, width, w, uniforms[2 * row],
                      uniforms[2 * row + 1], own[row], parameters, pulled[i], chosen, rewards[i])
            if curve_optimal.shape[0] > 0:
                _add_trace(arms, s, width, w, used, pulled[i], rewards[i], t, curve_optimal,
                           curve_reward)
        learn(name, arms, update * group, lr, baseline, s, width, w, pulled, rewards, advantage)
        if checkpoint < budgets.shape[0] and budgets[checkpoint] // group == update + 1:
            checkpoint = _record_due(name, update + 1, checkpoint, used, group, k0, k1, best,
                                     values, budgets, grid, arms, scores, out)


@parallel_jit
def simulate_fixed_budget(
    name: str,
    model: str,
    keys: np.ndarray,
    values: np.ndarray,
    parameters: np.ndarray,
    budgets: np.ndarray,
    greedy: np.ndarray,
    p_best: np.ndarray,
    pass_rate: np.ndarray,
    reward_sum: np.ndarray,
    pulls: np.ndarray,
    scores: np.ndarray,
    finite: np.ndarray,
    zero_signal: np.ndarray,
) -> None:  # pragma: no cover
    """Simulate the learner ``name``, which plans from the budget, once per (run, checkpoint),
    one seed per thread task, with the rewards of the reward model ``model`` (``parameters``);
    the outputs are those of ``simulate_single`` (``scores``: the empirical means, -inf for an
    arm never pulled; empty to skip them)."""
    nb.literally(name)
    nb.literally(model)
    n_arms = values.shape[1]
    for i in nb.prange(keys.shape[0]):
        means = np.empty(n_arms)
        for c in range(budgets.shape[0]):
            greedy[i, c], reward_sum[i, c] = run_budget(
                name, model, keys[i, 0], keys[i, 1], values[i], parameters, budgets[c],
                pulls[i, c], means)
            p_best[i, c] = np.nan
            pass_rate[i, c] = np.nan
            finite[i, c] = True
            zero_signal[i, c] = 0
            if scores.shape[0] > 0:
                scores[i, c] = means


@inline_jit
def _of_arm(n_arms, per_arm, j, arm):  # pragma: no cover
    """Lane j's ``per_arm[arm]`` (``lane_entry``) for the arm ``arm`` (a double): a ``select``
    per arm, which vectorizes where a gather would not (``study.core.arms.pick``)."""
    entry = 0.0
    for k in range(n_arms):
        entry = select(arm == k, lane_entry(per_arm, k, j), entry)
    return entry


@inline_jit
def _answer(shaping, j, length, longest, lifted, spending, parameters, answered,
            rewards) -> None:  # pragma: no cover
    """Lane j's answer of ``length`` tokens: its verdict's reward in ``rewards[j]`` shaped by
    ``shaping`` (the constraint on while the lane has spent less than ``lifted``), and the
    tokens it costs (at most ``longest``) added to ``answered[j]``."""
    on = select(spending[j] < lifted, 1.0, 0.0)
    rewards[j] = shaped(shaping, rewards[j], length, on, parameters)
    answered[j] += select(length < longest, length, longest)


GEOMETRIC = 1
"""The token meter's length law code of answers drawn per rollout (0: every answer of an arm has
the arm's length)."""


@inline_jit
def meter_start(shaping, k0, k1, c1, budgets, parameters):  # pragma: no cover
    """A block's token meter's schedule of the ``LENGTH`` stream, the shaping's cut and the
    spending after which its constraint is lifted (the meter's per-lane arrays are the
    driver's own)."""
    return (stream_schedule(_LENGTH_C2, _LENGTH_C3, k0, k1, c1), cut(shaping, parameters),
            lifted_at(shaping, parameters) * np.float64(budgets[-1]))


@inline_jit
def draw_lengths(law, t, row, schedule, length_draws) -> None:  # pragma: no cover
    """The length draws of ``BUFFERED`` rollouts from rollout t on, where the answers' lengths
    are drawn (``GEOMETRIC``) and rollout t's draws start a buffer (``row`` 0)."""
    if law == GEOMETRIC and row == 0:
        draw_uniforms(t // 4, schedule, length_draws)


@inline_jit
def answers(shaping, law, n_arms, lanes, row, i, pulled, lengths, scale, length_draws, longest,
            lifted, spending, parameters, answered, rewards) -> None:  # pragma: no cover
    """Every lane's rollout i of the update as an answer: the answer to the arm in ``pulled[i]``
    has ``lengths[arm]`` tokens (``law`` 0), or 1 + floor(ln(1 - u) ``scale[arm]``) with u its
    length draw in row ``row`` (``GEOMETRIC``), ``lengths`` and ``scale`` the lanes' own where
    2-D (``lane_entry``); its reward in ``rewards[i]`` shaped by ``shaping`` and its tokens added to
    ``answered`` (``_answer``)."""
    if law == GEOMETRIC:
        for j in range(lanes):
            length = 1.0 + np.floor(fast_log(1.0 - length_draws[row, j])
                                    * _of_arm(n_arms, scale, j, pulled[i, j]))
            _answer(shaping, j, length, longest, lifted, spending, parameters, answered,
                    rewards[i])
    else:
        for j in range(lanes):
            _answer(shaping, j, _of_arm(n_arms, lengths, j, pulled[i, j]), longest,
                    lifted, spending, parameters, answered, rewards[i])


@inline_jit
def passing(lanes, in_tokens, group, answered, spending, cost, waits):  # pragma: no cover
    """The update's cost to each lane (the tokens its answers cost when ``in_tokens`` is 1, else
    its G rollouts) into ``cost``; how many lanes it takes past the budget they wait for. A
    lane's checkpoint B is its state after the most updates whose spending stays within B."""
    found = 0
    for j in range(np.uint64(lanes)):
        cost[j] = select(in_tokens == 1, answered[j], np.float64(group))
        found += np.int64(spending[j] + cost[j] > waits[j])
    return found


@inline_jit
def record_passed(name, j, update, group, budgets, spending, cost, due, waits, k0, k1, best,
                  values, grid, n_arms, scores, out, spent, tokens, lengths):  # pragma: no cover
    """Record lane j's checkpoints that the update passes (``_record``, and what the lane had
    spent, where ``spent``'s arrays are not empty), advance ``due[j]`` and ``waits[j]`` past them;
    1 if the lane has now passed its last checkpoint, else 0. Called only in the updates that
    pass a checkpoint (a scalar loop)."""
    spent_rollouts, spent_tokens, spent_length = spent
    finite = out[6]  # ``_record``'s outputs: greedy, p_best, pass_rate, reward_sum, pulls,
    # scores, finite, zero_signal
    last = budgets.shape[0]
    before = due[j]
    while due[j] < last and spending[j] + cost[j] > budgets[due[j]]:
        c = due[j]
        _record(name, j, c, budgets[c], k0[j], k1[j], best[j], values[j], grid, n_arms, scores,
                out)
        if spent_rollouts.shape[0] > 0:
            spent_rollouts[j, c] = update * group
            spent_tokens[j, c] = tokens[j]
            spent_length[j, c] = policy_mean(name, scores, lengths) if finite[j, c] else np.nan
        due[j] += 1
    waits[j] = budgets[due[j]] if due[j] < last else np.inf
    return np.int64(before < last and due[j] == last)


@inline_jit
def spend(lanes, cost, answered, spending, tokens) -> None:  # pragma: no cover
    """Every lane's update paid: its cost spent, its answers' tokens counted."""
    for j in range(np.uint64(lanes)):
        spending[j] += cost[j]
        tokens[j] += answered[j]


@jit
def simulate_tokens(name, n_arms, model, shaping, keys, lanes, values, best, lengths, law, scale,
                    parameters, shaping_parameters, lr, baseline, group, in_tokens, budgets, out,
                    spent, curves) -> None:  # pragma: no cover
    """``simulate_single`` (G = 1) and ``simulate_groups`` (G = ``group`` >= 2) for answers that
    cost tokens: the arm pulled at a rollout is an answer of ``lengths[arm]`` tokens (``law`` 0),
    or of 1 + floor(ln(1 - u) ``scale[arm]``) tokens with u its draw of the ``LENGTH`` stream
    (``GEOMETRIC``: a geometric length of mean l with ``scale`` = 1 / ln(1 - 1 / l), 0 for l =
    1); the verdict of the reward model ``model`` (with ``parameters``) shaped by the model
    ``shaping`` (with ``shaping_parameters``; ``model`` again, with the same parameters, for a
    verdict unshaped: ``study.core.reward_hooks``) by its length is what the learner sees, an
    answer longer than the shaping's ``cut`` costs that many tokens, and the constraint is lifted
    for the updates that start once a lane has spent ``lifted_at`` times the largest budget
    (numba compiles the driver once per learner, value of ``n_arms``, verdict and shaping).
    Its meter is ``draw_lengths``, ``answers``, ``passing`` and ``spend`` written out: called,
    even inlined, they made this driver 7 to 10% slower per rollout (groups of 8, interleaved
    runs against the driver written out), where the off-policy driver, whose update costs more,
    calls them.

    ``budgets`` count tokens when ``in_tokens`` is 1, else rollouts; a lane's checkpoint B is its
    state after the most updates whose spending stays within B (after floor(B / G) updates when
    counting rollouts, as the other drivers), so a lane passes its checkpoints at updates of its
    own and the block runs until its last lane has passed the largest. Besides ``out`` (those of
    ``simulate_single``) each checkpoint records ``spent``: the rollouts and tokens spent and the
    policy's expected answer length sum pi[k] l[k] (NaN where the state is not finite or the
    learner has no policy). ``curves`` (optimal, reward, seeds; empty to skip them) get the
    per-step sums of ``simulate_single``'s curves over the runs each rollout t belongs to, and
    their number (``add_metered_traces``: a run's rollouts are those of the updates before it
    passes its largest budget). With every length 1 and a shaping that returns the drawn reward,
    the runs are those of ``simulate_single`` and ``simulate_groups``, bit for bit: the same
    operations in the same order, the learning of an update moved after its checkpoints."""
    nb.literally(name)
    nb.literally(n_arms)
    nb.literally(model)
    nb.literally(shaping)
    arms = arm_count(n_arms, values.shape[1])
    used = keys.shape[0]
    s, grid, w, k0, k1, c1, main, mine, uniforms, own, scores = _start(
        arms, model, keys, lanes, values, best, np.zeros(keys.shape[0], np.uint64))
    length_schedule, longest, lifted = meter_start(shaping, k0, k1, c1, budgets,
                                                   shaping_parameters)
    length_draws = np.zeros((BUFFERED, lanes))
    pulled = aligned_rows(group, lanes)
    chosen = aligned(lanes)
    rewards = aligned_rows(group, lanes)
    advantage = aligned_rows(group, lanes)
    # Per lane: the update's cost, its answers' tokens, the budget spent (in the study's unit)
    # and the tokens spent, the next checkpoint due and the budget it waits for (inf once past
    # the last; the unused lanes of a partial block wait for nothing).
    cost = np.zeros(lanes)
    answered = np.zeros(lanes)
    spending = np.zeros(lanes)
    tokens = np.zeros(lanes)
    due = np.zeros(lanes, dtype=np.int64)
    waits = np.full(lanes, np.inf)
    waits[:used] = budgets[0]
    waiting = used
    update = 0
    width = np.uint64(lanes)
    while waiting > 0:
        _prepare(n_arms, name, arms, s, width, w)
        for j in range(width):
            answered[j] = 0.0
        for i in range(group):
            t = update * group + i
            row = _draw(t, main, mine, model, uniforms, own)
            if law == GEOMETRIC and row == 0:
                draw_uniforms(t // 4, length_schedule, length_draws)
            _rollouts(n_arms, name, model, arms, t, s, width, w, uniforms[2 * row],
                      uniforms[2 * row + 1], own[row], parameters, pulled[i], chosen, rewards[i])
            if law == GEOMETRIC:
                for j in range(width):
                    length = 1.0 + np.floor(fast_log(1.0 - length_draws[row, j])
                                            * _of_arm(arms, scale, j, pulled[i, j]))
                    _answer(shaping, j, length, longest, lifted, spending, shaping_parameters,
                            answered, rewards[i])
            else:
                for j in range(width):
                    _answer(shaping, j, _of_arm(arms, lengths, j, pulled[i, j]), longest, lifted,
                            spending, shaping_parameters, answered, rewards[i])
        # A lane's checkpoints are recorded (a scalar loop) only in the updates that pass one.
        passed = 0
        for j in range(np.uint64(lanes)):
            cost[j] = select(in_tokens == 1, answered[j], np.float64(group))
            passed += np.int64(spending[j] + cost[j] > waits[j])
        for j in range(used if passed > 0 else 0):
            waiting -= record_passed(name, j, update, group, budgets, spending, cost, due, waits,
                                     k0, k1, best, values, grid, arms, scores, out, spent, tokens,
                                     lengths)
        if waiting == 0:
            break
        if curves[0].shape[0] > 0:
            add_metered_traces(arms, s, width, w, used, group, update * group, pulled, rewards,
                               due, budgets.shape[0], curves)
        if group == 1:
            learn_one(name, arms, update, lr, baseline, s, width, w, pulled[0], rewards[0],
                      advantage[0])
        else:
            learn(name, arms, update * group, lr, baseline, s, width, w, pulled, rewards,
                  advantage)
        for j in range(np.uint64(lanes)):
            spending[j] += cost[j]
            tokens[j] += answered[j]
        update += 1
