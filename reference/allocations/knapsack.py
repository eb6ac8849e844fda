"""Knapsack allocation: P G rollouts by value per rollout, a prompt's first two as one step."""

from __future__ import annotations


def sizes(prompts: list, group: int, words: tuple[int, int], r: int) -> list[int]:
    """p = (1 + passed) / (2 + passed + failed), q = 1 - p, w = p q q; a prompt's first pair is
    worth p q w per rollout, its step from n to n + 1 rollouts w (p^n q + q^n p); the best step
    over every prompt (ties to the prompt with fewer rollouts, then to the lower index) until
    the P G rollouts are spent, a first pair that no longer fits dropped. A scan for the best
    each time: slow, and plainly the rule."""
    rates = [(1.0 + p.passed) / (2.0 + p.passed + p.failed) for p in prompts]
    given = [0] * len(prompts)
    powers = [(0.0, 0.0)] * len(prompts)
    worth = [(p * (1.0 - p) * (1.0 - p)) * (p * (1.0 - p)) for p in rates]
    open_ = set(range(len(prompts)))
    left = len(prompts) * group
    while open_ and left > 0:
        i = max(open_, key=lambda j: (worth[j], -given[j], -j))
        p = rates[i]
        q = 1.0 - p
        if given[i] == 0:
            if left < 2:
                open_.discard(i)
                continue
            given[i], left = 2, left - 2
            powers[i] = (p * p, q * q)
        else:
            given[i], left = given[i] + 1, left - 1
            powers[i] = (powers[i][0] * p, powers[i][1] * q)
        worth[i] = (p * q * q) * (powers[i][0] * q + powers[i][1] * p)
    return given
