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

    from study.core.hooks import choose_lane, implement
    from study.core.state import ARM_REWARDS, PULLS, WEIGHTS, arm_row

    @implement(choose_lane, LEARNER.name)
    def _choose_lane(name, n_arms, t, s, j, u_action):  # pragma: no cover
        # The estimates Q go into the learner's scratch rows.
        top = -np.inf
        for k in range(n_arms):
            estimate = (s[arm_row(ARM_REWARDS, k) + j]
                        / np.maximum(s[arm_row(PULLS, k) + j], 1.0))
            s[arm_row(WEIGHTS, k) + j] = estimate
            top = np.maximum(top, estimate)
        tied = 0.0
        for k in range(n_arms):
            tied += np.float64(s[arm_row(WEIGHTS, k) + j] == top)
        pick = np.floor((u_action - EPSILON) / (1.0 - EPSILON) * tied)
        # The pick-th greedy arm is the number of arms k < K - 1 with at most pick greedy arms
        # among arms 0 .. k (branch-free, as REINFORCE's inverse CDF).
        tied = 0.0
        arm = 0.0
        for k in range(n_arms - 1):
            tied += np.float64(s[arm_row(WEIGHTS, k) + j] == top)
            arm += np.float64(tied <= pick)
        explore = np.float64(u_action < EPSILON)
        uniform = np.minimum(np.floor(u_action / EPSILON * n_arms), n_arms - 1.0)
        return explore * uniform + (1.0 - explore) * arm
