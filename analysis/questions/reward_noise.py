"""What reward noise costs in rollouts: each cell whose reward model scales the gaps between the
arms' expected rewards (``study.rewards.RewardModel.gap_factor``: a noisy verifier's error rates)
against the same cell under the model's defaults (the exact verifier), as the ratio of their
budgets to a target with a paired bootstrap interval over seeds, on two metrics: best-arm
accuracy (to ``TARGET``) and the policy's pass rate (to each of ``analysis.pass_rate.FRACTIONS``
of the achievable gain, ``analysis.pass_rate.achievable``). The cells share every seed's draws
(common random numbers), so the ratio's interval is narrower than the two budgets' suggest.

Two predictions stand beside each ratio. Suppose the budget a learner needs scales as
sigma^2 / Delta^2: the pulls after which a difference Delta between two arms' mean rewards stands
out of rewards of variance sigma^2 per pull. A verifier with rates fp and fn rewards a passed check
unless it flips it and a failed one when it does, so an arm of pass probability p has expected
reward q = fp + p (1 - fp - fn): every gap shrinks by f = 1 - fp - fn, and the reward is
Bernoulli(q), of variance q (1 - q) where the exact verifier's is p (1 - p). The ratio of budgets
is then [q (1 - q) / (p (1 - p))] / f^2 (``variance_folded_ratio``, ``variance_predicted_ratio``).
The arms' variances differ a little; the prediction takes them at pbar, the mean of the arms' pass
probabilities, and qbar = fp + pbar f, the mean of their expected rewards (q is linear in p):
the mean reward of the uniform policy every run starts from, and the middle of the arms whose
comparisons decide which is best (the best arm's own p would stand for the end of training
alone). Holding the variance fixed instead gives the margin prediction 1 / f^2
(``predicted_ratio``), which the folded one corrects by the ratio of variances: below 1 where
the noise moves the mean reward away from 1/2, above it where it moves it closer.

Checking whether an interval contains a value is a test, so each metric's checks are one family
(Bonferroni, family-wise level ``FAMILY_ALPHA``): its rows' simultaneous intervals, each at
1 - ``FAMILY_ALPHA`` / rows, cover every row's true ratio at once with probability 1 -
``FAMILY_ALPHA``, so both predictions can be checked against them without widening them. A
prediction is ``inside`` (not rejected), ``below`` or ``above`` its row's simultaneous interval,
or ``unresolved`` while it lies within a limit's Monte Carlo range
(``analysis.budget_to_target.placement``).

The joint test (``SLOPE_TABLE``): over the noisy verifiers that share an exact one, the least
squares slope of the log observed ratio on the log predicted ratio, with an intercept (a common
factor, such as the learner's path, shifts every log ratio alike; the slope asks whether the cost
grows with the prediction at the predicted rate). Each resample of the seeds recomputes every
verifier's ratio from the same seeds, so the slope's percentile interval keeps the verifiers'
correlation; the slopes of a study are one Bonferroni family, and slope 1 is placed against each
simultaneous interval as a prediction is. A resample in which some verifier's ratio is 0, infinite
or undefined (a budget not reached) has no slope and counts as -inf for the lower limit and inf
for the upper one, as ``analysis.budget_to_target.budget_ratio`` counts an undefined ratio.

Both tables come from one set of resamples (``tables``), which the question module
``analysis.questions.reward_noise_slope`` reads for the second.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np
import pandas as pd

from analysis.accuracy import cell_environments
from analysis.budget_to_target import (
    BOOTSTRAP,
    TARGET,
    BudgetEstimate,
    budget_to_target,
    crossing,
    percentile_range,
    placement,
    range_columns,
    resampled_crossings,
    resampled_crossings_of,
)
from analysis.families import ALPHA
from analysis.outcomes import Outcomes
from analysis.pass_rate import (
    FRACTIONS,
    Achievable,
    achievable,
    has_policy,
    seed_pass_rates,
)
from analysis.questions import Inputs
from analysis.roles import Placement, typed
from study.model import registry
from study.model.environment import Environment
from study.rewards import ROLES

TABLE = "reward_noise_cost"
SLOPE_TABLE = "reward_noise_slope"
TEST = ""
"""No p-values: each table's family is checked by simultaneous intervals (``bonferroni_family``),
which the report's Methods lists with their resamples."""
FAMILY_ALPHA = ALPHA
"""Family-wise level of each family: the prediction checks of one metric's rows, the slopes."""
FAMILY_RESAMPLES = 10_000
"""Resamples of the accuracy family's simultaneous intervals: with fifteen rows its tails hold
0.05 / 30 of them, about seventeen, enough for the limits' Monte Carlo ranges to be a few percent
wide (they are in the table, and a prediction inside one is unresolved); twice as many doubled
the analysis's time (each resample is an isotonic fit per cell) for ranges about a third
narrower. The accuracy slopes use the same resamples."""
PASS_RATE_RESAMPLES = 30_000
"""Resamples of the pass-rate family's simultaneous intervals (and its slopes): three targets
make its family three times the accuracy family's, and three times the resamples keep about
seventeen in each tail. They are most of the study's analysis time: each cell and target draws
its resamples' seed weights anew (``analysis.budget_to_target.resampled_crossings``), minutes at
the study's 4,000 seeds."""
_SAME = ["algorithm", "baseline", "lr", "group_size"]
_VERDICT_RATES = tuple(ROLES)
"""The parameter roles (``study.rewards.ROLES``) of a model whose expected reward is
fp + p (1 - fp - fn), the noisy verifier's: the variance-folded prediction is defined for a
model that declares both, and the table has a column for each (NaN for another model)."""


