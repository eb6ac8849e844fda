"""RLOO's leave-one-out baseline, with GRPO's z-score beside it."""

from figures.ledger import Claim, paired

CLAIM = Claim(
    source="ahmadian", cited="Ahmadian et al. 2024 (RLOO)", order=6,
    short="a leave-one-out baseline over k samples beats PPO and RL-free methods",
    stated="RLOO: REINFORCE with a leave-one-out baseline over k samples per prompt outperforms "
           "PPO and the RL-free DPO and RAFT (GPT-4 win rates; the numbers are not confirmed "
           "here); GRPO's group mean is its concurrent sibling",
    metric="best-arm accuracy against single rollouts at the same rollouts, each at its best lr "
           "(chosen on the even seeds, measured on the odd ones)",
    analogue="leave-one-out groups of four (RLOO's k) against single-rollout REINFORCE with a "
             "running-mean baseline, on the headline bandit; no table pairs RLOO with GRPO on "
             "the same seeds, and here RLOO's advantage is Dr. GRPO's times G over G minus "
             "one, so GRPO's z-score rows are shown beside it",
    table="group_vs_single",
    rows="baseline == 'leave_one_out' and group_size == 4 and environment == '0.5,0.55,0.6' "
         "and budget == 1000",
    cells=("environment", "baseline", "group_size", "lr", "single_lr", "metric", "budget",
           "rollouts"),
    verdicts=paired("higher"),
    siblings="baseline in ('leave_one_out', 'group_zscore') and group_size == 4 and "
             "environment == '0.5,0.55,0.6'")
