"""Many prompts sharing one rollout budget: the kernel of the allocation study. Arrays in, arrays
out; no Python objects, no I/O.

A run trains P prompts, each a Bernoulli bandit of K arms with its own softmax policy (K logits from
0; prompts share nothing; a prompt of fewer arms has ``ABSENT`` logits past them), in passes. At the
start of pass r an allocation rule gives prompt i a group size n_i (0: skipped), and the prompts run
their groups in a random order: n_i rollouts of the prompt's policy, then REINFORCE's group update
with a group estimator (``group_mean``, ``group_zscore`` or ``leave_one_out`` of
``study.learners.reinforce``, with n_i in the place of G), its step normalised by n_i or by the
configured G (``prompt_rules.NORMALIZATIONS``). Rollout m of prompt i draws from main-stream block
(m div 2, i, 0, 0), so prompt 0 sees the draws of a single-prompt run; the order, skip and tie-break
draws have streams of their own (``study.core.streams``). Checkpoint C records the state after the
longest run of groups, in the order they ran, whose rollouts add up to at most C, per group of
prompts (a difficulty band, or an environment of a population). The model in words is README.md's;
``reference/prompts.py`` is its executable spec, and the two agree exactly.

The groups of a pass do not depend on the order they run in (prompts share nothing, and each
prompt's draws are its own), so the kernel runs a pass with the prompts as the lanes of its
loops, in lockstep, and reads a checkpoint that falls inside the pass from a copy of the state
before it (for the prompts whose group ends after the checkpoint in the pass's order) and the
state after it (for the others); only such a pass draws its order. A checkpoint at the pass's
end reads the state after it. K is a compile-time constant
for small K, so each loop over the prompts holds a rollout's or an update's whole work with the
arms unrolled inside it, and the work arrays are made once per run, not per pass. Seeds run on
threads, one seed per task.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from study.core.allocation_hooks import allocated
from study.core.bits import select
from study.core.fastexp import fast_exp
from study.core.jit import inline_jit, jit, parallel_jit
from study.core.kernel import break_tie
from study.core.philox import philox_block, unit32
from study.core.prompt_rules import ABSENT, BANDS, FLOOR, IDLE_PASSES
from study.core.state import arm_count
from study.core.streams import (
    MAIN_C2,
    MAIN_C3,
    ORDER_C2,
    ORDER_C3,
)

ZSCORE_EPSILON = 1e-4
"""As ``study.learners.reinforce.ZSCORE_EPSILON``."""

_ODD, _SIZE, _TOTAL, _SILENT, _IF_PASS, _IF_FAIL, _RATE, _SPREAD = range(8)
_LANE_ROWS = 8
"""The rows of a pass's per-prompt numbers in ``_groups``."""
_GROUP_MEAN, _GROUP_ZSCORE, _LEAVE_ONE_OUT = range(3)
_PER_GROUP, _PER_BATCH = range(2)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_MAIN_C2 = np.uint64(MAIN_C2)
_MAIN_C3 = np.uint64(MAIN_C3)


def difficulty_bands(values: np.ndarray) -> np.ndarray:
    """Each prompt's band, (runs, P) int64, from the arm values (runs, P, K)."""
    prompts = values.shape[1]
    order = np.argsort(values.max(axis=2), axis=1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(prompts)[None, :], axis=1)
    return rank * BANDS // prompts


@inline_jit
def prompt_softmax(arms, logits, weights, norm) -> None:  # pragma: no cover
    """weights[k, i] = exp(l[k, i] - max_k l[k, i]) and norm[i] their sum, for every prompt: one
    loop over the prompts with the K arms unrolled inside it (``arms`` a compile-time K)."""
    for i in range(logits.shape[1]):
        top = logits[0, i]
        for k in range(1, arms):
            top = max(top, logits[k, i])
        total = 0.0
        for k in range(arms):
            w = fast_exp(logits[k, i] - top)
            weights[k, i] = w
            total += w
        norm[i] = total


@inline_jit
def pass_rate(arms, weights, norm, values, i) -> float:  # pragma: no cover
    """Prompt i's pass rate under its policy: sum pi[k] v[k], pi[k] = w[k] (1 / sum w)."""
    inverse = 1.0 / norm[i]
    rate = 0.0
    for k in range(arms):
        rate += (weights[k, i] * inverse) * values[i, k]
    return rate


