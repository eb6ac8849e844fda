"""Does a length penalty buy stability, tested: for a study whose answers cost tokens, each cell
whose penalty is kept throughout against the cell of the same bandit and estimator without one
(lambda 0), on the same seeds, at the largest budget. Two metrics, each one Holm family:

* ``pass_rate_variance``: the variance of the final pass rate over seeds, penalised minus
  unpenalised, from independent pairs of seeds (``analysis.bounded.pair_halves``: pair j's half
  squared difference, paired across the two cells by seed), by a two-sided betting test and its
  95% interval, valid however few runs collapse;
* ``collapsed``: the share of runs that collapsed (``length_stability.COLLAPSED``), by the exact
  McNemar test on the seeds that collapsed in one cell only, with Newcombe's interval
  (``analysis.paired.compare_outcomes``);
* ``stuck``: the share of runs that are stuck (``analysis.stuck``: half or more of the policy's
  mass off the best-passing arms and no longer gaining; the policy a user meets is the learner's
  here, nothing truncates it), tested as collapse is, a family added after the runs.

``finding`` is ``higher`` where the penalised cell's variance or collapse share is shown larger
(Holm p < 0.05), ``lower`` where smaller, else ``unresolved``: no margin was stated, so nothing
is called equivalent. ``lower_possible``: whether these seeds could show it lower at all, were
the penalised cell at its best (no variance; no collapsed run): the test's p-value then, with
the same bets, below 0.05 (no Holm step asks less). Where it is not, a protection the penalty
might give is below what the runs can resolve, not shown absent."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from analysis.accuracy import cell_environments
from analysis.bounded import betting_p_value, pair_halves, paired_betting
from analysis.families import ALPHA, declare, family_name
from analysis.paired import compare_outcomes, judge
from analysis.pass_rate import seed_pass_rates
from analysis.questions import Inputs
from analysis.questions.length_price import alongside, no_penalty_partners
from analysis.questions.length_stability import COLLAPSED
from analysis.stuck import stuck_runs, untrained_mass

TABLE = "length_stability_tests"
AFTER = ("length_stability",)
METRICS = {"pass_rate_variance": "two-sided paired betting test of the variance of the final "
           "pass rate (half squared differences of independent pairs of seeds)",
           "collapsed": "two-sided exact McNemar test of the share of collapsed runs",
           "stuck": "two-sided exact McNemar test of the share of stuck runs"}
TEST = {f"{TABLE}_{metric}": test for metric, test in METRICS.items()}
KEYS = ["baseline", "group_size", "lr"]
"""Besides the bandit's arms and lengths, what a penalised cell and its partner share."""


def _pairs(stability: pd.DataFrame) -> list[tuple[pd.Series, int]]:
    """(penalised row kept throughout, its partner's cell without a penalty)."""
    if "penalty" not in stability:
        return []
    return [(stability.loc[i], int(none["cell"]))
            for penalised, none in no_penalty_partners(stability, KEYS)
            for i in penalised if stability.at[i, "penalty_until"] == 1.0]


def _shares_row(described: dict, metric: str, runs: list[np.ndarray]) -> dict:
    """The row of a share of runs (``metric``: collapsed or stuck) of the penalised cell and its
    partner, ``runs`` their (seeds,) flags: the exact McNemar test with Newcombe's interval, each
    cell's count (``<metric>_a``, ``<metric>_b``) and whether a lower share could be shown at
    all (at its best no penalised run is counted: every partner's is discordant)."""
    compared = compare_outcomes(*runs)
    counts = [int(flags.sum()) for flags in runs]
    best = binomtest(0, counts[1], 0.5).pvalue if counts[1] else 1.0
    return {**described, "metric": metric, "seeds": compared["seeds"],
            "lower_possible": bool(best < ALPHA), f"{metric}_a": counts[0],
            f"{metric}_b": counts[1], "interval_method": "newcombe",
            **{k: v for k, v in compared.items() if k not in ("seeds", "accuracy_a",
                                                               "accuracy_b")}}


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per penalised cell kept throughout and metric; empty unless the study's answers
    cost tokens under a penalty."""
    outcomes = inputs.outcomes
    pairs = _pairs(inputs.tables.get("length_stability", pd.DataFrame()))
    if outcomes is None or outcomes.answers is None or not pairs:
        return pd.DataFrame()
    last = len(outcomes.budgets) - 1
    environments = cell_environments(outcomes)
    rows = []
    for row, partner in pairs:
        cell = int(row["cell"])
        untrained = untrained_mass(environments[cell])
        described = {"cell_a": cell, "cell_b": partner, **row[[
            "environment", "penalty", "penalty_until", "optimum_passes_best", *KEYS,
            *alongside(row), "budget"]].to_dict()}
        ours, theirs = (seed_pass_rates(outcomes, c)[:, last] for c in (cell, partner))
        values = [float(v) for v in outcomes.cells.set_index("cell").at[cell, "arm_values"]]
        # A pair's half squared difference of pass rates lies in [0, (highest - lowest)^2 / 2].
        span = (max(values) - min(values)) ** 2 / 2
        partner_halves = pair_halves(theirs)
        tested = paired_betting(pair_halves(ours) - partner_halves, -span, span, len(pairs),
                                0.0, ALPHA)
        # At its best the penalised cell's halves are all 0: the differences are the partner's.
        best = betting_p_value(-partner_halves, -span, span, 0.0, alpha=ALPHA / len(pairs))
        rows.append({**described, "metric": "pass_rate_variance", "seeds": len(ours),
                     "lower_possible": bool(best < ALPHA), "pairs": tested["seeds"], **{
                         k: v for k, v in tested.items()
                         if k not in ("seeds", "differing_seeds", "p_equivalence")}})
        collapsed = [outcomes.answers.p_best[outcomes.row(c)][:, last] <= COLLAPSED
                     for c in (cell, partner)]
        rows.append(_shares_row(described, "collapsed", collapsed))
        # The policy served is the learner's: its own mass is the served one.
        stuck = [stuck_runs(mass, mass, outcomes.finite[outcomes.row(c)], untrained)[:, last]
                 for c, mass in ((c, outcomes.answers.p_best[outcomes.row(c)])
                                 for c in (cell, partner))]
        rows.append(_shares_row(described, "stuck", stuck))
    found = pd.DataFrame(rows)
    parts = [judge(declare(part, family_name(inputs.study, f"{TABLE}_{metric}")), 0.0)
             for metric, part in found.groupby("metric", sort=False)]
    frame = pd.concat(parts).sort_index()
    frame["optimum_passes_best"] = frame["optimum_passes_best"].astype("boolean")
    for column in ("pairs", "collapsed_a", "collapsed_b", "stuck_a", "stuck_b", "only_a",
                   "only_b"):
        frame[column] = frame[column].astype("Int64")
    return frame
