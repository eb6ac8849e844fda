"""``python -m figures.paper``: the write-up, ``out/paper.pdf``, typeset by Typst from ``paper/``.

The prose is ``figures/typst/paper.typ`` (its layout in ``style.typ``, its references in
``references.yml`` beside it) and types no number: every number is a macro of the module
``numbers.typ`` that this program writes beside the PDF, in ``out/paper/``, from the tables
through ``figures.cite``, so that each macro's source (table cell, row count or constant of the
code) is listed in ``out/paper/numbers.csv`` and a test can read it again from the files and find
it in the PDF. A digit typed into the prose is refused before anything is written, as in the
report. The paragraphs of the sections that follow from a study's tables (``figures.sections``)
come from their Typst templates into ``sections.typ``, which ``paper.typ`` includes, and what
each finds, for the abstract and the conclusion, from its findings template into ``findings.typ``;
both are checked for typed digits the same way. Figures are the vector PDFs of ``out/figures/``.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pandas as pd
import typst

from figures import claims, prose, sections
from figures.cite import MARKED, Ledger, Tables, unmark
from figures.named import ROLES, named_numbers, role_prefix, roles
from figures.numbers import Scope, study_prefix
from figures.report import arguments
from study.model.atomic import write_files
from study.model.config import ConfigError

PAPER_DIR = Path(__file__).resolve().parent / "typst"
SOURCE = "paper.typ"
SOURCES = (SOURCE, "style.typ", "references.yml")
"""The files of ``figures/typst/`` the PDF is typeset from (copied next to the generated macros)."""
MODULE, MACRO_SOURCES, PDF = "numbers.typ", "numbers.csv", "paper.pdf"
SECTIONS = "sections.typ"
"""The paragraphs of the sections that follow from a study's tables (``figures.sections``),
rendered from their Typst templates; ``paper.typ`` includes it."""
FINDINGS = "findings.typ"
"""What those sections find, as the Typst content ``abstract`` and ``conclusion`` that
``paper.typ`` imports: each section's parts from its findings template (``findings_template``)."""
PARTS = {"abstract": "\n", "conclusion": "\n\n"}
"""The parts a findings template renders, by its variable ``part``, each with what joins the
sections' parts: a clause for the abstract, all in its one paragraph, and the finding with what it
means for the conclusion, a paragraph each."""


class Paper:
    """The paper's macros: name -> text, each one cited number of the registry of named numbers
    (``figures.named.named_numbers``, which the report prints from too), built from the tables
    under ``tables``; and the paragraphs of the declared sections."""

    def __init__(self, tables: Path, runs: Path) -> None:
        self.cite = Tables(tables, runs)
        self.roles = roles(tables)
        self.numbers = named_numbers(self.cite)
        self.macros: dict[str, str] = {}
        self.sections: list[str] = []
        self.findings: dict[str, list[str]] = {part: [] for part in PARTS}

    def build(self) -> dict[str, str]:
        """Every macro of the paper: every name of the registry, printed anew, and each name a
        study of a role (``figures.named.roles``) put under its prefix again under the role's:
        ``HeadlineSeeds`` for the ``Seeds`` of the study whose config takes the headline role."""
        self.declared()
        self.macros = {name: self.numbers.text(name) for name in self.numbers}
        for role, study in self.roles.items():
            for rest, name in self.numbers.scoped(study_prefix(study)).items():
                self.macros[role_prefix(role) + rest] = self.numbers.text(name)
        return self.macros

    def declared(self) -> None:
        """The paragraphs of the sections that follow from a study's tables
        (``figures.sections``), from their Typst templates, in ``self.sections``, and the parts
        of their findings templates in ``self.findings``; their numbers are the registry's,
        under the names the report and ``numbers.tex`` give them."""
        for module, study in sections.given(self.cite.tables):
            section = module.SECTION
            if not section.paper:
                continue
            scope = self.numbers.scope(study_prefix(study))
            # The same numbers again (the registry has them): the template's other context.
            context = {k: v for k, v in module.claims(self.cite, study, scope).items()
                       if not isinstance(v, pd.DataFrame)}
            context.update(n=Macros(scope), title=section.title,
                           figure=claims.figure_name(study, section.figure))
            self.sections.append(prose.render(section.paper, **context))
            findings = findings_template(section.paper)
            if (prose.TEMPLATES / findings).is_file():
                for part in PARTS:
                    # A section may find nothing for a part (no clause for the abstract).
                    found = prose.render(findings, part=part, **context).strip()
                    if found:
                        self.findings[part].append(found)

    def findings_module(self) -> str:
        """``findings.typ``: the imports of the macros and names its parts print, and each part
        of the findings, the sections' in their order, as Typst content."""
        return ('#import "numbers.typ": *\n#import "style.typ": *\n'
                + "".join(f"#let {part} = [\n{joined.join(self.findings[part])}]\n"
                          for part, joined in PARTS.items()))


