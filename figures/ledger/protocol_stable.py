"""DeepSeek-V3.2: its RL protocol as a whole keeps training stable against the hazards."""

from figures.ledger import Claim, paired

ROWS = "a == 'full_recipe' and b == 'hazards_alone'"
"""Every remedy on against none, with every hazard on (the factorial's named rows)."""

CLAIM = Claim(
    source="deepseek", cited="DeepSeek-AI 2025 (DeepSeek-V3.2)", order=18,
    short="the whole RL protocol keeps training stable against off-policy rollouts, reward "
          "noise and length drift",
    stated="DeepSeek-V3.2: post-training is made stable by a robust RL protocol (unbiased KL "
           "estimate, off-policy sequence masking, keep sampling mask) against the mismatch of "
           "stale, truncated rollouts (the gain of the protocol as a whole: not given)",
    metric="share of prompts stuck off the best-passing arm, every remedy on minus none, every "
           "hazard on (paired t-test; stability read as fewer stuck prompts, a reading chosen "
           "after the run)",
    analogue="many prompts sharing a token budget under a stale, mismatched and truncated "
             "sampler and a noisy verifier, at a learning rate where on-policy training is "
             "stable: truncated importance sampling, off-policy sequence masking, the kept "
             "mask, an importance-weighted KL term and a length penalty lifted late, all on, "
             "against none of them, at the largest compared budget; the recipe adds two parts "
             "the report does not name (the importance weight, the length penalty), and the "
             "KL term's weight and the masking threshold are this package's choices, the "
             "report giving none",
    table="factorial_pairs",
    rows=f"{ROWS} and metric == 'stuck' and budget == budget.max() and environments == 0",
    cells=("a", "b", "metric", "budget"),
    estimate=("difference", "difference_low", "difference_high"),
    verdicts=paired("lower"), siblings=ROWS)
