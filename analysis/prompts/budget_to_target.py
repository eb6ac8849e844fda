"""What budget does each cell reach a target accuracy (or share of the achievable pass-rate gain)
at, and is a rule's budget half of uniform's (``budget_to_target``)?"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

import analysis.budget_to_target as crossings
from analysis.pass_rate import Achievable
from analysis.prompts.outcomes import (
    cells_frame,
    check_aligned,
    repeats_another,
    seed_frames,
    uniform_pairs,
)
from analysis.roles import Censoring, Placement, typed

TARGETS = (0.8, 0.9)
HALF = 0.5
"""The ratio of budgets Knapsack RL reports against uniform allocation: half the compute."""


def _censoring(rule: float, uniform: float) -> Censoring:
    """Which of two budgets to a target is past the largest budget (inf)."""
    return {(True, True): Censoring.NONE, (False, True): Censoring.RULE,
            (True, False): Censoring.UNIFORM,
            (False, False): Censoring.BOTH}[(math.isfinite(rule), math.isfinite(uniform))]


def budget_to_target(runs: pd.DataFrame, targets: tuple[float, ...] = TARGETS,
                     resamples: int = crossings.BOOTSTRAP, seed: int = 0,
                     metric: str = "accuracy",
                     gains: Mapping[str, Achievable] | None = None) -> pd.DataFrame:
    """Per cell and target, the budget at which the mean ``metric`` over seeds first reaches the
    target (for the pass rate, ``targets`` are shares of each environment's achievable gain,
    ``gains[environment]``, and ``target`` the pass rate they come to)
    (``analysis.budget_to_target``: an isotonic fit of the seed-mean accuracy against the budget C,
    inverted in log budget; C is the budget allowed, the rollouts spent are at most it), with a
    percentile interval over ``resamples`` seed-bootstrap resamples, and for every rule but uniform
    its ratio to uniform allocation's budget (the same resamples for both cells, which share their
    seeds' draws), with:

    * ``interval_against_one`` and ``interval_against_half``: where the ratio's 95% interval
      lies against 1 and against 0.5 (``Placement``:
      ``below``, the rule is shown to need less than half of uniform's budget; ``inside``;
      ``above``; ``unresolved`` where 0.5 is within a limit's Monte Carlo range, so that another
      set of resamples could say otherwise: ``BudgetRatio.holds``, read the other way round);
    * ``censoring`` (``Censoring``): which budget the largest budget left unreached. A censored
      ratio has no point value (``ratio_to_uniform`` NaN) but a bound, ``ratio_bound``: an upper
      one (the rule's budget over the largest budget) when only uniform's is censored, a lower
      one (the largest budget over uniform's) when only the rule's is. Its interval is still
      reported: a resample where a cell never reaches the target counts as an infinite budget.

    Columns: ``CELL_COLUMNS``, ``metric``, ``fraction`` (the share of the achievable gain; NaN
    for accuracy), ``target``, ``seeds``, ``budget_to_target`` (the largest budget,
    a lower bound, where ``reached`` is False), ``budget_low``, ``budget_high``, ``reached``,
    ``at_first_checkpoint`` (reached by the first budget: an upper bound), ``largest_budget``,
    ``uniform_cell``,
    ``ratio_to_uniform``, ``ratio_low``, ``ratio_high``, ``undefined_resamples``, the Monte Carlo
    ranges of the ratio's limits (``ratio_low_mc_low`` ... ``ratio_high_mc_high``,
    ``analysis.budget_to_target.range_columns``), ``ratio_bound``, ``interval_against_one``,
    ``interval_against_half`` and ``censoring`` (the last ten empty for uniform allocation's own
    rows).
    """
    per_seed = seed_frames(runs, metric)
    cells = cells_frame(runs)
    repeated = repeats_another(runs)
    partner = {int(rule["cell"]): int(reference["cell"])
               for rule, reference in uniform_pairs(runs)}
    rows = []
    for fraction in targets:
        resampled = {}
        for cell in cells[~repeated].itertuples(index=False):
            target = (fraction if metric == "accuracy"
                      else gains[cell.environment].target(fraction))
            ours = per_seed[cell.cell]
            budgets = ours.columns.to_numpy(dtype=float)
            # One set of resamples per cell and target, read for its budget and its ratios.
            draws = resampled.setdefault(cell.cell, crossings.resampled_crossings(
                ours.to_numpy(), budgets, target, resamples, seed))
            estimate = crossings.budget_to_target(ours.to_numpy(), budgets, target, resamples,
                                                  seed, draws)
            row = {**cell._asdict(), "metric": metric,
                   "fraction": math.nan if metric == "accuracy" else fraction,
                   "target": target, "seeds": estimate.seeds,
                   "budget_to_target": estimate.estimate, "budget_low": estimate.ci_low,
                   "budget_high": estimate.ci_high, "reached": estimate.reached,
                   "at_first_checkpoint": estimate.at_first,
                   "largest_budget": estimate.largest_budget}
            if cell.cell in partner:
                row |= _ratio_columns(ours, per_seed[partner[cell.cell]], partner[cell.cell],
                                      target, resamples, seed, resampled, draws)
            rows.append(row)
    table = pd.DataFrame(rows)
    for column, kind in (("interval_against_one", Placement),
                         ("interval_against_half", Placement), ("censoring", Censoring)):
        if column in table:
            table[column] = typed(table[column], kind)
    return table


def _ratio_columns(ours: pd.DataFrame, theirs: pd.DataFrame, uniform_cell: int, target: float,
                   resamples: int, seed: int, resampled: dict[int, np.ndarray],
                   draws: np.ndarray) -> dict[str, object]:
    """``budget_to_target``'s ratio columns for a rule (``ours``, its resampled budgets
    ``draws``) against uniform allocation (``theirs``); ``resampled`` keeps each cell's
    resampled budgets, drawn once per target."""
    check_aligned(ours, theirs)
    budgets = ours.columns.to_numpy(dtype=float)
    a, b = ours.to_numpy(), theirs.to_numpy()
    if uniform_cell not in resampled:
        resampled[uniform_cell] = crossings.resampled_crossings(b, budgets, target, resamples,
                                                                seed)
    ratio = crossings.budget_ratio(a, b, budgets, target, resamples, seed,
                                   resampled_b=resampled[uniform_cell], resampled_a=draws)
    rule_budget = crossings.crossing(budgets, a.mean(axis=0), target)
    uniform_budget = crossings.crossing(budgets, b.mean(axis=0), target)
    censoring = _censoring(rule_budget, uniform_budget)
    bound = {Censoring.NONE: math.nan, Censoring.BOTH: math.nan,
             Censoring.UNIFORM: rule_budget / budgets[-1],
             Censoring.RULE: budgets[-1] / uniform_budget}[censoring]
    return {"uniform_cell": uniform_cell,
            "ratio_to_uniform": ratio.ratio if censoring is Censoring.NONE else math.nan,
            "ratio_low": ratio.ci_low, "ratio_high": ratio.ci_high,
            "undefined_resamples": ratio.undefined_resamples,
            **crossings.range_columns("ratio_low", "ratio_high", ratio.ci_low_range,
                                      ratio.ci_high_range),
            "ratio_bound": bound,
            "interval_against_one": _MIRRORED.get(ratio.holds(1.0), ratio.holds(1.0)),
            "interval_against_half": _MIRRORED.get(ratio.holds(HALF), ratio.holds(HALF)),
            "censoring": censoring}


_MIRRORED = {Placement.BELOW: Placement.ABOVE, Placement.ABOVE: Placement.BELOW}
"""Where an interval lies against a value, from where the value lies against the interval."""
