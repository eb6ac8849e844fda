"""Oracle variance allocation: in proportion to q (1 - q), q the policy's true pass rate."""

from __future__ import annotations

from reference import reinforce as policy
from reference.prompts import allocate, pass_rate


def sizes(prompts: list, group: int, words: tuple[int, int], r: int) -> list[int]:
    """q = sum pi[k] v[k] of each prompt's current policy, split by ``allocate``."""
    weights = []
    for p in prompts:
        q = pass_rate(*policy.prepare(p.state), p.values)
        weights.append(q * (1.0 - q))
    return allocate(weights, group)
