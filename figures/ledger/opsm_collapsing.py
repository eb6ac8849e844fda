"""DeepSeek-V3.2's off-policy sequence masking, where on-policy training itself collapses."""

from figures.ledger import Claim, harmless

STRATUM = ("lr == 10.0 and environment == '0.5,0.55,0.6' and baseline == 'group_mean' and "
           "metric == 'pass_rate' and distinct and budget == budget.max()")
"""The largest learning rate, where on-policy training collapses in a share of runs (opsm's
effect has the opposite direction at lr 1: never pooled), otherwise as ``opsm_stable``."""

CLAIM = Claim(
    source="deepseek", cited="DeepSeek-AI 2025 (DeepSeek-V3.2)", order=13,
    short="off-policy sequence masking keeps training on stale rollouts stable (where on-policy "
          "training collapses)",
    stated="DeepSeek-V3.2: off-policy sequence masking keeps RL stable when rollouts are stale "
           "(where training is unstable to begin with)",
    metric="pass rate, stale minus on-policy",
    analogue="rollouts from the policy four updates back with off-policy sequence masking, "
             "against the on-policy learner, at the learning rate where on-policy training "
             "itself collapses in a share of runs",
    table="staleness", rows=f"correction == 'opsm' and lag == 4 and {STRATUM}",
    cells=("correction", "lag", "lr", "environment", "baseline", "metric", "budget"),
    verdicts=harmless(),
    siblings=f"correction in ('none', 'opsm') and {STRATUM}")
