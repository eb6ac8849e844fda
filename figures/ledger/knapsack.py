"""Knapsack RL's gain from allocating rollouts across prompts by their value and cost."""

from figures.ledger import Claim, paired

COMPARED = ("allocation == 'variance' and normalization == 'per_batch' and baseline == "
            "'leave_one_out' and group_size == 8 and metric == 'pass_rate' and budget == "
            "budget.max()")
"""The variance rule against uniform allocation in the headline cells (RLOO groups of eight)
under the constant normaliser, on the pass rate at the largest budget, in every law."""

CLAIM = Claim(
    source="li", cited="Li et al. 2025 (Knapsack RL)", order=3,
    short="allocating rollouts by each prompt's value and cost beats uniform allocation",
    published="2 to 4 points, up to 9; uniform needs about 2x the compute",
    stated="Knapsack RL: allocating rollouts across prompts as a knapsack over each prompt's "
           "value and cost gains 2 to 4 points on average (up to 9) on math benchmarks; uniform "
           "allocation would need about 2x the compute to match",
    metric="pass rate (mean over prompts), the rule minus uniform allocation at the largest "
           "budget",
    analogue="rollouts in proportion to each prompt's estimated pass-rate variance (a simpler "
             "variance-driven rule than the knapsack), against uniform allocation at the same "
             "rollouts, with the constant normaliser under which more rollouts make a larger "
             "step, on mostly easy prompts",
    table="prompts_vs_uniform", rows=f"{COMPARED} and environment == 'beta(4,1)x3'",
    cells=("allocation", "normalization", "baseline", "group_size", "environment", "metric",
           "budget"),
    estimate=("difference", "difference_low", "difference_high"),
    verdicts=paired("higher"), siblings=COMPARED)
