"""What each allocation rule buys per environment difficulty, in a many-prompts study whose prompts
come from a population of environments (``study.model.population``): per cell, budget and
difficulty bin (the environments whose mean pass probability m_e lies in one of ``BIN_EDGES``'
tenths), each seed's accuracy and pass rate over the bin's prompts and their means over seeds
with 95% intervals; and, for a rule with a uniform-allocation partner (``uniform_pairs``), the
mean per-seed difference from it with its interval (a t interval, or the bound where few seeds
differ: ``analysis.cost.mean_interval``; none where every seed's difference is the same). The
differences' intervals at a budget are one Bonferroni family: each at the level
``vs_uniform_confidence``, 1 - 0.05 / ``vs_uniform_intervals`` (the differences there that vary),
so that all of them hold together at 95% and a bin's interval may be read against 0 beside the
others. The rules' tests are ``prompts_vs_uniform``'s, over the whole dataset. Each row names its
prompts' arms and its population's law (``population_<parameter>``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.groups import SHARE
from analysis.pass_rate import DIFFERENCE, family_intervals
from analysis.prompts.means import interval_columns_of
from analysis.prompts.outcomes import (
    accuracy_support,
    cell_columns,
    difference_support,
    uniform_pairs,
)
from analysis.questions import Inputs
from study.model import population
from study.model.schema import ENVIRONMENT_INDEX

TABLE = "prompts_difficulty"
TEST = ""
BIN_EDGES = np.linspace(0.0, 1.0, 11)
"""The difficulty bins: environments by their mean pass probability, in tenths."""
SUMS = ["band_prompts", "correct_prompts", "pass_rate_sum"]
"""The run columns a bin's per-seed outcomes are made of (and ``served_pass_rate_sum`` and
``stuck_prompts``, where the runs have them)."""


def bin_of(pass_probability: np.ndarray) -> np.ndarray:
    """Each environment's difficulty bin by its mean pass probability, 0 to len(BIN_EDGES) - 2
    (the last bin holds 1)."""
    return np.clip(np.searchsorted(BIN_EDGES, pass_probability, side="right") - 1, 0,
                   len(BIN_EDGES) - 2)


def per_seed(inputs: Inputs) -> pd.DataFrame:
    """One row per (cell, budget, difficulty bin, seed): the bin's environments
    (``bin_environments``), its prompts (``bin_prompts``),
    and the seed's ``accuracy`` and ``pass_rate`` over them (and, where the runs have them,
    ``served_pass_rate`` and the share of its prompts ``stuck``)."""
    runs = inputs.environment_runs
    runs = runs[runs[ENVIRONMENT_INDEX] >= 0]
    sums = [*SUMS, *(name for name in ("served_pass_rate_sum", "stuck_prompts") if name in runs)]
    frames = []
    for _, frame in runs.groupby("cell", sort=True):
        drawn = inputs.environments[frame["environment"].iat[0]].population
        bins = bin_of(drawn.pass_probability)
        found = (frame.assign(difficulty_bin=bins[frame[ENVIRONMENT_INDEX].to_numpy()])
                 .groupby(["cell", "budget", "difficulty_bin", "seed"])[sums].sum()
                 .reset_index())
        frames.append(found.assign(bin_environments=np.bincount(
            bins, minlength=len(BIN_EDGES) - 1)[found["difficulty_bin"]]))
    found = pd.concat(frames, ignore_index=True)
    prompts = found["band_prompts"]
    outcomes = {"accuracy": found["correct_prompts"] / prompts,
                "pass_rate": found["pass_rate_sum"] / prompts}
    if "served_pass_rate_sum" in found:
        outcomes["served_pass_rate"] = found["served_pass_rate_sum"] / prompts
    if "stuck_prompts" in found:
        outcomes["stuck"] = found["stuck_prompts"] / prompts
    return found.drop(columns=sums[1:]).rename(columns={"band_prompts": "bin_prompts"}).assign(
        **outcomes)


def table(inputs: Inputs) -> pd.DataFrame:
    """One row per cell, budget and difficulty bin that holds an environment."""
    if inputs.environment_runs is None:
        return pd.DataFrame()
    seeds = per_seed(inputs)
    metrics = [m for m in ("accuracy", "pass_rate", "served_pass_rate") if m in seeds]
    partner = {int(rule["cell"]): int(uniform["cell"])
               for rule, uniform in uniform_pairs(inputs.runs)}
    by_key = {key: frame.sort_values("seed")
              for key, frame in seeds.groupby(["cell", "budget", "difficulty_bin"])}
    described = inputs.cells.set_index("cell")[cell_columns(inputs.cells)[1:]]
    rows, differences = [], []
    for (cell, budget, where), frame in by_key.items():
        prompts = int(frame["bin_prompts"].iat[0])
        environment = inputs.environments[described.at[cell, "environment"]]
        row = {"cell": cell, **described.loc[cell].to_dict(), "arms": environment.arms,
               **population.columns(environment.params, environment.arms),
               "budget": budget,
               "pass_probability_low": BIN_EDGES[where],
               "pass_probability_high": BIN_EDGES[where + 1],
               "bin_environments": int(frame["bin_environments"].iat[0]),
               "bin_prompts": prompts}
        for metric in metrics:
            support = accuracy_support(prompts) if metric == "accuracy" else SHARE
            row |= interval_columns_of(metric, frame[metric].to_numpy(), support)
            other = by_key.get((partner.get(cell, -1), budget, where))
            if other is not None:
                if not np.array_equal(frame["seed"], other["seed"]):
                    raise ValueError("cells paired by seed must hold the same seeds")
                differences.append((len(rows), budget, metric, prompts,
                                    frame[metric].to_numpy() - other[metric].to_numpy()))
        rows.append(row)
    # A family of intervals per budget (a rule whose runs are uniform allocation's in a bin
    # differs by a constant 0 there, with no interval).
    intervals = family_intervals(
        [f"{metric}_vs_uniform" for _, _, metric, _, _ in differences],
        [found for *_, found in differences], [budget for _, budget, *_ in differences],
        [difference_support(prompts) if metric == "accuracy" else DIFFERENCE
         for _, _, metric, prompts, _ in differences])
    for (index, *_), (columns, size, level) in zip(differences, intervals, strict=True):
        rows[index] |= {**columns, "vs_uniform_intervals": size, "vs_uniform_confidence": level}
    return pd.DataFrame(rows)
