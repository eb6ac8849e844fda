"""REINFORCE as an expert numpy user would write it, the strongest non-numba peer the benchmark
compares the kernel with: the same model (softmax policy, running-mean baseline), numpy's own
generator for the draws, so it is compared on speed, and on accuracy only statistically.

Why it is written as it is. All seeds advance together, one array operation per step of an
episode, so an episode costs one pass over arrays of ``seeds`` doubles per operation (plus a
fixed call overhead), a little more per exponential, and a generator draw per uniform (as much
as several passes; ``make bench`` measures them on the host at hand). Hence:

* Every buffer is preallocated and every ufunc writes into one; nothing allocates in the loop.
  The ufuncs are bound to local names and given ``out`` positionally, which saves interpreter
  work on every call.
* K = 3 (the benchmark's workload) has a path of its own, one 1-D array per quantity. Every
  update adds ``step * (onehot - pi)``, whose sum is 0, so the logits keep summing to zero: only
  l0 and l2 are stored and w1 = 1 / (w0 * w2), two exponentials instead of three and no max to
  subtract. Logits are in base 2 because ``exp2`` is cheaper than ``exp`` (the learning rate is
  scaled by log2(e) to match). Any other K takes the general (K, seeds) path.
* The arm is sampled against the cumulative probabilities c0 = pi0, c1 = pi0 + pi1: as c - u lies
  in (-1, 1), ``ceil(c - u)`` is the indicator [u < c] already as a double, so there are no
  boolean masks to cast back and no gather of the pulled arm's probability. In these terms the
  update needs no one-hot either: l0 += step ([u < c0] - c0), l2 -= step ([u < c1] - c1).
* The reward [v < p[arm]] is ``ceil(p[arm] - v)``, p[arm] formed from the same two indicators.
* Uniforms are drawn CHUNK episodes at a time, and one float64 draw serves both of an episode's
  uniforms (its top 26 bits the action's, the 27 below the reward's), as the kernel splits one
  64-bit word into two 32-bit uniforms: splitting costs fewer passes than a second draw.

Results follow the same model to within rounding; the draws differ, so they agree with the
kernel's only in distribution.
"""

from __future__ import annotations

import math

import numpy as np

CHUNK = 8
"""Episodes whose uniforms are drawn in one generator call: enough to amortize the call, few
enough that the draw buffers of 10,000 seeds stay in L2 (at 32 and more they do not)."""

_SPLIT = 2.0**26
"""A float64 uniform has 53 random bits: the action takes the top 26, the reward the 27 below."""

_TIE = 1e-9
"""Logits closer than this are equal (base 2). Rounding moves a logit by about 1e-15 per
episode, and two logits that differ in exact arithmetic come this close with probability of
order 1e-9."""

_EXP2_SAFE = 1000.0
"""While every logit stays within +-1000 (base 2), the weights and the product w0 * w2 of the
K = 3 path are normal doubles. Each logit moves by at most lr * log2(e) per episode."""


def numpy_reinforce(probs: np.ndarray, lr: float, budget: int, seeds: int,
                    rng: np.random.Generator) -> np.ndarray:
    """Greedy arm of each seed after ``budget`` episodes (running-mean baseline)."""
    probs = np.asarray(probs, dtype=np.float64)
    lam = lr / math.log(2.0)
    logits = np.zeros((len(probs), seeds))  # base 2
    scaled_total = np.zeros(seeds)  # lam * sum of rewards so far
    done = 0
    if len(probs) == 3:
        done = _three_arms(probs, lam, budget, rng, logits, scaled_total)
    if done < budget:
        _any_arms(probs, lam, done, budget, rng, logits, scaled_total)
    return _greedy(logits)


def _greedy(logits: np.ndarray) -> np.ndarray:
    """The first arm of largest logit, logits within _TIE of each other counting as equal.

    Arms that have not been pulled get the same updates, so their logits are equal, and
    ``argmax`` would give the first of them, as it does when the arms are updated one by one by
    the same expressions. Here an arm's update depends on its place (the middle logit of K = 3
    is -(l0 + l2); the general path takes differences of cumulative sums), so equal logits
    differ by rounding and a plain ``argmax`` would choose among them at random: at budget 3 it
    moves 0.4% of the seeds from arm 1 to arm 2.
    """
    top = logits.max(axis=0)
    return np.argmax(logits >= top - _TIE, axis=0)


def _draw_uniforms(rng: np.random.Generator, u: np.ndarray, v: np.ndarray,
                   p_last: float) -> None:
    """Fill ``u`` with action uniforms and ``v`` with ``p_last`` minus reward uniforms, both from
    one float64 draw per element: its top 26 bits make u, the 27 below the reward uniform."""
    rng.random(out=v)
    np.multiply(v, _SPLIT, out=v)  # exact: a power of two
    np.floor(v, out=u)
    np.subtract(v, u, out=v)  # exact: the low 27 bits, uniform on [0, 1) and independent of u
    np.multiply(u, 1.0 / _SPLIT, out=u)
    np.subtract(p_last, v, out=v)


