"""The kernel's log and cos/sin (``study.core.elementary``): their errors against exact values,
their agreement bit for bit with the reference's (``reference/elementary.py``), and the same
bits from vector code of any width."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numba as nb
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.elementary import cos_sin_turns as reference_cos_sin_turns
from reference.elementary import log as reference_log
from study.core.elementary import cos_sin_turns, fast_log
from study.core.fastexp import fast_exp

LD = np.longdouble
EXTENDED = np.finfo(LD).nmant >= 63
needs_extended = pytest.mark.skipif(not EXTENDED, reason="needs an x87 80-bit long double")
# The exact values are computed in 80-bit extended precision (64-bit mantissa, libm's logl,
# cosl, sinl): within about 2^-11 ulp of a double. That much is allowed on top of each measured
# bound, so that a libm whose long double functions round differently does not fail it.
TRUTH_SLACK = 2.0**-10

# The measured worst cases on the points below (rounded up in the last digit shown; on 20
# million more points of the hardest regions: 0.87, 0.82 and 0.83 ulp).
LOG_ULPS = 0.857  # for x in [1/2, 1/sqrt(2)]: ln x = -ln 2 + ln(1 + f) half cancels
LOG_ABS = 3.51e-15  # near ln(2^-53) = -36.7, whose ulp is 7.1e-15
COS_SIN_ULPS = (0.798, 0.794)  # cos, sin; at 2 pi |v| ~ pi/4, where x^2/2 is largest
COS_SIN_ABS = (8.86e-17, 8.81e-17)
COS_SIN_MATH_ABS = 6.94e-16  # from math.cos(2 * math.pi * u): math's own error, by rounding 2 pi u
TWO_PI = LD(2.0) * (LD(math.pi) + LD(1.2246467991473532e-16))  # pi to 107 bits, rounded to 64

SQRT2_EDGE = 1.0 + 0x6A09C / 2**20  # mantissas from here on are halved, and f < 0


def exact_ulps(got: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """|got - truth| in ulps of a double of truth's binade (truth in long double, nonzero)."""
    _, exponent = np.frexp(truth)
    return np.abs(got.astype(LD) - truth) / np.ldexp(np.ones_like(truth), exponent - 53)


def bits(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).view(np.uint64)


@nb.njit(error_model="numpy")
def log_lanes(x: np.ndarray) -> np.ndarray:  # pragma: no cover
    out = np.empty_like(x)
    for j in range(x.size):
        out[j] = fast_log(x[j])
    return out


