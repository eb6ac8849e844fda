"""The grid of cells a config spans, and the simulations behind them.

A *cell* is one combination of the grid's axes (algorithm, environment, lr, baseline, group size,
allocation rule, off-policy sampler, normalization, cost); it is the ``cell`` column of the runs
table. A *simulation* is what the kernel runs: cells that differ only in cost share one (cost is
priced in the analysis, not simulated), and so do cells that differ only in their update's
normalization where every group that runs has the configured size G (a single bandit, uniform
allocation or skipping across prompts: dividing by n_i or by G is then the same operation, tested
bit for bit); a learner that does not train ignores lr, baseline, group size and normalization,
so its cells are collapsed to lr 0, baseline ``none``, group size 1 and ``per_group`` and
simulated once. A group estimator (``group_mean``, ...) needs a group of at least 2 rollouts:
its combinations with group size 1 are not cells (``skipped`` lists them). A many-prompts study
(``grid.prompts``) has an allocation rule per cell (``study.core.prompts``); an off-policy study
(``study.model.offpolicy``) a sampler per cell; every other study neither.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from study.learners import Learner
from study.model import registry
from study.model.config import StudyConfig
from study.model.environment import Environment
from study.model.offpolicy import OffPolicy


@dataclass(frozen=True)
class Simulation:
    """What one kernel call simulates: a learner on one bandit with one lr and baseline."""

    algorithm: str
    environment: Environment
    lr: float
    baseline: str
    group_size: int = 1
    allocation: str = ""
    """The allocation rule of a many-prompts simulation ("" for a single bandit)."""
    normalization: str = "per_group"
    """The group update's normalization (``study.core.prompt_rules.NORMALIZATIONS``); always
    ``per_group`` where it cannot change the update (``SAME_UNDER_EITHER``)."""
    offpolicy: OffPolicy | None = None
    """The sampler and corrections of an off-policy group learner (``study.model.offpolicy``);
    None for the on-policy learners of every other study."""

    @property
    def learner(self) -> Learner:
        """The registry's declaration of the simulated learner."""
        return registry.learner(self.algorithm)

    def stream_id(self) -> int:
        """A 64-bit number fixed by this simulation's content (not its place in the grid), mixed
        into the random streams when a study asks for ``per_cell`` streams. (A Bernoulli bandit
        with fixed values hashes as it did before environments had a reward model, so its
        streams have not changed.)"""
        env = self.environment
        text = f"{self.algorithm}|{env.text}|{self.lr!r}|{self.baseline}"
        if env.reward != "bernoulli" or env.values is None:
            text += f"|{env.reward}"
        if self.group_size != 1:
            text += f"|G{self.group_size}"
        if self.allocation:
            text += f"|{self.allocation}|P{env.prompts}"
        if self.normalization != "per_group":
            text += f"|{self.normalization}"
        if self.offpolicy is not None:
            text += f"|{self.offpolicy!r}"
        return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


@dataclass(frozen=True)
class Cell:
    """One cell of the grid: a simulation priced at one per-pull cost, its update normalised as
    ``normalization`` says (the simulation's own, or ``per_group`` where both are the same);
    ``index`` is its ``cell`` id, its position in the grid's order (algorithm, environment, lr,
    baseline, group size, allocation, off-policy sampler, normalization, cost: the two innermost
    are the axes whose cells may share a simulation, so that its cells are contiguous)."""

    index: int
    simulation: Simulation
    cost: float
    normalization: str = "per_group"
    design_row: int = -1
    """The row of the study's design (``study.model.design``) the cell runs; -1 without one."""


def _rows(config: StudyConfig) -> Iterator[tuple[int, tuple]]:
    """(design row, combination) of the grid's axes: the whole product (row -1), or each row
    of the study's design with the environments and samplers its levels make."""
    rows = config.design_rows or ((config.environments, config.offpolicy),)
    for row, (environments, samplers) in enumerate(rows):
        for combination in itertools.product(
                config.algorithm, environments, config.lr, config.baseline, config.group_size,
                config.allocation, samplers or (None,), config.normalization, config.cost):
            yield (row if config.design_rows else -1), combination


def _combinations(config: StudyConfig) -> Iterator[tuple]:
    return (combination for _, combination in _rows(config))


SAME_UNDER_EITHER = ("", *(rule.name for rule in registry.allocations() if rule.whole_groups))
"""The allocations (none: a single bandit) under which every group that runs has the configured
size (``study.allocations.Allocation.whole_groups``: skipping runs a prompt's G rollouts or none),
so that the two normalizations are the same update."""


def cells(config: StudyConfig) -> list[Cell]:
    """Every cell of the config's grid, in a fixed order, without duplicates."""
    found: list[Cell] = []
    seen: set[tuple[Simulation, str, float]] = set()
    for row, (algorithm, environment, lr, baseline, group_size, allocation, sampler,
              normalization, cost) in _rows(config):
        learner = registry.learner(algorithm)
        if not learner.trains:
            lr, baseline, group_size, normalization = 0.0, "none", 1, "per_group"
        elif not learner.accepts(baseline, group_size):
            continue
        simulated = "per_group" if allocation in SAME_UNDER_EITHER else normalization
        simulation = Simulation(algorithm, environment, lr, baseline, group_size, allocation,
                                simulated, sampler)
        if (simulation, normalization, cost) in seen:
            continue
        seen.add((simulation, normalization, cost))
        found.append(Cell(len(found), simulation, cost, normalization, row))
    return found


def simulations(grid: list[Cell]) -> list[Simulation]:
    """The distinct simulations behind the cells, in order of first appearance."""
    return list(dict.fromkeys(cell.simulation for cell in grid))


def skipped(config: StudyConfig) -> list[str]:
    """The (learner, baseline, group size) combinations of the grid that are not cells, each as
    text, in grid order (``python -m bandit_study run`` prints them)."""
    found = {}
    for algorithm, _, _, baseline, group_size, *_ in _combinations(config):
        learner = registry.learner(algorithm)
        if learner.trains and not learner.accepts(baseline, group_size):
            found[f"{algorithm} with baseline {baseline} at group_size {group_size}"] = None
    return list(found)
