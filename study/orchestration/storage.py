"""A study's output files, written as the run goes and renamed into place together at its end
(``study.model.atomic``), and read back with the columns the data contract names
(``study.model.schema``).

``runs.parquet`` is written cell by cell through one ``pyarrow.parquet.ParquetWriter`` (a row
group per block of ``ROW_GROUP_SEEDS`` of a cell's seeds), so a run holds
one simulation's results at a time, whatever its seeds; ``cells.parquet`` describes each cell
once. Both carry the hash of the
config that made them (seeds included) in their metadata, so a runs table is never read with
another config's cells; two runs of one config write the same bytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from study.model import population
from study.model.atomic import Writer, remove_stale_temporaries, replacing, write_files
from study.model.grid import Cell
from study.model.offpolicy import OffPolicy
from study.model.schema import (
    ANSWER_CELL_COLUMNS,
    CELL_COLUMNS,
    CELLS_FILE,
    CURVES_FILE,
    DESIGN_ROW,
    LIST_COLUMNS,
    MANIFEST_FILE,
    PROMPTS_CELL_COLUMNS,
    RUNS_FILE,
    SAMPLER_CELL_COLUMNS,
    cell_columns,
)

_TOKEN = b"config_hash"
ROW_GROUP_SEEDS = 4096
"""Seeds per row group of ``runs.parquet`` (all of one cell): a fixed number, so the file's layout
does not depend on the sharding, and small enough that the rows being encoded take the same
memory whatever the study's seeds."""


CELLS_SCHEMA = pa.schema([
    ("cell", pa.int64()), ("algorithm", pa.string()), ("nested", pa.bool_()),
    ("baseline", pa.string()), ("lr", pa.float64()), ("group_size", pa.int64()),
    ("normalization", pa.string()), ("reward_model", pa.string()), ("environment", pa.string()),
    ("arms", pa.int64()), ("draw", pa.string()), ("arm_values", pa.list_(pa.float64())),
    ("draw_parameters", pa.list_(pa.float64())), ("cost", pa.float64())])
"""The types of ``cells.parquet``'s columns (``CELL_COLUMNS``): a study of drawn environments
only has nothing but empty lists, which pyarrow would otherwise type as list<null>."""
assert tuple(CELLS_SCHEMA.names) == CELL_COLUMNS
PART_CELL_TYPES = {"arm_lengths": pa.list_(pa.float64()), "length_law": pa.string(),
                   "verdict": pa.string(), "lag": pa.int64(), "mismatch": pa.float64(),
                   "top_p": pa.float64(), "correction": pa.string(), "kl_beta": pa.float64(),
                   "kl_estimator": pa.string(), "allocation": pa.string(),
                   "prompts": pa.int64()}
"""The types of the cell columns of a study's parts (``study.model.schema.cell_columns``)."""
assert set(PART_CELL_TYPES) == {*ANSWER_CELL_COLUMNS, *SAMPLER_CELL_COLUMNS,
                                *PROMPTS_CELL_COLUMNS}


def cells_schema(*, answers: bool = False, sampler: bool = False,
                 prompts: bool = False) -> pa.Schema:
    """The types of ``cells.parquet``'s columns for a study of these parts
    (``study.model.schema.cell_columns``)."""
    types = {**{f.name: f.type for f in CELLS_SCHEMA}, **PART_CELL_TYPES}
    return pa.schema([(name, types[name]) for name in
                      cell_columns(answers=answers, sampler=sampler, prompts=prompts)])


def cells_table(grid: list[Cell]) -> pa.Table:
    """``cells.parquet``'s content: one row per cell of ``grid`` with its description (and, in a
    many-prompts study, its allocation rule and prompts)."""
    many = any(cell.simulation.allocation for cell in grid)
    counted = any(cell.simulation.environment.lengths is not None for cell in grid)
    off = any(cell.simulation.offpolicy is not None for cell in grid)
    named = [_named_parameters(cell) for cell in grid]
    names = list(dict.fromkeys(name for found in named for name in found))
    designed = any(cell.design_row >= 0 for cell in grid)
    schema = cells_schema(answers=counted, sampler=off, prompts=many)
    # The named parameters (and a design's row) before ``cost``, which stays last.
    schema = pa.schema([*list(schema)[:-1], *((name, pa.float64()) for name in names),
                        *([(DESIGN_ROW, pa.int64())] if designed else []),
                        schema.field("cost")])
    return pa.Table.from_pylist([
        {"cell": cell.index, "algorithm": cell.simulation.algorithm,
         "nested": cell.simulation.learner.nested, "baseline": cell.simulation.baseline,
         "lr": float(cell.simulation.lr), "group_size": cell.simulation.group_size,
         "normalization": cell.normalization,
         **cell.simulation.environment.columns(),
         **({"allocation": cell.simulation.allocation,
             "prompts": cell.simulation.environment.prompts} if many else {}),
         **(_sampler_columns(cell.simulation.offpolicy) if off else {}),
         **{name: found.get(name, math.nan) for name in names},
         **({DESIGN_ROW: cell.design_row} if designed else {}),
         "cost": float(cell.cost)} for cell, found in zip(grid, named, strict=True)],
        schema=schema)


