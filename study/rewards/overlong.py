"""DAPO's soft overlong punishment (Yu et al. 2025), a shaping: the verdict (the Bernoulli check
unless ``grid.verdict`` names another), with no penalty for an answer up to L_max - L_cache
tokens, a penalty rising linearly to 1 at L_max, and an answer longer than L_max cut there (it
costs L_max tokens) and rewarded -1 whatever its verdict. Lifting the constraint part way through
a run (``penalty_until``) removes the penalty, not the cut: a cut answer is then rewarded 0. Only
the drivers that meter tokens (``study.core.kernel.simulate_tokens``, and the off-policy
learner's) see lengths: a study with this model gives its arms lengths (``grid.lengths``)."""

from __future__ import annotations

from study.rewards import LIFTED, Parameter, RewardModel


def _ramp(parameters: tuple[float, ...]) -> str | None:
    longest, cache, _ = parameters
    if cache >= longest:
        return "has cache_length >= max_length: the penalty would start before any answer"
    return None


REWARD = RewardModel(
    name="overlong",
    display="overlong punishment",
    values="probs",
    parameters=(
        Parameter("max_length", 1.0, 1e12, 16.0, "L_max, the longest answer let through"),
        Parameter("cache_length", 1e-9, 1e12, 4.0,
                  "L_cache, the tokens before L_max over which the penalty rises to 1"),
        LIFTED,
    ),
    constraint=_ramp,
    lengths=True,
    summary="the verdict, penalised linearly over the last L_cache tokens before L_max; "
            "an answer past L_max is cut and fails",
)


def register() -> None:
    """Implement the kernel's reward stubs for the overlong punishment
    (``study.core.reward_hooks``)."""
    from study.core.bits import select
    from study.core.reward_hooks import cut, implement, lifted_at, shaped
    @implement(shaped, REWARD.name)
    def _shaped(model, reward, length, on, parameters):  # pragma: no cover
        longest, cache = parameters[0], parameters[1]
        ramp = reward - on * ((length - (longest - cache)) / cache)
        within = select(length > longest - cache, ramp, reward)
        return select(length > longest, -on, within)

    @implement(cut, REWARD.name)
    def _cut(model, parameters):  # pragma: no cover
        return parameters[0]

    @implement(lifted_at, REWARD.name)
    def _lifted_at(model, parameters):  # pragma: no cover
        return parameters[2]
