"""Every table of a single-bandit study, one module each (``analysis.prompts.questions`` holds a
many-prompts study's, by the same protocol).

A question module declares:

* ``TABLE``: the table's name; a name with one field, such as ``vs_{learner}``, makes one table
  per key of the mapping its builder returns.
* ``TEST``: the test behind the p-values of its families, as the report's Methods names it: one
  phrase for every family of the table, a mapping from a family's name within its study to its
  phrase where they differ, "" for a table without p-values. A table with a family and no test
  stops the report.
* ``AFTER`` (optional): the tables its builder reads from ``Inputs.tables``, built first.
* ``table(inputs)``: the table from the study's ``Inputs``, empty (no rows) when the study does not
  ask the question, so that the question follows from what the config declares, not from the
  study's name; an empty table is not written.

``build`` finds the modules by listing a package's folder: a new table is one module here, and for
the report and the paper a section in ``figures/sections/`` with its template (CONTRIBUTING.md).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from graphlib import CycleError, TopologicalSorter
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import pandas as pd

from analysis.outcomes import Outcomes
from study.model.config import AnalysisConfig
from study.model.design import Design
from study.model.environment import Environment

SETTINGS = "settings"
"""The one-row table of the ``[analysis]`` settings a study was analysed with (and the headline
cell and reference learner they resolve to), which the write-up reads its comparisons from."""
PACKAGES = ("analysis.questions", "analysis.prompts.questions")
"""The packages of question modules: a single-bandit study's and a many-prompts study's."""

FIELD = re.compile(r"\{[^}]*\}")
"""The field of a ``TABLE`` that names one table per key of its builder's mapping."""

T = TypeVar("T")


@dataclass
class Inputs:
    """What a question module builds its table from: the study's name and ``[analysis]``, its
    settings row (``SETTINGS``), its cells, its outcomes (a single-bandit study) or tidy runs (a
    many-prompts one, and its runs per environment of a population), its environments by their
    text, the folder of its runs, its design (if
    its cells are a factorial's rows), and the tables built before (those of ``AFTER`` among
    them)."""

    study: str
    analysis: AnalysisConfig
    settings_frame: pd.DataFrame
    cells: pd.DataFrame
    run_dir: Path
    outcomes: Outcomes | None = None
    runs: pd.DataFrame | None = None
    environment_runs: pd.DataFrame | None = None
    """A many-prompts study's tidy runs per environment of its populations
    (``study.model.population``, ``runs`` has them summed per band); None without one."""
    environments: Mapping[str, Environment] = field(default_factory=dict)
    design: Design | None = None
    """The fractional factorial whose rows the study's cells are (``study.model.design``)."""
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    _shared: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def settings(self) -> pd.Series:
        """The settings row: the config's ``[analysis]`` with ``study``, and what it resolves
        to (a single-bandit study's ``headline_cell`` and ``reference``)."""
        return self.settings_frame.iloc[0]

    def shared(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()``, once per study for ``key``: what two tables draw from one set of
        resamples, or a choice several tables make alike."""
        if key not in self._shared:
            self._shared[key] = compute()
        return self._shared[key]


def modules(package: str = PACKAGES[0]) -> list[ModuleType]:
    """Every question module of ``package``, by module name."""
    found = importlib.import_module(package)
    return [importlib.import_module(f"{package}.{info.name}")
            for info in sorted(pkgutil.iter_modules(found.__path__), key=lambda i: i.name)]


def _order(found: list[ModuleType]) -> list[ModuleType]:
    """The modules in an order that builds each after the tables of its ``AFTER``."""
    by_table = {module.TABLE: module for module in found}
    graph = {module.TABLE: set(getattr(module, "AFTER", ())) for module in found}
    for module in found:
        missing = graph[module.TABLE] - set(by_table)
        if missing:
            raise ValueError(f"{module.__name__} reads {sorted(missing)}, which no question "
                             "module builds")
    try:
        return [by_table[name] for name in TopologicalSorter(graph).static_order()]
    except CycleError as error:
        raise ValueError(f"question modules read each other's tables: {error.args[1]}") from None


def build(inputs: Inputs, package: str = PACKAGES[0]) -> dict[str, pd.DataFrame]:
    """Every table of ``package``'s question modules that ``inputs``' study asks for (those with
    rows), each module after those it reads; also left in ``inputs.tables``."""
    for module in _order(modules(package)):
        found = module.table(inputs)
        named = ({FIELD.sub(key, module.TABLE): frame for key, frame in found.items()}
                 if isinstance(found, Mapping) else {module.TABLE: found})
        inputs.tables.update({name: frame for name, frame in named.items() if len(frame)})
    return inputs.tables


def _pattern(table: str) -> re.Pattern[str]:
    """A module's ``TABLE`` as a pattern of the names it writes (a field matches a word)."""
    parts = FIELD.split(table)
    return re.compile("[a-z0-9_]+".join(re.escape(part) for part in parts))


def methods_test(table: str, family: str) -> str:
    """The Methods test of the family named ``family`` (within its study) in the table named
    ``table``: its module's ``TEST`` ("" when no module builds it or the module names none)."""
    for package in PACKAGES:
        for module in modules(package):
            if _pattern(module.TABLE).fullmatch(table):
                test = module.TEST
                return test.get(family, "") if isinstance(test, Mapping) else test
    return ""
