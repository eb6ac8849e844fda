"""The kept mask (DeepSeek-V3.2): the learner's softmax restricted to the arms the truncated
sampler can draw (its top-p set), pi_S, in the score and in rho, so that the update never
pushes mass onto arms the sampler would not serve. The off-policy driver's own operation."""

from __future__ import annotations

from study.corrections import Correction

CORRECTION = Correction(
    name="keep_mask", kind="support",
    summary="the learner's softmax restricted to the sampler's support, in the score and in rho",
    source="DeepSeek-AI 2025, DeepSeek-V3.2 (keep sampling mask)")


def register() -> None:
    """Nothing to implement: the driver restricts the support (``study.core.offpolicy``)."""
