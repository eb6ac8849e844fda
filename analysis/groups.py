"""Group rollouts (G rollouts per update, the group as baseline) against single-rollout REINFORCE
on the same rollout budget: the tables that answer the group study's five questions.

Every (bandit, baseline, G) is an *arm* of the study; its best lr is chosen on the even seeds
(largest mean accuracy over the checkpoints, ties to the smaller lr) and every estimate at that lr
uses the odd seeds only, so the choice does not bias what is reported. Paired comparisons use
the seeds' common random numbers: the exact McNemar test, Newcombe's interval, Holm's correction
within each table (one family per table, named in the report), and an equivalence verdict only
where the 90% interval (two one-sided tests at 0.05) lies inside the margin stated before the
run (the config's ``analysis.equivalence_margin``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import binom

from analysis.accuracy import cell_environments
from analysis.binomial import proportion_interval
from analysis.budget_to_target import (
    budget_ratio,
    budget_to_target,
    placement,
    resampled_crossings,
)
from analysis.cost import Support, mean_interval
from analysis.families import declare, family_name
from analysis.outcomes import Outcomes
from analysis.paired import compare_outcomes, judge, paired_difference
from analysis.pass_rate import DIFFERENCE as PASS_RATE_DIFFERENCE
from analysis.pass_rate import FRACTIONS, achievable, budget_columns, seed_pass_rates
from analysis.roles import Finding, LrRole, typed
from study.model import registry
from study.model.config import DEFAULT_LR

ROBUST = 0.01
"""An lr is in an arm's robust range when its mean accuracy is within this of the arm's best."""
ZSCORE_EPSILON = 1e-4
SINGLE = ("running_mean", 1)
"""The reference arm: single-rollout REINFORCE with the running-mean baseline."""


def is_group_study(cells: pd.DataFrame) -> bool:
    """Whether a study's grid has more than one group size (then it gets these tables)."""
    return "group_size" in cells and cells["group_size"].nunique() > 1


def _score(outcomes: Outcomes, cell: int, seeds: np.ndarray | None = None) -> float:
    """Mean accuracy over the checkpoints on the selected seeds: the selection criterion."""
    return float(outcomes.outcomes(cell, seeds).mean())


def _arms(cells: pd.DataFrame) -> pd.DataFrame:
    return cells[cells["algorithm"].isin(registry.trained())]


def best_lr_table(outcomes: Outcomes) -> pd.DataFrame:
    """Per arm: the lr chosen on the even seeds, whether it lies at an edge of the grid, and the
    range of lr whose mean accuracy over the checkpoints (all seeds) is within ``ROBUST`` of the
    best (question 4)."""
    even, _ = outcomes.halves()
    rows = []
    for (environment, baseline, group), arm in _arms(outcomes.cells).groupby(
            ["environment", "baseline", "group_size"], sort=False):
        arm = arm.sort_values("lr")
        chosen = max(arm.itertuples(), key=lambda c: (_score(outcomes, c.cell, even), -c.lr))
        accuracy = {c.lr: _score(outcomes, c.cell) for c in arm.itertuples()}
        top = max(accuracy.values())
        robust = [lr for lr, value in accuracy.items() if value >= top - ROBUST]
        rows.append({"environment": environment, "baseline": baseline, "group_size": group,
                     "best_lr": chosen.lr, "cell": chosen.cell,
                     "at_edge": chosen.lr in (arm["lr"].min(), arm["lr"].max()),
                     "selection_accuracy": _score(outcomes, chosen.cell, even),
                     "robust_lr_low": min(robust), "robust_lr_high": max(robust),
                     # At an edge of the grid the range may extend beyond it.
                     "robust_range_at_edge": (min(robust) == arm["lr"].min()
                                              or max(robust) == arm["lr"].max()),
                     "robust_decades": math.log10(max(robust) / min(robust)),
                     "robust_contiguous": len(robust) == sum(
                         min(robust) <= lr <= max(robust) for lr in accuracy)})
    return pd.DataFrame(rows)


