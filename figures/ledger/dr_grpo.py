"""Dr. GRPO's bias of GRPO's division of the group advantages by their standard deviation."""

from figures.ledger import Claim, paired

CLAIM = Claim(
    source="liu", cited="Liu et al. 2025 (Dr. GRPO)", order=5,
    short="dividing advantages by the group's standard deviation is a harmful bias",
    published="43.3% on AIME 2024 with a 7B model, without it",
    stated="Dr. GRPO: dividing a group's advantages by their standard deviation (GRPO) weights "
           "questions by their difficulty, a bias; without it (and the length normalisation) a "
           "7B base model reaches 43.3% on AIME 2024",
    metric="best-arm accuracy, GRPO minus Dr. GRPO, each at its best lr (chosen on the even "
           "seeds, measured on the odd ones)",
    analogue="the group z-score (GRPO) against the group mean (Dr. GRPO), groups of eight, on "
             "the low-pass bandit, where groups' spreads are smallest and the division matters "
             "most; one bandit is one question, so the bias can show only as a step that "
             "depends on each group's spread, not as a weighting across questions",
    table="group_zscore_vs_mean",
    rows="environment == '0.05,0.1,0.15' and group_size == 8 and budget == 1000",
    cells=("environment", "group_size", "lr_grpo", "lr_dr_grpo", "budget", "rollouts"),
    verdicts=paired("lower", "GRPO's accuracy shown within the margin of Dr. GRPO's by two "
                             "one-sided tests: no cost of that size"),
    siblings="group_size == 8")
