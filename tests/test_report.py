"""The whole study, end to end on few seeds: every config runs, is analysed, drawn and reported."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pymupdf
import pytest
import report_checks as checks
import statsmodels.api as sm
from scipy.integrate import quad
from scipy.stats import beta as beta_law
from scipy.stats import binomtest

from analysis.pass_rate import FRACTIONS
from analysis.questions import methods_test
from analysis.roles import Against, Finding, LrRole
from analysis.tables import P_FLOOR, ROUNDING_NOISE, TABLE_SUFFIXES
from figures import claims, sections
from figures.cite import expected_text
from figures.named import role_prefix, roles
from figures.numbers import study_prefix
from figures.paper import PAPER_DIR, macros_used
from figures.report import SOURCES_FILE, headings
from figures.sections.prompt_allocation import law, rule_name
from figures.words import pvalue
from study.model import registry
from study.model.config import DEFAULT_LR, load_config
from study.model.grid import SAME_UNDER_EITHER
from study.model.paths import CONFIG_DIR


@pytest.mark.slow
def test_report_has_every_section_with_figures_and_no_gaps(study_outputs: Path) -> None:
    report = (study_outputs / "report.md").read_text()
    tables = study_outputs / "tables"
    # The headings from the sections (their titles, numbered in the report's order; a study's
    # name after the title of a section given to one study that is not shared), in that order,
    # each title once: a section given to several studies heads each study's part by its name;
    # the project's studies are given every section there is.
    headed = headings(tables)
    assert {module for module, _ in headed} == set(sections.modules())
    assert [module for module, _ in headed] == list(dict.fromkeys(
        module for module, _ in sections.given(tables)))
    titled = [f"## {number}. {module.SECTION.title}"
              + ("" if module.SECTION.shared or len(studies) > 1 else f" (`{studies[0]}`)")
              for number, (module, studies) in enumerate(headed, start=1)]
    found = [line for line in report.splitlines() if line.startswith("## ")]
    left = ["## Sections not given"] if sections.not_given(tables) else []
    assert found == [*titled, *left, "## Methods", "## Provenance"]
    for module, studies in headed:
        if not module.SECTION.shared and len(studies) > 1:
            assert all(f"\n### {study}\n" in report for study in studies), module.__name__
    assert "has not been analysed" not in report and "not drawn" not in report
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", report)
    for link in links:
        assert (study_outputs / link).is_file(), link
    # Each figure shown is one its section drew, and each section with figures shows one for
    # each study given it.
    drawn = json.loads((study_outputs / "figures" / "index.json").read_text())
    shown = [Path(link).stem for link in links]
    assert len(shown) == len(set(shown)) == report.count("*Figure:") and set(shown) <= set(drawn)
    for module, study in sections.given(tables):
        stems = {claims.figure_name(study, stem) for stem in module.SECTION.figures}
        assert not stems or stems & set(shown), (module.__name__, study)
    assert "Wilson" in report and "Newcombe" in report
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
    # Each figure is one a section declares for a study given it (figures.sections), and each
    # such section drew at least one of its figures for each of its studies.
    declared = {(module.__name__, study): {claims.figure_name(study, stem)
                                           for stem in module.SECTION.figures}
                for module, study in sections.given(study_outputs / "tables")}
    assert set(drawn) <= set().union(*declared.values())
    assert all(names & set(drawn) for names in declared.values() if names)
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
    # The paper's macros are names of the registry: a role's (``#HeadlineSeeds``) that of its
    # study (``BudgetSweepSeeds``), the study whose config takes the role.
    studies = roles(study_outputs / "tables")
    assert studies == {"headline": "budget_sweep", "narrow": "narrow_margins",
                       "groups": "group_rollouts"}
    assert {macro if macro in names else registry_name(macro, studies)
            for macro in macros_used((PAPER_DIR / "paper.typ").read_text())} <= set(names)
    for row in sources.itertuples():
        at = lines.index(f"% {row.name}: {row.source}")
        assert lines[at + 1].startswith(f"\\newcommand{{\\{row.name}}}{{")
        assert expected_text({"source": row.source, "formatter": row.formatter,
                              "spec": row.spec}, study_outputs / "tables",
                             study_outputs) == row.text
    assert any(m.startswith("\\newcommand{\\BudgetSweepAccAtFiveThousand}") for m in macros)
    assert any("NarrowMarginsBudgetToNinety" in m for m in macros)


def registry_name(macro: str, studies: dict[str, str]) -> str:
    """The registry's name of a paper macro: a role's prefix replaced by its study's."""
    for role, study in studies.items():
        if macro.startswith(role_prefix(role)):
            return study_prefix(study) + macro[len(role_prefix(role)):]
    return macro


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
    text = paragraph(report, f"REINFORCE with the running-mean baseline at lr {DEFAULT_LR:g} ")
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


def number_token(text: str) -> re.Pattern[str]:
    """``text`` where the PDF's text shows it as a whole: where it begins with a number, not
    after a digit, a decimal point, a sign (the PDF shows a minus as "-" in prose and as
    U+2212 in formulas and axes) or, for a group of three digits, a thousands comma; where it
    ends with one, not before a digit, a decimal point and digit, a thousands group (",ddd"), an
    exponent or a percent sign. So "0.5" is not found in "0.55", "-0.5", "10.5", "0.5e-3" or
    "0.5%", nor "500" in "12,500", nor "1,000" in "1,000,000"."""
    left = ""
    if text[:1].isdigit() or text[:1] in "+-.":
        left = r"(?<![\d.])" + (r"(?<![-+\u2212])" if text[:1].isdigit() else "")
        left += r"(?<!\d,)" if re.match(r"\d{3}(?!\d)", text) else ""
    right = r"(?![\d%])(?!\.\d)(?!,\d{3}(?!\d))(?!e[-+]?\d)" if text[-1:].isdigit() else ""
    return re.compile(left + re.escape(text) + right)


