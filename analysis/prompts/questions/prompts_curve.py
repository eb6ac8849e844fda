"""ScaleRL's compute curve fitted to the headline cells as a trainer runs them (the config's
headline baseline and group size, normalized per group), up to the config's ``curve_cut``, on each
metric: its parameters (``analysis.prompts.compute_curve``); its predictions are
``prompts_curve_predictions``, from the same fits."""

from __future__ import annotations

import pandas as pd

from analysis.pass_rate import achievable
from analysis.prompts.compute_curve import ComputeCurve, compute_curve
from analysis.prompts.outcomes import METRICS
from analysis.questions import Inputs

TABLE = "prompts_curve"
TEST = ""


def headline_runs(inputs: Inputs) -> pd.DataFrame:
    """The runs of the headline cells, per group."""
    runs, analysis = inputs.runs, inputs.analysis
    return runs[(runs["baseline"] == analysis.headline_baseline)
                & (runs["group_size"] == analysis.headline_group_size)
                & (runs["normalization"] == "per_group")]


def starts(inputs: Inputs, metric: str) -> dict[str, float]:
    """Each law's value of ``metric`` before training: chance for accuracy, the mean pass rate for
    the pass rate."""
    if metric == "accuracy":
        return {text: env.chance for text, env in inputs.environments.items()}
    return {text: achievable(env).start for text, env in inputs.environments.items()}


def fits(inputs: Inputs) -> list[ComputeCurve]:
    """The fits on each metric, made once per study; none without ``curve_cut``."""
    cut = inputs.analysis.curve_cut
    return inputs.shared(TABLE, lambda: [
        compute_curve(headline_runs(inputs), cut, starts(inputs, metric), metric=metric)
        for metric in METRICS] if cut else [])


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per headline cell and metric; empty without ``curve_cut``."""
    found = fits(inputs)
    return pd.concat([c.parameters for c in found], ignore_index=True) if found else pd.DataFrame()
