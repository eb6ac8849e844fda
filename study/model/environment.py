"""Bandit environments: how an arm's reward is drawn (the reward model) and what the arms' values
are, fixed for every seed or drawn anew for each seed.

* Reward models (``study.rewards``, one module each): ``bernoulli`` (the arm's value is its pass
  probability, the reward is 0 or 1), ``gaussian`` (the arm's value is its mean, the reward is
  N(mean, 1)), and any other the registry finds, with its parameters (``reward_parameters``).
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

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from study.core.streams import INSTANCE
from study.model import population, registry
from study.rewards import DEFAULT_VERDICT

FIXED = "fixed"
"""The ``draw`` column of an environment whose values are the same for every seed."""
DRAWS: dict[str, tuple[str, ...]] = {"uniform": ("low", "high"), "beta": ("a", "b"),
                                     "normal": ("mean", "sd"),
                                     population.NAME: population.PARAMETERS}
"""Each distribution arm values can be drawn from, with its parameters in order (a population of
environments, ``study.model.population``, among them)."""
DRAW_VALUES = {"uniform": "probs", "beta": "probs", "normal": "means", population.NAME: "probs"}
"""What each distribution draws: pass probabilities or means (``study.rewards.VALUE_KEYS``)."""
MAX_LENGTH = 1e6
"""The longest mean answer, in tokens, a config may give an arm (``grid.lengths``) or a
population's environment may draw (``Environment.prompt_lengths``)."""
LENGTH_LAWS = (FIXED, "geometric")
"""How an answer's length is drawn (``Environment.length_law``)."""
DRAW_REWARD = {"uniform": "bernoulli", "beta": "bernoulli", "normal": "gaussian",
               population.NAME: "bernoulli"}
"""The reward model a drawn environment has when none is named."""


