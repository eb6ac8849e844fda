"""Does a length penalty buy stability? For a study whose answers cost tokens, per cell at the
largest budget: the spread of the final pass rate over seeds (its standard deviation, with a 95%
percentile seed-bootstrap interval, ``scipy.stats.bootstrap``: the pass rates are bounded and,
where runs collapse, bimodal, so no normal-theory interval would hold) and the share of runs that
collapsed, whose policy puts 0.99 or more on arms that are not best (mass on the best arms at
most 0.01), with its exact Clopper-Pearson interval, and whether the arms the penalised reward
prefers include a best-passing one (``optimum_passes_best``; where a penalty makes a shorter arm
that passes less often the optimum, runs settling on it are its intended effect, not a failure of
training); and, where the reward model has a penalty, each row set against the row without one
(``lower_spread``, ``higher_spread``, ``more_collapsed``). No p-values: the comparisons are of
intervals, per row."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binomtest, bootstrap

from analysis.accuracy import cell_environments
from analysis.budget_to_target import BOOTSTRAP
from analysis.cost import CONFIDENCE
from analysis.pass_rate import seed_pass_rates
from analysis.questions import Inputs
from analysis.questions.length_price import against_no_penalty
from study.model import registry

TABLE = "length_stability"
TEST = ""
COLLAPSED = 0.01
"""A run has collapsed when its policy's mass on the best arms is at most this (0.99 or more on
arms that are not best)."""


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell (first cost) whose learner has a policy; empty unless the study's answers
    cost tokens."""
    outcomes = inputs.outcomes
    answers = outcomes.answers
    if answers is None:
        return pd.DataFrame()
    environments = cell_environments(outcomes)
    cells = inputs.cells
    last = len(outcomes.budgets) - 1
    rows = []
    for cell in cells[cells["cost"] == cells["cost"].min()].itertuples():
        rates = seed_pass_rates(outcomes, cell.cell)[:, last].astype(float)
        if not np.isfinite(rates).all():
            continue  # no policy, or a state that is not finite: no spread to read
        env = environments[int(cell.cell)]
        model = registry.reward_model(env.reward)
        mass = answers.p_best[outcomes.row(cell.cell)][:, last]
        collapsed = int((mass <= COLLAPSED).sum())
        share = binomtest(collapsed, len(mass)).proportion_ci(CONFIDENCE, method="exact")
        spread = float(np.std(rates, ddof=1))
        if np.all(rates == rates[0]):
            low = high = np.nan  # every seed alike: a constant has no interval
        else:
            interval = bootstrap((rates,), lambda x, axis: np.std(x, ddof=1, axis=axis),
                                 n_resamples=BOOTSTRAP, confidence_level=CONFIDENCE,
                                 method="percentile", random_state=0).confidence_interval
            low, high = interval.low, interval.high
        shaped = (model.expected(env.values, env.lengths, env.reward_parameters)
                  if model.expected is not None and env.values is not None else None)
        optimum = (None if shaped is None else bool(any(
            value == max(env.values) for value, reward in zip(env.values, shaped, strict=True)
            if reward >= max(shaped) - 1e-12)))
        rows.append({
            "cell": int(cell.cell), "environment": cell.environment, "reward_model": env.reward,
            "optimum_passes_best": optimum,
            **{p.name: v for p, v in zip(model.parameters, env.reward_parameters, strict=True)},
            "baseline": cell.baseline, "group_size": cell.group_size, "lr": cell.lr,
            "budget": int(outcomes.budgets[last]), "seeds": len(rates),
            "pass_rate_sd": spread, "pass_rate_sd_low": low, "pass_rate_sd_high": high,
            "resamples": BOOTSTRAP, "collapsed": collapsed,
            "collapsed_share": collapsed / len(mass), "collapsed_low": share.low,
            "collapsed_high": share.high})
    found = pd.DataFrame(rows)
    if found.empty:
        return found
    found["optimum_passes_best"] = found["optimum_passes_best"].astype("boolean")
    if "penalty" not in found:
        return found
    return against_no_penalty(found, ["baseline", "group_size", "lr"], {
        "lower_spread": ("pass_rate_sd_low", "pass_rate_sd_high", "below"),
        "higher_spread": ("pass_rate_sd_low", "pass_rate_sd_high", "above"),
        "more_collapsed": ("collapsed_low", "collapsed_high", "above")})
