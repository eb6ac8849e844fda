"""Pricing the budget: does the extra compute pay for itself?

A run trained for B rollouts at c per pull and then deployed for D pulls earns
D * p[greedy arm] - c * B, with p the true pass probability of the arm it deploys (a run whose state
is not finite deploys nothing: p = 0). Between consecutive checkpoints B1 < B2 the extra rollouts
pay for themselves when c < D * (E p(B2) - E p(B1)) / (B2 - B1), the break-even cost per pull: it
is proportional to D, and the best budget at cost c depends on c / D only.

Every mean over seeds here has an interval valid where it is printed (``mean_interval``): late in
training most seeds deploy the same arm, and a t interval of values that all agree has zero width.
A budget or learner chosen as best is chosen on the even seeds and its net value and its margin
over the runner-up estimated on the odd seeds.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import binomtest
from scipy.stats import t as student_t

from analysis.accuracy import cell_environments
from analysis.outcomes import Outcomes

SETTLED_SEEDS = 30
"""A mean over seeds gets a t interval only when at least this many seeds differ from the most
common value. Below it the sum over the differing seeds is far from normal (with 1 or 2 differing
seeds the t interval's coverage is nowhere near 95%; with none it has zero width), so the interval
is the bound ``mean_interval`` derives from the counts of seeds above and below that value."""
CONFIDENCE = 0.95
"""The level of the cost tables' intervals (and of the net-value table's simultaneous ones)."""
DEPLOYMENT_FACTORS = (0.1, 1.0, 10.0)
"""The comparison of learners by net value is repeated at these multiples of the configured D:
the answer depends on c / D, and D is a guess about deployment."""


@dataclass(frozen=True)
class MeanInterval:
    """A mean over seeds with its interval and how the interval was made (``t`` or ``bound``)."""

    mean: float
    low: float
    high: float
    method: str


@dataclass(frozen=True)
class Support:
    """The values a per-seed quantity can take: exactly ``values`` when ``discrete`` (a fixed
    bandit deploys one of its arm values), else anything between the first and the last."""

    values: tuple[float, ...]
    discrete: bool = True

    def difference(self, other: Support, scale: float = 1.0, shift: float = 0.0) -> Support:
        """The support of scale * (x - y) + shift for x in this support and y in ``other``."""
        values = sorted({scale * (x - y) + shift for x in self.values for y in other.values})
        return Support(tuple(values), self.discrete and other.discrete)

    def step_above(self, v: float) -> float:
        """The smallest possible amount by which a value exceeds v (0 if not discrete)."""
        above = [x - v for x in self.values if x > v]
        return min(above) if self.discrete and above else 0.0

    def step_below(self, v: float) -> float:
        """The smallest possible amount by which a value falls short of v (0 if not discrete)."""
        below = [v - x for x in self.values if x < v]
        return min(below) if self.discrete and below else 0.0


def mean_interval(values: np.ndarray, support: Support,
                  confidence: float = CONFIDENCE) -> MeanInterval:
    """The mean of per-seed values in ``support``, with an interval valid however many seeds
    agree.

    With at least ``SETTLED_SEEDS`` seeds away from the most common value v, the t interval.
    Otherwise E X = v + E[(X - v)+] - E[(v - X)+], and with a = P(X > v), b = P(X < v):
    a * (smallest step above v) <= E[(X - v)+] <= a * (highest - v), and likewise below. The
    interval takes one-sided Clopper-Pearson limits of a and b from the counts of seeds above
    and below v, each at 1 - (1 - confidence) / 4, so that all four hold together at
    ``confidence``: with none of 10,000 seeds away from v the upper limits are 4.4e-4 (the rule
    of three at that level), not 0; with 24 above and none below, the lower limit is above v.
    """
    values = np.asarray(values, dtype=float)
    n = len(values)
    mean = float(values.mean())
    # Differences of arm values that are equal in exact arithmetic can differ in the last bits
    # (0.6 - 0.55 and 0.55 - 0.5): they are one value here.
    values = np.round(values, 9)
    common, counts = np.unique(values, return_counts=True)
    if n - int(counts.max()) >= SETTLED_SEEDS:
        half = float(student_t.ppf(0.5 + confidence / 2, n - 1) * values.std(ddof=1)
                     / np.sqrt(n))
        return MeanInterval(mean, mean - half, mean + half, "t")
    v = float(common[np.argmax(counts)])
    level = 1 - (1 - confidence) / 4
    (above_low, above_high), (below_low, below_high) = (
        _one_sided_limits(int(k), n, level) for k in ((values > v).sum(), (values < v).sum()))
    low = v + support.step_above(v) * above_low - (v - support.values[0]) * below_high
    high = v + (support.values[-1] - v) * above_high - support.step_below(v) * below_low
    return MeanInterval(mean, low, high, "bound")


def differing_seeds(values: np.ndarray) -> int:
    """The seeds whose value differs from the most common one (values equal to 9 decimals are
    one value, as in ``mean_interval``)."""
    _, counts = np.unique(np.round(np.asarray(values, dtype=float), 9), return_counts=True)
    return int(len(values) - counts.max())


@functools.cache
def _one_sided_limits(k: int, n: int, level: float) -> tuple[float, float]:
    """One-sided Clopper-Pearson lower and upper limits of a proportion, each at ``level``
    (cached: a study asks for the same few counts tens of thousands of times, and each is a
    root search)."""
    lower = binomtest(k, n, alternative="greater").proportion_ci(level).low
    upper = binomtest(k, n, alternative="less").proportion_ci(level).high
    return lower, upper


def deployed_support(outcomes: Outcomes) -> dict[int, Support]:
    """The values a run of each cell can deploy: its bandit's arm values, and 0 if any of its runs
    is not finite; where the bandit is drawn per seed, anything between the lowest and the highest
    value observed."""
    environments = cell_environments(outcomes)
    support = {}
    for cell in outcomes.cells["cell"]:
        values = environments[int(cell)].values
        if values is None:
            deployed = outcomes.deployed(cell)
            possible = {deployed.min(), deployed.max()}
        else:
            possible = set(values)
        if not outcomes.finite[outcomes.row(cell)].all():
            possible.add(0.0)
        support[int(cell)] = Support(tuple(sorted(float(x) for x in possible)),
                                     discrete=values is not None)
    return support


def net_value_table(outcomes: Outcomes, deployment_pulls: float) -> pd.DataFrame:
    """Expected net value per (cell, cost, budget) with a 95% interval (``mean_interval``)."""
    support = deployed_support(outcomes)
    rows = []
    for cell in outcomes.cells.itertuples():
        deployed, spent = outcomes.deployed(cell.cell), outcomes.spent(cell.cell)
        for c, budget in enumerate(outcomes.budgets):
            mean = mean_interval(deployed[:, c], support[cell.cell])
            # What a run pays for is the rollouts it spent: G * floor(B / G) with groups of G.
            spend = cell.cost * spent[c]
            rows.append({"cell": cell.cell, "algorithm": cell.algorithm, "lr": cell.lr,
                         "baseline": cell.baseline, "cost": cell.cost, "budget": budget,
                         "rollouts": spent[c], "seeds": deployed.shape[0],
                         "deployed_p": mean.mean,
                         "net_value": deployment_pulls * mean.mean - spend,
                         "ci_low": deployment_pulls * mean.low - spend,
                         "ci_high": deployment_pulls * mean.high - spend,
                         "interval": mean.method})
    return pd.DataFrame(rows)


def _best_budget(values: np.ndarray, rollouts: np.ndarray, cost: float,
                 deployment_pulls: float) -> list[int]:
    """Checkpoints (indices) by expected net value over the seeds (rows) of ``values``, best
    first; among equal net values the smaller budget first (it costs less to reach)."""
    net = deployment_pulls * values.mean(axis=0) - cost * rollouts
    return list(np.lexsort((np.arange(len(net)), -net)))


def best_budgets(outcomes: Outcomes, deployment_pulls: float) -> pd.DataFrame:
    """For each (cell, cost), the checkpoint with the largest expected net value and the runner-up,
    both ranked on the even seeds; on the odd seeds the best budget's net value and the paired gain
    over the runner-up (same seed at both budgets), 95% intervals (``mean_interval``). The optimum
    is ``resolved`` when the gain's interval lies above 0."""
    support = deployed_support(outcomes)
    even, odd = outcomes.halves()
    rows = []
    for cell in outcomes.cells.itertuples():
        values, rollouts = outcomes.deployed(cell.cell), outcomes.spent(cell.cell)
        ranked = _best_budget(values[even], rollouts, cell.cost, deployment_pulls)
        best, second = ranked[0], ranked[min(1, len(ranked) - 1)]
        spend = cell.cost * (rollouts[best] - rollouts[second])
        net = mean_interval(values[odd, best], support[cell.cell])
        gain = mean_interval(
            deployment_pulls * (values[odd, best] - values[odd, second]) - spend,
            support[cell.cell].difference(support[cell.cell], deployment_pulls, -spend))
        rows.append({"cell": cell.cell, "algorithm": cell.algorithm, "cost": cell.cost,
                     "best_budget": int(outcomes.budgets[best]), "seeds": int(odd.sum()),
                     "net_value": deployment_pulls * net.mean - cell.cost * rollouts[best],
                     "ci_low": deployment_pulls * net.low - cell.cost * rollouts[best],
                     "ci_high": deployment_pulls * net.high - cell.cost * rollouts[best],
                     "runner_up_budget": int(outcomes.budgets[second]),
                     "gain_over_runner_up": gain.mean,
                     "gain_over_runner_up_low": gain.low, "gain_over_runner_up_high": gain.high,
                     "interval": gain.method, "resolved": bool(gain.low > 0)})
    return pd.DataFrame(rows)


