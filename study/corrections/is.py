"""Importance sampling: a rollout's weight is its ratio rho = pi(a) / mu(a), unbiased for the
learner's own update wherever the sampler covers its support."""

from __future__ import annotations

from study.corrections import Correction

CORRECTION = Correction(name="is", kind="weight", summary="the importance ratio rho itself",
                        source="the policy-gradient theorem off policy (Precup et al. 2000)")


def register() -> None:
    """Implement ``weight`` for importance sampling (``study.core.correction_hooks``)."""
    from study.core.correction_hooks import implement, weight

    @implement(weight, CORRECTION.name)
    def _weight(rho, advantage, parameters, first):  # pragma: no cover
        return rho
