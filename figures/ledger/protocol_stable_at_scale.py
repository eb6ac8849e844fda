"""DeepSeek-V3.2: its RL protocol as a whole keeps training stable, read at its own scale."""

from figures.ledger import Claim, paired
from figures.ledger.protocol_stable import CLAIM as FEW_PROMPTS
from figures.ledger.protocol_stable import ROWS

CLAIM = Claim(
    source="deepseek", cited="DeepSeek-AI 2025 (DeepSeek-V3.2)", order=19,
    short="the whole RL protocol keeps training stable, on as many prompts and environments as "
          "the report's RL",
    stated=FEW_PROMPTS.stated,
    metric="share of prompts stuck off the best-passing arm, every remedy on minus none, every "
           "hazard on (paired t-test; stability read as fewer stuck prompts, as in the claim's "
           "reading on few prompts)",
    analogue="the full recipe's remedies (truncated importance sampling, off-policy sequence "
             "masking, the kept mask, an importance-weighted KL term and a length penalty "
             "lifted late) all on against none, every hazard on (a stale, mismatched and "
             "truncated sampler, a noisy verifier), on a dataset as large as the report's, its "
             "prompts drawn from a population of environments of every difficulty, a few "
             "groups per prompt; the hazards and the remedies each set at once (a full "
             "factorial of the two), at the largest compared budget",
    table="factorial_pairs",
    rows=f"{ROWS} and metric == 'stuck' and budget == budget.max() and environments > 0",
    cells=("a", "b", "metric", "budget", "environments"),
    estimate=("difference", "difference_low", "difference_high"),
    verdicts=paired("lower"), siblings=ROWS)
