"""The runs tables do not change when the code is reorganised or made faster: every column of the
tidy runs table (``read_runs``: ``runs.parquet`` joined with ``cells.parquet``, where each cell is
described once) holds the values it held at the commit named in ``tests/data/runs_checksums.json``,
for ``quick``, ``sutton_barto_fig2_5`` (and its curves) and ``budget_sweep`` at 512 seeds (every
learner, every baseline). The checksums are recomputed (``python tests/runs_checksum.py COMMIT``)
only by a change meant to change the outputs: the last added the columns ``pass_rate`` and
``normalization`` (every other column kept its checksum); before it the move of Box-Muller's log,
sine and cosine to fused multiply-adds, which changed only ``p_best`` and ``reward_sum`` of the
Gaussian study ``sutton_barto_fig2_5`` (138 and 33 of its 40,000 rows, by at most 4.5e-16 and
9.1e-13; every arm drawn and greedy pick, and the curves, stayed the same; the file now holds every
column, ``reward_parameters`` too); before it the exponential's move to fused multiply-adds, which
changed only ``p_best`` (in its last bits; every arm drawn, reward and greedy pick stayed the same);
before that the move to Philox4x32 and the polynomial elementary functions, and before that commit
74c5cbc's own files."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from runs_checksum import column_checksums

from study.cli import run_and_write
from study.orchestration.storage import read_runs
from study.spec.config import load_config
from study.spec.paths import CONFIG_DIR
from study.spec.schema import CURVES_FILE

STORED = json.loads((Path(__file__).parent / "data" / "runs_checksums.json").read_text())


@pytest.mark.slow
@pytest.mark.parametrize("study", sorted(STORED["studies"]))
def test_runs_table_columns_are_those_of_the_stored_checksums(study: str,
                                                              tmp_path: Path) -> None:
    expected = STORED["studies"][study]
    config = load_config(CONFIG_DIR / f"{study}.toml")
    if expected["seeds"] is not None:
        config = config.with_seeds(expected["seeds"])
    run_and_write(config, tmp_path / study, quiet=True)
    runs = read_runs(tmp_path / study)
    assert len(runs) == expected["rows"]
    assert column_checksums(runs, list(expected["columns"])) == expected["columns"]
    if "curves" in expected:
        curves = pd.read_parquet(tmp_path / study / CURVES_FILE)
        assert column_checksums(curves, list(expected["curves"])) == expected["curves"]