def break_even_costs(outcomes: Outcomes, deployment_pulls: float) -> pd.DataFrame:
    """Break-even cost per pull for each step between consecutive checkpoints, per cell, with the
    95% interval (``mean_interval``) of the per-seed gains p_i(B2) - p_i(B1) scaled by
    D / (B2 - B1), and what the seeds show beside that bound: ``seeds_better`` and
    ``seeds_worse`` (seeds whose deployed value rose or fell over the step) and ``p_value``, the
    two-sided exact sign test of the two counts (``binomtest``, 1 where no seed moved)."""
    support = deployed_support(outcomes)
    cells = outcomes.cells
    rows = []
    for cell in cells[cells["cost"] == cells["cost"].min()].itertuples():
        wide, spent = outcomes.deployed(cell.cell), outcomes.spent(cell.cell)
        for i, j in itertools.pairwise(range(len(outcomes.budgets))):
            if spent[j] == spent[i]:
                continue  # both checkpoints fall after the same update: no step to price
            scale = deployment_pulls / (spent[j] - spent[i])
            step = mean_interval(wide[:, j] - wide[:, i],
                                 support[cell.cell].difference(support[cell.cell]))
            gains = wide[:, j] - wide[:, i]
            better, worse = int((gains > 0).sum()), int((gains < 0).sum())
            rows.append({"cell": cell.cell, "algorithm": cell.algorithm, "lr": cell.lr,
                         "baseline": cell.baseline, "from_budget": outcomes.budgets[i],
                         "to_budget": outcomes.budgets[j], "seeds": len(wide),
                         "break_even_cost": scale * step.mean, "ci_low": scale * step.low,
                         "ci_high": scale * step.high, "interval": step.method,
                         "seeds_better": better, "seeds_worse": worse,
                         "p_value": binomtest(better, better + worse).pvalue
                         if better + worse else 1.0})
    return pd.DataFrame(rows)


