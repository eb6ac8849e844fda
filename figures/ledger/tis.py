"""TIS against a sampler whose numerics differ from the trainer's."""

from figures.ledger import Claim, harmless

STRATUM = ("top_p == 1.0 and environment == '0.5,0.55,0.6' and baseline == 'group_mean' and "
           "metric == 'served_pass_rate' and distinct and budget == budget.max()")
"""The untruncated sampler (the mismatch's effect is stated where the sampler is not also
truncated: there the noise unfreezes stalled learners), the headline bandit, Dr. GRPO's group
mean, the served pass rate at the largest budget, distinct simulations only."""

CLAIM = Claim(
    source="yao", cited="Yao et al. 2025 (TIS)", order=10,
    short="truncated importance weights remove the cost of a sampler-trainer mismatch",
    stated="TIS: the sampler's and the trainer's numerics differ (vLLM against FSDP), which "
           "makes RL off-policy; weighting each token by the ratio of the two probabilities, "
           "truncated at a cap, closes the gap (shown by training curves, no single number)",
    metric="the served policy's pass rate, with the mismatch minus without it",
    analogue="a sampler whose logits carry noise of the larger scale, corrected by truncated "
             "importance weights, against the same learner without the noise (the on-policy "
             "learner: every weight one), untruncated sampler, at the stable learning rate",
    table="mismatch", rows=f"correction == 'tis' and lr == 1.0 and {STRATUM}",
    pick="largest:mismatch",
    cells=("correction", "mismatch", "top_p", "lr", "environment", "baseline", "metric",
           "budget"),
    verdicts=harmless(),
    siblings=f"correction in ('none', 'tis') and {STRATUM}")
