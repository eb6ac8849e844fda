"""The Python API: the README's notebook example runs as printed, and the API is the CLI's code
(same validation, same cache, same results); the console command is installed."""

from __future__ import annotations

import importlib.metadata
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import bandit_study.api as bandits
from analysis.budget_to_target import budget_to_target
from analysis.outcomes import Outcomes
from analysis.plan import plan_binomial
from bandit_study.cli import main
from conftest import REPO
from study.model.schema import CELLS_FILE, RUNS_FILE, STORED_RUN_COLUMNS
from study.orchestration.storage import read_cells

CONFIG = {"study": {"name": "api_check", "root_seed": 11, "seeds": 64},
          "grid": {"probs": [[0.5, 0.7]], "lr": [0.5], "budgets": [10, 100]}}
TOML = """[study]
name = "api_check"
root_seed = 11
seeds = 64

[grid]
probs = [[0.5, 0.7]]
lr = [0.5]
budgets = [10, 100]
"""


def readme_example() -> str:
    """The Python block of the README's section "From Python (notebooks)"."""
    readme = (REPO / "README.md").read_text()
    section = readme.split("### From Python (notebooks)", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    exec(compile(readme_example(), "README.md", "exec"), namespace)
    table = namespace["table"]
    assert (tmp_path / "out" / "two_arms" / "accuracy.png").stat().st_size > 1000
    assert set(table["lr"]) == {0.1, 1.0} and set(table["budget"]) == {10, 100, 1000}
    # Each interval holds its accuracy; the printed table is the README's.
    assert ((table["ci_low"] <= table["accuracy"]) & (table["accuracy"] <= table["ci_high"])).all()
    assert "ci_high" in capsys.readouterr().out


def test_the_api_is_the_cli(tmp_path: Path) -> None:
    runs = bandits.run(CONFIG, out=tmp_path / "api")
    (tmp_path / "api_check.toml").write_text(TOML)
    assert main(["run", str(tmp_path / "api_check.toml"), "--out", str(tmp_path / "cli"),
                 "--quiet"]) == 0
    from_cli = pd.read_parquet(tmp_path / "cli" / RUNS_FILE)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "api" / RUNS_FILE), from_cli)
    loaded = bandits.load(tmp_path / "api")
    assert loaded.manifest["config"]["name"] == "api_check" and len(loaded.runs) == len(runs)
    # The same config again reuses every shard of the cache.
    bandits.run(CONFIG, out=tmp_path / "api")
    assert bandits.load(tmp_path / "api").manifest["shards_reused"] == \
        bandits.load(tmp_path / "api").manifest["shards"]
    cell = bandits.cell(runs, algorithm="reinforce")
    compared = bandits.compare(runs, cell, cell)
    assert (compared["difference"] == 0).all() and (compared["p_value"] == 1).all()
    # The analysis functions are the package's own, on the cell the selector picks.
    assert bandits.budget_to_target(runs, {"algorithm": "reinforce"}) == \
        budget_to_target(Outcomes.from_runs(runs).outcomes(cell), [10, 100])
    # A cell against itself: ratio 1, or NaN where it never reaches 0.9 (then neither does).
    ratio = bandits.budget_ratio(runs, cell, cell).ratio
    assert ratio == 1 or math.isnan(ratio)
    assert bandits.plan_binomial(0.6, 1 / 3) == plan_binomial(0.6, 1 / 3)
    # The ratio planner checks the pilot as the CLI does: this cell reaches 0.9 between its two
    # checkpoints, so it passes as a pilot, and twice it is no pair.
    assert 10 < bandits.budget_to_target(runs, cell).estimate < 100
    with pytest.raises(ValueError, match=rf"^b: is cell {cell}, the same as a$"):
        bandits.plan_ratio(runs, cell, cell, 1.5)


