"""Uniform allocation, the classical best-arm-identification reference: episode t pulls arm
t mod K (round robin, so each arm has B // K or B // K + 1 pulls after B episodes), never trains,
and recommends the arm with the highest empirical mean; an arm never pulled (B < K) is not a
candidate."""

from __future__ import annotations

from study.learners import Learner

LEARNER = Learner(
    name="uniform",
    display="uniform allocation",
    nested=True,
    streams=("main", "tie_break"),
    summary="round robin over the arms, empirical-best pick",
)


def register() -> None:
    """Implement the kernel's stubs for uniform allocation (``study.core.hooks``); it learns
    nothing and scores the arms by their empirical means (the stubs' defaults)."""
    import numpy as np

    from study.core.hooks import choose_lane, implement

    @implement(choose_lane, LEARNER.name)
    def _choose_lane(name, n_arms, t, s, j, u_action):  # pragma: no cover
        return np.float64(t % n_arms)
