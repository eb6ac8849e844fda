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
the argmax of the logits; ``p_best`` is the policy's mass on the best arms.
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


def register() -> None:
    """Implement the kernel's stubs for REINFORCE (``study.core.hooks``)."""
    import math

    import numpy as np

    from study.core.fastexp import fast_exp
    from study.core.hooks import best_mass, choose, implement, learn, prepare, score

    @implement(prepare, LEARNER.name)
    def _prepare(name, params, weights, norm, work_a):  # pragma: no cover
        lanes = norm.shape[0]
        n_arms = params.shape[0]
        top = work_a
        # Softmax weights exp(l - max l) and their sum: the policy of the whole group.
        for j in range(lanes):
            top[j] = params[0, j]
            norm[j] = 0.0
        for k in range(1, n_arms):
            for j in range(lanes):
                top[j] = np.maximum(top[j], params[k, j])
        for k in range(n_arms):
            for j in range(lanes):
                weights[k, j] = fast_exp(params[k, j] - top[j])
                norm[j] += weights[k, j]

    @implement(choose, LEARNER.name)
    def _choose(name, t, u_action, params, weights, norm, pulls, arm_rewards, arm, work_a,
                work_b):  # pragma: no cover
        lanes = u_action.shape[0]
        n_arms = params.shape[0]
        top, cumulative = work_a, work_b
        # Inverse CDF without a branch: the arm is the number of arms k < K - 1 whose cumulative
        # weight is <= u * norm, which is the first arm whose cumulative weight exceeds u * norm
        # (cumulative weights only grow). Comparisons become 0.0 or 1.0 by conversion, not by
        # `x if c else y`: numba lowers the latter to branches, which LLVM turns into masked
        # stores, microcoded and slow on AMD.
        for j in range(lanes):
            top[j] = u_action[j] * norm[j]
            cumulative[j] = 0.0
            arm[j] = 0.0
        for k in range(n_arms - 1):
            for j in range(lanes):
                cumulative[j] += weights[k, j]
                arm[j] += np.float64(cumulative[j] <= top[j])

    @implement(learn, LEARNER.name)
    def _learn(name, t, lr, baseline, arms, rewards, advantage, params, weights, norm, pulls,
               arm_rewards, total, zero_signal, work_a, work_b):  # pragma: no cover
        group, lanes = arms.shape
        n_arms = params.shape[0]
        base, spare = work_a, work_b
        if baseline in (_GROUP_MEAN, _GROUP_ZSCORE, _LEAVE_ONE_OUT):
            for j in range(lanes):
                base[j] = 0.0  # the group's reward sum
            for i in range(group):
                for j in range(lanes):
                    base[j] += rewards[i, j]
            if baseline == _LEAVE_ONE_OUT:
                for i in range(group):
                    for j in range(lanes):
                        advantage[i, j] = rewards[i, j] - (base[j] - rewards[i, j]) / (group - 1)
            else:
                for j in range(lanes):
                    base[j] = base[j] / group  # the group's mean
                for i in range(group):
                    for j in range(lanes):
                        advantage[i, j] = rewards[i, j] - base[j]
            if baseline == _GROUP_ZSCORE:
                for j in range(lanes):
                    spare[j] = 0.0
                for i in range(group):
                    for j in range(lanes):
                        spare[j] += advantage[i, j] * advantage[i, j]
                for j in range(lanes):
                    spare[j] = np.sqrt(spare[j] / (group - 1)) + ZSCORE_EPSILON
                for i in range(group):
                    for j in range(lanes):
                        advantage[i, j] = advantage[i, j] / spare[j]
        else:
            # A baseline computed before the group, per rollout: A_i = r_i - b_i.
            for i in range(group):
                if baseline == _RUNNING_MEAN and t > 0:
                    inverse_t = 1.0 / t
                    for j in range(lanes):
                        base[j] = total[j] * inverse_t
                elif baseline == _RUNNING_MEAN_INCLUSIVE:
                    inverse_t = 1.0 / (t + 1)
                    for j in range(lanes):
                        base[j] = (total[j] + rewards[i, j]) * inverse_t
                elif baseline == _PER_ARM:
                    for j in range(lanes):
                        base[j] = 0.0
                        spare[j] = 0.0
                    for k in range(n_arms):
                        for j in range(lanes):
                            hit = np.float64(arms[i, j] == k)
                            base[j] += arm_rewards[k, j] * hit
                            spare[j] += pulls[k, j] * hit
                    # Before the arm's first pull its reward sum is 0, and 0 / max(0, 1) = 0.
                    for j in range(lanes):
                        base[j] = base[j] / max(spare[j], 1.0)
                else:
                    for j in range(lanes):
                        base[j] = 0.0
                for j in range(lanes):
                    advantage[i, j] = rewards[i, j] - base[j]
        # An update carries no signal when every advantage of its group is 0.
        for j in range(lanes):
            spare[j] = 1.0
        for i in range(group):
            for j in range(lanes):
                spare[j] *= np.float64(advantage[i, j] == 0.0)
        for j in range(lanes):
            zero_signal[j] += spare[j]
        # logits += c_i (onehot(a_i) - pi) with c_i = lr * (1 / G) * A_i, rollout by rollout.
        scale = lr * (1.0 / group)
        for j in range(lanes):
            norm[j] = 1.0 / norm[j]  # reuse: pi = weight * (1 / norm)
        for i in range(group):
            for j in range(lanes):
                advantage[i, j] = scale * advantage[i, j]
        for k in range(n_arms):
            for i in range(group):
                for j in range(lanes):
                    indicator = np.float64(arms[i, j] == k)
                    params[k, j] += advantage[i, j] * (indicator - weights[k, j] * norm[j])

    @implement(score, LEARNER.name)
    def _score(name, lane, params, pulls, arm_rewards, scores):  # pragma: no cover
        ok = True
        for k in range(scores.shape[0]):
            scores[k] = params[k, lane]
            ok = ok and math.isfinite(scores[k])
        return ok

    @implement(best_mass, LEARNER.name)
    def _best_mass(name, scores, is_best):  # pragma: no cover
        n_arms = scores.shape[0]
        top = scores[0]
        for k in range(1, n_arms):
            top = max(top, scores[k])
        norm = 0.0
        mass = 0.0
        for k in range(n_arms):
            weight = fast_exp(scores[k] - top)
            norm += weight
            mass += weight if is_best[k] else 0.0
        return mass / norm
