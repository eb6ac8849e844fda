"""Dr. GRPO's length bias: about dividing by an answer's length, which no update here does."""

from figures.ledger import Claim

CLAIM = Claim(
    source="liu", cited="Liu et al. 2025 (Dr. GRPO)", order=9,
    short="dividing by an answer's length lets wrong answers grow longer",
    stated="Dr. GRPO: dividing each answer's loss by its length (GRPO) penalises long wrong "
           "answers less than short ones, so wrong answers grow longer during training; "
           "removing the division improves token efficiency",
    untestable="dividing by an answer's length needs an answer made of tokens the policy "
               "chooses; here an answer is one action whose length is drawn with it, and no "
               "update divides by it")
