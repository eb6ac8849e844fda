"""A checksum of each column of a runs table, for the output-identity test
(``test_output_identity.py``): SHA-256 of the column's values as little-endian bytes (numbers and
booleans) or as newline-joined UTF-8 text (strings), so it depends on the values only, not on the
Parquet file's layout or pandas' hashing."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd


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


def main() -> None:
    """Recompute ``data/runs_checksums.json`` from this checkout's own runs (every column), on the
    studies and seeds already stored there: ``python tests/runs_checksum.py COMMIT``. Only for a
    change that is meant to change the outputs; say why in the commit."""
    import json
    import sys
    import tempfile
    from pathlib import Path

    from study.cli import run_and_write
    from study.orchestration.storage import read_runs
    from study.spec.config import load_config
    from study.spec.paths import CONFIG_DIR
    from study.spec.schema import CURVES_FILE

    path = Path(__file__).parent / "data" / "runs_checksums.json"
    stored = json.loads(path.read_text())
    studies = {}
    with tempfile.TemporaryDirectory() as folder:
        for study, before in stored["studies"].items():
            config = load_config(CONFIG_DIR / f"{study}.toml")
            if before["seeds"] is not None:
                config = config.with_seeds(before["seeds"])
            run_and_write(config, Path(folder) / study, quiet=True)
            runs = read_runs(Path(folder) / study)
            studies[study] = {"seeds": before["seeds"], "rows": len(runs),
                              "columns": column_checksums(runs, list(runs.columns))}
            if "curves" in before:
                curves = pd.read_parquet(Path(folder) / study / CURVES_FILE)
                studies[study]["curves"] = column_checksums(curves, list(curves.columns))
    source = f"runs tables written by commit {sys.argv[1]}, on the configs and seeds below"
    path.write_text(json.dumps({"source": source, "studies": studies}, indent=2) + "\n")


if __name__ == "__main__":
    main()
