"""Many prompts sharing one budget, each prompt's group drawn by the sampler, paid by the reward
and counted by the meter of ``study.core.offpolicy``'s driver: the nested driver of a
many-prompts study whose rollouts are stale, mismatched or truncated, or whose answers cost
tokens. Arrays in, arrays out.

A run's P prompts are the lanes of blocks of ``study.core.state.LANES`` (the block's state as a
single bandit's block of seeds, every lane keyed by the run's key and counting its draws with
the prompt's index as word 1 of the counter: prompt i's rollout m is main-stream block
(m div 2, i, 0, 0), as in ``study.core.prompts``). At the start of a pass the allocation rule
gives each prompt its group's size n_i (``study.core.allocation_hooks``; under a rule that
declares itself ``fixed``, uniform allocation, every n_i is G and every lane draws from one
stream block, else each lane from its own next rollout, a select per lane picking its draws,
and a rollout past its group is none).
The blocks first draw their groups (the sampler of the trainer's policy version ``lag``
versions ago, its answers, rewards and lengths), then, where a checkpoint falls inside the pass
or at its end, the pass's order of the prompts (``study.core.prompts.pass_order``) and what the
state was before it are read, and then the blocks learn. Checkpoint B records the state
after the longest run of groups, in the order they ran, whose cost (rollouts, or tokens where
the budgets count them) adds up to at most B, per difficulty band (``study.core.prompts``'
``record_bands``), and besides it the tokens spent on the band's prompts and the sums over
those whose logits are finite of the served policy's pass rate and the policy's expected answer
length.
A length shaping's constraint is lifted for the passes that start once the run has spent
``lifted_at`` times its largest budget. With lag 0, no mismatch, top_p 1, no correction, no KL
term and answers of no length the runs are those of ``study.core.prompts.simulate_prompts``
under every rule and normalization, bit for bit (a test): the same draws, the same operations.
``reference/prompts.py`` is its executable spec.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from study.core.advantages import count_zero_signal, group_advantages
from study.core.allocation_hooks import allocated
from study.core.arms import padded
from study.core.bits import select
from study.core.hooks import prepare
from study.core.jit import inline_jit, jit
from study.core.kernel import (
    GEOMETRIC,
    _draw_own,
    _rewards,
    _start,
    answers,
    draw_uniforms,
    meter_start,
)
from study.core.offpolicy import (
    GRADIENT,
    POLICY,
    SAMPLER,
    SAMPLER_NORM,
    ZSCORE_EPSILON,
    _inverses,
    _kl_gradient,
    _sampler,
    _serve,
    _served_readout,
    _slot_row,
    _update,
)
from study.core.philox import stream_block, unit32
from study.core.prompt_rules import ABSENT, FLOOR, IDLE_PASSES, STUCK_GAIN, STUCK_WRONG_MASS
from study.core.prompts import pass_order, pass_rate, prompt_softmax, record_bands
from study.core.reward_hooks import draws_own, own_pair
from study.core.softmax import inverse_cdf
from study.core.state import (
    LANES,
    PARAMS,
    SCRATCH,
    STRIDE,
    VALUES,
    VECTOR,
    WEIGHTS,
    WORK_A,
    WORK_B,
    ZERO_SIGNAL,
    aligned,
    aligned_rows,
    arm_count,
    arm_row,
    lane_row,
    rows,
)

_ONE = np.uint64(1)
_TWO = np.uint64(2)
_THREE = np.uint64(3)
FLOOR_SIZE = np.float64(FLOOR)
"""A group's size below which no rule goes (``study.core.prompt_rules.FLOOR``), as a double."""


@jit
def _logits(arms, blocks, states, width, logits) -> None:  # pragma: no cover
    """Every prompt's logits (K, P) from its block's state: prompt i is lane i mod ``LANES`` of
    block i div ``LANES``."""
    for b in range(blocks):
        s = states[b][0]
        for j in range(min(width[b], logits.shape[1] - b * LANES)):
            for k in range(arms):
                logits[k, b * LANES + j] = s[arm_row(PARAMS, k) + j]


@jit
def _snapshot(arms, blocks, states, width, tokens, logits, zero_signal,
              spent_tokens) -> None:  # pragma: no cover
    """Every prompt's logits (K, P), updates without signal and tokens spent, from its block's
    state (``_logits``)."""
    _logits(arms, blocks, states, width, logits)
    for b in range(blocks):
        s = states[b][0]
        spent = tokens[b]
        for j in range(min(width[b], logits.shape[1] - b * LANES)):
            zero_signal[b * LANES + j] = np.int64(s[lane_row(ZERO_SIGNAL) + j])
            spent_tokens[b * LANES + j] = spent[j]


