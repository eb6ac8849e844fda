"""Off-policy rollouts: a sampler that is not the learner, and the corrections trainers use.

REINFORCE's group learner (Dr. GRPO's, GRPO's or RLOO's advantages) with its rollouts drawn from
a sampler policy mu instead of its own policy pi (both softmaxes of K logits; the reference
policy r of the KL term is the initial one, uniform). Update u of a run:

* **Staleness** ``lag`` = d: the sampler's logits are the learner's before update u - d (the
  initial logits, all 0, while u < d); d = 0 is the learner itself.
* **Mismatch** ``mismatch`` = eps: eps z_{u,k} is added to the sampler's logit of arm k, z a
  standard normal of the run's MISMATCH stream (blocks (u, k div 2, 5, 0), a Box-Muller pair per
  block; ``study.core.streams``): an inference engine's numerical drift.
* **Truncated sampling** ``top_p`` = p: the sampler keeps the smallest set S of arms, taken in
  decreasing probability (ties to the lower index), whose probability reaches p, renormalised
  (top-k is not modelled).
* Rollout i's arm a_i is drawn from mu by inverse CDF with the action draw of the main stream,
  as the on-policy learner draws from pi; its reward, the group's advantages A_i and the
  zero-signal count are the on-policy learner's.
* **Corrections** ``correction``: at most one weight w_i of rho_i = pi(a_i) / mu(a_i) (pi at
  the update's start), ``none`` (1), ``is`` (rho_i), ``tis`` (min(rho_i, ``tis_cap``)) or
  ``ppo_clip`` (rho_i, or 0 where PPO's clipped surrogate is flat: A_i > 0 and rho_i > 1 + c, or
  A_i < 0 and rho_i < 1 - c, c = ``clip_range``), joined by ``+`` with either or both masks,
  ``opsm`` (V3.2's off-policy sequence masking: w_i = 0 where A_i < 0 and log(mu(a_i) /
  pi(a_i)) > ``opsm_threshold``) and ``keep_mask`` (V3.2: the learner's softmax restricted to the
  sampler's S, pi_S, in the score and in rho). Then, rollout by rollout, logits += lr (1 / G)
  A_i w_i (onehot(a_i) - pi), pi_S in place of pi with ``keep_mask``.
* **KL to the reference** with coefficient ``kl_beta`` = beta, after the policy-gradient steps:
  logits -= lr beta g, g the gradient of KL(pi || r) at the update's start, exact or estimated
  from the group as the loss each estimator is (``kl_estimator``; the score
  s(a) = onehot(a) - pi): ``exact``, pi (log(pi / r) - KL); ``k1``, the mean of s(a_i), the
  gradient of log(pi / r)(a) taken as a loss, whose expectation under pi is 0; ``k3``, the mean
  of (1 - r(a_i) / pi(a_i)) s(a_i), the gradient of r/pi - log(r/pi) - 1, whose expectation
  under pi is pi - r, the gradient of KL(r || pi) instead; ``k3_is``, the mean of rho_i log(pi /
  r)(a_i) s(a_i), the gradient of rho k3 with rho = pi / mu differentiated (V3.2), unbiased for
  the exact gradient wherever mu covers pi's support.

At each checkpoint a run records, beside the on-policy readout, the policy's entropy and, for
each estimator but ``exact``, the exact bias and mean squared error of its gradient for a group
of G drawn from the sampler of the next update at that state: bias = sum_a mu(a) g(a) - g_exact
(its Euclidean norm), MSE = |bias|^2 + (1 / G) sum_a mu(a) |g(a) - sum_b mu(b) g(b)|^2.
"""

from __future__ import annotations

from dataclasses import dataclass

WEIGHTS = ("none", "is", "tis", "ppo_clip")
"""The corrections that weight a rollout, at most one per ``correction`` (its code is the index)."""
MASKS = ("opsm", "keep_mask")
"""The corrections that mask, any of them beside a weight."""
ESTIMATORS = ("exact", "k1", "k3", "k3_is")
"""The KL gradient's estimators (their code is the index); all but ``exact`` are recorded."""
KEYS = ("lag", "mismatch", "top_p", "correction", "kl_beta", "kl_estimator", "clip_range",
        "tis_cap", "opsm_threshold")
"""The config's off-policy keys (``grid.<key>``); the first six are axes of the grid."""


def parse_correction(text: str) -> tuple[str, frozenset[str]]:
    """The weight and the masks of a ``correction`` ("tis+keep_mask"); raises ValueError naming
    what is wrong."""
    parts = text.split("+")
    weights = [p for p in parts if p in WEIGHTS]
    unknown = [p for p in parts if p not in WEIGHTS and p not in MASKS]
    if unknown:
        # The value itself is named by the caller: a part is named only where it is not all.
        said = "is" if len(parts) == 1 else f"has the part {unknown[0]!r}, which is"
        raise ValueError(f"{said} not one of {', '.join((*WEIGHTS, *MASKS))} (a weight and "
                         "masks, joined by +)")
    if len(weights) > 1:
        raise ValueError(f"joins two weights ({' and '.join(weights)}); at most one of "
                         f"{', '.join(WEIGHTS)} beside the masks {', '.join(MASKS)}")
    if len(set(parts)) != len(parts):
        raise ValueError("names a correction twice")
    if "none" in parts and len(parts) > 1:
        raise ValueError("joins none with another correction (write the masks alone)")
    return (weights[0] if weights else "none"), frozenset(p for p in parts if p in MASKS)


@dataclass(frozen=True)
class OffPolicy:
    """One sampler and update of the off-policy group learner (the module's docstring); the
    defaults are the on-policy learner."""

    lag: int = 0
    mismatch: float = 0.0
    top_p: float = 1.0
    correction: str = "none"
    kl_beta: float = 0.0
    kl_estimator: str = "exact"
    clip_range: float = 0.2
    tis_cap: float = 2.0
    opsm_threshold: float = 0.1

    @property
    def weight(self) -> str:
        """The correction's weight (``WEIGHTS``)."""
        return parse_correction(self.correction)[0]

    @property
    def masks(self) -> frozenset[str]:
        """The correction's masks (``MASKS``)."""
        return parse_correction(self.correction)[1]

    def codes(self) -> tuple[int, float, float, int, bool, bool, float, float, float, float,
                             int]:
        """The kernel's arguments (``study.core.offpolicy.simulate_offpolicy``) from ``lag`` to
        ``estimator``: the lag, eps, top_p, the weight's code, opsm, keep_mask, the clip range,
        the TIS cap, the OPSM threshold, beta and the estimator's code."""
        masks = self.masks
        return (self.lag, float(self.mismatch), float(self.top_p),
                WEIGHTS.index(self.weight), "opsm" in masks, "keep_mask" in masks,
                float(self.clip_range), float(self.tis_cap), float(self.opsm_threshold),
                float(self.kl_beta), ESTIMATORS.index(self.kl_estimator))
