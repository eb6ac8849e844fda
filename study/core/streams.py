"""The random streams of a study: each run's key, and the named sub-streams of one run as ranges
of the Philox4x32-10 counter (c0, c1, c2, c3).

Keys: one for each (root seed, seed index[, cell]), from ``numpy.random.SeedSequence(root_seed,
spawn_key=...)``, which hashes the whole entropy and spawn key into its state, so streams of
different seed indices are independent. A run's key depends only on its own indices, never on how
the seeds are chunked or which thread runs it. ``run_keys`` gives the first 128 bits of the state
(the key of numpy's Philox4x64, which draws the per-seed instances); the kernel's Philox4x32 uses
the first 64 of them (``kernel_keys``); two of n runs share a 64-bit key with probability about n^2
/ 2^65 (3e-6 for the largest study allowed, ten million seeds).

Sub-streams: every random number the kernel uses is a word of ``philox(counter, key)``, a pure
function of the counter (``study.core.philox``). The sub-streams below are disjoint ranges of
counters, so drawing more from one never shifts another:

* ``MAIN``, blocks (j, 0, 0, 0), j = 0, 1, ...: the episodes' (pulls') draws. Episode t uses
  block t div 2: words 0 and 1 for an even t, 2 and 3 for an odd one, the first as the action
  draw and the second as the reward draw, each a 32-bit uniform (``unit32``; a Bernoulli
  probability moves by less than 2^-32).
* ``NOISE``, blocks (j, 0, 1, 0): Gaussian reward noise, the normal pair z_2j, z_2j+1 of pulls
  2j and 2j + 1, by Box-Muller on two 53-bit uniforms (``study.core.gaussian``).
* ``VERIFIER``, blocks (j, 0, 3, 0): a noisy verifier's verdict draws
  (``study.rewards.noisy_verifier``).
* ``LENGTH``, blocks (j, 0, 4, 0): the lengths of answers drawn from a law
  (``study.core.kernel``'s token meter): rollout t's is word t mod 4 of block t div 4, a 32-bit
  uniform.
* ``MISMATCH``, blocks (u, m, 5, 0): an off-policy sampler's logit noise of update u
  (``study.model.offpolicy``), the normal pair of arms 2m and 2m + 1 by Box-Muller as ``NOISE``.
* ``TIE_BREAK``, block (B, 0, 0, 1): the tie-break of the greedy pick at checkpoint B (word 0).
* ``PHASE_TIE_BREAK``, blocks (B, r, a div 4, 1): the tie-break priority of arm a in phase r of a
  fixed-budget run of budget B (word a mod 4).
* ``ORDER``, blocks (r, q div 4, 2, 1): the order of the prompts in pass r of a many-prompts run
  (``study.core.prompts``), word q mod 4 for place q of its Fisher-Yates shuffle.
* ``SKIP``, blocks (r, i div 4, 3, 1): whether prompt i is skipped in pass r (word i mod 4).
* In a many-prompts run prompt i's rollouts and tie-breaks take ``MAIN`` and ``TIE_BREAK`` with
  c1 = i (prompt 0's are those of a single-prompt run), and its arm values are the i-th K of
  the ``INSTANCE`` draws. These ranges meet ``PHASE_TIE_BREAK``'s, which only the learners that
  plan from the budget draw from; no run draws from both.
* ``INSTANCE``: arm values drawn per seed, by numpy's own samplers on numpy's Philox4x64 with the
  run's whole 128-bit ``SeedSequence`` state as key, from counter (0, 0, 2, 0)
  (``study.model.environment``), once per seed; not a kernel stream.
* ``POPULATION``: a population of environments (``study.model.population``), drawn once per
  study by numpy on numpy's Philox4x64 keyed by
  ``SeedSequence(root_seed, spawn_key=(POPULATION,))``: a spawn key no run has (numpy hashes a
  spawn key as 32-bit words; a run's is its seed index, one word below ``POPULATION``, or that
  and its cell's stream id, two words or more); not a kernel stream.

Budgets are at most 10^9 (``study.model.config.MAX_BUDGET``), so j and B fit c0's 32 bits and the
ranges never meet. Each constant below is the (c2, c3) of its range.
"""

from __future__ import annotations

import numpy as np

MAIN_C2, MAIN_C3 = 0, 0
NOISE_C2, NOISE_C3 = 1, 0
LENGTH_C2, LENGTH_C3 = 4, 0
MISMATCH_C2, MISMATCH_C3 = 5, 0
TIE_BREAK_C3 = 1
ORDER_C2, ORDER_C3 = 2, 1
SKIP_C2, SKIP_C3 = 3, 1
"""c3 of the tie-break ranges (``TIE_BREAK`` and ``PHASE_TIE_BREAK``); c0 is the budget."""
INSTANCE = (0, 0, 2, 0)
"""numpy's Philox4x64 counter start of the instance draws (numpy increments it before a block)."""

POPULATION = 2**32 - 1
"""The spawn key of a study's population of environments: one 32-bit word, above every seed
index."""

NAMES = ("main", "noise", "instance", "tie_break", "phase_tie_break")
"""The sub-streams a learner may declare it uses (``study.learners.Learner.streams``)."""

_LOW32 = np.uint64(0xFFFFFFFF)


def run_keys(root_seed: int, seed_indices: np.ndarray, stream_id: int | None = None) -> np.ndarray:
    """The runs' state words, shape (len(seed_indices), 2), uint64:
    ``SeedSequence(root_seed, spawn_key).generate_state(2, np.uint64)``.

    With ``stream_id`` None (``per_seed`` streams, the default) the key depends on the root seed and
    the seed index only, so every cell sees common random numbers; otherwise ``stream_id`` is
    appended to the spawn key and each cell gets its own streams.
    """
    keys = np.empty((len(seed_indices), 2), dtype=np.uint64)
    for row, seed in enumerate(seed_indices):
        spawn_key = (int(seed),) if stream_id is None else (int(seed), stream_id)
        sequence = np.random.SeedSequence(root_seed, spawn_key=spawn_key)
        keys[row] = sequence.generate_state(2, np.uint64)
    return keys


def kernel_keys(keys: np.ndarray) -> np.ndarray:
    """The kernel's Philox4x32 keys (k0, k1) of ``run_keys``' rows, shape (runs, 2), each word
    32 bits in a uint64: the state's first two 32-bit words,
    ``SeedSequence(...).generate_state(2, np.uint32)`` (numpy builds each 64-bit word from two
    32-bit ones, low word first)."""
    first = np.asarray(keys, dtype=np.uint64)[:, 0]
    return np.ascontiguousarray(np.stack([first & _LOW32, first >> np.uint64(32)], axis=1))