def _named_parameters(cell: Cell) -> dict[str, float]:
    """A cell's parameters by name (``study.model.schema.CELL_COLUMNS``): its reward model's
    (``study.rewards.RewardModel.parameters``), the verdict's it shapes, a population's law's
    (``population_<name>``, ``study.model.population.PARAMETERS``), and its correction's
    (``study.corrections``), each a column of ``cells.parquet`` (NaN where another cell's model
    or correction has it)."""
    environment = cell.simulation.environment
    found = {name: float(value) for name, value in environment.reward_columns().items()
             if name != "verdict"}
    if environment.is_population:
        found |= population.columns(environment.params, environment.arms)
    sampler = cell.simulation.offpolicy
    if sampler is not None:
        for name, value in sampler.parameters:
            # One column per name: a correction's parameter may not take a reward's column.
            if name in found:
                raise ValueError(f"the correction's parameter {name!r} is also the reward's")
            found[name] = float(value)
    return found


def _sampler_columns(sampler: OffPolicy) -> dict[str, object]:
    """An off-policy cell's sampler and update as its cell columns."""
    return {"lag": sampler.lag, "mismatch": float(sampler.mismatch),
            "top_p": float(sampler.top_p), "correction": sampler.correction,
            "kl_beta": float(sampler.kl_beta), "kl_estimator": sampler.kl_estimator}


@dataclass
class StudyWriter:
    """Where a running study puts its cells (``add``) and, once they are all in, its manifest
    and curves; nothing reaches the final names before ``study_files`` ends."""

    runs_path: Path
    token: bytes
    writer: pq.ParquetWriter | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    curves: pd.DataFrame | None = None

    def add(self, table: pa.Table) -> None:
        """Append rows of one cell (columns ``STORED_RUN_COLUMNS``) to ``runs.parquet`` as a row
        group."""
        table = table.replace_schema_metadata({_TOKEN: self.token})
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.runs_path, table.schema)
        self.writer.write_table(table)


@contextmanager
def study_files(out_dir: Path, cells: pa.Table, config_hash: str) -> Iterator[StudyWriter]:
    """Open the output in ``out_dir`` (created if missing) of the config whose
    ``content_hash`` is ``config_hash`` and whose grid is ``cells``. The block adds every row to
    the writer it is given and sets its ``manifest`` and ``curves``; when it ends without an
    error, the old ``runs.parquet`` is removed, ``cells.parquet``, ``curves.parquet`` (removed
    when the run has none, so no stale curves sit beside new runs) and ``manifest.json`` replace
    theirs, and ``runs.parquet`` (the file ``make`` and every reader start from) is renamed into
    place last. Killed or failed before the end, the folder keeps the previous complete output,
    or has no runs table (a kill between the renames): never a runs table beside another run's
    companions."""
    out_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(out_dir)
    token = config_hash.encode()
    with replacing([out_dir / RUNS_FILE]) as (runs_path,):
        writer = StudyWriter(runs_path, token)
        try:
            yield writer
        finally:
            if writer.writer is not None:
                writer.writer.close()
        if writer.writer is None:
            raise ValueError("a study with no cells has no runs table")
        files: dict[Path, Writer] = {
            out_dir / CELLS_FILE: lambda path: pq.write_table(
                cells.replace_schema_metadata({_TOKEN: token}), path)}
        if writer.curves is not None:
            curves = pa.Table.from_pandas(writer.curves, preserve_index=False)
            files[out_dir / CURVES_FILE] = lambda path: pq.write_table(curves, path)
        text = json.dumps(writer.manifest, indent=2, sort_keys=True) + "\n"
        files[out_dir / MANIFEST_FILE] = lambda path: path.write_text(text)
        (out_dir / RUNS_FILE).unlink(missing_ok=True)
        write_files(files)
        if writer.curves is None:
            (out_dir / CURVES_FILE).unlink(missing_ok=True)


class MismatchedRunError(ValueError):
    """``runs.parquet`` and ``cells.parquet`` were not written together."""


class MissingOutputError(ValueError):
    """A study folder without one of the files a finished run writes."""


def read_cells(out_dir: Path) -> pd.DataFrame:
    """The cells of the study in ``out_dir``, one row each, in cell order (the list columns as
    tuples); ``MissingOutputError`` or ``MismatchedRunError`` (ValueErrors whose message says
    what the folder lacks, for a line that names it) unless it holds a runs table and the cells
    written with it."""
    if not (out_dir / RUNS_FILE).is_file():
        raise MissingOutputError(f"has no {RUNS_FILE}")
    if not (out_dir / CELLS_FILE).is_file():
        raise MissingOutputError(f"has no {CELLS_FILE} (an older version of the package wrote "
                                 "it: run the study again)")
    table = pq.read_table(out_dir / CELLS_FILE)
    token = (table.schema.metadata or {}).get(_TOKEN)
    if token is None or token != (pq.read_schema(out_dir / RUNS_FILE).metadata or {}).get(_TOKEN):
        raise MismatchedRunError(f"holds a {RUNS_FILE} and a {CELLS_FILE} that were not "
                                 "written together by one run")
    return cells_to_pandas(table)


