"""Writing a study's outputs so that a reader never sees a half-written file.

Each file is written under a temporary name in its destination folder and then renamed over the
final name (``os.replace`` is atomic on one file system); on any failure the temporary files are
removed and earlier results stay as they were.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

RUNS_FILE = "runs.parquet"
MANIFEST_FILE = "manifest.json"
CURVES_FILE = "curves.parquet"


def _parquet_writer(frame: pd.DataFrame) -> Callable[[Path], None]:
    table = pa.Table.from_pandas(frame, preserve_index=False)
    return lambda path: pq.write_table(table, path)


def write_study(out_dir: Path, runs: pd.DataFrame, manifest: dict[str, Any],
                curves: pd.DataFrame | None = None) -> None:
    """Write ``runs.parquet``, ``curves.parquet`` (when the study records curves; otherwise an
    old one is removed, so no stale curves sit beside new runs) and ``manifest.json`` into
    ``out_dir`` (created if missing)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    writers: list[tuple[Path, Callable[[Path], None]]] = [
        (out_dir / RUNS_FILE, _parquet_writer(runs)),
        (out_dir / MANIFEST_FILE,
         lambda path: path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")),
    ]
    if curves is not None:
        writers.insert(1, (out_dir / CURVES_FILE, _parquet_writer(curves)))
    temporary = [(final.with_name(f".{final.name}.{os.getpid()}.tmp"), final, write)
                 for final, write in writers]
    try:
        for temp, _, write in temporary:
            write(temp)
        for temp, final, _ in temporary:
            os.replace(temp, final)
        if curves is None:
            (out_dir / CURVES_FILE).unlink(missing_ok=True)
    finally:
        for temp, _, _ in temporary:
            temp.unlink(missing_ok=True)


def read_runs(out_dir: Path) -> pd.DataFrame:
    """The runs table a study wrote into ``out_dir``."""
    return pd.read_parquet(out_dir / RUNS_FILE)