@jit
def _served(arms, blocks, states, v, scratch, width, update, mismatch, top_p, reading,
            served) -> None:  # pragma: no cover
    """Every prompt's served pass rate and mass on the best arms at ``update``
    (``study.core.offpolicy._serve``, into ``v``) into ``served`` (2, P)."""
    for b in range(blocks):
        s, k0, k1, c1 = states[b][:4]
        _serve(arms, s, v, np.uint64(width[b]), scratch, update, mismatch, top_p, k0, k1, c1)
        for j in range(width[b]):
            i = b * LANES + j
            if i >= served.shape[1]:
                break
            _served_readout(arms, s, v, j, reading)
            served[0, i] = reading[0]
            served[1, i] = reading[1]


@jit
def _columns(table, lo, used, lanes):  # pragma: no cover
    """Columns ``lo`` .. ``lo + used`` of ``table`` (a row per entry, a column per prompt) as a
    block's ``lanes`` lanes' (``study.core.kernel.of_lane``), 0 past ``used``."""
    out = np.zeros((table.shape[0], lanes))
    out[:, :used] = table[:, lo:lo + used]
    return out


@jit
def _record_extra(arms, band, best, logits, weights, norm, lengths, served, previous,
                  spent_tokens, extra, seed, checkpoint) -> None:  # pragma: no cover
    """Add every prompt's tokens spent, and for the prompts whose logits are finite their
    served pass rate and expected answer length (its policy ``weights`` (1 / ``norm``), as
    ``record_bands`` left them), to its band's row of ``extra``; with a sampler, count the
    prompts stuck (``prompt_rules.STUCK_WRONG_MASS``: the served policy, ``served`` row 1, puts
    that much of its mass or more on arms that are not best while the learner's mass on the
    best arms has not risen by ``STUCK_GAIN`` since ``previous``, the previous checkpoint's,
    which it then becomes; a prompt whose logits are not finite is stuck). An empty array of
    ``extra`` is skipped."""
    served_out, tokens_out, length_out, stuck_out = extra
    for i in range(logits.shape[1]):
        b = band[i]
        if tokens_out.shape[0] > 0:
            tokens_out[seed, checkpoint, b] += spent_tokens[i]
        finite = True
        for k in range(arms):
            finite = finite and np.isfinite(logits[k, i])
        if not finite:
            if stuck_out.shape[0] > 0:
                stuck_out[seed, checkpoint, b] += 1
                previous[i] = np.nan
            continue
        if served_out.shape[0] > 0:
            served_out[seed, checkpoint, b] += served[0, i]
            mass = pass_rate(arms, weights, norm, best, i)
            wrong = not (1.0 - served[1, i] < STUCK_WRONG_MASS)
            stuck_out[seed, checkpoint, b] += np.int64(
                wrong and not (mass > previous[i] + STUCK_GAIN))
            previous[i] = mass
        if tokens_out.shape[0] > 0:
            inverse = 1.0 / norm[i]
            length = 0.0
            for k in range(arms):
                length += (weights[k, i] * inverse) * lengths[k, i]
            length_out[seed, checkpoint, b] += length


@jit
def _block(arms, model, run_keys, lanes, values, best, prompts, shaping, budgets,
           shaping_parameters):  # pragma: no cover
    """A block of prompts' state and what its draws need (``study.core.kernel._start`` and
    ``meter_start``): the state, the lanes' keys and prompts, and the schedules of the main
    stream, the reward model's and the ``LENGTH`` stream."""
    s, _, _, k0, k1, c1, main, mine = _start(arms, model, run_keys, lanes, values, best,
                                             prompts)[:8]
    return s, k0, k1, c1, main, mine, meter_start(shaping, k0, k1, c1, budgets,
                                                  shaping_parameters)[0]


@jit
def _absent(arms, s, history, lag, present, lanes):  # pragma: no cover
    """A block's arms past each lane's prompt's arms ``present`` ``ABSENT``, in its state's
    logits and in every slot of its sampler's history (the logits before the first update, read
    while the update is below the lag), a lane past the block's prompts as its first; each
    lane's arms, as doubles."""
    counts = aligned(lanes)
    for j in range(lanes):
        lane = np.uint64(j)  # an unsigned offset (``study.core.state``)
        mine = present[j] if j < present.shape[0] else present[0]
        counts[j] = np.float64(mine)
        for k in range(mine, arms):
            s[arm_row(PARAMS, k) + lane] = ABSENT
            for slot in range(lag + 1):
                history[_slot_row(arms, slot, k) + lane] = ABSENT
    return counts


