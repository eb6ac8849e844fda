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
from types import ModuleType


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
