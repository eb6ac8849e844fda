"""The off-policy group learner's driver (``study.model.offpolicy`` specifies it): REINFORCE's
group update with rollouts drawn from a stale, mismatched or truncated sampler, the corrections
trainers apply, and a KL term to the initial policy, exact or estimated.

Arrays in, arrays out, as ``study.core.kernel``'s drivers, whose pieces it shares (the draws,
the rewards, the sums, the checkpoints' readout) and whose on-policy group driver it equals bit
for bit with lag 0, no mismatch, top_p 1, no correction and beta 0 (a test): the learner's
softmax is REINFORCE's ``prepare``, the sampler's weights are computed by the same operations
from the same logits, and a weight of 1.0 leaves a step's bits alone (so does ``is``: with the
sampler the learner, pi(a) and mu(a) are the same product w (1 / sum w), their ratio exactly
1). The sampler's state is a flat array of its own laid out as the block's state (rows of
``STRIDE`` doubles, ``study.core.state``, whose reasons hold here too: a lane loop that writes
several of its quantities stays one pointer to LLVM, and vectorizes), the lagged logits an array
beside it.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from study.core.advantages import count_zero_signal, group_advantages
from study.core.arms import count, padded
from study.core.bits import select
from study.core.correction_hooks import kept, weighted
from study.core.elementary import fast_log
from study.core.gaussian import box_muller
from study.core.hooks import prepare
from study.core.jit import inline_jit, jit
from study.core.kernel import (
    _draw,
    _rewards,
    _start,
    add_metered_traces,
    answers,
    draw_lengths,
    meter_start,
    passing,
    record_passed,
    spend,
)
from study.core.philox import philox_block
from study.core.softmax import inverse_cdf, softmax_weights
from study.core.state import (
    BEST,
    BUFFERED,
    NORM,
    PARAMS,
    STRIDE,
    VALUES,
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
from study.core.streams import MISMATCH_C2, MISMATCH_C3

ZSCORE_EPSILON = 1e-4
"""GRPO's z-score's epsilon, as ``study.learners.reinforce``'s."""
SMALLEST_NORMAL = 2.2250738585072014e-308
"""A probability below this counts as 0 in a logarithm (``fast_log`` takes normal numbers)."""
EXACT, K1, K3, K3_IS = range(4)
"""The KL estimators' codes (``study.model.offpolicy.ESTIMATORS``)."""
RECORDED = 3
"""The estimators whose gradient error a checkpoint records: k1, k3, k3_is."""
SAMPLER, KEPT, POLICY, GRADIENT, FACTOR = range(5)
"""An arm's rows of the sampler's state (in the places of the state's first five): its softmax
weight (zero outside top-p); 1.0 for an arm inside top-p, else 0.0; the learner's weight the
update's score uses; the KL term's gradient; the KL estimator's factor of a rollout of the arm."""
SAMPLER_NORM, SAMPLER_INVERSE, POLICY_INVERSE, FULL_INVERSE = range(4)
"""Single rows of the sampler's state (in the places of the state's first four): the sum of the
sampler's weights and its inverse; the inverse of the sum of the score's weights, and of the
learner's whole softmax."""

_MISMATCH_C2 = np.uint64(MISMATCH_C2)
_MISMATCH_C3 = np.uint64(MISMATCH_C3)


@inline_jit
def _log_or_zero(x):  # pragma: no cover
    """ln x for a probability, 0 where it is below ``SMALLEST_NORMAL`` (its term then has a
    factor that is 0)."""
    return select(x >= SMALLEST_NORMAL, fast_log(select(x >= SMALLEST_NORMAL, x, 1.0)), 0.0)


@inline_jit
def _slot_row(n_arms, slot, k):  # pragma: no cover
    """Offset of arm k's row of the history's ``slot`` (slot K + k rows: a run-time slot, and a
    constant distance between the arms for a constant K)."""
    return (np.uint64(slot) * np.uint64(n_arms) + np.uint64(k)) * np.uint64(STRIDE)


