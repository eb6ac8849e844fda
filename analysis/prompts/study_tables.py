"""Every table of a many-prompts study (``study_tables``), the tables ``python -m analysis``
writes for it."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from analysis.families import family_name
from analysis.pass_rate import FRACTIONS, achievable
from analysis.prompts.budget_to_target import TARGETS, budget_to_target
from analysis.prompts.compute_curve import compute_curve, curve_starts
from analysis.prompts.means import accuracy_table, band_spending
from analysis.prompts.outcomes import METRICS, cells_frame
from analysis.prompts.seeds import EFFECT, plan_table
from analysis.prompts.versus_uniform import family, verdict_table, versus_uniform
from analysis.study_tables import SETTINGS
from study.model.config import AnalysisConfig
from study.model.environment import Environment


def study_tables(runs: pd.DataFrame, study: str, analysis: AnalysisConfig,
                 environments: Mapping[str, Environment]) -> dict[str, pd.DataFrame]:
    """Every table of a many-prompts study from its tidy runs table, analysed as its config's
    ``[analysis]`` table says (``equivalence_margin`` for accuracy, ``pass_rate_margin`` for the
    pass rate; the compute curve, fitted up to ``curve_cut``, for the cells of
    ``headline_baseline`` and ``headline_group_size``), on each of ``METRICS``, each metric its
    own Holm family; ``environments``: each environment of the runs by its text."""
    margins = {"accuracy": analysis.equivalence_margin, "pass_rate": analysis.pass_rate_margin}
    effects = {"accuracy": EFFECT, "pass_rate": analysis.pass_rate_margin}
    gains = {text: achievable(env) for text, env in environments.items()}
    starts = {"accuracy": {text: env.chance for text, env in environments.items()},
              "pass_rate": {text: gain.start for text, gain in gains.items()}}
    targets = {"accuracy": TARGETS, "pass_rate": FRACTIONS}
    versus = {metric: versus_uniform(runs, margins[metric], family_name(study, family(metric)),
                                     metric=metric) for metric in METRICS}
    joined = pd.concat(versus.values(), ignore_index=True)
    # The headline cells' lr, where the config's default (a single bandit's headline) would
    # name an lr no cell of this study uses.
    rates = runs.loc[(runs["baseline"] == analysis.headline_baseline)
                     & (runs["group_size"] == analysis.headline_group_size), "lr"].unique()
    settings = analysis.to_dict() | ({"headline_lr": float(rates[0])} if len(rates) == 1 else {})
    tables = {SETTINGS: pd.DataFrame([{"study": study, **settings}]),
              "cells": cells_frame(runs), "prompts_accuracy": accuracy_table(runs),
              "prompts_vs_uniform": joined,
              "prompts_verdicts": verdict_table(joined, analysis.headline_baseline,
                                                analysis.headline_group_size),
              "prompts_plan": pd.concat([plan_table(runs, versus[metric], effects[metric],
                                                    metric=metric) for metric in METRICS],
                                        ignore_index=True),
              "prompts_budget_to_target": pd.concat(
                  [budget_to_target(runs, targets[metric], metric=metric, gains=gains)
                   for metric in METRICS], ignore_index=True),
              "prompts_bands": band_spending(runs)}
    if analysis.curve_cut:
        # ScaleRL's extrapolation is asked of the headline cells as a trainer runs them (per
        # group); from later first budgets on accuracy only, where the question arose (each
        # first budget refits every resample).
        headline = runs[(runs["baseline"] == analysis.headline_baseline)
                        & (runs["group_size"] == analysis.headline_group_size)
                        & (runs["normalization"] == "per_group")]
        curves = [compute_curve(headline, analysis.curve_cut, starts[metric], metric=metric)
                  for metric in METRICS]
        tables["prompts_curve"] = pd.concat([c.parameters for c in curves], ignore_index=True)
        tables["prompts_curve_predictions"] = pd.concat([c.predictions for c in curves],
                                                        ignore_index=True)
        tables["prompts_curve_starts"] = curve_starts(headline, analysis.curve_cut,
                                                      starts["accuracy"])
    return tables
