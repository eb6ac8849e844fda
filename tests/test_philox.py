"""Our numba Philox4x32-10 against Random123's known-answer vectors and randomgen's
implementation, bit for bit; the reference's pure-Python Philox against the same; the key
derivation; the word-to-uniform conversions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from randomgen import Philox

from reference import philox as reference_philox
from reference import unit32 as reference_unit32
from reference import unit53 as reference_unit53
from study.core.philox import (
    SCHEDULE_ROWS,
    fill_stream,
    philox_block,
    stream_block,
    stream_schedule,
    unit32,
    unit53,
)
from study.core.streams import kernel_keys, run_keys

words = st.integers(0, 2**32 - 1)
MASK = 0xFFFFFFFF

# Random123 1.14, kat_vectors: "philox4x32 10" (counter, key, expected output).
KNOWN_ANSWERS = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((MASK, MASK, MASK, MASK), (MASK, MASK), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@pytest.mark.parametrize(("counter", "key", "expected"), KNOWN_ANSWERS)
def test_known_answer_vectors(counter: tuple[int, ...], key: tuple[int, int],
                              expected: tuple[int, ...]) -> None:
    got = philox_block(*(np.uint64(c) for c in counter), *(np.uint64(k) for k in key))
    assert tuple(int(w) for w in got) == expected
    assert reference_philox(counter, key) == expected


def _randomgen_block(counter: list[int], key: tuple[int, int]) -> list[int]:
    """Block ``counter`` from randomgen: it increments its 128-bit counter before computing a
    block, so block c is the first of a generator started at c - 1 (with the borrow)."""
    value = sum(c << (32 * i) for i, c in enumerate(counter))
    generator = Philox(key=key[0] | key[1] << 32, counter=(value - 1) % 2**128, number=4,
                       width=32)
    return [int(w) for w in generator.random_raw(4)]


@given(counter=st.lists(words, min_size=4, max_size=4), k0=words, k1=words)
def test_any_block_matches_randomgen(counter: list[int], k0: int, k1: int) -> None:
    expected = _randomgen_block(counter, (k0, k1))
    got = philox_block(*(np.uint64(c) for c in counter), np.uint64(k0), np.uint64(k1))
    assert [int(w) for w in got] == expected
    assert list(reference_philox(tuple(counter), (k0, k1))) == expected


@given(k0=words, k1=words, c2=st.integers(0, 2), n=st.integers(1, 41))
def test_a_stream_is_randomgen_from_its_first_block(k0: int, k1: int, c2: int, n: int) -> None:
    generator = Philox(key=k0 | k1 << 32, counter=(c2 << 64) - 1 if c2 else 2**128 - 1,
                       number=4, width=32)
    got = np.zeros(n, dtype=np.uint64)
    fill_stream(np.uint64(k0), np.uint64(k1), np.uint64(c2), np.uint64(0), got)
    np.testing.assert_array_equal(got, generator.random_raw(n).astype(np.uint64))


@given(counter=words, c1=words, c2=words, c3=words, k0=words, k1=words)
@example(counter=MASK, c1=0, c2=MASK, c3=MASK, k0=MASK, k1=MASK)
@example(counter=MASK, c1=MASK, c2=MASK, c3=MASK, k0=MASK, k1=MASK)
def test_a_scheduled_block_is_the_block(counter: int, c1: int, c2: int, c3: int, k0: int,
                                        k1: int) -> None:
    """``stream_block`` from a lane's schedule (the second of two lanes, so that the column is
    not the first) is ``philox_block`` of (counter, c1, c2, c3)."""
    keys = [np.array([k1, k0], dtype=np.uint64), np.array([k0, k1], dtype=np.uint64)]
    schedule = stream_schedule(np.uint64(c2), np.uint64(c3), *keys,
                               np.array([k0, c1], dtype=np.uint64))
    assert schedule.shape == (SCHEDULE_ROWS, 2)
    got = stream_block(np.uint64(counter), schedule, 1)
    want = philox_block(*(np.uint64(c) for c in (counter, c1, c2, c3)), np.uint64(k0),
                        np.uint64(k1))
    assert [int(w) for w in got] == [int(w) for w in want]


@given(words, words)
@example(0, 0)
@example(MASK, MASK)
def test_uniforms_are_exact(high: int, low: int) -> None:
    assert unit32(np.uint64(high)) == reference_unit32(high) == high / 2**32
    want = ((high << 21) | (low >> 11)) / 2**53
    assert unit53(np.uint64(high), np.uint64(low)) == reference_unit53(high, low) == want


def test_kernel_keys_are_the_first_two_32_bit_words_of_the_seed_sequence_state() -> None:
    keys = kernel_keys(run_keys(20251201, np.arange(5)))
    for seed in range(5):
        sequence = np.random.SeedSequence(20251201, spawn_key=(seed,))
        np.testing.assert_array_equal(keys[seed], sequence.generate_state(2, np.uint32))
        state = np.random.Philox(sequence).state["state"]
        np.testing.assert_array_equal(run_keys(20251201, [seed])[0], state["key"])


def test_keys_are_distinct_across_seeds_roots_and_cells() -> None:
    # 64-bit keys: among these 6,000 a repeat has probability 6000^2 / 2^65 < 1e-12, so any
    # repeat would be a derivation bug, not bad luck.
    keys = np.concatenate([kernel_keys(run_keys(1, np.arange(2000))),
                           kernel_keys(run_keys(2, np.arange(2000))),
                           kernel_keys(run_keys(1, np.arange(2000), stream_id=99))])
    assert len({tuple(k) for k in keys.tolist()}) == len(keys)
