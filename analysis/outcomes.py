"""A study's outcomes in the one shape every analysis reads: a table of its cells and arrays of
shape (cells, seeds, checkpoints).

Every cell of a study runs on the same seeds and is recorded at the same budget checkpoints, so
a per-cell (seeds, checkpoints) matrix is a slice of an array, never a pivot of the runs table.
The arrays hold only what the analysis reads (about 14 bytes a run and checkpoint), and
``Outcomes.load`` fills them one row group at a time, so a study of 50 million rows is never a
DataFrame in memory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from study.model import registry
from study.model.schema import (
    CELL_COLUMNS,
    OFFPOLICY_CELL_COLUMNS,
    RUNS_FILE,
    TOKEN_CELL_COLUMNS,
)
from study.orchestration.storage import read_cells

ARRAY_COLUMNS = {"correct": np.bool_, "finite": np.bool_, "greedy_value": np.float64,
                 # A count of updates: int32 holds any budget a study runs, in half the bytes.
                 "zero_signal_updates": np.int32,
                 # Single precision: its rounding (6e-8 relative) is four orders below the
                 # smallest seed-to-seed spread of a pass rate the analysis compares, and it
                 # keeps the largest study's arrays a fifth smaller than doubles would.
                 "pass_rate": np.float32}
"""The run columns kept per (cell, seed, checkpoint), and the type each is kept as."""
READ_COLUMNS = ("cell", "seed", "budget", "rollouts", "best_value", *ARRAY_COLUMNS)
"""The columns of ``runs.parquet`` the analysis reads."""
ANSWER_COLUMNS = {"rollouts": np.int64, "tokens": np.float64, "expected_length": np.float64,
                  "p_best": np.float64}
"""The run columns kept per (cell, seed, checkpoint) of a study whose answers cost tokens
(``study.model.schema.TOKEN_RUN_COLUMNS``): what each run spent by each checkpoint, its policy's
expected answer length, and its policy's mass on the best arms (which says whether it
collapsed onto another)."""


@dataclass(frozen=True)
class Answers:
    """What each run of a study whose answers cost tokens spent by each checkpoint, arrays of
    shape (cells, seeds, checkpoints): ``rollouts``, ``tokens``, the policy's expected answer
    length ``expected_length`` and its mass on the best arms ``p_best`` (NaN for a learner
    without a policy)."""

    rollouts: np.ndarray
    tokens: np.ndarray
    expected_length: np.ndarray
    p_best: np.ndarray

    def only(self, rows: np.ndarray) -> Answers:
        """The rows ``rows`` of the arrays' first axis."""
        return Answers(self.rollouts[rows], self.tokens[rows], self.expected_length[rows],
                       self.p_best[rows])


