"""What a stale sampler costs: for an off-policy study whose grid has lags above 0, each cell
whose rollouts come from its policy d > 0 updates back against the cell alike in everything but
d = 0 (with no logit noise and top_p 1 that is the on-policy learner whatever the correction:
every weight is then exactly 1), on the same seeds (common random numbers), at the config's
compared budgets, on the pass rate, accuracy and collapse
(``analysis.offpolicy.compare_with_partners``: a few seeds that collapse in one cell only make
the per-seed pass-rate differences a spike with far outliers, where a t interval falls short of
its level, so the pass rate is compared by betting on its known range)."""

from __future__ import annotations

import pandas as pd

from analysis.offpolicy import TESTS, compare_with_partners, partners
from analysis.questions import Inputs

TABLE = "staleness"
TEST = {f"{TABLE}_{family}": test for family, test in TESTS.items()}
AXIS, REFERENCE = "lag", 0
"""The compared axis and its reference: the on-policy learner."""


def stale_partners(inputs: Inputs) -> list[tuple[int, int]]:
    """(stale cell, its lag-0 partner) for every cell with a lag above 0 and no KL term (a KL
    term's effect is the KL questions'; beside it, staleness would be confounded with it)."""
    found = partners(inputs.outcomes, AXIS, REFERENCE)
    beta = inputs.outcomes.cells.set_index("cell")["kl_beta"] if found else None
    return [(cell, partner) for cell, partner in found if beta[cell] == 0.0]


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per stale cell, metric and compared budget; empty for a study without lags."""
    pairs = stale_partners(inputs)
    return compare_with_partners(inputs, pairs, TABLE) if pairs else pd.DataFrame()
