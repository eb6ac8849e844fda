"""Per-run random streams: a 128-bit Philox key for each (root seed, seed index[, cell]).

Keys come from ``numpy.random.SeedSequence(root_seed, spawn_key=...)``, which hashes the whole
entropy and spawn key into the key, so streams of different seed indices are independent and a
key has 128 bits (32-bit seeds would collide about a hundred times in a million runs). A run's
key depends only on its own indices, never on how the seeds are chunked or which thread runs it.
"""

from __future__ import annotations

import numpy as np


def run_keys(root_seed: int, seed_indices: np.ndarray, stream_id: int | None = None) -> np.ndarray:
    """Philox keys, shape (len(seed_indices), 2), uint64.

    With ``stream_id`` None (``per_seed`` streams, the default) the key depends on the root seed and
    the seed index only, so every cell sees common random numbers; otherwise ``stream_id`` is
    appended to the spawn key and each cell gets its own streams. ``numpy.random.Philox`` seeded
    with the same ``SeedSequence`` uses exactly this key, which the tests check.
    """
    keys = np.empty((len(seed_indices), 2), dtype=np.uint64)
    for row, seed in enumerate(seed_indices):
        spawn_key = (int(seed),) if stream_id is None else (int(seed), stream_id)
        sequence = np.random.SeedSequence(root_seed, spawn_key=spawn_key)
        keys[row] = sequence.generate_state(2, np.uint64)
    return keys
