"""Dr. GRPO's bias of GRPO's division of the group advantages by their standard deviation: a
weighting across questions, which a study of one question at a time cannot show."""

from figures.ledger import Claim

CLAIM = Claim(
    source="liu", cited="Liu et al. 2025 (Dr. GRPO)", order=5,
    short="dividing advantages by the group's standard deviation is a harmful bias",
    published="43.3% on AIME 2024 with a 7B model, without it",
    stated="Dr. GRPO: dividing a group's advantages by their standard deviation (GRPO) weights "
           "questions by their difficulty, a bias; without it (and the length normalisation) a "
           "7B base model reaches 43.3% on AIME 2024",
    metric="best-arm accuracy, GRPO minus Dr. GRPO",
    analogue="the group z-score (GRPO) against the group mean (Dr. GRPO) on one bandit at a "
             "time (the group rollouts study's table `group_zscore_vs_mean` compares them)",
    untestable="the bias is a weighting across questions (each question's step scaled by one "
               "over its groups' spread); a bandit is one question, where the division only "
               "rescales each group's step, so no table here can show the weighting (the "
               "group rollouts section compares the two estimators per bandit, which is another "
               "question)")