def accuracy_table(outcomes: Outcomes, best: pd.DataFrame) -> pd.DataFrame:
    """Accuracy against rollouts per arm on the odd seeds, at its best lr and at the package's
    default lr (question 1), with 95% Wilson intervals; ``lr_role`` says which of the two a row
    is (``analysis.roles.LrRole``)."""
    rows = []
    cells = outcomes.cells
    _, odd = outcomes.halves()
    fixed = _arms(cells)[np.isclose(_arms(cells)["lr"], DEFAULT_LR)].set_index(
        ["environment", "baseline", "group_size"])["cell"]
    for arm in best.itertuples():
        key = (arm.environment, arm.baseline, arm.group_size)
        for role, cell in ((LrRole.BEST, arm.cell), (LrRole.DEFAULT, fixed.get(key))):
            if cell is None:
                continue
            tested = outcomes.outcomes(int(cell), odd)
            lr = float(cells.loc[cells["cell"] == cell, "lr"].iat[0])
            for c, budget in enumerate(outcomes.budgets):
                k, n = int(tested[:, c].sum()), tested.shape[0]
                low, high = proportion_interval(k, n)
                rows.append({"environment": arm.environment, "baseline": arm.baseline,
                             "group_size": arm.group_size, "lr_role": role, "lr": lr,
                             "budget": int(budget),
                             "rollouts": int(outcomes.spent(int(cell))[c]),
                             "seeds": n, "accuracy": k / n, "ci_low": low, "ci_high": high})
    table = pd.DataFrame(rows)
    if len(table):
        table["lr_role"] = typed(table["lr_role"], LrRole)
    return table


def _family(rows: list[dict[str, object]], family: str, margin: float) -> pd.DataFrame:
    """Rows of paired comparisons as the Holm family ``family``, judged against ``margin``."""
    table = pd.DataFrame(rows)
    return judge(declare(table, family), margin) if len(table) else table


def _trained_checkpoints(outcomes: Outcomes, cell: int) -> list[int]:
    """The checkpoints (indices) at which a cell has made at least one update: before its first
    update (B < G) a group learner is the untrained policy, and comparing it says nothing about
    the estimator."""
    return [c for c, spent in enumerate(outcomes.spent(cell)) if spent > 0]


def versus_single_table(outcomes: Outcomes, best: pd.DataFrame, family: str,
                        margin: float, metric: str = "accuracy") -> pd.DataFrame:
    """Every arm (A) at its best lr against single-rollout REINFORCE with the running-mean
    baseline (B) at its best lr, on the odd seeds, at every checkpoint where A has made an update
    (question 1), on ``metric``: best-arm accuracy (exact McNemar, Newcombe's interval:
    ``compare_outcomes``) or the pass rate (the seeds' paired differences: ``paired_difference``,
    a paired t-test where enough seeds differ; the arms are those chosen on accuracy). One Holm
    family: the whole table."""
    _, odd = outcomes.halves()

    def compare(a: int, b: int, c: int) -> dict[str, object]:
        if metric == "accuracy":
            return compare_outcomes(outcomes.outcomes(a, odd)[:, c],
                                    outcomes.outcomes(b, odd)[:, c])
        ours, theirs = (seed_pass_rates(outcomes, cell, odd)[:, c] for cell in (a, b))
        return {"seeds": len(ours), "pass_rate_a": float(ours.mean()),
                "pass_rate_b": float(theirs.mean()),
                **paired_difference(ours - theirs, PASS_RATE_DIFFERENCE)}

    rows = []
    for environment, arms in best.groupby("environment", sort=False):
        single = arms[(arms["baseline"] == SINGLE[0]) & (arms["group_size"] == SINGLE[1])]
        if single.empty:
            continue
        reference = int(single["cell"].iat[0])
        for arm in arms.itertuples():
            if arm.cell == reference:
                continue
            for c in _trained_checkpoints(outcomes, arm.cell):
                rows.append({"environment": environment, "baseline": arm.baseline,
                             "group_size": arm.group_size, "lr": arm.best_lr,
                             "single_lr": float(single["best_lr"].iat[0]), "metric": metric,
                             "budget": int(outcomes.budgets[c]),
                             "rollouts": int(outcomes.spent(arm.cell)[c]),
                             **compare(arm.cell, reference, c)})
    return _family(rows, family, margin)