class Metric(StrEnum):
    """What a row's budget is the budget to: best-arm accuracy to ``TARGET``, or the policy's
    pass rate to a share of the achievable gain."""

    ACCURACY = "accuracy"
    PASS_RATE = "pass_rate"


class Prediction(StrEnum):
    """Which predicted ratio a slope regresses on: the margin prediction 1 / f^2, or the one
    with the rewards' variance folded in."""

    MARGIN = "margin"
    VARIANCE = "variance"


RESAMPLES = {Metric.ACCURACY: FAMILY_RESAMPLES, Metric.PASS_RATE: PASS_RATE_RESAMPLES}
"""Each metric's resamples: its family's and its slopes'."""
POINTWISE_TAIL = ALPHA / 2
"""Each tail of a row's own (pointwise) interval, read from the first ``BOOTSTRAP`` resamples:
the 95% interval ``analysis.budget_to_target.budget_ratio`` gives."""


def variance_folded_ratio(mean_p: float, false_positive: float, false_negative: float) -> float:
    """The budget ratio a verifier with these rates costs were the budget to scale as the
    reward's variance over the squared gap: [q (1 - q) / (p (1 - p))] / (1 - fp - fn)^2 with
    p = ``mean_p`` and q = fp + p (1 - fp - fn) its expected reward under the verifier."""
    factor = 1.0 - false_positive - false_negative
    mean_q = false_positive + mean_p * factor
    return mean_q * (1.0 - mean_q) / (mean_p * (1.0 - mean_p)) / factor**2


@dataclass(frozen=True)
class Crossings:
    """A cell's budget to a target on all seeds (``point``) and in each seed-bootstrap resample
    (``draws``, ``analysis.budget_to_target.resampled_crossings``: inf where a resample never
    reaches it). Two cells' draws of the same size are paired: resample r draws the same seeds
    for both."""

    point: float
    draws: np.ndarray


def crossings(values: np.ndarray, budgets: np.ndarray, target: float,
              resamples: int) -> Crossings:
    """``Crossings`` of a (seeds, checkpoints) matrix of per-seed outcomes (0/1 accuracy or pass
    rates) at ``budgets``, with ``resamples`` resamples."""
    values = np.asarray(values, dtype=float)
    return Crossings(crossing(budgets, values.mean(axis=0), target),
                     resampled_crossings(values, budgets, target, resamples))


