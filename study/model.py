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
BASELINE_RUNNING_MEAN_INCLUSIVE = 3
BASELINE_CODES: dict[str, int] = {
    "none": BASELINE_NONE,
    "running_mean": BASELINE_RUNNING_MEAN,
    "per_arm": BASELINE_PER_ARM,
    "running_mean_inclusive": BASELINE_RUNNING_MEAN_INCLUSIVE,
}
"""``running_mean`` averages the rewards of the earlier episodes (0 before the first);
``running_mean_inclusive`` also includes the current episode's reward, as Sutton and Barto's
gradient bandit (section 2.8) and the classic reference implementations of their Figure 2.5 do."""

BERNOULLI = 0
GAUSSIAN = 1
REWARD_CODES: dict[str, int] = {"bernoulli": BERNOULLI, "gaussian": GAUSSIAN}

TRAINS: dict[str, bool] = {"reinforce": True, "uniform": False, "successive_rejects": False,
                           "sequential_halving": False}
"""Whether an algorithm has a learning rate and a baseline; the others' cells get lr 0 and
baseline ``none`` so a grid over those axes does not simulate them once per combination."""

NESTED: dict[str, bool] = {"reinforce": True, "uniform": True, "successive_rejects": False,
                           "sequential_halving": False}
"""Whether a budget-B run is the first B episodes of a longer run. The fixed-budget
best-arm-identification algorithms plan their phases from B, so each checkpoint is its own run."""
