"""Sequential halving (Karnin, Koren and Somekh 2013), fixed-budget best-arm identification.

ceil(log2 K) rounds; round r pulls each of its S_r surviving arms floor(B / (|S_r| ceil(log2 K)))
times and keeps the ceil(|S_r| / 2) with the highest mean *of that round's pulls* (as in the
paper; ties by the round's random priorities, ``study.core.fixed_budget``). The last survivor is
recommended.
"""

from __future__ import annotations

from study.learners import Learner

LEARNER = Learner(
    name="sequential_halving",
    display="sequential halving",
    nested=False,
    streams=("main", "phase_tie_break"),
    summary="Karnin, Koren and Somekh (2013): halve the surviving arms each round",
)


def register() -> None:
    """Implement the kernel's ``run_budget`` stub for sequential halving."""
    import math

    import numpy as np

    from study.core.fixed_budget import finish, new_run, priorities, pull_phase, worst
    from study.core.hooks import implement, run_budget

    @implement(run_budget, LEARNER.name)
    def _run_budget(name, model, k0, k1, values, parameters, budget, pulls,
                    means):  # pragma: no cover
        arms = values.shape[0]
        alive, wins, phase_wins, priority, decision, cache, own = new_run(pulls)
        t = 0
        survivors = arms
        rounds = math.ceil(math.log2(arms))
        for phase in range(1, rounds + 1):
            each = budget // (survivors * rounds)
            phase_wins[:] = 0
            t = pull_phase(model, k0, k1, values, parameters, alive, each, t, pulls, wins,
                           phase_wins, cache, own)
            for a in range(arms):
                decision[a] = phase_wins[a] / each if each > 0 else -np.inf
            priorities(k0, k1, budget, phase, priority)
            keep = (survivors + 1) // 2
            while survivors > keep:
                alive[worst(alive, decision, priority)] = False
                survivors -= 1
        return finish(alive, pulls, wins, means)
