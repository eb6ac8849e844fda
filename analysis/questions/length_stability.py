"""Does a length penalty buy stability? For a study whose answers cost tokens, per cell at the
largest budget: the spread of the final pass rate over seeds (its standard deviation, with a 95%
interval: the square root of a betting interval, ``analysis.bounded``, of the variance from
independent pairs of seeds, ``pair_halves``; the pass rates are bounded and, where a few runs
collapse, a spike with far outliers, on which neither a normal-theory nor a bootstrap interval
holds its level) and the share of runs that
collapsed, whose policy puts 0.99 or more on arms that are not best (mass on the best arms at
most 0.01), with its exact Clopper-Pearson interval, and whether the arms the penalised reward
prefers include a best-passing one (``optimum_passes_best``; where a penalty makes a shorter arm
that passes less often the optimum, runs settling on it are its intended effect, not a failure of
training). The tests against no penalty are ``length_stability_tests``."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from analysis.accuracy import cell_environments
from analysis.bounded import betting_interval, pair_halves
from analysis.cost import CONFIDENCE
from analysis.pass_rate import seed_pass_rates, value_range
from analysis.questions import Inputs
from analysis.questions.length_price import sampler_columns
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
            bottom, top = value_range(env)
            variance = betting_interval(pair_halves(rates), 0.0, (top - bottom) ** 2 / 2,
                                        CONFIDENCE)
            low, high = np.sqrt(variance.low), np.sqrt(variance.high)
        # The shaping's expected reward of each arm, from the expected verdicts.
        shaped = (model.expected(registry.reward_model(env.judged_by).expected_rewards(
            env.values, env.judged_with), env.lengths, env.reward_parameters)
                  if model.expected is not None and env.values is not None else None)
        optimum = (None if shaped is None else bool(any(
            value == max(env.values) for value, reward in zip(env.values, shaped, strict=True)
            if reward >= max(shaped) - 1e-12)))
        rows.append({
            "cell": int(cell.cell), "environment": cell.environment, "reward_model": env.reward,
            "optimum_passes_best": optimum,
            **env.reward_columns(), **sampler_columns(cells, cell),
            "baseline": cell.baseline, "group_size": cell.group_size, "lr": cell.lr,
            "budget": int(outcomes.budgets[last]), "seeds": len(rates),
            "pass_rate_sd": spread, "pass_rate_sd_low": low, "pass_rate_sd_high": high,
            "collapsed": collapsed,
            "collapsed_share": collapsed / len(mass), "collapsed_low": share.low,
            "collapsed_high": share.high})
    found = pd.DataFrame(rows)
    if found.empty:
        return found
    found["optimum_passes_best"] = found["optimum_passes_best"].astype("boolean")
    return found
