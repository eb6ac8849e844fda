"""Truncated importance sampling: a rollout's weight is min(rho, C), C the cap ``tis_cap``, as
trainers correct an inference engine's mismatch (Yao et al. 2025)."""

from __future__ import annotations

from study.corrections import Correction
from study.rewards import Parameter

CORRECTION = Correction(
    name="tis", kind="weight",
    parameters=(Parameter("tis_cap", 1e-9, 1e12, 2.0,
                          "the truncation C of the importance weight"),),
    summary="the importance ratio truncated at C, min(rho, C)",
    source="Yao et al. 2025, truncated importance sampling for the rollout-training mismatch")


def register() -> None:
    """Implement ``weight`` for truncated importance sampling."""
    from study.core.bits import select
    from study.core.correction_hooks import implement, weight

    @implement(weight, CORRECTION.name)
    def _weight(rho, advantage, parameters, first):  # pragma: no cover
        cap = parameters[first]
        return select(cap < rho, cap, rho)  # min(rho, cap), rho where it is NaN
