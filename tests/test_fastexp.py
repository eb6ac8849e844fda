"""The vectorizable exponential against math.exp, and the kernel's word-to-uniform conversions."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from reference import exp as reference_exp
from reference import halves
from study.core.fastexp import UNDERFLOW, fast_exp
from study.core.philox import high_unit, low_unit


def ulps(got: float, want: float) -> float:
    return abs(got - want) / math.ulp(want)


def test_fast_exp_is_within_one_ulp_of_math_exp_on_its_range() -> None:
    # 200,000 points spread over [-708.39, 0] (log-uniform in |x| so small arguments, where
    # the softmax weights live, are dense) plus the edges of the reduction intervals.
    rng = np.random.default_rng(0)
    points = -np.exp(rng.uniform(math.log(1e-12), math.log(-UNDERFLOW), 200_000))
    half_ln2 = [-(k + 0.5) * math.log(2) for k in range(0, 1021, 17)]
    edges = [0.0, -0.0, -1e-300, UNDERFLOW, -1.0, *half_ln2, *np.nextafter(half_ln2, 0.0)]
    worst = max(ulps(fast_exp(float(x)), math.exp(float(x))) for x in [*points, *edges])
    assert worst <= 1.0


def test_fast_exp_flushes_below_underflow_by_less_than_the_smallest_normal() -> None:
    for x in (-708.4, -720.0, -745.0, -1e9, -math.inf):
        assert fast_exp(x) == 0.0
        assert math.exp(x) < 2.3e-308


@given(st.floats(UNDERFLOW, 0.0))
def test_reference_exp_is_bit_identical_to_the_kernels(x: float) -> None:
    assert reference_exp(x) == fast_exp(x)


@given(st.integers(0, 2**64 - 1))
def test_word_halves_are_exact_32_bit_uniforms(word: int) -> None:
    action, reward = halves(word)
    assert high_unit(np.uint64(word)) == action == (word >> 32) / 2**32
    assert low_unit(np.uint64(word)) == reward == (word % 2**32) / 2**32
