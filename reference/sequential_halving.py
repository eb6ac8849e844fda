"""Sequential halving, the reference of ``study/learners/sequential_halving.py``."""

from __future__ import annotations

import math

from reference import FixedBudgetRun


def run_budget(run: FixedBudgetRun, budget: int) -> None:
    """ceil(log2 K) rounds; each keeps the better half by the means of its own pulls."""
    rounds = math.ceil(math.log2(len(run.values)))
    for phase in range(1, rounds + 1):
        each = budget // (len(run.alive) * rounds)
        gained = dict.fromkeys(run.alive, 0.0)
        for _ in range(each):
            for a in list(run.alive):
                gained[a] += run.pull(a)
        means = {a: gained[a] / each if each else -math.inf for a in run.alive}
        keep = (len(run.alive) + 1) // 2
        while len(run.alive) > keep:
            run.drop_worst(means, phase)
