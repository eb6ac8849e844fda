"""Budget against hardness: the budget to 0.9 accuracy against H = sum over non-best arms of
1/gap^2 (``analysis.budget_to_target.hardness``; Audibert, Bubeck and Munos 2010) over several
fixed bandits, per algorithm, and the slope of log budget on log H with a seed-bootstrap
interval.

All estimates use the odd seeds: REINFORCE's lr is chosen per bandit on the even seeds (the
``budget_to_target`` table's best-lr rows), and the algorithms are compared on the same seeds.
A bootstrap resample draws one set of seeds for every bandit and algorithm (the bandits share
seeds: common random numbers), refits each crossing and the slope, and takes percentiles. A
bandit whose fit does not reach 0.9 in a resample counts at the largest budget there (a lower
bound, so that resample's slope is, if anything, too flat); ``censored_resamples`` counts them.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import linregress
from scipy.stats import t as student_t

from analysis.budget_to_target import BOOTSTRAP, TARGET, bootstrap_weights, crossing
from analysis.roles import LrRole
from study.model import registry


def is_hardness_study(budgets: pd.DataFrame) -> bool:
    """A study with fixed bandits of at least three different H: one budget-to-target row per bandit
    and algorithm makes a slope."""
    return budgets["hardness_H"].notna().all() and budgets["hardness_H"].nunique() >= 3


def _fit(h: np.ndarray, budgets: np.ndarray) -> tuple[float, float]:
    """Least-squares (slope, intercept) of log budget on log H."""
    slope, intercept = np.polyfit(np.log(h), np.log(budgets), 1)
    return float(slope), float(intercept)


def bandit_interval(h: np.ndarray, budgets: np.ndarray,
                    confidence: float = 0.95) -> tuple[float, float]:
    """The slope's interval with the bandits as the unit: least squares of log budget on log H,
    the t interval of its slope from the residuals (n - 2 degrees of freedom). It answers
    whether budgets of bandits like these, not only these, grow as H does: the residuals carry
    what K and the shape of the gaps add beyond H, which the seed bootstrap holds fixed."""
    fit = linregress(np.log(h), np.log(budgets))
    half = float(student_t.ppf(0.5 + confidence / 2, len(h) - 2) * fit.stderr)
    return float(fit.slope) - half, float(fit.slope) + half


def hardness_tables(outcomes: dict[int, tuple[np.ndarray, np.ndarray]],
                    budgets: pd.DataFrame, resamples: int = BOOTSTRAP,
                    seed: int = 0) -> dict[str, pd.DataFrame]:
    """``outcomes`` maps each cell to its (odd seeds, checkpoints) outcome matrix and budgets;
    ``budgets`` is the study's budget-to-target table with each cell's ``arms`` (K). Returns
    ``hardness`` (one row per bandit and algorithm, ``algorithm`` its label for people and
    ``learner`` and ``baseline`` what code selects on: H, K, budget to 0.9 on the odd seeds with its
    95% percentile interval, inf above where more than 2.5% of resamples never reach 0.9) and
    ``hardness_slope`` (one row per algorithm: the slope of log budget on log H, its 95% percentile
    interval, the budget per H at the median H, exp(intercept) * median H ^ (slope - 1), and the
    standard deviation of the log residuals about the line: the interval covers seed noise for these
    bandits, not the scatter that K and the shape of the gaps add beyond H; ``bandit_ci_low`` and
    ``bandit_ci_high`` are the interval with the bandits as the unit, ``bandit_interval``, which
    does)."""
    chosen = budgets[(~budgets["algorithm"].isin(registry.trained())
                      & (budgets["lr_role"] == LrRole.GRID))
                     | (budgets["lr_role"] == LrRole.BEST)]
    rows = []
    for _, row in chosen.iterrows():
        correct, checkpoints = outcomes[int(row["cell"])]
        point = crossing(checkpoints, correct.mean(axis=0), TARGET)
        name = ("REINFORCE (" + row["baseline"].replace("_", "-") + " baseline, best lr)"
                if row["algorithm"] in registry.trained() else row["algorithm"])
        rows.append({"algorithm": name, "learner": row["algorithm"],
                     "baseline": row["baseline"], "environment": row["environment"],
                     "arms": int(row["arms"]), "cell": int(row["cell"]),
                     "lr": row["lr"], "hardness_H": row["hardness_H"],
                     "budget_to_target": point, "reached": math.isfinite(point),
                     "seeds": correct.shape[0]})
    table = pd.DataFrame(rows)
    slopes = []
    for name, group in table.groupby("algorithm", sort=False):
        matrices = [outcomes[c] for c in group["cell"]]
        seeds = matrices[0][0].shape[0]
        weights = bootstrap_weights(seeds, resamples, seed)
        h = group["hardness_H"].to_numpy()
        largest = np.array([m[1][-1] for m in matrices])
        curves = [weights @ m[0].astype(float) / seeds for m in matrices]
        fitted = np.array([[crossing(m[1], curve[r], TARGET) for m, curve in zip(
            matrices, curves, strict=True)] for r in range(resamples)])
        censored = ~np.isfinite(fitted)
        fitted = np.where(censored, largest, fitted)
        reached = group["reached"].to_numpy()
        point = np.where(reached, group["budget_to_target"].to_numpy(), largest)
        slope, intercept = _fit(h, point)
        residuals = np.log(point) - (intercept + slope * np.log(h))
        table.loc[group.index, "ci_low"] = np.quantile(fitted, 0.025, axis=0,
                                                       method="inverted_cdf")
        table.loc[group.index, "ci_high"] = np.where(
            censored.mean(axis=0) > 0.025, math.inf,
            np.quantile(fitted, 0.975, axis=0, method="inverted_cdf"))
        draws = np.array([_fit(h, b)[0] for b in fitted])
        low, high = np.quantile(draws, [0.025, 0.975], method="inverted_cdf")
        middle = float(np.median(h))
        # A budget that is only a lower bound is no observation for the regression's residuals.
        across = bandit_interval(h, point) if reached.all() else (math.nan, math.nan)
        slopes.append({"algorithm": name, "learner": group["learner"].iat[0],
                       "baseline": group["baseline"].iat[0], "bandits": len(group),
                       "bandits_reached": int(reached.sum()), "slope": slope,
                       "ci_low": float(low), "ci_high": float(high),
                       "bandit_ci_low": across[0], "bandit_ci_high": across[1],
                       "budget_per_H_at_median_H": math.exp(intercept) * middle ** (slope - 1),
                       "median_H": middle, "seeds": seeds,
                       "residual_sd_log": float(residuals.std(ddof=2)),
                       "censored_resamples": int(censored.any(axis=1).sum())})
    return {"hardness": table, "hardness_slope": pd.DataFrame(slopes)}
