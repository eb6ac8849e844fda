"""DeepSeek-V3.2-Speciale: the length penalty relaxed late in training."""

from figures.ledger import Claim, paired

LIFTED = ("against == 'penalty_throughout' and metric == 'pass_rate' and baseline == "
          "'group_mean' and penalty_until == 0.8")
"""The penalty lifted after most of the token budget, against the penalty kept throughout, on
the pass rate, Dr. GRPO's group mean, every penalty and bandit."""

CLAIM = Claim(
    source="deepseek", cited="DeepSeek-AI 2025 (DeepSeek-V3.2-Speciale)", order=16,
    short="relaxing the length penalty late lets the model reason further",
    published="gold medal level at IMO 2025",
    stated="DeepSeek-V3.2-Speciale: RL with the length penalty relaxed lets the model reason at "
           "length, reaching gold-medal level at IMO 2025 and IOI 2025 (the gain from relaxing "
           "the penalty alone: not given)",
    metric="pass rate, penalty lifted late minus kept throughout (betting interval)",
    analogue="the length penalty lifted after most of the token budget, against the penalty "
             "kept throughout, on the bandit where longer answers pass more often, at the "
             "smallest penalty that moves the best shaped arm off the best-passing one",
    table="speciale",
    rows=f"{LIFTED} and environment.str.startswith('0.5,0.55,0.6 ') and penalty == 0.04",
    cells=("environment", "baseline", "penalty", "penalty_until", "against", "metric", "budget"),
    verdicts=paired("higher"), siblings=LIFTED)
