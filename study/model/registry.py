"""The registry of learners, reward models, corrections and allocation rules: the one place that
knows which exist.

It is built from the modules of ``study/learners/`` (each declares a ``LEARNER``; see
``study.learners``), of ``study/rewards/`` (each declares a ``REWARD``; see ``study.rewards``),
of ``study/corrections/`` (each a ``CORRECTION``; see ``study.corrections``) and of
``study/allocations/`` (each an ``ALLOCATION``; see ``study.allocations``), found by listing the
folders, so adding one needs no edit here. Config
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

import study.allocations as _allocations
import study.corrections as _corrections
import study.learners as _learners
import study.rewards as _rewards
from study.allocations import Allocation
from study.corrections import KINDS, Correction
from study.learners import Learner
from study.rewards import Parameter, RewardModel


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


@cache
def _correction_modules() -> dict[str, ModuleType]:
    # By kind (weights, masks, the support), ``none`` first among the weights, then by name:
    # a weight's code is its place among the weights, a mask's bit its place among the masks.
    return dict(sorted(_declared(_corrections, "CORRECTION").items(), key=lambda item: (
        KINDS.index(item[1].CORRECTION.kind), item[0] != "none", item[0])))


def corrections() -> tuple[Correction, ...]:
    """Every off-policy correction, in the registry's order."""
    return tuple(module.CORRECTION for module in _correction_modules().values())


def correction(name: str) -> Correction:
    """The correction called ``name`` (``KeyError`` if there is none)."""
    return _correction_modules()[name].CORRECTION


def corrections_of(kind: str) -> tuple[str, ...]:
    """The names of the corrections of ``kind`` (``study.corrections.KINDS``), in the registry's
    order: a weight's code, or a mask's bit, is its place here."""
    return tuple(item.name for item in corrections() if item.kind == kind)


def correction_parameters() -> tuple[Parameter, ...]:
    """Every correction's parameters, in the registry's order: the update's parameter array."""
    return tuple(p for item in corrections() for p in item.parameters)


def first_parameter(name: str) -> int:
    """The place of the correction ``name``'s first parameter in ``correction_parameters``."""
    place = 0
    for item in corrections():
        if item.name == name:
            return place
        place += len(item.parameters)
    raise KeyError(name)


@cache
def _allocation_modules() -> dict[str, ModuleType]:
    # Uniform allocation first (the reference every other rule is compared with), then by
    # name: a rule's code is its place here.
    return dict(sorted(_declared(_allocations, "ALLOCATION").items(),
                       key=lambda item: (item[0] != "uniform", item[0])))


def allocations() -> tuple[Allocation, ...]:
    """Every allocation rule of a many-prompts study, in the registry's order."""
    return tuple(module.ALLOCATION for module in _allocation_modules().values())


def allocation(name: str) -> Allocation:
    """The allocation rule called ``name`` (``KeyError`` if there is none)."""
    return _allocation_modules()[name].ALLOCATION


def allocation_names() -> tuple[str, ...]:
    """Every allocation rule's name (the values ``grid.allocation`` accepts); a rule's code in
    the kernel is its place here."""
    return tuple(_allocation_modules())


def source_files() -> tuple[Path, ...]:
    """The learner, reward model and correction modules' files (their source is part of a
    shard's cache key)."""
    return tuple(Path(module.__file__) for module in (*_modules().values(),
                                                      *_reward_modules().values(),
                                                      *_correction_modules().values(),
                                                      *_allocation_modules().values()))


@cache
def register_kernels() -> None:
    """Give the kernel every learner's and reward model's numba pieces (``study.core.hooks``,
    ``study.core.reward_hooks``); loads numba."""
    from study.core import allocation_hooks
    from study.core.correction_hooks import declare

    for module in (*_modules().values(), *_reward_modules().values(),
                   *_correction_modules().values(), *_allocation_modules().values()):
        module.register()
    for module in _reward_modules().values():
        module.REWARD.register_stream()
    declare(*(tuple((name, first_parameter(name)) for name in corrections_of(kind))
              for kind in ("weight", "mask")))
    allocation_hooks.declare(allocation_names())
