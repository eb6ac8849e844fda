"""Bernoulli rewards, a verifiable check: pulling an arm with pass probability p gives 1 if the
pull's reward draw u (``study.core.streams``' MAIN) is below p, else 0. No stream of its own."""

from __future__ import annotations

from study.rewards import RewardModel

REWARD = RewardModel(
    name="bernoulli",
    display="Bernoulli",
    values="probs",
    summary="reward 1 with the arm's pass probability, else 0",
)


def register() -> None:
    """Implement the kernel's reward stubs for Bernoulli rewards (``study.core.reward_hooks``)."""
    from study.core.bits import select
    from study.core.reward_hooks import implement, outcome

    @implement(outcome, REWARD.name)
    def _outcome(model, value, u_reward, own, parameters):  # pragma: no cover
        return select(u_reward < value, 1.0, 0.0)