def _three_arms(probs: np.ndarray, lam: float, budget: int, rng: np.random.Generator,
                logits: np.ndarray, scaled_total: np.ndarray) -> int:
    """Run the K = 3 path from episode 0 and store its state in ``logits`` and ``scaled_total``.

    Returns the number of episodes run: ``budget``, or fewer if the logits grew so large that
    the weights could overflow, which leaves the rest to the general path (which subtracts the
    largest logit). It takes lr * budget > 693 to make that possible and far more to make it
    happen: a greedy arm's logit grows about as the log of the number of episodes.
    """
    p0, p1, p2 = (float(p) for p in probs)
    seeds = logits.shape[1]
    l0, l2 = np.zeros(seeds), np.zeros(seeds)  # l1 = -(l0 + l2)
    total = scaled_total
    w0, w2, tmp, c0, c1, n0, n1 = (np.empty(seeds) for _ in range(7))
    reward, step = w0, w2  # the weights are dead by the time these are written
    us, vs = np.empty((CHUNK, seeds)), np.empty((CHUNK, seeds))
    u_rows, v_rows = list(us), list(vs)  # views made once, not per episode
    add, sub, mul, div, ceil, exp2 = (np.add, np.subtract, np.multiply, np.divide, np.ceil,
                                      np.exp2)
    guarded = lam * budget > _EXP2_SAFE
    done = 0
    for start in range(0, budget, CHUNK):
        if guarded and (max(l0.max(), -l0.min()) + max(l2.max(), -l2.min())
                        > _EXP2_SAFE - CHUNK * lam):
            break
        count = min(CHUNK, budget - start)
        _draw_uniforms(rng, us[:count], vs[:count], p2)
        for i in range(count):
            t = start + i
            u, p2_minus_v = u_rows[i], v_rows[i]
            # c0 = w0 / S, c1 = (w0 + w1) / S; w1 = 1 / (w0 w2) as the logits sum to zero.
            exp2(l0, w0)
            exp2(l2, w2)
            mul(w0, w2, tmp)
            div(1.0, tmp, tmp)
            add(tmp, w0, tmp)
            add(tmp, w2, w2)  # w2 now holds S
            div(w0, w2, c0)
            div(tmp, w2, c1)
            # n0 = [arm 0] = [u < c0], n1 = [arm <= 1] = [u < c1]: the first arm whose
            # cumulative probability exceeds u.
            sub(c0, u, n0)
            ceil(n0, n0)
            sub(c1, u, n1)
            ceil(n1, n1)
            # reward = [v < p[arm]], with p[arm] = p2 + n1 (p1 - p2) + n0 (p0 - p1).
            mul(n1, p1 - p2, reward)
            mul(n0, p0 - p1, tmp)
            add(reward, tmp, reward)
            add(reward, p2_minus_v, reward)
            ceil(reward, reward)
            mul(reward, lam, reward)
            # step = lam * (reward - mean of the earlier rewards); total is kept scaled by lam
            # so that the step takes two passes.
            mul(total, -1.0 / t if t else 0.0, step)
            add(step, reward, step)
            add(total, reward, total)
            # l0 += step ([arm 0] - pi0); l2 += step ([arm 2] - pi2), which is -step (n1 - c1).
            sub(n0, c0, n0)
            mul(n0, step, n0)
            add(l0, n0, l0)
            sub(n1, c1, n1)
            mul(n1, step, n1)
            sub(l2, n1, l2)
        done += count
    logits[0] = l0
    np.add(l0, l2, out=logits[1])
    np.negative(logits[1], out=logits[1])
    logits[2] = l2
    return done


def _any_arms(probs: np.ndarray, lam: float, first: int, budget: int,
              rng: np.random.Generator, logits: np.ndarray, scaled_total: np.ndarray) -> None:
    """Run episodes ``first`` to ``budget`` for any number of arms on (K, seeds) arrays, from
    the state in ``logits`` (base 2) and ``scaled_total``, which it updates.

    The same scheme as the K = 3 path on all K logits: cumulative probabilities c_k, indicators
    n_k = [u < c_k] for k < K - 1, residuals n_k - c_k, and logit k moving by
    step * (residual k - residual k-1). The largest logit is subtracted every episode, as
    nothing bounds the logits here the way the zero sum does for K = 3.
    """
    arms, seeds = logits.shape
    drops = (probs[:-1] - probs[1:])[None, :]  # p[arm] = p[K-1] + sum_k n_k drops_k
    weights = np.empty((arms, seeds))
    cumulative = np.empty((arms, seeds))
    indicator = np.empty((arms - 1, seeds))
    top, reward, step = np.empty(seeds), np.empty(seeds), np.empty(seeds)
    total = scaled_total
    us, vs = np.empty((CHUNK, seeds)), np.empty((CHUNK, seeds))
    for start in range(first, budget, CHUNK):
        count = min(CHUNK, budget - start)
        _draw_uniforms(rng, us[:count], vs[:count], float(probs[-1]))
        for i in range(count):
            t = start + i
            np.max(logits, axis=0, out=top)
            np.subtract(logits, top, out=logits)
            np.exp2(logits, out=weights)
            np.cumsum(weights, axis=0, out=cumulative)
            probs_below = cumulative[:-1]
            np.divide(probs_below, cumulative[-1], out=probs_below)
            np.subtract(probs_below, us[i], out=indicator)
            np.ceil(indicator, out=indicator)
            np.matmul(drops, indicator, out=reward[None, :])
            np.add(reward, vs[i], out=reward)
            np.ceil(reward, out=reward)
            np.multiply(reward, lam, out=reward)
            np.multiply(total, -1.0 / t if t else 0.0, out=step)
            np.add(step, reward, out=step)
            np.add(total, reward, out=total)
            np.subtract(indicator, probs_below, out=indicator)
            np.multiply(indicator, step, out=indicator)
            np.add(logits[:-1], indicator, out=logits[:-1])
            np.subtract(logits[1:], indicator, out=logits[1:])
