"""``python -m figures.report``: ``out/report.md``, ``out/numbers.tex`` and
``out/report_sources.csv`` from the analysis tables, the figures and the studies' manifests.

The report's sections are those ``figures.sections`` gives the studies' tables, in their order:
each module selects rows and computes values, its Jinja2 template (``figures/templates/``) holds
the sentences, and the report here only reads, numbers the headings, renders and checks. Every
number in the prose is a ``figures.cite.Cited`` value: a table's cell, a count of a table's rows,
a value of a study's manifest or a named constant of the code, printed by a template (a named
number, ``figures.numbers``) or by the Methods and Provenance sections written here. Each
printed number is recorded with its source in ``report_sources.csv``; a digit in the prose that
no cited value wrote stops the report (``Report.add``), and ``figures.cite.expected_text``
recomputes each recorded number from its source, which the tests do for every one.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd

from analysis import questions
from analysis.tables import readable
from figures import claims, prose, sections
from figures.cite import MARKED, Tables, unmark, unmarked_digits
from figures.claims import adjusted_column, family_query
from figures.curves import check_tables_root
from figures.named import named_numbers
from figures.numbers import Named, Scope, study_prefix
from figures.sections import check_declared
from study.model.atomic import write_files
from study.model.config import ArgumentParser, ConfigError
from study.model.schema import INDEX_FILE, MANIFEST_FILE

SOURCES_FILE = "report_sources.csv"
"""Beside the report: one row per number in its prose, with where it comes from."""
NUMBER_SOURCES_FILE = "number_sources.csv"
"""The named numbers (``figures.numbers``) with their sources, beside ``numbers.tex``."""
class Report:
    """Reads the tables of each study under ``tables`` and renders the Markdown report; every
    number it writes into prose is cited (``figures.cite``)."""

    def __init__(self, tables: Path, figures: Path, runs: Path, out: Path) -> None:
        self.figures, self.runs, self.out = figures, runs, out
        self.cite = Tables(tables, runs)
        # Every named number of the write-up, built as the paper builds it, so the report's
        # templates, the paper and numbers.tex print each under one name.
        self.numbers = named_numbers(self.cite)
        self.lines: list[str] = []
        self.level = self.cite.constant("1 - analysis.families.ALPHA")
        self.level90 = self.cite.constant("1 - 2 * analysis.families.ALPHA")
        self.alpha = self.cite.constant("analysis.families.ALPHA")
        self.target = self.cite.constant("analysis.budget_to_target.TARGET")

    def table(self, study: str, name: str) -> pd.DataFrame | None:
        """One table of one study, or None where it was not made or has no rows."""
        return self.cite.read(study, name)

    def add(self, *lines: str) -> None:
        """Lines of the report. A digit in a line of prose (not a heading, a table or a figure
        link) that no cited value wrote is a number typed into the prose: refused."""
        for line in (part for text in lines for part in text.split("\n")):
            if not line.startswith(("#", "|", "![")) and unmarked_digits(line):
                raise ValueError("a number in the report's prose has no source (cited numbers "
                                 f"shown as ~): {MARKED.sub('~', line)[:300]!r}")
            self.lines.append(self.cite.ledger.placed(line, len(self.lines)))

    def figure_text(self, name: str, caption: str) -> str:
        """A figure's link and caption, or a note that it was not drawn."""
        path = self.figures / f"{name}.png"
        if path.is_file():
            relative = os.path.relpath(path, self.out.parent)
            return f"![{name}]({relative})\n\n*Figure: {caption}*\n"
        return f"*(figure {self.cite.literal(name)} not drawn: its tables are missing)*\n"

    def markdown(self, frame: pd.DataFrame) -> None:
        self.add(self.markdown_text(frame))

    def markdown_text(self, frame: pd.DataFrame) -> str:
        """A table as Markdown, with a blank line after it."""
        # Text columns (typed categoricals hold no marks and no gaps): a row with no text shows
        # empty, not "nan" or "None".
        text = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])
                and not isinstance(frame[c].dtype, pd.CategoricalDtype)]
        shown = frame.fillna({c: "" for c in text})
        shown = shown.assign(**{c: shown[c].map(lambda v: unmark(v) if isinstance(v, str) else v)
                                for c in text})
        return readable(shown).to_markdown(index=False, floatfmt=".5g") + "\n"

    def section(self, number: int, module: ModuleType, studies: list[str]) -> None:
        """Section ``number`` of ``figures.sections``: its heading, a shared section's
        introduction and each study's part, the sentences from their templates and the numbers
        named in ``self.numbers`` under the study's prefix."""
        section = module.SECTION
        # A section given to several studies, unless shared (whose templates head each study's
        # part), has one heading and each study's part headed by its name: no title twice.
        parted = not section.shared and len(studies) > 1
        self.add(f"## {number}. {section.title}"
                 + ("" if section.shared or parted else f" (`{studies[0]}`)"), "")
        if section.introduction:
            self.add(self.prose(section.introduction, self.numbers.scope(""),
                                module.introduce(self.cite, studies)))
        for study in studies:
            if parted:
                self.add(f"### {study}", "")
            numbers = self.numbers.scope(study_prefix(study))
            context = {"study": study, **module.claims(self.cite, study, numbers)}
            self.add(self.prose(section.template, numbers, context, study, section.figure))

    def prose(self, template: str, numbers: Scope, context: dict[str, Any], study: str = "",
              figure: str = "") -> str:
        """A template's text with ``numbers`` as ``n``, ``context``, and the report's figures
        (``figure(caption, name=stem)``: the figure ``stem`` of ``study``, by default
        ``figure``) and tables (``markdown``)."""
        def shown(caption: str, name: str = figure) -> str:
            return self.figure_text(claims.figure_name(study, name), caption)

        return prose.render(template, n=numbers, **context, figure=shown,
                            markdown=self.markdown_text)

    def methods(self) -> None:
        """The Methods section: the families of this run's tables, with their sizes, tests and
        seeds, and the tests and intervals the report uses."""
        rows = []
        for path in sorted(self.cite.tables.glob("*/*.parquet")):
            table = self.table(path.parent.name, path.stem)
            if table is None:
                continue  # a table with no rows: the study does not ask that question
            for column in ("family", "equivalence_family"):
                if column not in table or adjusted_column(table.columns, column) not in table:
                    continue  # no family, or names the family of a test planned elsewhere
                for name in table[column].drop_duplicates():
                    if not name:
                        continue  # rows in no family: a repeated simulation's, or another test's
                    test = questions.methods_test(path.stem, str(name).split("/")[-1])
                    counted = table.query(family_query(table, name, column), engine="python")
                    if counted.empty:
                        continue  # tested in another table
                    if not test:
                        # Methods would list a family without its test.
                        raise ValueError(f"the family {name} of the table {path.stem} has no "
                                         "test for Methods: give its question module a TEST")
                    seeds = counted["seeds"]
                    rows.append({"family": name, "hypotheses": len(counted), "test": test,
                                 "seeds per test": f"{seeds.min():,}" if seeds.min() == seeds.max()
                                 else f"{seeds.min():,} to {seeds.max():,}"})
            if "bonferroni_family" in table:
                # A family checked by simultaneous intervals (Bonferroni), which have no p-value.
                for name, members in table.groupby("bonferroni_family", sort=False):
                    seeds = members.get("seeds")
                    rows.append({"family": f"{path.parent.name}/{name}",
                                 "hypotheses": int(members["family_size"].iat[0]),
                                 "test": "simultaneous percentile seed-bootstrap intervals "
                                         f"(Bonferroni), {int(members['resamples'].iat[0]):,} "
                                         "resamples",
                                 "seeds per test": "" if seeds is None else f"{seeds.min():,}"})
        literal = self.cite.literal
        self.add(self.prose("methods.md.j2", self.numbers.scope(""), {
            "families": pd.DataFrame(rows) if rows else None,
            "methods": [{"name": name, "formula": literal(formula), "reference": literal(source)}
                        for name, formula, source in METHODS],
            "quantile": literal("z_(1 - alpha/2)"), "alpha": Named(self.alpha, "g"),
            "level": Named(self.level, ".0%"), "level90": Named(self.level90, ".0%"),
            "target": Named(self.target, "g"),
            "resamples": Named(self.cite.constant("analysis.budget_to_target.BOOTSTRAP"), ","),
            "more_resamples": Named(
                self.cite.constant("analysis.budget_to_target.MORE_RESAMPLES"), ","),
            "noisy_resamples": Named(
                self.cite.constant("analysis.questions.reward_noise.FAMILY_RESAMPLES"), ","),
            "noisy_pass_resamples": Named(
                self.cite.constant("analysis.questions.reward_noise.PASS_RATE_RESAMPLES"), ","),
            "factorial_resamples": Named(
                self.cite.constant("analysis.prompts.factorial.TOKENS_RESAMPLES"), ","),
            "settled": Named(self.cite.constant("analysis.cost.SETTLED_SEEDS"), ""),
            "sources": SOURCES_FILE}))

    def provenance(self) -> None:
        """The Provenance section: each study's manifest in a row, and the versions."""
        rows = []
        for manifest_path in sorted(self.runs.glob(f"*/{MANIFEST_FILE}")):
            m = json.loads(manifest_path.read_text())
            rows.append({"study": m["study"], "config hash": m["config_hash"][:16],
                         "root seed": m["root_seed"], "seeds": m["seeds"],
                         "episodes": f"{m['episodes']:.3g}", "wall seconds": m["wall_seconds"],
                         "episodes per second": f"{m['episodes_per_second']:.3g}",
                         "git commit": m["git_commit"][:12]})
        versions = []
        if rows:
            study = sorted(self.runs.glob(f"*/{MANIFEST_FILE}"))[0].parent.name
            found = json.loads((self.runs / study / MANIFEST_FILE).read_text())["versions"]
            versions = [(name, self.cite.manifest_value(study, f"versions.{name}"))
                        for name in sorted(found)]
        self.add(self.prose("provenance.md.j2", self.numbers.scope(""),
                            {"runs": pd.DataFrame(rows) if rows else None,
                             "versions": versions}))

    def header(self) -> None:
        """The title and the studies and folders the report was made from."""
        studies = sorted(path.parent.name for path in self.cite.tables.glob(f"*/{INDEX_FILE}"))
        self.add(self.prose("report.md.j2", self.numbers.scope(""), {
            "studies": [self.cite.literal(study) for study in studies],
            "tables": self.cite.literal(str(self.cite.tables)),
            "runs": self.cite.literal(str(self.runs)),
            "numbers_file": self.cite.literal(str(self.out.parent / "numbers.tex"))}))

    def not_given(self) -> None:
        """A line for each section some study was not given, saying which and why."""
        self.add(self.prose("not_given.md.j2", self.numbers.scope(""), {"sections": [
            {"title": self.cite.literal(left.module.SECTION.title),
             "table": left.module.SECTION.table,
             "name": left.module.__name__.rpartition(".")[2],
             "missing": [self.cite.literal(s) for s in left.missing],
             "undeclared": [self.cite.literal(s) for s in left.undeclared],
             "unfit": [(self.cite.literal(s), why) for s, why in left.unfit]}
            for left in sections.not_given(self.cite.tables)]}))

    def render(self) -> str:
        """The whole report: its title, its sections in order, the sections not given, Methods
        and Provenance."""
        self.header()
        for number, (module, studies) in enumerate(headings(self.cite.tables), start=1):
            self.section(number, module, studies)
        for section in (self.not_given, self.methods, self.provenance):
            section()
        return "\n".join(self.lines) + "\n"


