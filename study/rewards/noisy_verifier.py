"""A noisy verifier: the check passes with the arm's probability p, as for Bernoulli rewards, and
the verifier's verdict is then wrong with a false-positive rate (a failed check rewarded 1) and a
false-negative rate (a passed check rewarded 0): the reward noise post-training protocols are
built to survive. With rates fp and fn the arm's expected reward is fp + p (1 - fp - fn), so the
best arms stay the best while fp + fn < 1, and the margin between two arms shrinks by the factor
1 - fp - fn.

Pull t's check is the Bernoulli one (its reward draw u of the main stream below p); its verdict
draw v is word t mod 2 of block (t div 2, 0, 3, 0) of the run's own verifier stream, as a 32-bit
uniform (words 2 and 3 are not used, so that pull t's draws sit in block t div 2 of each stream).
The reward is 1 - [v < fn] after a pass and [v < fp] after a failure; one draw serves both, as only
one of them applies to a pull. At fp = fn = 0 the rewards are the Bernoulli ones, bit for bit.
"""

from __future__ import annotations

from study.rewards import Parameter, RewardModel

STREAM = (3, 0)
"""(c2, c3) of the verifier stream's counter range (``study.core.streams``)."""


def _informative(rates: tuple[float, ...]) -> str | None:
    false_positive, false_negative = rates
    if false_positive + false_negative >= 1.0:
        return ("has false_positive + false_negative >= 1: the verdict no longer favours the "
                "arms that pass")
    return None


REWARD = RewardModel(
    name="noisy_verifier",
    display="noisy verifier",
    values="probs",
    stream=STREAM,
    parameters=(
        Parameter("false_positive", 0.0, 1.0, 0.0, "the chance a failed check is rewarded 1",
                  role="false_positive"),
        Parameter("false_negative", 0.0, 1.0, 0.0, "the chance a passed check is rewarded 0",
                  role="false_negative"),
    ),
    constraint=_informative,
    gap_factor=lambda rates: 1.0 - rates[0] - rates[1],
    summary="the Bernoulli check, its verdict flipped with a false-positive and a false-negative "
            "rate",
)


def register() -> None:
    """Implement the kernel's reward stubs for the noisy verifier (``study.core.reward_hooks``)."""
    import numpy as np

    from study.core.philox import unit32
    from study.core.reward_hooks import implement, outcome, own_pair

    @implement(outcome, REWARD.name)
    def _outcome(model, value, u_reward, own, parameters):  # pragma: no cover
        passed = np.float64(u_reward < value)
        return (passed * np.float64(own >= parameters[1])
                + (1.0 - passed) * np.float64(own < parameters[0]))

    @implement(own_pair, REWARD.name)
    def _own_pair(model, w0, w1, w2, w3):  # pragma: no cover
        return unit32(w0), unit32(w1)
