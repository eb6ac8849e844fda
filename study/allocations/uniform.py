"""Uniform allocation: every prompt gets the configured G every pass."""

from __future__ import annotations

from study.allocations import Allocation

ALLOCATION = Allocation(name="uniform", display="uniform allocation", key="Uniform",
                        whole_groups=True, fixed=True, uniform_first_pass=True,
                        summary="every prompt gets G every pass")


def register() -> None:
    """Implement ``sizes`` for uniform allocation (``study.core.allocation_hooks``)."""
    from study.core.allocation_hooks import implement, sizes

    @implement(sizes, ALLOCATION.name)
    def _sizes(arms, group, r, k0, k1, values, weights, norm, run, passed, failed, scratch, work,
               out):  # pragma: no cover
        out[:] = group
