"""The whole study, end to end on few seeds: every config runs, is analysed, drawn and reported."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from study.cli import run_and_write
from study.spec.config import load_config
from study.spec.paths import CONFIG_DIR

SEEDS = 24


@pytest.fixture(scope="module")
def study_outputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("out")
    for path in sorted(CONFIG_DIR.glob("*.toml")):
        config = load_config(path).with_seeds(SEEDS)
        run_and_write(config, out / path.stem, quiet=True)
        done = subprocess.run([sys.executable, "-m", "analysis", str(out / path.stem), "--out",
                               str(out / "tables" / path.stem)], cwd=REPO, capture_output=True,
                              text=True, check=False)
        assert done.returncode == 0, done.stderr
    for args in (["-m", "figures", str(out / "tables"), "--out", str(out / "figures")],
                 ["-m", "figures.report", "--tables", str(out / "tables"), "--figures",
                  str(out / "figures"), "--runs", str(out), "--out", str(out / "report.md")]):
        done = subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True,
                              check=False)
        assert done.returncode == 0, done.stderr
    return out


@pytest.mark.slow
def test_report_has_every_section_with_figures_and_no_gaps(study_outputs: Path) -> None:
    report = (study_outputs / "report.md").read_text()
    for heading in ("## 1. How accuracy rises with the budget", "## 2. Above the never-training",
                    "## 3. Per-arm baseline", "## 4. Narrow margins",
                    "## 5. REINFORCE against best-arm identification",
                    "## 6. With a per-pull cost", "## 7. How many seeds",
                    "## 8. The textbook check", "## 9. Group rollouts", "## Provenance"):
        assert heading in report
    assert "has not been analysed" not in report and "not drawn" not in report
    for link in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", report):
        assert (study_outputs / link).is_file(), link
    # 9 figures of sections 1 to 8, and 3 for each of the two group studies (section 9).
    assert report.count("*Figure:") == 15 and "Wilson" in report and "Newcombe" in report


def test_every_figure_exists_as_png_and_pdf(study_outputs: Path) -> None:
    drawn = json.loads((study_outputs / "figures" / "index.json").read_text())
    # 8 figures of the study, the curves of the textbook check and its book-layout figure, and
    # 3 for each group study.
    assert len(drawn) == 16
    for files in drawn.values():
        assert sorted(Path(f).suffix for f in files) == [".pdf", ".png"]
        for name in files:
            assert (study_outputs / "figures" / name).stat().st_size > 1000


def test_tables_are_csv_and_markdown_and_numbers_are_latex(study_outputs: Path) -> None:
    tables = study_outputs / "tables" / "budget_sweep"
    for name in json.loads((tables / "index.json").read_text()):
        assert (tables / f"{name}.csv").is_file() and (tables / f"{name}.md").is_file()
    macros = (study_outputs / "numbers.tex").read_text().splitlines()
    assert macros and all(re.fullmatch(r"\\newcommand\{\\[A-Za-z]+\}\{[^{}]*\}", m)
                          for m in macros)
    assert any(m.startswith("\\newcommand{\\BudgetSweepAccAtFiveThousand}") for m in macros)
    assert any("NarrowMarginsBudgetToNinety" in m for m in macros)