def ratios(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a / b of budgets to a target, as ``analysis.budget_to_target.budget_ratio`` reads them:
    NaN where neither reaches it, 0 where only b does not, inf where only a does not."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.isinf(a) & np.isinf(b), np.nan,
                        np.where(np.isfinite(b), a / b, 0.0))


@dataclass(frozen=True)
class Interval:
    """An estimate with a percentile bootstrap interval: ``low`` and ``high`` are the ``tail``
    and 1 - ``tail`` quantiles of the resampled values, each with its Monte Carlo range
    (``analysis.budget_to_target.percentile_range``); ``undefined`` resamples had no value and
    count as ``floor`` for the lower limit and inf for the upper one."""

    estimate: float
    low: float
    high: float
    low_range: tuple[float, float]
    high_range: tuple[float, float]
    undefined: int
    resamples: int

    @staticmethod
    def of(estimate: float, values: np.ndarray, tail: float, floor: float) -> Interval:
        """The interval of resampled ``values`` (NaN where undefined) at ``tail``."""
        undefined = np.isnan(values)
        as_low = np.where(undefined, floor, values)
        as_high = np.where(undefined, math.inf, values)
        return Interval(float(estimate),
                        float(np.quantile(as_low, tail, method="inverted_cdf")),
                        float(np.quantile(as_high, 1 - tail, method="inverted_cdf")),
                        percentile_range(as_low, tail), percentile_range(as_high, 1 - tail),
                        int(undefined.sum()), len(values))

    def placed(self, value: float) -> Placement | None:
        """Where ``value`` lies against the interval (``analysis.budget_to_target.placement``);
        None for a value that is not a number (a prediction the model does not make)."""
        if math.isnan(value):
            return None
        return placement(value, self.low_range, self.high_range)


def ratio_interval(a: Crossings, b: Crossings, tail: float, resamples: int | None = None
                   ) -> Interval:
    """A's budget over B's with the percentile interval of the paired resampled ratios at
    ``tail``, from the first ``resamples`` draws (all by default): the interval
    ``analysis.budget_to_target.budget_ratio`` gives, read from draws already made."""
    count = len(a.draws) if resamples is None else resamples
    point = ratios(np.array([a.point]), np.array([b.point]))[0]
    return Interval.of(point, ratios(a.draws[:count], b.draws[:count]), tail, 0.0)


def joint_slope(log_predicted: np.ndarray, noisy: list[Crossings], exact: Crossings,
                tail: float) -> tuple[Interval, float]:
    """The least-squares slope of log(noisy budget / exact budget) on ``log_predicted``, one
    point per noisy verifier, with its percentile interval at ``tail`` over the paired resamples
    (each recomputes every verifier's ratio on the same seeds), and the intercept of the fit on
    all seeds. A resample with a ratio that is 0, infinite or undefined has no slope."""
    x = np.asarray(log_predicted, dtype=float)
    centred = x - x.mean()
    spread = float(centred @ centred)

    def fitted(logs: np.ndarray) -> np.ndarray:
        # A resample in which a verifier's ratio is 0, infinite or undefined has no slope: NaN,
        # which Interval.of counts with the undefined.
        finite = np.isfinite(logs).all(axis=0)
        with np.errstate(invalid="ignore"):
            return np.where(finite, centred @ np.where(finite, logs, 0.0) / spread, np.nan)

    with np.errstate(divide="ignore"):
        points = np.log([ratios(np.array([n.point]), np.array([exact.point]))[0]
                         for n in noisy])
        draws = np.log(np.array([ratios(n.draws, exact.draws) for n in noisy]))
    slope = float(fitted(points[:, None])[0])
    intercept = float(points.mean() - slope * x.mean())
    return Interval.of(slope, fitted(draws), tail, -math.inf), intercept


