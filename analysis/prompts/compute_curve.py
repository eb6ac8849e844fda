"""Does ScaleRL's compute curve, fitted on the early budgets, predict the late ones
(``compute_curve``), and does it once the earliest budgets are left out of the fit
(``curve_starts``)?"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy.optimize import least_squares
from scipy.special import expit, logit

import analysis.budget_to_target as crossings
from analysis.cost import CONFIDENCE
from analysis.prompts.outcomes import cells_frame, seed_frames
from analysis.roles import CurveFit, Placement, typed

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
    """(A, B, C_mid) by least squares, with A in (R0, 1], B > 0 and C_mid > 0, or None where it
    fails. It fits a with A = R0 + (1 - R0) expit(a), log B and log C_mid, which keep the
    parameters in their ranges and on comparable scales with no bounds, so that MINPACK's
    Levenberg-Marquardt (``scipy.optimize.least_squares``, method ``lm``) solves it: a bootstrap
    is a thousand refits per cell, and the bounded trust-region solver's steps cost several
    times more. ``near``: a fit to start from (a bootstrap resample's refit starts from the full
    sample's, which it lies close to), else a guess from the data."""
    log_budgets = np.log(budgets)
    gain = 1.0 - start

    def missed(p: np.ndarray) -> np.ndarray:
        share, steepness = expit(p[0]), math.exp(p[1])
        return start + gain * share * expit(steepness * (log_budgets - p[2])) - accuracy

    def slopes(p: np.ndarray) -> np.ndarray:
        # The derivatives in a, log B and log C_mid of R0 + (1 - R0) expit(a) s(z), z =
        # B (log C - log C_mid): a refit then costs no finite differences.
        share, steepness = expit(p[0]), math.exp(p[1])
        distance = log_budgets - p[2]
        rise = expit(steepness * distance)
        bend = gain * share * rise * (1.0 - rise)
        return np.column_stack([gain * share * (1.0 - share) * rise,
                                bend * distance * steepness, -bend * steepness])

    asymptote, steepness, midpoint = (
        (max(float(accuracy.max()), start + 1e-3), 1.0, float(np.median(budgets[budgets > 0])))
        if near is None else near)
    # An asymptote at 1 is a share of 1, a logit past every float: started just below it.
    share = np.clip((asymptote - start) / gain, np.finfo(float).tiny, 1.0 - np.finfo(float).eps)
    guess = np.array([logit(share), math.log(steepness), math.log(midpoint)])
    # It fails on data that are not finite, where MINPACK stops without converging and where a
    # parameter leaves the floats (the search has run away).
    try:
        accuracy = np.asarray_chkfinite(accuracy, float)
        fitted = least_squares(missed, guess, jac=slopes, method="lm")
        found = np.array([start + gain * expit(fitted.x[0]), math.exp(fitted.x[1]),
                          math.exp(fitted.x[2])])
    except (ValueError, OverflowError):
        return None
    return (found if fitted.success and np.all(np.isfinite(found)) and np.all(found[1:] > 0)
            else None)


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
    accuracy = seed_frames(runs, metric)
    cells = cells_frame(runs)
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
