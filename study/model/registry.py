"""The registry of learners and reward models: the one place that knows which exist.

It is built from the modules of ``study/learners/`` (each declares a ``LEARNER``; see
``study.learners``) and of ``study/rewards/`` (each declares a ``REWARD``; see
``study.rewards``), found by listing the folders, so adding one needs no edit here. Config
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

import study.learners as _learners
import study.rewards as _rewards
from study.learners import Learner
from study.rewards import RewardModel


def _declared(package: ModuleType, attribute: str) -> dict[str, ModuleType]:
    """The modules of ``package``'s folder by the name their ``attribute`` declares (which must be
    the module's own name)."""
    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if getattr(module, attribute).name != info.name:
            raise ImportError(f"{package.__name__}.{info.name} declares "
                              f"{getattr(module, attribute).name!r}")
        found[info.name] = module
    return found


@cache
def _modules() -> dict[str, ModuleType]:
    found = _declared(_learners, "LEARNER")
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


@cache
def _reward_modules() -> dict[str, ModuleType]:
    # Bernoulli first (the default of a config's probabilities), then by name.
    return dict(sorted(_declared(_rewards, "REWARD").items(),
                       key=lambda item: (item[0] != "bernoulli", item[0])))


def reward_models() -> tuple[RewardModel, ...]:
    """Every reward model, in the registry's order."""
    return tuple(module.REWARD for module in _reward_modules().values())


def reward_model(name: str) -> RewardModel:
    """The reward model called ``name`` (``KeyError`` if there is none)."""
    return _reward_modules()[name].REWARD


def source_files() -> tuple[Path, ...]:
    """The learner and reward model modules' files (their source is part of a shard's cache
    key)."""
    return tuple(Path(module.__file__) for module in (*_modules().values(),
                                                      *_reward_modules().values()))


@cache
def register_kernels() -> None:
    """Give the kernel every learner's and reward model's numba pieces (``study.core.hooks``,
    ``study.core.reward_hooks``); loads numba."""
    for module in (*_modules().values(), *_reward_modules().values()):
        module.register()
    for module in _reward_modules().values():
        module.REWARD.register_stream()