def headings(tables: Path) -> list[tuple[ModuleType, list[str]]]:
    """The report's sections in order, one per heading, each with the studies given it: the
    sections of ``figures.sections.headed``, a section given to several studies once."""
    return [(module, [study for _, studies in parts for study in studies])
            for module, parts in itertools.groupby(sections.headed(tables),
                                                   key=lambda part: part[0])]


METHODS = (
    ("Wilson score interval", "(p + z^2/2n +- z sqrt(p(1 - p)/n + z^2/4n^2)) / (1 + z^2/n) for "
     "k of n seeds right, p = k/n", "Wilson 1927; Brown, Cai and DasGupta 2001"),
    ("exact binomial test against chance", "with k of n seeds right and chance c (the best "
     "arms' share of the K arms), one-sided p = P(Bin(n, c) >= k); two-sided, the sum of "
     "P(Bin(n, c) = j) over every j no more likely than k", "`scipy.stats.binomtest`"),
    ("exact McNemar test", "with b seeds right only in cell A and c only in B, "
     "p = min(1, 2 P(Bin(b + c, 1/2) <= min(b, c)))", "McNemar 1947; Fagerland, Lydersen and "
     "Laake 2013"),
    ("Newcombe interval for a paired difference", "the difference of the two accuracies with "
     "limits from each accuracy's Wilson limits and the phi correlation of the paired outcomes",
     "Newcombe 1998, method 10"),
    ("two one-sided tests (TOST)", "equivalent within +-d when both one-sided tests at level "
     "alpha reject, i.e. the (1 - 2 alpha) interval lies inside (-d, d), per row; per-arm cells "
     "against chance: two exact binomial tests at c - d and c + d, the larger p Holm-adjusted in "
     "its own family", "Schuirmann 1987"),
    ("Holm's step-down method", "with p-values sorted p_(1) <= ... <= p_(m), reject while "
     "p_(i) <= alpha / (m - i + 1); adjusted p_(i) = max over j <= i of min(1, (m - j + 1) p_(j))",
     "Holm 1979; `statsmodels.stats.multitest.multipletests`"),
    ("percentile seed bootstrap", "resample the seeds with replacement (all checkpoints of a "
     "seed together, both cells of a pair together), recompute, take the alpha/2 and "
     "1 - alpha/2 quantiles", "Efron and Tibshirani 1993"),
    ("sup-t simultaneous band", "at every checkpoint the estimate minus f times its distance "
     "to the lower Wilson limit, and plus f times its distance to the upper one (clipped to "
     "[0, 1]), with f the (1 - alpha) quantile over seed-bootstrap resamples of the largest, over "
     "checkpoints, deviation of the resampled curve from the estimate in units of the Wilson "
     "half-width on its side, and f at least 1", "Montiel Olea and Plagborg-Moller 2019"),
    ("Clopper-Pearson bound", "the exact binomial limit for a share of seeds, used where fewer "
     "than a settled number of seeds differ", "Clopper and Pearson 1934"),
    ("exact power", "sum over outcomes of their probability under the stated effect times "
     "whether the exact test rejects; the normal approximations beside it are Cohen's h "
     "(binomial) and Connor's formula (McNemar)", "Connor 1987; Chernick and Liu 2002 on the "
     "sawtooth"),
    ("paired t-test of a mean difference", "t = mean(d) / (sd(d) / sqrt(n)) over the n "
     "per-seed differences d, two-sided, n - 1 degrees of freedom; where fewer than a settled "
     "number of seeds differ from the most common d, the p-value of the Clopper-Pearson bound "
     "instead", "`scipy.stats.ttest_1samp`"),
    ("compute curve", "R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B) by least squares on the "
     "budgets up to a cut stated before the run, R0 the untrained accuracy, seed-bootstrap "
     "percentile intervals of A, B and C_mid; at each budget held out, the percentile interval "
     "of the measured mean minus the prediction over the same resamples, each refitted",
     "Khatri et al. 2025 (ScaleRL); `scipy.optimize.curve_fit`"),
    ("hardness", "H = sum over the arms a other than the best of 1 / (p_best - p_a)^2, the "
     "complexity H1 of the reference without its term for the best arm (1 / the smallest gap^2)",
     "Audibert, Bubeck and Munos 2010"),
)
"""Each test and interval of the report: name, formula, reference (for the Methods section)."""