def cells_to_pandas(table: pa.Table) -> pd.DataFrame:
    """A cells table as pandas, one row per cell, the list columns as tuples."""
    frame = table.to_pandas()
    for name in LIST_COLUMNS:
        if name in frame:
            frame[name] = [tuple(values) for values in table.column(name).to_pylist()]
    return frame


def tidy(cells: pd.DataFrame, runs: pd.DataFrame, columns: list[str] | None = None
         ) -> pd.DataFrame:
    """The tidy runs table (every description column on every row) from one row per cell and the
    runs keyed by ``cell``; text columns as categoricals and lists as one shared tuple per cell,
    so the description costs a few bytes a row."""
    wanted = list(columns or [*cells.columns, *(c for c in runs.columns if c != "cell")])
    ids = cells["cell"].to_numpy()
    position = np.minimum(np.searchsorted(ids, runs["cell"].to_numpy()), len(ids) - 1)
    if not np.array_equal(ids[position], runs["cell"].to_numpy()):
        raise MismatchedRunError("the runs table has cells that the cells table does not")
    frame = {}
    for name in wanted:
        if name in runs.columns:
            frame[name] = runs[name].to_numpy()
            continue
        values = cells[name]
        if name in LIST_COLUMNS:
            shared = np.empty(len(values), dtype=object)
            shared[:] = list(values)
            frame[name] = shared[position]
        elif values.dtype.kind in "biuf":
            frame[name] = values.to_numpy()[position]
        else:
            categories = pd.Categorical(values)
            frame[name] = pd.Categorical.from_codes(categories.codes[position],
                                                    categories.categories)
    return pd.DataFrame(frame, columns=wanted)


def run_column_names(out_dir: Path) -> list[str]:
    """The columns of ``runs.parquet`` of the study in ``out_dir``, read from its schema."""
    return pq.read_schema(out_dir / RUNS_FILE).names


def read_runs(out_dir: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """The tidy runs table of the study in ``out_dir`` (``columns``: only those), one row per
    (cell, seed, budget checkpoint), and band (or environment of a population) in a
    many-prompts study: ``runs.parquet`` joined with ``cells.parquet`` on ``cell``.
    For a large study read only the columns needed, or one cell at a time with
    ``pyarrow.parquet.read_table(..., filters=[("cell", "==", c)])``."""
    cells = read_cells(out_dir)
    kept = run_column_names(out_dir)
    stored = [c for c in columns or kept if c in kept]
    runs = pq.read_table(out_dir / RUNS_FILE, columns=list(dict.fromkeys(["cell", *stored])))
    return tidy(cells, runs.to_pandas(), columns)


def read_stored_runs(out_dir: Path, cells: pd.DataFrame) -> pd.DataFrame:
    """``runs.parquet`` of the study in ``out_dir`` as stored: ``cell`` and the run columns, one
    row per (cell, seed, budget checkpoint), the description left to ``cells``
    (``read_cells(out_dir)``, which checks that the two were written together);
    ``MismatchedRunError`` if a run's cell is not one of them.
    The columns keep their stored types (numbers and flags, each its own block) and are filled a
    column of a row group at a time into arrays allocated once, so the reading holds the frame
    and a few MB, where ``pyarrow.parquet.read_table(...).to_pandas()`` holds the table twice."""
    known = cells["cell"].to_numpy()
    pool = pa.default_memory_pool()
    with pq.ParquetFile(out_dir / RUNS_FILE, pre_buffer=False) as source:
        arrays = {field.name: np.empty(source.metadata.num_rows,
                                       dtype=field.type.to_pandas_dtype())
                  for field in source.schema_arrow}
        start = 0
        for group in range(source.num_row_groups):
            rows = source.metadata.row_group(group).num_rows
            for name, array in arrays.items():
                values = source.read_row_group(group, columns=[name], use_threads=False)
                array[start:start + rows] = values.column(0).to_numpy()
                del values
                # Give the column's buffers back before the next: the allocator would otherwise
                # keep tens of MB beside the frame.
                pool.release_unused()
            if not np.isin(arrays["cell"][start:start + rows], known).all():
                raise MismatchedRunError("the runs table has cells that the cells table does not")
            start += rows
    return pd.DataFrame(arrays, copy=False)


def read_manifest(out_dir: Path) -> dict[str, Any]:
    """The manifest a study wrote into ``out_dir``."""
    return json.loads((out_dir / MANIFEST_FILE).read_text())
