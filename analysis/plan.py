"""``python -m analysis plan TEST ...``: the seeds a test of the study needs for an effect stated
before the run, at the exact power of the test the study actually runs.

Exact power is a sawtooth in n (the critical count moves in whole steps), so the first n that
reaches the target is not enough: the planner reports the smallest n from which the power stays at
or above it, checked seed by seed up to twice that n (``n_exact``), beside the first n that reaches
it and the n of the normal approximation (``n_normal``, statsmodels' ``NormalIndPower`` on
Cohen's h for the binomial test, Connor's formula for McNemar's), and the exact power at that n.

* ``binomial``: accuracy against the chance level, the one-sided exact binomial test
  (``scipy.stats.binomtest(..., alternative="greater")``), for a stated accuracy;
* ``mcnemar``: two cells on the same seeds, the two-sided exact McNemar test (the discordant
  seeds' split against 1/2), for stated rates of seeds that only cell A, and only cell B, gets
  right (their difference is the accuracy difference, their sum the discordance);
* ``paired-t``: two cells' means on the same seeds (a pass rate, an answer length), the
  two-sided paired t-test the many-prompts study runs, for a stated mean difference
  and the standard deviation of the per-seed differences (a nuisance from a pilot);
* ``betting``: two cells' means on the same seeds by the betting test the length study runs
  (``analysis.bounded``), for a stated mean difference, the standard deviation of the per-seed
  differences and the range they lie in; its power by Monte Carlo on normal differences clipped
  to the range (``betting_power``), on a grid of n;
* ``ratio``: two cells' budgets to 0.9 on the same seeds, the study's paired percentile-bootstrap
  test of their ratio (``analysis.budget_to_target.budget_ratio``): that it differs from 1 (the
  95% interval excludes 1), or with ``--equivalence m`` that it lies within [1/m, m] (the 90%
  interval inside, two one-sided tests), for a stated ratio.

A bootstrap test has no closed-form power, so ``ratio`` plans from a pilot study: the curves of
the two cells and their seed-to-seed pairing come from the pilot, the effect does not. A's
checkpoints are rescaled (times stated / observed) so that the pilot's own point estimate of the
ratio becomes the stated one exactly: a budget to 0.9 scales with the checkpoints, since it is
interpolated in log budget. Its power at n seeds is estimated by Monte Carlo: draw n pilot seeds
with replacement (A's and B's outcomes of a seed together), run ``budget_ratio`` on them, count
rejections. ``n_exact`` is then the smallest n of a grid (``RATIO_GRID``: half to twice
``n_normal``) from which that estimated power stays at or above the target, the grid taken from
its largest n down to the first below the target (no smaller n can change it), with no
``n_first``; ``n_normal`` comes from the pilot's standard error of the log ratio, shrinking as
1 / sqrt(n). The test's levels are the study's (95% and 90% intervals), so alpha is 0.05 only.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import integrate
from scipy.stats import binom, chi, norm
from scipy.stats import t as student_t
from statsmodels.stats.power import NormalIndPower, TTestPower
from statsmodels.stats.proportion import proportion_effectsize

from analysis.bounded import betting_p_value
from analysis.budget_to_target import TARGET, BudgetRatio, budget_ratio, crossing
from analysis.outcomes import Outcomes
from analysis.paired import mcnemar_power
from analysis.power import ALPHA, exact_mcnemar_power, exact_mcnemar_power_curve, seeds_for_power

MOST = 10**6
"""Largest n the binomial planner searches (McNemar's searches to 2.5 times its normal n)."""


@dataclass(frozen=True)
class Plan:
    """Seeds needed for one test: the smallest n from which the exact power stays at or above the
    target (``n_exact``), the first n that reaches it (``n_first``), the normal approximation's
    n (``n_normal``) and the exact power there (``power_at_n_normal``)."""

    n_exact: float
    n_first: float
    n_normal: float
    power_at_n_normal: float


def binomial_power(n: np.ndarray, accuracy: float, chance: float,
                   alpha: float = ALPHA) -> np.ndarray:
    """Exact power of the one-sided exact binomial test of accuracy > ``chance`` with n seeds:
    it rejects when the count correct k has P(Bin(n, chance) >= k) <= alpha, that is k >= c + 1
    with c = the (1 - alpha) quantile's step (``binom.isf``, then checked)."""
    n = np.asarray(n)
    critical = binom.isf(alpha, n, chance)  # P(X > critical) <= alpha, the smallest such
    critical = np.where(binom.sf(critical - 1, n, chance) <= alpha, critical - 1, critical)
    return binom.sf(critical, n, accuracy)


def _stays(power: np.ndarray, target: float) -> tuple[float, float]:
    """(smallest index from which ``power`` stays >= target, first index reaching it), as n
    (index + 1); inf where it never does within the array."""
    reached = np.flatnonzero(power >= target)
    if reached.size == 0:
        return math.inf, math.inf
    below = np.flatnonzero(power < target)
    last_below = below[-1] if below.size else -1
    if last_below == len(power) - 1:
        return math.inf, float(reached[0] + 1)
    return float(last_below + 2), float(reached[0] + 1)


def plan_binomial(accuracy: float, chance: float, target: float = 0.8,
                  alpha: float = ALPHA) -> Plan:
    """Seeds for the test that a cell's accuracy exceeds ``chance`` when it is ``accuracy``."""
    effect = proportion_effectsize(accuracy, chance)
    normal = NormalIndPower().solve_power(effect, power=target, alpha=alpha, ratio=0,
                                          alternative="larger")
    n_normal = float(math.ceil(normal))
    most = int(min(MOST, max(4 * n_normal, 200)))
    power = binomial_power(np.arange(1, most + 1), accuracy, chance, alpha)
    n_exact, n_first = _stays(power, target)
    if n_exact > most / 2:  # not checked far enough beyond it
        n_exact = math.inf
    return Plan(n_exact, n_first, n_normal,
                float(binomial_power(np.array([int(n_normal)]), accuracy, chance, alpha)[0]))


def plan_mcnemar(only_a: float, only_b: float, target: float = 0.8,
                 alpha: float = ALPHA) -> Plan:
    """Seeds for the paired test of two cells that differ by ``only_a - only_b`` in accuracy
    with discordance ``only_a + only_b``."""
    n_normal = seeds_for_power(
        lambda n: mcnemar_power(only_a, only_b, np.array([n]), alpha)[0], target)
    if not math.isfinite(n_normal):
        return Plan(math.inf, math.inf, math.inf, math.nan)
    most = int(max(2.5 * n_normal, 200))  # n_exact up to 1.25 n_normal, checked to twice it
    power = exact_mcnemar_power_curve(most, only_a, only_b, alpha)
    n_exact, n_first = _stays(power, target)
    if n_exact > most / 2:
        n_exact = math.inf
    return Plan(n_exact, n_first, n_normal,
                exact_mcnemar_power(int(n_normal), only_a, only_b, alpha))


def plan_paired_t(difference: float, sd: float, target: float = 0.8,
                  alpha: float = ALPHA) -> Plan:
    """Seeds for the two-sided paired t-test of a mean difference ``difference`` between two
    cells on the same seeds, whose per-seed differences spread with standard deviation ``sd``
    (a nuisance taken from a pilot). The t-test's power at n seeds is the noncentral t's
    (statsmodels' ``TTestPower``), exact for normal differences and increasing in n, so the
    first n that reaches the target is the one from which it stays there: found by doubling n
    from 2 (a t-test of one seed has no degrees of freedom) and bisecting, as statsmodels' own
    solver fails where a handful of seeds suffice."""
    effect = difference / sd

    def reaches(n: int) -> bool:
        return paired_t_power(effect, n, alpha) >= target

    high = 2
    while not reaches(high):
        if high >= MOST:
            return Plan(math.inf, math.inf, math.inf, math.nan)
        high = min(2 * high, MOST)
    low = max(1, high // 2)  # reaches(low) is False unless low is 1 (no test) or high is 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if reaches(middle) else (middle, high)
    n_exact = float(high)
    # The normal approximation in closed form, the far tail's power left out (statsmodels'
    # NormalIndPower solves for the same n numerically, and its root finder fails where n is a
    # handful of seeds).
    # At least 2: a t-test of one seed has no degrees of freedom (its power would be NaN).
    n_normal = float(max(2, math.ceil(((norm.isf(alpha / 2) + norm.ppf(target)) / effect) ** 2)))
    return Plan(n_exact, n_exact, n_normal, paired_t_power(effect, int(n_normal), alpha))


def paired_t_power(effect: float, n: int, alpha: float) -> float:
    """The power of the two-sided one-sample t-test of n normal differences whose mean is
    ``effect`` standard deviations: statsmodels' ``TTestPower`` (the noncentral t), or, where
    scipy's noncentral t fails (NaN for a large noncentrality on few degrees of freedom), the
    same probability as an integral over the spread: T = (Z + d) / (R / sqrt(k)) with R chi on
    k = n - 1 degrees of freedom, so P(|T| > c) is the mean over R of
    Phi(d - c R / sqrt(k)) + Phi(-d - c R / sqrt(k)), integrated on either side of
    R = d sqrt(k) / c, where the first term falls from one to zero (a chi's density, unlike the
    chi-square's, is bounded near 0 for one degree of freedom)."""
    found = float(TTestPower().power(effect_size=effect, nobs=n, alpha=alpha,
                                     alternative="two-sided"))
    if math.isfinite(found):
        return found
    freedom = n - 1
    shift = effect * math.sqrt(n)
    critical = float(student_t.isf(alpha / 2, freedom))

    def integrand(r: float) -> float:
        scale = critical * r / math.sqrt(freedom)
        return (norm.cdf(shift - scale) + norm.cdf(-shift - scale)) * chi.pdf(r, freedom)

    middle = shift * math.sqrt(freedom) / critical
    edges = sorted({0.0, min(middle, float(chi.isf(1e-16, freedom))),
                    float(chi.isf(1e-16, freedom))})
    return float(sum(integrate.quad(integrand, low, high, limit=200)[0]
                     for low, high in itertools.pairwise(edges)))


BETTING_DRAWS = 400
"""Monte Carlo draws per n for the ``betting`` planner: the standard error of an estimated power
p is sqrt(p (1 - p) / 400), 0.02 at p = 0.8."""
BETTING_GRID = 2.0 ** (np.arange(-2, 25) / 4)
"""The n the ``betting`` planner tries, as multiples of the t-test's n: from 0.71 to 64 times it
in steps of 19%. The betting test is the less powerful of the two on light tails, and far less
where the range is wide against the spread (its bets are capped by the range)."""


def betting_power(difference: float, sd: float, low: float, high: float, seeds: int,
                  alpha: float = ALPHA, draws: int = BETTING_DRAWS) -> float:
    """Monte Carlo power of the two-sided betting test of mean 0 (``analysis.bounded``) at
    ``seeds`` seeds, for per-seed differences drawn normal with mean ``difference`` and
    standard deviation ``sd``, clipped to the range [low, high] the study states (the clipping
    moves the mean by less than 1e-6 wherever the range is 4 sd or more from it). Draws from a
    generator seeded by the arguments, so a plan is the same every time."""
    rng = np.random.default_rng([seeds, draws, int(1e6 * difference), int(1e6 * sd)])
    values = np.clip(rng.normal(difference, sd, (draws, seeds)), low, high)
    return float(np.mean([betting_p_value(v, low, high, 0.0, alpha=alpha) < alpha
                          for v in values]))


def plan_betting(difference: float, sd: float, low: float, high: float, target: float = 0.8,
                 alpha: float = ALPHA, draws: int = BETTING_DRAWS) -> Plan:
    """Seeds for the two-sided betting test of a mean difference ``difference`` of per-seed
    differences in [low, high] spreading with ``sd``: the smallest n of a grid
    (``BETTING_GRID`` times the paired t-test's n) from which the Monte Carlo power
    (``betting_power``) stays at or above the target, the first grid n that reaches it, and the
    paired t-test's n with the betting test's power there (the t-test's n is what the betting
    test would need on normal differences if it lost nothing to its validity on any tails)."""
    n_t = plan_paired_t(difference, sd, target, alpha).n_exact
    seeds = np.unique(np.maximum(np.ceil(n_t * BETTING_GRID), 2).astype(int))
    power = np.array([betting_power(difference, sd, low, high, int(n), alpha, draws)
                      for n in seeds])
    reached = np.flatnonzero(power >= target)
    below = np.flatnonzero(power < target)
    stays = (reached[reached > below.max()] if len(below) else reached)
    return Plan(float(seeds[stays[0]]) if len(stays) else math.inf,
                float(seeds[reached[0]]) if len(reached) else math.inf, n_t,
                betting_power(difference, sd, low, high, int(n_t), alpha, draws))


RATIO_DRAWS = 200
"""Most Monte Carlo draws of n pilot seeds per n: the standard error of an estimated power p is
sqrt(p (1 - p) / 200), at most 0.5 / sqrt(200) = 0.035, and 0.028 at p = 0.8. Each draw is one
run of the study's test (1000 bootstrap resamples, two isotonic fits each): 25 to 100 ms."""
RATIO_BATCH = 50
"""Draws are made in batches of this many; an n whose estimate is settled stops after a batch."""
RATIO_GRID = 2.0 ** (np.arange(-3, 4) / 3)
"""The n the ``ratio`` planner may try, as multiples of the normal approximation's n: from half to
twice it in steps of 26%. Near power 0.8 such a step moves the power by about 0.09 (normal
approximation: 0.28 x 2.8 / 2 per unit of log n, times log 1.26), three Monte Carlo standard
errors: a finer step could hardly be told apart."""
RATIO_MOST = 10_000
"""Largest n the ``ratio`` planner tries: a test at n seeds multiplies a (1000, n) matrix of
resample weights (80 MB at 10,000 seeds, and ``bootstrap_weights`` keeps four), and 200 tests at
10,000 seeds take about 15 s."""


@dataclass(frozen=True)
class RatioPlan:
    """Seeds for the budget-ratio test, planned from a pilot. ``seeds`` is the grid, ``power``
    the Monte Carlo power at each of its n and ``draws`` the draws of n pilot seeds behind it
    (NaN and 0 where not evaluated: below the largest n whose power is under the target).
    ``n_exact``: the smallest n of the grid from which that power stays at or above the target
    (inf if the largest n's does not); ``n_normal``: the normal approximation's n, and
    ``power_at_n_normal`` its Monte Carlo power (NaN when beyond ``RATIO_MOST``). ``observed``:
    the pilot's point ratio, before A's checkpoints were rescaled to the stated one; ``log_se``:
    the pilot's standard error of the log ratio, at its ``pilot_seeds`` seeds."""

    n_exact: float
    n_normal: float
    power_at_n_normal: float
    seeds: tuple[int, ...]
    power: tuple[float, ...]
    draws: tuple[int, ...]
    observed: float
    log_se: float
    pilot_seeds: int

    def standard_error(self, n: int) -> float:
        """Monte Carlo standard error of the power at ``n``, one of ``seeds``."""
        i = self.seeds.index(n)
        return math.sqrt(self.power[i] * (1 - self.power[i]) / self.draws[i])


def stated_budgets(correct_a: np.ndarray, correct_b: np.ndarray, budgets_a: np.ndarray,
                   budgets_b: np.ndarray, ratio: float) -> np.ndarray:
    """A's checkpoints times ``ratio`` / the pilot's point ratio, so that the pilot's point
    ratio becomes ``ratio`` (up to rounding) while both curves keep their shapes: a budget to the
    target, interpolated in log budget, scales with the checkpoints."""
    observed = (crossing(budgets_a, np.mean(correct_a, axis=0))
                / crossing(budgets_b, np.mean(correct_b, axis=0)))
    return np.asarray(budgets_a, dtype=float) * (ratio / observed)


def _rejects(result: BudgetRatio, margin: float | None) -> bool:
    """The study's verdict: the 95% interval excludes 1, or with a margin, the 90% interval lies
    inside [1 / margin, margin] (two one-sided tests)."""
    if margin is None:
        return result.ci_low > 1 or result.ci_high < 1
    return result.equivalent(margin)


def ratio_power(correct_a: np.ndarray, correct_b: np.ndarray, budgets_a: np.ndarray,
                budgets_b: np.ndarray, seeds: np.ndarray, margin: float | None = None,
                draws: int = RATIO_DRAWS, seed: int = 0, settle: float | None = None,
                until: Callable[[int, float], bool] | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """Monte Carlo power of ``budget_ratio``'s test at each n of ``seeds``, and the draws behind
    it: the share of ``draws`` draws of n pilot rows (with replacement; row i of A and of B
    together) on which it rejects; the difference test, or with ``margin`` the equivalence
    test. With ``settle`` (a target power), an n stops after a batch of ``RATIO_BATCH`` draws
    once its estimate is more than three standard errors (at the target) from the target. The
    n are taken from the largest down, and ``until(n, power)`` true stops there (the smaller n
    stay NaN, with 0 draws)."""
    seeds = np.asarray(seeds, dtype=int)
    rng = np.random.default_rng(seed)
    # The n seeds of a draw are the first n of one draw of the largest n: neighbouring n share
    # most of their seeds, so the estimated curve is smooth in n, and Monte Carlo noise does not
    # carry it back and forth across the target as independent draws at each n would.
    rows = rng.integers(len(correct_a), size=(draws, int(seeds.max())))
    power, used = np.full(len(seeds), math.nan), np.zeros(len(seeds), dtype=int)
    for i in np.argsort(seeds)[::-1]:
        n, rejected = int(seeds[i]), 0
        for start in range(0, draws, RATIO_BATCH):
            batch = rows[start:start + RATIO_BATCH, :n]
            rejected += sum(_rejects(budget_ratio(correct_a[r], correct_b[r], budgets_a,
                                                  budgets_b=budgets_b), margin) for r in batch)
            used[i] = start + len(batch)
            power[i] = rejected / used[i]
            # A draw far from the target settles which side of it the power is on: a true
            # power at the target lands over three standard errors away with probability
            # 0.0027 per look, so the longer runs are spent near the target.
            if settle is not None and abs(power[i] - settle) > 3 * math.sqrt(
                    settle * (1 - settle) / used[i]):
                break
        if until is not None and until(n, float(power[i])):
            break
    return power, used


def pilot_spread(correct_a: np.ndarray, correct_b: np.ndarray, budgets_a: np.ndarray,
                 budgets_b: np.ndarray) -> tuple[float, float]:
    """The pilot's point ratio of budgets to 0.9 (A over B) and the standard error of its log,
    read off ``budget_ratio``'s 95% percentile interval as its width in log scale over
    2 x 1.96. Raises ValueError when that interval is not finite and of positive width: the
    pilot cannot say how the estimate spreads."""
    pilot = budget_ratio(correct_a, correct_b, budgets_a, budgets_b=budgets_b)
    if not 0 < pilot.ci_low < pilot.ci_high < math.inf:
        raise ValueError(f"its 95% interval of the ratio, [{pilot.ci_low:.3g}, "
                         f"{pilot.ci_high:.3g}], is not finite and of positive width")
    return pilot.ratio, math.log(pilot.ci_high / pilot.ci_low) / (2 * norm.ppf(1 - ALPHA / 2))


def normal_seeds(log_se: float, pilot_seeds: int, ratio: float, margin: float | None = None,
                 target: float = 0.8) -> float:
    """The normal approximation's n for the budget-ratio test, its log-ratio estimate taken as
    normal with standard error ``log_se`` at ``pilot_seeds`` seeds, shrinking as 1 / sqrt(n):
    n0 (se (z_{1 - alpha/2} + z_power) / |log ratio|)^2 for the difference test; with
    ``margin``, n0 (se (z_{1 - alpha} + z_power) / (log margin - |log ratio|))^2, with
    z_{(1 + power) / 2} in place of z_power at ratio 1."""
    if margin is None:
        z, distance = norm.ppf(1 - ALPHA / 2) + norm.ppf(target), abs(math.log(ratio))
    else:
        # Only the nearer margin's one-sided test can fail, except at ratio 1 where both can,
        # each with half the allowed miss rate.
        miss = 1 - target if ratio != 1 else (1 - target) / 2
        z = norm.ppf(1 - ALPHA) + norm.ppf(1 - miss)
        distance = math.log(margin) - abs(math.log(ratio))
    return float(math.ceil(pilot_seeds * (log_se * z / distance) ** 2))


def plan_ratio(correct_a: np.ndarray, correct_b: np.ndarray, budgets_a: np.ndarray,
               budgets_b: np.ndarray, ratio: float, margin: float | None = None,
               target: float = 0.8, draws: int = RATIO_DRAWS) -> RatioPlan:
    """Seeds for the paired bootstrap test of two cells' budgets to 0.9 when A's is ``ratio``
    times B's, planned from a pilot: (seeds, checkpoints) outcome matrices of A and B whose rows
    are the same seeds, and their checkpoints. Without ``margin`` the test is that the ratio
    differs from 1 (``ratio`` must not be 1); with it, that the ratio lies within
    [1 / margin, margin] (``ratio`` must lie inside). ValueError as ``pilot_spread``.

    The effect is the stated ``ratio``, never the pilot's: A's checkpoints are rescaled
    (``stated_budgets``) so that the pilot's point ratio is exactly ``ratio``, keeping both
    curves' shapes and the pilot's seed-to-seed pairing, and the power at n is that of the
    study's test on n seeds drawn from this rescaled pilot (``ratio_power``)."""
    correct_a, correct_b = np.asarray(correct_a, dtype=bool), np.asarray(correct_b, dtype=bool)
    budgets_a, budgets_b = np.asarray(budgets_a, dtype=float), np.asarray(budgets_b, dtype=float)
    # Rescaling multiplies every resample's ratio by one constant, so the spread in log scale
    # is the unscaled pilot's.
    observed, log_se = pilot_spread(correct_a, correct_b, budgets_a, budgets_b)
    n_normal = normal_seeds(log_se, len(correct_a), ratio, margin, target)
    seeds = np.unique(np.clip(np.ceil(n_normal * RATIO_GRID), 2, RATIO_MOST).astype(int))
    # Below the largest n whose power is under the target, no n can change n_exact; n_normal is
    # evaluated anyway, for its power.
    power, used = ratio_power(correct_a, correct_b,
                              stated_budgets(correct_a, correct_b, budgets_a, budgets_b, ratio),
                              budgets_b, seeds, margin, draws, settle=target,
                              until=lambda n, p: p < target and n <= n_normal)
    # Not evaluated (NaN) counts as below the target: it lies below an n that is.
    position, _ = _stays(np.nan_to_num(power), target)
    n_exact = math.inf if math.isinf(position) else float(seeds[int(position) - 1])
    at_normal = power[seeds == n_normal]
    return RatioPlan(n_exact, n_normal, float(at_normal[0]) if at_normal.size else math.nan,
                     tuple(int(n) for n in seeds), tuple(float(p) for p in power),
                     tuple(int(d) for d in used), observed, log_se, len(correct_a))


def ratio_pilot(outcomes: Outcomes, cell: int) -> tuple[np.ndarray, np.ndarray]:
    """A pilot cell's outcomes (seeds x checkpoints) and budgets, for planning a budget ratio;
    ValueError where its budget to ``TARGET`` is no estimate to scale: not reached by the largest
    budget, or reached at the first checkpoint (only bounded)."""
    correct, budgets = outcomes.outcomes(cell), outcomes.budgets
    point = crossing(budgets, correct.mean(axis=0))
    if math.isinf(point):
        raise ValueError(f"(cell {cell}) does not reach accuracy {TARGET:g} in the pilot by its "
                         f"largest budget, {budgets[-1]:,.0f}")
    if point == budgets[0]:
        raise ValueError(f"(cell {cell}) is at accuracy {TARGET:g} from the first checkpoint, "
                         f"{budgets[0]:,.0f}: its budget is only bounded")
    return correct, budgets


def check_pair(a: int, b: int, correct_a: np.ndarray, correct_b: np.ndarray,
               first: str = "a") -> None:
    """ValueError unless a and b are two cells with as many seeds (a study runs every cell on
    the same seeds; cells with different numbers of seeds cannot be paired); ``first`` names a
    in the message."""
    if a == b:
        raise ValueError(f"is cell {a}, the same as {first}")
    if len(correct_b) != len(correct_a):
        raise ValueError(f"(cell {b}) has {len(correct_b)} seeds in the pilot, cell {a} "
                         f"{len(correct_a)}: not the same seeds")


def select_cell(cells: pd.DataFrame, selector: dict[str, str]) -> int:
    """The one cell of ``cells`` (one row per cell, ``CELL_KEYS`` columns) whose columns equal
    the selector's values (numbers compared as numbers); ValueError when none or several do."""
    match = np.ones(len(cells), dtype=bool)
    for key, value in selector.items():
        if key not in cells:
            raise ValueError(f"names the column {key!r}, not one of the cells' "
                             f"({', '.join(cells.columns)})")
        column = cells[key]
        if column.map(lambda v: isinstance(v, tuple)).any():
            # A list column (arm values, parameters): compared as its text, "(0.5, 0.6)".
            column = column.map(str)
        if pd.api.types.is_numeric_dtype(column):
            try:
                match &= column.to_numpy() == float(value)
            except ValueError:
                raise ValueError(f"gives {key} {value!r}, not a number") from None
        else:
            match &= (column == value).to_numpy()
    found = cells.loc[match, "cell"].astype(int).tolist()
    if not found:
        raise ValueError("matches no cell of the pilot")
    if len(found) > 1:
        raise ValueError(f"matches cells {', '.join(map(str, found))}: add keys to pick one")
    return found[0]
