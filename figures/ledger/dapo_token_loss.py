"""DAPO's token-level loss: about the tokens within an answer, which a bandit has not."""

from figures.ledger import Claim

CLAIM = Claim(
    source="yu", cited="Yu et al. 2025 (DAPO)", order=8,
    short="a token-level loss keeps long answers from being under-weighted",
    published="30 to 50 AIME 2024 points, with three other techniques",
    stated="DAPO: a token-level policy-gradient loss (every token weighted alike, not every "
           "answer) keeps long answers from being under-weighted; one of the four techniques of "
           "its 30 to 50 point gain on AIME 2024",
    untestable="an answer here is one action: there are no tokens within it whose losses could "
               "be averaged per answer or per token (lengths cost tokens, but each is drawn "
               "with its answer, not chosen token by token)")
