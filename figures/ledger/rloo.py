"""RLOO's leave-one-out baseline against PPO and the RL-free methods, which no study runs."""

from figures.ledger import Claim

CLAIM = Claim(
    source="ahmadian", cited="Ahmadian et al. 2024 (RLOO)", order=6,
    short="a leave-one-out baseline over k samples beats PPO and RL-free methods",
    stated="RLOO: REINFORCE with a leave-one-out baseline over k samples per prompt outperforms "
           "PPO and the RL-free DPO and RAFT (GPT-4 win rates; the numbers are not confirmed "
           "here); GRPO's group mean is its concurrent sibling",
    metric="best-arm accuracy and pass rate, RLOO minus PPO at the same rollouts",
    analogue="leave-one-out groups against PPO's clipped update on the same rollouts",
    pending="no study runs PPO, DPO or RAFT as a learner (PPO's clip exists only as an "
            "off-policy correction of REINFORCE), so no table sets RLOO against them; the group "
            "rollouts section compares leave-one-out groups with single rollouts and with "
            "GRPO's estimators, which is another question")