@inline_jit
def _sampler(n_arms, s, o, lanes, w, update, history, lag, mismatch, top_p, k0, k1,
             c1) -> None:  # pragma: no cover
    """Every lane's sampler for ``update``: its logits (the learner's before update u - lag, plus
    eps z), their softmax weights in the ``SAMPLER`` rows of ``o`` with the arms outside top-p
    zeroed (``KEPT``: 1.0 for an arm inside), and their sum (``SAMPLER_NORM``). The logits
    before this update are stored in the history (lag + 1 blocks of K rows, a ring) first. Where
    the sampler is the policy (lag 0, no mismatch, top_p 1) its weights are the learner's
    (``prepare`` must have made them for this update)."""
    if lag == 0 and mismatch <= 0.0 and top_p >= 1.0:
        # The sampler is the policy: its weights are those ``prepare`` has just made, the same
        # softmax of the same logits, bit for bit, copied rather than made again.
        for j in range(lanes):
            for k in range(n_arms):
                o[arm_row(SAMPLER, k) + j] = s[arm_row(WEIGHTS, k) + j]
            o[lane_row(SAMPLER_NORM) + j] = s[lane_row(NORM) + j]
    else:
        depth = lag + 1
        slot = update % depth
        for j in range(lanes):
            for k in range(n_arms):
                history[_slot_row(n_arms, slot, k) + j] = s[arm_row(PARAMS, k) + j]
        # The logits before update - lag (zeros while update < lag) in the SAMPLER rows, whose
        # softmax then reads and writes one array at constant offsets (read from the history's
        # block, a run-time offset into another array, the softmax loop stayed scalar: three times
        # the on-policy learner per rollout at K = 10).
        block = (update + 1) % depth
        for j in range(lanes):
            for k in range(n_arms):
                o[arm_row(SAMPLER, k) + j] = history[_slot_row(n_arms, block, k) + j]
        _served_by(n_arms, o, lanes, w, update, mismatch, top_p, k0, k1, c1)


@inline_jit
def _served_by(n_arms, o, lanes, w, update, mismatch, top_p, k0, k1,
               c1) -> None:  # pragma: no cover
    """The logits in the ``SAMPLER`` rows of ``o`` served as the inference engine serves them at
    ``update``: plus eps z (its noise drawn only where eps is above 0: the pair of arms 2m and
    2m + 1 from block (update, c1 ceil(K / 2) + m) of the ``MISMATCH`` stream, c1 the lane's
    prompt, 0 for a single prompt), through the softmax, the arms outside top-p zeroed
    (``KEPT``: 1.0 for an arm inside), and the weights' sum (``SAMPLER_NORM``)."""
    if mismatch > 0.0:
        pairs = (n_arms + 1) // 2
        for j in range(lanes):
            for pair in range(pairs):
                w0, w1, w2, w3 = philox_block(np.uint64(update),
                                              c1[j] * np.uint64(pairs) + np.uint64(pair),
                                              _MISMATCH_C2, _MISMATCH_C3, k0[j], k1[j])
                z0, z1 = box_muller(w0, w1, w2, w3)
                o[arm_row(SAMPLER, 2 * pair) + j] += mismatch * z0
                if 2 * pair + 1 < n_arms:
                    o[arm_row(SAMPLER, 2 * pair + 1) + j] += mismatch * z1
    softmax_weights(n_arms, o, SAMPLER, SAMPLER, lane_row(SAMPLER_NORM), lanes, w)
    if top_p < 1.0:
        for j in range(lanes):
            # Arm k is kept when the arms ahead of it (more probable, or as probable with a
            # lower index) hold less than top_p of the mass: the smallest such set reaching
            # top_p.
            bound = top_p * o[lane_row(SAMPLER_NORM) + j]
            kept = 0.0
            for k in range(n_arms):
                mine = o[arm_row(SAMPLER, k) + j]
                ahead = 0.0
                for i in range(n_arms):
                    theirs = o[arm_row(SAMPLER, i) + j]
                    first = (theirs > mine) | ((theirs == mine) & (i < k))
                    ahead += select(first, theirs, 0.0)
                o[arm_row(KEPT, k) + j] = select(ahead < bound, 1.0, 0.0)
            for k in range(n_arms):
                weight = o[arm_row(SAMPLER, k) + j] * o[arm_row(KEPT, k) + j]
                o[arm_row(SAMPLER, k) + j] = weight
                kept += weight
            o[lane_row(SAMPLER_NORM) + j] = kept


