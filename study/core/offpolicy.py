"""The off-policy group learner's driver (``study.model.offpolicy`` specifies it): REINFORCE's
group update with rollouts drawn from a stale, mismatched or truncated sampler, the corrections
trainers apply, and a KL term to the initial policy, exact or estimated.

Arrays in, arrays out, as ``study.core.kernel``'s drivers, whose pieces it shares (the draws,
the rewards, the sums, the checkpoints' readout) and whose on-policy group driver it equals bit
for bit with lag 0, no mismatch, top_p 1, no correction and beta 0 (a test): the learner's
softmax is REINFORCE's ``prepare``, the sampler's weights are computed by the same operations
from the same logits, and a weight of 1.0 leaves a step's bits alone (so does ``is``: with the
sampler the learner, pi(a) and mu(a) are the same product w (1 / sum w), their ratio exactly
1). The sampler's state (the lagged logits, its weights) is kept in arrays of its own beside the
block's state.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from study.core.advantages import count_zero_signal, group_advantages
from study.core.bits import literal_or, select
from study.core.elementary import fast_log
from study.core.fastexp import fast_exp
from study.core.gaussian import box_muller
from study.core.hooks import prepare
from study.core.jit import inline_jit, jit
from study.core.kernel import (
    _FIRST,
    _add_trace,
    _count,
    _draw,
    _record_due,
    _start,
    group_rollout,
)
from study.core.philox import philox_block
from study.core.state import NORM, PARAMS, WEIGHTS, WORK_A, WORK_B, ZERO_SIGNAL, arm_row, lane_row
from study.core.streams import MISMATCH_C2, MISMATCH_C3

ZSCORE_EPSILON = 1e-4
"""GRPO's z-score's epsilon, as ``study.learners.reinforce``'s."""
SMALLEST_NORMAL = 2.2250738585072014e-308
"""A probability below this counts as 0 in a logarithm (``fast_log`` takes normal numbers)."""
NONE, IS, TIS, PPO_CLIP = range(4)
"""The weights' codes (``study.model.offpolicy.WEIGHTS``)."""
EXACT, K1, K3, K3_IS = range(4)
"""The KL estimators' codes (``study.model.offpolicy.ESTIMATORS``)."""
RECORDED = 3
"""The estimators whose gradient error a checkpoint records: k1, k3, k3_is."""

_MISMATCH_C2 = np.uint64(MISMATCH_C2)
_MISMATCH_C3 = np.uint64(MISMATCH_C3)


@inline_jit
def _log_or_zero(x):  # pragma: no cover
    """ln x for a probability, 0 where it is below ``SMALLEST_NORMAL`` (its term then has a
    factor that is 0)."""
    return select(x >= SMALLEST_NORMAL, fast_log(select(x >= SMALLEST_NORMAL, x, 1.0)), 0.0)


