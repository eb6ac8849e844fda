"""What a KL term to the initial policy does, by estimator: for an off-policy study with a KL
coefficient beta above 0, each such cell against the cell alike in everything but without the
term (beta 0, where the estimator is moot), on the same seeds, at the config's compared budgets,
on the pass rate, accuracy and collapse (``analysis.offpolicy.compare_with_partners``)."""

from __future__ import annotations

import pandas as pd

from analysis.offpolicy import TESTS, compare_with_partners, partners
from analysis.questions import Inputs

TABLE = "kl_term"
TEST = {f"{TABLE}_{family}": test for family, test in TESTS.items()}


def term_partners(inputs: Inputs) -> list[tuple[int, int]]:
    """(cell with a KL term, the same cell without one) for every cell with beta above 0."""
    return partners(inputs.outcomes, "kl_beta", 0.0, ignored=("kl_estimator",))


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell with a KL term, metric and compared budget; empty without one."""
    pairs = term_partners(inputs)
    return compare_with_partners(inputs, pairs, TABLE) if pairs else pd.DataFrame()