@inline_jit
def _serve(n_arms, s, v, lanes, w, update, mismatch, top_p, k0, k1,
           c1) -> None:  # pragma: no cover
    """Every lane's served policy at ``update`` (``study.model.offpolicy``: the learner's current
    logits as the sampler serves them, mismatched and truncated but never stale) into the
    ``SAMPLER`` rows of ``v``, laid out as the sampler's state."""
    for j in range(lanes):
        for k in range(n_arms):
            v[arm_row(SAMPLER, k) + j] = s[arm_row(PARAMS, k) + j]
    _served_by(n_arms, v, lanes, w, update, mismatch, top_p, k0, k1, c1)


@inline_jit
def _served_readout(n_arms, s, v, j, served) -> None:  # pragma: no cover
    """Lane j's served pass rate and mass on the best arms (``_serve`` computed) into
    ``served``; NaN for a state that is not finite (it serves nothing)."""
    finite = True
    for k in range(n_arms):
        logit = s[arm_row(PARAMS, k) + j]
        finite = finite & (logit - logit == 0.0)
    inverse = 1.0 / v[lane_row(SAMPLER_NORM) + j]
    passed = 0.0
    on_best = 0.0
    for k in range(n_arms):
        p = v[arm_row(SAMPLER, k) + j] * inverse
        passed += p * s[arm_row(VALUES, k) + j]
        on_best += p * s[arm_row(BEST, k) + j]
    served[0] = select(finite, passed, np.nan)
    served[1] = select(finite, on_best, np.nan)


@inline_jit
def _inverses(n_arms, s, o, lanes, keep_mask) -> None:  # pragma: no cover
    """Before an update's step, every lane's inverse of the learner's sum (``FULL_INVERSE``) and
    of the sampler's (``SAMPLER_INVERSE``), and the policy the score uses: with ``keep_mask``
    the learner's weights inside the sampler's support (``POLICY``), else the learner's own, and
    one over its sum (``POLICY_INVERSE``)."""
    for j in range(lanes):
        full = 1.0 / s[lane_row(NORM) + j]
        o[lane_row(FULL_INVERSE) + j] = full
        o[lane_row(POLICY_INVERSE) + j] = full
        o[lane_row(SAMPLER_INVERSE) + j] = 1.0 / o[lane_row(SAMPLER_NORM) + j]
    if keep_mask:
        for j in range(lanes):
            norm = 0.0
            for k in range(n_arms):
                weight = s[arm_row(WEIGHTS, k) + j] * o[arm_row(KEPT, k) + j]
                o[arm_row(POLICY, k) + j] = weight
                norm += weight
            o[lane_row(POLICY_INVERSE) + j] = 1.0 / norm


@inline_jit
def _probabilities(n_arms, s, o, scored, block, j, arm):  # pragma: no cover
    """Lane j's probabilities of ``arm`` under the score's policy (its weights in ``block`` of
    ``scored``), the learner's whole policy and the sampler (``_inverses`` computed)."""
    learner = 0.0
    full = 0.0
    behaviour = 0.0
    for k in range(n_arms):
        hit = arm == k
        learner += select(hit, scored[arm_row(block, k) + j]
                          * o[lane_row(POLICY_INVERSE) + j], 0.0)
        full += select(hit, s[arm_row(WEIGHTS, k) + j]
                       * o[lane_row(FULL_INVERSE) + j], 0.0)
        behaviour += select(hit, o[arm_row(SAMPLER, k) + j]
                            * o[lane_row(SAMPLER_INVERSE) + j], 0.0)
    return learner, full, behaviour


