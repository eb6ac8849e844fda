"""Bandit environments: how an arm's reward is drawn (the reward model) and what the arms' values
are, fixed for every seed or drawn anew for each seed.

* Reward models: ``bernoulli`` (the arm's value is its pass probability, the reward is 0 or 1) and
  ``gaussian`` (the arm's value is its mean, the reward is N(mean, 1)).
* Arm values: a fixed list, or drawn per seed from a named distribution: ``uniform(low, high)``
  and ``beta(a, b)`` for Bernoulli probabilities, ``normal(mean, sd)`` for Gaussian means (the
  10-armed testbed of Sutton and Barto, chapter 2, is ``normal(0, 1)`` or, for their Figure 2.5,
  ``normal(4, 1)``, with 10 arms).

Drawn values come from the run's own stream, so they depend on the root seed and the seed index
only: cells that differ in algorithm, lr or baseline see the same instance for the same seed
(common random numbers). The draw is numpy's, on the run's ``INSTANCE`` sub-stream
(``study.core.streams``): ``numpy.random.Generator(numpy.random.Philox(key, counter=INSTANCE))``.
numpy's samplers are well tested, the values are computed once per seed (not per episode), and
the tests check their distribution with a goodness-of-fit test.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from study.core.streams import INSTANCE

FIXED = "fixed"
"""The ``draw`` column of an environment whose values are the same for every seed."""
DRAWS: dict[str, tuple[str, ...]] = {"uniform": ("low", "high"), "beta": ("a", "b"),
                                     "normal": ("mean", "sd")}
"""Each distribution arm values can be drawn from, with its parameters in order."""
DRAW_REWARD = {"uniform": "bernoulli", "beta": "bernoulli", "normal": "gaussian"}
"""The reward model each distribution draws values for: probabilities or means."""


@dataclass(frozen=True)
class Environment:
    """A bandit: a reward model and the arms' values, fixed (``values``) or drawn per seed from
    ``draw`` with ``params`` (in the order ``DRAWS`` lists them)."""

    reward: str
    arms: int
    values: tuple[float, ...] | None = None
    draw: str | None = None
    params: tuple[float, ...] = ()

    @staticmethod
    def fixed(values: tuple[float, ...] | list[float], reward: str = "bernoulli") -> Environment:
        """Arms with the same values for every seed."""
        values = tuple(float(v) for v in values)
        return Environment(reward, len(values), values=values)

    @staticmethod
    def drawn(draw: str, arms: int, params: tuple[float, ...]) -> Environment:
        """Arms whose values are drawn per seed (the reward model follows from the draw)."""
        return Environment(DRAW_REWARD[draw], arms, draw=draw,
                           params=tuple(float(p) for p in params))

    @staticmethod
    def from_columns(reward_model: str, draw: str, arms: int, arm_values: tuple[float, ...],
                     draw_parameters: tuple[float, ...]) -> Environment:
        """The environment of a runs-table row, from its structured columns (``columns``)."""
        if draw == FIXED:
            return Environment.fixed(arm_values, reward_model)
        return Environment.drawn(draw, int(arms), tuple(draw_parameters))

    def columns(self) -> dict[str, object]:
        """The runs table's structured columns of this environment (``study.spec.schema``)."""
        return {"reward_model": self.reward, "environment": self.text, "arms": self.arms,
                "draw": FIXED if self.values is not None else self.draw,
                "arm_values": self.values or (), "draw_parameters": self.params}

    @property
    def text(self) -> str:
        """The arm values as the runs table writes them: ``0.5,0.55,0.6`` when fixed,
        ``normal(4,1)x10`` when drawn."""
        if self.values is not None:
            return ",".join(repr(v) for v in self.values)
        return f"{self.draw}({','.join(f'{p:g}' for p in self.params)})x{self.arms}"

    @property
    def chance(self) -> float:
        """Accuracy of a policy that never trains: its greedy arm is uniform over the arms, so it
        is right with probability (number of best arms) / K; drawn values are continuous, so one
        arm is best (ties have probability 0)."""
        if self.values is None:
            return 1.0 / self.arms
        return sum(v == max(self.values) for v in self.values) / self.arms

    def to_dict(self) -> dict[str, object]:
        """Plain JSON-ready form (configs, manifests, cache keys)."""
        if self.values is not None:
            return {"reward": self.reward, "values": list(self.values)}
        return {"reward": self.reward, "draw": self.draw, "arms": self.arms,
                **dict(zip(DRAWS[self.draw], self.params, strict=True))}

    def arm_values(self, keys: np.ndarray) -> np.ndarray:
        """The arms' values for each run, shape (len(keys), K): the fixed values repeated, or one
        instance per run drawn from its own stream (see the module docstring)."""
        if self.values is not None:
            return np.tile(np.asarray(self.values, dtype=np.float64), (len(keys), 1))
        out = np.empty((len(keys), self.arms))
        for row, key in enumerate(keys):
            out[row] = draw_instance(key, self.draw, self.params, self.arms)
        return out


def draw_instance(key: np.ndarray, draw: str, params: tuple[float, ...], arms: int) -> np.ndarray:
    """One run's arm values: numpy's sampler on the run's instance stream."""
    generator = np.random.Generator(np.random.Philox(
        key=key, counter=np.array(INSTANCE, dtype=np.uint64)))
    if draw == "uniform":
        return generator.uniform(params[0], params[1], arms)
    if draw == "beta":
        return generator.beta(params[0], params[1], arms)
    return generator.normal(params[0], params[1], arms)


def best_arms(values: np.ndarray) -> np.ndarray:
    """Which arms have the largest value, per run (several where the maximum is tied)."""
    return values == values.max(axis=-1, keepdims=True)