@inline_jit
def _bucket(fraction, prompts):  # pragma: no cover
    """floor(fraction P) for a fraction in [0, 1): below P, as ``allocate_by_weights``'s
    buckets need; a NaN (an oracle weight from logits that overflowed) to bucket 0, within
    bounds all the same."""
    scaled = fraction * prompts
    return np.int64(select(scaled < prompts, scaled, 0.0))


@jit
def allocate_by_weights(weights, group, sizes, work) -> None:  # pragma: no cover
    """Split P G rollouts: ``FLOOR`` each, the other R = P (G - FLOOR) by the largest remainders
    of the quotas R w_i / sum w (equal weights when they sum to 0), the leftover one by one to
    the largest fractional parts, ties to the lower index. ``weights`` is overwritten; ``work``
    is room for (2, P) integers."""
    prompts = weights.shape[0]
    extra = prompts * (group - FLOOR)
    total = 0.0
    for i in range(prompts):
        total += weights[i]
    if total == 0.0:
        weights[:] = 1.0
        total = float(prompts)
    left = extra
    for i in range(prompts):
        quota = (extra * weights[i]) / total
        whole = np.floor(quota)
        weights[i] = quota - whole
        sizes[i] = FLOOR + np.int64(whole)
        left -= np.int64(whole)
    chosen = min(left, prompts)
    if chosen <= 0:
        return
    # Buckets of the fractions by floor(f P), which keeps their order: the prompts of the
    # buckets above the one that holds the chosen-th largest fraction take one each, and only
    # that bucket's prompts, mostly all or one or two, are ranked. A stable sort of all P
    # fractions took half of a variance rule's pass, and a selection (np.partition) with its
    # unpredictable branches a third.
    tally, members = work[0], work[1]
    tally[:] = 0
    for i in range(prompts):
        tally[_bucket(weights[i], prompts)] += 1
    cut = prompts - 1
    above = 0
    while above + tally[cut] < chosen:
        above += tally[cut]
        cut -= 1
    picks = chosen - above
    if picks == tally[cut]:  # mostly: the whole bucket takes one each, unranked
        cut -= 1
        picks = 0
    held = 0
    for i in range(prompts):
        bucket = _bucket(weights[i], prompts)
        sizes[i] += bucket > cut
        members[held] = i
        held += bucket == cut
    if picks:
        # Stable, so that equal fractions keep the prompts' order.
        ranked = np.argsort(-weights[members[:held]], kind="mergesort")
        for q in range(picks):
            sizes[members[ranked[q]]] += 1


@inline_jit
def _before(key, sizes, a, b) -> bool:  # pragma: no cover
    """Whether prompt a's step comes before prompt b's: the larger value per rollout, ties to
    the prompt with fewer rollouts, then to the lower index."""
    return key[a] > key[b] or (key[a] == key[b] and (
        sizes[a] < sizes[b] or (sizes[a] == sizes[b] and a < b)))


@jit
def _sift_down(heap, at, size, key, sizes) -> None:  # pragma: no cover
    """Restore the heap (of prompt indices, the first ``size`` of ``heap``, ordered by
    ``_before``) below place ``at``, whose key fell (or whose subtrees are heaps already)."""
    while True:
        first, child = at, 2 * at + 1
        if child < size and _before(key, sizes, heap[child], heap[first]):
            first = child
        if child + 1 < size and _before(key, sizes, heap[child + 1], heap[first]):
            first = child + 1
        if first == at:
            return
        heap[at], heap[first] = heap[first], heap[at]
        at = first


