"""The reward models: one module per model, each declaring itself in a ``REWARD`` and supplying
its numba pieces in a ``register()`` function, as the learners do (``study.learners``).

A reward model module holds, in one place:

* ``REWARD = RewardModel(...)``: its name (the runs table's ``reward_model``), which grid key of
  a config holds its arm values (``probs`` for pass probabilities, ``means`` for Gaussian means),
  its parameters (each a ``[grid]`` axis of the config, with its range and default), and the
  Philox counter range (c2, c3) of its own random stream, if it draws one
  (``study.core.streams``);
* ``register()``: implements the kernel's reward stubs for it (``study.core.reward_hooks``):
  ``outcome`` (the reward of a pull, from the pulled arm's value, the pull's reward draw and its
  own draw), and for a model with a stream of its own ``own_pair`` (its draws, from the words of
  a block of that stream; the kernel draws them only for a model that implements it, from the
  range ``stream`` names: ``RewardModel.register_stream``). The numba
  imports sit inside ``register()``, so the declaration can be read without loading numba.

A reward is a verdict followed by a shaping. A model whose reward depends on the answer's length
(``RewardModel.lengths``: ``length_penalty``, ``overlong``) is a shaping: it shapes the verdict of
another model, the config's ``grid.verdict`` (default ``DEFAULT_VERDICT``, the Bernoulli check),
and implements only the shaping's stubs (``shaped``, ``cut``, ``lifted_at``); every other model is
a verdict, with nothing shaped.

``study.model.registry`` finds every module of this folder; nothing else lists the models. To add
one, write ``study/rewards/<name>.py`` and its pure-Python reference
``reference/rewards/<name>.py``; the kernel-against-reference tests and config validation
pick both up by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_VERDICT = "bernoulli"
"""The verdict a shaping shapes when a config names none."""

VALUE_KEYS = ("probs", "means")
"""The ``[grid]`` keys that hold arm values: pass probabilities (in [0, 1]) and Gaussian means."""


ROLES = {
    "false_positive": "the chance a failed check is rewarded 1",
    "false_negative": "the chance a passed check is rewarded 0",
}
"""What a parameter can be to the analysis, whatever a model calls it: a verifier's error rates,
with which a model's expected reward is fp + p (1 - fp - fn) (the variance-folded prediction of
``analysis.questions.reward_noise`` and its section read parameters by these roles)."""


@dataclass(frozen=True)
class Parameter:
    """A reward model's parameter: a ``[grid]`` axis of the config (a list of values, every one
    crossed with the bandits of the model's value key), in ``[low, high]``; ``role``, one of
    ``ROLES`` or "", is what it is to the analysis."""

    name: str
    low: float
    high: float
    default: float
    meaning: str
    role: str = ""

    def __post_init__(self) -> None:
        if self.role and self.role not in ROLES:
            raise ValueError(f"parameter {self.name!r} has the role {self.role!r}, not one of "
                             f"{', '.join(ROLES)}")


LIFTED = Parameter("penalty_until", 0.0, 1.0, 1.0,
                   "the share of the largest budget after which the penalty is lifted")
"""The parameter of a length-constraint model that lifts its penalty part way through a run
(``study.core.reward_hooks.lifted_at``): its last, by convention."""


@dataclass(frozen=True)
class RewardModel:
    """What the rest of the package knows of a reward model (see the module docstring).
    ``constraint`` returns why a combination of parameter values is refused (None if it is
    not); ``gap_factor``, for a model whose parameters scale every gap between two arms'
    expected rewards by one factor, returns that factor (the analysis compares the budgets it
    costs with what the factor predicts)."""

    name: str
    display: str
    values: str
    stream: tuple[int, int] | None = None
    parameters: tuple[Parameter, ...] = ()
    constraint: Callable[[tuple[float, ...]], str | None] | None = None
    gap_factor: Callable[[tuple[float, ...]], float] | None = None
    expected: Callable[[tuple[float, ...], tuple[float, ...], tuple[float, ...]],
                       list[float]] | None = None
    """For a length-constraint model, each arm's expected shaped reward from the arms' expected
    verdicts (``expected_rewards``: their pass probabilities under the Bernoulli check), mean
    lengths and the parameters, while the constraint is on (None where it
    depends on more than the mean length): the arms a learner that follows it prefers."""
    canonical: Callable[[tuple[float, ...]], tuple[float, ...]] | None = None
    """The parameters that simulate exactly what these do, one tuple for all of them (a penalty
    of weight 0 is the same whenever it is lifted): a grid keeps one bandit of each."""
    lengths: bool = False
    """Whether the model's reward depends on the answer's length (a length-constraint model,
    which implements ``shaped``, and ``cut`` or ``lifted_at`` where it has them): its study gives
    its arms lengths and runs the token-counting driver."""
    summary: str = ""

    def by_role(self, values: tuple[float, ...]) -> dict[str, float]:
        """The parameters ``values`` (in the declared order) that have a role, by their role."""
        return {p.role: v for p, v in zip(self.parameters, values, strict=True) if p.role}

    def expected_rewards(self, values: tuple[float, ...],
                         parameters: tuple[float, ...]) -> list[float]:
        """Each arm's expected reward, as a verdict, from its value: fp + v (1 - fp - fn) with the
        rates the parameters' roles give (0 where the model has none: the value itself)."""
        roles = self.by_role(parameters)
        positive, negative = roles.get("false_positive", 0.0), roles.get("false_negative", 0.0)
        return [positive + v * (1.0 - positive - negative) for v in values]

    def defaults(self) -> tuple[float, ...]:
        """The parameter values a config gets when it gives none."""
        return tuple(p.default for p in self.parameters)

    def register_stream(self) -> None:
        """Implement the kernel's ``own_stream`` stub for this model from ``stream`` (nothing
        for a model without a stream of its own), so that the range the declaration names is
        the one the kernel draws from; ``study.model.registry.register_kernels`` calls it.
        Loads numba."""
        if self.stream is None:
            return
        import numpy as np

        from study.core.reward_hooks import implement, own_stream

        c2, c3 = np.uint64(self.stream[0]), np.uint64(self.stream[1])

        @implement(own_stream, self.name)
        def _own_stream(model):  # type: ignore[no-untyped-def]  # pragma: no cover
            return c2, c3