@inline_jit
def _own_arms(s, lanes, counts, pulled, values) -> None:  # pragma: no cover
    """Every lane's drawn arm held to its prompt's last (``counts``, its arms as doubles) and
    its value read again where it was past it: a state that is not finite has no weight on any
    arm, and the inverse CDF then gives the last of the K, which a prompt of fewer has not."""
    for j in range(lanes):
        last = counts[j] - 1.0
        past = pulled[j] > last
        pulled[j] = select(past, last, pulled[j])
        values[j] = select(past, s[arm_row(VALUES, np.uint64(last)) + np.uint64(j)], values[j])


@jit
def _lane_blocks(first, shift, count, schedule, out) -> None:  # pragma: no cover
    """Blocks (first[j] >> shift) + b, b < ``count``, of a stream (``schedule``) for every lane
    j: rows 4 b .. 4 b + 3 of ``out`` their four words as uniforms. A loop of its own, so that
    Philox vectorizes across the lanes."""
    for b in range(count):
        for j in range(first.shape[0]):
            w0, w1, w2, w3 = stream_block((first[j] >> shift) + np.uint64(b), schedule, j)
            out[4 * b, j] = unit32(w0)
            out[4 * b + 1, j] = unit32(w1)
            out[4 * b + 2, j] = unit32(w2)
            out[4 * b + 3, j] = unit32(w3)


@jit
def _lane_own(model, first, count, schedule, out) -> None:  # pragma: no cover
    """The reward model's own draws of blocks (first[j] >> 1) + b, b < ``count``, of every lane
    j: rows 2 b and 2 b + 1 of ``out``."""
    for b in range(count):
        for j in range(first.shape[0]):
            w0, w1, w2, w3 = stream_block((first[j] >> _ONE) + np.uint64(b), schedule, j)
            z0, z1 = own_pair(model, w0, w1, w2, w3)
            out[2 * b, j] = z0
            out[2 * b + 1, j] = z1


