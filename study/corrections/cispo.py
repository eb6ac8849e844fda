"""CISPO's clipped importance weight (MiniMax-M1, 2025): a rollout's weight is rho clipped to
[1 - e_low, 1 + e_high] and held constant, so every rollout keeps its gradient, where PPO's
clip drops the rollouts whose surrogate is flat (``ppo_clip``). MiniMax-M1 disables the lower
clip by a large e_low: the default ``cispo_low`` 1 puts the lower bound at 0, which rho never
crosses, and then the weight is min(rho, 1 + e_high), ``tis`` with the cap 1 + e_high. The
default ``cispo_high`` 0.2 is PPO's clip range (``ppo_clip``), not a value the paper fixes."""

from __future__ import annotations

from study.corrections import Correction
from study.rewards import Parameter

CORRECTION = Correction(
    name="cispo", kind="weight",
    parameters=(Parameter("cispo_low", 0.0, 1e12, 1.0, "e_low: the weight's lower clip is "
                          "1 - e_low"),
                Parameter("cispo_high", 0.0, 1e12, 0.2, "e_high: the weight's upper clip is "
                          "1 + e_high")),
    summary="rho clipped to [1 - e_low, 1 + e_high], every rollout keeping its gradient",
    source="MiniMax 2025, MiniMax-M1 (CISPO)")


def register() -> None:
    """Implement ``weight`` for CISPO's clipped importance weight."""
    from study.core.bits import select
    from study.core.correction_hooks import implement, weight

    @implement(weight, CORRECTION.name)
    def _weight(rho, advantage, parameters, first):  # pragma: no cover
        low = 1.0 - parameters[first]
        high = 1.0 + parameters[first + 1]
        above = select(high < rho, high, rho)  # min(rho, high), rho where it is NaN
        return select(above < low, low, above)
