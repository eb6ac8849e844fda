"""Epsilon-greedy on sample means (Sutton and Barto, section 2.3), with epsilon = 0.1.

Episode t, with u the action draw: if u < epsilon the arm is floor(u / epsilon * K), uniform over
the arms (at most K - 1); otherwise it is a greedy arm, the arms with the largest estimate
Q[k] = (reward sum of k) / max(pulls of k, 1) (0 before k's first pull, as the book's initial
estimates) tied, and v = (u - epsilon) / (1 - epsilon), uniform on [0, 1) and independent of the
choice to explore, picking the floor(v * ties)-th of them in index order. It does not train (no lr,
no baseline); after B episodes it recommends the arm with the highest empirical mean among those
pulled, ties at random.
"""

from __future__ import annotations

from study.learners import Learner

EPSILON = 0.1

LEARNER = Learner(
    name="epsilon_greedy",
    display=f"epsilon-greedy ({EPSILON:g})",
    nested=True,
    streams=("main", "tie_break"),
    summary=f"explores uniformly with probability {EPSILON:g}, else pulls a best sample mean",
)


def register() -> None:
    """Implement the kernel's ``choose`` stub; the greedy pick scores the arms by their empirical
    means (the stub's default)."""
    import numpy as np

    from study.core.hooks import choose, implement

    @implement(choose, LEARNER.name)
    def _choose(name, t, u_action, params, weights, norm, pulls, arm_rewards, arm, work_a,
                work_b):  # pragma: no cover
        lanes = arm.shape[0]
        n_arms = params.shape[0]
        top, pick = work_a, work_b
        estimate, tied = weights, norm  # scratch: the estimates Q and a count of tied arms
        for j in range(lanes):
            top[j] = -np.inf
        for k in range(n_arms):
            for j in range(lanes):
                estimate[k, j] = arm_rewards[k, j] / max(pulls[k, j], 1.0)
                top[j] = max(top[j], estimate[k, j])
        for j in range(lanes):
            tied[j] = 0.0
        for k in range(n_arms):
            for j in range(lanes):
                tied[j] += np.float64(estimate[k, j] == top[j])
        for j in range(lanes):
            pick[j] = np.floor((u_action[j] - EPSILON) / (1.0 - EPSILON) * tied[j])
            tied[j] = 0.0
            arm[j] = 0.0
        # The pick-th greedy arm is the number of arms k < K - 1 with at most pick greedy arms
        # among arms 0 .. k (branch-free, as REINFORCE's inverse CDF).
        for k in range(n_arms - 1):
            for j in range(lanes):
                tied[j] += np.float64(estimate[k, j] == top[j])
                arm[j] += np.float64(tied[j] <= pick[j])
        for j in range(lanes):
            explore = np.float64(u_action[j] < EPSILON)
            uniform = min(np.floor(u_action[j] / EPSILON * n_arms), n_arms - 1.0)
            arm[j] = explore * uniform + (1.0 - explore) * arm[j]
