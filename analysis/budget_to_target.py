"""The budget at which accuracy first reaches a target (0.9), with a bootstrap interval.

Accuracy against budget is fitted with isotonic regression (``scipy.optimize.isotonic_regression``,
unweighted: every checkpoint of a cell has the same seeds, so weights by seeds would all be
equal): a monotone fit without a parametric shape, which matters because REINFORCE with
a large lr plateaus below 1 and a logistic from chance to 1 would not fit it. The fitted curve is
interpolated linearly in log budget and inverted at the target. The interval resamples whole seeds
(all checkpoints of a seed move together, so their correlation is kept) and takes percentiles.
A target not reached by the largest budget is reported as a lower bound, never extrapolated.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.optimize import isotonic_regression
from scipy.stats import binom

from analysis.roles import Placement
from study.model.environment import Environment

TARGET = 0.9
BOOTSTRAP = 1000
MONTE_CARLO_CONFIDENCE = 0.95
"""Confidence of a bootstrap limit's Monte Carlo range (``percentile_range``)."""
MORE_RESAMPLES = 20_000
"""Resamples for a budget ratio whose equivalence verdict the first ``BOOTSTRAP`` leave within
Monte Carlo error (``BudgetRatio.equivalence``): twenty times as many narrow the error of a
percentile about 4.5 times."""


def crossing(budgets: np.ndarray, accuracy: np.ndarray, target: float = TARGET) -> float:
    """Budget where the isotonic fit of ``accuracy`` first reaches ``target``, interpolated in log
    budget; ``budgets[0]`` if it starts there, ``inf`` if it never does."""
    return float(crossings_of(budgets, np.asarray(accuracy, dtype=float)[np.newaxis], target)[0])


def crossings_of(budgets: np.ndarray, curves: np.ndarray, target: float) -> np.ndarray:
    """``crossing`` of each row of ``curves`` (resampled curves, (resamples, checkpoints)). A row
    that rises strictly at every checkpoint is its own isotonic fit; the others are fitted one
    by one (``scipy.optimize.isotonic_regression``); then every row's crossing is read off its
    fit at once, elementwise."""
    budgets = np.asarray(budgets, dtype=float)
    fit = np.array(curves, dtype=float)
    # Strictly: a fit pools tied checkpoints, and a pooled mean of equal values may differ from
    # them in the last bit.
    rising = np.all(np.diff(fit, axis=1) > 0, axis=1)
    for r in np.flatnonzero(~rising):
        fit[r] = isotonic_regression(fit[r], increasing=True).x
    above = fit >= target
    first = np.argmax(above, axis=1)
    rows = np.arange(len(fit))
    later = np.maximum(first, 1)
    lo, hi = fit[rows, later - 1], fit[rows, later]
    # Rows that start at the target or never reach it get a meaningless value here (a 0 / 0
    # among them), replaced below.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        share = (target - lo) / (hi - lo)
        steps = np.log(budgets[later] / budgets[later - 1])
        inside = np.exp(np.log(budgets[later - 1]) + share * steps)
    return np.where(~above.any(axis=1), math.inf, np.where(first == 0, budgets[0], inside))


def _resample_rows(rng: np.random.Generator, seeds: int, rows: int) -> np.ndarray:
    """The next ``rows`` resamples' counts of each seed from ``rng``, (rows, seeds), as doubles
    (whole numbers, exact): every use multiplies them into a matrix of doubles, and numpy made a
    double copy of integer counts at every product, most of a product's time at 24,000 seeds."""
    return rng.multinomial(seeds, np.full(seeds, 1.0 / seeds), size=rows).astype(float)


@lru_cache(maxsize=4)
def bootstrap_weights(seeds: int, resamples: int, seed: int) -> np.ndarray:
    """How often each seed is drawn in each bootstrap resample, (resamples, seeds): the same for
    every cell of a study (same seed count, same generator seed), so drawn once
    (``_resample_rows``)."""
    weights = _resample_rows(np.random.default_rng(seed), seeds, resamples)
    weights.setflags(write=False)
    return weights


