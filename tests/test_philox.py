"""Our numba Philox4x64-10 against numpy's, bit for bit, and the key derivation."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from study.core.philox import fill_stream, philox_block
from study.spec.streams import run_keys

words = st.integers(0, 2**64 - 1)


@given(k0=words, k1=words, n=st.integers(1, 41))
def test_main_stream_matches_numpy_philox(k0: int, k1: int, n: int) -> None:
    key = np.array([k0, k1], dtype=np.uint64)
    expected = np.random.Philox(key=key).random_raw(n)
    got = np.zeros(n, dtype=np.uint64)
    fill_stream(key[0], key[1], got)
    np.testing.assert_array_equal(got, expected)


@given(counter=st.lists(words, min_size=4, max_size=4), k0=words, k1=words)
def test_any_block_matches_numpy_philox(counter: list[int], k0: int, k1: int) -> None:
    # numpy increments the counter before it computes a block, so block c is the first block of
    # a generator started at c - 1 (in 256-bit arithmetic, with the borrow written out).
    value = sum(c << (64 * i) for i, c in enumerate(counter))
    before = (value - 1) % 2**256
    start = [(before >> (64 * i)) & (2**64 - 1) for i in range(4)]
    key = np.array([k0, k1], dtype=np.uint64)
    expected = np.random.Philox(key=key, counter=np.array(start, dtype=np.uint64)).random_raw(4)
    got = philox_block(*(np.uint64(c) for c in counter), np.uint64(k0), np.uint64(k1))
    np.testing.assert_array_equal(np.array(got, dtype=np.uint64), expected)


def test_run_keys_are_what_numpy_philox_derives_from_the_seed_sequence() -> None:
    keys = run_keys(20251201, np.arange(5))
    for seed in range(5):
        sequence = np.random.SeedSequence(20251201, spawn_key=(seed,))
        state = np.random.Philox(sequence).state["state"]
        np.testing.assert_array_equal(keys[seed], state["key"])


def test_keys_are_distinct_across_seeds_roots_and_cells() -> None:
    # 128-bit keys: any repeat among these thousands would be a derivation bug, not bad luck.
    keys = np.concatenate([run_keys(1, np.arange(2000)), run_keys(2, np.arange(2000)),
                           run_keys(1, np.arange(2000), stream_id=99)])
    assert len({tuple(k) for k in keys.tolist()}) == len(keys)
