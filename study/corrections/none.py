"""No correction: every rollout's weight is 1, the on-policy update's."""

from __future__ import annotations

from study.corrections import Correction

CORRECTION = Correction(name="none", kind="weight", summary="every rollout's weight is 1")


def register() -> None:
    """Implement ``weight`` for no correction (``study.core.correction_hooks``)."""
    from study.core.correction_hooks import implement, weight

    @implement(weight, CORRECTION.name)
    def _weight(rho, advantage, parameters, first):  # pragma: no cover
        return 1.0