@jit
def allocate_greedily(rates, group, sizes, work) -> None:  # pragma: no cover
    """Split P G rollouts by value per rollout (``study.allocations.knapsack``): prompt i with
    estimated pass rate p = ``rates[i]`` (q = 1 - p, w = p q q) gets its first two rollouts as
    one step worth p q w per rollout, then one at a time, its n-th to (n + 1)-th worth
    w (p^n q + q^n p), p^n and q^n kept as running products; the best step of every prompt
    first (ties to the prompt with fewer rollouts, then to the lower index) until the rollouts
    are spent, a first pair that no longer fits dropped (a single step is then open: every
    rollout is spent). ``rates`` is kept; ``work`` is room for (2, P) integers."""
    prompts = rates.shape[0]
    left = prompts * group
    key = np.empty(prompts)
    power_p = np.empty(prompts)
    power_q = np.empty(prompts)
    heap = work[0]
    for i in range(prompts):
        p = rates[i]
        q = 1.0 - p
        sizes[i] = 0
        key[i] = (p * q * q) * (p * q)
        heap[i] = i
    size = prompts
    for start in range(prompts // 2 - 1, -1, -1):
        _sift_down(heap, start, size, key, sizes)
    while size > 0 and left > 0:
        i = heap[0]
        p = rates[i]
        q = 1.0 - p
        if sizes[i] == 0:
            if left < 2:
                size -= 1
                heap[0] = heap[size]
                _sift_down(heap, 0, size, key, sizes)
                continue
            sizes[i] = 2
            left -= 2
            power_p[i] = p * p
            power_q[i] = q * q
        else:
            sizes[i] += 1
            left -= 1
            power_p[i] *= p
            power_q[i] *= q
        key[i] = (p * q * q) * (power_p[i] * q + power_q[i] * p)
        _sift_down(heap, 0, size, key, sizes)


@jit
def pass_uniforms(r, c2, c3, k0, k1, out) -> None:  # pragma: no cover
    """out[q] = word q mod 4 of block (r, q div 4, c2, c3) as a uniform: pass r's draws of a
    stream of one draw per prompt."""
    for b in range((out.shape[0] + 3) // 4):
        words = philox_block(np.uint64(r), np.uint64(b), np.uint64(c2), np.uint64(c3), k0, k1)
        for w in range(min(4, out.shape[0] - 4 * b)):
            out[4 * b + w] = unit32(words[w])


@jit
def pass_order(r, k0, k1, scratch, order) -> None:  # pragma: no cover
    """Pass r's order of the prompts: Fisher-Yates from the identity, place q (P - 1 down to 1)
    swapped with floor(u_q (q + 1)), u_q pass r's draw q of the ``ORDER`` stream."""
    pass_uniforms(r, ORDER_C2, ORDER_C3, k0, k1, scratch)
    for q in range(order.shape[0]):
        order[q] = q
    for q in range(order.shape[0] - 1, 0, -1):
        j = np.int64(scratch[q] * (q + 1))
        order[q], order[j] = order[j], order[q]


@jit
def _draw(first, blocks, k0, k1, uniforms) -> None:  # pragma: no cover
    """The action and reward draws of the pass's rollouts of every prompt i, whose first is its
    rollout m = first[i]: the words of main-stream blocks m div 2, ..., m div 2 + ``blocks`` - 1
    in rows 0, 1, ... of ``uniforms`` (4 rows per block; the pass's rollout j reads rows 2 j +
    2 (m mod 2) and the one after). A loop of its own, so that Philox vectorizes across the
    prompts."""
    for b in range(blocks):
        for i in range(first.shape[0]):
            # Unsigned: a signed floor division keeps a branch for negative numbers, which
            # keeps the loop from vectorizing.
            w0, w1, w2, w3 = philox_block((np.uint64(first[i]) >> _ONE) + np.uint64(b),
                                          np.uint64(i), _MAIN_C2, _MAIN_C3, k0, k1)
            uniforms[4 * b, i] = unit32(w0)
            uniforms[4 * b + 1, i] = unit32(w1)
            uniforms[4 * b + 2, i] = unit32(w2)
            uniforms[4 * b + 3, i] = unit32(w3)


@inline_jit
def _advantage(j, i, sizes, drawn, if_pass, if_fail):  # pragma: no cover
    """Prompt i's advantage for rollout j of its group: the one for its reward, 0 past its
    group size."""
    return select(j < sizes[i], select(drawn[2 * j + 1, i] != 0.0, if_pass[i], if_fail[i]), 0.0)


@inline_jit
def _groups(arms, estimator, per_batch, lr, group, k0, k1, arm_values, logits, weights, norm,
            sizes, longest, rollouts, groups, zero_signal, run, passed, failed, lane, policy,
            drawn, uniforms, last) -> None:  # pragma: no cover
    """Every prompt's group of the pass (prompts with size 0 run none): its rollouts from the
    policy before the update (``weights`` and ``norm`` its softmax), then the group estimator's
    advantages and the update, each prompt with its own group size n_i (``longest`` the
    largest), its step normalised by n_i or, with ``per_batch``, by the configured group size
    ``group``; ``arm_values`` (K, P) the arms' values; ``lane``, ``policy``, ``drawn`` and
    ``uniforms`` room for the pass (``_LANE_ROWS`` rows, K rows, 2 rows per rollout of the
    longest group, 4 per draw block); ``last`` each prompt's last arm. The prompts are the lanes
    of every loop, in lockstep to the longest group, with the K arms unrolled inside (``arms`` a
    compile-time K): a rollout
    past a prompt's n_i gets reward 0 and advantage 0, which leave the sums and the logits
    exactly as they were. Every such choice, and the pick of a prompt's draws, its arm's value
    and its advantage, is a ``select`` (a masked move once vectorized), not a branch, which
    would keep the loop from vectorizing."""
    prompts = logits.shape[1]
    odd, size, total, silent = lane[_ODD], lane[_SIZE], lane[_TOTAL], lane[_SILENT]
    if_pass, if_fail, rate = lane[_IF_PASS], lane[_IF_FAIL], lane[_RATE]
    any_odd = 0
    for i in range(prompts):
        any_odd |= rollouts[i] & 1
    # Rollout j reads rows 2 j .. 2 j + 3: blocks enough for the prompts that start at an odd
    # rollout, and zeros in the rows that only the others read (times 0.0) when none does.
    blocks = (longest + 1 + any_odd) // 2
    _draw(rollouts, blocks, k0, k1, uniforms)
    uniforms[4 * blocks:2 * longest + 2] = 0.0
    for i in range(prompts):
        odd[i] = np.float64(rollouts[i] % 2)
        size[i] = np.float64(max(sizes[i], FLOOR))  # a skipped prompt's divisions stay finite
        total[i] = 0.0
        silent[i] = 1.0
        inverse = 1.0 / norm[i]
        for k in range(arms):
            policy[k, i] = weights[k, i] * inverse
    for j in range(longest):
        for i in range(prompts):
            starts_odd = odd[i] != 0.0
            threshold = select(starts_odd, uniforms[2 * j + 2, i], uniforms[2 * j, i]) * norm[i]
            cumulative = 0.0
            arm = 0.0
            for k in range(arms - 1):
                cumulative += weights[k, i]
                arm = select(cumulative <= threshold, arm + 1.0, arm)
            # A state that is not finite weighs no arm, and the count reaches K - 1: a prompt
            # of fewer arms draws its own last (``last`` (P,), its arms less one, as doubles).
            arm = select(arm > last[i], last[i], arm)
            value = 0.0
            for k in range(arms):
                value = select(arm == k, arm_values[k, i], value)
            u_reward = select(starts_odd, uniforms[2 * j + 3, i], uniforms[2 * j + 1, i])
            reward = select((u_reward < value) & (j < sizes[i]), 1.0, 0.0)
            drawn[2 * j, i] = arm
            drawn[2 * j + 1, i] = reward
            total[i] += reward
    # A reward is 0 or 1, so each prompt has two advantages, one per reward, computed once here
    # as the estimator computes them for every rollout (the same operations, the same bits).
    loo = np.float64(estimator == _LEAVE_ONE_OUT)
    for i in range(prompts):
        mean = total[i] / size[i]
        if_pass[i] = ((1.0 - (total[i] - 1.0) / (size[i] - 1.0)) * loo
                      + (1.0 - mean) * (1.0 - loo))
        if_fail[i] = ((0.0 - (total[i] - 0.0) / (size[i] - 1.0)) * loo
                      + (0.0 - mean) * (1.0 - loo))
        rate[i] = lr * (1.0 / select(per_batch, np.float64(group), size[i]))
    if estimator == _GROUP_ZSCORE:
        spread = lane[_SPREAD]
        spread[:] = 0.0
        for j in range(longest):
            for i in range(prompts):
                a = _advantage(j, i, sizes, drawn, if_pass, if_fail)
                spread[i] += a * a
        for i in range(prompts):
            scale = np.sqrt(spread[i] / (size[i] - 1.0)) + ZSCORE_EPSILON
            if_pass[i] = if_pass[i] / scale
            if_fail[i] = if_fail[i] / scale
    for j in range(longest):
        for i in range(prompts):
            advantage = _advantage(j, i, sizes, drawn, if_pass, if_fail)
            silent[i] = select(advantage == 0.0, silent[i], 0.0)
            step = rate[i] * advantage
            for k in range(arms):
                logits[k, i] += step * (select(drawn[2 * j, i] == k, 1.0, 0.0) - policy[k, i])
    for i in range(prompts):
        ran = sizes[i] > 0
        quiet = silent[i] == 1.0
        rollouts[i] += sizes[i]
        groups[i] += ran
        zero_signal[i] += ran and quiet
        run[i] = (run[i] + 1 if quiet else 0) if ran else run[i]
        passed[i] = np.int64(total[i]) if ran else passed[i]
        failed[i] = sizes[i] - np.int64(total[i]) if ran else failed[i]


@inline_jit
def record_bands(arms, budget, k0, k1, values, best, band, logits, weights, norm, rollouts,
                 groups, zero_signal, out, seed, checkpoint) -> None:  # pragma: no cover
    """Add every prompt's readout in the state given (``logits`` and the counts) to its band's
    row of checkpoint ``checkpoint`` of ``seed`` in ``out`` (see ``FIELDS``), prompts in index
    order."""
    (prompts_out, best_out, value_out, rate_out, top_out, rollouts_out, groups_out, zero_out,
     bad_out) = out
    prompt_softmax(arms, logits, weights, norm)
    for i in range(logits.shape[1]):
        b = band[i]
        prompts_out[seed, checkpoint, b] += 1
        top = values[i, 0]
        for k in range(1, arms):
            top = max(top, values[i, k])
        top_out[seed, checkpoint, b] += top
        rollouts_out[seed, checkpoint, b] += rollouts[i]
        groups_out[seed, checkpoint, b] += groups[i]
        zero_out[seed, checkpoint, b] += zero_signal[i]
        finite = True
        for k in range(arms):
            finite = finite and np.isfinite(logits[k, i])
        if not finite:
            bad_out[seed, checkpoint, b] += 1
            continue
        greedy = break_tie(logits[:, i], k0, k1, budget, np.uint64(i))
        best_out[seed, checkpoint, b] += best[i, greedy]
        value_out[seed, checkpoint, b] += values[i, greedy]
        rate_out[seed, checkpoint, b] += pass_rate(arms, weights, norm, values, i)


@jit
def _simulate_run(n_arms, seed, keys, values, present, best, band, lr, estimator, per_batch,
                  group, rule, budgets, out) -> None:  # pragma: no cover
    """Run ``seed`` of ``simulate_prompts``, into row ``seed`` of ``out``. A function of its own,
    not the parallel loop's body: numba's parallel lowering analyses and compiles a loop's body
    again as a function of its own, and on this one that took most of the kernel's compile time
    (a call per run costs nothing)."""
    nb.literally(n_arms)
    arms = arm_count(n_arms, values.shape[2])
    prompts = values.shape[1]
    k0, k1 = keys[seed, 0], keys[seed, 1]
    v = values[seed]
    arm_values = np.ascontiguousarray(v.T)
    logits = np.zeros((arms, prompts))
    last = np.empty(prompts)
    for i in range(prompts):
        last[i] = np.float64(present[i] - 1)
        for k in range(present[i], arms):
            logits[k, i] = ABSENT
    weights = np.empty((arms, prompts))
    policy = np.empty((arms, prompts))
    norm = np.empty(prompts)
    lane = np.empty((_LANE_ROWS, prompts))
    rollouts = np.zeros(prompts, dtype=np.int64)
    groups = np.zeros(prompts, dtype=np.int64)
    zero_signal = np.zeros(prompts, dtype=np.int64)
    run = np.zeros(prompts, dtype=np.int64)
    passed = np.zeros(prompts, dtype=np.int64)
    failed = np.zeros(prompts, dtype=np.int64)
    before = np.empty((arms, prompts))
    counted_before = np.empty((3, prompts), dtype=np.int64)
    mixed = np.empty((arms, prompts))
    counted_mixed = np.empty((3, prompts), dtype=np.int64)
    sizes = np.empty(prompts, dtype=np.int64)
    order = np.empty(prompts, dtype=np.int64)
    ends = np.empty(prompts, dtype=np.int64)
    scratch = np.empty(prompts)
    work = np.empty((2, prompts), dtype=np.int64)
    # Room for the rollouts of the longest group so far, grown when a pass needs more (an
    # allocation per pass would cost as much as a tenth of the pass).
    room = 0
    drawn = np.empty((0, prompts))
    uniforms = np.empty((0, prompts))
    spent = 0
    checkpoint = 0
    r = 0
    idle = 0
    while checkpoint < budgets.shape[0]:
        # Once for the pass: the oracle's weights and the rollouts both use it.
        prompt_softmax(arms, logits, weights, norm)
        allocated(rule, arms, group, r, k0, k1, v, weights, norm, run, passed, failed, scratch,
                  work, sizes)
        end = spent + sizes.sum()
        r += 1
        if end == spent:  # every prompt skipped: nothing ran
            idle += 1
            if idle == IDLE_PASSES:
                while checkpoint < budgets.shape[0]:
                    record_bands(arms, budgets[checkpoint], k0, k1, v, best[seed], band[seed],
                                 logits, weights, norm, rollouts, groups, zero_signal, out, seed,
                                 checkpoint)
                    checkpoint += 1
            continue
        idle = 0
        longest = sizes.max()
        if longest > room:
            room = longest
            drawn = np.empty((2 * room, prompts))
            uniforms = np.empty((4 * ((room + 2) // 2), prompts))
        # The order matters only to a checkpoint inside the pass; its draws are the pass's
        # own, so a pass that does not need it need not draw it.
        inside = budgets[checkpoint] < end
        if inside:
            pass_order(r - 1, k0, k1, scratch, order)
            finished = spent
            for q in range(prompts):
                finished += sizes[order[q]]
                ends[order[q]] = finished
            before[:] = logits
            counted_before[0] = rollouts
            counted_before[1] = groups
            counted_before[2] = zero_signal
        _groups(arms, estimator, per_batch, lr, group, k0, k1, arm_values, logits, weights,
                norm, sizes, longest, rollouts, groups, zero_signal, run, passed, failed,
                lane, policy, drawn, uniforms, last)
        while checkpoint < budgets.shape[0] and budgets[checkpoint] <= end:
            budget = budgets[checkpoint]
            if budget == end:  # every group of the pass ran within the budget
                record_bands(arms, budget, k0, k1, v, best[seed], band[seed], logits, weights,
                             norm, rollouts, groups, zero_signal, out, seed, checkpoint)
                checkpoint += 1
                continue
            for i in range(prompts):
                ran = sizes[i] > 0 and ends[i] <= budget
                for k in range(arms):
                    mixed[k, i] = logits[k, i] if ran else before[k, i]
                counted_mixed[0, i] = rollouts[i] if ran else counted_before[0, i]
                counted_mixed[1, i] = groups[i] if ran else counted_before[1, i]
                counted_mixed[2, i] = zero_signal[i] if ran else counted_before[2, i]
            record_bands(arms, budget, k0, k1, v, best[seed], band[seed], mixed, weights, norm,
                         counted_mixed[0], counted_mixed[1], counted_mixed[2], out, seed,
                         checkpoint)
            checkpoint += 1
        spent = end


@parallel_jit
def simulate_prompts(n_arms, keys, values, present, best, band, lr, estimator, normalization,
                     group, rule, budgets, out) -> None:  # pragma: no cover
    """Simulate one run per row of ``keys`` (uint64, (runs, 2): the runs' Philox keys) on P prompts
    of K arms, ``values`` (runs, P, K) their pass probabilities, ``present`` (P,) each prompt's
    arms (K, or fewer: its arms past them are ``ABSENT``), ``best`` (runs, P, K) their best
    arms and ``band`` (runs, P) the group each prompt's readouts are summed in (its difficulty
    band, ``difficulty_bands``, or its environment of a population); ``lr``, ``estimator``
    (a code of ``ESTIMATORS``), ``normalization`` (a code of ``NORMALIZATIONS``), ``group`` G (>= 2)
    and ``rule`` (an allocation rule's code, ``study.core.allocation_hooks``) as the module
    docstring says; ``budgets`` (int64) the
    increasing checkpoints, in rollouts. ``out`` holds one zeroed array per field of ``FIELDS``,
    (runs, checkpoints, groups): int64, but float64 for ``FLOAT_FIELDS``. ``n_arms`` is K up to
    ``study.core.state.UNROLLED_ARMS`` and 0 past it (``study.core.state.arm_count``): numba
    compiles the kernel once per such K, with the loops over the arms unrolled inside the loops
    over the prompts."""
    nb.literally(n_arms)
    per_batch = normalization == _PER_BATCH
    for seed in nb.prange(values.shape[0]):
        # As an int64: numba types the loop's index as one, then as a uint64 in the parallel
        # loop's own function, and would compile the run twice.
        _simulate_run(n_arms, np.int64(seed), keys, values, present, best, band, lr,
                      estimator, per_batch, group, rule, budgets, out)
