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
    from study.core.state import ARM_REWARDS, PULLS, WEIGHTS, arm_row, lane_row

    @implement(choose, LEARNER.name)
    def _choose(name, n_arms, t, s, lanes, w, u_action, arms):  # pragma: no cover
        # The estimates Q go into the learner's scratch rows, a lane's largest, its greedy arms
        # counted and its pick into the block's scratch array; a pass over the lanes per arm.
        top, tied, pick = lane_row(0), lane_row(1), lane_row(2)
        for j in range(lanes):
            w[top + j] = -np.inf
            w[tied + j] = 0.0
        for k in range(n_arms):
            for j in range(lanes):
                estimate = (s[arm_row(ARM_REWARDS, k) + j]
                            / np.maximum(s[arm_row(PULLS, k) + j], 1.0))
                s[arm_row(WEIGHTS, k) + j] = estimate
                w[top + j] = np.maximum(w[top + j], estimate)
        for k in range(n_arms):
            for j in range(lanes):
                w[tied + j] += np.float64(s[arm_row(WEIGHTS, k) + j] == w[top + j])
        for j in range(lanes):
            w[pick + j] = np.floor((u_action[j] - EPSILON) / (1.0 - EPSILON) * w[tied + j])
            w[tied + j] = 0.0
            arms[j] = 0.0
        # The pick-th greedy arm is the number of arms k < K - 1 with at most pick greedy arms
        # among arms 0 .. k (branch-free, as REINFORCE's inverse CDF).
        for k in range(n_arms - 1):
            for j in range(lanes):
                w[tied + j] += np.float64(s[arm_row(WEIGHTS, k) + j] == w[top + j])
                arms[j] += np.float64(w[tied + j] <= w[pick + j])
        for j in range(lanes):
            u = u_action[j]
            explore = np.float64(u < EPSILON)
            uniform = np.minimum(np.floor(u / EPSILON * n_arms), n_arms - 1.0)
            arms[j] = explore * uniform + (1.0 - explore) * arms[j]
