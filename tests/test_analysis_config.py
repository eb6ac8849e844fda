"""The ``[analysis]`` table is no part of the simulation, and code finds rows by typed columns."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from analysis.__main__ import main as analysis_main
from analysis.roles import Finding, LrRole
from bandit_study.cli import main
from conftest import REPO, config_text
from study.model.config import AnalysisConfig, parse_config
from study.orchestration.outputs import write_stamp

GRID = {"algorithm": ["reinforce", "uniform"], "lr": [0.1, 0.3],
        "baseline": ["running_mean", "per_arm"], "budgets": [10, 50]}
DISPLAY_TEXT_MATCH = re.compile(r"\.str\.(startswith|endswith|contains|match|fullmatch)\(|"
                                r"\[\"(selection|verdict|comparison|family)\"\]\.str\b|"
                                r"\[\"environment\"\]\.split\(")
"""Finding rows by matching display text: a string method over a table's column (``.str.``,
in code or in a query), or splitting a bandit's text to count its arms."""


BAD_ANALYSIS = {
    # case: (the [analysis] table's lines, the field named, the value as the line shows it);
    # against GRID: lr 0.1 and 0.3, baselines running_mean and per_arm, group size 1, the
    # reference uniform, budgets 10 and 50.
    "unknown key": ("colour = \"red\"", "analysis.colour", "'red'"),
    "not a table": ("", "analysis", "[{}]"),
    "deployment pulls zero": ("deployment_pulls = 0", "analysis.deployment_pulls", "0"),
    "deployment pulls fractional": ("deployment_pulls = 1.5e5", "analysis.deployment_pulls",
                                    "150000.0"),
    "deployment pulls past 10^15": ("deployment_pulls = 10_000_000_000_000_000",
                                    "analysis.deployment_pulls", "10000000000000000"),
    "deployment pulls a boolean": ("deployment_pulls = true", "analysis.deployment_pulls",
                                   "True"),
    "primary budget not a checkpoint": ("primary_budgets = [10, 20]",
                                        "analysis.primary_budgets[1]", "20"),
    "primary budgets not a list": ("primary_budgets = 10", "analysis.primary_budgets", "10"),
    "primary budgets empty": ("primary_budgets = []", "analysis.primary_budgets", "[]"),
    "primary budget repeated": ("primary_budgets = [50, 50]", "analysis.primary_budgets[1]",
                                "50"),
    "primary budget zero": ("primary_budgets = [0]", "analysis.primary_budgets[0]", "0"),
    "compared budget not a checkpoint": ("compared_budgets = [10, 30]",
                                         "analysis.compared_budgets[1]", "30"),
    "compared budget text": ("compared_budgets = [\"10\"]", "analysis.compared_budgets[0]",
                             "'10'"),
    "equivalence margin 0.5": ("equivalence_margin = 0.5", "analysis.equivalence_margin",
                               "0.5"),
    "equivalence margin negative": ("equivalence_margin = -0.01", "analysis.equivalence_margin",
                                    "-0.01"),
    "equivalence margin NaN": ("equivalence_margin = nan", "analysis.equivalence_margin",
                               "nan"),
    "equivalence margin a boolean": ("equivalence_margin = true", "analysis.equivalence_margin",
                                     "True"),
    "pass-rate margin zero": ("pass_rate_margin = 0", "analysis.pass_rate_margin", "0.0"),
    "pass-rate margin text": ("pass_rate_margin = \"1pp\"", "analysis.pass_rate_margin",
                              "'1pp'"),
    "ratio margin 1": ("ratio_margin = 1", "analysis.ratio_margin", "1.0"),
    "ratio margin past 10": ("ratio_margin = 10.5", "analysis.ratio_margin", "10.5"),
    "ratio margin infinite": ("ratio_margin = inf", "analysis.ratio_margin", "inf"),
    "twin not a study name": ("same_simulation_as = \"a b\"", "analysis.same_simulation_as",
                              "'a b'"),
    "twin a number": ("same_simulation_as = 3", "analysis.same_simulation_as", "3"),
    "headline lr not in the grid": ("headline_lr = 0.2", "analysis.headline_lr", "0.2"),
    "headline lr text": ("headline_lr = \"fast\"", "analysis.headline_lr", "'fast'"),
    "headline lr negative": ("headline_lr = -0.1", "analysis.headline_lr", "-0.1"),
    "headline baseline not in the grid": ("headline_baseline = \"none\"",
                                          "analysis.headline_baseline", "'none'"),
    "headline baseline a number": ("headline_baseline = 1", "analysis.headline_baseline", "1"),
    "reference that trains": ("reference = \"reinforce\"", "analysis.reference",
                              "'reinforce'"),
    "reference not in the grid": ("reference = \"successive_rejects\"", "analysis.reference",
                                  "'successive_rejects'"),
    "reference no learner": ("reference = \"oracle\"", "analysis.reference", "'oracle'"),
    "sections not a list": ("sections = \"seeds\"", "analysis.sections", "'seeds'"),
    "section not a name": ("sections = [\"Seeds 2\"]", "analysis.sections", "['Seeds 2']"),
    "section a number": ("sections = [1]", "analysis.sections", "[1]"),
    "paper role not a name": ("paper_role = \"Head line\"", "analysis.paper_role",
                              "'Head line'"),
    "paper role a list": ("paper_role = [\"headline\"]", "analysis.paper_role", "['headline']"),
    "headline group size not in the grid": ("headline_group_size = 4",
                                            "analysis.headline_group_size", "4"),
    "headline group size zero": ("headline_group_size = 0", "analysis.headline_group_size",
                                 "0"),
    "headline group size fractional": ("headline_group_size = 1.0",
                                       "analysis.headline_group_size", "1.0"),
    "curve cut at the last budget": ("curve_cut = 50", "analysis.curve_cut", "50"),
    "curve cut not a budget": ("curve_cut = 20", "analysis.curve_cut", "20"),
    "curve cut text": ("curve_cut = \"10\"", "analysis.curve_cut", "'10'"),
    "pass-rate target zero": ("pass_rate_target = 0", "analysis.pass_rate_target", "0"),
    "pass-rate target past one": ("pass_rate_target = 1.5", "analysis.pass_rate_target",
                                  "1.5"),
    "pass-rate target text": ("pass_rate_target = \"0.6\"", "analysis.pass_rate_target",
                              "'0.6'"),
    # The parts of a factorial's analysis, and GRID has no [design] (a design's own bad values:
    # tests/test_factorial.py).
    "chosen after the run without a design": ("chosen_after_run = [\"stuck\"]",
                                              "analysis.chosen_after_run", "['stuck']"),
}


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The runs of a study of GRID: what the analysis reads before the config it is given."""
    folder = tmp_path_factory.mktemp("runs")
    (folder / "study.toml").write_text(config_text({"seeds": 8}, **GRID))
    assert main(["run", str(folder / "study.toml"), "--out", str(folder / "t"), "--quiet"]) == 0
    return folder / "t"


@pytest.mark.parametrize("case", BAD_ANALYSIS)
def test_each_analysis_error_is_one_line_naming_the_key_and_value(
        case: str, simulated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    lines, field, shown = BAD_ANALYSIS[case]
    # An array of tables, the one spelling of a non-table that TOML lets follow [grid].
    header = "[[analysis]]" if case == "not a table" else "[analysis]"
    config = tmp_path / "study.toml"
    config.write_text(config_text({"seeds": 8}, **GRID) + f"{header}\n{lines}\n")
    out = tmp_path / "tables"
    monkeypatch.setattr(sys, "argv", ["python -m analysis", str(simulated), "--config",
                                      str(config), "--out", str(out)])
    assert analysis_main() == 2
    printed = capsys.readouterr()
    assert printed.out == ""
    assert printed.err.splitlines() == [printed.err.strip()]
    assert printed.err.startswith(f"error: {field}: {shown} "), printed.err
    assert not out.exists()


VALID_ANALYSIS = {
    "every key": "\n".join((
        "deployment_pulls = 1000", "primary_budgets = [10]", "compared_budgets = [50]",
        "equivalence_margin = 0.05", "pass_rate_margin = 0.02", "ratio_margin = 2",
        "same_simulation_as = \"\"", "headline_lr = 0.3",
        "headline_baseline = \"running_mean\"", "reference = \"uniform\"",
        "sections = [\"headline\"]", "headline_group_size = 1", "curve_cut = 10",
        "paper_role = \"headline\"", "pass_rate_target = 0.6")),
    # Each ended in a traceback until 8497bd4 (found by analysing generated tables): a KeyError
    # in the power tables of a twin study's or a per-arm headline's primary budgets, and
    # binomtest refusing the bound chance - margin below 0.
    "a twin with primary budgets": "same_simulation_as = \"quick\"\nprimary_budgets = [10]",
    "a per-arm headline with primary budgets": ("headline_baseline = \"per_arm\"\n"
                                                "primary_budgets = [10]"),
    "an equivalence margin past chance": "equivalence_margin = 0.4",
}
"""[analysis] tables that GRID makes valid, which the analysis must analyse."""


@pytest.mark.parametrize("case", VALID_ANALYSIS)
def test_a_valid_analysis_table_is_analysed(case: str, simulated: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    lines = VALID_ANALYSIS[case]
    config = tmp_path / "study.toml"
    config.write_text(config_text({"seeds": 8}, **GRID) + f"[analysis]\n{lines}\n")
    monkeypatch.setattr(sys, "argv", ["python -m analysis", str(simulated), "--config",
                                      str(config), "--out", str(tmp_path / "tables")])
    assert analysis_main() == 0
    assert (tmp_path / "tables" / "index.json").is_file()


def test_every_analysis_key_has_a_bad_case() -> None:
    named = {field.removeprefix("analysis.").split("[")[0] for _, field, _ in BAD_ANALYSIS.values()}
    assert {item.name for item in dataclasses.fields(AnalysisConfig)} <= named


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