@dataclass(frozen=True)
class Environment:
    """A bandit: a reward model with its parameters (``reward_parameters``, in the order the model
    declares them) and the arms' values, fixed (``values``) or drawn per seed from ``draw`` with
    ``params`` (in the order ``DRAWS`` lists them)."""

    reward: str
    arms: int
    values: tuple[float, ...] | None = None
    draw: str | None = None
    params: tuple[float, ...] = ()
    reward_parameters: tuple[float, ...] = ()
    prompts: int = 1
    """The prompts of a many-prompts dataset (``study.core.prompts``), each a bandit of these
    arms: all with the fixed values, or each with values of its own drawn per seed."""
    lengths: tuple[float, ...] | None = None
    """The mean tokens of an answer of each arm, for a study that counts tokens
    (``study.core.kernel.simulate_tokens``); None: answers cost no tokens of their own."""
    length_law: str = FIXED
    """How an answer's length is drawn (``LENGTH_LAWS``): every answer of an arm has its length
    (``fixed``), or a geometric length of that mean, drawn per rollout (``geometric``)."""
    verdict: str = ""
    """The verdict a shaping (``reward``, a length-constraint model: ``study.rewards``) shapes,
    with its parameters ``verdict_parameters``; "" for the default, ``DEFAULT_VERDICT`` (the
    Bernoulli check), and for a reward model that is a verdict itself."""
    verdict_parameters: tuple[float, ...] = ()
    population_seed: int | None = None
    """The root seed whose stream draws a population of environments (``draw`` population,
    ``study.model.population``); None for any other bandit."""

    @staticmethod
    def fixed(values: tuple[float, ...] | list[float], reward: str = "bernoulli",
              reward_parameters: tuple[float, ...] = ()) -> Environment:
        """Arms with the same values for every seed."""
        values = tuple(float(v) for v in values)
        return Environment(reward, len(values), values=values,
                           reward_parameters=tuple(float(p) for p in reward_parameters))

    @staticmethod
    def drawn(draw: str, arms: int, params: tuple[float, ...], reward: str | None = None,
              reward_parameters: tuple[float, ...] = ()) -> Environment:
        """Arms whose values are drawn per seed (the reward model, if not named, is the draw's
        ``DRAW_REWARD``)."""
        return Environment(reward or DRAW_REWARD[draw], arms, draw=draw,
                           params=tuple(float(p) for p in params),
                           reward_parameters=tuple(float(p) for p in reward_parameters))

    @staticmethod
    def from_columns(reward_model: str, draw: str, arms: int, arm_values: tuple[float, ...],
                     draw_parameters: tuple[float, ...],
                     named: Callable[[str], float]) -> Environment:
        """The environment of a runs-table row, from its structured columns (``columns``):
        ``named`` gives a parameter's column by its name (``reward_columns``)."""
        parameters = tuple(named(p.name)
                           for p in registry.reward_model(reward_model).parameters)
        if draw == FIXED:
            return Environment.fixed(arm_values, reward_model, parameters)
        return Environment.drawn(draw, int(arms), tuple(draw_parameters), reward_model,
                                 parameters)

    def with_prompts(self, prompts: int) -> Environment:
        """A dataset of ``prompts`` prompts of these arms."""
        return replace(self, prompts=prompts)

    def with_population_seed(self, root_seed: int) -> Environment:
        """The same bandit, a population's environments drawn from ``root_seed``'s stream."""
        return replace(self, population_seed=int(root_seed)) if self.is_population else self

    @property
    def population(self) -> population.Drawn | None:
        """The environments of a population's dataset (``study.model.population``); None for
        any other bandit."""
        if not self.is_population:
            return None
        if self.population_seed is None:
            raise ValueError("a population's environments need the root seed that draws them "
                             "(with_population_seed)")
        (environments, a, b, _, sigma, fewest_arms, exact_share,
         length_spread) = population.law(self.params, self.arms)
        return population.draw(self.population_seed, self.prompts, int(environments), a, b,
                               sigma, self.arms, int(fewest_arms), exact_share, length_spread)

    @property
    def is_population(self) -> bool:
        """Whether the prompts come from a population of environments."""
        return self.draw == population.NAME

    def with_lengths(self, lengths: tuple[float, ...], law: str = FIXED) -> Environment:
        """The same arms, each answer of arm k costing ``lengths[k]`` tokens (in mean, by
        ``law``)."""
        return replace(self, lengths=tuple(float(v) for v in lengths), length_law=law)

    def length_scales(self) -> np.ndarray:
        """1 / ln(1 - 1 / l) of each arm's mean length l (0 for l = 1), the kernel's product
        form of a geometric length's inversion (``study.core.kernel.simulate_tokens``)."""
        return length_scales(np.asarray(self.lengths or (), dtype=np.float64))

    def prompt_lengths(self) -> np.ndarray:
        """Each prompt's arms' answer lengths (in mean, by ``length_law``), (K, P): ``lengths``,
        in a population times the prompt's environment's ``length_factor``
        (``study.model.population``), whole tokens for fixed lengths, in [1, ``MAX_LENGTH``]."""
        lengths = np.asarray(self.lengths, dtype=np.float64)[:, None]
        drawn = self.population
        if drawn is None:
            return np.ascontiguousarray(np.broadcast_to(lengths, (self.arms, self.prompts)))
        scaled = lengths * np.repeat(drawn.length_factor, drawn.holdings)[None, :]
        if self.length_law == FIXED:
            scaled = np.rint(scaled)
        return np.clip(scaled, 1.0, MAX_LENGTH)

    def prompt_verdicts(self) -> np.ndarray:
        """Each prompt's verdict's parameters (``judged_with``), (parameters, P): in a population,
        those with a noise role (``study.rewards.ROLES``) 0 for the prompts of an environment
        whose verifier is exact (``study.model.population``)."""
        table = np.tile(np.asarray(self.judged_with, dtype=np.float64)[:, None],
                        (1, self.prompts))
        drawn = self.population
        if drawn is not None:
            noise = np.array([bool(p.role) for p in
                              registry.reward_model(self.judged_by).parameters], dtype=bool)
            table[np.ix_(noise, np.repeat(drawn.exact, drawn.holdings))] = 0.0
        return table

    def with_reward(self, reward: str, parameters: tuple[float, ...]) -> Environment:
        """The same arms under the reward model ``reward`` with ``parameters``."""
        return replace(self, reward=reward, reward_parameters=tuple(float(p) for p in parameters))

    def with_verdict(self, verdict: str, parameters: tuple[float, ...]) -> Environment:
        """The same bandit, its shaping applied to the verdict ``verdict`` with ``parameters``
        (the default verdict is kept as "", so that naming it is the same bandit)."""
        if verdict == DEFAULT_VERDICT:
            return replace(self, verdict="", verdict_parameters=())
        return replace(self, verdict=verdict,
                       verdict_parameters=tuple(float(p) for p in parameters))

    @property
    def judged_by(self) -> str:
        """The name of the model whose verdict decides a pull's reward: ``verdict``, the default
        verdict under a shaping that names none, or the reward model itself."""
        if self.verdict:
            return self.verdict
        return DEFAULT_VERDICT if registry.reward_model(self.reward).lengths else self.reward

    @property
    def judged_with(self) -> tuple[float, ...]:
        """The parameters of ``judged_by``."""
        return self.verdict_parameters if self.verdict else (
            () if registry.reward_model(self.reward).lengths else self.reward_parameters)

    def reward_columns(self) -> dict[str, object]:
        """The reward model's parameters by name, and, where a shaping names its verdict, the
        verdict (``verdict``) and its parameters by name: a table's columns of the reward."""
        found: dict[str, object] = dict(zip(
            (p.name for p in registry.reward_model(self.reward).parameters),
            self.reward_parameters, strict=True))
        if self.verdict:
            found["verdict"] = self.verdict
            found |= dict(zip((p.name for p in registry.reward_model(self.verdict).parameters),
                              self.verdict_parameters, strict=True))
        return found

    def columns(self) -> dict[str, object]:
        """The runs table's structured columns of this environment (``study.model.schema``;
        ``arm_lengths``, ``length_law`` and ``verdict`` for answers that cost tokens)."""
        lengths = ({"arm_lengths": self.lengths, "length_law": self.length_law,
                    "verdict": self.judged_by} if self.lengths is not None else {})
        return {"reward_model": self.reward, "environment": self.text, "arms": self.arms,
                "draw": FIXED if self.values is not None else self.draw,
                "arm_values": self.values or (), "draw_parameters": self.params, **lengths}

    @property
    def text(self) -> str:
        """The bandit as the runs table writes it: ``0.5,0.55,0.6`` when fixed, ``normal(4,1)x10``
        when drawn, followed by the reward model's parameters when it has any
        (``0.5,0.6 noisy_verifier(0.1,0)``), and a shaping's verdict when it names one
        (``0.5,0.6 length_penalty(0.1,1,1) noisy_verifier(0.1,0) lengths(1,4)``)."""
        if self.values is not None:
            text = ",".join(repr(v) for v in self.values)
        else:
            text = f"{self.draw}({','.join(f'{p:g}' for p in self.params)})x{self.arms}"
        if self.reward_parameters:
            text += f" {self.reward}({','.join(f'{p:g}' for p in self.reward_parameters)})"
        if self.verdict:
            text += f" {self.verdict}({','.join(f'{p:g}' for p in self.verdict_parameters)})"
        if self.lengths is not None:
            law = "" if self.length_law == FIXED else f"{self.length_law} "
            text += f" {law}lengths({','.join(f'{v:g}' for v in self.lengths)})"
        return text

    @property
    def chance(self) -> float:
        """Accuracy of a policy that never trains: its greedy arm is uniform over the arms, so it
        is right with probability (number of best arms) / K; drawn values are continuous, so one
        arm is best (ties have probability 0); a population's, the mean of 1 / K_e over its
        prompts."""
        drawn = self.population
        if drawn is not None and (drawn.arms != self.arms).any():
            return float(np.average(1.0 / drawn.arms, weights=drawn.holdings))
        if self.values is None:
            return 1.0 / self.arms
        return sum(v == max(self.values) for v in self.values) / self.arms

    def to_dict(self) -> dict[str, object]:
        """Plain JSON-ready form (configs, manifests, cache keys); the reward parameters only
        when the model has any, so the other environments' forms are those they always had."""
        extra = ({"reward_parameters": list(self.reward_parameters)} if self.reward_parameters
                 else {})
        if self.prompts != 1:
            extra["prompts"] = self.prompts
        if self.lengths is not None:
            extra |= {"lengths": list(self.lengths), "length_law": self.length_law}
        if self.verdict:
            extra |= {"verdict": self.verdict,
                      "verdict_parameters": list(self.verdict_parameters)}
        if self.population_seed is not None:
            extra["population_seed"] = self.population_seed
        if self.values is not None:
            return {"reward": self.reward, "values": list(self.values), **extra}
        return {"reward": self.reward, "draw": self.draw, "arms": self.arms,
                **dict(zip(DRAWS[self.draw][:len(self.params)], self.params, strict=True)),
                **extra}

    def prompt_arms(self) -> np.ndarray:
        """Each prompt's arms, (P,) int64: K, or its environment's K_e in a population
        (``study.model.population``)."""
        drawn = self.population
        return (np.full(self.prompts, self.arms, dtype=np.int64) if drawn is None
                else drawn.prompt_arms)

    def prompt_values(self, keys: np.ndarray) -> np.ndarray:
        """Every prompt's arm values for each run, shape (len(keys), P, K): the fixed values
        repeated, or P K values drawn per run from its own stream, prompt i's being the i-th K
        of them (so a dataset of one prompt has the values ``arm_values`` gives); a population's
        from each prompt's environment's law, in one draw per run
        (``study.model.population``), 0 for a prompt's arms past its ``prompt_arms``."""
        if self.values is not None:
            return np.tile(np.asarray(self.values, dtype=np.float64),
                           (len(keys), self.prompts, 1))
        out = np.empty((len(keys), self.prompts, self.arms))
        drawn = self.population
        if drawn is not None:
            a, b = (np.broadcast_to(p[:, None], (self.prompts, self.arms))
                    for p in drawn.prompt_parameters(self.params[3]))
            for row, key in enumerate(keys):
                out[row] = _instance_generator(key).beta(a, b)
            out[:, np.arange(self.arms)[None, :] >= drawn.prompt_arms[:, None]] = 0.0
            return out
        for row, key in enumerate(keys):
            out[row] = draw_instance(key, self.draw, self.params,
                                     self.prompts * self.arms).reshape(self.prompts, self.arms)
        return out

    def arm_values(self, keys: np.ndarray) -> np.ndarray:
        """The arms' values for each run, shape (len(keys), K): the fixed values repeated, or one
        instance per run drawn from its own stream (see the module docstring); a single bandit's
        ``prompt_values``."""
        return np.ascontiguousarray(replace(self, prompts=1).prompt_values(keys)[:, 0, :])


