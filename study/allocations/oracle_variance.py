"""Oracle variance allocation: as ``variance``, the weight q (1 - q) of each prompt's true pass
rate q = sum pi[k] v[k] under its current policy, which no trainer knows: the best a variance
rule could do."""

from __future__ import annotations

from study.allocations import Allocation

ALLOCATION = Allocation(
    name="oracle_variance", display="oracle variance allocation", key="Oracle", reads_policy=True,
    summary="P G rollouts in proportion to q (1 - q) of each prompt's true pass rate, at least "
            "2 each")


def register() -> None:
    """Implement ``sizes`` for oracle variance allocation."""
    from study.core.allocation_hooks import implement, sizes
    from study.core.prompts import allocate_by_weights, pass_rate

    @implement(sizes, ALLOCATION.name)
    def _sizes(arms, group, r, k0, k1, values, weights, norm, run, passed, failed, scratch, work,
               out):  # pragma: no cover
        for i in range(out.shape[0]):
            q = pass_rate(arms, weights, norm, values, i)
            scratch[i] = q * (1.0 - q)
        allocate_by_weights(scratch, group, out, work)
