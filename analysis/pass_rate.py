"""The policy's pass rate beside best-arm accuracy: the outcome post-training readers use.

Best-arm accuracy asks whether the greedy arm is a best arm; GRPO-family papers report the
policy's pass rate (mean@k accuracy), sum_k pi[k] v[k] for a bandit (``pass_rate`` in the runs
table; for Gaussian rewards the policy's expected reward), and its regret, the best value minus
it. The two can disagree: a near-tie among good arms costs accuracy and almost no pass rate.

A pass-rate target is stated as a share of the achievable gain, the distance from where an
untrained (uniform) policy starts, E[mean_k v], to the best it can reach, E[max_k v] (over the
law the values are drawn from, or of the fixed bandit): ``FRACTIONS`` of it, the same three for
every bandit, so that targets mean the same thing on an easy and on a hard one.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import integrate, special, stats

import analysis.budget_to_target as crossings
from analysis.accuracy import cell_environments
from analysis.cost import CONFIDENCE, MeanInterval, Support, mean_interval
from analysis.outcomes import Outcomes
from study.model.environment import Environment

FRACTIONS = (0.5, 0.75, 0.9)
"""Pass-rate targets as shares of the achievable gain, stated before any run."""
DIFFERENCE = Support((-1.0, 1.0), discrete=False)
"""What a paired difference of two pass rates can be (used only by ``mean_interval``'s bound,
with fewer than ``SETTLED_SEEDS`` seeds off the most common value)."""


@dataclass(frozen=True)
class Achievable:
    """Where a policy's pass rate starts, untrained (``start``: E[mean_k v]), and the most it
    can reach (``best``: E[max_k v])."""

    start: float
    best: float

    def target(self, fraction: float) -> float:
        """The pass rate ``fraction`` of the way from ``start`` to ``best``."""
        return self.start + fraction * (self.best - self.start)


def _law(env: Environment) -> stats.rv_continuous:
    """The frozen scipy distribution a drawn environment's values come from."""
    if env.draw == "beta":
        return stats.beta(*env.params)
    if env.draw == "uniform":
        low, high = env.params
        return stats.uniform(low, high - low)
    return stats.norm(*env.params)


def achievable(env: Environment) -> Achievable:
    """``Achievable`` of a bandit: exact for fixed values; for values drawn per seed, E[max of K
    draws] = E[X K F(X)^(K - 1)] by quadrature (``rv_continuous.expect``); for a population of
    environments, the mean over its prompts."""
    if env.values is not None:
        return Achievable(float(np.mean(env.values)), float(np.max(env.values)))
    if env.is_population:
        return _population_achievable(env)
    law = _law(env)
    if law.std() == 0:
        return Achievable(float(law.mean()), float(law.mean()))
    arms = env.arms
    best = law.expect(lambda x: x * arms * law.cdf(x) ** (arms - 1))
    return Achievable(float(law.mean()), float(best))


@functools.cache
def _population_achievable(env: Environment) -> Achievable:
    """``Achievable`` of a population's dataset: the mean over its prompts of each one's ends
    under its environment's beta law, environment e counted n_e times. E[max of K_e draws] is
    the integral over [0, 1] of 1 - F(x)^K, which needs only the beta's distribution function
    (its density is unbounded at 0 or 1 for the small parameters a population can have): the
    regularized incomplete beta function, the beta law's distribution function without a
    distribution object's checks at each of the quadrature's points."""
    drawn = env.population
    a, b = drawn.prompt_parameters(env.params[3])
    first = np.cumsum(drawn.holdings) - drawn.holdings
    bests = [integrate.quad(lambda x, i=i, k=k: 1.0 - special.betainc(a[i], b[i], x) ** k,
                            0.0, 1.0)[0] for i, k in zip(first, drawn.arms, strict=True)]
    return Achievable(float(np.average(a[first] / (a[first] + b[first]), weights=drawn.holdings)),
                      float(np.average(bests, weights=drawn.holdings)))


def seed_pass_rates(outcomes: Outcomes, cell: int, seeds: np.ndarray | None = None
                    ) -> np.ndarray:
    """(seeds, checkpoints) pass rates of ``cell`` on the seeds the mask ``seeds`` selects, in
    double precision; a state that is not finite (NaN) counts as 0, the pass rate of a policy
    that serves nothing, as ``Outcomes.deployed`` counts its value."""
    found = outcomes.pass_rate[outcomes.row(cell)]
    found = found if seeds is None else found[seeds]
    return np.nan_to_num(found.astype(np.float64), nan=0.0)


def has_policy(outcomes: Outcomes, cell: int) -> bool:
    """Whether ``cell``'s learner has a policy (its pass rate is recorded)."""
    row = outcomes.pass_rate[outcomes.row(cell)]
    return bool(np.isfinite(row).any())


def interval_columns(name: str, values: np.ndarray, support: Support,
                     confidence: float = CONFIDENCE,
                     interval: Callable[[np.ndarray, Support, float], MeanInterval] = mean_interval
                     ) -> dict[str, object]:
    """``name``, ``name_low``, ``name_high`` and ``name_interval``: the mean of per-seed
    ``values`` with its ``interval`` (``mean_interval``'s ``t`` or ``bound`` by default), or,
    where every seed has the same value (a policy that has not moved, a rule that spends by a
    fixed share), that value and no interval (``constant``): an interval around a constant would
    claim an uncertainty the runs do not have."""
    values = np.asarray(values, dtype=float)
    if values.size and np.all(values == values[0]):
        found = MeanInterval(float(values[0]), math.nan, math.nan, "constant")
    else:
        found = interval(values, support, confidence)
    return {name: found.mean, f"{name}_low": found.low, f"{name}_high": found.high,
            f"{name}_interval": found.method}


