"""Names of the model's algorithms and baselines, and the integer codes the kernel uses for them.

Kept apart from the kernel so configs can be validated without importing numba.
"""

from __future__ import annotations

REINFORCE = 0
UNIFORM = 1
ALGORITHM_CODES: dict[str, int] = {"reinforce": REINFORCE, "uniform": UNIFORM}

BASELINE_NONE = 0
BASELINE_RUNNING_MEAN = 1
BASELINE_PER_ARM = 2
BASELINE_CODES: dict[str, int] = {
    "none": BASELINE_NONE,
    "running_mean": BASELINE_RUNNING_MEAN,
    "per_arm": BASELINE_PER_ARM,
}

TRAINS: dict[str, bool] = {"reinforce": True, "uniform": False}
"""Whether an algorithm has a learning rate and a baseline; ``uniform`` cells get lr 0 and
baseline ``none`` so a grid over those axes does not simulate it once per combination."""
