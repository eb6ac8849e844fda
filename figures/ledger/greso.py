"""GRESO's rollout saving from skipping prompts whose rewards have no variance, before rollout."""

from figures.ledger import Claim, fewer

HEADLINE = ("allocation == 'skip_zero_signal' and normalization == 'per_group' and baseline == "
            "'leave_one_out' and group_size == 8 and metric == 'pass_rate' and fraction == 0.5")
"""The many-prompts study's headline cells (RLOO groups of eight, GRPO's per-group step) on the
pass rate, to half of the achievable gain, in every difficulty law."""

CLAIM = Claim(
    source="zheng", cited="Zheng et al. 2025 (GRESO)", order=1,
    short="skipping prompts with no reward variance before rollout saves rollouts, without loss",
    published="up to 2.4x faster rollout",
    stated="GRESO: skipping prompts predicted to have zero reward variance, before rollout, "
           "gives up to 2.4x faster rollout and 2.0x faster training without accuracy "
           "degradation",
    metric="rollouts to half the achievable pass-rate gain, as a ratio to uniform allocation's "
           "(seed-bootstrap interval); the verdict is of the direction, the saving's size is "
           "the ratio printed, to set against the published factor, and the dynamic-sampling "
           "claim below reads the final pass rate of the same cells",
    analogue="skipping prompts whose recent groups carried no signal, against uniform "
             "allocation, on mostly easy prompts (most groups all correct late in training, "
             "as on GRESO's math data)",
    table="prompts_budget_to_target", rows=f"{HEADLINE} and environment == 'beta(4,1)x3'",
    cells=("allocation", "normalization", "baseline", "group_size", "environment", "metric",
           "fraction", "target"),
    estimate=("ratio_to_uniform", "ratio_low", "ratio_high"), spec=".3g",
    judged="interval_against_one", verdicts=fewer(), siblings=HEADLINE)