def best_arm_table(best: pd.DataFrame, versus: pd.DataFrame) -> pd.DataFrame:
    """Per bandit, the arm with the largest even-seed accuracy (is it G = 1?) and its paired
    difference from single-rollout REINFORCE on the odd seeds at each compared checkpoint (rows
    of the `group_vs_single` family)."""
    rows = []
    for environment, arms in best.groupby("environment", sort=False):
        top = arms.sort_values(["selection_accuracy", "group_size"],
                               ascending=[False, True], kind="stable").iloc[0]
        found = versus[(versus["environment"] == environment)
                       & (versus["baseline"] == top["baseline"])
                       & (versus["group_size"] == top["group_size"])]
        base = {"environment": environment, "baseline": top["baseline"],
                "group_size": int(top["group_size"]), "lr": top["best_lr"],
                "is_single_rollout": (top["baseline"], top["group_size"]) == SINGLE}
        if found.empty:
            rows.append(base)
        for row in found.itertuples():
            rows.append({**base, "budget": row.budget, "difference": row.difference,
                         "ci_low": row.ci_low, "ci_high": row.ci_high,
                         "p_value_holm": row.p_value_holm, "margin": row.margin,
                         "within_margin": row.within_margin, "finding": row.finding})
    table = pd.DataFrame(rows)
    if "finding" in table:
        table["finding"] = typed(table["finding"], Finding)
    return table


def budget_table(outcomes: Outcomes, best: pd.DataFrame, reference: str) -> pd.DataFrame:
    """Rollouts to 0.9 accuracy per arm at its best lr on the odd seeds, with a 95% bootstrap
    interval over seeds, and its ratio (paired bootstrap) to single-rollout REINFORCE and to the
    study's ``reference`` learner (``ratio_to_<reference>``; none for "") (question 2).
    Crossings are read against the rollouts actually spent (``pass_rate_budget_table``: the
    same on the pass rate)."""
    cells = outcomes.cells
    others = cells[cells["algorithm"] == reference].set_index("environment")["cell"]
    _, odd = outcomes.halves()
    rows = []
    for environment, arms in best.groupby("environment", sort=False):
        single = arms[(arms["baseline"] == SINGLE[0]) & (arms["group_size"] == SINGLE[1])]
        references = {"single": int(single["cell"].iat[0]) if len(single) else None,
                      reference: int(others[environment]) if environment in others else None}
        for arm in arms.itertuples():
            ours = outcomes.outcomes(arm.cell, odd)
            spent = outcomes.spent(arm.cell)
            draws = resampled_crossings(ours, np.maximum(spent, 1))
            estimate = budget_to_target(ours, np.maximum(spent, 1), draws=draws)
            row = {"environment": environment, "baseline": arm.baseline,
                   "group_size": arm.group_size, "lr": arm.best_lr,
                   "rollouts_to_target": estimate.estimate, "ci_low": estimate.ci_low,
                   "ci_high": estimate.ci_high, "reached": estimate.reached,
                   "at_first_checkpoint": estimate.at_first,
                   "largest_budget": estimate.largest_budget}
            for name, other in references.items():
                if other is None or other == arm.cell:
                    continue
                ratio = budget_ratio(ours, outcomes.outcomes(other, odd),
                                     np.maximum(spent, 1),
                                     budgets_b=np.maximum(outcomes.spent(other), 1),
                                     resampled_a=draws)
                row |= {f"ratio_to_{name}": ratio.ratio, f"ratio_to_{name}_low": ratio.ci_low,
                        f"ratio_to_{name}_high": ratio.ci_high}
            rows.append(row)
    return pd.DataFrame(rows)