@jit
def _room(room):  # pragma: no cover
    """Room for a block's group of at most ``room`` rollouts (its advantages and weights, the
    weights 1.0) and for a pass's draws of one block (its n rollouts span at most n div 2 + 1
    main-stream blocks of 4 rows, and n div 4 + 2 blocks of the ``LENGTH`` stream), each taken
    as (rows, the block's lanes) from the front: a C-contiguous view."""
    factors = aligned(room * LANES)
    factors[:] = 1.0
    own = aligned(2 * (room // 2 + 1) * LANES)
    own[:] = 0.0
    return (aligned(room * LANES), factors, aligned(4 * (room // 2 + 1) * LANES), own,
            aligned(4 * (room // 4 + 2) * LANES))


@jit
def _run(name, n_arms, model, shaping, seed, keys, values, present, best, band, parameters, lr,
         leave_one_out, zscore, group, allocation, lag, mismatch, top_p,
         weight, weighting, bits, keep_mask, corrections, beta, estimator, meter, budgets, out,
         extra) -> None:  # pragma: no cover
    """Run ``seed`` of ``simulate_passes`` into row ``seed`` of ``out`` and ``extra``."""
    nb.literally(name)
    nb.literally(n_arms)
    nb.literally(model)
    nb.literally(shaping)
    arms = arm_count(n_arms, values.shape[2])
    prompts = values.shape[1]
    k0, k1 = keys[seed, 0], keys[seed, 1]
    lengths, law, scale, shaping_parameters, in_tokens = meter
    rule, fixed, reads_policy, per_batch = allocation
    counted = extra[1].shape[0] > 0
    sampling = extra[0].shape[0] > 0
    blocks = (prompts + LANES - 1) // LANES
    width = np.empty(blocks, dtype=np.int64)
    run_keys = np.empty((LANES, 2), dtype=np.uint64)
    run_keys[:, 0] = k0
    run_keys[:, 1] = k1
    # Each block's state and streams, sampler and history, and its group and meter, kept
    # across the pass's two halves (the draws, then the learning); what a half uses and leaves
    # is one array for every block, so that a pass's blocks share the cache.
    states = [_block(arms, model, run_keys[:1], VECTOR, values[seed, :1], best[seed, :1],
                     np.zeros(1, np.uint64), shaping, budgets, shaping_parameters)]
    states.clear()
    samplers = []
    histories = []
    arm_counts = []  # each block's lanes' arms, as doubles
    # Each block's lanes' verdict parameters, answer lengths and their geometric scales, a
    # column per lane.
    verdicts = []
    answer_lengths = []
    answer_scales = []
    # Whether some prompt has fewer arms than K: its draws are then held to its own arms.
    uneven = present.min() < arms
    pulled = []
    rewards = []
    answered = []
    tokens = []
    # Room for the longest group so far (a rule may give a prompt more than G), grown when a
    # pass needs more.
    room = group
    for b in range(blocks):
        lo = b * LANES
        used = min(LANES, prompts - lo)
        lanes = min(LANES, (used + VECTOR - 1) // VECTOR * VECTOR)
        width[b] = lanes
        states.append(_block(arms, model, run_keys[:used], lanes, values[seed, lo:lo + used],
                             best[seed, lo:lo + used],
                             np.arange(lo, lo + used).astype(np.uint64), shaping, budgets,
                             shaping_parameters))
        o = aligned(rows(padded(arms)) * STRIDE)
        o[:] = 1.0  # KEPT: all, as with top_p 1
        samplers.append(o)
        histories.append(np.zeros(np.int64(_slot_row(arms, lag + 1, 0))))
        arm_counts.append(_absent(arms, states[b][0], histories[b], lag,
                                  present[lo:lo + used], lanes))
        verdicts.append(_columns(parameters, lo, used, lanes))
        answer_lengths.append(_columns(lengths, lo, used, lanes))
        answer_scales.append(_columns(scale, lo, used, lanes))
        pulled.append(aligned_rows(room, lanes))
        rewards.append(aligned_rows(room, lanes))
        answered.append(np.zeros(lanes))
        tokens.append(np.zeros(lanes))
    _, longest, lifted = meter_start(shaping, run_keys[:1, 0], run_keys[:1, 1],
                                     np.zeros(1, np.uint64), budgets, shaping_parameters)
    w = aligned(SCRATCH * STRIDE)
    v = aligned(rows(padded(arms)) * STRIDE)  # a block's served policy, laid out as a sampler
    v[:] = 1.0
    chosen = aligned(LANES)
    spending = np.empty(LANES)
    # Per lane of a block in a pass: its group size, its first rollout, whether that is odd,
    # its rollout's draws, its reward sum and whether its update had no signal.
    lane_size = aligned(LANES)
    lane_first = np.zeros(LANES, dtype=np.uint64)
    lane_odd = aligned(LANES)
    drawn = aligned_rows(3, LANES)
    length_drawn = aligned_rows(1, LANES)
    paid_before = aligned(LANES)
    quiet = aligned(LANES)
    advantage, factors, uniforms, own, length_draws = _room(room)
    sizes = np.full(prompts, group, dtype=np.int64)
    rollouts = np.zeros(prompts, dtype=np.int64)
    groups = np.zeros(prompts, dtype=np.int64)
    run = np.zeros(prompts, dtype=np.int64)
    passed = np.zeros(prompts, dtype=np.int64)
    failed = np.zeros(prompts, dtype=np.int64)
    work = np.empty((2, prompts), dtype=np.int64)
    cost = np.empty(prompts)
    order = np.empty(prompts, dtype=np.int64)
    ends = np.empty(prompts)
    scratch = np.empty(prompts)
    before = np.empty((arms, prompts))
    after = np.empty((arms, prompts))
    mixed = np.empty((arms, prompts))
    # The rule's policies, NaN unless it declares that it reads them (a rule that reads them
    # without saying so gets NaN, not a checkpoint's numbers: those are ``shown``).
    weights = np.full((arms, prompts), np.nan)
    norm = np.full(prompts, np.nan)
    shown = np.empty((arms, prompts))
    shown_norm = np.empty(prompts)
    zero_before = np.empty(prompts, dtype=np.int64)
    zero_after = np.empty(prompts, dtype=np.int64)
    tokens_before = np.empty(prompts)
    tokens_after = np.empty(prompts)
    served_before = np.zeros((2, prompts))
    served_after = np.zeros((2, prompts))
    counts = np.empty((3, prompts), dtype=np.int64)
    spent_mixed = np.empty(prompts)
    served_mixed = np.empty((2, prompts))
    # Each prompt's learner mass on its best arms at the previous checkpoint, from the untrained
    # policy's (the best arms' share of the arms).
    previous = np.empty(prompts)
    for i in range(prompts):
        previous[i] = best[seed, i].sum() / present[i]
    reading = np.empty(2)
    scale_step = lr * (1.0 / group)
    spent = 0.0
    checkpoint = 0
    update = 0  # the passes that ran a group: the trainer's policy versions
    r = 0
    idle = 0
    while checkpoint < budgets.shape[0]:
        if not fixed:
            # The rule's sizes, from every prompt's policy at the pass's start where it reads
            # them (K exponentials per prompt: no small part of a pass of groups of a few).
            if reads_policy:
                _logits(arms, blocks, states, width, mixed)
                prompt_softmax(arms, mixed, weights, norm)
            allocated(rule, arms, group, r, k0, k1, values[seed], weights, norm, run, passed,
                      failed, scratch, work, sizes)
        r += 1
        if sizes.sum() == 0:  # every prompt skipped: nothing ran
            idle += 1
            if idle == IDLE_PASSES:
                _snapshot(arms, blocks, states, width, tokens, before, zero_before,
                          tokens_before)
                if sampling:
                    _served(arms, blocks, states, v, w, width, update, mismatch, top_p,
                            reading, served_before)
                while checkpoint < budgets.shape[0]:
                    _record_mixed(arms, budgets[checkpoint], k0, k1, values[seed], best[seed],
                                  band[seed], ends, sizes, before, before, zero_before,
                                  zero_before, tokens_before, tokens_before, served_before,
                                  served_before, rollouts, groups, lengths, mixed, shown,
                                  shown_norm, counts, spent_mixed, served_mixed, previous,
                                  out, extra, seed, checkpoint, True)
                    checkpoint += 1
            continue
        idle = 0
        most = sizes.max()
        if most > room:
            room = most
            for b in range(blocks):
                pulled[b] = aligned_rows(room, width[b])
                rewards[b] = aligned_rows(room, width[b])
            advantage, factors, uniforms, own, length_draws = _room(room)
        first = update * group
        main_first = first // 2
        length_first = first // 4
        spending[:] = spent
        end = spent
        for b in range(blocks):
            s, bk0, bk1, c1, main, mine, length_schedule = states[b]
            o = samplers[b]
            lo = b * LANES
            used = min(LANES, prompts - lo)
            wide = width[b]
            lanes = np.uint64(wide)
            prepare(name, arms, s, lanes, w)
            _sampler(arms, s, o, lanes, w, update, histories[b], lag, mismatch, top_p, bk0, bk1,
                     c1)
            paid = answered[b]
            paid[:] = 0.0
            judged = verdicts[b]
            lane_lengths = answer_lengths[b]
            lane_scales = answer_scales[b]
            if fixed:
                # Every lane's group is G rollouts from rollout update G on: one stream block
                # for every lane.
                longest_b = group
                drawn_blocks = (first + group - 1) // 2 - main_first + 1
                block_uniforms = uniforms[:4 * drawn_blocks * wide].reshape((4 * drawn_blocks,
                                                                             wide))
                draw_uniforms(main_first, main, block_uniforms)
                block_own = own[:2 * drawn_blocks * wide].reshape((2 * drawn_blocks, wide))
                if draws_own(model):
                    _draw_own(model, main_first, mine, block_own)
                length_rows = 4 * ((first + group - 1) // 4 - length_first + 1)
                block_lengths = length_draws[:length_rows * wide].reshape((length_rows, wide))
                if counted and law == GEOMETRIC:
                    draw_uniforms(length_first, length_schedule, block_lengths)
            else:
                # Each lane's group of its own size from its own next rollout: each lane's
                # stream blocks, its rollouts' draws picked by a select per lane.
                longest_b = 0
                for j in range(wide):
                    n = sizes[lo + j] if j < used else 0
                    m = rollouts[lo + j] if j < used else 0
                    lane_size[j] = np.float64(n)
                    lane_first[j] = np.uint64(m)
                    lane_odd[j] = np.float64(m & 1)
                    longest_b = max(longest_b, n)
                # Rows up to 2 (n - 1) + 3 of the draws, whether the lane starts odd or not.
                drawn_blocks = (longest_b + 2) // 2
                block_uniforms = uniforms[:4 * drawn_blocks * wide].reshape((4 * drawn_blocks,
                                                                             wide))
                block_own = own[:2 * drawn_blocks * wide].reshape((2 * drawn_blocks, wide))
                length_rows = 4 * ((longest_b + 2) // 4 + 1)
                block_lengths = length_draws[:length_rows * wide].reshape((length_rows, wide))
                if longest_b > 0:
                    _lane_blocks(lane_first[:wide], _ONE, drawn_blocks, main, block_uniforms)
                    if draws_own(model):
                        _lane_own(model, lane_first[:wide], drawn_blocks, mine, block_own)
                    if counted and law == GEOMETRIC:
                        _lane_blocks(lane_first[:wide], _TWO, length_rows // 4,
                                     length_schedule, block_lengths)
            for i in range(longest_b):
                if fixed:
                    row = first + i - 2 * main_first
                    u_action = block_uniforms[2 * row]
                    u_reward = block_uniforms[2 * row + 1]
                    u_own = block_own[row]
                    u_length = block_lengths[first + i - 4 * length_first:]
                else:
                    for j in range(wide):
                        starts_odd = lane_odd[j] != 0.0
                        drawn[0, j] = select(starts_odd, block_uniforms[2 * i + 2, j],
                                             block_uniforms[2 * i, j])
                        drawn[1, j] = select(starts_odd, block_uniforms[2 * i + 3, j],
                                             block_uniforms[2 * i + 1, j])
                        drawn[2, j] = select(starts_odd, block_own[i + 1, j], block_own[i, j])
                        paid_before[j] = paid[j]
                    if counted and law == GEOMETRIC:
                        for j in range(wide):
                            at = (lane_first[j] & _THREE) + np.uint64(i)
                            pick = block_lengths[i, j]
                            for q in range(1, 4):
                                pick = select(at == np.uint64(i + q), block_lengths[i + q, j],
                                              pick)
                            length_drawn[0, j] = pick
                    u_action = drawn[0, :wide]
                    u_reward = drawn[1, :wide]
                    u_own = drawn[2, :wide]
                    # The whole row, not a slice: a slice's layout is not known to be
                    # contiguous, and unified with the other branch's it would keep the
                    # length draws' lane loop scalar.
                    u_length = length_drawn
                inverse_cdf(arms, o, SAMPLER, lane_row(SAMPLER_NORM), u_action, lanes, w, s,
                            pulled[b][i], chosen)
                if uneven:
                    _own_arms(s, lanes, arm_counts[b], pulled[b][i], chosen)
                _rewards(model, lanes, chosen, u_reward, u_own, judged, rewards[b][i])
                if counted:
                    answers(shaping, law, arms, lanes, 0, i, pulled[b], lane_lengths,
                            lane_scales, u_length, longest, lifted, spending,
                            shaping_parameters, paid, rewards[b])
                if not fixed:
                    # A rollout past a lane's group is no rollout: reward 0, no tokens. (The
                    # row taken out of the list once: a list's item read in the lane loop is
                    # read again at every lane, and the loop stays scalar.)
                    reward_row = rewards[b][i]
                    for j in range(wide):
                        keep = i < lane_size[j]
                        reward_row[j] = select(keep, reward_row[j], 0.0)
                        paid[j] = select(keep, paid[j], paid_before[j])
            for j in range(used):
                spend_j = paid[j] if in_tokens == 1 else np.float64(sizes[lo + j])
                cost[lo + j] = spend_j
                end += spend_j
        inside = budgets[checkpoint] < end
        at_end = budgets[checkpoint] <= end
        if inside:
            pass_order(r - 1, k0, k1, scratch, order)
            finished = spent
            for q in range(prompts):
                finished += cost[order[q]]
                ends[order[q]] = finished
            _snapshot(arms, blocks, states, width, tokens, before, zero_before, tokens_before)
            if sampling:
                _served(arms, blocks, states, v, w, width, update, mismatch, top_p, reading,
                        served_before)
        for b in range(blocks):
            s = states[b][0]
            o = samplers[b]
            lo = b * LANES
            used = min(LANES, prompts - lo)
            wide = width[b]
            lanes = np.uint64(wide)
            if fixed:
                size = group * wide
                lane_size[:] = np.float64(group)
                _learn(arms, s, o, lanes, pulled[b][:group], rewards[b][:group],
                       advantage[:size].reshape((group, wide)),
                       factors[:size].reshape((group, wide)), leave_one_out, zscore,
                       keep_mask, beta, estimator, lr, scale_step, weight, weighting, bits,
                       corrections, lane_size, quiet, False, per_batch, group, arm_counts[b])
                for j in range(used):
                    rollouts[lo + j] += group
                    groups[lo + j] += 1
            else:
                longest_b = 0
                for j in range(wide):
                    n = sizes[lo + j] if j < used else 0
                    lane_size[j] = np.float64(n)
                    longest_b = max(longest_b, n)
                if longest_b == 0:
                    continue
                size = longest_b * wide
                _learn(arms, s, o, lanes, pulled[b][:longest_b], rewards[b][:longest_b],
                       advantage[:size].reshape((longest_b, wide)),
                       factors[:size].reshape((longest_b, wide)), leave_one_out, zscore,
                       keep_mask, beta, estimator, lr, 1.0, weight, weighting, bits,
                       corrections, lane_size, quiet, True, per_batch, group, arm_counts[b])
                for j in range(used):
                    n = sizes[lo + j]
                    if n > 0:
                        total = np.int64(s[lane_row(WORK_A) + j])
                        rollouts[lo + j] += n
                        groups[lo + j] += 1
                        run[lo + j] = run[lo + j] + 1 if quiet[j] != 0.0 else 0
                        passed[lo + j] = total
                        failed[lo + j] = n - total
            for j in range(wide):
                tokens[b][j] += answered[b][j]
        if at_end:
            _snapshot(arms, blocks, states, width, tokens, after, zero_after, tokens_after)
            if sampling:
                _served(arms, blocks, states, v, w, width, update + 1, mismatch, top_p,
                        reading, served_after)
        while checkpoint < budgets.shape[0] and budgets[checkpoint] <= end:
            _record_mixed(arms, budgets[checkpoint], k0, k1, values[seed], best[seed],
                          band[seed], ends, sizes, before, after, zero_before, zero_after,
                          tokens_before, tokens_after, served_before, served_after, rollouts,
                          groups, lengths, mixed, shown, shown_norm, counts, spent_mixed,
                          served_mixed, previous, out, extra, seed, checkpoint,
                          budgets[checkpoint] == end)
            checkpoint += 1
        spent = end
        update += 1


@jit
def _record_mixed(arms, budget, k0, k1, values, best, band, ends, sizes, before, after,
                  zero_before, zero_after, tokens_before, tokens_after, served_before,
                  served_after, rollouts, groups, lengths, mixed, weights, norm, counts,
                  spent_mixed, served_mixed, previous, out, extra, seed, checkpoint,
                  at_end) -> None:  # pragma: no cover
    """Record checkpoint ``checkpoint`` (budget ``budget``) inside a pass or at its end: each
    prompt's state after its group where the group ran and ended within the budget in the pass's
    order (``ends``), else before it (``rollouts`` and ``groups`` are the counts after the
    pass); ``at_end``, every prompt's state after the pass, a skipped one's served policy too
    (its sampler a version on, as the next pass reads it; neither the pass's order nor the
    state before it is read, and neither is made where no checkpoint falls inside the pass)."""
    for i in range(mixed.shape[1]):
        ran = at_end or (sizes[i] > 0 and ends[i] <= budget)
        for k in range(arms):
            mixed[k, i] = after[k, i] if ran else before[k, i]
        counts[0, i] = rollouts[i] if ran else rollouts[i] - sizes[i]
        counts[1, i] = groups[i] if ran or sizes[i] == 0 else groups[i] - 1
        counts[2, i] = zero_after[i] if ran else zero_before[i]
        spent_mixed[i] = tokens_after[i] if ran else tokens_before[i]
        for row in range(2):
            served_mixed[row, i] = served_after[row, i] if ran else served_before[row, i]
    record_bands(arms, budget, k0, k1, values, best, band, mixed, weights, norm, counts[0],
                 counts[1], counts[2], out, seed, checkpoint)
    _record_extra(arms, band, best, mixed, weights, norm, lengths, served_mixed, previous,
                  spent_mixed, extra, seed, checkpoint)


@inline_jit
def _learn(arms, s, o, lanes, pulled, rewards, advantage, factors, leave_one_out, zscore,
           keep_mask, beta, estimator, lr, scale_step, weight, weighting, bits, corrections,
           sizes, quiet, sized, per_batch, group, present) -> None:  # pragma: no cover
    """A block's group update, as ``study.core.offpolicy.simulate_offpolicy``'s; with
    ``sized``, lane j's group is its first ``sizes[j]`` rollouts (a double; 0: no update),
    its advantages 0 past it and its step lr (1 / n_j), or lr (1 / G) with ``per_batch``,
    taken into the advantages (``scale_step`` then 1.0), as ``study.core.prompts``' group
    update takes it; ``quiet`` 1.0 for a lane whose advantages were all 0. Inlined: as a
    function of its own its lane loops stayed scalar (its arrays arrive as arguments; half the
    speed per rollout at lag 4 with TIS)."""
    base, spare = lane_row(WORK_A), lane_row(WORK_B)
    if sized:
        _sized_advantages(s, base, spare, lanes, rewards, advantage, sizes, leave_one_out,
                          zscore, quiet)
        # A lane's rate once, not a division per rollout.
        for j in range(lanes):
            s[spare + j] = lr * (1.0 / select(per_batch, np.float64(group),
                                              max(sizes[j], FLOOR_SIZE)))
        for i in range(rewards.shape[0]):
            for j in range(lanes):
                advantage[i, j] = s[spare + j] * advantage[i, j]
    else:
        group_advantages(s, base, spare, lanes, rewards, advantage, leave_one_out, zscore,
                         ZSCORE_EPSILON)
        count_zero_signal(s, spare, lane_row(ZERO_SIGNAL), lanes, advantage)
    _inverses(arms, s, o, lanes, keep_mask)
    if beta > 0.0:
        _kl_gradient(arms, s, o, lanes, estimator, pulled, sizes, present)
    if keep_mask:
        _update(arms, s, o, o, POLICY, lanes, scale_step, pulled, advantage, weight, weighting,
                bits, corrections, factors)
    else:
        _update(arms, s, o, s, WEIGHTS, lanes, scale_step, pulled, advantage, weight, weighting,
                bits, corrections, factors)
    if beta > 0.0:
        step = lr * beta
        for j in range(lanes):
            ran = sizes[j] > 0.0
            for k in range(arms):
                s[arm_row(PARAMS, k) + j] -= select(ran, step * o[arm_row(GRADIENT, k) + j],
                                                    0.0)


@inline_jit
def _sized_advantages(s, base, spare, lanes, rewards, advantage, sizes, leave_one_out, zscore,
                      quiet) -> None:  # pragma: no cover
    """``study.core.advantages.group_advantages`` for groups of lane j's own size n_j (rows past
    it: reward 0, advantage 0), n_j in the place of G (at least 2, so that a lane without a
    group divides by a number); the reward sum left in row ``base``; ``quiet`` 1.0 where every
    advantage is 0, and the ``ZERO_SIGNAL`` row counts the lanes that ran such an update."""
    for j in range(lanes):
        s[base + j] = 0.0
    for i in range(rewards.shape[0]):
        for j in range(lanes):
            s[base + j] += rewards[i, j]
    for i in range(rewards.shape[0]):
        for j in range(lanes):
            size = max(sizes[j], FLOOR_SIZE)
            r = rewards[i, j]
            a = select(leave_one_out, r - (s[base + j] - r) / (size - 1.0),
                       r - s[base + j] / size)
            advantage[i, j] = select(i < sizes[j], a, 0.0)
    if zscore:
        for j in range(lanes):
            s[spare + j] = 0.0
        for i in range(rewards.shape[0]):
            for j in range(lanes):
                s[spare + j] += advantage[i, j] * advantage[i, j]
        for j in range(lanes):
            s[spare + j] = np.sqrt(s[spare + j] / (max(sizes[j], FLOOR_SIZE) - 1.0)) + (
                ZSCORE_EPSILON)
        for i in range(rewards.shape[0]):
            for j in range(lanes):
                advantage[i, j] = advantage[i, j] / s[spare + j]
    for j in range(lanes):
        quiet[j] = 1.0
    for i in range(rewards.shape[0]):
        for j in range(lanes):
            quiet[j] = select(advantage[i, j] == 0.0, quiet[j], 0.0)
    for j in range(lanes):
        s[lane_row(ZERO_SIGNAL) + j] += select((sizes[j] > 0.0) & (quiet[j] == 1.0), 1.0, 0.0)


@jit
def simulate_passes(name, n_arms, model, shaping, keys, values, present, best, band, parameters,
                    lr, leave_one_out, zscore, group, allocation, lag, mismatch, top_p, weight,
                    weighting, bits, keep_mask, corrections, beta, estimator, meter, budgets, out,
                    extra) -> None:  # pragma: no cover
    """Simulate one run per row of ``keys`` (uint64, (runs, 2)) on P prompts of K arms,
    ``values``, ``present``, ``best`` and ``band`` as ``study.core.prompts.simulate_prompts``
    takes them,
    their groups' sizes those of the allocation rule ``allocation`` = (its code
    (``study.core.allocation_hooks``), whether it gives every prompt G = ``group`` every pass,
    whether it reads the prompts' policies, whether the steps are normalised per batch), their
    groups drawn from the sampler and under the correction and KL term of
    ``study.core.offpolicy.simulate_offpolicy`` (its arguments of the same names), their
    answers metered by ``meter`` (its ``meter``: the budgets count tokens where ``in_tokens``
    is 1), each prompt with its own verdict's ``parameters`` (float64, (parameters, P)) and its
    own answer lengths and their scales (the meter's first and third, (K, P), or (0, P) where
    answers have no lengths). ``out`` as ``simulate_prompts``'; ``extra`` (served pass rate,
    tokens, expected length), each (runs, checkpoints, groups) float64 and zeroed, or empty
    where the sampler is the learner (the first) or the answers have no lengths (the other
    two)."""
    nb.literally(name)
    nb.literally(n_arms)
    nb.literally(model)
    nb.literally(shaping)
    for seed in range(keys.shape[0]):
        _run(name, n_arms, model, shaping, np.int64(seed), keys, values, present, best, band,
             parameters, lr, leave_one_out, zscore, group, allocation, lag, mismatch, top_p, weight,
             weighting, bits, keep_mask, corrections, beta, estimator, meter, budgets, out,
             extra)
