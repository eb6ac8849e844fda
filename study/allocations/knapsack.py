"""Knapsack allocation (Li et al. 2025, Knapsack RL): the pass's P G rollouts split to maximise
the sum over the prompts of a prompt's value with n rollouts, the chance that its group has
signal times what a step on it is worth,

    V(n, p) = (1 - p^n - (1 - p)^n) p (1 - p)^2,

the paper's value for GRPO (its InfoGain approximated by p (1 - p)^2), with p the prompt's
pass rate in its last group, as the mean of the Beta(1 + passes, 1 + fails) posterior (the paper
uses the last epoch's pass rate; the posterior mean, our choice, is defined before the first
group too). A group of one has no signal (V(1, p) = 0), and from the second
rollout on each further rollout adds less than the one before (the increment V(n + 1) - V(n) =
p (1 - p)^2 (p^n (1 - p) + (1 - p)^n p) falls with n, and the first two, taken together, add
2 p (1 - p) p (1 - p)^2, the same per rollout as the third's). The rule takes the best value
per rollout, over every prompt, until the pass's rollouts are spent: a prompt's first two as one
step, then one at a time, ties to the prompt with fewer rollouts, then to the lower index
(``study.core.prompts.allocate_greedily``). The paper solves the knapsack exactly by dynamic
programming; this greedy fill is the exact optimum of the problem in which a prompt's first two
rollouts may be split, and loses against the true optimum at most one first rollout's value,
where the last rollout left could not open a pair (a test holds it there against the dynamic
program). Every prompt starts at p = 1/2, where every prompt's steps are worth the same: the
first pass gives each G, as uniform allocation does."""

from __future__ import annotations

from study.allocations import Allocation

ALLOCATION = Allocation(
    name="knapsack", display="knapsack allocation", key="Knapsack", uniform_first_pass=True,
    reads_passes=True,
    source="Li et al. 2025, Knapsack RL",
    summary="P G rollouts split to maximise the sum of (1 - p^n - (1 - p)^n) p (1 - p)^2, p each "
            "prompt's posterior mean pass rate")


def register() -> None:
    """Implement ``sizes`` for knapsack allocation."""
    from study.core.allocation_hooks import implement, sizes
    from study.core.prompts import allocate_greedily

    @implement(sizes, ALLOCATION.name)
    def _sizes(arms, group, r, k0, k1, values, weights, norm, run, passed, failed, scratch, work,
               out):  # pragma: no cover
        for i in range(out.shape[0]):
            scratch[i] = (1.0 + passed[i]) / (2.0 + passed[i] + failed[i])
        allocate_greedily(scratch, group, out, work)