def compare_by_net_value(outcomes: Outcomes, pairs: list[tuple[int, int]],
                         deployment_pulls: float) -> pd.DataFrame:
    """Learner A against learner B by net value, per pair of cells (same bandit and cost), at each
    multiple of D in ``DEPLOYMENT_FACTORS``: each learner's best budget is chosen on the even
    seeds; on the odd seeds the paired difference of net values (seed i of A at its best budget
    against seed i of B at its), with a 95% interval (``mean_interval``) and a simultaneous one:
    Bonferroni over the table's rows, each at 1 - 0.05 / rows, so that all of them hold together
    at 95%. ``higher`` names the learner whose simultaneous interval lies above the other's, else
    ``unresolved``: a direction read from any row then survives the table's multiplicity, which
    the per-row interval alone would not."""
    support = deployed_support(outcomes)
    simultaneous = 1 - (1 - CONFIDENCE) / (len(pairs) * len(DEPLOYMENT_FACTORS))
    even, odd = outcomes.halves()
    described = outcomes.cells.set_index("cell")
    deployed = {cell: outcomes.deployed(cell)
                for cell in dict.fromkeys(c for pair in pairs for c in pair)}
    rows = []
    for (a, b), factor in itertools.product(pairs, DEPLOYMENT_FACTORS):
        pulls = deployment_pulls * factor
        cost = float(described.loc[a, "cost"])
        chosen = {}
        for cell in (a, b):
            values, rollouts = deployed[cell], outcomes.spent(cell)
            budget = _best_budget(values[even], rollouts, cost, pulls)[0]
            chosen[cell] = (outcomes.budgets[budget], values[odd, budget],
                            cost * rollouts[budget])
        (budget_a, values_a, spend_a), (budget_b, values_b, spend_b) = chosen[a], chosen[b]
        shift = spend_b - spend_a
        gains = pulls * (values_a - values_b) + shift
        gain_support = support[a].difference(support[b], pulls, shift)
        difference = mean_interval(gains, gain_support, CONFIDENCE)
        together = mean_interval(gains, gain_support, simultaneous)
        names = described.loc[a, "algorithm"], described.loc[b, "algorithm"]
        verdict = (names[0] if together.low > 0 else names[1] if together.high < 0
                   else "unresolved")
        rows.append({"cell_a": a, "algorithm_a": names[0], "cell_b": b, "algorithm_b": names[1],
                     "cost": cost, "deployment_pulls": pulls, "best_budget_a": int(budget_a),
                     "best_budget_b": int(budget_b), "seeds": len(values_a),
                     "net_value_a": pulls * values_a.mean() - spend_a,
                     "net_value_b": pulls * values_b.mean() - spend_b,
                     "difference": difference.mean, "ci_low": difference.low,
                     "ci_high": difference.high, "interval": difference.method,
                     "simultaneous_low": together.low, "simultaneous_high": together.high,
                     "higher": verdict})
    return pd.DataFrame(rows)
