"""The names and constants of the many-prompts model (``study.core.prompts``), without numba, so
that the study's specification (config, grid) can read them; the allocation rules are
``study.allocations``'.

The model: README.md, "Many prompts, one rollout budget"; its executable spec:
``reference/prompts.py``.
"""

from __future__ import annotations

BANDS = 4
"""Difficulty bands: the prompts ranked by their best arm's value (ties by index), band = rank
BANDS div P, so each band holds a quarter of the prompts (as near as P allows)."""
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
FLOAT_FIELDS = ("greedy_value", "pass_rate", "best_value")
"""The fields that are sums of reals (float64); the others count (int64)."""
FLOOR = 2
"""The fewest rollouts a variance rule gives a prompt in a pass."""
IDLE_PASSES = 10_000
"""Passes in a row in which an allocation rule runs no group, after which a run stops: its later
checkpoints hold its state as it is. A rule must let every run spend its budget
(``skip_zero_signal``'s retries do: it idles this long with chance below (15/16)^10000); a rule
that skips every prompt for good would otherwise never end."""
STUCK_WRONG_MASS = 0.5
"""A run (or a prompt of a many-prompts run) is stuck at a checkpoint when its served policy puts
at least this share of its mass on arms that are not best (from here on a user is served a wrong
answer at least as often as a right one) and the learner has not gained (``STUCK_GAIN``) since
the previous checkpoint (``analysis.stuck``)."""
STUCK_GAIN = 1e-6
"""The rise in the learner's mass on the best arms between checkpoints that counts as gaining:
far above what rounding moves a stalled learner (the terms of its updates cancel to an ulp or so
each, below 1e-12 over the budgets run), far below what a learner still learning gains as its
budget doubles."""
MAX_PROMPTS = 2**20
"""Most prompts a dataset may have: V3.2's 85,000 with room (a prompt index is one 32-bit word of
the Philox counter, so the streams would allow 2^32)."""
ABSENT = -1e300
"""The logit of an arm a prompt does not have (a population's environment of fewer arms than its
dataset's K, ``study.model.population``), from the start: finite, so that no product with it is
NaN, and so far below any logit that its softmax weight is exactly 0 (``fast_exp`` flushes it),
a finite step adds exactly 0 to it and a mismatch's noise (at most
``study.model.config.MAX_MISMATCH`` times a normal draw) leaves it as it is. A sum over the
arms then adds 0.0 for it, a draw is held to the prompt's own arms (a state that is not finite
weighs none), and the prompt runs bit for bit as a bandit of its own arms, as the reference runs
it (``reference/prompts.py``)."""
