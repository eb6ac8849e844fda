"""The learner registry: the one place that knows which learners exist.

It is built from the modules of ``study/learners/`` (each declares a ``LEARNER``; see
``study.learners``), found by listing the folder, so adding a learner needs no edit here. Config
validation, the grid, the shard cache key, analysis, figures, the report and the tests' strategies
all ask this module. Reading the declarations does not load numba; ``register_kernels`` does,
when a kernel is about to run.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from pathlib import Path
from types import ModuleType

import study.learners as _package
from study.learners import Learner


@cache
def _modules() -> dict[str, ModuleType]:
    found = {}
    for info in pkgutil.iter_modules(_package.__path__):
        module = importlib.import_module(f"{_package.__name__}.{info.name}")
        declared: Learner = module.LEARNER
        if declared.name != info.name:
            raise ImportError(f"study/learners/{info.name}.py declares {declared.name!r}")
        found[declared.name] = module
    # Learners that train first, then the other nested ones, then those that plan from the
    # budget; by name within each: the order of listings, legends and error messages.
    return dict(sorted(found.items(), key=lambda item: (
        not item[1].LEARNER.trains, not item[1].LEARNER.nested, item[0])))


def learners() -> tuple[Learner, ...]:
    """Every learner, in the registry's order."""
    return tuple(module.LEARNER for module in _modules().values())


def names() -> tuple[str, ...]:
    """Every learner's name (the values ``grid.algorithm`` accepts)."""
    return tuple(_modules())


def learner(name: str) -> Learner:
    """The learner called ``name`` (``KeyError`` if there is none)."""
    return _modules()[name].LEARNER


def display(name: str) -> str:
    """The learner's name for figures and prose."""
    return learner(name).display


def baselines() -> tuple[str, ...]:
    """Every baseline some learner knows, in order of first declaration (the values
    ``grid.baseline`` accepts)."""
    return tuple(dict.fromkeys(b for item in learners() for b in item.baselines))


def trained() -> tuple[str, ...]:
    """The learners that train (have an lr and a baseline)."""
    return tuple(item.name for item in learners() if item.trains)


def references() -> tuple[str, ...]:
    """The learners that do not train: the references a trained learner is compared with."""
    return tuple(item.name for item in learners() if not item.trains)


def source_files() -> tuple[Path, ...]:
    """The learner modules' files (their source is part of a shard's cache key)."""
    return tuple(Path(module.__file__) for module in _modules().values())


@cache
def register_kernels() -> None:
    """Give the kernel every learner's numba pieces (``study.core.hooks``); loads numba."""
    for module in _modules().values():
        module.register()
