"""SPEED-RL's speed-up from training on prompts of intermediate difficulty, their pass rates
estimated online."""

from figures.ledger import Claim, fewer

HEADLINE = ("allocation == 'variance' and normalization == 'per_group' and baseline == "
            "'leave_one_out' and group_size == 8 and metric == 'pass_rate' and fraction == 0.5")
"""The many-prompts study's headline cells (RLOO groups of eight, GRPO's per-group step) on the
pass rate, to half of the achievable gain, in every difficulty law."""

CLAIM = Claim(
    source="zhang", cited="Zhang et al. 2025 (SPEED-RL)", order=17,
    short="training on prompts of intermediate difficulty, estimated online, is faster",
    published="2x to 6x faster training",
    stated="SPEED-RL: choosing prompts of intermediate difficulty, their pass rates estimated "
           "online, gives 2x to 6x faster training without degrading accuracy",
    metric="rollouts to half the achievable pass-rate gain, as a ratio to uniform allocation's "
           "(seed-bootstrap interval); the verdict is of the direction, the saving's size is "
           "the ratio printed, to set against the published factor",
    analogue="rollouts in proportion to each prompt's pass-rate variance as estimated "
             "from its groups so far (most where the pass rate is intermediate), against "
             "uniform allocation, on mostly easy prompts, the law of the other allocation "
             "claims",
    table="prompts_budget_to_target", rows=f"{HEADLINE} and environment == 'beta(4,1)x3'",
    cells=("allocation", "normalization", "baseline", "group_size", "environment", "metric",
           "fraction", "target"),
    estimate=("ratio_to_uniform", "ratio_low", "ratio_high"), spec=".3g",
    judged="interval_against_one", verdicts=fewer(), siblings=HEADLINE)
