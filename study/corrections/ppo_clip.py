"""PPO's clip: a rollout's weight is rho, or 0 where PPO's clipped surrogate is flat (A > 0 and
rho > 1 + c, or A < 0 and rho < 1 - c, c the clip range ``clip_range``): such a rollout has no
gradient."""

from __future__ import annotations

from study.corrections import Correction
from study.rewards import Parameter

CORRECTION = Correction(
    name="ppo_clip", kind="weight",
    parameters=(Parameter("clip_range", 1e-9, 1e12, 0.2, "PPO's clip range c"),),
    summary="rho, or 0 where PPO's clipped surrogate is flat",
    source="Schulman et al. 2017, proximal policy optimization")


def register() -> None:
    """Implement ``weight`` for PPO's clip."""
    from study.core.bits import select
    from study.core.correction_hooks import implement, weight

    @implement(weight, CORRECTION.name)
    def _weight(rho, advantage, parameters, first):  # pragma: no cover
        clip = parameters[first]
        flat = ((advantage > 0.0) & (rho > 1.0 + clip)) | ((advantage < 0.0) & (rho < 1.0 - clip))
        return select(flat, 0.0, rho)