@dataclass(frozen=True)
class _Pair:
    """A noisy cell and its exact verifier, with the targets both are compared at."""

    cell: Any
    env: Environment
    factor: float
    rates: dict[str, float]
    exact: int
    targets: tuple[tuple[Metric, float, float], ...]

    @property
    def mean_p(self) -> float:
        """pbar of the variance-folded prediction: the mean of the arms' pass probabilities,
        for a model with a false-positive and a false-negative rate on fixed arms (NaN
        otherwise: drawn values have no one pbar, other models no known q)."""
        if self.env.values is None or not set(_VERDICT_RATES) <= self.rates.keys():
            return math.nan
        return float(np.mean(self.env.values))

    @property
    def mean_q(self) -> float:
        """qbar = fp + pbar (1 - fp - fn), the arms' mean expected reward under the verifier."""
        return self.rates.get("false_positive", math.nan) + self.mean_p * self.factor

    def predicted(self, kind: Prediction) -> float:
        """The ratio ``kind`` predicts (NaN where the model does not make it)."""
        if kind == Prediction.MARGIN:
            return 1.0 / self.factor**2
        mean_p = self.mean_p
        return (math.nan if math.isnan(mean_p) else
                variance_folded_ratio(mean_p, *(self.rates[r] for r in _VERDICT_RATES)))


def _pairs(outcomes: Outcomes, cells: pd.DataFrame) -> list[_Pair]:
    """Every cell at the first cost whose model has a ``gap_factor`` and whose parameters are
    not the model's defaults, that has a partner at the defaults (the same learner, lr,
    baseline, group size and bandit)."""
    environments = cell_environments(outcomes)
    priced = cells[cells["cost"] == cells["cost"].min()]
    exact = {}
    for cell in priced.itertuples():
        env = environments[int(cell.cell)]
        model = registry.reward_model(env.reward)
        if model.gap_factor and env.reward_parameters == model.defaults():
            exact[(*(getattr(cell, k) for k in _SAME), env)] = int(cell.cell)
    pairs = []
    for cell in priced.itertuples():
        env = environments[int(cell.cell)]
        model = registry.reward_model(env.reward)
        if not model.gap_factor or env.reward_parameters == model.defaults():
            continue
        partner = exact.get((*(getattr(cell, k) for k in _SAME),
                             env.with_reward(env.reward, model.defaults())))
        if partner is None:
            continue
        targets = [(Metric.ACCURACY, math.nan, TARGET)]
        if has_policy(outcomes, partner) and has_policy(outcomes, int(cell.cell)):
            gain = achievable(env)
            targets += [(Metric.PASS_RATE, f, gain.target(f)) for f in FRACTIONS]
        pairs.append(_Pair(cell, env, model.gap_factor(env.reward_parameters),
                           model.by_role(env.reward_parameters), partner, tuple(targets)))
    return pairs


def _matrix(outcomes: Outcomes, cell: int, metric: Metric) -> np.ndarray:
    """The (seeds, checkpoints) per-seed values of ``cell`` that ``metric`` averages."""
    if metric == Metric.ACCURACY:
        return outcomes.outcomes(cell)
    return seed_pass_rates(outcomes, cell)


def tables(inputs: Inputs) -> dict[str, pd.DataFrame]:
    """``TABLE`` and ``SLOPE_TABLE`` (``table``, ``slope_table``) from one set of resamples, made
    once per study: the two question modules ask for the same ones in turn, and the resamples take
    minutes at a study's seeds."""
    return inputs.shared(TABLE, lambda: _tables(inputs.outcomes, inputs.cells))


def table(inputs: Inputs) -> pd.DataFrame:
    """``TABLE``: one row per pair (a noisy cell and its exact verifier) and target: accuracy to
    ``TARGET`` and, where both learners have a policy, pass rate to each of ``FRACTIONS`` of the
    achievable gain (``target`` is then that pass rate, ``start`` and ``best`` the gain's ends,
    ``analysis.pass_rate.Achievable``). Per row: the exact verifier's budget
    with its 95% seed-bootstrap interval (``exact_budget``, ``_low``, ``_high``); the ratio of
    the noisy cell's budget to it with its pointwise 95% paired bootstrap interval (``ci_low``,
    ``ci_high``, from the first ``BOOTSTRAP`` resamples); pbar and qbar (``mean_p``,
    ``mean_q``); the two predictions (``predicted_ratio``, 1 / f^2, and
    ``variance_predicted_ratio``); the simultaneous interval of the row's metric family
    (``simultaneous_low``, ``simultaneous_high``, with the Monte Carlo ranges of their limits;
    ``family_size`` rows, ``resamples`` resamples); and where each prediction lies against it
    (``prediction``, ``variance_prediction``). Empty when no cell has such a partner. First
    cost only (cost does not change the simulation)."""
    return tables(inputs)[TABLE]


