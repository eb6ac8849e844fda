"""The model, executably: a slow pure-Python run that consumes the same random stream as the
kernel, through a Philox4x32-10 of its own (checked against Random123's known answers and
randomgen in ``tests/test_philox.py``) and elementary functions of its own (``elementary.py``).
This package is the spec; README.md, "The model", says the same in words. Kernel and reference
must agree exactly.

It mirrors ``study/learners/`` and ``study/rewards/``: this file holds the environment, the
streams and the one loop over updates of G rollouts (``run``: a learner that draws its group,
from itself or from a sampler (``offpolicy.py``), is paid by the reward and counted by the
meter, ``Answers``); ``<learner>.py`` beside it holds each learner's
part, found by the learner's name, and ``rewards/<model>.py`` each reward model's. A nested
learner's module defines ``choose(t, u_action, state, shared)`` -> arm and may define
``prepare(state)`` -> shared (what the rollouts of an update share), ``learn(t, lr, baseline,
arms, rewards, state, shared)`` -> whether every advantage was 0, ``scores(state)`` -> (scores,
finite) and ``policy_mean(scores, per_arm)``; a learner that plans from the budget defines
``run_budget(run, budget)`` on a ``FixedBudgetRun``.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, NamedTuple, Protocol

import numpy as np

from reference.elementary import exp, log
from study.rewards import DEFAULT_VERDICT

if TYPE_CHECKING:
    from study.model.offpolicy import OffPolicy

__all__ = ["exp"]  # the learners' references take the softmax's exp from here

MASK = 0xFFFFFFFF


def philox(counter: tuple[int, ...], key: tuple[int, int]) -> tuple[int, int, int, int]:
    """Philox4x32-10 (Salmon et al. 2011): the four 32-bit words of block ``counter`` (four
    32-bit words) under ``key`` (two)."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(10):
        p0 = 0xD2511F53 * c0
        p1 = 0xCD9E8D57 * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & MASK, (p0 >> 32) ^ c3 ^ k1, p0 & MASK
        k0 = (k0 + 0x9E3779B9) & MASK
        k1 = (k1 + 0xBB67AE85) & MASK
    return c0, c1, c2, c3


def unit32(word: int) -> float:
    """A 32-bit word as a uniform in [0, 1): word / 2^32."""
    return word * 2.0**-32


def unit53(high: int, low: int) -> float:
    """A 53-bit uniform in [0, 1): the 32 bits of ``high`` above the top 21 of ``low``, / 2^53."""
    return ((high << 21) | (low >> 11)) * 2.0**-53


def key_words(key: np.ndarray) -> tuple[int, int]:
    """The kernel's Philox4x32 key of a run: the low and the high 32 bits of its first state
    word (``SeedSequence.generate_state(2, np.uint32)``)."""
    first = int(key[0])
    return first & MASK, first >> 32


