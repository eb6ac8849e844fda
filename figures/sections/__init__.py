"""The report's sections, one module each, given to a study by the tables its analysis made.

A section module declares ``SECTION = Section(...)``: the table whose presence in a study's tables
gives the study this section (the analysis makes it from what the study's config declares; where
many studies make it, the section is also ``declared``, given only to a study whose config's
``[analysis] sections`` names the module), its title, its place in the report, its templates
(``figures/templates/``: the report's, and the paper's paragraph) and its figure; ``unfit(tables,
study)``, where a study can have the section's table without the section fitting it, the reason it
does not ("" where it does; read from the study's tables in the folder ``tables``); ``claims(cite,
study, numbers)``, which puts the section's named numbers, if it names any, into ``numbers`` (a
``figures.numbers.Scope`` of the study) and returns the template's other context: phrases without
digits, the frames its tables show and the values it prints (``figures.claims.printed``: each a
``figures.numbers.Named``, recorded where the template prints it); and, where the section draws its
own figures, ``draw(tables, out_dir, study)``, which draws them from the study's tables in the
folder ``tables`` into ``out_dir`` and returns their files by figure name (``python -m figures``).
A ``shared`` section with an ``introduction`` also has ``introduce(cite, studies)``, the context of
the introduction. The report finds the modules by listing this folder.
"""

from __future__ import annotations

import importlib
import itertools
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from analysis.questions import SETTINGS
from figures.cite import read_table
from study.model.config import ConfigError
from study.model.schema import INDEX_FILE


@dataclass(frozen=True)
class Section:
    """A section: given to every study with ``table`` (and, if ``declared``, that names the
    module in its config's ``[analysis] sections``); numbered in the report by ``order``."""

    table: str
    title: str
    template: str
    order: int
    """The section's place in the report: sections are numbered in this order, then by study."""
    figures: tuple[str, ...] = ()
    """The stems of the figures the module's ``draw`` makes (those its study's tables allow),
    each saved as ``<study>_<stem>`` (``figure_name``); a template's ``figure(caption)`` shows the
    first (``figure``), ``figure(caption, name=stem)`` another."""
    paper: str = ""
    """The Typst template of the section's paragraph of the paper ("" for none)."""
    declared: bool = False
    """Given only to a study whose config names the module in ``[analysis] sections``: for a
    table that many studies make but one section describes for one of them."""
    shared: bool = False
    """One section for every study given it, under a heading without a study's name (else one
    section per study, its heading naming it)."""
    introduction: str = ""
    """The template of a shared section's opening, before its studies' parts ("" for none)."""
    parts: tuple[str, ...] = ()
    """Names besides the module's that a study may declare in ``[analysis] sections``, for a part
    of this section that reads its tables."""

    @property
    def figure(self) -> str:
        """The stem of the section's first figure ("" for none): a template's default."""
        return next(iter(self.figures), "")


def modules() -> list[ModuleType]:
    """Every section module, in the report's order."""
    found = [importlib.import_module(f"{__name__}.{info.name}")
             for info in pkgutil.iter_modules(__path__)]
    return sorted(found, key=lambda module: module.SECTION.order)


def declarable() -> list[str]:
    """The names a config's ``[analysis] sections`` may hold: the declared sections' modules and
    their parts, sorted."""
    declared = [module for module in modules() if module.SECTION.declared]
    return sorted({module.__name__.rpartition(".")[2] for module in declared}
                  | {part for module in declared for part in module.SECTION.parts})


def check_declared(field: str, root: Path) -> None:
    """ConfigError naming ``field`` if a study of the tables under ``root`` declares (in its
    config's ``[analysis] sections``) a name that is no section module here, nor a part of one
    (``Section.parts``): a misspelt name would leave its section out without a word."""
    names = declarable()
    for path in sorted(root.glob(f"*/{SETTINGS}.parquet")):
        for name in read_table(root, f"{path.parent.name}/{SETTINGS}")["sections"].iat[0]:
            if name not in names:
                raise ConfigError(field, str(path.parent), f"declares the section {name!r} (its "
                                  f"config's [analysis] sections), not one of {', '.join(names)}")


def declaring(tables: Path, name: str) -> list[str]:
    """The studies under ``tables`` whose config's ``[analysis] sections`` names ``name``."""
    return [path.parent.name for path in sorted(tables.glob(f"*/{SETTINGS}.parquet"))
            if name in read_table(tables, f"{path.parent.name}/{SETTINGS}")["sections"].iat[0]]


def unfit(module: ModuleType, tables: Path, study: str) -> str:
    """Why the section ``module`` does not fit ``study`` although its table is there ("" where
    it fits, or the module has no ``unfit``)."""
    check = getattr(module, "unfit", None)
    return check(tables / study, study) if check else ""


def given(tables: Path) -> list[tuple[ModuleType, str]]:
    """Every (section module, study) of the tables under ``tables``: the studies whose analysis
    made the section's table with rows (and, for a declared section, that declare it) and that
    the section fits (its ``unfit``), in the report's order of the sections and then by study.
    The named numbers, the report, the paper and the figures all take their sections from
    here."""
    return [(module, path.parent.name) for module in modules()
            for path in sorted(tables.glob(f"*/{module.SECTION.table}.parquet"))
            if read_table(tables, f"{path.parent.name}/{module.SECTION.table}") is not None
            and (not module.SECTION.declared
                 or path.parent.name in declaring(tables, module.__name__.rpartition(".")[2]))
            and not unfit(module, tables, path.parent.name)]


@dataclass(frozen=True)
class NotGiven:
    """The studies a section was not given, by reason."""

    module: ModuleType
    missing: list[str]
    """Studies whose analysis made no rows of the section's table."""
    undeclared: list[str]
    """Studies with the table whose config does not name the (declared) section."""
    unfit: list[tuple[str, str]]
    """(study, why) for the studies with the table (declaring the section) that it does not fit."""


def not_given(tables: Path) -> list[NotGiven]:
    """Each section module that some study under ``tables`` was not given, with those studies
    by reason."""
    studies = sorted(path.parent.name for path in tables.glob(f"*/{INDEX_FILE}"))
    pairs = set(given(tables))
    found = []
    for module in modules():
        name = module.__name__.rpartition(".")[2]
        left = [s for s in studies if (module, s) not in pairs]
        missing = [s for s in left if read_table(tables, f"{s}/{module.SECTION.table}") is None]
        undeclared = [s for s in left if s not in missing and module.SECTION.declared
                      and s not in declaring(tables, name)]
        why = [(s, unfit(module, tables, s)) for s in left
               if s not in missing and s not in undeclared]
        if left:
            found.append(NotGiven(module, missing, undeclared, why))
    return found


def headed(tables: Path) -> list[tuple[ModuleType, list[str]]]:
    """The report's sections in order, one per heading: a shared section with every study given
    it, any other section once per study."""
    parts = []
    for module, pairs in itertools.groupby(given(tables), key=lambda pair: pair[0]):
        studies = [study for _, study in pairs]
        parts += [(module, studies)] if module.SECTION.shared else [(module, [s]) for s in studies]
    return parts


