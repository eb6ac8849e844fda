"""Each part's main effect and every two parts' interaction on each metric of a study whose
cells are a fractional factorial's rows (``analysis.prompts.factorial``), at its compared budgets
(its largest where it names none), each metric its own Holm family."""

from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd

from analysis.cost import Support
from analysis.families import family_name
from analysis.prompts.factorial import METRICS, by_row, effects
from analysis.questions import Inputs

TABLE = "factorial_effects"
TEST = {f"{TABLE}_{metric}": f"two-sided one-sample t-test over seeds of the per-seed effect on "
        f"mean {words} (the paired t-test of the design's two halves)"
        for metric, words in METRICS.items()}
PASS_RATE_RANGE = Support((-1.0, 1.0), discrete=False)
"""Where an effect on a share or a pass rate lies: a difference of two means of values in
[0, 1]."""


def budgets(inputs: Inputs) -> list[int]:
    """The budgets the effects are tested at: the config's compared budgets, else its largest."""
    return list(inputs.analysis.compared_budgets) or [int(inputs.runs["budget"].max())]


def support(inputs: Inputs, metric: str) -> Support:
    """Where an effect on ``metric`` lies: within +-1 for a share or a pass rate, within +-the
    longest mean answer of any prompt for the expected length (a population's environments
    have lengths of their own: ``Environment.prompt_lengths``)."""
    if metric != "expected_length":
        return PASS_RATE_RANGE
    longest = max(float(env.prompt_lengths().max()) for env in inputs.environments.values()
                  if env.lengths is not None)
    return Support((-longest, longest), discrete=False)


MARGINS = {"served_pass_rate": "pass_rate_margin", "accuracy": "equivalence_margin"}
"""The metrics with an equivalence margin, each with the ``[analysis]`` key that states it."""


def margin(inputs: Inputs, metric: str) -> float:
    """The equivalence margin of ``metric`` stated in the config (NaN: none is claimed for a
    length or the stuck share, for which none was stated)."""
    return getattr(inputs.analysis, MARGINS[metric]) if metric in MARGINS else math.nan


def values(inputs: Inputs, metric: str) -> dict[int, object]:
    """Per budget, the metric of every seed in every design row (``by_row``), once per study."""
    return inputs.shared(f"{TABLE}/{metric}", lambda: by_row(inputs.runs, inputs.design, metric))


def per_metric(inputs: Inputs, build: Callable[[str], pd.DataFrame]) -> pd.DataFrame:
    """``build(metric)`` for every metric the study's runs have (``metrics``), one after the
    other; no rows without a design."""
    if inputs.design is None:
        return pd.DataFrame()
    return pd.concat([build(metric) for metric in METRICS if metric in metrics(inputs)]
                     or [pd.DataFrame()], ignore_index=True)


def table(inputs: Inputs) -> pd.DataFrame:
    """Every metric's effects, one after the other."""
    return per_metric(inputs, lambda metric: effects(
        values(inputs, metric), inputs.design, metric, budgets(inputs), support(inputs, metric),
        margin(inputs, metric), family_name(inputs.study, f"{TABLE}_{metric}")))


def metrics(inputs: Inputs) -> set[str]:
    """The metrics the study's runs have (``served_pass_rate`` and ``stuck`` need a sampler, the
    length answers that cost tokens)."""
    runs = set(inputs.runs.columns)
    return {"accuracy", *(["served_pass_rate"] if "served_pass_rate_sum" in runs else []),
            *(["stuck"] if "stuck_prompts" in runs else []),
            *(["expected_length"] if "expected_length_sum" in runs else [])}