class Macros:
    """A Typst template's view of one study's named numbers: ``n.Seeds`` is the macro of
    ``numbers.typ`` that the study's scope names ``Seeds`` (``#<prefix>Seeds``, or a constant's
    plain name); ``n.value("Rows")`` the number it prints, for a template's choice of words."""

    def __init__(self, scope: Scope) -> None:
        self._scope = scope

    def __getattr__(self, name: str) -> str:
        if name.startswith("_"):
            raise AttributeError(name)
        return f"#{self._scope.resolve(name)}"

    def value(self, name: str) -> float:
        """The number ``name`` as printed (thousands separated by commas), so that a template
        can say which way its numbers lean, or which is larger, without typing one."""
        return float(unmark(getattr(self._scope, name)).replace(",", ""))


def findings_template(paper: str) -> str:
    """The findings template of a section's paper template: ``staleness_findings.typ.j2`` for
    ``staleness.typ.j2``, the template of its parts of the abstract and the conclusion (a
    section without one adds none)."""
    return paper.removesuffix(".typ.j2") + "_findings.typ.j2"


def literal_text(text: str, ledger: Ledger) -> str:
    """``text`` without the marks of the cited values a template printed, each a literal (a
    name with digits, such as an estimator's): a number of a table reaches the paper as a macro,
    whose source ``numbers.csv`` lists, so any other cited value stops the build. Left marked,
    a value would print its mark's digits and control characters."""
    for match in MARKED.finditer(text):
        if ledger.entries[int(match.group(1))]["kind"] != "literal":
            raise SystemExit(f"the sections' templates print a number without its macro: "
                             f"{match.group(2)!r}")
    return unmark(text)


def typed_numbers(source: str) -> list[str]:
    """Digits in the prose of a Typst source that no macro wrote: what remains after removing
    comments, code (``#name``, ``#name.field``, ``#name(...)`` calls on one line, with their
    strings), labels and references (``<label>``, ``@key``). Quoted prose is prose: checked."""
    text = re.sub(r"//[^\n]*", "", source)
    text = re.sub(r"#[A-Za-z_][\w.-]*(\([^()\n]*\))?", "", text)
    text = re.sub(r"<[\w-]+>|@[\w-]+", "", text)
    return [line.strip() for line in text.splitlines() if re.search(r"\d", line)]


def macros_used(source: str) -> set[str]:
    """The macros a Typst source uses: ``#Name``, a capital letter first (the registry's names;
    Typst's own functions and the style's are lower case)."""
    return set(re.findall(r"#([A-Z][A-Za-z]*)", source))


def module(macros: dict[str, str], studies: dict[str, str]) -> str:
    """The macros as a Typst module of string constants, and ``study``, the study of each role
    (``study.headline``), whose name begins its figures' (``figures.claims.figure_name``)."""
    def quoted(text: str) -> str:
        return '"' + unmark(text).replace("\\", "\\\\").replace('"', '\\"') + '"'
    roles = "".join(f"{role}: {quoted(study)}, " for role, study in sorted(studies.items()))
    return ("".join(f"#let {name} = {quoted(text)}\n" for name, text in sorted(macros.items()))
            + f"#let study = ({roles or ':'})\n")


