"""The vectorizable exponential against exact values and math.exp."""

from __future__ import annotations

import math
import re

import numba as nb
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.elementary import exp as reference_exp
from study.core.fastexp import UNDERFLOW, fast_exp

LD = np.longdouble
# The exact values are expl's in 80-bit extended precision, within about 2^-11 ulp of a double:
# that much is allowed on top of the measured bound.
TRUTH_SLACK = 2.0**-10
EXP_ULPS = 0.654  # the measured worst case on exp_points() (0.654 on 20 million more)


@nb.njit(error_model="numpy")
def exp_lanes(x: np.ndarray) -> np.ndarray:  # pragma: no cover
    out = np.empty_like(x)
    for j in range(x.size):
        out[j] = fast_exp(x[j])
    return out


def exp_points(spread: int = 200_000, hard: int = 2_000_000) -> np.ndarray:
    """Points of [UNDERFLOW, 0]: ``spread`` log-uniform in |x| (the small arguments, where the
    softmax weights live, dense) and twice as many uniform; ``hard`` within 0.05 ln 2 of a
    reduction edge (k + 1/2) ln 2, where |r| and the error are largest; and the edges themselves
    with their neighbours, the multiples of ln 2, 0 and the ends."""
    rng = np.random.default_rng(0)
    small = -np.exp(rng.uniform(math.log(1e-12), math.log(-UNDERFLOW), spread))
    uniform = rng.uniform(UNDERFLOW, 0.0, 2 * spread)
    near_edges = rng.integers(0, 1022, hard) + 0.5 + rng.uniform(-0.05, 0.05, hard)
    hard_points = -near_edges * math.log(2)
    half_ln2 = np.array([-(k + 0.5) * math.log(2) for k in range(1022)])
    whole_ln2 = np.array([-k * math.log(2) for k in range(1022)])
    edges = [0.0, -0.0, -1e-300, -2.0**-54, -2.0**-53, UNDERFLOW, np.nextafter(UNDERFLOW, 0.0),
             -1.0, *half_ln2, *np.nextafter(half_ln2, 0.0), *np.nextafter(half_ln2, -1e9),
             *whole_ln2]
    points = np.concatenate([small, uniform, hard_points, edges])
    return points[points >= UNDERFLOW]


@pytest.mark.skipif(np.finfo(LD).nmant < 63, reason="needs an x87 80-bit long double")
def test_fast_exp_is_within_its_measured_bound_of_the_exact_exp() -> None:
    points = exp_points()
    got = exp_lanes(points)
    truth = np.exp(points.astype(LD))
    _, exponent = np.frexp(truth)
    ulps = np.abs(got.astype(LD) - truth) / np.ldexp(np.ones_like(truth), exponent - 53)
    assert ulps.max() <= EXP_ULPS + TRUTH_SLACK


def test_fast_exp_is_within_one_ulp_of_math_exp_on_its_range() -> None:
    points = exp_points()
    want = np.array([math.exp(x) for x in points.tolist()])
    assert (np.abs(exp_lanes(points) - want) / np.array([math.ulp(w) for w in want])).max() <= 1


def test_fast_exp_of_0_is_1_and_it_flushes_below_underflow_to_0() -> None:
    assert fast_exp(0.0) == fast_exp(-0.0) == 1.0
    # Just below UNDERFLOW 2^k is normal, then 0, then its exponent field wraps around.
    for x in (np.nextafter(UNDERFLOW, -math.inf), -708.7, -708.8, -720.0, -745.0, -1e9, -1e300,
              -math.inf):
        assert np.float64(fast_exp(x)).view(np.uint64) == 0  # +0.0
        assert math.exp(x) < 2.3e-308  # what a weight of at most 1 loses is under 2^-1022
    assert np.float64(fast_exp(math.nan)).view(np.uint64) == 0


# A hundred and fifty thousand points through the slow reference: the slow set; make test-fast
# keeps the generated points of test_reference_exp_is_bit_identical_to_the_kernels.
@pytest.mark.slow
def test_reference_exp_is_bit_identical_to_the_kernels_on_dense_points() -> None:
    points = exp_points(spread=100_000, hard=50_000)
    want = np.array([reference_exp(x) for x in points.tolist()])
    assert np.array_equal(exp_lanes(points).view(np.uint64), want.view(np.uint64))


def test_the_exp_lane_loop_vectorizes_without_a_libm_call() -> None:
    exp_lanes(np.zeros(8))
    ir = exp_lanes.inspect_llvm(exp_lanes.signatures[0])
    assert re.search(r"<\d+ x double>", ir)
    assert not re.search(r"call [^@\n]*@(llvm\.)?(exp|floor|rint|pow)\w*\(", ir)


@given(st.one_of(st.floats(UNDERFLOW, 0.0), st.floats(max_value=709.0)))
def test_reference_exp_is_bit_identical_to_the_kernels(x: float) -> None:
    assert np.float64(fast_exp(x)).view(np.uint64) == np.float64(reference_exp(x)).view(np.uint64)