@inline_jit
def _weights(n_arms, s, o, scored, block, lanes, pulled, advantage, weight, bits, masking,
             parameters, factors) -> None:  # pragma: no cover
    """Every rollout's weight in the step into ``factors`` (G, lanes): the weight whose code is
    ``weight`` of its ratio rho = pi / mu and advantage, 0 where a mask of ``bits`` drops it
    (``study.core.correction_hooks``; the masks read only where ``masking``, a constant)."""
    for i in range(pulled.shape[0]):
        for j in range(lanes):
            learner, _, behaviour = _probabilities(n_arms, s, o, scored, block, j, pulled[i, j])
            rho = learner / behaviour
            a = advantage[i, j]
            w = weighted(weight, rho, a, parameters)
            if masking:
                w = select(kept(bits, rho, a, parameters), w, 0.0)
            factors[i, j] = w


@inline_jit
def _estimator_factor(estimator, n_arms, p, mu):  # pragma: no cover
    """The factor of the score of an arm drawn with learner probability ``p`` and sampler
    probability ``mu`` in the estimator's gradient of KL(pi || uniform) over ``n_arms`` arms:
    k1's 1, k3's 1 - 1 / (K p), k3_is's (p / mu) ln(K p)."""
    if estimator == K1:
        return 1.0
    if estimator == K3:
        return 1.0 - 1.0 / (n_arms * p)
    return p / mu * _log_or_zero(p * n_arms)


@inline_jit
def _kl_gradient(n_arms, s, o, lanes, estimator, pulled, counts,
                 present) -> None:  # pragma: no cover
    """Every lane's estimate of the gradient of KL(pi || uniform) at the update's start, the
    uniform policy over lane j's ``present[j]`` arms (a double: K, or a prompt's fewer), into
    the ``GRADIENT`` rows: exact, or from the first ``counts[j]`` (a double) of lane j's group's
    arms (``pulled``: a many-prompts lane's group may be shorter than the rows) with their
    full-policy ratios pi / mu (``_inverses`` computed); 0 for a lane whose count is 0."""
    for j in range(lanes):
        for k in range(n_arms):
            o[arm_row(GRADIENT, k) + j] = 0.0
    if estimator == EXACT:
        for j in range(lanes):
            inverse = o[lane_row(FULL_INVERSE) + j]
            divergence = 0.0
            for k in range(n_arms):
                p = s[arm_row(WEIGHTS, k) + j] * inverse
                divergence += p * _log_or_zero(p * present[j])
            for k in range(n_arms):
                p = s[arm_row(WEIGHTS, k) + j] * inverse
                o[arm_row(GRADIENT, k) + j] = p * (_log_or_zero(p * present[j]) - divergence)
        return
    # The factor of each arm once, not a logarithm and a division per rollout: a rollout's is
    # its arm's, picked by a select (an arm outside top-p, whose factor divides by 0, is never
    # drawn).
    for j in range(lanes):
        for k in range(n_arms):
            o[arm_row(FACTOR, k) + j] = _estimator_factor(
                estimator, present[j], s[arm_row(WEIGHTS, k) + j] * o[lane_row(FULL_INVERSE) + j],
                o[arm_row(SAMPLER, k) + j] * o[lane_row(SAMPLER_INVERSE) + j])
    for i in range(pulled.shape[0]):
        for j in range(lanes):
            arm = pulled[i, j]
            factor = o[arm_row(FACTOR, 0) + j]
            for k in range(1, n_arms):
                factor = select(arm == k, o[arm_row(FACTOR, k) + j], factor)
            inverse = o[lane_row(FULL_INVERSE) + j]
            counted = i < counts[j]
            for k in range(n_arms):
                score = select(arm == k, 1.0, 0.0) - s[arm_row(WEIGHTS, k) + j] * inverse
                o[arm_row(GRADIENT, k) + j] += select(counted, factor * score, 0.0)
    for j in range(lanes):
        for k in range(n_arms):
            o[arm_row(GRADIENT, k) + j] = select(
                counts[j] > 0.0, o[arm_row(GRADIENT, k) + j] * (1.0 / counts[j]), 0.0)