@dataclass(eq=False)
class Outcomes:
    """A study's outcomes.

    ``cells``: one row per cell in cell order, the columns ``study.model.schema.CELL_COLUMNS``
    (``arm_values`` and ``draw_parameters`` as tuples; and ``arm_lengths`` and ``length_law``
    where answers cost tokens); ``seeds`` and ``budgets``: the sorted
    seed ids and checkpoints every cell shares; ``correct``, ``finite``, ``greedy_value``,
    ``zero_signal`` and ``pass_rate`` (NaN for a learner without a policy): arrays of shape
    (cells, seeds, checkpoints); ``rollouts``: the rollouts each cell has spent by each
    checkpoint, (cells, checkpoints); ``best_value``: each seed's largest arm value, (cells,
    seeds); ``answers``: for a study whose answers cost tokens, what each run spent
    (``Answers``; its rollouts differ by seed, so ``rollouts`` is not read), else None. Seeds are
    selected everywhere by a boolean mask over ``seeds`` (``halves``, ``mask``).
    """

    cells: pd.DataFrame
    seeds: np.ndarray
    budgets: np.ndarray
    correct: np.ndarray
    finite: np.ndarray
    greedy_value: np.ndarray
    zero_signal: np.ndarray
    rollouts: np.ndarray
    pass_rate: np.ndarray
    best_value: np.ndarray
    answers: Answers | None = None
    _rows: dict[int, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._rows = {int(c): i for i, c in enumerate(self.cells["cell"])}

    @classmethod
    def from_runs(cls, frame: pd.DataFrame) -> Outcomes:
        """From a tidy runs table (``study.model.schema.RUNS_COLUMNS``, at least the cell columns
        and ``READ_COLUMNS``); ValueError unless it is exactly one row per (cell, seed,
        checkpoint) with every cell on the same seeds and checkpoints."""
        missing = [c for c in (*CELL_COLUMNS, *READ_COLUMNS) if c not in frame]
        if missing:
            raise ValueError(f"the runs table has no column {', '.join(missing)}")
        keys = [frame[c].to_numpy() for c in ("cell", "seed", "budget")]
        uniques = [np.unique(k) for k in keys]
        shape = tuple(len(u) for u in uniques)
        if not _is_grid(keys, uniques, shape):
            # A table written by the study is in this order already; a hand-made one may not be.
            order = np.lexsort(keys[::-1])
            frame = frame.iloc[order]
            keys = [k[order] for k in keys]
            if not _is_grid(keys, uniques, shape):
                raise ValueError("the runs table is not one row per (cell, seed, checkpoint)")
        cells = frame.drop_duplicates("cell")[_described(frame)].reset_index(drop=True)
        # Text columns may be categoricals (``read_runs``: a few bytes a row); one row per cell
        # holds them as text, as ``load`` reads them.
        cells = cells.astype({name: column.cat.categories.dtype for name, column in cells.items()
                              if isinstance(column.dtype, pd.CategoricalDtype)})
        arrays = {name: frame[name].to_numpy(dtype=dtype).reshape(shape)
                  for name, dtype in ARRAY_COLUMNS.items()}
        answers = (Answers(*(frame[name].to_numpy(dtype=dtype).reshape(shape)
                             for name, dtype in ANSWER_COLUMNS.items()))
                   if "tokens" in frame else None)
        return cls(cells, uniques[1].astype(np.int64), uniques[2].astype(np.int64),
                   arrays["correct"], arrays["finite"], arrays["greedy_value"],
                   arrays["zero_signal_updates"],
                   frame["rollouts"].to_numpy(dtype=np.int64).reshape(shape)[:, 0, :].copy(),
                   arrays["pass_rate"],
                   frame["best_value"].to_numpy(dtype=np.float64).reshape(shape)[:, :, 0].copy(),
                   answers)

    @classmethod
    def load(cls, run_dir: Path) -> Outcomes:
        """From the files a study wrote into ``run_dir``: ``cells.parquet`` (``read_cells``, which
        checks that it is the runs table's) and the columns
        ``READ_COLUMNS`` of ``runs.parquet`` (ordered by cell, seed and checkpoint), read a batch
        at a time into arrays allocated once; ValueError unless the rows are one per (cell, seed,
        checkpoint) in that order, every cell on the first cell's seeds and checkpoints."""
        cells = read_cells(run_dir)
        cells = cells[_described(cells)]
        source = pq.ParquetFile(run_dir / RUNS_FILE)
        per_cell = source.metadata.num_rows // max(len(cells), 1)
        first = _first_rows(source, per_cell)
        seeds, budgets = np.unique(first["seed"]), np.unique(first["budget"])
        shape = (len(cells), len(seeds), len(budgets))
        if source.metadata.num_rows != math.prod(shape):
            raise ValueError(f"has a {RUNS_FILE} that is not one row per (cell, seed, "
                             f"checkpoint) of {len(cells)} cells")
        counted = "tokens" in source.schema_arrow.names
        kept = {**ARRAY_COLUMNS, **({f"answer_{name}": dtype for name, dtype
                                     in ANSWER_COLUMNS.items()} if counted else {})}
        arrays = {name: np.empty(shape, dtype=dtype) for name, dtype in kept.items()}
        rollouts = np.empty(shape[::2], dtype=np.int64)
        best_value = np.empty(shape[:2])
        flat = {name: array.reshape(-1) for name, array in arrays.items()}
        ids = cells["cell"].to_numpy(dtype=np.int64)
        start = 0
        read = [*READ_COLUMNS, *(("tokens", "expected_length", "p_best") if counted else ())]
        for batch in source.iter_batches(columns=read):
            rows = np.arange(start, start + batch.num_rows)
            column = {name: batch.column(name).to_numpy(zero_copy_only=False) for name in read}
            column |= {f"answer_{name}": column[name] for name in ANSWER_COLUMNS
                       if counted}
            cell, rest = np.divmod(rows, per_cell)
            seed, budget = np.divmod(rest, len(budgets))
            if not (np.array_equal(column["cell"], ids[cell])
                    and np.array_equal(column["seed"], seeds[seed])
                    and np.array_equal(column["budget"], budgets[budget])):
                raise ValueError(f"has a {RUNS_FILE} whose rows {start} to "
                                 f"{start + batch.num_rows - 1} are not in (cell, seed, "
                                 "checkpoint) order on the first cell's seeds and checkpoints")
            for name, array in flat.items():
                array[start:start + batch.num_rows] = column[name]
            rollouts[cell, budget] = column["rollouts"]
            best_value[cell, seed] = column["best_value"]
            start += batch.num_rows
        answers = (Answers(*(arrays[f"answer_{name}"] for name in ANSWER_COLUMNS))
                   if counted else None)
        return cls(cells, seeds.astype(np.int64), budgets.astype(np.int64),
                   arrays["correct"], arrays["finite"], arrays["greedy_value"],
                   arrays["zero_signal_updates"], rollouts, arrays["pass_rate"], best_value,
                   answers)

    def row(self, cell: int) -> int:
        """The position of ``cell`` (its id) along the arrays' first axis."""
        return self._rows[int(cell)]

    def outcomes(self, cell: int, seeds: np.ndarray | None = None) -> np.ndarray:
        """(seeds, checkpoints) outcomes (right or not) of ``cell``, on the seeds the boolean
        mask ``seeds`` selects (all when None)."""
        found = self.correct[self.row(cell)]
        return found if seeds is None else found[seeds]

    def spent(self, cell: int) -> np.ndarray:
        """The rollouts ``cell`` has spent by each checkpoint; ValueError for a study whose
        answers cost tokens, where they differ by seed (``answers``)."""
        if self.answers is not None:
            raise ValueError("the rollouts spent differ by seed in a study whose answers cost "
                             "tokens: read Outcomes.answers")
        return self.rollouts[self.row(cell)]

    def mean_spent(self, cell: int) -> np.ndarray:
        """The rollouts ``cell`` has spent by each checkpoint (``spent``), or, in a study whose
        answers cost tokens, their mean over its seeds."""
        if self.answers is None:
            return self.spent(cell)
        return self.answers.rollouts[self.row(cell)].mean(axis=0)

    def deployed(self, cell: int) -> np.ndarray:
        """(seeds, checkpoints) value of the arm each run of ``cell`` would deploy, its greedy
        arm's (0 for a state that is not finite, which deploys nothing)."""
        return np.nan_to_num(self.greedy_value[self.row(cell)], nan=0.0)

    def halves(self) -> tuple[np.ndarray, np.ndarray]:
        """Masks of the even seeds (which choose a best cell) and of the odd ones (which test
        it)."""
        odd = self.seeds % 2 == 1
        return ~odd, odd

    def mask(self, seeds: np.ndarray) -> np.ndarray:
        """The mask over ``self.seeds`` of the seed ids ``seeds``."""
        return np.isin(self.seeds, seeds)

    def only(self, cells: list[int]) -> Outcomes:
        """The outcomes of ``cells`` alone, in cell order (copies of their rows of the arrays)."""
        rows = np.sort([self.row(c) for c in cells])
        return Outcomes(self.cells.iloc[rows].reset_index(drop=True), self.seeds, self.budgets,
                        self.correct[rows], self.finite[rows], self.greedy_value[rows],
                        self.zero_signal[rows], self.rollouts[rows], self.pass_rate[rows],
                        self.best_value[rows],
                        None if self.answers is None else self.answers.only(rows))


def _described(frame: pd.DataFrame) -> list[str]:
    """The cell columns of ``frame`` the analysis reads: ``CELL_COLUMNS``, the answers' lengths
    where they cost tokens (``TOKEN_CELL_COLUMNS``) and an off-policy learner's sampler and
    update (``OFFPOLICY_CELL_COLUMNS``), and the named parameters (``study.model.schema``) of
    the cells' reward models and of the verdicts a shaping names
    (``study.model.environment.Environment.verdict``); the correction's named parameters are
    the notebook API's (``bandit_study.api.cells``)."""
    models = list(pd.unique(frame["reward_model"]))
    if "verdict" in frame:
        shaping = frame["reward_model"].map({m: registry.reward_model(m).lengths for m in models})
        models += list(pd.unique(frame.loc[shaping.astype(bool), "verdict"]))
    named = [p.name for model in models for p in registry.reward_model(model).parameters]
    return [c for c in dict.fromkeys((*TOKEN_CELL_COLUMNS, *OFFPOLICY_CELL_COLUMNS, *named))
            if c in frame]


def _is_grid(keys: list[np.ndarray], uniques: list[np.ndarray],
             shape: tuple[int, ...]) -> bool:
    """Whether the rows' (cell, seed, budget) are every combination of the unique values, each
    once, in that order."""
    if len(keys[0]) != math.prod(shape):
        return False
    grid = (slice(None), None, None), (None, slice(None), None), (None, None, slice(None))
    return all(np.array_equal(key.reshape(shape), np.broadcast_to(unique[axis], shape))
               for key, unique, axis in zip(keys, uniques, grid, strict=True))


def _first_rows(source: pq.ParquetFile, rows: int) -> dict[str, np.ndarray]:
    """The seed and budget columns of the first ``rows`` rows (the first cell's)."""
    parts: dict[str, list[np.ndarray]] = {"seed": [], "budget": []}
    taken = 0
    for batch in source.iter_batches(columns=list(parts)):
        for name, part in parts.items():
            part.append(batch.column(name).to_numpy()[:rows - taken])
        taken += min(batch.num_rows, rows - taken)
        if taken == rows:
            break
    return {name: np.concatenate(part) for name, part in parts.items()}