@inline_jit
def _sampler(n_arms, s, j, update, history, lag, mismatch, top_p, k0, k1,
             sampler):  # pragma: no cover
    """Lane j's sampler for ``update``: its logits (the learner's before update u - lag, plus
    eps z), their softmax weights into ``sampler[:, j]`` with the arms outside top-p zeroed, and
    their sum. The logits before this update are stored in the history first."""
    depth = lag + 1
    for k in range(n_arms):
        history[update % depth, k, j] = s[arm_row(n_arms, PARAMS, k) + j]
    slot = (update + 1) % depth  # the logits before update - lag (zeros while update < lag)
    for k in range(n_arms):
        sampler[k, j] = history[slot, k, j]
    if mismatch > 0.0:
        for pair in range((n_arms + 1) // 2):
            w0, w1, w2, w3 = philox_block(np.uint64(update), np.uint64(pair), _MISMATCH_C2,
                                          _MISMATCH_C3, k0, k1)
            z0, z1 = box_muller(w0, w1, w2, w3)
            sampler[2 * pair, j] += mismatch * z0
            if 2 * pair + 1 < n_arms:
                sampler[2 * pair + 1, j] += mismatch * z1
    # REINFORCE's prepare, operation for operation: the same weights from the same logits.
    top = sampler[0, j]
    lost = top != top
    for k in range(1, n_arms):
        logit = sampler[k, j]
        top = select(logit > top, logit, top)
        lost = lost | (logit != logit)
    top = select(lost, np.nan, top)
    norm = 0.0
    for k in range(n_arms):
        weight = fast_exp(sampler[k, j] - top)
        sampler[k, j] = weight
        norm += weight
    if top_p < 1.0:
        # Arm k is kept when the arms ahead of it (more probable, or as probable with a lower
        # index) hold less than top_p of the mass: the smallest such set reaching top_p.
        bound = top_p * norm
        kept = 0.0
        for k in range(n_arms):
            ahead = 0.0
            for i in range(n_arms):
                first = (sampler[i, j] > sampler[k, j]) | ((sampler[i, j] == sampler[k, j])
                                                           & (i < k))
                ahead += select(first, sampler[i, j], 0.0)
            history[lag + 1, k, j] = select(ahead < bound, 1.0, 0.0)
        for k in range(n_arms):
            sampler[k, j] = sampler[k, j] * history[lag + 1, k, j]
            kept += sampler[k, j]
        norm = kept
    return norm


@inline_jit
def _kept(n_arms, history, lag, top_p, k, j):  # pragma: no cover
    """1.0 if arm k is in lane j's sampler's support, else 0.0."""
    return history[lag + 1, k, j] if top_p < 1.0 else 1.0


@inline_jit
def _policy(n_arms, s, j, history, lag, top_p, keep_mask, policy):  # pragma: no cover
    """The learner's softmax weights the update's score uses, into ``policy[:, j]`` (REINFORCE's,
    or restricted to the sampler's support with ``keep_mask``), and one over their sum."""
    norm = 0.0
    for k in range(n_arms):
        weight = s[arm_row(n_arms, WEIGHTS, k) + j]
        if keep_mask:
            weight = weight * _kept(n_arms, history, lag, top_p, k, j)
        policy[k, j] = weight
        norm += weight
    return 1.0 / norm if keep_mask else 1.0 / s[lane_row(n_arms, NORM) + j]


@inline_jit
def _kl_gradient(n_arms, s, j, estimator, arms, ratios, gradient):  # pragma: no cover
    """Lane j's estimate of the gradient of KL(pi || uniform) at the update's start, into
    ``gradient[:, j]``: exact, or from the group's arms (``arms[:, j]``) with their full-policy
    ratios pi / mu (``ratios[:, j]``)."""
    inverse = 1.0 / s[lane_row(n_arms, NORM) + j]
    group = arms.shape[0]
    for k in range(n_arms):
        gradient[k, j] = 0.0
    if estimator == EXACT:
        divergence = 0.0
        for k in range(n_arms):
            p = s[arm_row(n_arms, WEIGHTS, k) + j] * inverse
            divergence += p * _log_or_zero(p * n_arms)
        for k in range(n_arms):
            p = s[arm_row(n_arms, WEIGHTS, k) + j] * inverse
            gradient[k, j] = p * (_log_or_zero(p * n_arms) - divergence)
        return
    for i in range(group):
        arm = arms[i, j]
        chosen = 0.0
        for k in range(n_arms):
            chosen += select(arm == k, s[arm_row(n_arms, WEIGHTS, k) + j] * inverse, 0.0)
        if estimator == K1:
            factor = 1.0
        elif estimator == K3:
            factor = 1.0 - 1.0 / (n_arms * chosen)
        else:
            factor = ratios[i, j] * _log_or_zero(chosen * n_arms)
        for k in range(n_arms):
            score = select(arm == k, 1.0, 0.0) - s[arm_row(n_arms, WEIGHTS, k) + j] * inverse
            gradient[k, j] += factor * score
    for k in range(n_arms):
        gradient[k, j] = gradient[k, j] * (1.0 / group)


@inline_jit
def _gradient_errors(n_arms, s, j, group, sampler, sampler_norm, entropy, bias,
                     mse):  # pragma: no cover
    """Lane j's readout of the state: the learner's entropy and, for k1, k3 and k3_is, the
    exact bias (its norm) and mean squared error of the gradient estimate from a group of G
    drawn from ``sampler`` (the module's docstring of ``study.model.offpolicy``)."""
    inverse = 1.0 / s[lane_row(n_arms, NORM) + j]
    divergence = 0.0
    spread = 0.0
    for k in range(n_arms):
        p = s[arm_row(n_arms, WEIGHTS, k) + j] * inverse
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
            p_a = s[arm_row(n_arms, WEIGHTS, a) + j] * inverse
            mu_a = sampler[a, j] * (1.0 / sampler_norm)
            if estimator == K1:
                factor = 1.0
            elif estimator == K3:
                factor = 1.0 - 1.0 / (n_arms * p_a)
            else:
                factor = p_a / mu_a * _log_or_zero(p_a * n_arms)
            factors[a] = select(mu_a > 0.0, factor, 0.0)
            for k in range(n_arms):
                p_k = s[arm_row(n_arms, WEIGHTS, k) + j] * inverse
                mean[k] += mu_a * (factors[a] * (select(a == k, 1.0, 0.0) - p_k))
        squared = 0.0
        for k in range(n_arms):
            p_k = s[arm_row(n_arms, WEIGHTS, k) + j] * inverse
            exact = p_k * (_log_or_zero(p_k * n_arms) - divergence)
            squared += (mean[k] - exact) ** 2
        variance = 0.0
        for a in range(n_arms):
            mu_a = sampler[a, j] * (1.0 / sampler_norm)
            for k in range(n_arms):
                p_k = s[arm_row(n_arms, WEIGHTS, k) + j] * inverse
                value = factors[a] * (select(a == k, 1.0, 0.0) - p_k)
                variance += mu_a * (value - mean[k]) ** 2
        bias[e] = np.sqrt(squared)
        mse[e] = squared + variance / group


@jit
def simulate_offpolicy(name, n_arms, model, keys, lanes, values, best, parameters, lr,
                       leave_one_out, zscore, group, lag, mismatch, top_p, weight, opsm,
                       keep_mask, clip_range, tis_cap, opsm_threshold, beta, estimator, budgets,
                       out, extra, curve_optimal, curve_reward) -> None:  # pragma: no cover
    """``study.core.kernel.simulate_groups`` for the off-policy group learner (``name`` is
    ``"reinforce"``, whose softmax and readout it uses; ``leave_one_out`` and ``zscore`` pick
    the group estimator, neither: the group mean): rollouts from the sampler ``lag``,
    ``mismatch`` (its noise drawn only where it is above 0), ``top_p`` make, the update weighted by
    ``weight`` (``NONE`` ...) and masked by ``opsm`` and ``keep_mask``, then the KL term
    ``beta`` by ``estimator``. ``extra`` holds the block's (entropy (runs, checkpoints),
    bias and mse (runs, checkpoints, ``RECORDED``)) at each checkpoint."""
    nb.literally(name)
    nb.literally(n_arms)
    nb.literally(model)
    arms = literal_or(n_arms, values.shape[1])
    used = keys.shape[0]
    entropy, bias, mse = extra
    s, grid, k0, k1, main, mine, uniforms, own, scores = _start(arms, model, keys, lanes,
                                                                values, best)
    pulled = np.empty((group, lanes))
    rewards = np.empty((group, lanes))
    advantage = np.empty((group, lanes))
    ratios = np.empty((group, lanes))
    factors = np.empty((group, lanes))
    # The lagged logits (lag + 1 slots), then a row of the sampler's support under top-p.
    history = np.zeros((lag + 2, arms, lanes))
    sampler = np.empty((arms, lanes))
    sampler_norm = np.empty(lanes)
    policy = np.empty((arms, lanes))
    inverse = np.empty(lanes)
    gradient = np.zeros((arms, lanes))
    readout = np.empty(1)
    errors = np.empty((2, RECORDED))
    checkpoint = _FIRST
    updates = budgets[-1] // group
    base, spare = lane_row(arms, WORK_A), lane_row(arms, WORK_B)
    scale = lr * (1.0 / group)
    for update in range(updates + 1):
        for j in range(np.uint64(lanes)):
            s[lane_row(arms, NORM) + j] = prepare(name, arms, s, j)
            sampler_norm[j] = _sampler(arms, s, j, update, history, lag, mismatch,
                                       top_p, k0[j], k1[j], sampler)
        if checkpoint < budgets.shape[0] and budgets[checkpoint] // group == update:
            first = checkpoint
            checkpoint = _record_due(name, update, checkpoint, used, group, k0, k1, best, values,
                                     budgets, grid, arms, scores, out)
            for j in range(used):
                _gradient_errors(arms, s, j, group, sampler, sampler_norm[j], readout,
                                 errors[0], errors[1])
                for c in range(first, checkpoint):
                    entropy[j, c] = readout[0]
                    for e in range(RECORDED):
                        bias[j, c, e] = errors[0, e]
                        mse[j, c, e] = errors[1, e]
        if update == updates:
            break
        for i in range(group):
            t = update * group + i
            row = _draw(t, main, mine, model, uniforms, own)
            for j in range(np.uint64(lanes)):
                # Inverse CDF over the sampler's weights, as REINFORCE's choose over its own.
                threshold = uniforms[2 * row, j] * sampler_norm[j]
                cumulative = 0.0
                arm = 0.0
                for k in range(arms - 1):
                    cumulative += sampler[k, j]
                    arm = select(cumulative <= threshold, arm + 1.0, arm)
                group_rollout(model, arms, s, i, j, arm, uniforms[2 * row + 1, j], own[row, j],
                              parameters, pulled, rewards)
            if curve_optimal.shape[0] > 0:
                _add_trace(arms, s, used, t, curve_optimal, curve_reward)
        group_advantages(s, base, spare, lanes, rewards, advantage, leave_one_out, zscore,
                         ZSCORE_EPSILON)
        count_zero_signal(s, spare, lane_row(arms, ZERO_SIGNAL), lanes, advantage)
        for j in range(np.uint64(lanes)):
            inverse[j] = _policy(arms, s, j, history, lag, top_p, keep_mask, policy)
            for i in range(group):
                arm = pulled[i, j]
                learner = 0.0
                full = 0.0
                behaviour = 0.0
                for k in range(arms):
                    hit = arm == k
                    learner += select(hit, policy[k, j] * inverse[j], 0.0)
                    full += select(hit, s[arm_row(arms, WEIGHTS, k) + j]
                                   * (1.0 / s[lane_row(arms, NORM) + j]), 0.0)
                    behaviour += select(hit, sampler[k, j] * (1.0 / sampler_norm[j]), 0.0)
                rho = learner / behaviour
                ratios[i, j] = full / behaviour
                a = advantage[i, j]
                w = 1.0
                if weight == IS:
                    w = rho
                elif weight == TIS:
                    w = min(rho, tis_cap)
                elif weight == PPO_CLIP:
                    flat = ((a > 0.0) & (rho > 1.0 + clip_range)) | ((a < 0.0)
                                                                      & (rho < 1.0 - clip_range))
                    w = select(flat, 0.0, rho)
                if opsm:
                    # Drop a negative-advantage sample whose sampler has drifted from the learner:
                    # log(mu / pi) > delta, that is log rho < -delta. A rho that is not finite
                    # (a state past its numbers) has no logarithm to compare: not dropped.
                    usable = (rho >= SMALLEST_NORMAL) & (rho < np.inf)
                    drifted = ((rho < SMALLEST_NORMAL) | (
                        usable & (fast_log(select(usable, rho, 1.0)) < -opsm_threshold)))
                    w = select((a < 0.0) & drifted, 0.0, w)
                factors[i, j] = w
        if beta > 0.0:
            for j in range(np.uint64(lanes)):
                _kl_gradient(arms, s, j, estimator, pulled, ratios, gradient)
        # logits += c_i (onehot(a_i) - pi) with c_i = lr (1 / G) A_i w_i, rollout by rollout.
        for i in range(group):
            for j in range(np.uint64(lanes)):
                c = scale * advantage[i, j] * factors[i, j]
                for k in range(arms):
                    indicator = select(pulled[i, j] == k, 1.0, 0.0)
                    s[arm_row(arms, PARAMS, k) + j] += c * (indicator
                                                            - policy[k, j] * inverse[j])
        if beta > 0.0:
            step = lr * beta
            for j in range(np.uint64(lanes)):
                for k in range(arms):
                    s[arm_row(arms, PARAMS, k) + j] -= step * gradient[k, j]
        for i in range(group):
            for j in range(np.uint64(lanes)):
                _count(arms, s, j, pulled[i, j], rewards[i, j])
