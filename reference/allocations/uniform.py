"""Uniform allocation: G each."""

from __future__ import annotations


def sizes(prompts: list, group: int, words: tuple[int, int], r: int) -> list[int]:
    """G for every prompt."""
    return [group] * len(prompts)
