"""DeepSeek-V3.2's off-policy sequence masking, where on-policy training is stable."""

from figures.ledger import Claim, harmless

STRATUM = ("lr == 1.0 and environment == '0.5,0.55,0.6' and baseline == 'group_mean' and "
           "metric == 'pass_rate' and distinct and budget == budget.max()")
"""The stable learning rate (opsm's effect has opposite directions at lr 1 and at lr 3 and 10,
where on-policy training itself collapses: never pooled), the headline bandit, Dr. GRPO's group
mean, the pass rate at the largest budget, distinct simulations only."""

CLAIM = Claim(
    source="deepseek", cited="DeepSeek-AI 2025 (DeepSeek-V3.2)", order=12,
    short="off-policy sequence masking keeps training on stale rollouts stable (at a stable "
          "learning rate)",
    stated="DeepSeek-V3.2: masking the sequences with negative advantage whose sampling policy "
           "has drifted furthest from the current one (off-policy sequence masking) keeps RL "
           "stable when rollouts are stale",
    metric="pass rate, stale minus on-policy",
    analogue="rollouts from the policy four updates back with off-policy sequence masking, "
             "against the on-policy learner, at the learning rate where on-policy training is "
             "stable",
    table="staleness", rows=f"correction == 'opsm' and lag == 4 and {STRATUM}",
    cells=("correction", "lag", "lr", "environment", "baseline", "metric", "budget"),
    verdicts=harmless(),
    siblings=f"correction in ('none', 'opsm') and {STRATUM}")
