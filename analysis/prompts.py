"""Many prompts, one rollout budget: the allocation rules against uniform allocation.

The runs table of such a study has one row per (cell, seed, budget, band) (``CELL_COLUMNS``,
then the seed, the budget C in rollouts, the difficulty band and what the kernel
``study.core.prompts`` records of it). A seed's accuracy at a budget is the share of its P prompts
whose greedy arm is a best arm, summed over the bands: a fraction k / P, so a mean over seeds
gets the package's interval (``analysis.cost.mean_interval``: a t interval once at least
``SETTLED_SEEDS`` seeds differ from the most common value, else bounds from the counts of seeds
above and below it, valid however many seeds agree). Cells that differ only in their allocation
rule share every seed's prompts and draws (common random numbers), so a rule is compared with
uniform allocation seed by seed.

The questions, one function each: does a rule beat uniform allocation at a budget, or match it
(``versus_uniform``)? What budget does each reach a target accuracy at, and is a rule's budget
half of uniform's (``budget_to_target``)? Where do the rollouts go, by difficulty band
(``band_spending``)? Does ScaleRL's compute curve, fitted on the early budgets, predict the late
ones (``compute_curve``), and does it once the earliest budgets are left out of the fit
(``curve_starts``)? How many seeds does the paired test need (``seeds_needed``)?
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy.optimize import OptimizeWarning, curve_fit
from scipy.special import expit
from statsmodels.stats.power import TTestPower
from statsmodels.tools.sm_exceptions import ConvergenceWarning

import analysis.budget_to_target as crossings
from analysis.cost import CONFIDENCE, Support
from analysis.families import ALPHA, declare, family_name
from analysis.groups import SHARE
from analysis.paired import judge, paired_difference
from analysis.pass_rate import DIFFERENCE as PASS_RATE_DIFFERENCE
from analysis.pass_rate import FRACTIONS, Achievable, achievable, interval_columns
from analysis.power import TARGET_POWER
from analysis.roles import Censoring, CurveFit, Finding, Placement, typed
from analysis.study_tables import SETTINGS
from study.core.prompt_rules import UNIFORM_FIRST_PASS
from study.model.config import AnalysisConfig
from study.model.environment import Environment
from study.model.grid import SAME_UNDER_EITHER

CELL_COLUMNS = ["cell", "allocation", "normalization", "baseline", "group_size", "lr",
                "environment", "prompts"]
"""What describes a cell of a many-prompts study."""
PAIRED_BY = ["environment", "prompts", "group_size", "baseline", "lr", "normalization"]
"""Cells equal in these share every seed's dataset and draws: they differ in allocation only."""
READ_COLUMNS = [*CELL_COLUMNS, "seed", "budget", "band", "band_prompts", "correct_prompts",
                "pass_rate_sum", "best_value_sum", "rollouts", "groups", "zero_signal_groups"]
"""The columns of the tidy runs table the analysis reads (the rest would only take memory)."""
METRICS = ("accuracy", "pass_rate")
"""The outcomes every verdict of the study is stated on, each its own Holm family: best-arm
accuracy (a seed's share of prompts whose greedy arm is a best arm) and the pass rate (a seed's
mean over prompts of its policy's sum pi[k] v[k], what GRESO and Knapsack RL report as
accuracy)."""
REFERENCE = "uniform"
"""The allocation rule every other rule is compared with."""
FAMILY = family_name("prompts", "prompts_vs_uniform")
"""The Holm family of ``versus_uniform`` unless the caller names another."""
TARGETS = (0.8, 0.9)
HALF = 0.5
"""The ratio of budgets Knapsack RL reports against uniform allocation: half the compute."""
EFFECT = 0.02
"""The difference in mean accuracy the seed planner sizes the paired test for, stated before
any run (not read off the data)."""
POOR_FIT = 2.0
"""A compute curve fits badly when its residual RMS on the fitted budgets exceeds this many
times the RMS of the seed-mean's standard errors there. Were the seed means at different budgets
independent and the curve right, the squared ratio would be about a chi-square with n - 3
degrees of freedom over n (n fitted budgets), past 4 with probability below 1e-4 for every
n >= 4 (chi2(1) > 16: 6e-5). They share their seeds, so they are positively correlated; the
curve absorbs much of the common part, which leaves smaller residuals than independent noise
would: the rule calls a right curve poor even less often, and it detects less. A fit called
poor is the curve's failure; one not called poor is not shown to fit (a descriptive threshold,
not a test of the fit)."""


_SUMMED = ["correct_prompts", "band_prompts", "pass_rate_sum", "best_value_sum"]


