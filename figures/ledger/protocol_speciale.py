"""DeepSeek-V3.2-Speciale: the length penalty lifted late, under the full protocol."""

from figures.ledger import Claim

CLAIM = Claim(
    source="deepseek", cited="DeepSeek-AI 2025 (DeepSeek-V3.2-Speciale)", order=19,
    short="relaxing the length penalty late helps under the whole RL protocol",
    stated="DeepSeek-V3.2-Speciale: RL with the length penalty relaxed, on top of V3.2's "
           "protocol, lets the model reason at length (the gain from relaxing the penalty "
           "alone: not given)",
    metric="served pass rate, penalty lifted late minus kept throughout, every other part on",
    analogue="the protocol study's full recipe with its length penalty lifted late against the "
             "same recipe keeping it to the end",
    pending="the protocol study's factorial varies the penalty (none against lifted late), so "
            "the full recipe keeping it throughout is none of its rows; the length study tests "
            "the late lifting without the other parts (the Speciale row above)")
