"""The learners: one module per algorithm, each declaring itself in a ``LEARNER`` and supplying
its numba pieces in a ``register()`` function.

A learner module holds, in one place:

* ``LEARNER = Learner(...)``: its name (the config's ``grid.algorithm`` value and the runs table's
  ``algorithm``), its display name, whether its runs are nested (a budget-B run is the first B
  episodes of a longer one; otherwise it plans from the budget and each checkpoint is a run of its
  own), which config axes apply to it (``lr``, ``baseline`` and ``group_size`` for a learner that
  trains), the baselines it knows (and which of them need a group), and the random sub-streams
  it draws from (``study.core.streams``);
* ``register()``: implements the kernel's stubs for it (``study.core.hooks``): ``prepare``,
  ``choose``, ``learn_one``, ``learn``, ``score`` and ``policy_mean`` for a nested learner,
  ``run_budget`` for one that plans from the budget. The numba imports sit inside
  ``register()``, so the declaration can be read (config validation, the grid, analysis,
  figures) without loading numba.

``study.model.registry`` finds every module of this folder; nothing else lists the learners. To add
one, write ``study/learners/<name>.py`` with both parts and its pure-Python reference
``reference/<name>.py``; the kernel-against-reference tests pick both up by name.
"""

from __future__ import annotations

from dataclasses import dataclass

AXES = ("lr", "baseline", "group_size")
"""The config axes that only some learners have; a learner without them is simulated once with
lr 0, baseline ``none`` and group size 1, whatever the grid holds."""


@dataclass(frozen=True)
class Learner:
    """What the rest of the package knows of a learner (see the module docstring)."""

    name: str
    display: str
    nested: bool
    streams: tuple[str, ...]
    axes: tuple[str, ...] = ()
    baselines: tuple[str, ...] = ("none",)
    group_baselines: tuple[str, ...] = ()
    """The baselines that are group estimators: they need a group of at least 2 rollouts."""
    summary: str = ""

    @property
    def trains(self) -> bool:
        """Whether the learner has a learning rate (and so a baseline)."""
        return "lr" in self.axes

    def accepts(self, baseline: str, group_size: int) -> bool:
        """Whether (baseline, group size) is a cell of this learner: a baseline it knows, and a
        group of at least 2 rollouts for a group estimator."""
        return baseline in self.baselines and (group_size >= 2
                                               or baseline not in self.group_baselines)

    def baseline_code(self, baseline: str) -> int:
        """The code the learner's numba pieces know ``baseline`` by: its place in
        ``baselines``."""
        return self.baselines.index(baseline)