@inline_jit
def _gradient_errors(n_arms, s, o, j, group, entropy, bias, mse):  # pragma: no cover
    """Lane j's readout of the state: the learner's entropy and, for k1, k3 and k3_is, the
    exact bias (its norm) and mean squared error of the gradient estimate from a group of G
    drawn from the sampler (the module's docstring of ``study.model.offpolicy``)."""
    inverse = 1.0 / s[lane_row(NORM) + j]
    divergence = 0.0
    spread = 0.0
    for k in range(n_arms):
        p = s[arm_row(WEIGHTS, k) + j] * inverse
        log_p = _log_or_zero(p)
        spread -= p * log_p
        divergence += p * _log_or_zero(p * n_arms)
    entropy[0] = spread
    for e in range(RECORDED):
        estimator = e + 1
        # The estimator's mean under the sampler, then its bias and spread about it.
        mean = np.zeros(n_arms)
        factors = np.zeros(n_arms)
        for a in range(n_arms):
            p_a = s[arm_row(WEIGHTS, a) + j] * inverse
            mu_a = o[arm_row(SAMPLER, a) + j] * (1.0 / o[lane_row(SAMPLER_NORM) + j])
            factors[a] = select(mu_a > 0.0, _estimator_factor(estimator, n_arms, p_a, mu_a), 0.0)
            for k in range(n_arms):
                p_k = s[arm_row(WEIGHTS, k) + j] * inverse
                mean[k] += mu_a * (factors[a] * (select(a == k, 1.0, 0.0) - p_k))
        squared = 0.0
        for k in range(n_arms):
            p_k = s[arm_row(WEIGHTS, k) + j] * inverse
            exact = p_k * (_log_or_zero(p_k * n_arms) - divergence)
            squared += (mean[k] - exact) ** 2
        variance = 0.0
        for a in range(n_arms):
            mu_a = o[arm_row(SAMPLER, a) + j] * (1.0 / o[lane_row(SAMPLER_NORM) + j])
            for k in range(n_arms):
                p_k = s[arm_row(WEIGHTS, k) + j] * inverse
                value = factors[a] * (select(a == k, 1.0, 0.0) - p_k)
                variance += mu_a * (value - mean[k]) ** 2
        bias[e] = np.sqrt(squared)
        mse[e] = squared + variance / group


@inline_jit
def _update(n_arms, s, o, scored, block, lanes, scale, pulled, advantage, weight, weighting,
            bits, parameters, factors) -> None:  # pragma: no cover
    """The update's step, logits += c_i (onehot(a_i) - pi) with c_i = lr (1 / G) A_i w_i,
    rollout by rollout, pi the score's policy (its weights in ``block`` of ``scored``) and w_i
    the correction's weight (``_weights``). Called with a constant array and block: chosen at
    run time, they left the lane loops scalar (LLVM could not tell the rows they read from those
    they write)."""
    # Whether the masks are read, a constant in each copy of the weight loop: tested inside
    # it, the lane loop stayed scalar. Without a weight or a mask every weight is 1.0, as
    # ``factors`` starts.
    if bits != 0:
        _weights(n_arms, s, o, scored, block, lanes, pulled, advantage, weight, bits, True,
                 parameters, factors)
    elif weighting:
        _weights(n_arms, s, o, scored, block, lanes, pulled, advantage, weight, bits, False,
                 parameters, factors)
    for i in range(pulled.shape[0]):
        for j in range(lanes):
            c = scale * advantage[i, j] * factors[i, j]
            inverse = o[lane_row(POLICY_INVERSE) + j]
            for k in range(n_arms):
                indicator = select(pulled[i, j] == k, 1.0, 0.0)
                s[arm_row(PARAMS, k) + j] += c * (
                    indicator - scored[arm_row(block, k) + j] * inverse)


