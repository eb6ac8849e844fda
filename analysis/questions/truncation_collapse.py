"""How often a truncated sampler's runs stall, stick and collapse: for an off-policy study whose
sampler keeps only the top-p arms somewhere, per cell and compared budget, the share of runs that
are stuck (the served policy's mass mostly on arms that are not best and the learner no longer
gaining, ``analysis.stuck.STUCK_WRONG_MASS``) and of those that have collapsed (0.99 or more
of the learner's mass on arms that are not best, ``analysis.offpolicy.COLLAPSED``; a state that
is not finite is both), each with its exact (Clopper-Pearson) 95% interval; the accuracy with its
Wilson interval; the served and the learner's mean pass rate with Student t intervals over seeds;
and the share of the run's updates so far whose advantages were all 0 (stalled: the update is
exactly 0), with its t interval over seeds. ``simulation`` names the first cell whose runs are
the same, bit for bit (``analysis.offpolicy.simulations``): ``distinct`` rows are the study's
distinct results."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binomtest
from scipy.stats import t as student

from analysis.cost import CONFIDENCE
from analysis.offpolicy import (
    DESCRIBED,
    collapsed,
    readouts,
    served_pass_rates,
    simulations,
    stuck,
)
from analysis.pass_rate import seed_pass_rates
from analysis.questions import Inputs
from study.orchestration.storage import read_runs

TABLE = "truncation_collapse"
TEST = ""


def _mean_interval(values: np.ndarray) -> tuple[float, float, float]:
    """The mean of ``values`` over seeds and its Student t 95% interval; no interval (NaN) for
    values that do not vary, a constant has none."""
    mean = float(np.mean(values))
    if np.ptp(values) == 0.0:
        return mean, np.nan, np.nan
    half = float(student.ppf(0.5 + CONFIDENCE / 2, len(values) - 1)
                 * np.std(values, ddof=1) / np.sqrt(len(values)))
    return mean, mean - half, mean + half


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell and compared budget; empty for a study that never truncates."""
    outcomes = inputs.outcomes
    if outcomes is None or "top_p" not in outcomes.cells or not (
            outcomes.cells["top_p"] < 1.0).any():
        return pd.DataFrame()
    budgets = [b for b in inputs.analysis.compared_budgets if b in set(outcomes.budgets)] or [
        int(outcomes.budgets[-1])]
    read = readouts(inputs, ["p_best", "served_p_best", "served_pass_rate"])
    owner = simulations(inputs)
    described = inputs.cells.set_index("cell")
    updates = read_runs(inputs.run_dir, ["cell", "seed", "budget", "zero_signal_updates"])
    updates = updates.sort_values(["cell", "seed", "budget"])["zero_signal_updates"].to_numpy(
        dtype=np.float64).reshape(read["p_best"].shape)
    rows = []
    for cell in outcomes.cells["cell"]:
        cell = int(cell)
        row = outcomes.row(cell)
        group = int(described.loc[cell, "group_size"])
        shares = {"stuck": stuck(outcomes, read["served_p_best"], read["p_best"], cell),
                  "collapsed": collapsed(outcomes, read["p_best"], cell)}
        means = {"served_pass_rate": served_pass_rates(outcomes, read["served_pass_rate"], cell),
                 "pass_rate": seed_pass_rates(outcomes, cell)}
        for budget in budgets:
            c = int(np.flatnonzero(outcomes.budgets == budget)[0])
            seeds = read["p_best"].shape[1]
            found: dict[str, float] = {}
            for name, runs in shares.items():
                count = int(runs[:, c].sum())
                interval = binomtest(count, seeds).proportion_ci(CONFIDENCE, method="exact")
                found |= {name: count / seeds, f"{name}_low": interval.low,
                          f"{name}_high": interval.high}
            right = int(outcomes.correct[row][:, c].sum())
            accuracy = binomtest(right, seeds).proportion_ci(CONFIDENCE, method="wilson")
            found |= {"accuracy": right / seeds, "accuracy_low": accuracy.low,
                      "accuracy_high": accuracy.high}
            for name, values in means.items():
                mean, low, high = _mean_interval(values[:, c])
                found |= {name: mean, f"{name}_low": low, f"{name}_high": high}
            stalled = updates[row][:, c] / (int(budget) // group)
            mean, low, high = _mean_interval(stalled)
            rows.append({"cell": cell, "simulation": owner[cell], "distinct": owner[cell] == cell,
                         **described.loc[cell, DESCRIBED].to_dict(), "budget": int(budget),
                         "seeds": seeds, **found, "stalled_updates": mean,
                         "stalled_updates_low": low, "stalled_updates_high": high})
    return pd.DataFrame(rows)
