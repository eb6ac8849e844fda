"""The headline cell's accuracy against budget with pointwise 95% Wilson intervals and the
simultaneous 95% sup-t band over all its checkpoints (``analysis.bands``)."""

from __future__ import annotations

import pandas as pd

from analysis.bands import sup_t_band
from analysis.outcomes import Outcomes
from analysis.questions import Inputs

TABLE = "accuracy_band"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """``headline_band`` of the headline cell."""
    return headline_band(inputs.outcomes, int(inputs.settings["headline_cell"]))


def headline_band(outcomes: Outcomes, headline: int) -> pd.DataFrame:
    """The headline cell's accuracy against budget with pointwise 95% Wilson intervals and the
    simultaneous 95% sup-t band over all its checkpoints (``analysis.bands``)."""
    correct = outcomes.outcomes(headline)
    band = sup_t_band(correct)
    return pd.DataFrame({"cell": headline, "budget": outcomes.budgets,
                         "seeds": correct.shape[0], "accuracy": band.accuracy,
                         "ci_low": band.low, "ci_high": band.high, "band_low": band.band_low,
                         "band_high": band.band_high, "band_factor": band.factor})