def length_scales(means: np.ndarray) -> np.ndarray:
    """1 / ln(1 - 1 / l) of each mean length l of ``means`` (0 for l = 1), of any shape
    (``Environment.length_scales``), each by ``math.log1p`` as the reference computes it."""
    unique, inverse = np.unique(means, return_inverse=True)
    scales = np.array([0.0 if mean == 1.0 else 1.0 / math.log1p(-1.0 / mean)
                       for mean in unique])
    return scales[inverse].reshape(means.shape)


def draw_instance(key: np.ndarray, draw: str, params: tuple[float, ...], arms: int) -> np.ndarray:
    """One run's arm values: numpy's sampler on the run's instance stream."""
    generator = _instance_generator(key)
    if draw == "uniform":
        return generator.uniform(params[0], params[1], arms)
    if draw == "beta":
        return generator.beta(params[0], params[1], arms)
    return generator.normal(params[0], params[1], arms)


def _instance_generator(key: np.ndarray) -> np.random.Generator:
    """numpy's generator on the run's instance stream."""
    return np.random.Generator(np.random.Philox(key=key,
                                                counter=np.array(INSTANCE, dtype=np.uint64)))


def best_arms(values: np.ndarray, arms: np.ndarray | None = None) -> np.ndarray:
    """Which arms have the largest value, per run (several where the maximum is tied); of a
    dataset's values (runs, P, K), among each prompt's first ``arms[i]`` (P,) where given."""
    best = values == values.max(axis=-1, keepdims=True)
    if arms is not None:
        best &= np.arange(values.shape[-1]) < arms[:, None]
    return best