def test_load_keeps_the_description_once_per_cell(tmp_path: Path) -> None:
    """``load`` keeps the cells apart from the runs (a 10,000-seed study's runs once took 3.3 GB,
    its list columns repeated on every row), and every function gives on the ``Study`` what it
    gives on the tidy table."""
    config = {"study": {"name": "api_load", "root_seed": 5, "seeds": 64},
              "grid": {"algorithm": ["reinforce", "uniform"], "probs": [[0.5, 0.7]],
                       "means": [[0.0, 0.5, 1.0], {"draw": "normal", "mean": 0.0, "arms": 4}],
                       "lr": [0.5, 2.0], "budgets": [10, 100, 1000]}}
    tidy = bandits.run(config, out=tmp_path / "out")
    study = bandits.load(tmp_path / "out")
    runs = study.runs
    # Per row, the cell's id and the run's numbers: no text, list or other object, so its bytes
    # are its columns' widths (114 a row), not a copy of the description per row.
    assert list(runs.columns) == list(STORED_RUN_COLUMNS)
    assert {dtype.kind for dtype in runs.dtypes} <= set("biuf")
    width = sum(dtype.itemsize for dtype in runs.dtypes)
    assert runs.memory_usage(deep=True, index=False).sum() == width * len(runs)
    assert width <= 114
    pd.testing.assert_frame_equal(study.cells, read_cells(tmp_path / "out"))
    assert len(study.cells) == 9 and len(runs) == len(tidy)
    # Joined again, the description is the tidy table's (categoricals, shared tuples).
    pd.testing.assert_frame_equal(study.tidy(), tidy)
    pd.testing.assert_frame_equal(study.tidy(["lr", "seed"]), tidy[["lr", "seed"]])
    # Every function that takes runs gives the same on the study.
    pd.testing.assert_frame_equal(bandits.cells(study), bandits.cells(tidy))
    where = {"algorithm": "reinforce", "lr": 2.0, "environment": "0.5,0.7"}
    assert bandits.cell(study, **where) == bandits.cell(tidy, **where)
    for method in ("wilson", "exact"):
        pd.testing.assert_frame_equal(bandits.accuracy(study, method=method),
                                      bandits.accuracy(tidy, method=method))
    a, b = {"algorithm": "uniform", "environment": "0.5,0.7"}, bandits.cell(tidy, **where)
    pd.testing.assert_frame_equal(bandits.compare(study, a, b), bandits.compare(tidy, a, b))
    seeds = np.arange(1, 64, 2)
    pd.testing.assert_frame_equal(bandits.compare(study, a, b, seeds),
                                  bandits.compare(tidy, a, b, seeds))
    for chosen in study.cells["cell"]:
        assert repr(bandits.budget_to_target(study, chosen)) == \
            repr(bandits.budget_to_target(tidy, chosen))
    assert repr(bandits.budget_ratio(study, a, b)) == repr(bandits.budget_ratio(tidy, a, b))
    planned = []
    for pilot in (study, tidy):
        try:
            planned.append(repr(bandits.plan_ratio(pilot, 0, b, 1.5)))
        except ValueError as error:
            planned.append(str(error))
    assert planned[0] == planned[1]
    # The runs alone lack the description, and say where it is.
    with pytest.raises(ValueError, match=r"pass the Study that load returned"):
        bandits.accuracy(runs)
    # Cells written with the runs (same hash) but without some of their ids are refused.
    cells_file = tmp_path / "out" / CELLS_FILE
    table = pq.read_table(cells_file)
    pq.write_table(table.slice(0, len(table) - 1), cells_file)
    with pytest.raises(bandits.ConfigError, match=r"^out: .* has cells that the cells table"):
        bandits.load(tmp_path / "out")


def test_the_api_raises_the_clis_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = {**CONFIG, "grid": {**CONFIG["grid"], "lr": [-1]}}
    with pytest.raises(bandits.ConfigError) as raised:
        bandits.run(bad, out=tmp_path / "bad")
    (tmp_path / "bad.toml").write_text(TOML.replace("lr = [0.5]", "lr = [-1]"))
    assert main(["run", str(tmp_path / "bad.toml"), "--out", str(tmp_path / "bad_cli")]) == 2
    assert capsys.readouterr().err.strip() == f"error: {raised.value}"
    assert not (tmp_path / "bad").exists()
    with pytest.raises(bandits.ConfigError, match=r"^out: .* has no runs\.parquet"):
        bandits.load(tmp_path)


def test_the_console_command_is_installed() -> None:
    found = [e for e in importlib.metadata.entry_points(group="console_scripts")
             if e.name == "bandit-study"]
    assert [e.value for e in found] == ["bandit_study.cli:main"]
    script = Path(sys.executable).parent / "bandit-study"
    done = subprocess.run([str(script), "summarize", str(REPO / "no-such-folder")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: dir: ")


def test_the_api_selects_and_keeps_an_offpolicy_studys_columns(tmp_path: Path) -> None:
    """``cell``, ``compare`` and ``accuracy`` on an off-policy study select by its sampler's
    columns and keep them; a key that is no cell column is a ValueError naming it."""
    config = {"study": {"name": "api_offpolicy", "root_seed": 5, "seeds": 16},
              "grid": {"probs": [[0.5, 0.55, 0.6]], "lr": [1.0], "baseline": ["group_mean"],
                       "group_size": [4], "lag": [0, 4], "correction": ["none", "tis"],
                       "budgets": [40, 400]}}
    bandits.run(config, out=tmp_path / "run")
    study = bandits.load(tmp_path / "run")
    assert {"lag", "correction"} <= set(bandits.cells(study))
    stale = bandits.cell(study, lag=4, correction="tis")
    fresh = bandits.cell(study, lag=0, correction="tis")
    assert stale != fresh
    table = bandits.compare(study, {"lag": 4, "correction": "tis"},
                            {"lag": 0, "correction": "tis"})
    assert list(table["budget"]) == [40, 400]
    accuracy = bandits.accuracy(study)
    assert {"lag", "correction"} <= set(accuracy)
    row = accuracy[(accuracy["cell"] == stale) & (accuracy["budget"] == 400)].iloc[0]
    assert (row["lag"], row["correction"]) == (4, "tis")
    # The tidy table selects the same cell, also by the correction's named parameter.
    assert bandits.cell(study.tidy(), lag=4, correction="tis") == stale
    assert bandits.cell(study, lag=4, tis_cap=2.0) == stale
    assert bandits.cell(study.tidy(), lag=4, tis_cap=2.0) == stale
    with pytest.raises(ValueError, match="'lagg'"):
        bandits.cell(study, lagg=4)
