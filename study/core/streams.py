"""The named sub-streams of one run, as ranges of the Philox4x64-10 counter (c0, c1, c2, c3).

A run has one 128-bit key (``study.spec.streams.run_keys``); every random number it uses is a
word of ``philox(counter, key)``, a pure function of the counter (``study.core.philox``). The
sub-streams below are disjoint ranges of counters, so drawing more from one never shifts another,
and each can be reproduced with ``numpy.random.Philox(key=key, counter=START)``: numpy increments
the counter before each block, so its first block is the one at START + 1 in c0.

* ``MAIN``, blocks (j + 1, 0, 0, 0), j = 0, 1, ...: the episodes' (pulls') draws. Episode t uses
  word t of the concatenated stream, its high 32 bits for the action and its low 32 bits for the
  reward (32-bit draws halve the generator's cost; they move a Bernoulli probability by less than
  2^-32).
* ``NOISE``, blocks (j + 1, 0, 1, 0): Gaussian reward noise, z_t for pull t, by Box-Muller on word
  pairs (``study.core.gaussian``).
* ``INSTANCE``, blocks (j + 1, 0, 2, 0): arm values drawn per seed, by numpy's own samplers
  (``study.spec.environment``), once per seed.
* ``TIE_BREAK``, block (B, 0, 0, 1): the tie-break of the greedy pick at checkpoint B (word 0).
* ``PHASE_TIE_BREAK``, blocks (B, r, a div 4, 1): the tie-break priority of arm a in phase r of a
  fixed-budget run of budget B (word a mod 4).

The main stream would need 2^64 blocks to carry into c1 and far more to reach c2 or c3, so no two
ranges ever meet. Each constant below is the numpy START of its range (c0 .. c3).
"""

from __future__ import annotations

MAIN = (0, 0, 0, 0)
NOISE = (0, 0, 1, 0)
INSTANCE = (0, 0, 2, 0)
TIE_BREAK_C3 = 1
"""c3 of the tie-break ranges (``TIE_BREAK`` and ``PHASE_TIE_BREAK``); c0 is the budget."""
NOISE_C2 = NOISE[2]

NAMES = ("main", "noise", "instance", "tie_break", "phase_tie_break")
"""The sub-streams a learner may declare it uses (``study.learners.Learner.streams``)."""
