"""What truncated sampling costs: for an off-policy study whose sampler keeps only the top-p
arms somewhere (top_p below 1), each such cell against the cell alike in everything but top_p 1,
on the same seeds, at the config's compared budgets, on the pass rate, accuracy and collapse
(``analysis.offpolicy.compare_with_partners``); the collapse shares themselves, with exact
intervals, are ``truncation_collapse``."""

from __future__ import annotations

import pandas as pd

from analysis.offpolicy import TESTS, compare_with_partners, partners
from analysis.questions import Inputs

TABLE = "truncation"
TEST = {f"{TABLE}_{family}": test for family, test in TESTS.items()}


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per truncated cell, metric and compared budget; empty without truncation."""
    pairs = partners(inputs.outcomes, "top_p", 1.0)
    return compare_with_partners(inputs, pairs, TABLE) if pairs else pd.DataFrame()
