"""The names and constants of the many-prompts model (``study.core.prompts``), without numba, so
that the study's specification (config, grid) can read them.

The model: README.md, "Many prompts, one rollout budget"; its executable spec:
``reference/prompts.py``.
"""

from __future__ import annotations

BANDS = 4
"""Difficulty bands: the prompts ranked by their best arm's value (ties by index), band = rank
BANDS div P, so each band holds a quarter of the prompts (as near as P allows)."""
RULES = ("uniform", "skip_zero_signal", "variance", "oracle_variance")
"""The allocation rules, by their code in the kernel (their place here)."""
ESTIMATORS = ("group_mean", "group_zscore", "leave_one_out")
"""The group estimators (``study.learners.reinforce``'s), by their code in the kernel."""
NORMALIZATIONS = ("per_group", "per_batch")
"""How a prompt's group update is normalised, by its code in the kernel: ``per_group`` (GRPO's
mean over the group: lr (1 / n_i) sum_j A_j (onehot(a_j) - pi), so more rollouts make a prompt's
step less noisy, not larger) or ``per_batch`` (a constant normaliser, as Dr. GRPO's, and DAPO's
mean over the batch's tokens up to a constant: lr (1 / G) sum_j ..., G the configured group
size, so a prompt given twice the rollouts takes twice the expected step). Under uniform
allocation n_i = G and the two are the same update."""
FIELDS = ("prompts", "best", "greedy_value", "pass_rate", "best_value", "rollouts", "groups",
          "zero_signal", "non_finite")
"""What a checkpoint records per band, in the order of the kernel's outputs: prompts; those whose
greedy arm is a best arm; the sums of the greedy arms' values, of the policies' pass rates and
of the best arms' values (``FLOAT_FIELDS``: best value minus pass rate is the regret); rollouts
spent, groups run and groups without signal (every advantage 0) so far; prompts whose logits are
not finite (neither best nor valued)."""
UNIFORM_FIRST_PASS = ("uniform", "skip_zero_signal", "variance")
"""The rules whose first pass is uniform allocation's, draw for draw: no prompt has a run of
groups without signal yet, and every prompt's posterior is Beta(1, 1), so every prompt gets G.
Up to P G rollouts such a rule's runs are uniform allocation's."""
FLOAT_FIELDS = ("greedy_value", "pass_rate", "best_value")
"""The fields that are sums of reals (float64); the others count (int64)."""
FLOOR = 2
"""The fewest rollouts a variance rule gives a prompt in a pass."""
RETRY_FLOOR = 1.0 / 16.0
"""``skip_zero_signal``'s least chance of a retry: a prompt after z groups in a row without
signal is skipped with probability 1 - max(2^-z, 1/16)."""
MAX_PROMPTS = 4096
"""Most prompts a dataset may have."""
