"""Many prompts sharing one budget, each prompt's group drawn by the sampler, paid by the reward
and counted by the meter of ``study.core.offpolicy``'s driver: the nested driver of a
many-prompts study whose rollouts are stale, mismatched or truncated, or whose answers cost
tokens. Arrays in, arrays out.

A run's P prompts are the lanes of blocks of ``study.core.state.LANES`` (the block's state as a
single bandit's block of seeds, every lane keyed by the run's key and counting its draws with
the prompt's index as word 1 of the counter: prompt i's rollout m is main-stream block
(m div 2, i, 0, 0), as in ``study.core.prompts``). Every pass gives every prompt a group of G
(uniform allocation): the blocks first draw their groups (the sampler of the trainer's policy
version ``lag`` passes ago, its answers, rewards and lengths), then, where a checkpoint falls
inside the pass, the pass's order of the prompts (``study.core.prompts.pass_order``) and what
the state was before it are read, and then the blocks learn. Checkpoint B records the state
after the longest run of groups, in the order they ran, whose cost (rollouts, or tokens where
the budgets count them) adds up to at most B, per difficulty band (``study.core.prompts``'
``record_bands``), and besides it the tokens spent on the band's prompts and the sums over
those whose logits are finite of the served policy's pass rate and the policy's expected answer
length.
A length shaping's constraint is lifted for the passes that start once the run has spent
``lifted_at`` times its largest budget. With lag 0, no mismatch, top_p 1, no correction, no KL
term and answers of no length the runs are those of ``study.core.prompts.simulate_prompts``
under uniform allocation, bit for bit (a test): the same draws, the same operations.
``reference/prompts.py`` is its executable spec.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from study.core.advantages import count_zero_signal, group_advantages
from study.core.arms import padded
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
from study.core.prompts import pass_order, record_bands
from study.core.reward_hooks import draws_own
from study.core.softmax import inverse_cdf
from study.core.state import (
    LANES,
    PARAMS,
    SCRATCH,
    STRIDE,
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


@jit
def _snapshot(arms, blocks, states, width, tokens, logits, zero_signal,
              spent_tokens) -> None:  # pragma: no cover
    """Every prompt's logits (K, P), updates without signal and tokens spent, from its block's
    state: prompt i is lane i mod ``LANES`` of block i div ``LANES``."""
    for b in range(blocks):
        s = states[b][0]
        for j in range(width[b]):
            i = b * LANES + j
            if i >= logits.shape[1]:
                break
            for k in range(arms):
                logits[k, i] = s[arm_row(PARAMS, k) + j]
            zero_signal[i] = np.int64(s[lane_row(ZERO_SIGNAL) + j])
            spent_tokens[i] = tokens[b][j]


@jit
def _served(arms, blocks, states, v, scratch, width, update, mismatch, top_p, reading,
            served) -> None:  # pragma: no cover
    """Every prompt's served pass rate at ``update`` (``study.core.offpolicy._serve``, into
    ``v``) into ``served`` (P,)."""
    for b in range(blocks):
        s, k0, k1, c1 = states[b][:4]
        _serve(arms, s, v, np.uint64(width[b]), scratch, update, mismatch, top_p, k0, k1, c1)
        for j in range(width[b]):
            i = b * LANES + j
            if i >= served.shape[0]:
                break
            _served_readout(arms, s, v, j, reading)
            served[i] = reading[0]


@jit
def _record_extra(arms, band, logits, weights, norm, lengths, served, spent_tokens, extra, seed,
                  checkpoint) -> None:  # pragma: no cover
    """Add every prompt's tokens spent, and for the prompts whose logits are finite their
    served pass rate and expected answer length (its policy ``weights`` (1 / ``norm``), as
    ``record_bands`` left them), to its band's row of ``extra``; an empty array of ``extra`` is
    skipped."""
    served_out, tokens_out, length_out = extra
    for i in range(logits.shape[1]):
        b = band[i]
        if tokens_out.shape[0] > 0:
            tokens_out[seed, checkpoint, b] += spent_tokens[i]
        finite = True
        for k in range(arms):
            finite = finite and np.isfinite(logits[k, i])
        if not finite:
            continue
        if served_out.shape[0] > 0:
            served_out[seed, checkpoint, b] += served[i]
        if tokens_out.shape[0] > 0:
            inverse = 1.0 / norm[i]
            length = 0.0
            for k in range(arms):
                length += (weights[k, i] * inverse) * lengths[k]
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
def _run(name, n_arms, model, shaping, seed, keys, values, best, band, parameters, lr,
         leave_one_out, zscore, group, lag, mismatch, top_p, weight, weighting, bits, keep_mask,
         corrections, beta, estimator, meter, budgets, out, extra) -> None:  # pragma: no cover
    """Run ``seed`` of ``simulate_passes`` into row ``seed`` of ``out`` and ``extra``."""
    nb.literally(name)
    nb.literally(n_arms)
    nb.literally(model)
    nb.literally(shaping)
    arms = arm_count(n_arms, values.shape[2])
    prompts = values.shape[1]
    k0, k1 = keys[seed, 0], keys[seed, 1]
    lengths, law, scale, shaping_parameters, in_tokens = meter
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
    pulled = []
    rewards = []
    answered = []
    tokens = []
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
        pulled.append(aligned_rows(group, lanes))
        rewards.append(aligned_rows(group, lanes))
        answered.append(np.zeros(lanes))
        tokens.append(np.zeros(lanes))
    _, longest, lifted = meter_start(shaping, run_keys[:1, 0], run_keys[:1, 1],
                                     np.zeros(1, np.uint64), budgets, shaping_parameters)
    w = aligned(SCRATCH * STRIDE)
    v = aligned(rows(padded(arms)) * STRIDE)  # a block's served policy, laid out as a sampler
    v[:] = 1.0
    chosen = aligned(LANES)
    spending = np.empty(LANES)
    # Room for a block's group and a pass's draws of one block (its G rollouts span at most
    # G div 2 + 1 main-stream blocks of 4 rows and G div 4 + 2 blocks of the LENGTH stream),
    # each taken as (rows, the block's lanes) from the front: a C-contiguous view.
    advantage = aligned(group * LANES)
    factors = aligned(group * LANES)
    factors[:] = 1.0
    uniforms = aligned(4 * (group // 2 + 1) * LANES)
    own = aligned(2 * (group // 2 + 1) * LANES)
    own[:] = 0.0
    length_draws = aligned(4 * (group // 4 + 2) * LANES)
    cost = np.empty(prompts)
    order = np.empty(prompts, dtype=np.int64)
    ends = np.empty(prompts)
    scratch = np.empty(prompts)
    before = np.empty((arms, prompts))
    after = np.empty((arms, prompts))
    mixed = np.empty((arms, prompts))
    weights = np.empty((arms, prompts))
    norm = np.empty(prompts)
    zero_before = np.empty(prompts, dtype=np.int64)
    zero_after = np.empty(prompts, dtype=np.int64)
    tokens_before = np.empty(prompts)
    tokens_after = np.empty(prompts)
    served_before = np.zeros(prompts)
    served_after = np.zeros(prompts)
    counts = np.empty((3, prompts), dtype=np.int64)
    spent_mixed = np.empty(prompts)
    served_mixed = np.empty(prompts)
    reading = np.empty(2)
    scale_step = lr * (1.0 / group)
    spent = 0.0
    checkpoint = 0
    update = 0
    while checkpoint < budgets.shape[0]:
        first = update * group
        main_first = first // 2
        drawn = (first + group - 1) // 2 - main_first + 1
        length_first = first // 4
        spending[:] = spent
        end = spent
        for b in range(blocks):
            s, bk0, bk1, c1, main, mine, length_schedule = states[b]
            o = samplers[b]
            lanes = np.uint64(width[b])
            prepare(name, arms, s, lanes, w)
            _sampler(arms, s, o, lanes, w, update, histories[b], lag, mismatch, top_p, bk0, bk1,
                     c1)
            block_uniforms = uniforms[:4 * drawn * width[b]].reshape((4 * drawn, width[b]))
            draw_uniforms(main_first, main, block_uniforms)
            block_own = own[:2 * drawn * width[b]].reshape((2 * drawn, width[b]))
            if draws_own(model):
                _draw_own(model, main_first, mine, block_own)
            length_rows = 4 * ((first + group - 1) // 4 - length_first + 1)
            block_lengths = length_draws[:length_rows * width[b]].reshape((length_rows,
                                                                           width[b]))
            if counted and law == GEOMETRIC:
                draw_uniforms(length_first, length_schedule, block_lengths)
            paid = answered[b]
            paid[:] = 0.0
            for i in range(group):
                row = first + i - 2 * main_first
                inverse_cdf(arms, o, SAMPLER, lane_row(SAMPLER_NORM), block_uniforms[2 * row],
                            lanes, w, s, pulled[b][i], chosen)
                _rewards(model, lanes, chosen, block_uniforms[2 * row + 1], block_own[row],
                         parameters, rewards[b][i])
                if counted:
                    answers(shaping, law, arms, lanes, first + i - 4 * length_first, i,
                            pulled[b], lengths, scale, block_lengths, longest, lifted,
                            spending, shaping_parameters, paid, rewards[b])
            for j in range(min(LANES, prompts - b * LANES)):
                spend_j = paid[j] if in_tokens == 1 else np.float64(group)
                cost[b * LANES + j] = spend_j
                end += spend_j
        inside = budgets[checkpoint] < end
        if inside:
            pass_order(update, k0, k1, scratch, order)
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
            lanes = np.uint64(width[b])
            size = group * width[b]
            _learn(arms, s, o, lanes, pulled[b], rewards[b],
                   advantage[:size].reshape((group, width[b])),
                   factors[:size].reshape((group, width[b])), leave_one_out, zscore, keep_mask,
                   beta, estimator, lr, scale_step, weight, weighting, bits, corrections)
            for j in range(width[b]):
                tokens[b][j] += answered[b][j]
        if inside:
            _snapshot(arms, blocks, states, width, tokens, after, zero_after, tokens_after)
            if sampling:
                _served(arms, blocks, states, v, w, width, update + 1, mismatch, top_p,
                        reading, served_after)
        while checkpoint < budgets.shape[0] and budgets[checkpoint] < end:
            budget = budgets[checkpoint]
            for i in range(prompts):
                ran = ends[i] <= budget
                for k in range(arms):
                    mixed[k, i] = after[k, i] if ran else before[k, i]
                done = update + 1 if ran else update
                counts[0, i] = done * group
                counts[1, i] = done
                counts[2, i] = zero_after[i] if ran else zero_before[i]
                spent_mixed[i] = tokens_after[i] if ran else tokens_before[i]
                served_mixed[i] = served_after[i] if ran else served_before[i]
            record_bands(arms, budget, k0, k1, values[seed], best[seed], band[seed], mixed,
                         weights, norm, counts[0], counts[1], counts[2], out, seed, checkpoint)
            _record_extra(arms, band[seed], mixed, weights, norm, lengths, served_mixed,
                          spent_mixed, extra, seed, checkpoint)
            checkpoint += 1
        spent = end
        update += 1


@inline_jit
def _learn(arms, s, o, lanes, pulled, rewards, advantage, factors, leave_one_out, zscore,
           keep_mask, beta, estimator, lr, scale_step, weight, weighting, bits,
           corrections) -> None:  # pragma: no cover
    """A block's group update, as ``study.core.offpolicy.simulate_offpolicy``'s. Inlined: as a
    function of its own its lane loops stayed scalar (its arrays arrive as arguments; half the
    speed per rollout at lag 4 with TIS)."""
    base, spare = lane_row(WORK_A), lane_row(WORK_B)
    group_advantages(s, base, spare, lanes, rewards, advantage, leave_one_out, zscore,
                     ZSCORE_EPSILON)
    count_zero_signal(s, spare, lane_row(ZERO_SIGNAL), lanes, advantage)
    _inverses(arms, s, o, lanes, keep_mask)
    if beta > 0.0:
        _kl_gradient(arms, s, o, lanes, estimator, pulled)
    if keep_mask:
        _update(arms, s, o, o, POLICY, lanes, scale_step, pulled, advantage, weight, weighting,
                bits, corrections, factors)
    else:
        _update(arms, s, o, s, WEIGHTS, lanes, scale_step, pulled, advantage, weight, weighting,
                bits, corrections, factors)
    if beta > 0.0:
        step = lr * beta
        for j in range(lanes):
            for k in range(arms):
                s[arm_row(PARAMS, k) + j] -= step * o[arm_row(GRADIENT, k) + j]


@jit
def simulate_passes(name, n_arms, model, shaping, keys, values, best, band, parameters, lr,
                    leave_one_out, zscore, group, lag, mismatch, top_p, weight, weighting, bits,
                    keep_mask, corrections, beta, estimator, meter, budgets, out,
                    extra) -> None:  # pragma: no cover
    """Simulate one run per row of ``keys`` (uint64, (runs, 2)) on P prompts of K arms,
    ``values``, ``best`` and ``band`` as ``study.core.prompts.simulate_prompts`` takes them,
    their groups of G = ``group`` from the sampler and under the correction and KL term of
    ``study.core.offpolicy.simulate_offpolicy`` (its arguments of the same names), their
    answers metered by ``meter`` (its ``meter``: the budgets count tokens where ``in_tokens``
    is 1). ``out`` as ``simulate_prompts``'; ``extra`` (served pass rate, tokens, expected
    length), each (runs, checkpoints, ``BANDS``) float64 and zeroed, or empty where the sampler
    is the learner (the first) or the answers have no lengths (the other two)."""
    nb.literally(name)
    nb.literally(n_arms)
    nb.literally(model)
    nb.literally(shaping)
    for seed in range(keys.shape[0]):
        _run(name, n_arms, model, shaping, np.int64(seed), keys, values, best, band, parameters,
             lr, leave_one_out, zscore, group, lag, mismatch, top_p, weight, weighting, bits,
             keep_mask, corrections, beta, estimator, meter, budgets, out, extra)
