"""The corrections of the off-policy update: one module per correction, each declaring itself
in a ``CORRECTION`` and supplying its numba piece in a ``register()`` function, as the learners
and reward models do (``study.learners``, ``study.rewards``).

A correction is one of three kinds (``KINDS``):

* a **weight** of a rollout's step, from its importance ratio rho = pi(a) / mu(a) (pi at the
  update's start, the score's policy) and its advantage A; a config's ``correction`` names at
  most one (``none``: 1);
* a **mask**, which drops a rollout (its weight 0) where it does not keep it, from the same
  rho and A; any of them beside the weight;
* the sampler's **support**: the learner's softmax restricted to the arms the sampler can draw,
  in the score and in rho (V3.2's kept mask); the driver's own operation, so its module
  declares it and implements nothing.

A module holds ``CORRECTION = Correction(...)`` (its name, the config's ``correction`` part;
its kind; its parameters, each a single number of the config's ``[grid]``, with its range and
default; the paper it is from) and ``register()``, implementing ``weight`` or ``keeps`` of
``study.core.correction_hooks`` for it; its pure-Python reference is
``reference/corrections/<name>.py`` (``weight`` or ``keeps`` on the same arguments). Every
weight is held constant in the step, as trainers detach it: the update is lr (1 / G) A w
(onehot(a) - pi) whatever w is.

``study.model.registry`` finds every module of this folder and derives the codes the kernel
takes; nothing else lists the corrections.
"""

from __future__ import annotations

from dataclasses import dataclass

from study.rewards import Parameter

KINDS = ("weight", "mask", "support")
"""What a correction is (the module docstring)."""


@dataclass(frozen=True)
class Correction:
    """What the rest of the package knows of a correction (see the module docstring):
    ``parameters`` are single numbers of the config's ``[grid]`` (each with its range and
    default), ``source`` the work it is from, ``summary`` one line for the docs."""

    name: str
    kind: str
    parameters: tuple[Parameter, ...] = ()
    source: str = ""
    summary: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"correction {self.name!r} has the kind {self.kind!r}, not one of "
                             f"{', '.join(KINDS)}")
