"""DeepSeek-V3.2-Speciale: the length penalty lifted late, under the full protocol."""

from figures.ledger import Claim, paired

LIFTED = "metric == 'served_pass_rate'"
"""The penalty lifted late against kept to the end, every other part of the recipe on, on the
served pass rate (each budget after the switch)."""

CLAIM = Claim(
    source="deepseek", cited="DeepSeek-AI 2025 (DeepSeek-V3.2-Speciale)", order=20,
    short="relaxing the length penalty late helps under the whole RL protocol",
    stated="DeepSeek-V3.2-Speciale: RL with the length penalty relaxed, on top of V3.2's "
           "protocol, lets the model reason at length (the gain from relaxing the penalty "
           "alone: not given)",
    metric="served pass rate, penalty lifted late minus kept throughout, every other part on "
           "(paired t-test)",
    analogue="the protocol study's full recipe (a stale, mismatched and truncated sampler with "
             "truncated importance sampling, off-policy sequence masking, the kept mask and an "
             "importance-weighted KL term, a noisy verifier) with its length penalty lifted "
             "late in the token budget, against the same recipe keeping it to the end, "
             "at the largest budget; a study added after the protocol study's run, whose "
             "factorial held no such pair",
    table="prompts_lifted",
    rows=f"{LIFTED} and budget == budget.max()",
    cells=("lifted_at", "metric", "budget"),
    estimate=("difference", "difference_low", "difference_high"),
    verdicts=paired("higher"), siblings=LIFTED)
