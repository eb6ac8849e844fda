"""REINFORCE (Williams 1992): a softmax policy over K logits, trained by the policy gradient with
a baseline.

Episode t: weights w[k] = exp(l[k] - max l), pi[k] = w[k] * (1 / sum w); the arm is the first
whose cumulative weight exceeds u * sum w (u the action draw; the last arm if rounding leaves
none); then l[k] += lr * (r - b) * ([k = a] - pi[k]) for every k, with b the baseline:
``none`` 0; ``running_mean`` the mean reward of the earlier episodes (0 before the first);
``running_mean_inclusive`` the mean including this episode's reward (Sutton and Barto's gradient
bandit, section 2.8); ``per_arm`` the mean of the earlier rewards of the pulled arm (0 before its
first pull). The greedy arm is the argmax of the logits; ``p_best`` is the policy's mass on the
best arms.
"""

from __future__ import annotations

from study.learners import Learner

LEARNER = Learner(
    name="reinforce",
    display="REINFORCE",
    nested=True,
    streams=("main", "tie_break"),
    axes=("lr", "baseline"),
    baselines=("none", "running_mean", "per_arm", "running_mean_inclusive"),
    summary="softmax policy trained by the policy gradient with a baseline",
)

_NONE, _RUNNING_MEAN, _PER_ARM, _RUNNING_MEAN_INCLUSIVE = (
    LEARNER.baseline_code(b) for b in LEARNER.baselines)


def register() -> None:
    """Implement the kernel's stubs for REINFORCE (``study.core.hooks``)."""
    import math

    import numpy as np

    from study.core.fastexp import fast_exp
    from study.core.hooks import best_mass, choose, implement, learn, score

    @implement(choose, LEARNER.name)
    def _choose(name, t, u_action, params, weights, norm, pulls, arm_rewards, arm, work_a,
                work_b):  # pragma: no cover
        lanes = u_action.shape[0]
        n_arms = params.shape[0]
        top, cumulative = work_a, work_b
        # Softmax weights exp(l - max l) and their sum.
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
    def _learn(name, t, lr, baseline, arm, reward, params, weights, norm, pulls, arm_rewards,
               total, work_a, work_b):  # pragma: no cover
        lanes = arm.shape[0]
        n_arms = params.shape[0]
        base, count = work_a, work_b
        # The baseline of this episode, then logits += lr (r - b) (onehot(a) - pi).
        if baseline == _RUNNING_MEAN and t > 0:
            inverse_t = 1.0 / t
            for j in range(lanes):
                base[j] = total[j] * inverse_t
        elif baseline == _RUNNING_MEAN_INCLUSIVE:
            inverse_t = 1.0 / (t + 1)
            for j in range(lanes):
                base[j] = (total[j] + reward[j]) * inverse_t
        elif baseline == _PER_ARM:
            for j in range(lanes):
                base[j] = 0.0
                count[j] = 0.0
            for k in range(n_arms):
                for j in range(lanes):
                    hit = np.float64(arm[j] == k)
                    base[j] += arm_rewards[k, j] * hit
                    count[j] += pulls[k, j] * hit
            # Before the arm's first pull its reward sum is 0, and 0 / max(0, 1) = 0.
            for j in range(lanes):
                base[j] = base[j] / max(count[j], 1.0)
        else:
            for j in range(lanes):
                base[j] = 0.0
        for j in range(lanes):
            base[j] = lr * (reward[j] - base[j])  # reuse: the step
            norm[j] = 1.0 / norm[j]  # reuse: pi = weight * (1 / norm)
        for k in range(n_arms):
            for j in range(lanes):
                indicator = np.float64(arm[j] == k)
                params[k, j] += base[j] * (indicator - weights[k, j] * norm[j])

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
