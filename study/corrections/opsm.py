"""Off-policy sequence masking (DeepSeek-V3.2): a rollout with a negative advantage whose
sampler has drifted from the learner, log(mu(a) / pi(a)) > delta (``opsm_threshold``), is
dropped. A ratio that is not finite (a state past its numbers) has no logarithm to compare and
is kept; a ratio below the smallest normal number counts as drifted."""

from __future__ import annotations

from study.corrections import Correction
from study.rewards import Parameter

CORRECTION = Correction(
    name="opsm", kind="mask",
    parameters=(Parameter("opsm_threshold", 0.0, 1e12, 0.1,
                          "delta, the log-ratio log(mu / pi) past which a negative-advantage "
                          "rollout is dropped"),),
    summary="drops a negative-advantage rollout whose log(mu / pi) exceeds delta",
    source="DeepSeek-AI 2025, DeepSeek-V3.2 (off-policy sequence masking)")


def register() -> None:
    """Implement ``keeps`` for off-policy sequence masking."""
    import numpy as np

    from study.core.bits import select
    from study.core.correction_hooks import implement, keeps
    from study.core.elementary import fast_log

    smallest = 2.2250738585072014e-308

    @implement(keeps, CORRECTION.name)
    def _keeps(rho, advantage, parameters, first):  # pragma: no cover
        usable = (rho >= smallest) & (rho < np.inf)
        drifted = (rho < smallest) | (
            usable & (fast_log(select(usable, rho, 1.0)) < -parameters[first]))
        return not ((advantage < 0.0) & drifted)