def arguments(prog: str) -> argparse.Namespace:
    """The command line of the report and of the paper: the tables, figures and runs they read
    (``--tables``, ``--figures``, ``--runs``) and the file they write (``--out``), each checked
    before anything is read or written: a ``ConfigError`` names the first that is not usable."""
    parser = ArgumentParser(prog=prog)
    for name, said in (("tables", "the folder of every study's tables"),
                       ("figures", "the folder python -m figures wrote"),
                       ("runs", "the folder of every study's runs (its manifests)"),
                       ("out", "the file to write")):
        parser.add_argument(f"--{name}", type=Path, required=True, help=said)
    args = parser.parse_args()
    check_tables_root("--tables", args.tables)
    check_declared("--tables", args.tables)
    if not (args.figures / INDEX_FILE).is_file():
        raise ConfigError("--figures", str(args.figures),
                          f"has no {INDEX_FILE} (python -m figures writes it last)")
    for study in sorted(path.name for path in args.tables.iterdir() if path.is_dir()):
        try:
            json.loads((args.runs / study / MANIFEST_FILE).read_text())
        except (OSError, ValueError):
            raise ConfigError("--runs", str(args.runs), f"holds no readable {study}/"
                              f"{MANIFEST_FILE} (the runs of the tables' study {study})") from None
    folder = args.out.parent
    if not folder.is_dir():
        raise ConfigError("--out", str(args.out), "is not in a folder that exists")
    if args.out.is_dir():
        raise ConfigError("--out", str(args.out), "is a folder")
    if not os.access(folder, os.W_OK):
        raise ConfigError("--out", str(args.out), "is in a folder that cannot be written")
    return args


def main() -> int:
    """Write the report, the sources of its numbers and the LaTeX numbers, each atomically; exit
    2 with one line if an argument is not usable (``arguments``)."""
    try:
        args = arguments("python -m figures.report")
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    report = Report(args.tables, args.figures, args.runs, args.out)
    text = report.render()
    numbers = report.numbers.latex()
    sources = report.cite.ledger.frame()
    named = report.numbers.frame()
    write_files({args.out.parent / "numbers.tex": lambda path: path.write_text(numbers),
                 args.out.parent / SOURCES_FILE: lambda path: sources.to_csv(path, index=False),
                 args.out.parent / NUMBER_SOURCES_FILE:
                     lambda path: named.to_csv(path, index=False),
                 args.out: lambda path: path.write_text(text)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