@pytest.mark.slow
def test_paper_prints_every_macro_as_its_table_value_and_every_figure(
        study_outputs: Path, study_paper: Path) -> None:
    pdf = study_paper
    document = pymupdf.open(pdf)
    text = re.sub(r"\s+", " ", " ".join(page.get_text() for page in document))
    # The paper's prose: paper.typ and the paragraphs of the declared sections it includes.
    source = ((PAPER_DIR / "paper.typ").read_text()
              + (study_outputs / "paper" / "sections.typ").read_text())
    used = macros_used(source)
    macros = pd.read_csv(study_outputs / "paper" / "numbers.csv", keep_default_na=False)
    assert used <= set(macros["macro"]) and len(used) > 50
    # The paper builds the registry the report builds: the same names, printed the same, and
    # each of a role's names again under the role's prefix.
    named = pd.read_csv(study_outputs / "number_sources.csv", keep_default_na=False)
    studies = roles(study_outputs / "tables")
    shown = macros.set_index("macro")["text"].to_dict()
    registry = named.set_index("name")["text"].to_dict()
    assert set(registry) <= set(shown)
    for macro, printed in shown.items():
        assert registry.get(macro, registry.get(registry_name(macro, studies))) == printed, macro
    assert all(any(macro.startswith(role_prefix(role)) for macro in shown) for role in studies)
    for entry in macros[macros["macro"].isin(used)].to_dict("records"):
        # Each number read again from its table (or constant) and formatted as the macro was;
        # and the PDF shows that text.
        assert expected_text(entry, study_outputs / "tables", study_outputs) == entry["text"]
        assert number_token(entry["text"]).search(text), entry["macro"]
    studies = roles(study_outputs / "tables")
    figures = [(studies[role] if role else "") + name
               for role, name in re.findall(r'#fig\((?:study\.(\w+) \+ )?"(\w+)"', source)]
    # Every figure the sources place was read (the paper's own and its sections').
    assert len(figures) == source.count("#fig(") > 0
    for number, name in enumerate(figures, start=1):
        assert (study_outputs / "figures" / f"{name}.pdf").is_file()
        assert f"Figure {number}:" in text
    # Embedded as vector drawings (form XObjects), not raster images.
    assert sum(len(page.get_xobjects()) for page in document) >= len(figures)
    assert not any(page.get_images() for page in document)


def declaring(section_name: str) -> list[str]:
    """The studies whose config names ``section_name`` in ``[analysis] sections``."""
    return [path.stem for path in sorted(CONFIG_DIR.glob("*.toml"))
            if section_name in load_config(path).analysis.sections]


def budget_text(budget: float, budgets: list[float]) -> str:
    """The start of a budget to 0.9 as the tables print it: the budget and its interval, or
    the bound where the first checkpoint reaches 0.9 or the largest does not."""
    if math.isinf(budget):
        return f"not reached by {budgets[-1]:,.0f} (budget > {budgets[-1]:,.0f})"
    if budget == budgets[0]:
        return f"reached by the first checkpoint (budget <= {budget:,.0f})"
    return f"{budget:,.0f} ["


def ratio_of(a: float, b: float) -> float:
    """A budget over another as the tables give it: NaN where neither is reached, 0 where only
    the second is not, inf where only the first is not."""
    if math.isinf(a) and math.isinf(b):
        return math.nan
    return 0.0 if math.isinf(b) else a / b


def best_lr_cell(outcomes: dict[int, pd.DataFrame], candidates: pd.Index) -> int:
    """Of the ``candidates`` (cell ids, in cell order), the one whose budget to 0.9 on the even
    seeds is smallest (the first of equal ones): how a best lr is chosen."""
    budgets = [checks.crossing(outcomes[c].columns, checks.even(outcomes[c]).mean())
               for c in candidates]
    return int(candidates[int(np.argmin(budgets))])


def paired_rows(outcomes: dict[int, pd.DataFrame], pairs: list[tuple[int, int]], seeds: str,
                margin: float) -> list[dict[str, object]]:
    """Each (A, B) cell pair at every budget, paired by seed on ``seeds`` ("all" or "odd"), with
    Holm over all the rows and each row's verdict against ``margin``."""
    rows = []
    for a, b in pairs:
        ours, theirs = outcomes[a], outcomes[b]
        if seeds == "odd":
            ours, theirs = checks.odd(ours), checks.odd(theirs)
        for budget in ours.columns:
            rows.append({"a": a, "b": b, "budget": int(budget),
                         "test": checks.paired(ours[budget], theirs[budget])})
    for row, p in zip(rows, checks.holm(r["test"].p_value for r in rows), strict=True):
        test = row["test"]
        row["p_holm"] = p
        inside = checks.inside_margin((test.ci90_low, test.ci90_high), margin)
        row["verdict"] = checks.verdict(test.difference, inside, p, margin)
    return rows