def _seed_totals(runs: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """One row per (cell, seed, budget): the cell's columns, ``seed``, ``budget``, ``columns``
    summed over the bands, ``accuracy``, the seed's share of prompts right (correct_prompts
    over band_prompts; a prompt that is not finite counts as wrong), ``pass_rate``, the mean
    over its prompts of their policies' pass rates (a prompt that is not finite counts 0), and
    ``regret``, the mean over its prompts of the best value less the pass rate."""
    totals = (runs.groupby([*CELL_COLUMNS, "seed", "budget"], observed=True, sort=True)
              [list(dict.fromkeys([*_SUMMED, *columns]))].sum().reset_index())
    prompts = totals["band_prompts"]
    return totals.assign(accuracy=totals["correct_prompts"] / prompts,
                         pass_rate=totals["pass_rate_sum"] / prompts,
                         regret=(totals["best_value_sum"] - totals["pass_rate_sum"]) / prompts)


def seed_outcomes(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (cell, seed, budget): the cell's columns, ``seed``, ``budget`` and each of
    ``METRICS`` of the seed over all bands, and its ``regret``."""
    return _seed_totals(runs, []).drop(columns=_SUMMED)


def _per_seed(runs: pd.DataFrame, metric: str) -> dict[int, pd.DataFrame]:
    """Per cell, ``metric`` of each seed as a (seeds, budgets) frame."""
    return _by_seed(seed_outcomes(runs), metric)


def _support(metric: str, prompts: int) -> Support:
    """What the paired difference of two seeds' ``metric`` can be: k / P for accuracy, any real
    in [-1, 1] for the pass rate."""
    return difference_support(prompts) if metric == "accuracy" else PASS_RATE_DIFFERENCE


def _cells(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per cell, its ``CELL_COLUMNS``, in cell order."""
    return runs[CELL_COLUMNS].drop_duplicates("cell").sort_values("cell").reset_index(drop=True)


def _by_seed(long: pd.DataFrame, column: str) -> dict[int, pd.DataFrame]:
    """Per cell, ``column`` as a (seeds, budgets) frame, seeds and budgets sorted; ValueError
    unless every cell has every one of its seeds at every one of its budgets."""
    wide = {}
    for cell, frame in long.groupby("cell", sort=True):
        table = frame.pivot(index="seed", columns="budget", values=column)
        if table.isna().to_numpy().any():
            raise ValueError(f"cell {cell}: not every seed is recorded at every budget")
        wide[int(cell)] = table
    return wide


def _repeats(cells: pd.DataFrame) -> pd.Series:
    """Whether each cell repeats another's runs: normalised per batch under a rule whose groups
    all have the configured size (``study.model.grid.SAME_UNDER_EITHER``), it is the per-group
    cell's simulation, one hypothesis, compared once (as the per-group cell)."""
    return (cells["normalization"] == "per_batch") & cells["allocation"].isin(SAME_UNDER_EITHER)


def _pairs(cells: pd.DataFrame) -> list[tuple[pd.Series, pd.Series]]:
    """Every (rule, uniform) pair of cells that differ in their allocation only, but for a rule
    cell that repeats another's runs (``_repeats``)."""
    pairs = []
    repeats = _repeats(cells)
    for _, group in cells.groupby(PAIRED_BY, sort=False):
        reference = group[group["allocation"] == REFERENCE]
        if reference.empty:
            continue
        pairs.extend((rule, reference.iloc[0]) for index, rule in group.iterrows()
                     if rule["allocation"] != REFERENCE and not repeats[index])
    return pairs


def _aligned(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """ValueError unless two cells' per-seed frames hold the same seeds and budgets: a pairing
    by seed needs them."""
    if not (a.index.equals(b.index) and a.columns.equals(b.columns)):
        raise ValueError("cells paired by seed must hold the same seeds and budgets")


def accuracy_support(prompts: int) -> Support:
    """What a seed's accuracy over ``prompts`` prompts can be: k / P for k = 0..P."""
    return Support(tuple(np.arange(prompts + 1) / prompts))


def difference_support(prompts: int) -> Support:
    """What the difference of two seeds' accuracies over ``prompts`` prompts can be: k / P for
    k = -P..P (``Support.difference`` of two ``accuracy_support``, without its P^2 pairs)."""
    return Support(tuple(np.arange(-prompts, prompts + 1) / prompts))


_FULL_NAMES = {"ci_low": "difference_low", "ci_high": "difference_high",
               "ci90_low": "equivalence_low", "ci90_high": "equivalence_high"}


def versus_uniform(runs: pd.DataFrame, margin: float, family: str = FAMILY,
                   alpha: float = ALPHA, confidence: float = CONFIDENCE,
                   metric: str = "accuracy") -> pd.DataFrame:
    """Each allocation rule against uniform allocation in the same (environment, prompts,
    group_size, baseline, lr, normalization), on ``metric`` (one of ``METRICS``), at each
    budget, paired by seed; for a rule whose first pass is
    uniform allocation's (``study.core.prompt_rules.UNIFORM_FIRST_PASS``), at each budget past
    one pass (P G rollouts) only, since up to it the two cells' runs are the same.

    Columns: the rule's ``CELL_COLUMNS``, ``metric``, ``uniform_cell``, ``budget``, ``seeds``,
    ``rule_mean`` and ``uniform_mean`` (means over seeds), ``difference`` (the mean of
    the per-seed differences, rule minus uniform) with its ``confidence`` interval
    (``difference_low``, ``difference_high``) and its 1 - 2 alpha interval (``equivalence_low``,
    ``equivalence_high``), ``differing_seeds`` (seeds off the most common difference),
    ``interval_method`` (``t`` or ``bound``, ``paired_difference``), ``p_value`` (two-sided,
    the same rule), ``p_value_holm`` and ``family`` (Holm within ``family``: the whole table),
    ``margin``, ``verdict``, ``within_margin`` (the 1 - 2 alpha interval inside +-margin: two
    one-sided tests at alpha) and ``finding`` (``analysis.paired.judge``).
    """
    per_seed = _per_seed(runs, metric)
    rows = []
    for rule, reference in _pairs(_cells(runs)):
        ours, theirs = per_seed[rule["cell"]], per_seed[reference["cell"]]
        _aligned(ours, theirs)
        support = _support(metric, int(rule["prompts"]))
        # Up to one pass such a rule's runs are uniform allocation's, draw for draw: no
        # hypothesis to test (it would only make the family larger).
        same_until = (int(rule["prompts"]) * int(rule["group_size"])
                      if rule["allocation"] in UNIFORM_FIRST_PASS else 0)
        for budget in ours.columns[ours.columns > same_until]:
            a, b = ours[budget].to_numpy(), theirs[budget].to_numpy()
            rows.append({**rule[CELL_COLUMNS].to_dict(), "metric": metric,
                         "uniform_cell": reference["cell"], "budget": int(budget),
                         "rule_mean": float(a.mean()), "uniform_mean": float(b.mean()),
                         **paired_difference(a - b, support, alpha, confidence)})
    if not rows:
        return pd.DataFrame(rows)
    table = judge(declare(pd.DataFrame(rows), family), margin, alpha)
    return table.rename(columns=_FULL_NAMES)


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
    ``at_first`` (reached by the first budget: an upper bound), ``summary``, ``uniform_cell``,
    ``ratio_to_uniform``, ``ratio_low``, ``ratio_high``, ``undefined_resamples``, the Monte Carlo
    ranges of the ratio's limits (``ratio_low_mc_low`` ... ``ratio_high_mc_high``,
    ``analysis.budget_to_target.range_columns``), ``ratio_bound``, ``interval_against_one``,
    ``interval_against_half`` and ``censoring`` (the last ten empty for uniform allocation's own
    rows).
    """
    per_seed = _per_seed(runs, metric)
    cells = _cells(runs)
    partner = {int(rule["cell"]): int(reference["cell"]) for rule, reference in _pairs(cells)}
    rows = []
    for fraction in targets:
        resampled = {}
        for cell in cells[~_repeats(cells)].itertuples(index=False):
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
                   "at_first": estimate.at_first, "summary": estimate.describe()}
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
    _aligned(ours, theirs)
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


def _interval_columns(name: str, values: np.ndarray, support: Support) -> dict[str, object]:
    """``name``, ``name_low``, ``name_high``, ``name_interval`` (``t``, ``bound`` or
    ``constant``) and ``name_seeds``: the mean of per-seed ``values`` (NaN ones left out: seeds
    where the quantity is undefined) with its 95% interval (``analysis.pass_rate.
    interval_columns``: none where every seed has the same value), clipped to the support's
    range."""
    values = values[~np.isnan(values)]
    if values.size == 0:
        return {name: math.nan, f"{name}_low": math.nan, f"{name}_high": math.nan,
                f"{name}_interval": "", f"{name}_seeds": 0}
    found = interval_columns(name, values, support)
    return found | {f"{name}_low": max(found[f"{name}_low"], support.values[0]),
                    f"{name}_high": min(found[f"{name}_high"], support.values[-1]),
                    f"{name}_seeds": int(values.size)}


def band_spending(runs: pd.DataFrame) -> pd.DataFrame:
    """Per cell, budget and difficulty band, three means over seeds, each with its 95% interval
    (``mean_interval``: a t interval once ``SETTLED_SEEDS`` seeds differ from the most common
    value, else the bound; the ``*_interval`` column says which) and the seeds it is over:

    * ``rollout_share``: the band's share of the seed's rollouts spent (seeds that spent none yet
      left out);
    * ``zero_signal_share``: the band's groups without signal per group run in it (seeds that ran
      no group in the band left out);
    * ``accuracy``: the band's share of prompts right (the support k / band_prompts).

    Columns: ``CELL_COLUMNS``, ``budget``, ``band``, ``band_prompts``, then ``<name>``,
    ``<name>_low``, ``<name>_high``, ``<name>_interval`` and ``<name>_seeds`` for each of the
    three.
    """
    runs = runs.sort_values(["cell", "budget", "band", "seed"])
    spent = runs.groupby(["cell", "seed", "budget"])["rollouts"].transform("sum").to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = {"rollout_share": runs["rollouts"].to_numpy() / spent,
                  "zero_signal_share": (runs["zero_signal_groups"].to_numpy()
                                        / runs["groups"].to_numpy()),
                  "accuracy": (runs["correct_prompts"].to_numpy()
                               / runs["band_prompts"].to_numpy())}
    frame = runs[[*CELL_COLUMNS, "budget", "band", "band_prompts"]].assign(**shares)
    rows = []
    for key, group in frame.groupby([*CELL_COLUMNS, "budget", "band"], observed=True,
                                    sort=False):
        size = group["band_prompts"].unique()
        if size.size != 1:
            raise ValueError(f"{key}: a band's size differs between seeds")
        row = dict(zip([*CELL_COLUMNS, "budget", "band"], key, strict=True))
        row["band_prompts"] = int(size[0])
        for name, support in (("rollout_share", SHARE), ("zero_signal_share", SHARE),
                              ("accuracy", accuracy_support(int(size[0])))):
            row |= _interval_columns(name, group[name].to_numpy(), support)
        rows.append(row)
    return pd.DataFrame(rows)


class ComputeCurve(NamedTuple):
    """``compute_curve``'s two tables: the fitted parameters per cell, and the predictions at
    the budgets held out, per cell and budget."""

    parameters: pd.DataFrame
    predictions: pd.DataFrame


def scaling_curve(budget: np.ndarray, start: float, asymptote: float, steepness: float,
                  midpoint: float) -> np.ndarray:
    """ScaleRL's R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B) with R0 ``start``, A ``asymptote``,
    B ``steepness`` and C_mid ``midpoint``, written as R0 + (A - R0) expit(B log(C / C_mid)) so
    that no power overflows; R(0) = R0."""
    with np.errstate(divide="ignore"):
        log_budget = np.log(np.asarray(budget, dtype=float))
    return start + (asymptote - start) * expit(steepness * (log_budget - math.log(midpoint)))


def _fit(budgets: np.ndarray, accuracy: np.ndarray, start: float,
         near: np.ndarray | None = None) -> np.ndarray | None:
    """(A, B, C_mid) by least squares (``scipy.optimize.curve_fit``, trust region reflective)
    with A in (R0, 1], B > 0 and C_mid > 0, or None where it fails. It fits log C_mid, which
    keeps C_mid positive and the parameters on comparable scales. ``near``: a fit to start
    from (a bootstrap resample's refit starts from the full sample's, which it lies close to),
    else a guess from the data."""
    def curve(budget: np.ndarray, asymptote: float, steepness: float,
              log_midpoint: float) -> np.ndarray:
        return scaling_curve(budget, start, asymptote, steepness, math.exp(log_midpoint))

    def slopes(budget: np.ndarray, asymptote: float, steepness: float,
               log_midpoint: float) -> np.ndarray:
        # The curve's derivatives in its three parameters, R0 + (A - R0) s(z) with z =
        # B (log C - log C_mid): a refit then costs no finite differences (most of its time).
        distance = np.log(budget) - log_midpoint
        share = expit(steepness * distance)
        bend = (asymptote - start) * share * (1.0 - share)
        return np.column_stack([share, bend * distance, -bend * steepness])

    low = np.nextafter(start, 1.0)
    guess = ([min(max(float(accuracy.max()), low + 1e-3), 1.0), 1.0,
              float(np.log(np.median(budgets[budgets > 0])))] if near is None
             else [near[0], near[1], math.log(near[2])])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OptimizeWarning)
            found, _ = curve_fit(curve, budgets, accuracy, p0=guess, jac=slopes,
                                 bounds=([low, np.finfo(float).tiny, -np.inf],
                                         [1.0, np.inf, np.inf]))
    except (RuntimeError, ValueError):
        return None
    asymptote, steepness, log_midpoint = found
    if not np.all(np.isfinite(found)):
        return None
    return np.array([asymptote, steepness, math.exp(log_midpoint)])


_PARAMETERS = ("asymptote", "steepness", "midpoint")


def compute_curve(runs: pd.DataFrame, cut: float, chance: Mapping[str, float],
                  resamples: int = crossings.BOOTSTRAP, seed: int = 0,
                  confidence: float = CONFIDENCE, first: float = 0.0,
                  metric: str = "accuracy") -> ComputeCurve:
    """Per cell, ScaleRL's compute curve (``scaling_curve``) fitted to the seed-mean ``metric``
    at the budgets from ``first`` to ``cut`` and checked at the budgets above ``cut``. (On the
    pass rate ``chance`` holds each environment's untrained pass rate, E[mean_k v], which R0 is
    fixed at as below.)

    R0 is fixed at chance, ``chance[environment]`` (1/K for arm values drawn from a continuous
    law: the untrained policy's greedy arm is a uniform tie-break among K), not at the mean at the
    smallest budget: R(C) tends to R0 as C tends to 0, and at C = 0 every prompt's policy is the
    untrained one, whose accuracy is known exactly; the smallest budget of a study has trained
    already (R there lies above R0 by the curve's own amount), so fixing R0 to it would bias A, B
    and C_mid and carry that budget's noise into all three.

    The fit is least squares, unweighted: the seed-mean's standard errors differ little from
    budget to budget next to the misfit the ``fit`` column looks for. The percentile intervals
    (``confidence``) of A, B and C_mid refit each of ``resamples`` seed-bootstrap resamples
    (``analysis.budget_to_target.bootstrap_weights``: whole seeds move together, so the
    budgets' correlation is kept); a resample whose fit fails is counted
    (``failed_resamples``) and left out of the percentiles.

    ``parameters``: ``CELL_COLUMNS``, ``metric``, ``seeds``, ``first_budget`` (the smallest budget
    fitted), ``fitted_budgets``, ``start`` (R0), then ``asymptote`` (A), ``steepness`` (B),
    ``midpoint`` (C_mid), each with ``_low`` and ``_high``, ``resamples``, ``failed_resamples``,
    ``residual_rms`` (of the seed means about the curve on the fitted budgets), ``standard_error``
    (RMS over the fitted budgets of the seed-mean's standard error) and ``fit`` (``CurveFit``:
    ``poor`` when the residual RMS exceeds ``POOR_FIT`` standard errors, ``failed`` when the fit to
    the full sample fails, ``too few budgets`` with fewer than four budgets <= cut: three parameters
    leave no residual).
    ``predictions``: per cell and budget > cut, ``predicted`` (from the full-sample fit) with its
    bootstrap interval (``predicted_low``, ``predicted_high``: the curve's own uncertainty, for
    the figure), ``measured`` (the seed mean) and its ``measured_standard_error``, and the check:
    ``error`` = measured - predicted with its percentile interval over the same resamples
    (``error_low``, ``error_high``: each resample's measured mean against its own refit's
    prediction, so the interval holds the uncertainty of both and their correlation, the
    held-out budgets being the fitted seeds' later ones), the Monte Carlo ranges of its limits
    (``error_low_mc_low`` ... ``error_high_mc_high``) and ``prediction`` (``Placement`` of 0
    against that interval: ``inside``, the measurement agrees with the prediction; ``below``,
    the prediction is below the measurement; ``above``; ``unresolved`` within a limit's Monte
    Carlo error); no rows for a cell whose fit failed.
    """
    accuracy = _per_seed(runs, metric)
    cells = _cells(runs)
    tail = (1 - confidence) / 2
    parameters, predictions = [], []
    for cell in cells.itertuples(index=False):
        values = accuracy[cell.cell].to_numpy()
        budgets = accuracy[cell.cell].columns.to_numpy(dtype=float)
        seeds = values.shape[0]
        start = float(chance[cell.environment])
        fitted, held = (budgets >= first) & (budgets <= cut), budgets > cut
        means = values.mean(axis=0)
        errors = values.std(axis=0, ddof=1) / math.sqrt(seeds)
        found = _fit(budgets[fitted], means[fitted], start) if fitted.sum() > 3 else None
        row = {**cell._asdict(), "metric": metric, "seeds": seeds,
               "first_budget": int(budgets[fitted][0]) if fitted.any() else math.nan,
               "fitted_budgets": int(fitted.sum()),
               "start": start, **dict.fromkeys((f"{name}{end}" for name in _PARAMETERS
                                                for end in ("", "_low", "_high")), math.nan),
               "resamples": resamples, "failed_resamples": 0, "residual_rms": math.nan,
               "standard_error": float(np.sqrt(np.mean(errors[fitted] ** 2))),
               "fit": CurveFit.TOO_FEW_BUDGETS if fitted.sum() <= 3 else CurveFit.FAILED}
        if found is None:
            parameters.append(row)
            continue
        curves = (crossings.bootstrap_weights(seeds, resamples, seed) @ values) / seeds
        refits = [_fit(budgets[fitted], curve[fitted], start, found) for curve in curves]
        fitted_resamples = np.array([r is not None for r in refits], dtype=bool)
        kept = np.array([r for r in refits if r is not None]).reshape(-1, 3)
        residual = means[fitted] - scaling_curve(budgets[fitted], start, *found)
        row["residual_rms"] = float(np.sqrt(np.mean(residual**2)))
        row["fit"] = (CurveFit.POOR if row["residual_rms"] > POOR_FIT * row["standard_error"]
                      else CurveFit.GOOD)
        row["failed_resamples"] = resamples - len(kept)
        for i, name in enumerate(_PARAMETERS):
            row[name] = float(found[i])
            row[f"{name}_low"], row[f"{name}_high"] = _percentiles(kept[:, i], tail)
        parameters.append(row)
        for c in np.flatnonzero(held):
            resampled = np.array([scaling_curve(budgets[c], start, *r) for r in kept])
            low, high = _percentiles(resampled, tail)
            predicted = float(scaling_curve(budgets[c], start, *found))
            missed = curves[fitted_resamples, c] - resampled
            error_low, error_high = _percentiles(missed, tail)
            ranges = ((crossings.percentile_range(missed, tail),
                       crossings.percentile_range(missed, 1 - tail)) if missed.size
                      else ((math.nan, math.nan), (math.nan, math.nan)))
            predictions.append({**cell._asdict(), "metric": metric, "budget": int(budgets[c]),
                                "predicted": predicted, "predicted_low": low,
                                "predicted_high": high, "measured": float(means[c]),
                                "measured_standard_error": float(errors[c]),
                                "error": float(means[c]) - predicted, "error_low": error_low,
                                "error_high": error_high,
                                **crossings.range_columns("error_low", "error_high", *ranges),
                                "prediction": crossings.placement(0.0, *ranges)})
    table = pd.DataFrame(parameters)
    if len(table):
        table["fit"] = typed(table["fit"], CurveFit)
    predictions = pd.DataFrame(predictions)
    if len(predictions):
        predictions["prediction"] = typed(predictions["prediction"], Placement)
    return ComputeCurve(table, predictions)


def curve_starts(runs: pd.DataFrame, cut: float, chance: Mapping[str, float],
                 resamples: int = crossings.BOOTSTRAP, seed: int = 0,
                 metric: str = "accuracy") -> pd.DataFrame:
    """The compute curve fitted from each later first budget (ScaleRL fits after its runs'
    early steps; ``compute_curve`` fits from the smallest): one row per first budget after the
    smallest that leaves four budgets or more up to ``cut``, over the cells of ``runs``:
    ``first_budget``, ``fitted_budgets``, ``fits``, ``poor_fits`` (``CurveFit.POOR``),
    ``failed_fits``, ``largest_residual`` (residual RMS), ``held_out`` (predictions), the
    predictions by ``Placement`` of 0 against their error interval (``prediction_inside``,
    ``prediction_below``: the curve below the measured mean, ``prediction_above``,
    ``prediction_unresolved``), ``smallest_error`` and ``largest_error`` (measured minus
    predicted), and ``resamples``."""
    budgets = np.sort(runs["budget"].unique())
    fitted = budgets[budgets <= cut]
    rows = []
    for first in fitted[1:len(fitted) - 3]:
        curve = compute_curve(runs, cut, chance, resamples, seed, first=float(first),
                              metric=metric)
        found, predicted = curve.parameters, curve.predictions
        placed = (predicted["prediction"].value_counts() if len(predicted)
                  else pd.Series(dtype=int))
        rows.append({"metric": metric, "first_budget": int(first),
                     "fitted_budgets": int((fitted >= first).sum()),
                     "fits": len(found),
                     "poor_fits": int((found["fit"] == CurveFit.POOR).sum()),
                     "failed_fits": int((found["fit"] == CurveFit.FAILED).sum()),
                     "largest_residual": float(found["residual_rms"].max()),
                     "held_out": len(predicted),
                     **{f"prediction_{p.value}": int(placed.get(p, 0)) for p in Placement},
                     "smallest_error": float(predicted["error"].min()) if len(predicted)
                     else math.nan,
                     "largest_error": float(predicted["error"].max()) if len(predicted)
                     else math.nan,
                     "resamples": resamples})
    return pd.DataFrame(rows)


def _percentiles(values: np.ndarray, tail: float) -> tuple[float, float]:
    """The ``tail`` and 1 - ``tail`` quantiles of ``values`` (NaN for none)."""
    if values.size == 0:
        return math.nan, math.nan
    low, high = np.quantile(values, [tail, 1 - tail])
    return float(low), float(high)


def seeds_needed(sd_of_differences: float, effect: float = EFFECT, alpha: float = ALPHA,
                 power: float = TARGET_POWER) -> int:
    """The fewest seeds at which the two-sided paired t-test at ``alpha`` (the test
    ``versus_uniform`` runs once ``SETTLED_SEEDS`` seeds' differences differ from the most common
    one) detects a mean difference of ``effect`` with probability ``power``, for per-seed
    differences of standard deviation ``sd_of_differences`` (from a pilot: an input, not a
    result). The power is exact, from the noncentral t (``statsmodels``' ``TTestPower``); the
    effect is the one stated before the run, never an observed one (Hoenig and Heisey 2001)."""
    size = effect / sd_of_differences
    analysis = TTestPower()
    # solve_power finds no root (NaN, with a warning) when even 2 seeds have the power: start
    # there then.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        root = analysis.solve_power(effect_size=size, alpha=alpha, power=power,
                                    alternative="two-sided")
    n = max(math.ceil(root), 2) if math.isfinite(root) else 2
    # solve_power's root is a float found to a tolerance: step to the integer boundary exactly.
    while analysis.power(size, n, alpha) < power:
        n += 1
    while n > 2 and analysis.power(size, n - 1, alpha) >= power:
        n -= 1
    return n


SEEDS_FOR_EFFECT = "seeds_for_effect"
"""The column of ``plan_table`` with the seeds the stated effect needs."""


def accuracy_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per cell and budget, over seeds: the mean accuracy, the mean pass rate of the policies
    (the mean over prompts of sum pi[k] v[k]) and the mean regret (the mean over prompts of the
    best value less the pass rate), each with its 95% interval (``<name>``, ``<name>_low``,
    ``<name>_high``, ``<name>_interval``, ``<name>_seeds``), the mean rollouts spent (at most the
    budget: groups run whole) and the mean share of groups without signal."""
    totals = _seed_totals(runs, ["rollouts", "groups", "zero_signal_groups"])
    with np.errstate(invalid="ignore", divide="ignore"):
        totals = totals.assign(zero_signal_share=totals["zero_signal_groups"] / totals["groups"])
    rows = []
    for key, group in totals.groupby([*CELL_COLUMNS, "budget"], observed=True, sort=True):
        row = dict(zip([*CELL_COLUMNS, "budget"], key, strict=True))
        row |= _interval_columns("accuracy", group["accuracy"].to_numpy(),
                                 accuracy_support(int(row["prompts"])))
        for name in ("pass_rate", "regret"):
            row |= _interval_columns(name, group[name].to_numpy(), SHARE)
        row |= {"rollouts": float(group["rollouts"].mean()),
                "zero_signal_share": float(group["zero_signal_share"].mean())}
        rows.append(row)
    return pd.DataFrame(rows)


def plan_table(runs: pd.DataFrame, versus: pd.DataFrame, effect: float = EFFECT,
               power: float = TARGET_POWER, metric: str = "accuracy") -> pd.DataFrame:
    """The seeds each paired comparison of ``versus`` (``versus_uniform``) needs to detect the
    stated ``effect`` with ``power`` at the level of the first Holm step of its family (alpha /
    family size), by ``seeds_needed``; the standard deviation of the per-seed differences is
    this run's (a nuisance parameter, read from the data; the effect is not). One row per
    (rule, environment, group size, estimator): the largest over its budgets, since the family
    is tested at every budget. ``seeds`` is what the run had."""
    per_seed = _per_seed(runs, metric)
    level = ALPHA / len(versus)
    rows = []
    for rule, reference in _pairs(_cells(runs)):
        differences = per_seed[rule["cell"]] - per_seed[reference["cell"]]
        spread = float(differences.std(ddof=1).max())
        rows.append({**rule[CELL_COLUMNS].to_dict(), "metric": metric,
                     "seeds": len(differences),
                     "largest_sd_of_differences": spread, "effect": effect, "level": level,
                     "power": power,
                     SEEDS_FOR_EFFECT: seeds_needed(spread, effect, level, power)
                     if spread > 0 else 2})
    return pd.DataFrame(rows)


VERDICT_KEYS = ["allocation", "environment", "normalization", "metric"]
"""What a row of ``verdict_table`` is about."""


def verdict_table(versus: pd.DataFrame, baseline: str, group_size: int) -> pd.DataFrame:
    """One row per rule, law, normalization and metric (``VERDICT_KEYS``) of ``versus``
    (``versus_uniform`` on every metric): the headline cells' (``baseline``, ``group_size``)
    comparison with uniform allocation at the largest budget (``budget``, ``difference`` with
    ``difference_low`` and ``difference_high``, ``finding``: ``higher``, ``lower``,
    ``equivalent`` within the metric's margin, or ``unresolved``; ``within_margin``, the
    equivalence test's, so that a difference shown but smaller than the margin is told from a
    larger one), and over every estimator,
    group size and budget of the rule, law and normalization, how many comparisons found each
    (``comparisons``, ``higher``, ``lower``, ``equivalent``, ``unresolved``); and
    ``other_metric_finding``, the other metric's finding there, with ``metrics_agree``."""
    rows = []
    largest = versus["budget"].max()
    for key, group in versus.groupby(VERDICT_KEYS, observed=True, sort=False):
        head = group[(group["baseline"] == baseline) & (group["group_size"] == group_size)
                     & (group["budget"] == largest)]
        counts = group["finding"].value_counts()
        row = dict(zip(VERDICT_KEYS, key, strict=True))
        if len(head):
            first = head.iloc[0]
            row |= {"budget": int(largest), "difference": first["difference"],
                    "difference_low": first["difference_low"],
                    "difference_high": first["difference_high"], "margin": first["margin"],
                    "finding": first["finding"], "within_margin": first["within_margin"]}
        rows.append(row | {"comparisons": len(group),
                           **{f.value: int(counts.get(f, 0)) for f in Finding}})
    table = pd.DataFrame(rows)
    if "finding" in table:
        # Where the two metrics' verdicts on the same rule, law and normalization part.
        same = ["allocation", "environment", "normalization"]
        others = table.assign(metric=table["metric"].map(dict(zip(METRICS, METRICS[::-1],
                                                                  strict=True))))
        table = table.merge(others[[*same, "metric", "finding"]].rename(
            columns={"finding": "other_metric_finding"}), on=[*same, "metric"], how="left")
        table["metrics_agree"] = table["finding"] == table["other_metric_finding"]
        for column in ("finding", "other_metric_finding"):
            table[column] = typed(table[column], Finding)
    return table


def study_tables(runs: pd.DataFrame, study: str, analysis: AnalysisConfig,
                 environments: Mapping[str, Environment]) -> dict[str, pd.DataFrame]:
    """Every table of a many-prompts study from its tidy runs table, analysed as its config's
    ``[analysis]`` table says (``equivalence_margin`` for accuracy, ``pass_rate_margin`` for the
    pass rate; the compute curve, fitted up to ``curve_cut``, for the cells of
    ``headline_baseline`` and ``headline_group_size``), on each of ``METRICS``, each metric its
    own Holm family; ``environments``: each environment of the runs by its text."""
    margins = {"accuracy": analysis.equivalence_margin, "pass_rate": analysis.pass_rate_margin}
    effects = {"accuracy": EFFECT, "pass_rate": analysis.pass_rate_margin}
    gains = {text: achievable(env) for text, env in environments.items()}
    starts = {"accuracy": {text: env.chance for text, env in environments.items()},
              "pass_rate": {text: gain.start for text, gain in gains.items()}}
    targets = {"accuracy": TARGETS, "pass_rate": FRACTIONS}
    versus = {metric: versus_uniform(runs, margins[metric], family_name(study, family(metric)),
                                     metric=metric) for metric in METRICS}
    joined = pd.concat(versus.values(), ignore_index=True)
    # The headline cells' lr, where the config's default (a single bandit's headline) would
    # name an lr no cell of this study uses.
    rates = runs.loc[(runs["baseline"] == analysis.headline_baseline)
                     & (runs["group_size"] == analysis.headline_group_size), "lr"].unique()
    settings = analysis.to_dict() | ({"headline_lr": float(rates[0])} if len(rates) == 1 else {})
    tables = {SETTINGS: pd.DataFrame([{"study": study, **settings}]),
              "cells": _cells(runs), "prompts_accuracy": accuracy_table(runs),
              "prompts_vs_uniform": joined,
              "prompts_verdicts": verdict_table(joined, analysis.headline_baseline,
                                                analysis.headline_group_size),
              "prompts_plan": pd.concat([plan_table(runs, versus[metric], effects[metric],
                                                    metric=metric) for metric in METRICS],
                                        ignore_index=True),
              "prompts_budget_to_target": pd.concat(
                  [budget_to_target(runs, targets[metric], metric=metric, gains=gains)
                   for metric in METRICS], ignore_index=True),
              "prompts_bands": band_spending(runs)}
    if analysis.curve_cut:
        # ScaleRL's extrapolation is asked of the headline cells as a trainer runs them (per
        # group); from later first budgets on accuracy only, where the question arose (each
        # first budget refits every resample).
        headline = runs[(runs["baseline"] == analysis.headline_baseline)
                        & (runs["group_size"] == analysis.headline_group_size)
                        & (runs["normalization"] == "per_group")]
        curves = [compute_curve(headline, analysis.curve_cut, starts[metric], metric=metric)
                  for metric in METRICS]
        tables["prompts_curve"] = pd.concat([c.parameters for c in curves], ignore_index=True)
        tables["prompts_curve_predictions"] = pd.concat([c.predictions for c in curves],
                                                        ignore_index=True)
        tables["prompts_curve_starts"] = curve_starts(headline, analysis.curve_cut,
                                                      starts["accuracy"])
    return tables


def family(metric: str) -> str:
    """The table part of the Holm family of the comparisons with uniform allocation on
    ``metric`` (the study's name comes first): accuracy's keeps its old name."""
    return "prompts_vs_uniform" if metric == "accuracy" else f"prompts_vs_uniform_{metric}"
