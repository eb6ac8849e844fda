"""A stuck run (``docs/model.md``, "The served policy, stuck runs and stalled updates"): one whose
served policy puts half or more of its mass on arms that are not best while the learner's mass
on the best arms no longer rises, read at each checkpoint from the two masses; a run whose state
is not finite serves nothing and is stuck."""

from __future__ import annotations

import numpy as np

from study.core.prompt_rules import STUCK_GAIN, STUCK_WRONG_MASS
from study.model.environment import Environment

__all__ = ["STUCK_GAIN", "STUCK_WRONG_MASS", "stuck_runs", "untrained_mass"]


def untrained_mass(environment: Environment) -> float:
    """The untrained (uniform) policy's mass on the best arms: their share of the arms (drawn
    values tie with probability 0: one best arm)."""
    if environment.draw != "fixed":
        return 1.0 / environment.arms
    values = np.asarray(environment.values, dtype=float)
    return float(np.mean(values == values.max()))


def stuck_runs(served_mass: np.ndarray, mass: np.ndarray, finite: np.ndarray,
               untrained: float) -> np.ndarray:
    """(seeds, checkpoints): which runs are stuck, from the served policy's mass on the best
    arms ``served_mass``, the learner's ``mass`` (before the first checkpoint ``untrained``) and
    whether the state is ``finite``; all of shape (seeds, checkpoints)."""
    before = np.concatenate([np.full((mass.shape[0], 1), untrained), mass[:, :-1]], axis=1)
    wrong = ~(1.0 - served_mass < STUCK_WRONG_MASS)  # NaN (not finite) counts as wrong
    return (wrong & ~(mass > before + STUCK_GAIN)) | ~finite
