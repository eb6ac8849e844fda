"""Skipping zero-signal prompts: 0 when the pass's skip draw is below ``skip_probability``."""

from __future__ import annotations

from reference import philox, unit32


def skip_probability(run: int) -> float:
    """1 - max(2^-z, 1/16): none after a group with signal, then halving the chance of a retry
    with each further group without signal, down to one pass in 16."""
    return 1.0 - max(0.5 ** run, 1.0 / 16.0)


def sizes(prompts: list, group: int, words: tuple[int, int], r: int) -> list[int]:
    """Prompt i's skip draw is word i mod 4 of block (r, i div 4, 3, 1)."""
    return [0 if unit32(philox((r, i // 4, 3, 1), words)[i % 4]) < skip_probability(p.run)
            else group for i, p in enumerate(prompts)]
