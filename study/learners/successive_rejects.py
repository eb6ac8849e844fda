"""Successive rejects (Audibert, Bubeck and Munos 2010): fixed-budget best-arm
identification.

With log-bar(K) = 1/2 + sum_{i=2..K} 1/i and n_k = ceil((B - K) / (log-bar(K) (K + 1 - k))) (0 if
negative), phase k = 1 .. K - 1 pulls each surviving arm n_k - n_{k-1} more times, then rejects the
surviving arm with the lowest empirical mean over all its pulls (ties by the phase's random
priorities, ``study.core.fixed_budget``). The last survivor is recommended.
"""

from __future__ import annotations

from study.learners import Learner

LEARNER = Learner(
    name="successive_rejects",
    display="successive rejects",
    nested=False,
    streams=("main", "phase_tie_break"),
    summary="Audibert, Bubeck and Munos (2010): K - 1 phases, the worst arm rejected after each",
)


def register() -> None:
    """Implement the kernel's ``run_budget`` stub for successive rejects."""
    import math

    import numpy as np

    from study.core.fixed_budget import finish, new_run, priorities, pull_phase, worst
    from study.core.hooks import implement, run_budget

    @implement(run_budget, LEARNER.name)
    def _run_budget(name, model, k0, k1, values, parameters, budget, pulls,
                    means):  # pragma: no cover
        arms = values.shape[0]
        alive, wins, phase_wins, priority, decision, cache, own = new_run(pulls)
        log_bar = 0.5
        for i in range(2, arms + 1):
            log_bar += 1.0 / i
        t = 0
        previous = 0
        for phase in range(1, arms):
            target = max(math.ceil((budget - arms) / (log_bar * (arms + 1 - phase))), 0)
            t = pull_phase(model, k0, k1, values, parameters, alive, target - previous, t, pulls,
                           wins, phase_wins, cache, own)
            previous = target
            for a in range(arms):
                decision[a] = wins[a] / pulls[a] if pulls[a] > 0 else -np.inf
            priorities(k0, k1, budget, phase, priority)
            alive[worst(alive, decision, priority)] = False
        return finish(alive, pulls, wins, means)
