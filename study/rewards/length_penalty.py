"""A linear length penalty, a shaping: the verdict (the Bernoulli check unless ``grid.verdict``
names another) less ``penalty`` times the answer's length over a reference length, r = verdict -
lambda L / L_ref, the length-constraint reward a post-training protocol keeps for stability. The
penalty can be lifted part way through a run (``penalty_until``, a share of the study's largest
budget, counted in the study's unit: tokens for a token budget): trained with the penalty, then
without it, in one cell. At lambda = 0 the rewards are the verdict's, bit for bit. Only the
drivers that meter tokens (``study.core.kernel.simulate_tokens``, and the off-policy learner's)
see lengths: a study with this model gives its arms lengths (``grid.lengths``)."""

from __future__ import annotations

from study.rewards import LIFTED, Parameter, RewardModel

REWARD = RewardModel(
    name="length_penalty",
    display="length penalty",
    values="probs",
    parameters=(
        Parameter("penalty", 0.0, 1e6, 0.0, "lambda, the reward lost per reference length"),
        Parameter("reference_length", 1e-9, 1e12, 1.0,
                  "L_ref, the length the penalty is counted in"),
        LIFTED,
    ),
    expected=lambda values, lengths, p: [v - p[0] * length / p[1]
                                         for v, length in zip(values, lengths, strict=True)],
    # No penalty is no penalty whenever it is lifted.
    canonical=lambda p: (0.0, p[1], 1.0) if p[0] == 0.0 else p,
    lengths=True,
    summary="the verdict less lambda times the answer's length over a reference length",
)


def register() -> None:
    """Implement the kernel's reward stubs for the length penalty (``study.core.reward_hooks``)."""
    from study.core.reward_hooks import implement, lifted_at, shaped
    @implement(shaped, REWARD.name)
    def _shaped(model, reward, length, on, parameters):  # pragma: no cover
        return reward - on * parameters[0] * length / parameters[1]

    @implement(lifted_at, REWARD.name)
    def _lifted_at(model, parameters):  # pragma: no cover
        return parameters[2]
