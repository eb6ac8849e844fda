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
* **Corrections** ``correction`` (``study.corrections``, one module each): at most one weight
  w_i of rho_i = pi(a_i) / mu(a_i) (pi at the update's start), e.g. ``none`` (1), ``is``
  (rho_i), ``tis`` (min(rho_i, ``tis_cap``)), ``ppo_clip`` (rho_i, or 0 where PPO's clipped
  surrogate is flat: A_i > 0 and rho_i > 1 + c, or A_i < 0 and rho_i < 1 - c, c =
  ``clip_range``) or ``cispo`` (rho_i clipped to [1 - ``cispo_low``, 1 + ``cispo_high``]),
  joined by ``+`` with masks, e.g. ``opsm`` (V3.2's off-policy sequence masking: w_i = 0 where
  A_i < 0 and log(mu(a_i) / pi(a_i)) > ``opsm_threshold``), and the support ``keep_mask`` (V3.2:
  the learner's softmax restricted to the sampler's S, pi_S, in the score and in rho). Then,
  rollout by rollout, logits += lr (1 / G) A_i w_i (onehot(a_i) - pi), pi_S in place of pi with
  ``keep_mask``.
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

import numpy as np

from study.model import registry

ESTIMATORS = ("exact", "k1", "k3", "k3_is")
"""The KL gradient's estimators (their code is the index); all but ``exact`` are recorded."""
AXES = ("lag", "mismatch", "top_p", "correction", "kl_beta", "kl_estimator")
"""The config's off-policy axes (``grid.<key>``, each a list)."""


def keys() -> tuple[str, ...]:
    """The config's off-policy keys: the axes, and each correction's parameters (single
    numbers, ``study.model.registry.correction_parameters``)."""
    return (*AXES, *(p.name for p in registry.correction_parameters()))


def parse_correction(text: str) -> tuple[str, frozenset[str]]:
    """The weight and the masks (and support) of a ``correction`` ("tis+keep_mask"); raises
    ValueError naming what is wrong."""
    weights = registry.corrections_of("weight")
    others = (*registry.corrections_of("mask"), *registry.corrections_of("support"))
    parts = text.split("+")
    chosen = [p for p in parts if p in weights]
    unknown = [p for p in parts if p not in weights and p not in others]
    if unknown:
        # The value itself is named by the caller: a part is named only where it is not all.
        said = "is" if len(parts) == 1 else f"has the part {unknown[0]!r}, which is"
        raise ValueError(f"{said} not one of {', '.join((*weights, *others))} (a weight and "
                         "masks, joined by +)")
    if len(chosen) > 1:
        raise ValueError(f"joins two weights ({' and '.join(chosen)}); at most one of "
                         f"{', '.join(weights)} beside the masks {', '.join(others)}")
    if len(set(parts)) != len(parts):
        raise ValueError("names a correction twice")
    if "none" in parts and len(parts) > 1:
        raise ValueError("joins none with another correction (write the masks alone)")
    return (chosen[0] if chosen else "none"), frozenset(p for p in parts if p in others)


@dataclass(frozen=True)
class OffPolicy:
    """One sampler and update of the off-policy group learner (the module's docstring); the
    defaults are the on-policy learner. ``parameters`` are the correction's parameters by name
    (those of its parts alone, so that two samplers that simulate the same update are equal);
    a parameter not given takes its declared default."""

    lag: int = 0
    mismatch: float = 0.0
    top_p: float = 1.0
    correction: str = "none"
    kl_beta: float = 0.0
    kl_estimator: str = "exact"
    parameters: tuple[tuple[str, float], ...] = ()

    @property
    def weight(self) -> str:
        """The correction's weight (a correction of kind ``weight``)."""
        return parse_correction(self.correction)[0]

    @property
    def masks(self) -> frozenset[str]:
        """The correction's masks and support."""
        return parse_correction(self.correction)[1]

    def parameter(self, name: str) -> float:
        """The value of the correction parameter ``name`` (its default if not given)."""
        given = dict(self.parameters)
        if name in given:
            return given[name]
        return next(p.default for p in registry.correction_parameters() if p.name == name)

    def parameter_array(self) -> np.ndarray:
        """Every correction's parameters in the registry's order (float64), this sampler's
        values where it has them: the kernel reads a correction's from its first place
        (``study.model.registry.first_parameter``)."""
        return np.array([self.parameter(p.name) for p in registry.correction_parameters()],
                        dtype=np.float64)

    def codes(self) -> tuple[int, float, float, int, bool, int, bool, np.ndarray, float, int]:
        """The kernel's arguments (``study.core.offpolicy.simulate_offpolicy``) from ``lag`` to
        ``estimator``: the lag, eps, top_p, the weight's code (its place among the registry's
        weights), whether it weights at all (not ``none``), the masks' bits (each its place
        among the registry's masks), whether the support is the sampler's (``keep_mask``), the
        parameter array, beta and the estimator's code."""
        weight, masks = parse_correction(self.correction)
        bits = sum(1 << i for i, name in enumerate(registry.corrections_of("mask"))
                   if name in masks)
        support = any(name in masks for name in registry.corrections_of("support"))
        return (self.lag, float(self.mismatch), float(self.top_p),
                registry.corrections_of("weight").index(weight), weight != "none", bits,
                support, self.parameter_array(), float(self.kl_beta),
                ESTIMATORS.index(self.kl_estimator))