def pass_rate_budget_table(outcomes: Outcomes, best: pd.DataFrame) -> pd.DataFrame:
    """Rollouts to each pass-rate target (``analysis.pass_rate.FRACTIONS`` of the bandit's
    achievable gain) per arm at its best lr on the odd seeds, with a 95% bootstrap interval, and
    its ratio to single-rollout REINFORCE's (paired bootstrap, with the Monte Carlo ranges of the
    limits and ``against_one``: where the interval lies against 1, ``unresolved`` within that
    error). Columns: ``environment``, ``baseline``, ``group_size``, ``lr``, ``fraction``,
    ``target``, then ``analysis.pass_rate.budget_columns``' and ``against_one``."""
    environments = cell_environments(outcomes)
    _, odd = outcomes.halves()
    rows = []
    for environment, arms in best.groupby("environment", sort=False):
        single = arms[(arms["baseline"] == SINGLE[0]) & (arms["group_size"] == SINGLE[1])]
        reference = int(single["cell"].iat[0]) if len(single) else None
        gain = achievable(environments[int(arms["cell"].iat[0])])
        for fraction in FRACTIONS:
            for arm in arms.itertuples():
                other = reference if reference not in (None, arm.cell) else None
                found = budget_columns(
                    seed_pass_rates(outcomes, arm.cell, odd),
                    np.maximum(outcomes.spent(arm.cell), 1), gain.target(fraction),
                    None if other is None else seed_pass_rates(outcomes, other, odd),
                    None if other is None else np.maximum(outcomes.spent(other), 1))
                if other is not None:
                    found["against_one"] = placement(
                        1.0, (found["ratio_low_mc_low"], found["ratio_low_mc_high"]),
                        (found["ratio_high_mc_low"], found["ratio_high_mc_high"])).value
                rows.append({"environment": environment, "baseline": arm.baseline,
                             "group_size": arm.group_size, "lr": arm.best_lr,
                             "fraction": fraction, "target": gain.target(fraction), **found})
    return pd.DataFrame(rows)


def zscore_scale(pass_rate: float, group: int) -> tuple[float, float]:
    """(E[1 / (s + 1e-4) | s > 0], P(s = 0)) for a group of ``group`` Bernoulli(pass_rate)
    rewards, s their sample standard deviation: how much GRPO's division scales Dr. GRPO's step
    when the group has signal, exactly, by summing over the number of passes k (s^2 = k (G - k) /
    (G (G - 1)))."""
    k = np.arange(group + 1)
    weight = binom.pmf(k, group, pass_rate)
    spread = np.sqrt(k * (group - k) / (group * (group - 1)))
    signal = (k > 0) & (k < group)
    zero = float(weight[~signal].sum())
    if zero >= 1.0:
        return math.nan, zero
    return float(np.sum(weight[signal] / (spread[signal] + ZSCORE_EPSILON)) / (1 - zero)), zero


def zscore_table(outcomes: Outcomes, best: pd.DataFrame, pass_rates: dict[str, tuple[float, float]],
                 family: str, margin: float) -> pd.DataFrame:
    """GRPO (group_zscore, A) against Dr. GRPO (group_mean, B), each at its best lr, on the odd
    seeds at every checkpoint after the first update (question 3; its own Holm family), with the
    factor by which dividing by the group's spread scales the step, at the uniform policy's mean
    pass rate and at the best arm's."""
    _, odd = outcomes.halves()
    rows = []
    index = best.set_index(["environment", "baseline", "group_size"])
    for (environment, group), _ in best[best["group_size"] > 1].groupby(
            ["environment", "group_size"], sort=False):
        try:
            grpo = index.loc[(environment, "group_zscore", group)]
            dr_grpo = index.loc[(environment, "group_mean", group)]
        except KeyError:
            continue
        mean_rate, best_rate = pass_rates[environment]
        at_start, _ = zscore_scale(mean_rate, group)
        at_best, _ = zscore_scale(best_rate, group)
        for c in _trained_checkpoints(outcomes, int(grpo["cell"])):
            rows.append({"environment": environment, "group_size": group,
                         "lr_grpo": grpo["best_lr"], "lr_dr_grpo": dr_grpo["best_lr"],
                         "step_scale_uniform_policy": at_start, "step_scale_best_arm": at_best,
                         "budget": int(outcomes.budgets[c]),
                         "rollouts": int(outcomes.spent(int(grpo["cell"]))[c]),
                         **compare_outcomes(
                             outcomes.outcomes(int(grpo["cell"]), odd)[:, c],
                             outcomes.outcomes(int(dr_grpo["cell"]), odd)[:, c])})
    return _family(rows, family, margin)


