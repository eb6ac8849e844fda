"""The runs table of a many-prompts study, read per seed, and the cells compared with uniform
allocation.

The runs table of such a study has one row per (cell, seed, budget, band) (``CELL_COLUMNS``,
then the seed, the budget C in rollouts, the difficulty band and what the kernel
``study.core.prompts`` records of it). A seed's accuracy at a budget is the share of its P prompts
whose greedy arm is a best arm, summed over the bands: a fraction k / P, so a mean over seeds
gets the package's interval (``analysis.cost.mean_interval``: a t interval once at least
``SETTLED_SEEDS`` seeds differ from the most common value, else bounds from the counts of seeds
above and below it, valid however many seeds agree). Cells that differ only in their allocation
rule share every seed's prompts and draws (common random numbers), so a rule is compared with
uniform allocation seed by seed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.cost import Support
from analysis.families import add_to_digests
from study.model.schema import (
    DESIGN_ROW,
    ENVIRONMENT_INDEX,
    PROMPT_ANSWER_RUN_COLUMNS,
    PROMPT_FIELD_COLUMNS,
    PROMPT_SAMPLER_RUN_COLUMNS,
    SAMPLER_CELL_COLUMNS,
)

CELL_COLUMNS = ["cell", "allocation", "normalization", "baseline", "group_size", "lr",
                "environment", "prompts"]
"""What describes a cell of every many-prompts study; a study whose groups come from an
off-policy sampler has its ``SAMPLER_CELL_COLUMNS`` too (``cell_columns``). (The environment's
text names its verdict and answer lengths.)"""
PAIRED_BY = ["environment", "prompts", "group_size", "baseline", "lr", "normalization"]
"""Cells equal in these (and in their sampler) share every seed's dataset and draws: they
differ in allocation only."""
READ_COLUMNS = [*CELL_COLUMNS, "seed", "budget", "band", "band_prompts", "correct_prompts",
                "pass_rate_sum", "best_value_sum", "rollouts", "groups", "zero_signal_groups"]
"""The columns of the tidy runs table the analysis reads of every many-prompts study (the rest
would only take memory); ``read_columns`` adds those of the parts a study has."""
PART_SUMS = {"served_pass_rate_sum": "served_pass_rate", "stuck_prompts": "stuck",
             "tokens": "tokens", "expected_length_sum": "expected_length"}
"""The parts' run columns (``PROMPT_SAMPLER_RUN_COLUMNS``, ``PROMPT_ANSWER_RUN_COLUMNS``), sums
over a band's prompts, and the per-seed outcome each makes (``seed_totals``): a mean over the
seed's prompts, but for the tokens, the seed's total."""
assert set(PART_SUMS) == {*PROMPT_SAMPLER_RUN_COLUMNS, *PROMPT_ANSWER_RUN_COLUMNS}


def read_columns(cells: list[str], runs: list[str]) -> list[str]:
    """The columns of the tidy runs table to read of a study whose ``cells.parquet`` and
    ``runs.parquet`` have the columns ``cells`` and ``runs``: ``READ_COLUMNS`` and its parts'
    (and a population's environment, ``ENVIRONMENT_INDEX``)."""
    return [*READ_COLUMNS, *(c for c in (*SAMPLER_CELL_COLUMNS, DESIGN_ROW) if c in cells),
            *(c for c in (*PART_SUMS, ENVIRONMENT_INDEX) if c in runs)]


def band_rows(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs one row per (cell, seed, budget, band): a population's rows per environment
    (``ENVIRONMENT_INDEX``) summed over the environments of each band (the kernel's fields and
    the parts' sums, each a count or a sum over prompts), each cell's description as it was; the
    runs as they are where they have no population's rows."""
    if ENVIRONMENT_INDEX not in runs:
        return runs
    keys = ["cell", "seed", "budget", "band"]
    summed = [c for c in (*PROMPT_FIELD_COLUMNS, *PART_SUMS) if c in runs]
    totals = runs.groupby(keys, sort=True)[summed].sum().reset_index()
    described = runs.drop_duplicates("cell")[
        [c for c in runs.columns if c not in (*keys[1:], *summed, ENVIRONMENT_INDEX)]]
    return totals.merge(described, on="cell")[
        [c for c in runs.columns if c != ENVIRONMENT_INDEX]]


def cell_columns(frame: pd.DataFrame) -> list[str]:
    """The columns that describe a cell of the study whose (runs or cells) ``frame`` this is:
    ``CELL_COLUMNS`` and, where it has them, the sampler's and the design's row."""
    return [*CELL_COLUMNS, *(c for c in (*SAMPLER_CELL_COLUMNS, DESIGN_ROW)
                             if c in frame.columns)]
METRICS = ("accuracy", "pass_rate")
"""The outcomes every verdict of the study is stated on, each its own Holm family: best-arm
accuracy (a seed's share of prompts whose greedy arm is a best arm) and the pass rate (a seed's
mean over prompts of its policy's sum pi[k] v[k], what GRESO and Knapsack RL report as
accuracy)."""
REFERENCE = "uniform"
"""The allocation rule every other rule is compared with."""


_SUMMED = ["correct_prompts", "band_prompts", "pass_rate_sum", "best_value_sum"]


def seed_totals(runs: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """One row per (cell, seed, budget): the cell's columns, ``seed``, ``budget``, ``columns``
    summed over the bands, ``accuracy``, the seed's share of prompts right (correct_prompts
    over band_prompts; a prompt that is not finite counts as wrong), ``pass_rate``, the mean
    over its prompts of their policies' pass rates (a prompt that is not finite counts 0), and
    ``regret``, the mean over its prompts of the best value less the pass rate; where the runs
    have them, ``served_pass_rate``, ``stuck`` (the share of its prompts stuck) and
    ``expected_length`` (means over the seed's prompts) and ``tokens`` (the seed's,
    ``PART_SUMS``; a prompt that is not finite counts 0, but as stuck)."""
    parts = [c for c in PART_SUMS if c in runs.columns]
    totals = (runs.groupby([*cell_columns(runs), "seed", "budget"], observed=True, sort=True)
              [list(dict.fromkeys([*_SUMMED, *parts, *columns]))].sum().reset_index())
    prompts = totals["band_prompts"]
    found = {PART_SUMS[c]: totals[c] / (1 if c == "tokens" else prompts) for c in parts}
    return totals.drop(columns=[c for c in parts if c not in columns]).assign(
        accuracy=totals["correct_prompts"] / prompts, pass_rate=totals["pass_rate_sum"] / prompts,
        regret=(totals["best_value_sum"] - totals["pass_rate_sum"]) / prompts, **found)


def seed_outcomes(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (cell, seed, budget): the cell's columns, ``seed``, ``budget`` and each of
    ``METRICS`` of the seed over all bands, and its ``regret``."""
    return seed_totals(runs, []).drop(columns=_SUMMED)


def seed_frames(runs: pd.DataFrame, metric: str) -> dict[int, pd.DataFrame]:
    """Per cell, ``metric`` of each seed as a (seeds, budgets) frame."""
    return _by_seed(seed_outcomes(runs), metric)


def cells_frame(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per cell, its ``cell_columns``, in cell order."""
    return (runs[cell_columns(runs)].drop_duplicates("cell").sort_values("cell")
            .reset_index(drop=True))


def _by_seed(long: pd.DataFrame, column: str) -> dict[int, pd.DataFrame]:
    """Per cell, ``column`` as a (seeds, budgets) frame, seeds and budgets sorted; ValueError
    unless every cell has every one of its seeds at every one of its budgets."""
    wide = {}
    for cell, frame in long.groupby("cell", sort=True):
        table = frame.pivot(index="seed", columns="budget", values=column)
        if table.isna().to_numpy().any():
            raise ValueError(f"cell {cell}: not every seed is recorded at every budget")
        wide[int(cell)] = table
    return wide


SIMULATED = ["seed", "budget", "band", "band_prompts", "correct_prompts", "pass_rate_sum",
             "best_value_sum", "rollouts", "groups", "zero_signal_groups", *PART_SUMS]
"""The run columns that tell two cells' simulations apart (those a study has)."""


def repeats_another(runs: pd.DataFrame) -> pd.Series:
    """Whether each cell of ``cells_frame(runs)`` repeats the runs of an earlier cell of its
    allocation rule, bit for bit in every run column (``SIMULATED``): one simulation, one
    hypothesis, compared once (as the earlier cell). Settings that cannot act leave the runs
    alone: the normalization under a rule whose groups all have G rollouts
    (``study.model.grid.SAME_UNDER_EITHER``, simulated once), a correction or the kept mask
    where the sampler is the policy (lag 0, no mismatch, top_p 1). A rule whose runs are
    uniform allocation's is no repeat: that it changes nothing is its finding."""
    cells = cells_frame(runs)
    ordered = runs.sort_values(["cell", "seed", "budget", "band"])
    digests: dict = {}
    for column in (c for c in SIMULATED if c in runs):
        add_to_digests(digests, ordered["cell"].to_numpy(), ordered[column].to_numpy())
    first: dict[tuple[str, str], int] = {}
    return pd.Series([first.setdefault((rule, digests[int(cell)].hexdigest()), int(cell))
                      != int(cell)
                      for cell, rule in zip(cells["cell"], cells["allocation"], strict=True)],
                     index=cells.index)


def uniform_pairs(runs: pd.DataFrame) -> list[tuple[pd.Series, pd.Series]]:
    """Every (rule, uniform) pair of cells of ``runs`` that differ in their allocation only, but
    for a cell that repeats another's runs (``repeats_another``)."""
    pairs = []
    cells = cells_frame(runs)
    repeats = repeats_another(runs)
    for _, group in cells.groupby([*PAIRED_BY, *cell_columns(cells)[len(CELL_COLUMNS):]],
                                  sort=False):
        reference = group[group["allocation"] == REFERENCE]
        if reference.empty:
            continue
        pairs.extend((rule, reference.iloc[0]) for index, rule in group.iterrows()
                     if rule["allocation"] != REFERENCE and not repeats[index])
    return pairs


def check_aligned(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """ValueError unless two cells' per-seed frames hold the same seeds and budgets: a pairing
    by seed needs them."""
    if not (a.index.equals(b.index) and a.columns.equals(b.columns)):
        raise ValueError("cells paired by seed must hold the same seeds and budgets")


def accuracy_support(prompts: int) -> Support:
    """What a seed's accuracy over ``prompts`` prompts can be: k / P for k = 0..P."""
    return Support(tuple(np.arange(prompts + 1) / prompts))


def difference_support(prompts: int) -> Support:
    """What the difference of two seeds' accuracies over ``prompts`` prompts can be: k / P for
    k = -P..P (``Support.difference`` of two ``accuracy_support``, without its P^2 pairs)."""
    return Support(tuple(np.arange(-prompts, prompts + 1) / prompts))
