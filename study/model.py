"""Names of the model's algorithms and baselines, and the integer codes the kernel uses for them.

Kept apart from the kernel so configs can be validated without importing numba.
"""

from __future__ import annotations

REINFORCE = 0
UNIFORM = 1
SUCCESSIVE_REJECTS = 2
SEQUENTIAL_HALVING = 3
ALGORITHM_CODES: dict[str, int] = {
    "reinforce": REINFORCE,
    "uniform": UNIFORM,
    "successive_rejects": SUCCESSIVE_REJECTS,
    "sequential_halving": SEQUENTIAL_HALVING,
}

BASELINE_NONE = 0
BASELINE_RUNNING_MEAN = 1
BASELINE_PER_ARM = 2
BASELINE_CODES: dict[str, int] = {
    "none": BASELINE_NONE,
    "running_mean": BASELINE_RUNNING_MEAN,
    "per_arm": BASELINE_PER_ARM,
}

TRAINS: dict[str, bool] = {"reinforce": True, "uniform": False, "successive_rejects": False,
                           "sequential_halving": False}
"""Whether an algorithm has a learning rate and a baseline; the others' cells get lr 0 and
baseline ``none`` so a grid over those axes does not simulate them once per combination."""

NESTED: dict[str, bool] = {"reinforce": True, "uniform": True, "successive_rejects": False,
                           "sequential_halving": False}
"""Whether a budget-B run is the first B episodes of a longer run. The fixed-budget
best-arm-identification algorithms plan their phases from B, so each checkpoint is its own run."""
