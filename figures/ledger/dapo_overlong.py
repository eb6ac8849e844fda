"""DAPO's overlong reward shaping, which no study runs yet."""

from figures.ledger import Claim

CLAIM = Claim(
    source="yu", cited="Yu et al. 2025 (DAPO)", order=7,
    short="a soft overlong punishment stabilises training",
    published="30 to 50 AIME 2024 points, with three other techniques",
    stated="DAPO: a soft overlong punishment (a penalty rising over the last tokens before the "
           "maximum length) stabilises training and is one of the four techniques of its 30 to "
           "50 point gain on AIME 2024 (its own share: not confirmed here)",
    metric="pass rate, with the soft overlong punishment minus without it",
    analogue="the overlong reward model against the plain check, answers with lengths",
    pending="no study's grid uses the overlong reward model (study/rewards/overlong.py), so no "
            "table compares the soft overlong punishment with no shaping")