@jit
def simulate_offpolicy(name, n_arms, model, shaping, keys, lanes, values, best, parameters, lr,
                       leave_one_out, zscore, group, lag, mismatch, top_p, weight, weighting,
                       bits, keep_mask, corrections, beta, estimator, meter, budgets, out, extra,
                       spent, curves) -> None:  # pragma: no cover
    """``study.core.kernel.simulate_groups`` for the off-policy group learner (``name`` is
    ``"reinforce"``, whose softmax and readout it uses; ``leave_one_out`` and ``zscore`` pick
    the group estimator, neither: the group mean): rollouts from the sampler ``lag``,
    ``mismatch`` (its noise drawn only where it is above 0), ``top_p`` make, the update weighted by
    the weight whose code is ``weight`` (where ``weighting``: not ``none``) and masked by the
    masks of ``bits`` (``study.core.correction_hooks``; their parameters in ``corrections``,
    ``study.model.offpolicy.OffPolicy.codes``), its score on the sampler's support where
    ``keep_mask``, then the KL term ``beta`` by ``estimator``. ``extra`` holds the block's
    (entropy (runs, checkpoints), bias and mse (runs, checkpoints, ``RECORDED``), the served
    policy's pass rate and mass on the best arms (runs, checkpoints, 2)) at each checkpoint.

    ``meter`` (lengths, law, scale, shaping parameters, in_tokens) and ``spent`` (rollouts,
    tokens, expected length, each (runs, checkpoints)) are ``study.core.kernel.simulate_tokens``'
    for answers that cost tokens, whose rewards the model ``shaping`` shapes; with ``spent``'s
    arrays empty the answers have no lengths and the budgets count rollouts (``shaping`` is then
    ``model``, which shapes nothing). A lane's checkpoint B is its state after the most updates
    whose spending stays within B, as there: after floor(B / G) updates when counting rollouts,
    the update's rollouts drawn before its checkpoints are read (the draws change no state).
    ``curves`` are ``simulate_tokens``' (``add_metered_traces``)."""
    nb.literally(name)
    nb.literally(n_arms)
    nb.literally(model)
    nb.literally(shaping)
    arms = arm_count(n_arms, values.shape[1])
    used = keys.shape[0]
    entropy, bias, mse, served = extra
    lengths, law, scale, shaping_parameters, in_tokens = meter
    counted = spent[0].shape[0] > 0
    s, grid, w, k0, k1, c1, main, mine, uniforms, own, scores = _start(
        arms, model, keys, lanes, values, best, np.zeros(used, np.uint64))
    length_schedule, longest, lifted = meter_start(shaping, k0, k1, c1, budgets,
                                                   shaping_parameters)
    length_draws = np.zeros((BUFFERED, lanes))
    pulled = aligned_rows(group, lanes)
    chosen = aligned(lanes)
    rewards = aligned_rows(group, lanes)
    advantage = aligned_rows(group, lanes)
    # The token meter's lanes, as ``study.core.kernel.simulate_tokens``'.
    cost = np.zeros(lanes)
    answered = np.zeros(lanes)
    spending = np.zeros(lanes)
    tokens = np.zeros(lanes)
    due = np.zeros(lanes, dtype=np.int64)
    waits = np.full(lanes, np.inf)
    waits[:used] = budgets[0]
    factors = np.ones((group, lanes))
    whole = np.full(lanes, np.float64(group))  # every lane's group is whole
    every = np.full(lanes, np.float64(arms))  # and has every arm
    history = np.zeros(np.int64(_slot_row(arms, lag + 1, 0)))  # lag + 1 blocks of K logits
    o = aligned(rows(padded(arms)) * STRIDE)
    o[:] = 1.0  # KEPT: all, as with top_p 1
    v = aligned(rows(padded(arms)) * STRIDE)  # the served policy, laid out as the sampler
    v[:] = 1.0
    v_scratch = aligned(w.shape[0])
    reading = np.empty(2)
    readout = np.empty(1)
    errors = np.empty((2, RECORDED))
    base, spare = lane_row(WORK_A), lane_row(WORK_B)
    scale_step = lr * (1.0 / group)
    width = np.uint64(lanes)
    waiting = used
    update = 0
    while waiting > 0:
        prepare(name, arms, s, width, w)
        _sampler(arms, s, o, width, w, update, history, lag, mismatch, top_p, k0, k1, c1)
        for j in range(width):
            answered[j] = 0.0
        for i in range(group):
            t = update * group + i
            row = _draw(t, main, mine, model, uniforms, own)
            inverse_cdf(arms, o, SAMPLER, lane_row(SAMPLER_NORM), uniforms[2 * row], width, w,
                        s, pulled[i], chosen)
            _rewards(model, width, chosen, uniforms[2 * row + 1], own[row], parameters,
                     rewards[i])
            if counted:
                draw_lengths(law, t, row, length_schedule, length_draws)
                answers(shaping, law, arms, width, row, i, pulled, lengths, scale, length_draws,
                        longest, lifted, spending, shaping_parameters, answered, rewards)
        # The checkpoints the update passes read the state before it (a scalar loop over the
        # lanes, only in the updates that pass one).
        if passing(lanes, in_tokens, group, answered, spending, cost, waits) > 0:
            _serve(arms, s, v, width, v_scratch, update, mismatch, top_p, k0, k1, c1)
            for j in range(used):
                first = due[j]
                waiting -= record_passed(name, j, update, group, budgets, spending, cost, due,
                                         waits, k0, k1, best, values, grid, arms, scores, out,
                                         spent, tokens, lengths)
                if due[j] > first:
                    _gradient_errors(arms, s, o, j, group, readout, errors[0], errors[1])
                    _served_readout(arms, s, v, j, reading)
                    for c in range(first, due[j]):
                        entropy[j, c] = readout[0]
                        served[j, c, 0] = reading[0]
                        served[j, c, 1] = reading[1]
                        for e in range(RECORDED):
                            bias[j, c, e] = errors[0, e]
                            mse[j, c, e] = errors[1, e]
        if waiting == 0:
            break
        if curves[0].shape[0] > 0:
            add_metered_traces(arms, s, width, w, used, group, update * group, pulled, rewards,
                               due, budgets.shape[0], curves)
        group_advantages(s, base, spare, lanes, rewards, advantage, leave_one_out, zscore,
                         ZSCORE_EPSILON)
        count_zero_signal(s, spare, lane_row(ZERO_SIGNAL), lanes, advantage)
        _inverses(arms, s, o, width, keep_mask)
        # The KL term's gradient is at the update's start, from the learner's whole policy.
        if beta > 0.0:
            _kl_gradient(arms, s, o, width, estimator, pulled, whole, every)
        if keep_mask:
            _update(arms, s, o, o, POLICY, width, scale_step, pulled, advantage, weight,
                    weighting, bits, corrections, factors)
        else:
            _update(arms, s, o, s, WEIGHTS, width, scale_step, pulled, advantage, weight,
                    weighting, bits, corrections, factors)
        if beta > 0.0:
            step = lr * beta
            for j in range(width):
                for k in range(arms):
                    s[arm_row(PARAMS, k) + j] -= step * o[arm_row(GRADIENT, k) + j]
        for i in range(group):
            count(arms, s, pulled[i], rewards[i], width)
        spend(lanes, cost, answered, spending, tokens)
        update += 1