def _weight_chunks(seeds: int, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """``bootstrap_weights`` (cached) up to ``BOOTSTRAP`` resamples; past it the same draws
    ``BOOTSTRAP`` rows at a time (a generator's multinomial rows come in order), so that the
    weights of ``MORE_RESAMPLES`` resamples of thousands of seeds are never held at once."""
    if resamples <= BOOTSTRAP:
        yield bootstrap_weights(seeds, resamples, seed)
        return
    rng = np.random.default_rng(seed)
    for start in range(0, resamples, BOOTSTRAP):
        yield _resample_rows(rng, seeds, min(BOOTSTRAP, resamples - start))


@dataclass(frozen=True)
class BudgetEstimate:
    """Budget to the target with a percentile bootstrap interval; ``reached`` is False when the
    point estimate is beyond the largest budget (then ``estimate`` is that budget, a lower bound);
    ``at_first`` is True when the fit is at the target already at the first checkpoint (then
    ``estimate`` is that checkpoint, an upper bound); ``ci_high`` is inf when more than 2.5% of
    resamples never reach the target."""

    estimate: float
    ci_low: float
    ci_high: float
    reached: bool
    largest_budget: float
    seeds: int
    at_first: bool = False


def budget_to_target(correct: np.ndarray, budgets: np.ndarray, target: float = TARGET,
                     resamples: int = BOOTSTRAP, seed: int = 0,
                     draws: np.ndarray | None = None) -> BudgetEstimate:
    """Estimate from a (seeds, checkpoints) matrix of per-seed accuracies at ``budgets``: 0/1
    outcomes of one bandit, or each seed's fraction of prompts right; the crossing is read from
    their mean over seeds either way. ``draws``: the matrix's ``resampled_crossings`` with the
    same target, resamples and seed, where the caller has them already (a ratio reads them
    too)."""
    correct = np.asarray(correct, dtype=float)
    budgets = np.asarray(budgets, dtype=float)
    seeds = correct.shape[0]
    point = crossing(budgets, correct.mean(axis=0), target)
    values = (resampled_crossings(correct, budgets, target, resamples, seed) if draws is None
              else draws)
    # Order statistics, not interpolation: inf sorts last, so a tail of resamples that never
    # reach the target makes the upper limit inf rather than NaN.
    low, high = np.quantile(values, [0.025, 0.975], method="inverted_cdf")
    reached = math.isfinite(point)
    return BudgetEstimate(point if reached else float(budgets[-1]), float(low), float(high),
                          reached, float(budgets[-1]), seeds, point == budgets[0])


@dataclass(frozen=True)
class BudgetRatio:
    """Budget to the target of A divided by B's, with a percentile bootstrap interval: inf where
    only A never reaches the target, 0 where only B never does, NaN where neither does. A resample
    in which neither reaches it has no ratio; ``undefined_resamples`` counts them, and each counts
    as 0 for the lower limit and as inf for the upper one (rather than being dropped, which would
    narrow the interval): past 2.5% of the resamples the interval is [0, inf], no information."""

    ratio: float
    ci_low: float
    ci_high: float
    seeds: int
    undefined_resamples: int = 0
    ci90_low: float = math.nan
    ci90_high: float = math.nan
    resamples: int = BOOTSTRAP
    ci90_low_range: tuple[float, float] = (math.nan, math.nan)
    ci90_high_range: tuple[float, float] = (math.nan, math.nan)
    ci_low_range: tuple[float, float] = (math.nan, math.nan)
    ci_high_range: tuple[float, float] = (math.nan, math.nan)

    def holds(self, value: float) -> Placement:
        """Where ``value`` lies against the interval (``ci_low``, ``ci_high``): inside, below its
        lower limit or above
        its upper one; unresolved while it lies within a limit's Monte Carlo range
        (``ci_low_range``, ``ci_high_range``), where another set of resamples could say
        otherwise."""
        return placement(value, self.ci_low_range, self.ci_high_range)

    def equivalent(self, margin: float) -> bool:
        """Whether the ratio is shown to lie within [1 / margin, margin]: two one-sided tests at
        0.05, each rejecting when the 90% interval's limit on its side is inside the margin."""
        return 1 / margin < self.ci90_low and self.ci90_high < margin

    def equivalence(self, margin: float) -> str:
        """``equivalent`` when both 90% limits' Monte Carlo ranges (``ci90_low_range``,
        ``ci90_high_range``) lie inside [1 / margin, margin]; ``not shown`` when either range
        lies wholly on the failing side of its margin (whatever the other does); otherwise
        ``unresolved``: another set of resamples could give the other verdict."""
        (low_lo, low_hi), (high_lo, high_hi) = self.ci90_low_range, self.ci90_high_range
        if low_hi <= 1 / margin or high_lo >= margin:
            return "not shown"
        if low_lo > 1 / margin and high_hi < margin:
            return "equivalent"
        return "unresolved"


def placement(value: float, low_range: tuple[float, float],
              high_range: tuple[float, float]) -> Placement:
    """Where ``value`` lies against a bootstrap interval whose limits' Monte Carlo ranges are
    ``low_range`` and ``high_range`` (``percentile_range``): inside, below its lower limit or
    above its upper one; unresolved while it lies within a limit's range, where another set of
    resamples could say otherwise."""
    (low_lo, low_hi), (high_lo, high_hi) = low_range, high_range
    if low_lo <= value <= low_hi or high_lo <= value <= high_hi:
        return Placement.UNRESOLVED
    return (Placement.BELOW if value < low_lo else Placement.ABOVE if value > high_hi
            else Placement.INSIDE)


def percentile_range(values: np.ndarray, q: float,
                     confidence: float = MONTE_CARLO_CONFIDENCE) -> tuple[float, float]:
    """Where the q-quantile of the distribution ``values`` were drawn from lies, at
    ``confidence``, from the draws alone: the order statistics whose ranks bound the number of
    draws below that quantile, a binomial(n, q) count (exact and distribution-free). It is the
    Monte Carlo error of a bootstrap percentile: more resamples narrow it as 1 / sqrt(n)."""
    ordered = np.sort(values)
    n = len(ordered)
    tail = (1 - confidence) / 2
    low = int(binom.ppf(tail, n, q))
    high = int(binom.ppf(1 - tail, n, q)) + 1
    return float(ordered[max(low, 1) - 1]), float(ordered[min(high, n) - 1])


def resampled_crossings(correct: np.ndarray, budgets: np.ndarray, target: float = TARGET,
                        resamples: int = BOOTSTRAP, seed: int = 0) -> np.ndarray:
    """The budget to the target of each bootstrap resample of the seeds (``crossing`` of the
    resampled curve; inf where it never reaches it), resample by resample as ``budget_ratio``
    draws them: a cell compared with several others can be resampled once
    (``budget_ratio``'s ``resampled_b``)."""
    return resampled_crossings_of([correct], budgets, target, resamples, seed)[0]


def resampled_crossings_of(matrices: list[np.ndarray], budgets: np.ndarray,
                           target: float = TARGET, resamples: int = BOOTSTRAP,
                           seed: int = 0) -> list[np.ndarray]:
    """``resampled_crossings`` of several cells on the same seeds, the same resamples for all:
    past ``BOOTSTRAP`` resamples the seeds' weights are drawn anew a chunk at a time, and
    drawing them once for every cell, not once per cell, is most of the time it saves."""
    matrices = [np.asarray(m, dtype=float) for m in matrices]
    budgets = np.asarray(budgets, dtype=float)
    keys = [_drawn_key(matrix, budgets, target, resamples, seed) for matrix in matrices]
    missing = [i for i, key in enumerate(keys) if key not in _DRAWN]
    if missing:
        seeds = matrices[0].shape[0]
        found: list[list[float]] = [[] for _ in missing]
        for weights in _weight_chunks(seeds, resamples, seed):
            for out, i in zip(found, missing, strict=True):
                out.extend(crossings_of(budgets, weights @ matrices[i] / seeds, target))
        for out, i in zip(found, missing, strict=True):
            if len(_DRAWN) >= _DRAWN_KEPT:
                del _DRAWN[next(iter(_DRAWN))]
            _DRAWN[keys[i]] = np.array(out)
            _DRAWN[keys[i]].setflags(write=False)
    return [_DRAWN[key].copy() for key in keys]


_DRAWN: dict[bytes, np.ndarray] = {}
"""``resampled_crossings_of``'s results, by ``_drawn_key``: the tables of a study ask for the
same cell's draws again and again (a cell against each of several others, a budget ratio and the
budget it divides), and an isotonic fit of every resample is most of an analysis's time."""
_DRAWN_KEPT = 512
"""Results kept, the oldest dropped first (each one value per resample)."""


def _drawn_key(matrix: np.ndarray, budgets: np.ndarray, target: float, resamples: int,
               seed: int) -> bytes:
    """A digest of everything ``resampled_crossings_of``'s draws of ``matrix`` depend on."""
    digest = hashlib.sha256(np.ascontiguousarray(matrix).tobytes())
    digest.update(repr((matrix.shape, budgets.tolist(), float(target), int(resamples),
                        int(seed))).encode())
    return digest.digest()


def budget_ratio(correct_a: np.ndarray, correct_b: np.ndarray, budgets: np.ndarray,
                 target: float = TARGET, resamples: int = BOOTSTRAP, seed: int = 0,
                 budgets_b: np.ndarray | None = None, tail: float = 0.025,
                 resampled_b: np.ndarray | None = None,
                 resampled_a: np.ndarray | None = None) -> BudgetRatio:
    """Ratio of two cells' budgets to the target, seeds paired: each resample draws the same
    seeds for both cells (rows of the two matrices are the same seeds), so the interval keeps the
    correlation that common random numbers give the two estimates. ``budgets_b``: B's own
    checkpoints (the rollouts it spent), when they differ from A's. ``ci_low`` and ``ci_high``
    are the ``tail`` and 1 - ``tail`` quantiles (a 95% interval by default; a smaller tail for
    an interval that is one of a Bonferroni family). ``resampled_b``: B's
    ``resampled_crossings`` with the same ``target``, ``resamples`` and ``seed``, where the
    caller has them already (``resampled_a`` likewise A's)."""
    correct_a = np.asarray(correct_a, dtype=float)
    correct_b = np.asarray(correct_b, dtype=float)
    budgets = np.asarray(budgets, dtype=float)
    other = budgets if budgets_b is None else np.asarray(budgets_b, dtype=float)
    if resampled_b is None:
        resampled_b = resampled_crossings(correct_b, other, target, resamples, seed)
    if resampled_a is None:
        resampled_a = resampled_crossings(correct_a, budgets, target, resamples, seed)
    values = _ratios(resampled_a, resampled_b)
    undefined = np.isnan(values)
    as_low, as_high = np.where(undefined, 0.0, values), np.where(undefined, math.inf, values)
    low = np.quantile(as_low, [tail, 0.05], method="inverted_cdf")
    high = np.quantile(as_high, [1 - tail, 0.95], method="inverted_cdf")
    point = _ratios(np.array([crossing(budgets, correct_a.mean(axis=0), target)]),
                    np.array([crossing(other, correct_b.mean(axis=0), target)]))[0]
    return BudgetRatio(float(point), float(low[0]), float(high[0]), correct_a.shape[0],
                       int(undefined.sum()), float(low[1]),
                       float(high[1]), resamples, percentile_range(as_low, 0.05),
                       percentile_range(as_high, 0.95), percentile_range(as_low, tail),
                       percentile_range(as_high, 1 - tail))


def _ratios(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a / b of budgets to the target: NaN where neither reaches it, 0 where only b does not
    (inf where only a does not, as the division gives)."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(a) & np.isinf(b), np.nan, np.where(np.isfinite(b), a / b, 0.0))


def range_columns(low: str, high: str, low_range: tuple[float, float],
                  high_range: tuple[float, float]) -> dict[str, float]:
    """The Monte Carlo ranges of an interval's limits as table columns: ``<low>_mc_low``,
    ``<low>_mc_high``, ``<high>_mc_low`` and ``<high>_mc_high``."""
    return {f"{low}_mc_low": low_range[0], f"{low}_mc_high": low_range[1],
            f"{high}_mc_low": high_range[0], f"{high}_mc_high": high_range[1]}


def hardness(probs: tuple[float, ...]) -> float:
    """Best-arm-identification complexity H = sum over non-best arms of 1 / gap^2: the H1 of
    Audibert, Bubeck and Munos (2010) without its term for the best arm (1 / the smallest gap^2,
    so H1 lies between H and 2 H); the budget a fixed-budget algorithm needs grows like H log K."""
    top = max(probs)
    return sum(1.0 / (top - p) ** 2 for p in probs if p < top)


def environment_hardness(environment: Environment) -> float:
    """H of a bandit; NaN when its values are drawn per seed (H is then a property of each seed,
    not of the cell)."""
    values = environment.values
    return math.nan if values is None else hardness(values)
