"""Tables a study gets when its grid asks their question, one module each.

A question module declares ``TABLE`` (the table's name), ``TEST`` (the test behind the p-values
of its family, as the report's Methods names it; "" for a table without p-values, and a table
with a family and no test stops the report) and ``table(outcomes, cells, settings)``, which
returns the table from the study's outcomes, its cells and its ``settings`` row (the config's
``[analysis]`` and what it resolves to: ``headline_cell``, ``compared_budgets``, ``reference``,
``study``), empty when the study does not ask the question (so the question follows from what
the config declares, not from the study's name). ``analysis.study_tables`` finds the modules by
listing this folder: a new table is one module here, and for the report and the paper a section
in ``figures/sections/`` with its template (CONTRIBUTING.md).
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def modules() -> list[ModuleType]:
    """Every question module, by name."""
    return [importlib.import_module(f"{__name__}.{info.name}")
            for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name)]
