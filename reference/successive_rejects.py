"""Successive rejects, the reference of ``study/learners/successive_rejects.py``."""

from __future__ import annotations

import math

from reference import FixedBudgetRun


def run_budget(run: FixedBudgetRun, budget: int) -> None:
    """K - 1 phases; after phase k each survivor has n_k pulls and the worst mean is rejected."""
    arms = len(run.values)
    log_bar = 0.5 + sum(1.0 / i for i in range(2, arms + 1))
    previous = 0
    for phase in range(1, arms):
        target = max(math.ceil((budget - arms) / (log_bar * (arms + 1 - phase))), 0)
        for _ in range(target - previous):
            for a in list(run.alive):
                run.pull(a)
        previous = target
        run.drop_worst({a: run.wins[a] / run.pulls[a] if run.pulls[a] else -math.inf
                        for a in run.alive}, phase)