@pytest.mark.slow
def test_best_arm_identification_section_is_recomputed_from_the_runs(study_outputs: Path
                                                                     ) -> None:
    # Section 5 from the runs alone (tests/report_checks.py): H from the arm values; the paired
    # tables (accuracies, Newcombe intervals, exact McNemar and Holm p-values, verdicts) and
    # their family sizes and agreement counts; the best lr chosen on the even seeds; each
    # budget to 0.9 on its seeds and its ratio to H; the point ratios of the budgets. Only the
    # bootstrap intervals are not recomputed (their table files are set against the report by
    # test_every_markdown_table_of_the_report_is_its_table_files_rows).
    text = checks.section((study_outputs / "report.md").read_text(), 5)
    studies = declaring("best_arm_identification")
    assert studies == ["budget_sweep", "narrow_margins"]
    for study in studies:
        analysis = load_config(CONFIG_DIR / f"{study}.toml").analysis
        frame = checks.runs(study_outputs, study, "seed", "budget", "correct")
        cells = checks.cells_of(frame)
        outcomes = checks.by_cell(frame)
        budgets = [float(b) for b in outcomes[cells.index[0]].columns]
        h = checks.hardness(cells["arm_values"].iat[0])
        shown = checks.part(text, study)
        assert shown.startswith(f"**{study}** (H = {h:,.0f}):")
        reinforce = cells[cells["algorithm"] == "reinforce"]
        headline = int(reinforce[(reinforce["lr"] == analysis.headline_lr)
                                 & (reinforce["baseline"] == analysis.headline_baseline)
                                 ].index[0])
        planners = [int(c) for c in cells.index[~cells["nested"]]]
        references = [int(c) for c in cells.index[cells["algorithm"] != "reinforce"]]
        best = {baseline: best_lr_cell(outcomes, group.index)
                for baseline, group in reinforce.groupby("baseline", sort=False, observed=True)}
        chosen = best["running_mean"]
        assert (f"REINFORCE at its best lr ({cells.at[chosen, 'lr']:g}, running-mean baseline)"
                in shown)
        tables = checks.markdown_tables(shown, [])
        # The budgets: each reference on all seeds, REINFORCE at its best lr on the odd ones.
        expected = []
        for cell in [*references, *(best[b] for b in ("none", "running_mean"))]:
            sample = outcomes[cell] if cell in references else checks.odd(outcomes[cell])
            budget = checks.crossing(budgets, sample.mean())
            expected.append([str(cells.at[cell, "algorithm"]), str(cells.at[cell, "baseline"]),
                             checks.cell_text(cells.at[cell, "lr"]), str(len(sample)),
                             budget_text(budget, budgets),
                             checks.cell_text(budget / h if math.isfinite(budget)
                                              else math.nan)])
        table = next(t for t in tables if "budget [95%]" in t.header)
        found = [[r[table.header.index(c)] for c in ("algorithm", "baseline", "lr", "seeds",
                                                     "budget [95%]", "ratio_to_H")]
                 for r in table.rows]
        for row, want in zip(found, expected, strict=True):
            assert [*row[:4], *row[5:]] == [*want[:4], *want[5:]] and row[4].startswith(want[4])
        # REINFORCE's budget over each reference's, both on the odd seeds.
        ours = checks.crossing(budgets, checks.odd(outcomes[chosen]).mean())
        for cell in references:
            theirs = checks.crossing(budgets, checks.odd(outcomes[cell]).mean())
            said = (rf"{ratio_of(ours, theirs):.2f} \[[^\]]*\] times the budget of "
                    rf"{re.escape(registry.display(str(cells.at[cell, 'algorithm'])))}[;. ]")
            assert re.search(said, shown), said
        # The paired tables: the default lr on all seeds against the planners, and the best lr
        # on the odd seeds against every reference, each its own Holm family.
        families = [("REINFORCE at the default lr", headline, planners, "all")]
        if chosen != headline:
            families.append(("REINFORCE at the best lr", chosen, references, "odd"))
        else:
            assert "The even seeds chose the default lr" in shown
        paired = [t for t in tables if "algorithm_b" in t.header]
        assert len(paired) == len(families)
        for (start, cell, against, seeds), table in zip(families, paired, strict=True):
            rows = paired_rows(outcomes, [(cell, b) for b in against], seeds,
                               analysis.equivalence_margin)
            disagree = sum(not r["test"].agrees for r in rows)
            words = paragraph(shown, start)
            assert (f", {len(rows):,} hypotheses). In {disagree} of {len(rows)} rows the 95% "
                    "Newcombe") in words
            expected = [[checks.cell_text(cells.at[cell, "lr"]),
                         str(cells.at[r["b"], "algorithm"]), str(r["budget"]),
                         str(r["test"].seeds),
                         *(checks.cell_text(getattr(r["test"], name)) for name in (
                             "accuracy_a", "accuracy_b", "difference", "ci_low", "ci_high")),
                         checks.pvalue_cell(r["test"].p_value), checks.pvalue_cell(r["p_holm"]),
                         r["verdict"]]
                        for r in rows if r["budget"] in analysis.compared_budgets]
            assert table.header == ["lr", "algorithm_b", "budget", "seeds", "reinforce",
                                    "accuracy_b", "difference", "ci_low", "ci_high", "p_value",
                                    "p_value_holm", "verdict"]
            assert sorted(table.rows) == sorted(expected)


