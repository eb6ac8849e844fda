"""REINFORCE (Williams 1992): a softmax policy over K logits, trained by the policy gradient with
a baseline, on single rollouts or on groups of G rollouts per update (GRPO and its variants).

Update u: weights w[k] = exp(l[k] - max l), pi[k] = w[k] * (1 / sum w), the policy before the
update. Rollout i = 0 .. G - 1 is rollout t = u G + i of the run's stream: its arm a_i is the first
whose cumulative weight exceeds u_t * sum w (u_t the action draw; the last arm if rounding leaves
none), its reward r_i. Then, with c_i = lr * (1 / G) * A_i, l[k] += c_i ([k = a_i] - pi[k]) for
every k, added rollout by rollout in order. The advantage A_i = r_i - b_i with a baseline computed
before the group:

* ``none``: b = 0; ``running_mean``: the mean reward of all earlier rollouts (0 before the first);
  ``running_mean_inclusive``: the mean of the earlier rollouts and this one's reward (Sutton and
  Barto's gradient bandit, section 2.8); ``per_arm``: the mean of the earlier rewards of arm a_i
  (0 before its first pull).

or is a group estimator (G >= 2), with m = (r_1 + ... + r_G) / G:

* ``group_mean`` (Dr. GRPO, Liu et al. 2025): A_i = r_i - m;
* ``group_zscore`` (GRPO, Shao et al. 2024): A_i = (r_i - m) / (s + 1e-4), s the sample standard
  deviation of the group's rewards (G - 1 in the denominator);
* ``leave_one_out`` (RLOO, Kool et al. 2019; Ahmadian et al. 2024): A_i = r_i - (sum of the
  others) / (G - 1).

An update whose advantages are all 0 carries no signal (``zero_signal_updates``). The greedy arm is
the argmax of the logits; ``p_best`` is the policy's mass on the best arms and ``pass_rate``
its expected reward sum pi[k] v[k].
"""

from __future__ import annotations

from study.learners import Learner

LEARNER = Learner(
    name="reinforce",
    display="REINFORCE",
    nested=True,
    streams=("main", "tie_break"),
    axes=("lr", "baseline", "group_size"),
    baselines=("none", "running_mean", "per_arm", "running_mean_inclusive", "group_mean",
               "group_zscore", "leave_one_out"),
    group_baselines=("group_mean", "group_zscore", "leave_one_out"),
    summary="softmax policy trained by the policy gradient with a baseline",
)

(_NONE, _RUNNING_MEAN, _PER_ARM, _RUNNING_MEAN_INCLUSIVE, _GROUP_MEAN, _GROUP_ZSCORE,
 _LEAVE_ONE_OUT) = (LEARNER.baseline_code(b) for b in LEARNER.baselines)
ZSCORE_EPSILON = 1e-4
"""Added to the group's standard deviation before dividing, as common GRPO implementations do."""
_SUMS, _PULLS, _INVERSE = range(3)
"""The learner's rows of the block's scratch array: a per-arm baseline's picked reward sum and
pulls, then 1 / norm for the step."""


