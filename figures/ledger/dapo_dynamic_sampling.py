"""DAPO's dynamic sampling: groups whose answers are all right or all wrong dropped."""

from figures.ledger import Claim, paired

COMPARED = ("allocation == 'skip_zero_signal' and normalization == 'per_group' and baseline == "
            "'leave_one_out' and group_size == 8 and metric == 'pass_rate' and budget == "
            "budget.max()")
"""The rule against uniform allocation in the headline cells (RLOO groups of eight), on the
pass rate at the largest budget, in every difficulty law. The rule gives every prompt it draws a
full group, so its two normalisations are one simulation, tabled once (per group)."""

CLAIM = Claim(
    source="yu", cited="Yu et al. 2025 (DAPO)", order=2,
    short="dynamic sampling, dropping groups all right or all wrong, helps",
    published="30 to 50 AIME 2024 points, with three other techniques",
    stated="DAPO: dynamic sampling (over-sampling and dropping groups whose answers are all "
           "right or all wrong) is one of four techniques that together take naive GRPO from 30 "
           "to 50 points on AIME 2024 (its own share: not confirmed here)",
    metric="pass rate (mean over prompts), the rule minus uniform allocation at the largest "
           "budget",
    analogue="the nearest rule, skipping prompts whose recent groups carried no signal before "
             "drawing them (DAPO filters after drawing and refills the batch; here a group "
             "without signal updates nothing, so filtering after drawing alone would change no "
             "update), against uniform allocation at the same rollouts, on mostly easy prompts",
    table="prompts_vs_uniform", rows=f"{COMPARED} and environment == 'beta(4,1)x3'",
    cells=("allocation", "normalization", "baseline", "group_size", "environment", "metric",
           "budget"),
    estimate=("difference", "difference_low", "difference_high"),
    verdicts=paired("higher"), siblings=COMPARED)
