"""What a mismatched sampler costs: for an off-policy study whose sampler's logits carry noise
somewhere (mismatch eps above 0, an inference engine's numerical drift), each such cell against
the cell alike in everything but eps 0, on the same seeds, at the config's compared budgets, on
the pass rate, accuracy and collapse (``analysis.offpolicy.compare_with_partners``)."""

from __future__ import annotations

import pandas as pd

from analysis.offpolicy import TESTS, compare_with_partners, partners
from analysis.questions import Inputs

TABLE = "mismatch"
TEST = {f"{TABLE}_{family}": test for family, test in TESTS.items()}


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per mismatched cell, metric and compared budget; empty without mismatch."""
    pairs = partners(inputs.outcomes, "mismatch", 0.0)
    return compare_with_partners(inputs, pairs, TABLE) if pairs else pd.DataFrame()
