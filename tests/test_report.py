"""The whole study, end to end on few seeds: every config runs, is analysed, drawn and reported."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pymupdf
import pytest

from analysis.roles import Against, Finding, LrRole
from analysis.tables import P_FLOOR, ROUNDING_NOISE, TABLE_SUFFIXES
from conftest import REPO
from figures.cite import expected_text
from figures.paper import macros_used
from figures.report import SOURCES_FILE
from figures.words import pvalue
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
        done = subprocess.run([sys.executable, "-m", "analysis", str(out / path.stem),
                               "--config", str(path), "--out", str(out / "tables" / path.stem)],
                              cwd=REPO, capture_output=True, text=True, check=False)
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
                    "## 8. The textbook check", "## 9. Group rollouts",
                    "## 10. Budget against hardness",
                    "## 11. What a noisy verifier costs (`noisy_verifier`)",
                    "## 12. Many prompts, one rollout budget (`many_prompts`)", "## Methods",
                    "## Provenance"):
        assert heading in report
    assert "has not been analysed" not in report and "not drawn" not in report
    for link in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", report):
        assert (study_outputs / link).is_file(), link
    # 10 figures of sections 1 to 8, 3 for each of the two group studies (section 9) and the
    # hardness figure (section 10), the noisy verifier's (section 11) and the many-prompts
    # study's (section 12).
    assert report.count("*Figure:") == 19 and "Wilson" in report and "Newcombe" in report
    # The tables show p-values floored as the prose does, and no rounding residue as a number.
    for header, cells in table_cells(report):
        for column, cell in zip(header, cells, strict=True):
            if re.fullmatch(r"p(_[a-z]+)*", column) and cell not in ("", "< 1e-15"):
                assert float(cell) >= P_FLOOR, (column, cell)
            elif re.fullmatch(r"-?[0-9.]+e-[0-9]+", cell):
                assert abs(float(cell)) >= ROUNDING_NOISE, (column, cell)


def table_cells(report: str) -> list[tuple[list[str], list[str]]]:
    """(header, row) for every row of every Markdown table in ``report``, cells stripped (a row
    with a "|" inside a cell, which splits into more cells than its header, is left out)."""
    found = []
    header: list[str] = []
    for line in report.splitlines():
        if not line.startswith("|"):
            header = []
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not header:
            header = cells
        elif (len(cells) == len(header)
              and not all(re.fullmatch(r":?-+:?", cell) for cell in cells)):
            found.append((header, cells))
    return found


def test_every_figure_exists_as_png_and_pdf(study_outputs: Path) -> None:
    drawn = json.loads((study_outputs / "figures" / "index.json").read_text())
    # 10 figures of the study, the curves of the textbook check and its book-layout figure, and
    # 3 for each group study, the noisy verifier's and the many-prompts study's.
    assert len(drawn) == 20
    for files in drawn.values():
        assert sorted(Path(f).suffix for f in files) == [".pdf", ".png"]
        for name in files:
            assert (study_outputs / "figures" / name).stat().st_size > 1000


def test_tables_are_parquet_csv_and_markdown_and_numbers_are_latex(study_outputs: Path) -> None:
    tables = study_outputs / "tables" / "budget_sweep"
    for name in json.loads((tables / "index.json").read_text()):
        assert all((tables / f"{name}{suffix}").is_file() for suffix in TABLE_SUFFIXES)
    # Roles are typed columns in the Parquet files, as the readers select on them.
    budgets = pd.read_parquet(tables / "budget_to_target.parquet")
    assert list(budgets["lr_role"].cat.categories) == [role.value for role in LrRole]
    assert isinstance(budgets["tied_lr"].iat[0], str)
    lines = (study_outputs / "numbers.tex").read_text().splitlines()
    macros = [line for line in lines if not line.startswith("%")]
    assert macros and all(re.fullmatch(r"\\newcommand\{\\[A-Za-z]+\}\{[^{}]*\}", m)
                          for m in macros)
    # Every macro is a named number (figures.named): it follows the comment that gives its
    # source, which is read again here; one name per macro, one macro per name.
    names = [m[len("\\newcommand{\\"):].split("}")[0] for m in macros]
    sources = pd.read_csv(study_outputs / "number_sources.csv", dtype=str, keep_default_na=False)
    assert len(names) == len(set(names)) and names == sources["name"].tolist()
    # One value, one name: no two names print the same source the same way.
    printed = sources[["source", "spec", "formatter"]]
    assert not printed.duplicated().any(), sources[printed.duplicated(keep=False)]
    # The paper's macros are names of the registry.
    assert macros_used((REPO / "paper" / "paper.typ").read_text()) <= set(names)
    for row in sources.itertuples():
        at = lines.index(f"% {row.name}: {row.source}")
        assert lines[at + 1].startswith(f"\\newcommand{{\\{row.name}}}{{")
        assert expected_text({"source": row.source, "formatter": row.formatter,
                              "spec": row.spec}, study_outputs / "tables",
                             study_outputs) == row.text
    assert any(m.startswith("\\newcommand{\\BudgetSweepAccAtFiveThousand}") for m in macros)
    assert any("NarrowMarginsBudgetToNinety" in m for m in macros)


def paragraph(report: str, start: str) -> str:
    """The paragraph of the report that begins with ``start``."""
    found = [p for p in report.split("\n\n") if p.startswith(start)]
    assert len(found) == 1, start
    return found[0]


def table(outputs: Path, study: str, name: str) -> pd.DataFrame:
    return pd.read_parquet(outputs / "tables" / study / f"{name}.parquet")


def headline(accuracy: pd.DataFrame) -> pd.DataFrame:
    # The headline cell as budget_sweep's config declares it, independently of the analysis.
    analysis = load_config(CONFIG_DIR / "budget_sweep.toml").analysis
    return accuracy[(accuracy["algorithm"] == "reinforce")
                    & (accuracy["lr"] == analysis.headline_lr)
                    & (accuracy["baseline"] == analysis.headline_baseline)
                    & accuracy["budget"].isin(analysis.compared_budgets)].sort_values("budget")


@pytest.mark.slow
def test_the_numbers_in_the_prose_are_the_tables_numbers(study_outputs: Path) -> None:
    # Each sentence's numbers are parsed back from the report and recomputed from the tables it
    # cites, formatted as the report formats them.
    report = (study_outputs / "report.md").read_text()
    accuracy = table(study_outputs, "budget_sweep", "accuracy")
    rows = headline(accuracy)
    text = paragraph(report, "REINFORCE with the running-mean baseline at the default lr")
    found = re.findall(r"(\d\.\d{3}) \[(\d\.\d{3}), (\d\.\d{3})\] at (\d{1,3}(?:,\d{3})*)", text)
    assert found == [(f"{r.accuracy:.3f}", f"{r.ci_low:.3f}", f"{r.ci_high:.3f}",
                      f"{r.budget:,}") for r in rows.itertuples()]

    text = paragraph(report, "The never-training sampler")
    found = re.findall(r"([+-]\d\.\d{3}) \[([+-]\d\.\d{3}), ([+-]\d\.\d{3})\] at "
                       r"(\d{1,3}(?:,\d{3})*) \(exact binomial p ([^,]+), Holm ([^)]+)\)", text)
    assert found == [(f"{r.accuracy - r.chance:+.3f}", f"{r.ci_low - r.chance:+.3f}",
                      f"{r.ci_high - r.chance:+.3f}", f"{r.budget:,}", pvalue(r.p_vs_chance),
                      pvalue(r.p_vs_chance_holm)) for r in rows.itertuples()]
    assert f"family `budget_sweep/primary`, {len(rows)} hypotheses" in text

    paired = table(study_outputs, "budget_sweep", "per_arm_vs_running_mean")
    significant = paired["p_value_holm"] < 0.05
    text = paragraph(report, "Paired by seed at lr")
    assert (f"significantly worse after Holm in "
            f"{int((significant & (paired['difference'] < 0)).sum())} of {len(paired)} "
            f"comparisons and better in {int((significant & (paired['difference'] > 0)).sum())}"
            ) in text
    assert f"In {int((~paired['interval_agrees']).sum())} of {len(paired)} rows" in text

    chance = table(study_outputs, "budget_sweep", "per_arm_vs_chance")
    text = paragraph(report, "Against chance (")
    above = (chance["finding"] == Finding.HIGHER).sum()
    assert f"{above} of {len(chance)} cells are above chance after Holm" in text

    band = table(study_outputs, "budget_sweep", "accuracy_band")
    text = paragraph(report, "A claim about the whole curve")
    assert f"{band['band_factor'].iat[0]:.2f} here" in text
    assert (f"[{band['band_low'].iat[0]:.3f}, {band['band_high'].iat[0]:.3f}] at "
            f"{int(band['budget'].iat[0]):,}") in text

    ratios = table(study_outputs, "narrow_margins", "budget_ratio")
    text = [p for p in report.split("\n\n") if p.startswith("REINFORCE at its best lr")][1]
    for r in ratios.itertuples():
        assert f"{r.ratio:.2f} [{r.ci_low:.2f}, {r.ci_high:.2f}] times the budget of" in text

    best = table(study_outputs, "cost", "best_budget")
    best = best[best["algorithm"] == "reinforce"]
    text = paragraph(report, "A run's net value is")
    assert f"at {int(best['resolved'].sum())} of {len(best)} costs" in text
    steps = table(study_outputs, "cost", "break_even")
    steps = steps[steps["algorithm"] == "reinforce"]
    text = paragraph(report, "Break-even cost per pull")
    unresolved = ((steps["ci_low"] <= 0) & (steps["ci_high"] >= 0)).sum()
    assert f"{unresolved} of {len(steps)} steps have an interval that includes zero" in text

    power = table(study_outputs, "budget_sweep", "power")
    text = paragraph(report, "Against chance, ")
    assert f"(at level {power['alpha_per_test'].iat[0]:.3g})" in text
    first = power[(power["against"] == Against.CHANCE)
                  & (power["budget"] == power["budget"].min())]
    for r in first.itertuples():
        assert f"{r.exact_power_40_seeds:.2f} for a gain of {r.effect_of_interest:g}" in text


@pytest.mark.slow
def test_every_number_in_the_prose_is_read_again_from_its_source(study_outputs: Path) -> None:
    # The report refuses a digit in its prose that no cited value wrote (figures.cite), so the
    # sources file lists every number of the prose; each is recomputed here from the table row,
    # the count of rows, the manifest or the constant it names, and formatted as printed.
    report = (study_outputs / "report.md").read_text()
    sources = pd.read_csv(study_outputs / SOURCES_FILE, dtype=str, keep_default_na=False)
    assert set(sources["kind"]) >= {"cell", "count", "constant", "manifest", "literal"}
    lines = report.splitlines()
    for entry in sources.to_dict("records"):
        expected = expected_text(entry, study_outputs / "tables", study_outputs)
        assert expected is None or expected == entry["text"], entry
        # Where the report says it put the number, the number is (entries with line -1 went
        # into a Markdown table's cell, which is the table's own value).
        line, column = int(entry["line"]), int(entry["column"])
        if line >= 0:
            assert lines[line][column:column + len(entry["text"])] == entry["text"], entry
    assert (sources["line"].astype(int) >= 0).sum() > 100


@pytest.mark.slow
def test_paper_prints_every_macro_as_its_table_value_and_every_figure(study_outputs: Path
                                                                       ) -> None:
    pdf = study_outputs / "paper.pdf"
    done = subprocess.run([sys.executable, "-m", "figures.paper", "--tables",
                           str(study_outputs / "tables"), "--figures",
                           str(study_outputs / "figures"), "--runs", str(study_outputs),
                           "--out", str(pdf)], cwd=REPO, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    document = pymupdf.open(pdf)
    text = re.sub(r"\s+", " ", " ".join(page.get_text() for page in document))
    # The paper's prose: paper.typ and the paragraphs of the declared sections it includes.
    source = ((REPO / "paper" / "paper.typ").read_text()
              + (study_outputs / "paper" / "sections.typ").read_text())
    used = macros_used(source)
    macros = pd.read_csv(study_outputs / "paper" / "numbers.csv", keep_default_na=False)
    assert used <= set(macros["macro"]) and len(used) > 50
    # The paper builds the registry the report builds: the same names, printed the same.
    named = pd.read_csv(study_outputs / "number_sources.csv", keep_default_na=False)
    assert (macros.set_index("macro")["text"].to_dict()
            == named.set_index("name")["text"].to_dict())
    for entry in macros[macros["macro"].isin(used)].to_dict("records"):
        # Each number read again from its table (or constant) and formatted as the macro was;
        # and the PDF shows that text.
        assert expected_text(entry, study_outputs / "tables", study_outputs) == entry["text"]
        assert entry["text"] in text, entry["macro"]
    figures = re.findall(r'#fig\("(\w+)"', source)
    assert len(figures) == 6
    for number, name in enumerate(figures, start=1):
        assert (study_outputs / "figures" / f"{name}.pdf").is_file()
        assert f"Figure {number}:" in text
    # Embedded as vector drawings (form XObjects), not raster images.
    assert sum(len(page.get_xobjects()) for page in document) >= len(figures)
    assert not any(page.get_images() for page in document)