@pytest.mark.slow
def test_textbook_section_is_recomputed_from_the_curves(study_outputs: Path) -> None:
    # Section 8 from the study's per-step curves and runs alone: the testbed, the runs and
    # steps, and at a tenth, half and all of the steps each cell's optimal-action fraction with
    # its Wilson interval (scipy's binomtest here; the analysis uses statsmodels) and its mean
    # reward; then the gap the book's baseline makes at the last step and smaller step size.
    text = checks.section((study_outputs / "report.md").read_text(), 8)
    study = "sutton_barto_fig2_5"
    cells = checks.cells_of(checks.runs(study_outputs, study, "seed"))
    curves = pd.read_parquet(study_outputs / study / "curves.parquet")
    last = int(curves["step"].max())
    seeds, (mean, sd) = int(curves["seeds"].iat[0]), cells["draw_parameters"].iat[0]
    assert (f"on the {cells['arms'].iat[0]}-armed Gaussian testbed with true values q*(a) ~ "
            f"N({mean:g}, {sd:g}), {seeds:,} runs of {last:,} steps") in text

    def optimal(row: pd.Series) -> str:
        interval = binomtest(round(row["optimal_action"] * row["seeds"]), int(row["seeds"])
                             ).proportion_ci(0.95, method="wilson")
        return f"{row['optimal_action']:.3f} [{interval.low:.3f}, {interval.high:.3f}]"

    shown = curves[curves["step"].isin([last // 10, last // 2, last])].merge(
        cells[["lr", "baseline"]], left_on="cell", right_index=True)
    expected = [["reinforce", checks.cell_text(r["lr"]), str(r["baseline"]), str(r["step"]),
                 optimal(r), checks.cell_text(r["mean_reward"])] for _, r in shown.iterrows()]
    (table,) = checks.markdown_tables(text, [])
    assert table.header == ["algorithm", "lr", "baseline", "step", "optimal action [95% Wilson]",
                            "mean_reward"]
    assert sorted(table.rows) == sorted(expected) and len(expected) == 3 * len(cells)
    end = shown[(shown["step"] == last) & (shown["lr"] == shown["lr"].min())]
    plain, book = (end[end["baseline"] == b].iloc[0] for b in ("none",
                                                                "running_mean_inclusive"))
    assert (f"At step {last:,} with step size {book['lr']:g} the baseline lifts the "
            f"optimal-action rate from {optimal(plain)} to {optimal(book)}") in text


GROUP_ESTIMATORS = ("group_mean", "group_zscore", "leave_one_out")
"""The advantage estimators that take the group's own rewards as baseline (README, "Group
rollouts"): a group without signal is one whose rewards are all equal."""


def no_signal(baseline: str, pass_rate: float, group: int) -> float:
    """The chance that a group of ``group`` Bernoulli(``pass_rate``) rewards carries no signal:
    all equal for a group estimator, all 0 without a baseline; NaN for a baseline of earlier
    rollouts."""
    if baseline in GROUP_ESTIMATORS:
        return pass_rate**group + (1 - pass_rate) ** group
    return (1 - pass_rate) ** group if baseline == "none" else math.nan


@pytest.mark.slow
def test_group_rollouts_section_is_recomputed_from_the_runs(study_outputs: Path) -> None:
    # Section 9 from the runs alone, for each group study: each arm's lr chosen on the even
    # seeds (largest mean accuracy over the checkpoints, ties to the smaller lr), the arms at an
    # edge of the grid, the robustness table (all seeds), the paired comparisons with
    # single-rollout REINFORCE on the odd seeds (Newcombe, exact McNemar, Holm over the
    # family) as the verdict counts and the Dr. GRPO table, and the share of updates without
    # signal with its interval and its exact values. Budgets and their ratios are bootstrap
    # estimates: their table files are set against the report by
    # test_every_markdown_table_of_the_report_is_its_table_files_rows.
    text = checks.section((study_outputs / "report.md").read_text(), 9)
    studies = [path.stem for path in sorted(CONFIG_DIR.glob("*.toml"))
               if len(load_config(path).group_size) > 1 and load_config(path).allocation == ("",)]
    assert re.findall(r"^### (\w+)$", text, re.MULTILINE) == studies and studies
    for study in studies:
        margin = load_config(CONFIG_DIR / f"{study}.toml").analysis.equivalence_margin
        frame = checks.runs(study_outputs, study, "seed", "budget", "correct", "rollouts",
                            "zero_signal_updates")
        cells = checks.cells_of(frame)
        outcomes = checks.by_cell(frame)
        spent = {c: m.iloc[0] for c, m in checks.by_cell(frame, "rollouts").items()}
        silent = checks.by_cell(frame, "zero_signal_updates")
        arms = []
        for (environment, baseline, group), arm in cells[cells["algorithm"] == "reinforce"].groupby(
                ["environment", "baseline", "group_size"], sort=False, observed=True):
            arm = arm.sort_values("lr")
            chosen = max(arm.index, key=lambda c: (checks.even(outcomes[c]).to_numpy().mean(),
                                                   -arm.at[c, "lr"]))
            score = {arm.at[c, "lr"]: outcomes[c].to_numpy().mean() for c in arm.index}
            robust = [lr for lr, value in score.items() if value >= max(score.values()) - 0.01]
            grid = (arm["lr"].min(), arm["lr"].max())
            arms.append({"environment": environment, "baseline": baseline, "group": group,
                         "cell": chosen, "lr": arm.at[chosen, "lr"],
                         "edge": arm.at[chosen, "lr"] in grid, "robust": [
                             min(robust), max(robust), math.log10(max(robust) / min(robust)),
                             len(robust) == sum(min(robust) <= lr <= max(robust)
                                                for lr in score),
                             min(robust) == grid[0] or max(robust) == grid[1]]})
        shown = checks.part(text, study)
        edges = ", ".join(f"{a['baseline']} G = {a['group']} on "
                          f"{a['environment'].replace(',', ', ')} (lr {a['lr']:g})"
                          for a in arms if a["edge"])
        seeds = len(checks.odd(outcomes[arms[0]["cell"]]))
        assert (f"{len(arms)} arms; best lr at an edge of the grid for "
                f"{sum(a['edge'] for a in arms)} of them" + (f": {edges}" if edges else "")
                + f"; {seeds:,} odd seeds per estimate.") in shown
        tables = {tuple(t.header): t for t in checks.markdown_tables(shown, [])}
        assert tables[("environment", "baseline", "group_size", "best_lr", "at_edge",
                       "robust_lr_low", "robust_lr_high", "robust_decades", "robust_contiguous",
                       "robust_range_at_edge")].rows == [
            [a["environment"], a["baseline"], str(a["group"]), checks.cell_text(a["lr"]),
             str(a["edge"]), *map(checks.cell_text, a["robust"])] for a in arms]
        # Against single-rollout REINFORCE (running-mean baseline) at every checkpoint after
        # the arm's first update, on the odd seeds: one Holm family.
        rows = []
        for arm in arms:
            single = next(a for a in arms if a["environment"] == arm["environment"]
                          and (a["baseline"], a["group"]) == ("running_mean", 1))
            if arm is single:
                continue
            for budget, rollouts in spent[arm["cell"]].items():
                if rollouts > 0:
                    rows.append({**arm, "budget": budget, "rollouts": rollouts,
                                 "test": checks.paired(
                                     checks.odd(outcomes[arm["cell"]])[budget],
                                     checks.odd(outcomes[single["cell"]])[budget])})
        for row, p in zip(rows, checks.holm(r["test"].p_value for r in rows), strict=True):
            row["p_holm"] = p
            test = row["test"]
            row["verdict"] = checks.verdict(test.difference, checks.inside_margin(
                (test.ci90_low, test.ci90_high), margin), p, margin)
        assert f"(Holm family: the {len(rows)} rows of `group_vs_single`)" in shown
        counts = pd.DataFrame(rows).groupby(["environment", "verdict"]).size()
        table = checks.table_after(shown, "Every arm against single-rollout")
        assert {(r[0], verdict): int(n) for r in table.rows
                for verdict, n in zip(table.header[1:], r[1:], strict=True) if n != "0"
                } == {key: int(n) for key, n in counts.items()}
        dr = tables[("environment", "group_size", "lr", "budget", "rollouts",
                     "difference [95%]", "p_value_holm", "verdict")]
        assert dr.rows == [
            [r["environment"], str(r["group"]), checks.cell_text(r["lr"]), str(r["budget"]),
             str(r["rollouts"]), f"{r['test'].difference:+.4f} [{r['test'].ci_low:+.4f}, "
             f"{r['test'].ci_high:+.4f}]", checks.pvalue_cell(r["p_holm"]), r["verdict"]]
            for r in rows if r["baseline"] == "group_mean"]
        # The share of updates without signal by the largest checkpoint, odd seeds.
        expected = []
        for arm in arms:
            last = spent[arm["cell"]].index[-1]
            updates = spent[arm["cell"]][last] // arm["group"]
            share = checks.odd(silent[arm["cell"]])[last].to_numpy() / updates
            bound = checks.Bound.of(share, (0.0, 1.0), 0.0)
            (low,), (high,) = bound.interval()
            values = cells.at[arm["cell"], "arm_values"]
            expected.append([arm["environment"], arm["baseline"], str(arm["group"]),
                             checks.cell_text(arm["lr"]), str(updates),
                             *map(checks.cell_text, (share.mean(), max(low, 0.0),
                                                     min(high, 1.0))),
                             "bound", *(checks.cell_text(no_signal(arm["baseline"], p,
                                                                arm["group"]))
                                     for p in (np.mean(values), max(values)))])
        assert tables[("environment", "baseline", "group_size", "lr", "updates",
                       "zero_signal_share", "ci_low", "ci_high", "interval", "uniform_policy",
                       "best_arm_policy")].rows == expected


@pytest.mark.slow
def test_hardness_section_is_recomputed_from_the_runs(study_outputs: Path) -> None:
    # Section 10 from the runs alone: per bandit its H and K, each algorithm's budget to 0.9 on
    # the odd seeds (REINFORCE at the lr the even seeds choose per bandit; a budget not reached
    # counts at the largest checkpoint), and per algorithm the least-squares line of log budget
    # on log H (statsmodels OLS): its slope, its t interval over bandits (none where a budget
    # is only a bound), the budget per H at the median H and the residual scatter. The slopes'
    # seed-bootstrap intervals are the table file's (set against the report by
    # test_every_markdown_table_of_the_report_is_its_table_files_rows).
    text = checks.section((study_outputs / "report.md").read_text(), 10)
    frame = checks.runs(study_outputs, "hardness", "seed", "budget", "correct")
    cells = checks.cells_of(frame)
    outcomes = checks.by_cell(frame)
    budgets = [float(b) for b in outcomes[cells.index[0]].columns]
    points: dict[str, list[tuple[float, float, bool]]] = {}
    for _, bandit in cells.groupby("environment", sort=False, observed=True):
        h = checks.hardness(bandit["arm_values"].iat[0])
        trained = bandit[bandit["algorithm"] == "reinforce"]
        chosen = [(f"REINFORCE ({b.replace('_', '-')} baseline, best lr)",
                   best_lr_cell(outcomes, group.index))
                  for b, group in trained.groupby("baseline", sort=False, observed=True)]
        for name, cell in [*((str(bandit.at[c, "algorithm"]), c)
                             for c in bandit.index[bandit["algorithm"] != "reinforce"]), *chosen]:
            budget = checks.crossing(budgets, checks.odd(outcomes[cell]).mean())
            points.setdefault(name, []).append(
                (h, budget if math.isfinite(budget) else budgets[-1], math.isfinite(budget)))
    hs = [h for h, _, _ in next(iter(points.values()))]
    seeds = len(checks.odd(outcomes[cells.index[0]]))
    assert (f"on {len(hs)} fixed bandits of K = {cells['arms'].min()} to "
            f"{cells['arms'].max()} arms, H = {min(hs):,.0f} to {max(hs):,.0f}, each algorithm "
            f"on the same {seeds:,} odd seeds") in text
    (table,) = checks.markdown_tables(text, [])
    shown = {row[0]: dict(zip(table.header, row, strict=True)) for row in table.rows}
    assert set(shown) == set(points)
    scatter = []
    for name, found in points.items():
        h, budget, reached = (np.array(x) for x in zip(*found, strict=True))
        fit = sm.OLS(np.log(budget), sm.add_constant(np.log(h))).fit()
        intercept, slope = fit.params
        low, high = fit.conf_int(0.05)[1] if reached.all() else (math.nan, math.nan)
        per_h = math.exp(intercept) * float(np.median(h)) ** (slope - 1)
        scatter.append(math.sqrt(fit.scale))
        said = (rf"{re.escape(registry.display(name) if name in registry.names() else name)}: "
                rf"slope {slope:.2f} \[[0-9.]+, [0-9.]+\] over seeds, \[{low:.2f}, {high:.2f}\] "
                rf"over bandits, {per_h:.2f} H at the median H")
        assert re.search(said, text), said
        assert {column: shown[name][column] for column in (
            "bandits", "bandits_reached", "slope", "bandit_ci_low", "bandit_ci_high",
            "budget_per_H_at_median_H", "residual_sd_log")} == {
                "bandits": str(len(h)), "bandits_reached": str(int(reached.sum())),
                **{column: checks.cell_text(value) for column, value in (
                    ("slope", slope), ("bandit_ci_low", low), ("bandit_ci_high", high),
                    ("budget_per_H_at_median_H", per_h),
                    ("residual_sd_log", scatter[-1]))}}
    assert (f"scatter by a standard deviation of {min(scatter):.2f} to {max(scatter):.2f} in "
            "log budget") in text


def budget_said(budget: float, budgets: list[float]) -> str:
    """A budget to a target as the noisy verifier's prose prints it, before its interval: the
    budget, or "> the largest checkpoint" where it is not reached."""
    return f"{budget:,.0f}" if math.isfinite(budget) else f"> {budgets[-1]:,.0f}"


@pytest.mark.slow
def test_noisy_verifier_section_is_recomputed_from_the_runs(study_outputs: Path) -> None:
    # Section 11 from the runs alone: the verifiers and their rates, the pass-rate targets (a
    # share of the gain from the arms' mean to the best arm), the exact verifier's budgets to
    # each target on all seeds, the point ratio of each noisy verifier's budget to the exact
    # one's, both predictions (1 / f^2 and the variance-folded one, with f = 1 - fp - fn), and
    # the budget per unit of effective hardness H / f^2. Every interval here is a bootstrap
    # interval: the table files it comes from are set against the report by
    # test_every_markdown_table_of_the_report_is_its_table_files_rows.
    text = checks.section((study_outputs / "report.md").read_text(), 11)
    frame = checks.runs(study_outputs, "noisy_verifier", "seed", "budget", "correct",
                        "pass_rate", "false_positive", "false_negative")
    cells = checks.cells_of(frame)
    accuracy = checks.by_cell(frame)
    # Pass rates at the precision the analysis keeps them in (single, analysis/outcomes.py):
    # a crossing interpolated where the curve is flat carries that rounding into the fifth
    # digit the tables print.
    passing = {c: m.astype(np.float32).astype(float).fillna(0.0)
               for c, m in checks.by_cell(frame, "pass_rate").items()}
    budgets = [float(b) for b in accuracy[cells.index[0]].columns]
    rates = {int(c): (r.false_positive, r.false_negative) for c, r in cells.iterrows()}
    exact = next(c for c, r in rates.items() if r == (0.0, 0.0))
    values = list(cells["arm_values"].iat[0])
    start, best = float(np.mean(values)), max(values)
    targets = [("accuracy", math.nan, checks.TARGET, accuracy)] + [
        ("pass_rate", f, start + f * (best - start), passing) for f in FRACTIONS]
    found = {(c, metric, fraction): checks.crossing(budgets, outcome[c].mean(), target)
             for c in rates for metric, fraction, target, outcome in targets}
    noisy = [c for c in rates if c != exact]
    assert (f"{len(noisy)} noisy verifiers and the exact one train the same learner: REINFORCE "
            f"at lr {cells.at[exact, 'lr']:g} with the running-mean baseline on arms that pass "
            f"their check with probability {', '.join(f'{v:g}' for v in values)},") in text
    every = [r for pair in rates.values() for r in pair]
    assert (f"each rate from {min(every):g} to {max(every):g}, on the same "
            f"{len(accuracy[exact]):,} seeds") in text
    assert (f"to a share of the achievable gain from {start:g}, the uniform policy's") in text
    assert (", ".join(f"{f:.0%} of it (a pass rate of {start + f * (best - start):g})"
                      for f in FRACTIONS[:-1])
            + f" and {FRACTIONS[-1]:.0%} of it (a pass rate of "
              f"{start + FRACTIONS[-1] * (best - start):g}).") in text
    shown = [budget_said(found[(exact, m, f)], budgets) for m, f, _, _ in targets]
    assert (f"With the exact verifier the budget to {checks.TARGET:g} accuracy is {shown[0]} ["
            in text)
    assert re.search(r"to those pass-rate targets, in that order, "
                     + r", ".join(rf"{re.escape(b)} \[[^\]]*\]" for b in shown[1:-1])
                     + rf" and {re.escape(shown[-1])} \[", text)

    def ratio(cell: int, metric: str, fraction: float) -> float:
        return ratio_of(found[(cell, metric, fraction)], found[(exact, metric, fraction)])

    def folded(fp: float, fn: float) -> float:
        q = fp + start * (1 - fp - fn)
        return q * (1 - q) / (start * (1 - start)) / (1 - fp - fn) ** 2

    costliest = max(noisy, key=lambda c: (sum(rates[c]), ratio(c, "accuracy", math.nan)))
    fp, fn = rates[costliest]
    said = [rf"{ratio(costliest, m, f):.2f} \[[^\]]*\]" for m, f, _, _ in targets]
    assert re.search(rf"fp {fp:g} and fn {fn:g}, needs {said[0]} times as many rollouts on "
                     rf"accuracy and {', '.join(said[1:-1])} and {said[-1]} times as many on "
                     "pass rate", text)
    assert (f"(qbar {fp + start * (1 - fp - fn):g}) the two are {folded(fp, fn):.2f} and "
            f"{1 / (1 - fp - fn) ** 2:.2f}") in text
    # Per unit of effective hardness: each cell's budget to 0.9 on all seeds (the largest
    # checkpoint where it is not reached) over H / f^2.
    h = checks.hardness(values)

    def effective(cell: int) -> list[float]:
        f = 1 - sum(rates[cell])
        budget = found[(cell, "accuracy", math.nan)]
        budget = budget if math.isfinite(budget) else budgets[-1]
        return [*rates[cell], f, h / f**2, budget, budget * f**2 / h]

    assert re.search(rf"the budget to {checks.TARGET:g} accuracy is {effective(exact)[-1]:.2f} "
                     rf"\[[^\]]*\] rollouts with the exact verifier and "
                     rf"{effective(costliest)[-1]:.2f} \[[^\]]*\] with the noisiest", text)
    assert f"the squared gap to the best, is {h:,.0f}," in text
    tables = checks.markdown_tables(text, [])
    units = next(t for t in tables if "effective_H" in t.header)
    assert [r[:6] for r in units.rows] == [list(map(checks.cell_text, effective(c)))
                                           for c in rates]
    # The tables of ratios: each noisy verifier's point ratio and its two predictions.
    for metric, header in (("accuracy", "false_positive"), ("pass_rate", "fraction")):
        table = next(t for t in tables if t.header[0] == header and "ratio" in t.header)
        rows = [dict(zip(table.header, r, strict=True)) for r in table.rows]
        expected = [{"false_positive": checks.cell_text(rates[c][0]),
                     "false_negative": checks.cell_text(rates[c][1]),
                     "ratio": checks.cell_text(ratio(c, metric, fraction)),
                     "predicted_ratio": checks.cell_text(1 / (1 - sum(rates[c])) ** 2),
                     "variance_predicted_ratio": checks.cell_text(folded(*rates[c])),
                     **({"fraction": checks.cell_text(fraction),
                         "target": checks.cell_text(target)} if metric == "pass_rate" else {})}
                    for c in noisy for m, fraction, target, _ in targets if m == metric]
        assert sorted(({k: r[k] for k in expected[0]} for r in rows), key=str) == sorted(
            expected, key=str)


def seed_means(frame: pd.DataFrame) -> pd.DataFrame:
    """A many-prompts runs table summed over its bands: one row per (cell, seed, budget) with
    the seed's accuracy (its prompts whose greedy arm is a best arm) and pass rate (the mean
    over its prompts of the policy's pass rate)."""
    sums = frame.groupby(["cell", "seed", "budget"])[
        ["correct_prompts", "pass_rate_sum", "band_prompts"]].sum()
    return pd.DataFrame({"accuracy": sums["correct_prompts"] / sums["band_prompts"],
                         "pass_rate": sums["pass_rate_sum"] / sums["band_prompts"]})


def best_of(a: float, b: float, arms: int) -> float:
    """E[max of ``arms`` draws of beta(a, b)]: the pass rate of a prompt's best arm."""
    law = beta_law(a, b)
    return quad(lambda x: x * arms * law.cdf(x) ** (arms - 1) * law.pdf(x), 0, 1)[0]


@pytest.mark.slow
def test_many_prompts_section_is_recomputed_from_the_runs(study_outputs: Path) -> None:
    # Section 12 from the runs alone: the comparisons of each rule with uniform allocation
    # (every rule, law, estimator, group size, normalization and budget; past the first pass for
    # a rule whose first pass is uniform's; a rule whose normalizations are one simulation
    # once), per seed paired, each mean with the bound interval and its p-value (every interval
    # at these seeds is the bound: fewer than 30 seeds differ), Holm over each metric's family,
    # and the counts of findings; the differences inside the margins; the headline cells'
    # differences at the largest budget; their budgets to 0.9 accuracy and to half the
    # achievable pass-rate gain (its ends from the beta law by quadrature) and the point ratios;
    # and where the rollouts went by difficulty band. The budgets' and ratios' intervals are
    # bootstrap intervals: their table files are set against the report by
    # test_every_markdown_table_of_the_report_is_its_table_files_rows.
    text = checks.section((study_outputs / "report.md").read_text(), 12)
    analysis = load_config(CONFIG_DIR / "many_prompts.toml").analysis
    frame = checks.runs(study_outputs, "many_prompts", "allocation", "normalization",
                        "prompts", "seed", "budget", "band", "band_prompts", "correct_prompts",
                        "pass_rate_sum", "rollouts", "groups", "zero_signal_groups")
    cells = checks.cells_of(frame)
    means = seed_means(frame)
    prompts, largest = int(cells["prompts"].iat[0]), int(frame["budget"].max())
    laws = {env: f"beta({a:g}, {b:g})" for env, (a, b) in
            cells.drop_duplicates("environment").set_index("environment")["draw_parameters"]
            .items()}
    assert (f"A dataset of {prompts:,} prompts" in text
            and f"(lr {cells['lr'].iat[0]:g})" in text
            and f"seed by seed, {frame['seed'].nunique():,} seeds." in text
            and f"with groups of {analysis.headline_group_size:,};" in text
            and f"at the largest budget, {largest:,} rollouts," in text)
    # Each rule's cell against uniform allocation's in the same law, estimator, group size, lr
    # and normalization; a per-batch cell of a rule whose groups all have G rollouts is the
    # per-group cell's simulation (study.model.grid) and is not compared again.
    pairs = []
    keys = ["environment", "prompts", "group_size", "baseline", "lr", "normalization"]
    for _, group in cells.groupby(keys, sort=False, observed=True):
        uniform = group.index[group["allocation"] == "uniform"][0]
        pairs += [(rule, uniform) for rule in group.index[group["allocation"] != "uniform"]
                  if not (group.at[rule, "normalization"] == "per_batch"
                          and group.at[rule, "allocation"] in SAME_UNDER_EITHER)]
    rows = []
    for rule, uniform in pairs:
        first_pass = (prompts * cells.at[rule, "group_size"]
                      if registry.allocation(cells.at[rule, "allocation"]).uniform_first_pass
                      else 0)
        for budget in sorted(frame["budget"].unique()):
            if budget > first_pass:
                rows.append({"rule": rule, "uniform": uniform, "budget": budget,
                             **cells.loc[rule, ["allocation", "environment", "baseline",
                                                "group_size", "normalization"]].to_dict()})
    comparisons = pd.DataFrame(rows)
    found = {}
    for metric, margin, step in (("accuracy", analysis.equivalence_margin, 1 / prompts),
                                 ("pass_rate", analysis.pass_rate_margin, 0.0)):
        differences = np.array([
            means.loc[(r.rule, slice(None), r.budget), metric].to_numpy()
            - means.loc[(r.uniform, slice(None), r.budget), metric].to_numpy()
            for r in comparisons.itertuples()])
        bound = checks.Bound.of(differences, (-1.0, 1.0), step)
        low, high = bound.interval()
        low90, high90 = bound.interval(1 - 2 * checks.ALPHA)
        shown = checks.holm(bound.p_values()) < checks.ALPHA
        within = (low90 > -margin) & (high90 < margin)
        found[metric] = comparisons.assign(
            difference=bound.mean, low=low, high=high, within=within,
            finding=np.where(shown & (bound.mean > 0), "higher", np.where(
                shown, "lower", np.where(within, "equivalent", "unresolved"))))
    accuracy, passing = found["accuracy"], found["pass_rate"]
    assert (f"({len(accuracy):,} comparisons on accuracy, {len(passing):,} on the pass rate:"
            in text)
    for metric, name in (("accuracy", "On accuracy, per-group normalization:"),
                         ("pass_rate", "On the pass rate, per-group:")):
        count = found[metric].groupby(["normalization", "finding"]).size()
        group, batch = ([int(count.get((n, f), 0)) for f in ("higher", "lower", "equivalent",
                                                              "unresolved")]
                        for n in ("per_group", "per_batch"))
        assert (f"{name} {group[0]:,} higher, {group[1]:,} lower, {group[2]:,} within the "
                f"margin, {group[3]:,} unresolved; per-batch: {batch[0]:,}, {batch[1]:,}, "
                f"{batch[2]:,} and {batch[3]:,}.") in text
    inside = {m: (f["difference"].abs() < margin).sum() for (m, f), margin in zip(
        found.items(), (analysis.equivalence_margin, analysis.pass_rate_margin), strict=True)}
    # A point estimate inside the margin is not equivalence: the counts the two one-sided
    # tests show within it are printed beside them.
    assert (f"the point estimates of {inside['pass_rate']:,} of the {len(passing):,} pass-rate "
            f"differences lie inside +-{analysis.pass_rate_margin:g} (the largest is "
            f"{passing['difference'].abs().max():.4f} in absolute value), but only "
            f"{passing['within'].sum():,} are shown within it by the two one-sided tests, and "
            f"the point estimates of {inside['accuracy']:,} of the {len(accuracy):,} accuracy "
            f"differences lie inside +-{analysis.equivalence_margin:g} (the largest "
            f"{accuracy['difference'].abs().max():.4f}), {accuracy['within'].sum():,} shown "
            "within it; a point estimate inside the margin is not equivalence.") in text
    outside = accuracy[~accuracy["within"]]
    assert (f"On accuracy over both normalizations, {(accuracy['finding'] == 'higher').sum():,} "
            f"comparisons are higher than uniform allocation and "
            f"{(accuracy['finding'] == 'lower').sum():,} lower") in text
    assert (f"{accuracy['within'].sum():,} of the {len(accuracy):,} lie within "
            f"+-{analysis.equivalence_margin:g} of it and {len(outside):,} are not shown to, "
            f"{(outside['allocation'] == 'skip_zero_signal').sum():,} of them skipping "
            "zero-signal prompts.") in text
    # The headline cells (the configured estimator and group size, per group).
    head = cells[(cells["baseline"] == analysis.headline_baseline)
                 & (cells["group_size"] == analysis.headline_group_size)
                 & (cells["normalization"] == "per_group")]
    late = accuracy[accuracy["rule"].isin(head.index) & (accuracy["budget"] == largest)]
    assert "; ".join(
        f"{laws[env]}: " + ", ".join(
            f"{rule_name(r.allocation)} {r.difference:+.4f} [{r.low:+.4f}, {r.high:+.4f}]"
            for r in rules.itertuples())
        for env, rules in late.groupby("environment", sort=False)) in text
    budgets = sorted(float(b) for b in frame["budget"].unique())

    def budget(cell: int, metric: str, target: float) -> float:
        return checks.crossing(budgets, means.loc[cell, metric].groupby("budget").mean(),
                               target)

    said, ratios, pass_said, pass_ratios = [], [], [], []
    for env, rules in head.groupby("environment", sort=False, observed=True):
        a, b = cells.at[rules.index[0], "draw_parameters"]
        start = a / (a + b)
        target = start + FRACTIONS[0] * (best_of(a, b, cells.at[rules.index[0], "arms"])
                                         - start)
        uniform = rules.index[rules["allocation"] == "uniform"][0]
        ours = budget(uniform, "accuracy", checks.TARGET)
        said.append(rf"{ours:,.0f} \[[^\]]*\] rollouts on {re.escape(laws[env])}")
        reached = budget(uniform, "pass_rate", target)
        pass_said.append((rf"{reached:,.0f} \[[^\]]*\] rollouts" if math.isfinite(reached)
                          else f"more than {budgets[-1]:,.0f} rollouts")
                         + rf" on {re.escape(laws[env])} \(pass rate {target:.3f}\)")
        for sink, metric, goal, spec, missing in (
                (ratios, "accuracy", checks.TARGET, ".2f", "the target"),
                (pass_ratios, "pass_rate", target, ".3f", "it")):
            sink.append(f"{re.escape(laws[env])}: " + ", ".join(
                re.escape(rule_name(rules.at[rule, "allocation"])) + " " + (
                    rf"{theirs / base:{spec}} \[[^\]]*\] times"
                    if math.isfinite(theirs := budget(rule, metric, goal))
                    and math.isfinite(base := budget(uniform, metric, goal))
                    else f"does not reach {missing} within the budgets")
                for rule in rules.index if rule != uniform))
    assert re.search("Uniform allocation needs " + "; ".join(said) + r"\. Against it: "
                     + "; ".join(ratios) + r"\.", text)
    assert re.search(rf"At {FRACTIONS[0]:g} of it uniform allocation needs "
                     + "; ".join(pass_said) + r"\. Against it: " + "; ".join(pass_ratios)
                     + r"\.", text)
    # Where the rollouts went: each band's share of a seed's rollouts and its groups without
    # signal per group run, means over the seeds that spent any, at the largest budget.
    spent = frame[frame["cell"].isin(head.index) & (frame["budget"] == largest)].copy()
    spent["share"] = spent["rollouts"] / spent.groupby(["cell", "seed"])["rollouts"].transform(
        "sum")
    spent["silent"] = spent["zero_signal_groups"] / spent["groups"].where(spent["groups"] > 0)
    bands = spent.groupby(["cell", "band"])[["share", "silent"]].mean()
    hardest, easiest = spent["band"].min(), spent["band"].max()
    order = ["uniform", "skip_zero_signal", "variance", "oracle_variance"]
    assert f"on the hardest band (band {hardest:,}) and on the easiest (band {easiest:,})" in text
    assert "; ".join(f"{laws[env]}: " + ", ".join(
        f"{rule_name(rule)} {bands.at[(c, hardest), 'share']:.3f} (no signal "
        f"{bands.at[(c, hardest), 'silent']:.3f}) and {bands.at[(c, easiest), 'share']:.3f} "
        f"(no signal {bands.at[(c, easiest), 'silent']:.3f})"
        for rule in order for c in rules.index[rules["allocation"] == rule])
        for env, rules in head.groupby("environment", sort=False, observed=True)) in text


@pytest.mark.slow
def test_every_markdown_table_of_the_report_is_its_table_files_rows(study_outputs: Path
                                                                    ) -> None:
    # Every Markdown table of the report must be found, cell for cell, in the table files
    # (Parquet, each value formatted as the report's table writer prints it:
    # tests/report_checks.py ``shown``): a selection of one file's rows in the file's order
    # and of its columns (a paired table's sides renamed, a value and its interval joined),
    # searched among the files of the study the report is describing there; the count of a
    # file's rows by verdict; the many-prompts verdicts in words; the Methods section's
    # families read from every file; the Provenance section's manifests. A table with no
    # source fails.
    report = (study_outputs / "report.md").read_text()
    tables = study_outputs / "tables"
    files = {(path.parent.name, path.stem): checks.TableFile(pd.read_parquet(path))
             for path in sorted(tables.glob("*/*.parquet"))}
    families = checks.family_rows(tables, methods_test)
    found = checks.markdown_tables(report, {study for study, _ in files})
    unmatched = []
    for table in found:
        shown = any(
            (not table.study or study == table.study)
            and (checks.rows_of(table, file) or checks.counts_of(table, file.frame)
                 or (name == "prompts_verdicts" and checks.verdicts_of(
                     table, file.frame, {a: rule_name(a) for a in file.frame["allocation"]},
                     {e: law(e) for e in file.frame["environment"]})))
            for (study, name), file in files.items())
        shown |= (table.header == ["family", "hypotheses", "test", "seeds per test"]
                  and sorted(table.rows) == sorted(families))
        shown |= (table.header[:2] == ["study", "config hash"]
                  and table.rows == checks.provenance_rows(study_outputs))
        if not shown:
            unmatched.append((table.line + 1, table.study, table.header))
    assert not unmatched
    # No table was missed by the reading (a report whose tables were not found would pass the
    # loop above): one for each header rule ("|:---|---:|") of the report.
    assert len(found) == len(re.findall(r"^\|(?: *:?-+:? *\|)+$", report, re.MULTILINE)) > 0
