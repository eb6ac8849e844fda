"""Variance allocation: in proportion to E[p (1 - p)] under Beta(1 + passed, 1 + failed)."""

from __future__ import annotations

from reference.prompts import allocate


def sizes(prompts: list, group: int, words: tuple[int, int], r: int) -> list[int]:
    """a b / ((a + b)(a + b + 1)), a = 1 + passed, b = 1 + failed, split by ``allocate``."""
    weights = []
    for p in prompts:
        a, b = 1.0 + p.passed, 1.0 + p.failed
        weights.append((a * b) / ((a + b) * (a + b + 1.0)))
    return allocate(weights, group)
