"""The ``[analysis]`` table is no part of the simulation, and code finds rows by typed columns."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd

from analysis.roles import Finding, LrRole
from conftest import REPO, config_text
from study.cli import main, write_stamp
from study.spec.config import parse_config

GRID = {"algorithm": ["reinforce", "uniform"], "lr": [0.1, 0.3],
        "baseline": ["running_mean", "per_arm"], "budgets": [10, 50]}
DISPLAY_TEXT_MATCH = re.compile(r"\.str\.(startswith|endswith|contains|match|fullmatch)\(|"
                                r"\[\"(selection|verdict|comparison|family)\"\]\.str\b|"
                                r"\[\"environment\"\]\.split\(")
"""Finding rows by matching display text: a string method over a table's column (``.str.``,
in code or in a query), or splitting a bandit's text to count its arms."""


def with_margin(margin: float) -> str:
    return config_text({"seeds": 40}, **GRID) + f"[analysis]\nequivalence_margin = {margin}\n"


def test_a_margin_is_no_part_of_the_simulation() -> None:
    narrow, wide = parse_config(with_margin(0.01)), parse_config(with_margin(0.2))
    assert narrow.analysis.equivalence_margin != wide.analysis.equivalence_margin
    assert narrow.simulation_text() == wide.simulation_text()
    assert narrow.content_hash() == wide.content_hash()
    assert "equivalence_margin" not in narrow.to_dict()


def test_editing_a_margin_leaves_the_runs_and_changes_the_analysis(tmp_path: Path) -> None:
    config = tmp_path / "study.toml"
    config.write_text(with_margin(0.01))
    stamp = tmp_path / "t" / "simulation.json"
    assert write_stamp(parse_config(config.read_text()), stamp)
    assert main(["run", str(config), "--out", str(tmp_path / "t"), "--quiet"]) == 0
    runs = tmp_path / "t" / "runs.parquet"
    simulated = runs.stat().st_mtime_ns, stamp.stat().st_mtime_ns
    margins = {}
    for margin in (0.01, 0.2):
        config.write_text(with_margin(margin))
        # make's rule for the runs depends on the stamp, which this edit does not rewrite.
        assert not write_stamp(parse_config(config.read_text()), stamp)
        done = subprocess.run([sys.executable, "-m", "analysis", str(tmp_path / "t"), "--config",
                               str(config), "--out", str(tmp_path / "tables")], cwd=REPO,
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        margins[margin] = pd.read_parquet(tmp_path / "tables" / "per_arm_vs_chance.parquet")
    assert (runs.stat().st_mtime_ns, stamp.stat().st_mtime_ns) == simulated
    assert set(margins[0.01]["margin"]) == {0.01} and set(margins[0.2]["margin"]) == {0.2}
    # A wider margin shows more cells equivalent to chance, never fewer.
    assert ((margins[0.2]["finding"] == Finding.EQUIVALENT).sum()
            >= (margins[0.01]["finding"] == Finding.EQUIVALENT).sum())
    budgets = pd.read_parquet(tmp_path / "tables" / "budget_to_target.parquet")
    assert list(budgets["lr_role"].cat.categories) == [role.value for role in LrRole]


def test_the_analysis_refuses_a_config_that_is_not_the_runs(tmp_path: Path) -> None:
    config = tmp_path / "study.toml"
    config.write_text(with_margin(0.01))
    assert main(["run", str(config), "--out", str(tmp_path / "t"), "--quiet"]) == 0
    config.write_text(with_margin(0.01).replace("budgets = [10, 50]", "budgets = [10, 60]"))
    done = subprocess.run([sys.executable, "-m", "analysis", str(tmp_path / "t"), "--config",
                           str(config), "--out", str(tmp_path / "tables")], cwd=REPO,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and not (tmp_path / "tables").exists()
    assert done.stderr.startswith("error: --config: 't' does not describe the simulation")


def test_no_code_finds_rows_by_matching_display_text() -> None:
    found = [f"{path.relative_to(REPO)}:{number}: {line.strip()}"
             for folder in ("analysis", "figures", "tests")
             for path in sorted((REPO / folder).glob("*.py")) if path.name != Path(__file__).name
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if DISPLAY_TEXT_MATCH.search(line)]
    assert found == []