def draws(key: np.ndarray, n: int, prompt: int = 0) -> list[tuple[float, float]]:
    """(action, reward) uniforms of episodes 0 .. n - 1 of prompt ``prompt``: main-stream block
    (t div 2, prompt, 0, 0), words 0 and 1 for an even t, 2 and 3 for an odd one."""
    out = []
    for j in range((n + 1) // 2):
        w = philox((j, prompt, 0, 0), key_words(key))
        out += [(unit32(w[0]), unit32(w[1])), (unit32(w[2]), unit32(w[3]))]
    return out[:n]


def learner(name: str) -> ModuleType:
    """The reference module of the learner called ``name``."""
    return importlib.import_module(f"{__name__}.{name}")


def reward_model(name: str) -> ModuleType:
    """The reference module of the reward model called ``name``."""
    return importlib.import_module(f"{__name__}.rewards.{name}")


def allocation(name: str) -> ModuleType:
    """The reference module of the allocation rule called ``name``."""
    return importlib.import_module(f"{__name__}.allocations.{name}")


def correction(name: str) -> ModuleType:
    """The reference module of the off-policy correction called ``name``."""
    return importlib.import_module(f"{__name__}.corrections.{name}")


def payoff(key: np.ndarray, values: list[float], reward: str, parameters: tuple[float, ...],
            n: int) -> Callable[[int, int, float], float]:
    """The reward of pull t of arm a, given its reward draw u: the model's outcome with its own
    draw of pull t (0.0 for a model without a stream)."""
    model = reward_model(reward)
    own = model.own(key, n)
    return lambda t, a, u: model.outcome(values[a], u, own[t] if own else 0.0, parameters)


def instance(key: np.ndarray, draw: str, params: tuple[float, ...], arms: int) -> list[float]:
    """A run's drawn arm values: numpy's sampler on Philox from counter (0, 0, 2, 0)."""
    generator = np.random.Generator(np.random.Philox(
        key=key, counter=np.array([0, 0, 2, 0], dtype=np.uint64)))
    sampler = {"uniform": generator.uniform, "beta": generator.beta,
               "normal": generator.normal}[draw]
    return [float(v) for v in sampler(*params, arms)]


def tie_break(scores: list[float], key: np.ndarray, budget: int, prompt: int = 0) -> int:
    """argmax of ``scores``, exact ties broken by word 0 of block (budget, prompt, 0, 1) (prompt
    0 but in a many-prompts run)."""
    best = max(scores)
    tied = [k for k, s in enumerate(scores) if s == best]
    if len(tied) == 1:
        return tied[0]
    return tied[int(unit32(philox((budget, prompt, 0, 1), key_words(key))[0]) * len(tied))]


@dataclass
class Checkpoint:
    """The state of a run after ``budget`` episodes."""

    budget: int
    greedy: int
    p_best: float
    pass_rate: float
    reward_sum: float
    pulls: list[int]
    scores: list[float]
    finite: bool
    zero_signal: int = 0
    rollouts: int = 0
    tokens: float = 0.0
    expected_length: float = math.nan


@dataclass
class Step:
    """What the per-step curves count of episode t: was the arm a best arm, and its reward."""

    optimal: bool
    reward: float


@dataclass
class State:
    """A nested learner's run after t episodes: its parameters (REINFORCE's logits), and each
    arm's pulls and reward sum, and the reward sum (all before episode t)."""

    logits: list[float]
    pulls: list[int]
    arm_rewards: list[float]
    total: float = 0.0


def empirical_means(state: State) -> tuple[list[float], bool]:
    """Each arm's mean reward, -inf for an arm never pulled (not a candidate); always finite."""
    return [state.arm_rewards[k] / state.pulls[k] if state.pulls[k] else -math.inf
            for k in range(len(state.pulls))], True


def length_draws(key: np.ndarray, n: int, prompt: int = 0) -> list[float]:
    """u_0 .. u_n-1 of prompt ``prompt``'s answers' lengths: word t mod 4 of length block
    (t div 4, prompt, 4, 0)."""
    out = []
    for j in range((n + 3) // 4):
        out += [unit32(w) for w in philox((j, prompt, 4, 0), key_words(key))]
    return out[:n]


def length_scale(mean: float) -> float:
    """1 / ln(1 - 1 / l) of a geometric length of mean l (0 for l = 1: every answer 1 token)."""
    return 0.0 if mean == 1.0 else 1.0 / math.log1p(-1.0 / mean)


def answer_length(mean: float, law: str, u: float) -> float:
    """An answer's tokens: the arm's length ``mean`` (law ``fixed``), or (``geometric``) 1 +
    floor(ln(1 - u) / ln(1 - 1 / l)), geometric on 1, 2, ... with mean l, by inversion of its
    draw u, the division taken as a product with ``length_scale``."""
    if law == "fixed":
        return mean
    return 1.0 + math.floor(log(1.0 - u) * length_scale(mean))


class Lazy:
    """The draws of a stream as far as they are read: ``make(n)`` gives the first n (made again,
    twice as many, when a read passes them)."""

    def __init__(self, make: Callable[[int], list]) -> None:
        self.make, self.items = make, make(0)

    def __getitem__(self, t: int) -> object:
        if t >= len(self.items):
            self.items = self.make(2 * t + 2)
        return self.items[t]


@dataclass
class Answers:
    """What a run's rollouts pay and cost: a pull's reward is the verdict of ``reward`` (with
    ``reward_parameters``), or, for a shaping (a model with ``shaped``), of ``verdict`` (with
    ``verdict_parameters``; the Bernoulli check when ""), which the shaping then shapes by the
    answer's length. Each rollout is an answer of the pulled arm's length (``lengths``, all 1
    when None; drawn by ``law``, ``answer_length``); the shaping's constraint is on while the
    run has spent less than ``lifted_at`` times the largest of ``budgets`` when the update
    starts, and an answer longer than its ``cut`` costs that many tokens. An update costs its
    answers' tokens when ``tokens``, else its rollouts. ``rollouts`` bounds the rollouts a run
    makes, a hint (the draws are made as far as they are read); ``prompt`` is the many-prompts
    run's prompt whose answers these are (word 1 of the streams' counters); ``judged``, where
    given, the verdict's parameters in place of those above (a population's environment's,
    ``study.model.environment.Environment.prompt_verdicts``)."""

    key: np.ndarray
    values: list[float]
    reward: str
    reward_parameters: tuple[float, ...]
    verdict: str
    verdict_parameters: tuple[float, ...]
    lengths: list[float] | None
    law: str
    tokens: bool
    budgets: list[int]
    rollouts: int
    prompt: int = 0
    judged: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        model = reward_model(self.reward)
        self.shaping = model if hasattr(model, "shaped") else None
        self.judge, self.judged_with = model, self.reward_parameters
        if self.shaping is not None:
            self.judge = reward_model(self.verdict or DEFAULT_VERDICT)
            self.judged_with = self.verdict_parameters
        if self.judged is not None:
            self.judged_with = self.judged
        self.means = [1.0] * len(self.values) if self.lengths is None else list(self.lengths)
        self.longest = model.cut(self.reward_parameters) if hasattr(model, "cut") else math.inf
        self.lifted = (model.lifted_at(self.reward_parameters) if hasattr(model, "lifted_at")
                       else 1.0) * float(self.budgets[-1])
        own = self.judge.own(self.key, 0, self.prompt)
        self.own = None if own is None else Lazy(
            lambda n: self.judge.own(self.key, max(n, self.rollouts), self.prompt))
        self.drawn = Lazy(
            (lambda n: length_draws(self.key, max(n, self.rollouts), self.prompt))
            if self.law != "fixed" else (lambda n: [0.0] * max(n, self.rollouts)))

    def answer(self, t: int, arm: int, u_reward: float, spent: float) -> tuple[float, float]:
        """Rollout t's reward, an answer to ``arm`` with reward draw ``u_reward`` in an update
        that starts with ``spent`` of the budget spent, and the tokens it costs."""
        length = answer_length(self.means[arm], self.law, self.drawn[t])
        paid = self.judge.outcome(self.values[arm], u_reward,
                                  self.own[t] if self.own is not None else 0.0, self.judged_with)
        if self.shaping is not None:
            on = 1.0 if spent < self.lifted else 0.0
            paid = self.shaping.shaped(paid, length, on, self.reward_parameters)
        return paid, min(length, self.longest)

    def cost(self, answered: float, group_size: int) -> float:
        """An update's cost: the tokens its answers cost, or its G rollouts."""
        return answered if self.tokens else float(group_size)


class OnPolicy:
    """One nested learner (``algorithm``'s module) trained on its own rollouts, in the three
    steps of ``reference.offpolicy.Trainer``: ``sample`` (what an update's rollouts share),
    ``draw`` a group of the next rollouts, paid by ``paying``, and ``learn`` from it."""

    def __init__(self, key: np.ndarray, values: list[float], algorithm: str, lr: float,
                 baseline: str, paying: Answers) -> None:
        self.part = learner(algorithm)
        self.values, self.lr, self.baseline, self.paying = values, lr, baseline, paying
        self.uniforms = Lazy(lambda n: draws(key, max(n, paying.rollouts), paying.prompt))
        n = len(values)
        self.state = State([0.0] * n, [0] * n, [0.0] * n)
        self.zero_signal = 0
        self.spent_tokens = 0.0
        self.rollouts = 0

    def sample(self, update: int) -> None:
        """What update ``update``'s rollouts share (the learner's ``prepare``)."""
        self.shared = self.part.prepare(self.state) if hasattr(self.part, "prepare") else None

    def draw(self, size: int, spent: float) -> float:
        """A group of ``size`` rollouts (the learner's next), its answers paid in a run that has
        spent ``spent``; the tokens its answers cost."""
        self.arms, self.paid, self.answered = [], [], 0.0
        for t in range(self.rollouts, self.rollouts + size):
            u_action, u_reward = self.uniforms[t]
            arm = self.part.choose(t, u_action, self.state, self.shared)
            paid, length = self.paying.answer(t, arm, u_reward, spent)
            self.arms.append(arm)
            self.paid.append(paid)
            self.answered += length
        return self.answered

    def learn(self) -> None:
        """The learner's update from the drawn group (none for a learner that does not
        learn), and the group's pulls and rewards counted."""
        if hasattr(self.part, "learn"):
            self.zero_signal += self.part.learn(self.rollouts, self.lr, self.baseline,
                                                self.arms, self.paid, self.state, self.shared)
        for arm, paid in zip(self.arms, self.paid, strict=True):
            self.state.pulls[arm] += 1
            self.state.arm_rewards[arm] += paid
            self.state.total += paid
        self.spent_tokens += self.answered
        self.rollouts += len(self.arms)


class Learner(Protocol):
    """What ``run`` and ``checkpoint`` ask of a learner: ``OnPolicy``, or
    ``reference.offpolicy.Trainer``."""

    part: ModuleType
    values: list[float]
    state: State
    paying: Answers
    zero_signal: int
    spent_tokens: float
    arms: list[int]
    paid: list[float]

    def sample(self, update: int) -> None:
        """Make update ``update``'s sampler."""

    def draw(self, size: int, spent: float) -> float:
        """Draw and pay a group of ``size``; its answers' tokens."""

    def learn(self) -> None:
        """Learn from the drawn group."""


class Run(NamedTuple):
    """What ``run`` returns: the Checkpoints, a Step per rollout learned from, and for an
    off-policy learner at each checkpoint ``reference.offpolicy.Trainer.readout`` followed by
    the ``served`` policy's pass rate and mass on the best arms (empty on policy)."""

    checkpoints: list[Checkpoint]
    steps: list[Step]
    readouts: list[tuple[float, list[float], list[float], tuple[float, float]]]


def checkpoint(trainer: Learner, budget: int, key: np.ndarray, rollouts: int) -> Checkpoint:
    """The Checkpoint of budget ``budget`` of a run whose learner is ``trainer`` (an
    ``OnPolicy`` or a ``reference.offpolicy.Trainer``) after ``rollouts`` rollouts."""
    part, state, values = trainer.part, trainer.state, trainer.values
    scores, finite = (part.scores if hasattr(part, "scores") else empirical_means)(state)
    p_best = pass_rate = expected_length = math.nan
    if hasattr(part, "policy_mean") and finite:
        top = max(values)
        p_best = part.policy_mean(scores, [float(v == top) for v in values])
        pass_rate = part.policy_mean(scores, values)
        expected_length = part.policy_mean(scores, trainer.paying.means)
    return Checkpoint(budget, tie_break(scores, key, budget) if finite else -1, p_best,
                      pass_rate, state.total, list(state.pulls), scores, finite,
                      trainer.zero_signal, rollouts, trainer.spent_tokens, expected_length)


def run(key: np.ndarray, values: list[float], reward: str, algorithm: str, lr: float,
        baseline: str, budgets: list[int], group_size: int = 1,
        reward_parameters: tuple[float, ...] = (), lengths: list[float] | None = None,
        law: str = "fixed", tokens: bool = False, verdict: str = "",
        verdict_parameters: tuple[float, ...] = (), offpolicy: OffPolicy | None = None) -> Run:
    """One run of the nested learner ``algorithm`` with Philox key ``key`` on arms with
    ``values`` (pass probabilities, or Gaussian means) under the reward model ``reward``:
    updates of G = ``group_size`` rollouts, rollout j of update u being rollout t = u G + j of the
    stream, drawn by the learner itself (``OnPolicy``) or, for REINFORCE with ``offpolicy``, by
    its sampler under its correction and KL term (``reference.offpolicy.Trainer``). Its
    rollouts are answers (``Answers``, of the arguments after ``group_size``); ``budgets``
    count tokens when ``tokens``, else rollouts: the Checkpoint of budget B is the state after
    the most updates whose spending stays within B (after floor(B / G) updates when counting
    rollouts)."""
    # Every rollout costs at least one token, so a run stops by this many rollouts.
    most = (budgets[-1] // group_size + 1) * group_size
    paying = Answers(key, values, reward, reward_parameters, verdict, verdict_parameters,
                     lengths, law, tokens, budgets, most)
    trainer: Learner
    if offpolicy is None:
        trainer = OnPolicy(key, values, algorithm, lr, baseline, paying)
    else:
        if algorithm != "reinforce":
            raise ValueError(f"an off-policy sampler trains reinforce, not {algorithm!r}")
        # Here, not at the top: reference.offpolicy builds on this module.
        from reference.offpolicy import Trainer, served
        trainer = Trainer(key, values, lr, baseline, group_size, offpolicy, paying)
    top = max(values)
    found = Run([], [], [])
    due = update = 0
    spent = 0.0
    while due < len(budgets):
        trainer.sample(update)
        cost = paying.cost(trainer.draw(group_size, spent), group_size)
        while due < len(budgets) and spent + cost > budgets[due]:
            found.checkpoints.append(checkpoint(trainer, budgets[due], key, update * group_size))
            if offpolicy is not None:
                found.readouts.append((*trainer.readout(), served(
                    trainer.state.logits, trainer.noise(update), offpolicy, values)))
            due += 1
        if due == len(budgets):
            break
        found.steps.extend(Step(values[arm] == top, paid)
                           for arm, paid in zip(trainer.arms, trainer.paid, strict=True))
        trainer.learn()
        spent += cost
        update += 1
    return found


def priorities(key: np.ndarray, budget: int, phase: int, arms: int) -> list[float]:
    """Tie-break priority of each arm in a phase: word a mod 4 of block (B, phase, a div 4, 1)."""
    return [unit32(philox((budget, phase, a // 4, 1), key_words(key))[a % 4])
            for a in range(arms)]


@dataclass
class FixedBudgetRun:
    """A run of a learner that plans from the budget: pull t draws its reward as episode t does,
    and the surviving arms are ``alive``."""

    key: np.ndarray
    values: list[float]
    reward: str
    budget: int
    reward_parameters: tuple[float, ...] = ()
    alive: list[int] = field(default_factory=list)
    pulls: list[int] = field(default_factory=list)
    wins: list[float] = field(default_factory=list)
    t: int = 0

    def __post_init__(self) -> None:
        arms = len(self.values)
        self.alive, self.pulls, self.wins = list(range(arms)), [0] * arms, [0.0] * arms
        self._draws = draws(self.key, self.budget)
        self._pay = payoff(self.key, self.values, self.reward, self.reward_parameters,
                            self.budget)

    def pull(self, a: int) -> float:
        """Pull arm a once; its reward."""
        reward = self._pay(self.t, a, self._draws[self.t][1])
        self.t += 1
        self.pulls[a] += 1
        self.wins[a] += reward
        return reward

    def drop_worst(self, means: dict[int, float], phase: int) -> None:
        """Reject the surviving arm with the lowest mean, ties to the lowest priority."""
        priority = priorities(self.key, self.budget, phase, len(self.values))
        self.alive.remove(min(self.alive, key=lambda a: (means[a], priority[a])))


def fixed_budget_run(key: np.ndarray, values: list[float], reward: str, algorithm: str,
                     budget: int, reward_parameters: tuple[float, ...] = ()) -> Checkpoint:
    """The learner ``algorithm``, which plans from the budget, with budget ``budget``."""
    run_ = FixedBudgetRun(key, values, reward, budget, reward_parameters)
    learner(algorithm).run_budget(run_, budget)
    scores = [run_.wins[a] / run_.pulls[a] if run_.pulls[a] else -math.inf
              for a in range(len(values))]
    return Checkpoint(budget, run_.alive[0], math.nan, math.nan, sum(run_.wins),
                      list(run_.pulls), scores, True)