def slope_table(inputs: Inputs) -> pd.DataFrame:
    """``SLOPE_TABLE``: one row per exact verifier, target (as ``table``'s) and prediction
    (``margin``, ``variance``) with at least two distinct predicted ratios among its noisy
    verifiers: the slope of their log ratios on the log predictions (``joint_slope``) with its
    pointwise 95% paired bootstrap interval (``ci_low``, ``ci_high``, from the first
    ``BOOTSTRAP`` resamples) and the intercept; the simultaneous interval of the slopes' family
    (every row, Bonferroni; ``simultaneous_low``, ``simultaneous_high`` with the Monte Carlo
    ranges of their limits, from the metric's ``RESAMPLES``); and where slope 1 lies against it
    (``slope_one``: ``inside`` is not rejected). ``undefined_resamples``: resamples of the
    family without a slope. Empty when ``table`` is."""
    return tables(inputs)[SLOPE_TABLE]


Draws = Callable[[int, Metric, float], Crossings]
"""A cell's ``Crossings`` of a metric's target, drawn once however often asked."""


def _tables(outcomes: Outcomes, cells: pd.DataFrame) -> dict[str, pd.DataFrame]:
    pairs = _pairs(outcomes, cells)
    drawn: dict[tuple[int, Metric, float], Crossings] = {}

    def draws(cell: int, metric: Metric, target: float) -> Crossings:
        # Every cell asked for a metric's target is resampled at once, on one set of seed
        # weights: the exact verifier's draws serve every noisy verifier paired with it.
        key = (cell, metric, target)
        if key not in drawn:
            asked = [c for c in dict.fromkeys(c for pair in pairs
                                              for c in (pair.cell.cell, pair.exact))
                     if any(m == metric and t == target for m, _, t in _targets(pairs, c))]
            matrices = [_matrix(outcomes, c, metric) for c in asked]
            resampled = resampled_crossings_of(matrices, outcomes.budgets, target,
                                               RESAMPLES[metric])
            for c, matrix, draws_of in zip(asked, matrices, resampled, strict=True):
                drawn[(c, metric, target)] = Crossings(
                    crossing(outcomes.budgets, matrix.mean(axis=0), target), draws_of)
        return drawn[key]

    return {TABLE: _costs(outcomes, pairs, draws), SLOPE_TABLE: _slopes(pairs, draws)}


def _targets(pairs: list[_Pair], cell: int) -> list[tuple[Metric, float, float]]:
    """The (metric, fraction, target) a cell is compared at: its own pair's, or those of the
    pairs it is the exact partner of."""
    return [t for pair in pairs if cell in (pair.cell.cell, pair.exact) for t in pair.targets]


