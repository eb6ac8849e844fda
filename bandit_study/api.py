"""The study from Python, for notebooks: run a config and get its runs table, load a finished
study, and call the analysis on it.

Everything here goes through the same code as ``python -m bandit_study`` and ``python -m analysis``:
the same validation (a bad value raises ``ConfigError``, a ``ValueError`` whose message is the
CLI's one line, where the CLI exits with status 2), the same shard cache (a run repeated with
the same config and root seed reuses its shards and returns the same table) and the same
tests, intervals and planner.

Examples
--------
>>> import bandit_study.api as bandits
>>> runs = bandits.run({"study": {"name": "mine", "root_seed": 1, "seeds": 400},
...                     "grid": {"probs": [[0.5, 0.6]], "budgets": [10, 100, 1000]}},
...                    out="out/mine")
>>> bandits.accuracy(runs)[["budget", "accuracy", "ci_low", "ci_high"]]

A large study is loaded with its description once per cell, and analysed the same way:

>>> study = bandits.load("out/budget_sweep")
>>> bandits.accuracy(study)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analysis import plan as _plan
from analysis.accuracy import CELL_KEYS, accuracy_table
from analysis.budget_to_target import TARGET, BudgetEstimate, BudgetRatio
from analysis.budget_to_target import budget_ratio as _budget_ratio
from analysis.budget_to_target import budget_to_target as _budget_to_target
from analysis.families import ALPHA
from analysis.outcomes import READ_COLUMNS, Outcomes
from analysis.paired import compare_cells
from analysis.plan import Plan, RatioPlan, select_cell
from study.model.config import ConfigError, StudyConfig, config_from_dict, load_config
from study.model.schema import (
    CELL_COLUMNS,
    CURVES_FILE,
    LIST_COLUMNS,
    OFFPOLICY_RUN_COLUMNS,
    PROMPT_RUN_COLUMNS,
    TOKEN_RUN_COLUMNS,
)
from study.orchestration.outputs import run_config
from study.orchestration.storage import read_cells, read_manifest, read_runs, read_stored_runs
from study.orchestration.storage import tidy as _tidy

__all__ = ["ConfigError", "Plan", "RatioPlan", "Study", "accuracy", "budget_ratio",
           "budget_to_target", "cell", "cells", "compare", "load", "plan_binomial", "plan_mcnemar",
           "plan_ratio", "plot_accuracy", "run"]


@dataclass(frozen=True)
class Study:
    """A finished study as ``load`` reads it: its runs, and its cells' description once per cell.

    Every function below that takes a runs table also takes a ``Study``, and looks each run's
    cell up in ``cells`` by id.

    Attributes
    ----------
    runs : pandas.DataFrame
        ``runs.parquet`` as stored: one row per (cell, seed, budget checkpoint) (and band, or
        environment of a population, in a many-prompts study), ``cell`` (the cell's id, a key
        into ``cells``) and the run columns (``study.model.schema.STORED_RUN_COLUMNS``),
        numbers and flags only (114 bytes a row:
        680 MB for the 6 million rows of ``budget_sweep``). The description is not repeated on
        every row: ``tidy`` joins it, or ``runs.merge(cells[["cell", "algorithm"]],
        on="cell")`` the columns needed.
    cells : pandas.DataFrame
        ``cells.parquet``: one row per cell in cell order, the columns that describe it
        (``study.model.schema.CELL_COLUMNS``, the list columns as tuples).
    manifest : dict
        The config, root seed, versions and timings the run recorded.
    curves : pandas.DataFrame or None
        Per-step curves, for a study with ``curves = true``.
    """

    runs: pd.DataFrame
    cells: pd.DataFrame
    manifest: dict[str, Any]
    curves: pd.DataFrame | None

    def tidy(self, columns: list[str] | None = None) -> pd.DataFrame:
        """The tidy runs table: every description column on every row, as ``run`` returns it.

        Parameters
        ----------
        columns : list of str, optional
            Only these cell and run columns, in this order. All of them take about 180 bytes a
            row (text columns as categoricals, lists as one shared tuple per cell): for a large
            study, take the ones needed.

        Returns
        -------
        pandas.DataFrame
            ``runs`` joined with ``cells`` on ``cell`` (``study.orchestration.storage.read_runs``).
        """
        return _tidy(self.cells, self.runs, columns)


def _outcomes(runs: pd.DataFrame | Study) -> Outcomes:
    """The outcomes of a runs table, built anew for every call: a cache keyed by the frame would
    miss an edit made in place between two calls."""
    if isinstance(runs, Study):
        return Outcomes.from_runs(_described(runs))
    missing = [c for c in CELL_COLUMNS if c not in runs]
    if missing == list(CELL_COLUMNS[1:]) and "cell" in runs:
        # Study.runs alone: its description is in Study.cells.
        raise ValueError(f"the runs table has no column {', '.join(missing)}: pass the Study "
                         "that load returned, whose cells are in Study.cells")
    return Outcomes.from_runs(runs)


def _described(study: Study) -> pd.DataFrame:
    """The columns of ``study.runs`` the analysis reads (not copied) and, on every row, its cell's
    description from ``study.cells``, each column a categorical: a byte a row and column."""
    runs = study.runs
    position = pd.Index(study.cells["cell"]).get_indexer(runs["cell"].to_numpy())
    if (position < 0).any():
        raise ValueError("the runs table has cells that Study.cells does not")
    frame = {name: runs[name].to_numpy() for name in READ_COLUMNS if name in runs}
    for name in study.cells.columns.drop("cell"):
        values = study.cells[name]
        codes, uniques = pd.factorize(values.to_numpy() if name in LIST_COLUMNS else values)
        categories = pd.CategoricalDtype(pd.Index(uniques, tupleize_cols=False))
        frame[name] = pd.Categorical.from_codes(codes[position], dtype=categories)
    return pd.DataFrame(frame, copy=False)


def _config(config: Mapping[str, Any] | str | Path | StudyConfig) -> StudyConfig:
    if isinstance(config, StudyConfig):
        return config
    if isinstance(config, str | Path):
        return load_config(config)
    if isinstance(config, Mapping):
        return config_from_dict(dict(config))
    raise ConfigError("config", type(config).__name__, "is not a dict, a path or a StudyConfig")


def run(config: Mapping[str, Any] | str | Path | StudyConfig, out: str | Path | None = None, *,
        seeds: int | None = None, threads: int | None = None,
        progress: bool = False) -> pd.DataFrame:
    """Simulate a study and return its runs table.

    Parameters
    ----------
    config : dict, str, Path or StudyConfig
        The config as the dict its TOML parses to (``{"study": {...}, "grid": {...}}``), or the
        path of a TOML file (``study/configs/*.toml``).
    out : str or Path, optional
        Folder for ``runs.parquet``, ``cells.parquet`` and ``manifest.json``; by default
        ``out/<study name>`` under the current folder.
        Shards are cached in a folder per ``out`` under the per-user cache, as by the CLI
        without ``--cache`` (``study.model.paths.shard_cache``).
    seeds : int, optional
        Replaces ``study.seeds``.
    threads : int, optional
        numba threads (results do not depend on it).
    progress : bool
        Show a progress bar.

    Returns
    -------
    pandas.DataFrame
        The tidy table: one row per (cell, seed, budget), ``runs.parquet`` joined with
        ``cells.parquet`` (``study.orchestration.storage.read_runs``).

    Raises
    ------
    ConfigError
        A field of the config or an argument is not usable; the message names it and its value.
    """
    folder = run_config(_config(config), None if out is None else Path(out), seeds, threads,
                        quiet=not progress)
    return read_runs(folder)


def load(out: str | Path) -> Study:
    """Read a finished study's folder: its runs and cells (kept apart), manifest and curves.

    Parameters
    ----------
    out : str or Path
        A folder ``python -m bandit_study run`` or ``run`` wrote.

    Returns
    -------
    Study
        The runs hold the cell's id on each row and the cells its description once, and the
        runs are read a column of a row group at a time into their arrays, so loading holds
        little more than the runs' own bytes (``budget_sweep``'s 6 million rows: under 1 GB,
        the Python process included); ``Study.tidy`` joins the two.

    Raises
    ------
    ConfigError
        The folder has no runs table, or not the cells written with it.
    """
    folder = Path(out)
    try:
        cells = read_cells(folder)
        runs = read_stored_runs(folder, cells)
    except ValueError as error:
        raise ConfigError("out", str(folder), str(error)) from None
    curves = folder / CURVES_FILE
    return Study(runs, cells, read_manifest(folder),
                 pd.read_parquet(curves) if curves.is_file() else None)


def cells(runs: pd.DataFrame | Study) -> pd.DataFrame:
    """The cells of a runs table, one row each, with the columns that define them.

    Parameters
    ----------
    runs : pandas.DataFrame or Study
        A tidy runs table (``run``, ``Study.tidy``) or a study ``load`` read.

    Returns
    -------
    pandas.DataFrame
        Every column that describes a cell (``cell``, ``algorithm``, ``lr``, ..., and a study's
        own: an off-policy study's ``lag`` and ``correction``, a many-prompts study's
        ``allocation``), in cell order.
    """
    return _all_cells(runs)


def _all_cells(runs: pd.DataFrame | Study, outcomes: Outcomes | None = None) -> pd.DataFrame:
    """Every cell column of ``runs``, one row per cell in cell order: a study's cells as it
    holds them (no need to build its outcomes, millions of rows, for them), else the outcomes'
    cells (built from ``runs`` when not given) with a tidy table's other cell columns (its
    named parameters)."""
    if isinstance(runs, Study):
        return runs.cells.reset_index(drop=True)
    described = (_outcomes(runs) if outcomes is None else outcomes).cells.reset_index(drop=True)
    measured = {*OFFPOLICY_RUN_COLUMNS, *TOKEN_RUN_COLUMNS, *PROMPT_RUN_COLUMNS}
    others = [c for c in runs.columns if c not in described and c not in measured]
    if not others:
        return described
    firsts = runs.drop_duplicates("cell")[["cell", *others]]
    return described.merge(firsts, on="cell", how="left")


def cell(runs: pd.DataFrame | Study, **where: object) -> int:
    """The one cell whose columns equal ``where``, e.g. ``cell(runs, algorithm="uniform")``.

    Parameters
    ----------
    runs : pandas.DataFrame or Study
        A tidy runs table (``run``, ``Study.tidy``) or a study ``load`` read.
    **where
        Cell columns (any column of ``cells``) and their values (numbers compared as numbers).

    Returns
    -------
    int
        The cell's id (the ``cell`` column).

    Raises
    ------
    ValueError
        No cell, or more than one, matches, or a key is not a cell column.
    """
    return _chosen(cells(runs), where)


def _chosen(frame: pd.DataFrame, chosen: int | Mapping[str, object]) -> int:
    """The id of the cell of ``frame`` (a cells frame) that ``chosen`` names: an id, or columns
    and their values."""
    if not isinstance(chosen, Mapping):
        return int(chosen)
    return select_cell(frame, {key: str(value) for key, value in chosen.items()})


def _cell_id(outcomes: Outcomes, chosen: int | Mapping[str, object],
             runs: pd.DataFrame | Study) -> int:
    return _chosen(_all_cells(runs, outcomes), chosen)


def accuracy(runs: pd.DataFrame | Study, confidence: float = 0.95,
             method: str = "wilson") -> pd.DataFrame:
    """Best-arm accuracy per (cell, budget) with its interval over seeds.

    Parameters
    ----------
    runs : pandas.DataFrame or Study
        A tidy runs table (``run``, ``Study.tidy``) or a study ``load`` read.
    confidence : float
        Level of the interval.
    method : {"wilson", "exact"}
        Wilson score or Clopper-Pearson interval (``scipy.stats.binomtest``).

    Returns
    -------
    pandas.DataFrame
        The cell's columns (all of ``cells``), ``budget``, ``seeds``, ``correct``,
        ``non_finite``, ``accuracy``, ``ci_low``, ``ci_high``.
    """
    outcomes = _outcomes(runs)
    table = accuracy_table(outcomes, method=method, confidence=confidence)
    every = _all_cells(runs, outcomes)
    described = [c for c in every if c not in table]
    found = table.merge(every[["cell", *described]], on="cell", how="left")
    order = [*CELL_KEYS, *described]
    return found[order + [c for c in table if c not in order]]


def compare(runs: pd.DataFrame | Study, a: int | Mapping[str, object],
            b: int | Mapping[str, object], seeds: np.ndarray | None = None) -> pd.DataFrame:
    """Cell A against cell B at each budget, paired by seed (common random numbers).

    Parameters
    ----------
    runs : pandas.DataFrame or Study
        A tidy runs table (``run``, ``Study.tidy``) or a study ``load`` read.
    a, b : int or dict
        Cell ids, or column values that pick one cell each (as ``cell``).
    seeds : numpy.ndarray, optional
        Only these seeds (a cell chosen on some seeds is tested on the others).

    Returns
    -------
    pandas.DataFrame
        Per budget: accuracies, difference with its 95% (and 90%) Newcombe interval, discordant
        seeds, the exact McNemar p-value and whether interval and test agree.
    """
    outcomes = _outcomes(runs)
    return compare_cells(outcomes, _cell_id(outcomes, a, runs), _cell_id(outcomes, b, runs),
                         None if seeds is None else outcomes.mask(seeds))


def budget_to_target(runs: pd.DataFrame | Study, chosen: int | Mapping[str, object],
                     target: float = TARGET) -> BudgetEstimate:
    """The budget at which a cell's accuracy reaches ``target``, with a seed-bootstrap interval.

    Parameters
    ----------
    runs : pandas.DataFrame or Study
        A tidy runs table (``run``, ``Study.tidy``) or a study ``load`` read.
    chosen : int or dict
        The cell, by id or by column values.
    target : float
        The accuracy to reach.

    Returns
    -------
    BudgetEstimate
        ``estimate``, ``ci_low``, ``ci_high`` (95% percentile bootstrap over whole seeds), and
        whether it was ``reached`` within the checkpoints (else a lower bound).
    """
    outcomes = _outcomes(runs)
    return _budget_to_target(outcomes.outcomes(_cell_id(outcomes, chosen, runs)), outcomes.budgets,
                             target)


def budget_ratio(runs: pd.DataFrame | Study, a: int | Mapping[str, object],
                 b: int | Mapping[str, object], target: float = TARGET) -> BudgetRatio:
    """A's budget to ``target`` over B's, seeds paired, with percentile bootstrap intervals.

    Parameters
    ----------
    runs : pandas.DataFrame or Study
        A tidy runs table (``run``, ``Study.tidy``) or a study ``load`` read.
    a, b : int or dict
        The cells, by id or by column values.
    target : float

    Returns
    -------
    BudgetRatio
        ``ratio``, its 95% (``ci_low``, ``ci_high``) and 90% intervals, and ``equivalent(m)``:
        the two one-sided tests against a ratio margin m.
    """
    outcomes = _outcomes(runs)
    return _budget_ratio(outcomes.outcomes(_cell_id(outcomes, a, runs)),
                         outcomes.outcomes(_cell_id(outcomes, b, runs)), outcomes.budgets, target)


def plot_accuracy(table: pd.DataFrame, ax: Any = None) -> Any:
    """Accuracy against budget, a line per cell with its interval as a band, log budget axis.

    Parameters
    ----------
    table : pandas.DataFrame
        An ``accuracy`` table.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure if omitted.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from figures.style import OKABE_ITO

    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    for i, (_, rows) in enumerate(table.groupby("cell", sort=True)):
        first = rows.iloc[0]
        colour = OKABE_ITO[i % len(OKABE_ITO)]
        label = f"{first['algorithm']}, lr {first['lr']:g}, {first['baseline']}"
        ax.plot(rows["budget"], rows["accuracy"], marker="o", color=colour, label=label)
        ax.fill_between(rows["budget"], rows["ci_low"], rows["ci_high"], color=colour,
                        alpha=0.25, linewidth=0)
    ax.set_xscale("log")
    ax.set_xlabel("budget (rollouts)")
    ax.set_ylabel("best-arm accuracy")
    ax.set_title("bands: the table's intervals over seeds (ci_low to ci_high)",
                 fontsize="small")
    ax.legend(fontsize="small")
    return ax.figure


def plan_binomial(accuracy: float, chance: float, power: float = 0.8,
                  alpha: float = ALPHA) -> Plan:
    """Seeds the one-sided exact binomial test of accuracy > chance needs.

    Parameters
    ----------
    accuracy : float
        The accuracy to detect, stated before the run.
    chance : float
        The never-training sampler's accuracy (1/K for one best arm of K).
    power, alpha : float
        Target power and level of the test.

    Returns
    -------
    Plan
        ``n_exact`` (smallest n from which the exact power stays >= ``power``), ``n_first``,
        ``n_normal`` (normal approximation) and the exact power there.
    """
    return _plan.plan_binomial(accuracy, chance, power, alpha)


def plan_mcnemar(only_a: float, only_b: float, power: float = 0.8,
                 alpha: float = ALPHA) -> Plan:
    """Seeds the two-sided exact McNemar test of two cells on the same seeds needs.

    Parameters
    ----------
    only_a, only_b : float
        Stated shares of seeds only cell A, and only cell B, gets right (their difference is the
        accuracy difference, their sum the discordance).
    power, alpha : float

    Returns
    -------
    Plan
    """
    return _plan.plan_mcnemar(only_a, only_b, power, alpha)


def plan_ratio(pilot: pd.DataFrame | Study, a: int | Mapping[str, object],
               b: int | Mapping[str, object], ratio: float, margin: float | None = None,
               power: float = 0.8) -> RatioPlan:
    """Seeds the paired bootstrap test of two cells' budgets to 0.9 needs, from a pilot.

    Parameters
    ----------
    pilot : pandas.DataFrame or Study
        A pilot study's runs table, or the study ``load`` read.
    a, b : int or dict
        The two cells, by id or by column values.
    ratio : float
        A's budget over B's to plan for, stated before the run (the pilot gives the curves'
        shapes and the seeds' pairing, never the effect).
    margin : float, optional
        Plan the equivalence test (ratio within [1 / margin, margin]) instead of the difference.
    power : float
        The power to reach.

    Returns
    -------
    RatioPlan
        ``n_exact`` (Monte Carlo power of the study's own test), ``n_normal`` and the power at
        each n tried.

    Raises
    ------
    ValueError
        With the CLI's reason, after the argument's name ("b: ..."), where the pilot cannot
        serve: a cell that does not reach 0.9 by its largest budget or is there from its first
        checkpoint, the same cell twice, or two cells with different numbers of seeds.
    """
    # The CLI's reasons, each under the argument's name as there.
    outcomes = _outcomes(pilot)
    cell_a, cell_b = _cell_id(outcomes, a, pilot), _cell_id(outcomes, b, pilot)
    checked = {}
    for name, cell in (("a", cell_a), ("b", cell_b)):
        try:
            checked[name] = _plan.ratio_pilot(outcomes, cell)
        except ValueError as error:
            raise ValueError(f"{name}: {error}") from None
    (correct_a, budgets_a), (correct_b, budgets_b) = checked["a"], checked["b"]
    try:
        _plan.check_pair(cell_a, cell_b, correct_a, correct_b)
    except ValueError as error:
        raise ValueError(f"b: {error}") from None
    return _plan.plan_ratio(correct_a, correct_b, budgets_a, budgets_b, ratio, margin, power)
