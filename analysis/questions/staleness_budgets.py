"""What a stale sampler costs in budget: for each stale cell and its lag-0 partner
(``analysis.questions.staleness.stale_partners``), the budget to 0.9 accuracy and to 0.9 of the
achievable pass rate (``analysis.pass_rate.Achievable``: from the untrained policy's to the best
arm's) of each, and their ratio with its 95% paired seed-bootstrap interval and the Monte Carlo
ranges of its limits (``analysis.budget_to_target.budget_ratio``). An estimate with its
interval, not a test: the staleness table's tests at named budgets carry the families."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.accuracy import cell_environments
from analysis.budget_to_target import (
    TARGET,
    budget_ratio,
    budget_to_target,
    range_columns,
    resampled_crossings,
)
from analysis.offpolicy import DESCRIBED
from analysis.pass_rate import achievable, seed_pass_rates
from analysis.questions import Inputs
from analysis.questions.staleness import stale_partners

TABLE = "staleness_budgets"
TEST = ""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per stale cell and metric; empty for a study without lags."""
    outcomes = inputs.outcomes
    pairs = stale_partners(inputs)
    if not pairs:
        return pd.DataFrame()
    environments = cell_environments(outcomes)
    described = inputs.cells.set_index("cell")
    budgets = outcomes.budgets.astype(float)
    rows = []
    for metric in ("accuracy", "pass_rate"):
        values: dict[int, np.ndarray] = {}
        drawn: dict[int, np.ndarray] = {}
        for stale, fresh in pairs:
            target = (TARGET if metric == "accuracy"
                      else achievable(environments[stale]).target(TARGET))
            for cell in (stale, fresh):
                if cell not in values:
                    values[cell] = (outcomes.outcomes(cell).astype(float) if metric == "accuracy"
                                    else seed_pass_rates(outcomes, cell))
                    # A partner serves five corrections: its resamples are drawn once.
                    drawn[cell] = resampled_crossings(values[cell], budgets, target)
            ratio = budget_ratio(values[stale], values[fresh], budgets, target,
                                 resampled_a=drawn[stale], resampled_b=drawn[fresh])
            ours = budget_to_target(values[stale], budgets, target, draws=drawn[stale])
            theirs = budget_to_target(values[fresh], budgets, target, draws=drawn[fresh])
            rows.append({"cell_a": stale, "cell_b": fresh, "metric": metric,
                         **described.loc[stale, DESCRIBED].to_dict(), "target": target,
                         "budget_a": ours.estimate, "reached_a": ours.reached,
                         "budget_b": theirs.estimate, "reached_b": theirs.reached,
                         "ratio": ratio.ratio, "ci_low": ratio.ci_low, "ci_high": ratio.ci_high,
                         "undefined_resamples": ratio.undefined_resamples,
                         "resamples": ratio.resamples, "seeds": ratio.seeds,
                         **range_columns("ci_low", "ci_high", ratio.ci_low_range,
                                         ratio.ci_high_range)})
    return pd.DataFrame(rows)