def register() -> None:
    """Implement the kernel's stubs for REINFORCE (``study.core.hooks``)."""
    import math

    import numpy as np

    from study.core.advantages import count_zero_signal, group_advantages
    from study.core.arms import counted, in_passes, padded, pick, picked, tally
    from study.core.bits import select
    from study.core.fastexp import fast_exp
    from study.core.hooks import (
        choose,
        choose_lane,
        implement,
        learn,
        learn_one,
        learn_one_lane,
        policy_mean,
        prepare,
        prepare_lane,
        score,
    )
    from study.core.jit import inline_jit
    from study.core.softmax import inverse_cdf, inverse_cdf_lane, softmax_lane, softmax_weights
    from study.core.state import (
        ARM_REWARDS,
        NORM,
        PARAMS,
        PULLS,
        TOTAL,
        WEIGHTS,
        WORK_A,
        WORK_B,
        ZERO_SIGNAL,
        arm_row,
        chunk_width,
        lane_row,
    )

    @implement(prepare, LEARNER.name)
    def _prepare(name, n_arms, s, lanes, w):  # pragma: no cover
        # Softmax weights exp(l - max l) and their sum: the policy of the whole group.
        softmax_weights(n_arms, s, PARAMS, WEIGHTS, lane_row(NORM), lanes, w)

    @implement(prepare_lane, LEARNER.name)
    def _prepare_lane(name, n_arms, s, j):  # pragma: no cover
        return softmax_lane(n_arms, s, PARAMS, WEIGHTS, j)

    @implement(choose_lane, LEARNER.name)
    def _choose_lane(name, n_arms, t, s, j, u_action):  # pragma: no cover
        return inverse_cdf_lane(n_arms, s, WEIGHTS, lane_row(NORM), j, u_action, s)[0]

    @implement(choose, LEARNER.name)
    def _choose(name, n_arms, t, s, lanes, w, u_action, arms, values):  # pragma: no cover
        inverse_cdf(n_arms, s, WEIGHTS, lane_row(NORM), u_action, lanes, w, s, arms, values)

    @inline_jit
    def _baseline(baseline, t, total, reward, sums, pulls):  # pragma: no cover
        """A rollout's baseline computed before its group, b_i, from its lane's reward sum
        ``total`` and its arm's reward sum ``sums`` and ``pulls``. The branches test the
        baseline's code and t, the same for every lane, so the lane loop still vectorizes (LLVM
        makes a copy of it per baseline); the caller loads every input before them (a load in a
        branch kept LLVM from making it a select and the lane loop scalar), and only the chosen
        baseline is computed."""
        if baseline == _PER_ARM:
            # Before the arm's first pull its reward sum is 0, and 0 / max(0, 1) = 0.
            return sums / np.maximum(pulls, 1.0)
        if baseline == _RUNNING_MEAN_INCLUSIVE:
            return (total + reward) * (1.0 / (t + 1))
        if baseline == _RUNNING_MEAN and t > 0:
            return total * (1.0 / t)
        return 0.0

    @inline_jit
    def _picks(n_arms, baseline, s, lanes, w, arms):  # pragma: no cover
        """A per-arm baseline's reward sum and pulls of every lane's arm, into the scratch
        rows ``_SUMS`` and ``_PULLS``."""
        if baseline == _PER_ARM:
            pick(n_arms, s, ARM_REWARDS, arms, lanes, w, lane_row(_SUMS))
            pick(n_arms, s, PULLS, arms, lanes, w, lane_row(_PULLS))

    @inline_jit
    def _advantage(baseline, t, s, j, reward, sums, pulls):  # pragma: no cover
        """Lane j's advantage A = r - b of a rollout alone, its ``ZERO_SIGNAL`` counted."""
        advantage = reward - _baseline(baseline, t, s[lane_row(TOTAL) + j], reward, sums, pulls)
        zero_signal = s[lane_row(ZERO_SIGNAL) + j]
        s[lane_row(ZERO_SIGNAL) + j] = select(advantage == 0.0, zero_signal + 1.0, zero_signal)
        return advantage

    @inline_jit
    def _update(s, j, arm, c, inverse_norm, reward, first, width, counts):  # pragma: no cover
        """Lane j's step logits += c (onehot(arm) - pi), pi = weight * inverse_norm, on arms
        first .. first + width - 1, and where ``counts`` its rollout added to their sums (two
        rows' updates in one pass: each row's operations are in the same order)."""
        for i in range(width):
            k = first + i
            indicator = select(arm == k, 1.0, 0.0)
            s[arm_row(PARAMS, k) + j] += c * (
                indicator - s[arm_row(WEIGHTS, k) + j] * inverse_norm)
        if counts:
            counted(s, j, arm, reward, first, width)

    @inline_jit
    def _updates(n_arms, s, lanes, w, arms, advantage, rewards, scale):  # pragma: no cover
        """Every lane's ``_update`` with c = scale A, the scratch row ``_INVERSE`` holding
        1 / norm, and its rollout added to the sums (in the step's pass where K is taken all at
        once, else by ``tally``; a step of the arms past K moves nothing any pass reads)."""
        chunk = chunk_width(n_arms)
        passes = in_passes(n_arms)
        for first in range(0, padded(n_arms), chunk):
            for j in range(lanes):
                _update(s, j, arms[j], scale * advantage[j], w[lane_row(_INVERSE) + j],
                        rewards[j], first, chunk, not passes)
        if passes:
            tally(n_arms, s, arms, rewards, lanes)
        for j in range(lanes):
            s[lane_row(TOTAL) + j] += rewards[j]

    @implement(learn_one_lane, LEARNER.name)
    def _learn_one_lane(name, n_arms, t, lr, baseline, s, j, arm, reward):  # pragma: no cover
        advantage = _advantage(baseline, t, s, j, reward,
                               picked(s, ARM_REWARDS, j, arm, 0.0, 0, n_arms),
                               picked(s, PULLS, j, arm, 0.0, 0, n_arms))
        _update(s, j, arm, (lr * 1.0) * advantage, 1.0 / s[lane_row(NORM) + j], reward, 0,
                n_arms, True)
        s[lane_row(TOTAL) + j] += reward

    @implement(learn_one, LEARNER.name)
    def _learn_one(name, n_arms, t, lr, baseline, s, lanes, w, arms, rewards,
                   advantage):  # pragma: no cover
        _picks(n_arms, baseline, s, lanes, w, arms)
        for j in range(lanes):
            advantage[j] = _advantage(baseline, t, s, j, rewards[j], w[lane_row(_SUMS) + j],
                                      w[lane_row(_PULLS) + j])
            w[lane_row(_INVERSE) + j] = 1.0 / s[lane_row(NORM) + j]
        _updates(n_arms, s, lanes, w, arms, advantage, rewards, lr * 1.0)

    @implement(learn, LEARNER.name)
    def _learn(name, n_arms, t, lr, baseline, s, lanes, w, arms, rewards,
               advantage):  # pragma: no cover
        group = arms.shape[0]
        base = lane_row(WORK_A)
        spare = lane_row(WORK_B)
        if baseline in (_GROUP_MEAN, _GROUP_ZSCORE, _LEAVE_ONE_OUT):
            group_advantages(s, base, spare, lanes, rewards, advantage,
                             baseline == _LEAVE_ONE_OUT, baseline == _GROUP_ZSCORE,
                             ZSCORE_EPSILON)
        else:
            # A baseline computed before the group, per rollout: A_i = r_i - b_i.
            for i in range(group):
                _picks(n_arms, baseline, s, lanes, w, arms[i])
                for j in range(lanes):
                    advantage[i, j] = rewards[i, j] - _baseline(
                        baseline, t, s[lane_row(TOTAL) + j], rewards[i, j],
                        w[lane_row(_SUMS) + j], w[lane_row(_PULLS) + j])
        count_zero_signal(s, spare, lane_row(ZERO_SIGNAL), lanes, advantage)
        for j in range(lanes):
            w[lane_row(_INVERSE) + j] = 1.0 / s[lane_row(NORM) + j]  # pi = weight * (1 / norm)
        # logits += c_i (onehot(a_i) - pi) with c_i = lr * (1 / G) * A_i, rollout by rollout,
        # each rollout added to the sums as it is learned from (the sums are read only before
        # the group, by the baselines).
        scale = lr * (1.0 / group)
        for i in range(group):
            _updates(n_arms, s, lanes, w, arms[i], advantage[i], rewards[i], scale)

    @implement(score, LEARNER.name)
    def _score(name, lane, params, pulls, arm_rewards, scores):  # pragma: no cover
        ok = True
        for k in range(scores.shape[0]):
            scores[k] = params[k, lane]
            ok = ok and math.isfinite(scores[k])
        return ok

    @implement(policy_mean, LEARNER.name)
    def _policy_mean(name, scores, per_arm):  # pragma: no cover
        n_arms = scores.shape[0]
        top = scores[0]
        for k in range(1, n_arms):
            top = max(top, scores[k])
        norm = 0.0
        mass = 0.0
        for k in range(n_arms):
            weight = fast_exp(scores[k] - top)
            norm += weight
            # For the best-arm indicator the same bits as adding the best arms' weights alone:
            # a weight times 1.0 is itself, times 0.0 adds +0.0.
            mass += weight * per_arm[k]
        return mass / norm