@nb.njit(error_model="numpy")
def cos_sin_lanes(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    cosine = np.empty_like(u)
    sine = np.empty_like(u)
    for j in range(u.size):
        cosine[j], sine[j] = cos_sin_turns(u[j])
    return cosine, sine


def log_points(hard: int = 2_000_000) -> np.ndarray:
    """Points of [2^-53, 1]: 100,000 log-uniform; 100,000 1 - n 2^-53 as Box-Muller's u1 (dense
    near 1); ``hard`` uniform on [1/2, 1/sqrt(2)], where ln x = -ln 2 + ln(1 + f) half cancels
    and the error is largest; powers of 2, the sqrt(2) edge of the mantissa and the ends."""
    rng = np.random.default_rng(11)
    spread = np.exp(rng.uniform(math.log(2.0**-53), 0.0, 100_000))
    near_one = 1.0 - rng.integers(0, 2**53, 100_000) * 2.0**-53
    cancelling = rng.uniform(0.5, math.sqrt(0.5), hard)
    powers = 2.0 ** -np.arange(0, 54.0)
    edge = np.array([SQRT2_EDGE * p for p in powers[1:]])
    edges = [2.0**-53, 1.0, 1.0 - 2.0**-53, 1.0 - 2.0**-52, math.sqrt(0.5), *powers, *edge,
             *np.nextafter(edge, 0.0), *np.nextafter(powers[1:], 1.0), *np.nextafter(powers, 0.0)]
    points = np.concatenate([spread, near_one, cancelling, edges])
    return points[(points >= 2.0**-53) & (points <= 1.0)]


def turn_points(hard: int = 2_000_000) -> np.ndarray:
    """53-bit uniforms n 2^-53: 200,000 any, ``hard`` with the reduced turn |v| in [0.1, 1/8]
    (where x^2/2 is largest and the error too), and the octant edges k/8 and their neighbours."""
    rng = np.random.default_rng(12)
    outer = rng.integers(int(0.1 * 2**53), 2**50 + 1, hard) * rng.choice([-1, 1], hard)
    outer = (outer + rng.integers(0, 4, hard) * 2**51) % 2**53
    octants = np.arange(0, 8) / 8
    edges = [*octants, *(octants[1:] - 2.0**-53), *(octants + 2.0**-53), 2.0**-52, 1 - 2.0**-53,
             *(np.arange(1, 32, 2) / 32)]
    return np.concatenate([rng.integers(0, 2**53, 200_000) * 2.0**-53, outer * 2.0**-53, edges])


def exact_cos_sin(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of 2 pi u in long double, the angle reduced exactly in turns first (u - q/4
    is exact), so no rounding of 2 pi u is magnified near the zeros."""
    q = np.rint(4.0 * u)
    angle = TWO_PI * (u - q / 4).astype(LD)
    c, s = np.cos(angle), np.sin(angle)
    quadrant = q.astype(np.int64) % 4
    return (np.choose(quadrant, [c, -s, -c, s]), np.choose(quadrant, [s, c, -s, -c]))


@needs_extended
def test_fast_log_is_within_its_measured_bound_of_the_exact_log() -> None:
    points = log_points()
    assert points.size > 2_200_000
    got = log_lanes(points)
    truth = np.log(points.astype(LD))
    nonzero = truth != 0
    assert np.all(points[~nonzero] == 1.0) and np.all(got[~nonzero] == 0.0)  # ln 1
    assert exact_ulps(got[nonzero], truth[nonzero]).max() <= LOG_ULPS + TRUTH_SLACK
    assert np.abs(got.astype(LD) - truth).max() <= LOG_ABS
    assert max(abs(g - w) / math.ulp(w) for g, w in zip(got.tolist(),
               map(math.log, points.tolist()), strict=True) if w) <= 1.0


@needs_extended
def test_cos_sin_turns_is_within_its_measured_bound_of_the_exact_values() -> None:
    points = turn_points()
    got = cos_sin_lanes(points)
    for value, truth, ulps, absolute in zip(got, exact_cos_sin(points), COS_SIN_ULPS,
                                            COS_SIN_ABS, strict=True):
        error = np.abs(value.astype(LD) - truth)
        nonzero = truth != 0
        assert np.all(value[~nonzero] == 0.0)  # cos and sin at the quarter turns
        assert exact_ulps(value[nonzero], truth[nonzero]).max() <= ulps + TRUTH_SLACK
        assert error.max() <= absolute


def test_cos_sin_turns_against_math_is_off_by_math_s_rounding_of_2_pi_u() -> None:
    points = turn_points(hard=100_000)
    cosine, sine = cos_sin_lanes(points)
    angles = [2.0 * math.pi * u for u in points.tolist()]
    assert np.abs(cosine - np.cos(angles)).max() <= COS_SIN_MATH_ABS
    assert np.abs(sine - np.sin(angles)).max() <= COS_SIN_MATH_ABS


def test_the_quarter_turns_are_exact() -> None:
    for k, (want_cos, want_sin) in enumerate([(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)]):
        assert cos_sin_turns(k / 4) == (want_cos, want_sin)
    assert fast_log(1.0) == 0.0


# A hundred thousand points through the slow reference: the slow set; make test-fast keeps the
# generated points of the two tests below.
@pytest.mark.slow
def test_reference_log_and_cos_sin_are_bit_identical_to_the_kernels_on_dense_points() -> None:
    points = log_points(hard=100_000)
    assert np.array_equal(bits(log_lanes(points)), bits([reference_log(x)
                                                         for x in points.tolist()]))
    points = turn_points(hard=100_000)
    cosine, sine = cos_sin_lanes(points)
    reference = [reference_cos_sin_turns(u) for u in points.tolist()]
    assert np.array_equal(bits(cosine), bits([c for c, _ in reference]))
    assert np.array_equal(bits(sine), bits([s for _, s in reference]))


@given(st.one_of(st.floats(2.0**-53, 1.0),
                 st.floats(2.2250738585072014e-308, 1.7976931348623157e308)))
def test_reference_log_is_bit_identical_to_the_kernels(x: float) -> None:
    assert bits(fast_log(x)) == bits(reference_log(x))


@given(st.one_of(st.integers(0, 2**53 - 1).map(lambda n: n * 2.0**-53),
                 st.floats(0.0, 1.0, exclude_max=True)))
def test_reference_cos_sin_turns_is_bit_identical_to_the_kernels(u: float) -> None:
    assert bits(cos_sin_turns(u)).tolist() == bits(reference_cos_sin_turns(u)).tolist()


@pytest.mark.parametrize("lanes", [log_lanes, cos_sin_lanes])
def test_the_lane_loops_vectorize_without_a_libm_call(lanes: nb.core.dispatcher.Dispatcher
                                                      ) -> None:
    lanes(np.full(8, 0.5))
    ir = lanes.inspect_llvm(lanes.signatures[0])
    assert re.search(r"<\d+ x double>", ir)
    assert not re.search(r"call [^@\n]*@(llvm\.)?(exp|log|sin|cos|floor|rint|pow)\w*\(", ir)


LANE_SCRIPT = textwrap.dedent("""
    import re
    import sys

    import numba as nb
    import numpy as np

    from study.core.elementary import cos_sin_turns, fast_log
    from study.core.fastexp import fast_exp


    @nb.njit(error_model="numpy")
    def lanes(x, u, y):
        out = np.empty((4, x.size))
        for j in range(x.size):
            out[0, j] = fast_exp(x[j])
            out[1, j] = fast_log(y[j])
            out[2, j], out[3, j] = cos_sin_turns(u[j])
        return out


    points = np.load(sys.argv[1])
    np.save(sys.argv[2], lanes(points[0], points[1], points[2]))
    asm = lanes.inspect_asm(lanes.signatures[0])
    print(" ".join(width for width in ("ymm", "zmm") if re.search(width, asm)))
""")


@pytest.mark.slow
def test_generic_x86_64_and_the_host_cpu_compute_the_same_bits(tmp_path: Path) -> None:
    # Two fresh processes with their own numba caches: one compiled for the baseline x86-64
    # (SSE2, two lanes per vector), one for this host (AVX2 or AVX-512 where it has them).
    rng = np.random.default_rng(13)
    n = 100_000
    points = np.stack([rng.uniform(-708.39, 0.0, n), rng.integers(0, 2**53, n) * 2.0**-53,
                       1.0 - rng.integers(0, 2**53, n) * 2.0**-53])
    np.save(tmp_path / "points.npy", points)
    script = tmp_path / "lanes.py"
    script.write_text(LANE_SCRIPT)
    runs = {}
    for cpu in ("generic", "host"):
        env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CPU_")}
        env["NUMBA_CACHE_DIR"] = str(tmp_path / f"cache-{cpu}")
        if cpu == "generic":
            env["NUMBA_CPU_NAME"] = "generic"
        runs[cpu] = subprocess.Popen(
            [sys.executable, str(script), str(tmp_path / "points.npy"),
             str(tmp_path / f"{cpu}.npy")], env=env, cwd=Path(__file__).resolve().parent.parent,
            stdout=subprocess.PIPE, text=True)
    widths = {cpu: run.communicate(timeout=300)[0].split() for cpu, run in runs.items()}
    assert all(run.returncode == 0 for run in runs.values())
    assert widths["generic"] == []  # the baseline really was compiled: no AVX registers
    generic = np.load(tmp_path / "generic.npy")
    host = np.load(tmp_path / "host.npy")
    assert generic.tobytes() == host.tobytes()
    assert np.array_equal(bits(host[0]), bits([fast_exp(x) for x in points[0].tolist()]))