def _costs(outcomes: Outcomes, pairs: list[_Pair], draws: Draws) -> pd.DataFrame:
    sizes = Counter(metric for pair in pairs for metric, _, _ in pair.targets)
    # An exact verifier's own budget, once for every noisy verifier paired with it.
    alone_of: dict[tuple[int, Metric, float], BudgetEstimate] = {}
    rows = []
    for pair in pairs:
        cell = pair.cell
        margin, folded = pair.predicted(Prediction.MARGIN), pair.predicted(Prediction.VARIANCE)
        for metric, fraction, target in pair.targets:
            noisy, exact = draws(int(cell.cell), metric, target), draws(pair.exact, metric,
                                                                        target)
            pointwise = ratio_interval(noisy, exact, POINTWISE_TAIL, BOOTSTRAP)
            family = ratio_interval(noisy, exact, FAMILY_ALPHA / 2 / sizes[metric])
            if (pair.exact, metric, target) not in alone_of:
                alone_of[(pair.exact, metric, target)] = budget_to_target(
                    _matrix(outcomes, pair.exact, metric), outcomes.budgets, target)
            alone = alone_of[(pair.exact, metric, target)]
            gain = (achievable(pair.env) if metric == Metric.PASS_RATE
                    else Achievable(math.nan, math.nan))
            rows.append({
                "cell": int(cell.cell), "exact_cell": pair.exact, "algorithm": cell.algorithm,
                "baseline": cell.baseline, "lr": cell.lr, "group_size": cell.group_size,
                "reward_model": pair.env.reward, "environment": cell.environment,
                **{role: pair.rates.get(role, math.nan) for role in _VERDICT_RATES},
                "gap_factor": pair.factor,
                "metric": metric.value, "fraction": fraction, "target": target,
                "start": gain.start, "best": gain.best,
                "exact_budget": alone.estimate, "exact_budget_low": alone.ci_low,
                "exact_budget_high": alone.ci_high, "exact_reached": alone.reached,
                "ratio": pointwise.estimate, "ci_low": pointwise.low,
                "ci_high": pointwise.high, "seeds": len(outcomes.seeds),
                "undefined_resamples": pointwise.undefined,
                "mean_p": pair.mean_p, "mean_q": pair.mean_q,
                "predicted_ratio": margin, "variance_predicted_ratio": folded,
                "bonferroni_family": f"{TABLE}_{metric.value}", "family_size": sizes[metric],
                "simultaneous_low": family.low, "simultaneous_high": family.high,
                "resamples": family.resamples,
                **range_columns("simultaneous_low", "simultaneous_high", family.low_range,
                                family.high_range),
                "prediction": family.placed(margin),
                "variance_prediction": family.placed(folded),
            })
    cost = pd.DataFrame(rows)
    if len(cost):
        for column in ("prediction", "variance_prediction"):
            cost[column] = typed(cost[column], Placement)
    return cost


def _slopes(pairs: list[_Pair], draws: Draws) -> pd.DataFrame:
    groups: dict[tuple[int, Metric, float, float, Prediction], list[_Pair]] = {}
    for pair in pairs:
        for metric, fraction, target in pair.targets:
            for kind in Prediction:
                if not math.isnan(pair.predicted(kind)):
                    groups.setdefault((pair.exact, metric, fraction, target, kind),
                                      []).append(pair)
    # A slope needs two distinct predictions at least.
    fitted = {key: members for key, members in groups.items()
              if len({p.predicted(key[-1]) for p in members}) > 1}
    rows = []
    for (exact, metric, fraction, target, kind), members in fitted.items():
        log_predicted = np.log([p.predicted(kind) for p in members])
        noisy = [draws(int(p.cell.cell), metric, target) for p in members]
        reference = draws(exact, metric, target)
        pointwise, intercept = joint_slope(
            log_predicted, [Crossings(n.point, n.draws[:BOOTSTRAP]) for n in noisy],
            Crossings(reference.point, reference.draws[:BOOTSTRAP]), POINTWISE_TAIL)
        family, _ = joint_slope(log_predicted, noisy, reference,
                                FAMILY_ALPHA / 2 / len(fitted))
        first = members[0].cell
        rows.append({
            "exact_cell": exact, "algorithm": first.algorithm, "baseline": first.baseline,
            "lr": first.lr, "group_size": first.group_size,
            "reward_model": members[0].env.reward, "environment": first.environment,
            "metric": metric.value, "fraction": fraction, "target": target,
            "prediction": kind.value, "verifiers": len(members),
            "slope": pointwise.estimate, "intercept": intercept,
            "ci_low": pointwise.low, "ci_high": pointwise.high,
            "bonferroni_family": SLOPE_TABLE, "family_size": len(fitted),
            "simultaneous_low": family.low, "simultaneous_high": family.high,
            "resamples": family.resamples, "undefined_resamples": family.undefined,
            **range_columns("simultaneous_low", "simultaneous_high", family.low_range,
                            family.high_range),
            "slope_one": family.placed(1.0),
        })
    slopes = pd.DataFrame(rows)
    if len(slopes):
        slopes["slope_one"] = typed(slopes["slope_one"], Placement)
    return slopes
