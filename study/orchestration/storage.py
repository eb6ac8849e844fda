"""A study's output files: written together and atomically (``study.spec.atomic``), read back with
the columns the data contract names (``study.spec.schema``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from study.spec.atomic import Writer, write_files
from study.spec.schema import CURVES_FILE, LIST_COLUMNS, MANIFEST_FILE, RUNS_FILE


def _parquet_writer(frame: pd.DataFrame) -> Writer:
    table = pa.Table.from_pandas(frame, preserve_index=False)
    for name in LIST_COLUMNS:
        if name in table.column_names:
            # A study of drawn environments only has nothing but empty lists, which pyarrow would
            # type as list<null>; the contract says list<double>.
            table = table.set_column(table.column_names.index(name), name,
                                     table.column(name).cast(pa.list_(pa.float64())))
    return lambda path: pq.write_table(table, path)


def write_study(out_dir: Path, runs: pd.DataFrame, manifest: dict[str, Any],
                curves: pd.DataFrame | None = None) -> None:
    """Write ``runs.parquet``, ``curves.parquet`` (when the study records curves; otherwise an
    old one is removed, so no stale curves sit beside new runs) and ``manifest.json`` into
    ``out_dir`` (created if missing)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    files: dict[Path, Writer] = {out_dir / RUNS_FILE: _parquet_writer(runs)}
    if curves is not None:
        files[out_dir / CURVES_FILE] = _parquet_writer(curves)
    text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    files[out_dir / MANIFEST_FILE] = lambda path: path.write_text(text)
    write_files(files)
    if curves is None:
        (out_dir / CURVES_FILE).unlink(missing_ok=True)


def read_runs(out_dir: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """The runs table a study wrote into ``out_dir`` (``columns``: only those). The list columns
    hold one value per cell, so they are read once per cell and shared as tuples, instead of one
    array object per row."""
    wanted = list(columns or pq.read_schema(out_dir / RUNS_FILE).names)
    lists = [name for name in LIST_COLUMNS if name in wanted]
    scalars = [name for name in wanted if name not in lists]
    frame = pd.read_parquet(out_dir / RUNS_FILE,
                            columns=scalars if "cell" in scalars or not lists else
                            ["cell", *scalars])
    if lists:
        table = pq.read_table(out_dir / RUNS_FILE, columns=["cell", *lists])
        cells, first = np.unique(table.column("cell").to_numpy(), return_index=True)
        for name in lists:
            values = table.column(name)
            per_cell = {int(cell): tuple(values[int(row)].as_py())
                        for cell, row in zip(cells, first, strict=True)}
            frame[name] = frame["cell"].map(per_cell)
        frame = frame[wanted]
    return frame


def read_manifest(out_dir: Path) -> dict[str, Any]:
    """The manifest a study wrote into ``out_dir``."""
    return json.loads((out_dir / MANIFEST_FILE).read_text())
