"""DeepSeek-V3.2's keep routing: about a mixture of experts, which a bandit's policy has not."""

from figures.ledger import Claim

CLAIM = Claim(
    source="deepseek", cited="DeepSeek-AI 2025 (DeepSeek-V3.2)", order=15,
    short="replaying the sampler's expert routing keeps mixture-of-experts RL stable",
    stated="DeepSeek-V3.2: replaying in training the expert routing the sampler used (keep "
           "routing) is needed for stable RL of a mixture-of-experts model",
    untestable="the policy is a softmax over arms with no experts: there is no routing to "
               "replay")
