"""The report's sections that follow from the tables a study's analysis made, one module each.

A section module declares ``SECTION = Section(...)``: the table whose presence in a study's
tables gives the study this section (the analysis makes it from what the study's config
declares), its title, its templates (``figures/templates/``: the report's, and the paper's
paragraph) and its figure; ``draw(tables,
out_dir, name)``, which draws the figure from the study's tables in the folder ``tables``
(``python -m figures``); and
``claims(cite, study, numbers)``, which puts the section's named numbers into ``numbers`` (a
``figures.numbers.Scope`` of the study) and returns the template's other context: phrases without
digits and the frames its tables show. The report finds the modules by listing this folder.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from figures.cite import read_table


@dataclass(frozen=True)
class Section:
    """A section: given to every study with ``table``; ``figure`` is the stem of its figure's
    files, which are named ``<study>_<figure>``."""

    table: str
    title: str
    template: str
    figure: str
    paper: str = ""
    """The Typst template of the section's paragraph of the paper ("" for none)."""


def modules() -> list[ModuleType]:
    """Every section module, by name."""
    return [importlib.import_module(f"{__name__}.{info.name}")
            for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name)]


def given(tables: Path) -> list[tuple[ModuleType, str]]:
    """Every (section module, study) of the tables under ``tables``: the studies whose analysis
    made the section's table with rows, by module and then by study. The named numbers, the
    report and the paper all take their sections from here."""
    return [(module, path.parent.name) for module in modules()
            for path in sorted(tables.glob(f"*/{module.SECTION.table}.parquet"))
            if read_table(tables, f"{path.parent.name}/{module.SECTION.table}") is not None]