SHARE = Support((0.0, 1.0), discrete=False)
"""What a seed's share of updates without signal can be: anything in [0, 1]."""


def zero_signal_table(outcomes: Outcomes, best: pd.DataFrame,
                      pass_rates: dict[str, tuple[float, float]]) -> pd.DataFrame:
    """The share of updates (and so of rollouts) spent on groups with no signal by the largest
    checkpoint, per arm at its best lr on the odd seeds (question 5): the mean of the seeds'
    shares with its 95% interval by the package's rule (``analysis.cost.mean_interval``: a t
    interval with at least ``SETTLED_SEEDS`` seeds off the most common share, else bounds from
    Clopper-Pearson limits of the counts of seeds above and below it; ``interval`` says which),
    clipped to [0, 1], and its
    exact value for a policy that stays uniform (at the mean pass rate p) and for one that always
    pulls the best arm: p^G + (1 - p)^G for a group estimator (all rewards equal), (1 - p)^G with
    no baseline (all rewards 0); none for a baseline from earlier rollouts."""
    rows = []
    _, odd = outcomes.halves()
    last = len(outcomes.budgets) - 1
    for arm in best.itertuples():
        updates = outcomes.spent(arm.cell)[last] // arm.group_size
        if updates == 0:
            continue
        share = outcomes.zero_signal[outcomes.row(arm.cell)][odd, last] / updates
        interval = mean_interval(share, SHARE)
        mean_rate, best_rate = pass_rates[arm.environment]
        group = arm.group_size
        rows.append({"environment": arm.environment, "baseline": arm.baseline,
                     "group_size": group, "lr": arm.best_lr, "updates": int(updates),
                     "seeds": len(share), "zero_signal_share": interval.mean,
                     "ci_low": max(interval.low, 0.0), "ci_high": min(interval.high, 1.0),
                     "interval": interval.method,
                     "uniform_policy": _no_signal(arm.baseline, mean_rate, group),
                     "best_arm_policy": _no_signal(arm.baseline, best_rate, group)})
    return pd.DataFrame(rows)


def _no_signal(baseline: str, pass_rate: float, group: int) -> float:
    """P(a group of Bernoulli(pass_rate) rewards carries no signal) under ``baseline``."""
    if baseline in registry.learner("reinforce").group_baselines:
        return pass_rate**group + (1 - pass_rate) ** group
    if baseline == "none":
        return (1 - pass_rate) ** group
    return math.nan


def group_tables(outcomes: Outcomes, pass_rates: dict[str, tuple[float, float]],
                 study: str, margin: float, reference: str,
                 pass_rate_margin: float) -> dict[str, pd.DataFrame]:
    """Every table of a group study; ``pass_rates`` maps each bandit's ``environment`` to (its
    mean pass rate, its best arm's). Each table with p-values is its own Holm family, its rows
    judged against the equivalence ``margin`` (``pass_rate_margin`` on the pass rate); budgets
    are also compared with the ``reference`` learner's."""
    best = best_lr_table(outcomes)
    versus = versus_single_table(outcomes, best, family_name(study, "group_vs_single"), margin)
    return {"group_best_lr": best, "group_accuracy": accuracy_table(outcomes, best),
            "group_vs_single": versus, "group_best_arm": best_arm_table(best, versus),
            "group_vs_single_pass_rate": versus_single_table(
                outcomes, best, family_name(study, "group_vs_single_pass_rate"),
                pass_rate_margin, metric="pass_rate"),
            "group_budget_to_target": budget_table(outcomes, best, reference),
            "group_pass_rate_budgets": pass_rate_budget_table(outcomes, best),
            "group_zscore_vs_mean": zscore_table(outcomes, best, pass_rates,
                                                  family_name(study, "group_zscore_vs_mean"),
                                                  margin),
            "group_zero_signal": zero_signal_table(outcomes, best, pass_rates)}
