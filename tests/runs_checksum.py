"""A checksum of each column of a runs table, for the output-identity test
(``test_output_identity.py``): SHA-256 of the column's values as little-endian bytes (numbers and
booleans) or as newline-joined UTF-8 text (strings), so it depends on the values only, not on the
Parquet file's layout or pandas' hashing."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parent.parent
STORED = Path(__file__).resolve().parent / "data" / "runs_checksums.json"
"""The stored checksums: per config (a path relative to the repository), its seeds (None: the
config's own), whether ``make test-fast`` checks it, its rows and its columns' checksums."""


def column_checksums(runs: pd.DataFrame, columns: list[str]) -> dict[str, str]:
    """{column: SHA-256 hex digest of its values}."""
    found = {}
    for name in columns:
        values = runs[name].to_numpy()
        if values.dtype == object:
            data = "\n".join(map(str, values)).encode()
        else:
            data = np.ascontiguousarray(values.astype(values.dtype.newbyteorder("<"))).tobytes()
        found[name] = f"{values.dtype.str}:{hashlib.sha256(data).hexdigest()}"
    return found


def reward_parameters(runs: pd.DataFrame) -> list[tuple[float, ...]]:
    """Each row's reward model's parameters in its declared order, from their named columns: what
    the runs table's list column ``reward_parameters`` held before the parameters became columns
    of their own, so that its stored checksum still guards them."""
    from study.model import registry

    found: list[tuple[float, ...]] = [()] * len(runs)
    models = runs["reward_model"].to_numpy()
    for model in pd.unique(models):
        rows = np.flatnonzero(models == model)
        columns = [runs[p.name].to_numpy(dtype=float)[rows].tolist()
                   for p in registry.reward_model(model).parameters]
        for at, parameters in zip(rows, zip(*columns, strict=True), strict=False):
            found[at] = parameters
    return found


def study_checksums(config_path: str, seeds: int | None, folder: Path) -> dict[str, object]:
    """Run the config at ``config_path`` (relative to the repository; with ``seeds`` seeds when
    not None) into ``folder`` and return its rows and the checksum of every column of its runs
    table (and of its curves, if it has them), ``reward_parameters`` rebuilt from the named
    columns (``reward_parameters``)."""
    from study.model.config import load_config
    from study.model.schema import CURVES_FILE
    from study.orchestration.outputs import run_and_write
    from study.orchestration.storage import read_runs

    config = load_config(REPO / config_path)
    if seeds is not None:
        config = config.with_seeds(seeds)
    run_and_write(config, folder, quiet=True)
    runs = read_runs(folder)
    runs["reward_parameters"] = reward_parameters(runs)
    found: dict[str, object] = {"rows": len(runs),
                                "columns": column_checksums(runs, list(runs.columns))}
    if (folder / CURVES_FILE).exists():
        curves = pd.read_parquet(folder / CURVES_FILE)
        found["curves"] = column_checksums(curves, list(curves.columns))
    return found


def main() -> None:
    """Recompute ``data/runs_checksums.json`` from this checkout's own runs (every column), on the
    configs, seeds and sets (``fast``: in ``make test-fast`` too) already stored there:
    ``python tests/runs_checksum.py COMMIT``. Only for a change that is meant to change the
    outputs, or to add a config (an entry with its ``seeds`` and ``fast`` and nothing else); say
    why in the commit."""
    import json
    import sys
    import tempfile

    stored = json.loads(STORED.read_text())
    studies = {}
    with tempfile.TemporaryDirectory() as folder:
        for index, (config_path, before) in enumerate(stored["studies"].items()):
            studies[config_path] = {"seeds": before["seeds"], "fast": before["fast"],
                                    **study_checksums(config_path, before["seeds"],
                                                      Path(folder) / str(index))}
    source = f"runs tables written by commit {sys.argv[1]}, on the configs and seeds below"
    STORED.write_text(json.dumps({"source": source, "studies": studies}, indent=2) + "\n")


if __name__ == "__main__":
    main()
