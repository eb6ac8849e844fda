"""DeepSeek-V3.2's keep sampling mask under a truncated (top-p) sampler: in a one-step bandit it
changes no update of a group estimator but through an importance weight."""

from figures.ledger import Claim

CLAIM = Claim(
    source="deepseek", cited="DeepSeek-AI 2025 (DeepSeek-V3.2)", order=14,
    short="keeping the sampler's top-p mask in training keeps RL stable",
    stated="DeepSeek-V3.2: keeping the sampler's top-p truncation mask when computing the "
           "trained policy's probabilities (keep sampling mask) keeps the two policies on one "
           "action set and RL stable",
    metric="the served (truncated) policy's pass rate, with the mask minus without it",
    analogue="a top-p sampler with the kept mask against the same sampler without it",
    untestable="in a one-step bandit the mask acts on the score's pi term, sum_i A_i pi, and "
               "every group estimator's advantages sum to zero, so that term cancels and the "
               "mask alone changes no update (the runs differ from the unmasked ones by "
               "rounding only, which a stalled learner can carry to another arm); it acts "
               "only where the rollouts' weights differ (an importance weight's ratio, PPO's "
               "clip, OPSM's drop), which no table compares with and without the mask at one "
               "truncation; in a language model the score is a sum over tokens with their own "
               "contexts, where nothing cancels")
