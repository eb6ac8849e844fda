"""The allocation rules of a many-prompts study: one module per rule, each declaring itself in an
``ALLOCATION`` and supplying its numba piece in a ``register()`` function, as the learners, reward
models and corrections do.

At the start of every pass a rule gives each of the P prompts its group size n_i (0: skipped),
from what a trainer would know then: the pass's number, the prompts' counts so far (rollouts
that passed and failed, runs of groups without signal) and, for an oracle, their policies' true
pass rates. A module holds ``ALLOCATION = Allocation(...)`` (its name, a config's
``grid.allocation``; whether every group that runs has the configured size G, so that the
normalization of the step cannot matter; whether every prompt gets G every pass; whether it
reads the policies or the passes; whether its first pass is uniform allocation's, draw for
draw; the work it is from) and ``register()``, implementing ``sizes`` of
``study.core.allocation_hooks``; its pure-Python reference is ``reference/allocations/<name>.py``
(``sizes(prompts, group, words, r)``).

``study.model.registry`` finds every module of this folder and derives the codes the kernel
takes; nothing else lists the rules.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Allocation:
    """What the rest of the package knows of an allocation rule (see the module docstring)."""

    name: str
    display: str
    key: str
    """The rule in the names of the report's numbers (``Variance``: ``LawOneVariance``)."""
    whole_groups: bool = False
    """Every group that runs has the configured size G (or none runs): the step's normalization
    by n_i or by G is then the same operation, and the cells of both are one simulation."""
    uniform_first_pass: bool = False
    """The first pass gives every prompt G, as uniform allocation does: up to P G rollouts the
    rule's runs are uniform allocation's, draw for draw."""
    fixed: bool = False
    """Every pass gives every prompt G, whatever has happened: a driver may draw every prompt's
    group from one stream block, without reading the sizes."""
    reads_policy: bool = False
    """The rule reads the prompts' policies at the pass's start (their softmax weights): a driver
    that keeps no softmax of its own computes it for the rule."""
    reads_passes: bool = False
    """The rule sizes a prompt's group from its last group's rewards counted as passes and fails
    (a posterior pass rate): a study whose shaping makes rewards other than 0 and 1 refuses it."""
    source: str = ""
    summary: str = ""

    def __post_init__(self) -> None:
        if self.fixed and not (self.whole_groups and self.uniform_first_pass):
            raise ValueError(f"allocation {self.name!r} is fixed, so its groups are whole and "
                             "its first pass uniform allocation's")
