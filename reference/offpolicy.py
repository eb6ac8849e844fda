"""The off-policy group learner, the reference of ``study.core.offpolicy`` (specified in
``study.model.offpolicy``): REINFORCE's group update (``reference.reinforce``) with rollouts from
a stale, mismatched or truncated sampler, its corrections and a KL term to the initial policy."""

from __future__ import annotations

import math

import numpy as np

from reference import (
    Answers,
    Lazy,
    State,
    correction,
    draws,
    key_words,
    learner,
    philox,
    unit53,
)
from reference.elementary import cos_sin_turns, log
from reference.reinforce import advantages, softmax_weights
from study.model import registry
from study.model.offpolicy import OffPolicy

SMALLEST_NORMAL = 2.2250738585072014e-308


def _divide(a: float, b: float) -> float:
    """a / b in IEEE arithmetic, as the kernel divides (numba's numpy error model): inf or NaN
    for a zero b, not an exception (a probability that underflowed to 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(a) / np.float64(b))


def _square(x: float) -> float:
    """x * x in IEEE arithmetic: inf past the largest float, as the kernel squares (Python's
    ``x ** 2`` raises OverflowError there instead)."""
    return x * x


def _log0(x: float) -> float:
    """ln x, 0 for x below the smallest normal number (its term then has a factor 0)."""
    return log(x) if x >= SMALLEST_NORMAL else 0.0


def mismatch_noise(key: np.ndarray, update: int, arms: int, prompt: int = 0,
                   width: int = 0) -> list[float]:
    """z_{u,k} of the MISMATCH stream for ``arms`` arms: block (u, prompt ceil(K / 2) + m, 5, 0)
    is the Box-Muller pair of arms 2m and 2m + 1 of prompt ``prompt``, K the dataset's arms
    ``width`` (default ``arms``: a prompt of fewer arms than its dataset's reads its first)."""
    out = []
    pairs = (max(width, arms) + 1) // 2
    for pair in range(pairs):
        w = philox((update, prompt * pairs + pair, 5, 0), key_words(key))
        radius = math.sqrt(-2.0 * log(1.0 - unit53(w[0], w[1])))
        cosine, sine = cos_sin_turns(unit53(w[2], w[3]))
        out += [radius * cosine, radius * sine]
    return out[:arms]


def sampler_weights(logits: list[float], top_p: float
                    ) -> tuple[list[float], float, list[bool]]:
    """The sampler's weights with the arms outside top-p zeroed, their sum, and which arms are
    kept: arm k is kept when the arms ahead of it (more probable, or as probable with a lower
    index) hold less than top_p of the mass."""
    weights, norm = softmax_weights(logits)
    if top_p >= 1.0:
        return weights, norm, [True] * len(weights)
    kept = []
    for k, mine in enumerate(weights):
        ahead = 0.0
        for i, theirs in enumerate(weights):
            if theirs > mine or (theirs == mine and i < k):
                ahead += theirs
        kept.append(ahead < top_p * norm)
    masked = [w if keep else 0.0 for w, keep in zip(weights, kept, strict=True)]
    total = 0.0
    for w in masked:
        total += w
    return masked, total, kept


def kl_gradient(policy: list[float], estimator: str, arms: list[int],
                ratios: list[float]) -> list[float]:
    """The gradient of KL(pi || uniform), exact or estimated from the group's arms."""
    n = len(policy)
    if estimator == "exact":
        divergence = sum(p * _log0(p * n) for p in policy)
        return [p * (_log0(p * n) - divergence) for p in policy]
    gradient = [0.0] * n
    for arm, ratio in zip(arms, ratios, strict=True):
        chosen = policy[arm]
        factor = {"k1": 1.0, "k3": 1.0 - _divide(1.0, n * chosen),
                  "k3_is": ratio * _log0(chosen * n)}[estimator]
        for k in range(n):
            gradient[k] += factor * ((1.0 if k == arm else 0.0) - policy[k])
    return [g * (1.0 / len(arms)) for g in gradient]


def readout(policy: list[float], sampler: list[float], group: int
            ) -> tuple[float, list[float], list[float]]:
    """The entropy of ``policy``, and the bias norm and group MSE of k1, k3 and k3_is under
    ``sampler`` (probabilities)."""
    n = len(policy)
    entropy = -sum(p * _log0(p) for p in policy)
    exact = kl_gradient(policy, "exact", [], [])
    biases, errors = [], []
    for estimator in ("k1", "k3", "k3_is"):
        per_arm = []
        for a in range(n):
            factor = {"k1": 1.0, "k3": 1.0 - _divide(1.0, n * policy[a]),
                      "k3_is": (policy[a] / sampler[a] * _log0(policy[a] * n)
                                if sampler[a] > 0 else 0.0)}[estimator]
            factor = factor if sampler[a] > 0 else 0.0
            per_arm.append([factor * ((1.0 if a == k else 0.0) - policy[k]) for k in range(n)])
        mean = [sum(sampler[a] * per_arm[a][k] for a in range(n)) for k in range(n)]
        squared = sum(_square(mean[k] - exact[k]) for k in range(n))
        variance = sum(sampler[a] * _square(per_arm[a][k] - mean[k])
                       for a in range(n) for k in range(n))
        biases.append(math.sqrt(squared))
        errors.append(squared + variance / group)
    return entropy, biases, errors


def served(logits: list[float], noise: list[float], offpolicy: OffPolicy, values: list[float]
           ) -> tuple[float, float]:
    """The served policy's pass rate and mass on the best arms: the learner's current
    ``logits`` plus eps ``noise``, truncated to top-p, as the sampler serves them but never
    stale; NaN for logits that are not all finite (the state serves nothing)."""
    if not all(math.isfinite(x) for x in logits):
        return math.nan, math.nan
    if offpolicy.mismatch > 0.0:
        logits = [x + offpolicy.mismatch * z for x, z in zip(logits, noise, strict=True)]
    weights, norm, _ = sampler_weights(logits, offpolicy.top_p)
    top = max(values)
    passed, on_best = 0.0, 0.0
    for w, v in zip(weights, values, strict=True):
        p = w * _divide(1.0, norm)
        passed += p * v
        on_best += p * (1.0 if v == top else 0.0)
    return passed, on_best


class Trainer:
    """One prompt's off-policy group learner: its state, its sampler's history and its answers
    (``paying``, whose ``prompt`` it is), updated in three steps: ``sample`` the sampler of an
    update (the trainer's policy version), ``draw`` a group from it, ``learn`` from the group.
    ``rollouts``, ``groups``, ``run`` (updates in a row without signal), ``passed`` and
    ``failed`` (the last group's) are what the many-prompts allocation rules read."""

    def __init__(self, key: np.ndarray, values: list[float], lr: float, baseline: str,
                 group_size: int, offpolicy: OffPolicy, paying: Answers, width: int = 0
                 ) -> None:
        self.part = learner("reinforce")
        self.width = width  # the dataset's arms, where the prompt has fewer (mismatch_noise)
        self.key, self.values, self.lr, self.baseline = key, values, lr, baseline
        self.group_size, self.offpolicy, self.paying = group_size, offpolicy, paying
        self.uniforms = Lazy(lambda n: draws(key, max(n, paying.rollouts), paying.prompt))
        n = len(values)
        self.state = State([0.0] * n, [0] * n, [0.0] * n)
        self.history = [[0.0] * n for _ in range(offpolicy.lag + 1)]
        self.zero_signal = 0
        self.spent_tokens = 0.0
        self.rollouts = self.groups = self.run = self.passed = self.failed = 0

    def _parameters(self, name: str) -> tuple[float, ...]:
        return tuple(self.offpolicy.parameter(p.name)
                     for p in registry.correction(name).parameters)

    def noise(self, update: int) -> list[float]:
        """The sampler's mismatch noise at ``update`` (none where eps is 0)."""
        if self.offpolicy.mismatch <= 0.0:
            return []
        return mismatch_noise(self.key, update, len(self.values), self.paying.prompt,
                              self.width)

    def sample(self, update: int) -> None:
        """Update ``update``'s sampler: the logits of ``lag`` updates before, mismatched and
        truncated."""
        offpolicy = self.offpolicy
        lag = offpolicy.lag + 1
        self.history[update % lag] = list(self.state.logits)
        logits = list(self.history[(update + 1) % lag])
        noise = self.noise(update)
        if noise:
            logits = [x + offpolicy.mismatch * z for x, z in zip(logits, noise, strict=True)]
        self.sampled, self.sampled_norm, self.kept = sampler_weights(logits, offpolicy.top_p)
        self.weights, self.norm = softmax_weights(self.state.logits)

    def draw(self, size: int, spent: float) -> float:
        """A group of ``size`` rollouts (the prompt's next) from the sampler, its answers paid
        in a run that has spent ``spent``; the tokens its answers cost."""
        n = len(self.values)
        self.arms, self.paid, self.answered = [], [], 0.0
        for t in range(self.rollouts, self.rollouts + size):
            u_action, u_reward = self.uniforms[t]
            target, cumulative, arm = u_action * self.sampled_norm, 0.0, n - 1
            for k, w in enumerate(self.sampled):
                cumulative += w
                if target < cumulative:
                    arm = k
                    break
            reward_t, length = self.paying.answer(t, arm, u_reward, spent)
            self.arms.append(arm)
            self.paid.append(reward_t)
            self.answered += length
        return self.answered

    def readout(self) -> tuple[float, list[float], list[float]]:
        """``readout`` of the state and of the drawn update's sampler."""
        behaviour = [w * _divide(1.0, self.sampled_norm) for w in self.sampled]
        return readout([w * _divide(1.0, self.norm) for w in self.weights], behaviour,
                       self.group_size)

    def learn(self, divisor: int = 0) -> None:
        """The drawn group's update: advantages, the correction's weights and masks, the score
        on the sampler's support where ``keep_mask``, the KL term; its step lr (1 / n) A_i ...
        for a group of n, or lr (1 / ``divisor``) A_i ... where one is given (a many-prompts
        study's ``per_batch`` normalization)."""
        offpolicy, state = self.offpolicy, self.state
        n = len(self.values)
        found = advantages(self.rollouts, self.baseline, self.arms, self.paid, state)
        silent = all(a == 0.0 for a in found)
        self.zero_signal += silent
        self.run = self.run + 1 if silent else 0
        self.passed = int(sum(self.paid))
        self.failed = len(self.paid) - self.passed
        weight, masks = offpolicy.weight, offpolicy.masks
        # The masks that drop rollouts (the support, keep_mask, is this learner's own
        # operation).
        dropping = [m for m in sorted(masks) if m in registry.corrections_of("mask")]
        weights, norm = self.weights, self.norm
        if "keep_mask" in masks:
            restricted = [w if keep else 0.0 for w, keep in zip(weights, self.kept, strict=True)]
            total = 0.0
            for w in restricted:
                total += w
            scored, inverse = restricted, _divide(1.0, total)
        else:
            scored, inverse = weights, _divide(1.0, norm)
        factors, ratios = [], []
        for arm, a in zip(self.arms, found, strict=True):
            behaves = self.sampled[arm] * _divide(1.0, self.sampled_norm)
            rho = _divide(scored[arm] * inverse, behaves)
            ratios.append(_divide(weights[arm] * _divide(1.0, norm), behaves))
            w = correction(weight).weight(rho, a, self._parameters(weight))
            if not all(correction(m).keeps(rho, a, self._parameters(m)) for m in dropping):
                w = 0.0
            factors.append(w)
        policy = [w * _divide(1.0, norm) for w in weights]
        gradient = (kl_gradient(policy, offpolicy.kl_estimator, self.arms, ratios)
                    if offpolicy.kl_beta > 0.0 else None)
        size = len(self.arms)
        # The step lr (1 / n) taken into the advantages, as the many-prompts kernel takes it
        # (the same bits as lr (1 / n) A_i w_i).
        rate = self.lr * (1.0 / (divisor or size))
        for arm, a, w in zip(self.arms, found, factors, strict=True):
            c = rate * a * w
            for k in range(n):
                state.logits[k] += c * ((1.0 if k == arm else 0.0) - scored[k] * inverse)
        if gradient is not None:
            for k in range(n):
                state.logits[k] -= (self.lr * offpolicy.kl_beta) * gradient[k]
        for arm, r in zip(self.arms, self.paid, strict=True):
            state.pulls[arm] += 1
            state.arm_rewards[arm] += r
            state.total += r
        self.spent_tokens += self.answered
        self.rollouts += size
        self.groups += 1