def family_intervals(names: list[str], values: list[np.ndarray], families: list[object],
                     supports: list[Support]) -> list[tuple[dict[str, object], int, float]]:
    """Each of ``values`` (per-seed differences, with its columns' name in ``names``, its
    family's key in ``families`` and its ``supports``) as ``interval_columns`` at
    1 - (1 - CONFIDENCE) / m, m the values of its family that vary, with m and that level: a
    Bonferroni family whose intervals hold together at CONFIDENCE (a constant difference has no
    interval and is not counted)."""
    varying = Counter(family for family, found in zip(families, values, strict=True)
                      if not np.all(found == found[0]))
    found = []
    for name, family, difference, support in zip(names, families, values, supports,
                                                 strict=True):
        level = 1 - (1 - CONFIDENCE) / max(varying[family], 1)
        found.append((interval_columns(name, difference, support, level), varying[family],
                      level))
    return found


def policy_table(outcomes: Outcomes) -> pd.DataFrame:
    """Per cell whose learner has a policy and per checkpoint, over all seeds: the mean pass
    rate and the mean regret (the seed's best value minus its pass rate), each with its 95%
    interval (``interval_columns``), and the achievable gain's two ends (``start``, ``best``).

    Columns: ``cell``, ``algorithm``, ``baseline``, ``lr``, ``group_size``, ``environment``,
    ``budget``, ``rollouts`` (their mean over seeds where answers cost tokens), ``seeds``,
    ``pass_rate`` (with ``_low``, ``_high``,
    ``_interval``), ``regret`` (likewise), ``start``, ``best``."""
    environments = cell_environments(outcomes)
    rows = []
    for cell in outcomes.cells.itertuples(index=False):
        if not has_policy(outcomes, cell.cell):
            continue
        env = environments[int(cell.cell)]
        gain = achievable(env)
        low, high = value_range(env)
        support = Support((low, high), discrete=False)
        rates = seed_pass_rates(outcomes, cell.cell)
        regrets = outcomes.best_value[outcomes.row(cell.cell)][:, None] - rates
        for c, budget in enumerate(outcomes.budgets):
            rows.append({"cell": cell.cell, "algorithm": cell.algorithm,
                         "baseline": cell.baseline, "lr": cell.lr,
                         "group_size": cell.group_size, "environment": cell.environment,
                         "budget": int(budget),
                         "rollouts": outcomes.mean_spent(cell.cell)[c],
                         "seeds": len(rates),
                         **interval_columns("pass_rate", rates[:, c], support),
                         **interval_columns("regret", regrets[:, c],
                                            Support((0.0, high - low), False)),
                         "start": gain.start, "best": gain.best})
    return pd.DataFrame(rows)


def value_range(env: Environment) -> tuple[float, float]:
    """The least and the largest value an arm of ``env`` can have: its own for a fixed bandit,
    [0, 1] for drawn probabilities, unbounded for drawn Gaussian means."""
    if env.values is not None:
        return float(min(env.values)), float(max(env.values))
    return (-math.inf, math.inf) if env.draw == "normal" else (0.0, 1.0)


def budget_columns(rates: np.ndarray, budgets: np.ndarray, target: float,
                   reference: np.ndarray | None = None,
                   reference_budgets: np.ndarray | None = None,
                   resamples: int = crossings.BOOTSTRAP, seed: int = 0) -> dict[str, object]:
    """The budget at which the seed-mean pass rate (``rates``, (seeds, checkpoints) at
    ``budgets``, rollouts spent) first reaches ``target`` (``analysis.budget_to_target``: an
    isotonic fit inverted in log budget, a percentile interval over ``resamples`` seed-bootstrap
    resamples), and, with a ``reference`` on the same seeds, the ratio of the two budgets with
    its paired bootstrap interval and the Monte Carlo ranges of its limits.

    Keys: ``budget_to_target`` (the largest budget, a lower bound, where ``reached`` is False),
    ``budget_low``, ``budget_high``, ``reached``, ``at_first_checkpoint``, ``largest_budget``;
    with a reference also ``ratio``,
    ``ratio_low``, ``ratio_high`` and ``ratio_low_mc_low`` ... ``ratio_high_mc_high``."""
    draws = crossings.resampled_crossings(rates, budgets, target, resamples, seed)
    estimate = crossings.budget_to_target(rates, budgets, target, resamples, seed, draws)
    found: dict[str, object] = {"budget_to_target": estimate.estimate,
                                "budget_low": estimate.ci_low, "budget_high": estimate.ci_high,
                                "reached": estimate.reached,
                                "at_first_checkpoint": estimate.at_first,
                                "largest_budget": estimate.largest_budget}
    if reference is not None:
        ratio = crossings.budget_ratio(rates, reference, budgets, target, resamples, seed,
                                       budgets_b=reference_budgets, resampled_a=draws)
        found |= {"ratio": ratio.ratio, "ratio_low": ratio.ci_low, "ratio_high": ratio.ci_high,
                  **crossings.range_columns("ratio_low", "ratio_high", ratio.ci_low_range,
                                            ratio.ci_high_range)}
    return found
