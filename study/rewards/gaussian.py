"""Gaussian rewards: pulling an arm with mean m gives m + z, z standard normal from the run's
own noise stream (``study.core.gaussian``: Box-Muller on noise block (j, 0, 1, 0) gives z of
pulls 2j and 2j + 1)."""

from __future__ import annotations

from study.core.streams import NOISE_C2, NOISE_C3
from study.rewards import RewardModel

REWARD = RewardModel(
    name="gaussian",
    display="Gaussian",
    values="means",
    stream=(NOISE_C2, NOISE_C3),
    summary="reward the arm's mean plus standard normal noise",
)


def register() -> None:
    """Implement the kernel's reward stubs for Gaussian rewards (``study.core.reward_hooks``)."""
    from study.core.gaussian import box_muller
    from study.core.reward_hooks import implement, outcome, own_pair

    @implement(outcome, REWARD.name)
    def _outcome(model, value, u_reward, own, parameters):  # pragma: no cover
        return value + own

    @implement(own_pair, REWARD.name)
    def _own_pair(model, w0, w1, w2, w3):  # pragma: no cover
        return box_muller(w0, w1, w2, w3)
