"""Variance allocation: the pass's P G rollouts split in proportion to each prompt's estimated
pass-rate variance, E[p (1 - p)] under its Beta(1 + passes, 1 + fails) posterior, a b / ((a +
b)(a + b + 1)), each prompt at least 2 (``study.core.prompts.allocate_by_weights``)."""

from __future__ import annotations

from study.allocations import Allocation

ALLOCATION = Allocation(
    name="variance", display="variance allocation", key="Variance", uniform_first_pass=True,
    reads_passes=True,
    summary="P G rollouts in proportion to each prompt's posterior E[p (1 - p)], at least 2 each")


def register() -> None:
    """Implement ``sizes`` for variance allocation."""
    from study.core.allocation_hooks import implement, sizes
    from study.core.prompts import allocate_by_weights

    @implement(sizes, ALLOCATION.name)
    def _sizes(arms, group, r, k0, k1, values, weights, norm, run, passed, failed, scratch, work,
               out):  # pragma: no cover
        for i in range(out.shape[0]):
            a = 1.0 + passed[i]
            b = 1.0 + failed[i]
            scratch[i] = (a * b) / ((a + b) * (a + b + 1.0))
        allocate_by_weights(scratch, group, out, work)