def sources(paper: Paper) -> pd.DataFrame:
    """Each macro with its text and the ledger entry of its number."""
    ledger = paper.cite.ledger.frame()
    rows = []
    for name, text in sorted(paper.macros.items()):
        # A registry's text is one cited number: one mark.
        (number, _), = MARKED.findall(text)
        entry = ledger.iloc[int(number)].to_dict()
        rows.append({"macro": name, **{k: entry[k] for k in ("text", "kind", "source", "spec",
                                                              "formatter")}})
    return pd.DataFrame(rows)


def build(tables: Path, figures: Path, runs: Path, out: Path) -> None:
    """Typeset ``out`` (the PDF) from ``figures/typst/`` and the macros of the tables; the macros
    and their sources go to ``out.parent / "paper"``, the copied sources beside them."""
    paper = Paper(tables, runs)
    macros = paper.build()
    declared = literal_text("\n".join(paper.sections), paper.cite.ledger)
    findings = literal_text(paper.findings_module(), paper.cite.ledger)
    for name, text in ((PAPER_DIR / SOURCE, (PAPER_DIR / SOURCE).read_text()),
                       ("the sections' templates", "\n".join(paper.sections)),
                       ("the sections' findings templates", paper.findings_module())):
        # A literal's digits are not a result: its marked text is left out of the check.
        typed = typed_numbers(MARKED.sub("", text))
        if typed:
            raise SystemExit(f"a number typed into {name} has no macro: {typed[0]!r}")
        swallowed = re.search(r"#[A-Z][A-Za-z]*;", text)
        if swallowed:
            raise SystemExit(f"{name} ends a macro with ';', which Typst drops as the end of "
                             f"the macro's expression: {swallowed.group()!r} (write '\\;')")
        missing = sorted(macros_used(text) - set(macros))
        # Tables without a study of a role the paper cites are bad input; a macro of a role
        # whose study is there is a fault of the paper's source.
        absent = [role for role in ROLES if role not in paper.roles
                  and any(macro.startswith(role_prefix(role)) for macro in missing)]
        if absent:
            raise ConfigError("--tables", str(tables), "has no study of the paper roles "
                              f"{', '.join(absent)} (a config's [analysis] paper_role)")
        if missing:
            raise SystemExit(f"{name} uses macros that name no number (figures.named): "
                             f"{', '.join(missing)}")
    work = out.parent / "paper"
    work.mkdir(parents=True, exist_ok=True)
    # Typeset in a folder of its own, then replace every output at once: a failed run leaves
    # the earlier macros, sources and PDF together as they were.
    with tempfile.TemporaryDirectory(dir=work) as staging:
        staged = Path(staging)
        for name in SOURCES:
            shutil.copyfile(PAPER_DIR / name, staged / name)
        (staged / MODULE).write_text(module(macros, paper.roles))
        (staged / SECTIONS).write_text(declared)
        (staged / FINDINGS).write_text(findings)
        root = Path(os.path.commonpath([staged.resolve(), figures.resolve()]))
        typst.compile(str(staged / SOURCE), output=str(staged / PDF), root=str(root),
                      sys_inputs={"figures": "/" + figures.resolve().relative_to(root).as_posix()},
                      ignore_system_fonts=True, format="pdf")
        copies = {work / name: functools.partial(shutil.copyfile, staged / name)
                  for name in (*SOURCES, MODULE, SECTIONS, FINDINGS)}
        write_files({**copies,
                     work / MACRO_SOURCES: lambda path: sources(paper).to_csv(path, index=False),
                     out: functools.partial(shutil.copyfile, staged / PDF)})


def main() -> int:
    """Write the paper and the sources of its macros; exit 2 with one line if an argument is not
    usable (``figures.report.arguments``) or the tables lack a study the paper cites."""
    try:
        args = arguments("python -m figures.paper")
        build(args.tables, args.figures, args.runs, args.out)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
