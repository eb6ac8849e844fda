"""DeepSeek-V3.2's keep sampling mask under a truncated (top-p) sampler."""

from figures.ledger import Claim, harmless

STRATUM = ("mismatch == 0.0 and environment == '0.5,0.55,0.6' and baseline == 'group_mean' and "
           "metric == 'served_pass_rate' and distinct and budget == budget.max()")
"""No logit noise, the headline bandit, Dr. GRPO's group mean, the served (truncated) policy's
pass rate at the largest budget, distinct simulations only."""

CLAIM = Claim(
    source="deepseek", cited="DeepSeek-AI 2025 (DeepSeek-V3.2)", order=14,
    short="keeping the sampler's top-p mask in training keeps RL stable",
    stated="DeepSeek-V3.2: keeping the sampler's top-p truncation mask when computing the "
           "trained policy's probabilities (keep sampling mask) keeps the two policies on one "
           "action set and RL stable",
    metric="the served (truncated) policy's pass rate, truncated minus untruncated",
    analogue="a top-p sampler at its strongest truncation with the kept mask, against the "
             "untruncated learner, at the stable learning rate",
    table="truncation", rows=f"correction == 'keep_mask' and lr == 1.0 and {STRATUM}",
    pick="smallest:top_p",
    cells=("correction", "top_p", "mismatch", "lr", "environment", "baseline", "metric",
           "budget"),
    verdicts=harmless(),
    siblings=f"correction in ('none', 'keep_mask') and {STRATUM}")
