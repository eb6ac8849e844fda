"""The named sub-streams of one run, as ranges of the Philox4x32-10 counter (c0, c1, c2, c3).

A run's key is two 32-bit words, the first 64 bits of its ``SeedSequence`` state
(``study.spec.streams``); every random number the kernel uses is a word of ``philox(counter,
key)``, a pure function of the counter (``study.core.philox``). The sub-streams below are
disjoint ranges of counters, so drawing more from one never shifts another:

* ``MAIN``, blocks (j, 0, 0, 0), j = 0, 1, ...: the episodes' (pulls') draws. Episode t uses
  block t div 2: words 0 and 1 for an even t, 2 and 3 for an odd one, the first as the action
  draw and the second as the reward draw, each a 32-bit uniform (``unit32``; a Bernoulli
  probability moves by less than 2^-32).
* ``NOISE``, blocks (j, 0, 1, 0): Gaussian reward noise, the normal pair z_2j, z_2j+1 of pulls
  2j and 2j + 1, by Box-Muller on two 53-bit uniforms (``study.core.gaussian``).
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
  (``study.spec.environment``), once per seed; not a kernel stream.

Budgets are at most 10^9 (``study.spec.config.MAX_BUDGET``), so j and B fit c0's 32 bits and the
ranges never meet. Each constant below is the (c2, c3) of its range.
"""

from __future__ import annotations

MAIN_C2, MAIN_C3 = 0, 0
NOISE_C2, NOISE_C3 = 1, 0
TIE_BREAK_C3 = 1
ORDER_C2, ORDER_C3 = 2, 1
SKIP_C2, SKIP_C3 = 3, 1
"""c3 of the tie-break ranges (``TIE_BREAK`` and ``PHASE_TIE_BREAK``); c0 is the budget."""
INSTANCE = (0, 0, 2, 0)
"""numpy's Philox4x64 counter start of the instance draws (numpy increments it before a block)."""

NAMES = ("main", "noise", "instance", "tie_break", "phase_tie_break")
"""The sub-streams a learner may declare it uses (``study.learners.Learner.streams``)."""
