"""What an off-policy study's questions share: the partner of a cell along one axis of the grid
(the same cell with that setting at its reference: lag 0, no KL term), the per-run readouts the
off-policy kernel records beside the outcomes (the policy's mass on the best arms, its entropy,
each KL estimator's gradient error, the served policy's pass rate and mass on the best arms),
which cells are one simulation (bit-identical runs, tallied once), and the paired comparison of
cells with their partners at the config's compared budgets, on the served and the learner's pass
rate, accuracy, the stuck share and collapse."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from analysis.accuracy import cell_environments
from analysis.bounded import paired_betting
from analysis.budget_to_target import (
    MORE_RESAMPLES,
    TARGET,
    budget_ratio,
    budget_to_target,
    range_columns,
    resampled_crossings,
)
from analysis.families import ALPHA, add_to_digests, declare, family_name
from analysis.outcomes import Outcomes
from analysis.paired import compare_outcomes, judge
from analysis.pass_rate import achievable, seed_pass_rates, value_range
from analysis.questions import Inputs
from analysis.roles import RatioFinding, typed
from analysis.stuck import stuck_runs, untrained_mass
from study.model.environment import Environment
from study.model.schema import OFFPOLICY_RUN_COLUMNS
from study.orchestration.storage import read_runs

COLLAPSED = 0.01
"""A run has collapsed when its policy's mass on the best arms is at most this (0.99 or more on
arms that are not best), as the length study counts it, or when its state is not finite (it
serves nothing)."""
METRICS = ("served_pass_rate", "pass_rate", "accuracy", "stuck", "collapsed")
"""The metrics a cell is compared with its partner on, each its own family: the served policy's
pass rate, the post-training readers' metric as a user meets it, first; the learner's beside
it."""
PROPORTIONS = ("accuracy", "stuck", "collapsed")
"""The metrics that are a run's yes or no, compared by McNemar's test."""
DESCRIBED = ["environment", "baseline", "group_size", "lr", "lag", "correction", "mismatch",
             "top_p", "kl_beta", "kl_estimator"]
"""The columns that describe a compared cell."""
TESTS = {"pass_rate": "two-sided paired betting test of mean pass rate over seeds "
                      "(Waudby-Smith and Ramdas 2024, on the range the bandit fixes)",
         "accuracy": "two-sided exact McNemar test of paired accuracy",
         "served_pass_rate": "two-sided paired betting test of the served policy's mean pass "
                             "rate over seeds (Waudby-Smith and Ramdas 2024, on the range the "
                             "bandit fixes)",
         "stuck": "two-sided exact McNemar test of paired stuck runs",
         "collapsed": "two-sided exact McNemar test of paired collapse",
         "pass_rate_equivalence": "two one-sided paired betting tests of mean pass rate within "
                                  "the margin",
         "served_pass_rate_equivalence": "two one-sided paired betting tests of the served "
                                         "policy's mean pass rate within the margin"}
"""Each family's test, as Methods names it (a table's ``TEST`` prefixes its name)."""


def partners(outcomes: Outcomes | None, axis: str, reference: float,
             ignored: Sequence[str] = ()) -> list[tuple[int, int]]:
    """(cell, partner) for every cell at the study's first cost whose ``axis`` is not
    ``reference``: the partner is the cell alike in every column but ``axis`` (and ``ignored``,
    settings that do not exist at the reference, such as a KL estimator without a KL term) with
    ``axis`` at ``reference``; none for a study without the axis or without such cells."""
    if outcomes is None or axis not in outcomes.cells:
        return []
    cells = outcomes.cells
    first = cells[cells["cost"] == cells["cost"].min()]
    keys = [c for c in first.columns if c not in ("cell", axis, *ignored)]
    # Text keys: a cell's tuples and floats compare as their text.
    described = first[keys].astype(str).agg("|".join, axis=1)
    at_reference = first[axis] == reference
    found = {key: int(cell) for key, cell in zip(described[at_reference],
                                                 first["cell"][at_reference], strict=True)}
    return [(int(cell), found[key]) for key, cell in zip(described[~at_reference],
                                                         first["cell"][~at_reference],
                                                         strict=True) if key in found]


def collapsed(outcomes: Outcomes, mass: np.ndarray, cell: int) -> np.ndarray:
    """(seeds, checkpoints): whether each run of ``cell`` has collapsed (``COLLAPSED``), from
    the policy's mass on the best arms ``mass`` (``readouts``' ``p_best``); a run whose state is
    not finite has no mass to read and counts as collapsed."""
    row = outcomes.row(cell)
    return (mass[row] <= COLLAPSED) | ~outcomes.finite[row]


def stuck(outcomes: Outcomes, served_mass: np.ndarray, mass: np.ndarray, cell: int
          ) -> np.ndarray:
    """(seeds, checkpoints): whether each run of ``cell`` is stuck (``analysis.stuck``), from
    the served policy's mass on the best arms ``served_mass`` and the learner's ``mass``
    (``readouts``' ``served_p_best`` and ``p_best``)."""
    row = outcomes.row(cell)
    return stuck_runs(served_mass[row], mass[row], outcomes.finite[row],
                      untrained_mass(cell_environments(outcomes)[cell]))


def served_pass_rates(outcomes: Outcomes, served: np.ndarray, cell: int) -> np.ndarray:
    """(seeds, checkpoints) served pass rates of ``cell`` (``readouts``' ``served_pass_rate``),
    a state that is not finite counting as 0, as ``analysis.pass_rate.seed_pass_rates``."""
    return np.nan_to_num(served[outcomes.row(cell)], nan=0.0)


def simulations(inputs: Inputs) -> dict[int, int]:
    """Every cell's simulation: the first cell (in cell order) whose runs are the same, bit for
    bit, in every stored run column. Settings that cannot act leave a run alone (the kept mask
    with top_p 1; tis where no ratio reaches its cap), so several cells are one simulation, one
    result, and are tallied once."""
    def find() -> dict[int, int]:
        # A column at a time: a study's whole runs table at once would hold gigabytes.
        digests: dict = {}  # cell -> its running SHA-256
        # Every cell has the same seeds and budgets: the other columns tell cells apart.
        for column in (c for c in OFFPOLICY_RUN_COLUMNS if c not in ("seed", "budget")):
            frame = read_runs(inputs.run_dir, ["cell", "seed", "budget", column]).sort_values(
                ["cell", "seed", "budget"])
            add_to_digests(digests, frame["cell"].to_numpy(), frame[column].to_numpy())
        found: dict[str, int] = {}
        return {cell: found.setdefault(digest.hexdigest(), cell)
                for cell, digest in sorted(digests.items())}

    return inputs.shared("offpolicy simulations", find)


def readouts(inputs: Inputs, columns: Sequence[str]) -> dict[str, np.ndarray]:
    """The off-policy run columns ``columns`` (``p_best``, ``entropy``, ``k3_bias`` ...) as
    arrays of shape (cells, seeds, checkpoints) in the outcomes' order, read once per study."""
    def read() -> dict[str, np.ndarray]:
        outcomes = inputs.outcomes
        frame = read_runs(inputs.run_dir, ["cell", "seed", "budget", *columns]).sort_values(
            ["cell", "seed", "budget"])
        shape = (len(outcomes.cells), len(outcomes.seeds), len(outcomes.budgets))
        return {name: frame[name].to_numpy(dtype=np.float64).reshape(shape) for name in columns}

    return inputs.shared(f"offpolicy readouts {','.join(columns)}", read)


def _pass_rate_range(outcomes: Outcomes, environment: Environment,
                     cells: Sequence[int]) -> tuple[float, float]:
    """The least and largest pass rate a run of ``cells`` (one bandit) can record: the bandit's
    least and largest pass probability, down to 0 where a run's state is not finite (it serves
    nothing: ``seed_pass_rates`` gives it 0), rounded outwards in single precision, which pass
    rates are stored in."""
    low, high = value_range(environment)
    if not all(outcomes.finite[outcomes.row(cell)].all() for cell in cells):
        low = min(low, 0.0)
    return (float(np.nextafter(np.float32(low), np.float32(-np.inf))),
            float(np.nextafter(np.float32(high), np.float32(np.inf))))


def compare_with_partners(inputs: Inputs, pairs: list[tuple[int, int]],
                          table: str) -> pd.DataFrame:
    """Each (cell, partner) of ``pairs`` on the same seeds at the config's compared budgets (the
    largest where it names none): the served and the learner's pass rate by betting on the range
    the bandit fixes (``analysis.bounded.paired_betting``), accuracy, the stuck share and
    collapse by the exact McNemar test with Newcombe's interval (the served pass rate only where
    the study truncates or mismatches its sampler somewhere: else it is the learner's). A pair
    whose two simulations
    (``simulations``) an earlier pair already compared is the same result: it is tested once,
    and its row repeats the earlier row's test with ``distinct`` false, outside every family.
    Each metric's tests of a difference are one Holm family (``<table>_<metric>``); each pass
    rate's two one-sided tests of equivalence within the config's ``pass_rate_margin`` are
    another; accuracy is equivalent where Newcombe's 90% interval lies within
    ``equivalence_margin`` (per row, as every McNemar table reads it); the stuck share and
    collapse are never called equivalent (no margin was stated)."""
    outcomes, analysis = inputs.outcomes, inputs.analysis
    budgets = [b for b in analysis.compared_budgets if b in set(outcomes.budgets)] or [
        int(outcomes.budgets[-1])]
    columns = {int(b): int(np.flatnonzero(outcomes.budgets == b)[0]) for b in budgets}
    environments = cell_environments(outcomes)
    described = inputs.cells.set_index("cell")
    read = readouts(inputs, ["p_best", "served_p_best", "served_pass_rate"])
    owner = simulations(inputs)
    first: dict[tuple[int, int], tuple[int, int]] = {}
    for cell, partner in pairs:
        first.setdefault((owner[cell], owner[partner]), (cell, partner))
    margins = {"served_pass_rate": analysis.pass_rate_margin,
               "pass_rate": analysis.pass_rate_margin,
               "accuracy": analysis.equivalence_margin, "stuck": 0.0, "collapsed": 0.0}
    hypotheses = len(first) * len(budgets)
    cells = outcomes.cells
    # Without truncation or mismatch the served policy is the learner's: one pass rate to test.
    metrics = [m for m in METRICS if m != "served_pass_rate" or (cells["top_p"] < 1.0).any()
               or (cells["mismatch"] > 0.0).any()]

    def values(metric: str, cell: int) -> np.ndarray:
        if metric == "served_pass_rate":
            return served_pass_rates(outcomes, read["served_pass_rate"], cell)
        if metric == "pass_rate":
            return seed_pass_rates(outcomes, cell)
        if metric == "accuracy":
            return outcomes.outcomes(cell)
        if metric == "stuck":
            return stuck(outcomes, read["served_p_best"], read["p_best"], cell)
        return collapsed(outcomes, read["p_best"], cell)

    parts = []
    for metric in metrics:
        rows = []
        tested_once: dict[tuple[int, int, int], dict] = {}
        for cell, partner in pairs:
            key = (owner[cell], owner[partner])
            distinct = first[key] == (cell, partner)
            ours, theirs = values(metric, cell), values(metric, partner)
            if metric not in PROPORTIONS:
                low, high = _pass_rate_range(outcomes, environments[cell], (cell, partner))
            for budget, c in columns.items():
                if not distinct:
                    tested = tested_once[(*key, budget)]
                elif metric not in PROPORTIONS:
                    # A pass rate lies between the bandit's lowest and highest pass
                    # probability, so a difference of two within +-(their distance).
                    tested = paired_betting(ours[:, c] - theirs[:, c], low - high, high - low,
                                            hypotheses, margins[metric], ALPHA)
                else:
                    found = compare_outcomes(ours[:, c], theirs[:, c])
                    tested = {key: found[key] for key in (
                        "seeds", "difference", "ci_low", "ci_high", "ci90_low", "ci90_high",
                        "p_value")} | {"interval_method": "newcombe"}
                tested_once.setdefault((*key, budget), tested)
                rows.append({"cell_a": cell, "cell_b": partner, "simulation_a": key[0],
                             "simulation_b": key[1], "distinct": distinct, "metric": metric,
                             **described.loc[cell, DESCRIBED].to_dict(), "budget": budget,
                             "mean_a": float(np.mean(ours[:, c])),
                             "mean_b": float(np.mean(theirs[:, c])), **tested})
        part = pd.DataFrame(rows)
        members = part["distinct"]
        part = declare(part, family_name(inputs.study, f"{table}_{metric}"), members)
        if metric not in PROPORTIONS:
            part = declare(part, family_name(inputs.study, f"{table}_{metric}_equivalence"),
                           members, p_column="p_equivalence", adjusted="p_equivalence_holm",
                           family_column="equivalence_family")
        parts.append(judge(_repeat_distinct(part), margins[metric]))
    found = pd.concat(parts, ignore_index=True)
    # A row of another metric is in no equivalence family (declare names its members' only).
    found["equivalence_family"] = found["equivalence_family"].fillna("")
    return found


def _repeat_distinct(part: pd.DataFrame) -> pd.DataFrame:
    """``part`` with each repeated row's adjusted p-values those of the distinct row it repeats
    (the same simulations at the same budget); its family stays empty: it is no hypothesis of
    its own."""
    keys = ["simulation_a", "simulation_b", "budget"]
    adjusted = [c for c in ("p_value_holm", "p_equivalence_holm") if c in part]
    source = part[part["distinct"]].set_index(keys)[adjusted]
    repeated = ~part["distinct"]
    found = source.reindex(pd.MultiIndex.from_frame(part.loc[repeated, keys]))
    part = part.copy()
    for column in adjusted:
        part.loc[repeated, column] = found[column].to_numpy()
    return part


def budget_ratios(inputs: Inputs, pairs: list[tuple[int, int]]) -> pd.DataFrame:
    """Each (cell, partner) of ``pairs``: the budget to 0.9 accuracy and to 0.9 of the
    achievable pass rate (``analysis.pass_rate.Achievable``: from the untrained policy's to the
    best arm's) of each, and their ratio with its 95% paired seed-bootstrap interval and the
    Monte Carlo ranges of its limits (``analysis.budget_to_target.budget_ratio``); and whether
    the ratio lies within [1 / m, m] for the config's ``ratio_margin`` m (``equivalence``: two
    one-sided tests on the 90% interval, per row, ``unresolved`` within a limit's Monte Carlo
    error once ``MORE_RESAMPLES`` resamples leave it there, as every budget ratio of the study
    is judged). An estimate with its interval and a
    per-row verdict, not a family: the paired tests at named budgets carry the families."""
    outcomes, margin = inputs.outcomes, inputs.analysis.ratio_margin
    environments = cell_environments(outcomes)
    described = inputs.cells.set_index("cell")
    budgets = outcomes.budgets.astype(float)
    rows = []
    for metric in ("accuracy", "pass_rate"):
        values: dict[int, np.ndarray] = {}
        drawn: dict[int, np.ndarray] = {}
        for cell, partner in pairs:
            target = (TARGET if metric == "accuracy"
                      else achievable(environments[cell]).target(TARGET))
            for one in (cell, partner):
                if one not in values:
                    values[one] = (outcomes.outcomes(one).astype(float) if metric == "accuracy"
                                   else seed_pass_rates(outcomes, one))
                    # A partner serves several cells: its resamples are drawn once.
                    drawn[one] = resampled_crossings(values[one], budgets, target)
            ratio = budget_ratio(values[cell], values[partner], budgets, target,
                                 resampled_a=drawn[cell], resampled_b=drawn[partner])
            if ratio.equivalence(margin) == "unresolved":
                ratio = budget_ratio(values[cell], values[partner], budgets, target,
                                     resamples=MORE_RESAMPLES)
            ours = budget_to_target(values[cell], budgets, target, draws=drawn[cell])
            theirs = budget_to_target(values[partner], budgets, target, draws=drawn[partner])
            rows.append({"cell_a": cell, "cell_b": partner, "metric": metric,
                         **described.loc[cell, DESCRIBED].to_dict(), "target": target,
                         "budget_a": ours.estimate, "reached_a": ours.reached,
                         "budget_b": theirs.estimate, "reached_b": theirs.reached,
                         "ratio": ratio.ratio, "ci_low": ratio.ci_low, "ci_high": ratio.ci_high,
                         "undefined_resamples": ratio.undefined_resamples,
                         "resamples": ratio.resamples, "seeds": ratio.seeds,
                         **range_columns("ci_low", "ci_high", ratio.ci_low_range,
                                         ratio.ci_high_range),
                         "ci90_low": ratio.ci90_low, "ci90_high": ratio.ci90_high,
                         **range_columns("ci90_low", "ci90_high", ratio.ci90_low_range,
                                         ratio.ci90_high_range),
                         "ratio_margin": margin, "equivalence": ratio.equivalence(margin)})
    found = pd.DataFrame(rows)
    found["equivalence"] = typed(found["equivalence"], RatioFinding)
    return found
