"""Per-run random streams: a key for each (root seed, seed index[, cell]).

Keys come from ``numpy.random.SeedSequence(root_seed, spawn_key=...)``, which hashes the whole
entropy and spawn key into its state, so streams of different seed indices are independent. A
run's key depends only on its own indices, never on how the seeds are chunked or which thread
runs it. ``run_keys`` gives the first 128 bits of the state (the key of numpy's Philox4x64, which
draws the per-seed instances); the kernel's Philox4x32 uses the first 64 of them
(``kernel_keys``); two of n runs share a 64-bit key with probability about n^2 / 2^65 (3e-6
for the largest study allowed, ten million seeds).
"""

from __future__ import annotations

import numpy as np

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
