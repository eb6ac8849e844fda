"""Skipping prompts without signal (GRESO-like, after Zheng et al. 2025): a prompt after z
groups in a row without signal (every reward alike) is skipped this pass with probability
1 - max(2^-z, ``RETRY_FLOOR``), by its draw of the pass from the SKIP stream (word i mod 4 of
block (r, i div 4, 3, 1)); otherwise it gets G."""

from __future__ import annotations

from study.allocations import Allocation

RETRY_FLOOR = 1.0 / 16.0
"""The least chance of a retry: a prompt is never skipped for good."""

ALLOCATION = Allocation(
    name="skip_zero_signal", display="skipping zero-signal prompts", key="Skip", whole_groups=True,
    uniform_first_pass=True, source="Zheng et al. 2025, GRESO (the rule after it)",
    summary="a prompt after z groups without signal skipped with probability "
            "1 - max(2^-z, 1/16), else G")


def register() -> None:
    """Implement ``sizes`` for skipping zero-signal prompts."""
    from study.core.allocation_hooks import implement, sizes
    from study.core.prompts import pass_uniforms
    from study.core.streams import SKIP_C2, SKIP_C3

    @implement(sizes, ALLOCATION.name)
    def _sizes(arms, group, r, k0, k1, values, weights, norm, run, passed, failed, scratch, work,
               out):  # pragma: no cover
        pass_uniforms(r, SKIP_C2, SKIP_C3, k0, k1, scratch)
        for i in range(out.shape[0]):
            retry = 1.0
            for _ in range(min(run[i], 4)):
                retry *= 0.5
            skip = 1.0 - max(retry, RETRY_FLOOR)
            out[i] = 0 if scratch[i] < skip else group
