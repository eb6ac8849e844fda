"""Tables a study gets when its grid asks their question, one module each.

A question module declares ``TABLE`` (the table's name) and ``table(outcomes, cells)``, which
returns the table, empty when the study's cells do not ask the question (so the question follows
from what the config declares, not from the study's name). ``analysis.study_tables`` finds the
modules by listing this folder: a new table is one module here, and for the report and the paper
a section in ``figures/sections/`` with its templates.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def modules() -> list[ModuleType]:
    """Every question module, by name."""
    return [importlib.import_module(f"{__name__}.{info.name}")
            for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name)]
