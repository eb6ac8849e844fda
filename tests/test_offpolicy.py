"""The off-policy group learner (``study.core.offpolicy``): the kernel against the reference
(``reference.offpolicy``) over lags, mismatch, top-p, every correction and KL estimator, group
sizes and estimators; on-policy settings are today's group learner bit for bit; the exact KL
gradient against finite differences; each estimator's expectation against theory and against a
Monte Carlo mean; bad settings refused."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.stats import kstest, norm

from reference import run as reference_run
from reference.offpolicy import (
    kl_gradient,
    mismatch_noise,
    readout,
    sampler_weights,
    softmax_weights,
)
from study.core.streams import run_keys
from study.model import registry
from study.model.environment import LENGTH_LAWS, Environment
from study.model.grid import Simulation
from study.model.offpolicy import ESTIMATORS, OffPolicy, parse_correction
from study.orchestration.simulate import simulate

FIELDS = ("greedy", "p_best", "pass_rate", "reward_sum", "pulls", "scores", "finite",
          "zero_signal")
# Every correction alone (from the registry, so a new one is drawn at once) and some joined.
CORRECTIONS = [*(c.name for c in registry.corrections()), "tis+keep_mask", "is+opsm",
               "ppo_clip+opsm+keep_mask", "opsm+keep_mask", "cispo+opsm"]


@pytest.mark.parametrize("baseline", ["group_mean", "group_zscore", "leave_one_out"])
def test_on_policy_settings_are_todays_group_learner(baseline: str) -> None:
    # Lag 0, no mismatch, top_p 1, no correction (and "is", whose weight is then exactly 1),
    # beta 0: the group learner of simulate_groups, bit for bit, past one block of lanes.
    keys = run_keys(5, np.arange(300))
    env = Environment.fixed([0.5, 0.55, 0.6])
    budgets = (3, 8, 40, 400)
    today = simulate(Simulation("reinforce", env, 1.0, baseline, 4), keys, budgets, scores=True,
                     curves=True)
    # CISPO's clip holds a ratio of exactly 1 (lag 0) where it is.
    for sampler in (OffPolicy(), OffPolicy(correction="is"), OffPolicy(kl_estimator="k3"),
                    OffPolicy(correction="cispo", parameters=(("cispo_low", 0.2),
                                                              ("cispo_high", 0.2)))):
        out = simulate(Simulation("reinforce", env, 1.0, baseline, 4, offpolicy=sampler), keys,
                       budgets, scores=True, curves=True)
        for name in (*FIELDS, "curve_optimal", "curve_reward", "curve_seeds"):
            np.testing.assert_array_equal(getattr(out, name), getattr(today, name), name)


def test_cispo_without_its_lower_clip_is_tis_capped_at_one_plus_its_upper_clip() -> None:
    # MiniMax-M1's CISPO disables the lower clip: with e_low = 1 its weight is min(rho, 1 +
    # e_high), TIS's with the cap 1 + e_high (here 2.0 exactly), bit for bit, on a stale,
    # mismatched and truncated sampler whose ratios cross the cap. With a lower clip that binds
    # (e_low 0.2: ratios below 0.8 are raised) the runs differ; PPO's clip, which drops the
    # rollouts CISPO keeps at the clip, differs from both.
    keys = run_keys(9, np.arange(130))
    env = Environment.fixed([0.5, 0.55, 0.6])
    budgets = (8, 80, 400)
    sampled = {"lag": 3, "mismatch": 1.0, "top_p": 0.9}

    def run(correction: str, *parameters: tuple[str, float]) -> object:
        sampler = OffPolicy(correction=correction, parameters=parameters, **sampled)
        return simulate(Simulation("reinforce", env, 3.0, "group_mean", 4, offpolicy=sampler),
                        keys, budgets, scores=True)

    tis = run("tis", ("tis_cap", 2.0))
    cispo = run("cispo", ("cispo_low", 1.0), ("cispo_high", 1.0))
    for name in (*FIELDS, "served"):
        np.testing.assert_array_equal(getattr(cispo, name), getattr(tis, name), name)
    clipped = run("cispo", ("cispo_low", 0.2), ("cispo_high", 1.0))
    ppo = run("ppo_clip", ("clip_range", 0.2))
    assert not np.array_equal(clipped.scores, tis.scores)
    assert not np.array_equal(ppo.scores, clipped.scores)


@pytest.mark.parametrize(("rho", "advantage"), [(0.3, -1.0), (0.3, 1.0), (3.0, 1.0),
                                                  (3.0, -1.0), (1.0, 0.5)])
def test_cispo_keeps_every_rollouts_gradient_where_ppo_drops_it(rho: float,
                                                                 advantage: float) -> None:
    # The references' weights: CISPO's is rho clipped to [1 - e_low, 1 + e_high], never 0 for a
    # positive rho, where PPO's clip is 0 on the flat side of its surrogate.
    from reference import correction

    weight = correction("cispo").weight(rho, advantage, (0.2, 0.2))
    assert weight == min(max(rho, 0.8), 1.2) and weight > 0
    flat = (advantage > 0 and rho > 1.2) or (advantage < 0 and rho < 0.8)
    assert correction("ppo_clip").weight(rho, advantage, (0.2,)) == (0.0 if flat else rho)


@st.composite
def offpolicy_case(draw: st.DrawFn) -> tuple[Simulation, tuple[int, ...], bool]:
    """An off-policy simulation on three arms with its budgets and whether they count tokens:
    answers of no length, or answers of lengths (fixed or geometric) rewarded by a noisy
    verifier's verdict under the overlong punishment, whose cut and ramp reach every step of the
    meter (two compilations of the driver: each verdict and shaping is one; the meter's code is
    the same whatever the pair, and ``tests/test_tokens.py`` holds every pair's pieces)."""
    arms = 3
    values = tuple(draw(st.sampled_from([0.0, 0.2, 0.5, 0.6, 0.9, 1.0])) for _ in range(arms))
    env = Environment.fixed(values)
    answers = draw(st.sampled_from(["none", "shaped"]))
    if answers == "shaped":
        longest = draw(st.integers(2, 12))
        env = Environment.fixed(values, "overlong", (
            float(longest), float(draw(st.integers(1, longest - 1))),
            draw(st.sampled_from([0.0, 0.3, 1.0])))).with_verdict(
                "noisy_verifier", draw(st.sampled_from([(0.0, 0.0), (0.1, 0.2)])))
    if answers == "shaped":
        env = env.with_lengths(tuple(draw(st.integers(1, 9)) for _ in range(arms)),
                               draw(st.sampled_from(LENGTH_LAWS)))
    tokens = answers != "none" and draw(st.booleans())
    sampler = OffPolicy(
        lag=draw(st.integers(0, 5)), mismatch=draw(st.sampled_from([0.0, 0.3, 2.0])),
        top_p=draw(st.sampled_from([1.0, 0.95, 0.8, 0.5, 0.1])),
        correction=draw(st.sampled_from(CORRECTIONS)),
        kl_beta=draw(st.sampled_from([0.0, 0.1, 1.0])),
        kl_estimator=draw(st.sampled_from(ESTIMATORS)),
        parameters=(("clip_range", draw(st.sampled_from([0.1, 0.2]))),
                    ("tis_cap", draw(st.sampled_from([1.5, 2.0]))),
                    ("opsm_threshold", draw(st.sampled_from([0.05, 0.5]))),
                    ("cispo_low", draw(st.sampled_from([0.2, 1.0]))),
                    ("cispo_high", draw(st.sampled_from([0.2, 1.0])))))
    baseline = draw(st.sampled_from(["group_mean", "group_zscore", "leave_one_out"]))
    group = draw(st.integers(2, 5))
    lr = draw(st.sampled_from([0.3, 1.0, 4.0]))
    budgets = tuple(sorted(draw(st.sets(st.integers(1, 300 if tokens else 120), min_size=1,
                                        max_size=3))))
    return Simulation("reinforce", env, lr, baseline, group, offpolicy=sampler), budgets, tokens


@settings(max_examples=60, deadline=None)
@given(case=offpolicy_case(), root_seed=st.integers(0, 2**64), seeds=st.integers(1, 3))
# A policy near a vertex: k3's factor 1 - 1/(n pi) overflows on squaring, inf in the kernel
# (the reference squared with Python's ** once, which raises there instead).
@example(case=(Simulation("reinforce", Environment.fixed((0.0, 0.2, 0.9)), 4.0, "group_mean", 4,
                          offpolicy=OffPolicy(lag=1, mismatch=2.0, kl_beta=1.0,
                                              kl_estimator="k3")), (28,), False),
         root_seed=560508, seeds=1)
def test_kernel_agrees_with_reference(case: tuple[Simulation, tuple[int, ...], bool],
                                      root_seed: int, seeds: int) -> None:
    sim, budgets, tokens = case
    env = sim.environment
    keys = run_keys(root_seed, np.arange(seeds))
    out = simulate(sim, keys, budgets, scores=True, tokens=tokens)
    counted = env.lengths is not None
    for i in range(seeds):
        expected, _, readouts = reference_run(
            keys[i], list(env.values), env.reward, "reinforce", sim.lr, sim.baseline,
            list(budgets), sim.group_size, env.reward_parameters,
            list(env.lengths) if counted else None, env.length_law, tokens, env.verdict,
            env.verdict_parameters, sim.offpolicy)
        for c, (point, (entropy, bias, mse, (passed, on_best))) in enumerate(
                zip(expected, readouts, strict=True)):
            assert (out.greedy[i, c], out.finite[i, c], out.zero_signal[i, c]) == (
                point.greedy, point.finite, point.zero_signal)
            assert out.reward_sum[i, c] == point.reward_sum
            assert out.pulls[i, c].tolist() == point.pulls
            if counted:
                assert (out.rollouts[i, c], out.tokens[i, c]) == (point.rollouts, point.tokens)
                np.testing.assert_allclose(out.expected_length[i, c], point.expected_length,
                                           rtol=1e-12, atol=1e-12)
            # Same IEEE operations in the same order (1e-12: the contract of every driver).
            for ours, theirs in ((out.scores[i, c], point.scores),
                                 (out.pass_rate[i, c], point.pass_rate),
                                 (out.entropy[i, c], entropy), (out.kl_bias[i, c], bias),
                                 (out.kl_mse[i, c], mse), (out.served[i, c, 0], passed),
                                 (out.served[i, c, 1], on_best)):
                np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


def _kl(logits: np.ndarray) -> float:
    """KL(softmax(logits) || uniform), in numpy's own arithmetic."""
    p = np.exp(logits - logits.max())
    p /= p.sum()
    return float(np.sum(p * np.log(p * len(p))))


@pytest.mark.parametrize("logits", [[0.0, 0.0, 0.0], [0.3, -1.2, 2.0], [5.0, 0.0, -3.0, 1.0]])
def test_exact_kl_gradient_is_the_finite_difference(logits: list[float]) -> None:
    # Central differences with step h have error O(h^2 f''') ~ 1e-10 at h = 1e-5, and rounding
    # error ~ 1e-16 / h = 1e-11: 1e-8 is well above both.
    weights, norm_ = softmax_weights(logits)
    exact = kl_gradient([w * (1.0 / norm_) for w in weights], "exact", [], [])
    h = 1e-5
    for k in range(len(logits)):
        up, down = np.array(logits), np.array(logits)
        up[k] += h
        down[k] -= h
        assert exact[k] == pytest.approx((_kl(up) - _kl(down)) / (2 * h), abs=1e-8)


def test_estimators_expectations_are_theirs() -> None:
    # On a fixed state (pi from logits, the sampler mu from other logits, both full support):
    # the estimators' mean under the sampler, from the readout, against theory -- on-policy
    # (mu = pi) k1's is 0, k3's is pi - r (the gradient of KL(r || pi)) and k3_is's the exact
    # gradient; off-policy k3_is's is still exact (its ratio pi / mu undoes the sampler).
    pi_weights, pi_norm = softmax_weights([0.4, -0.7, 1.3, 0.0])
    pi = [w * (1.0 / pi_norm) for w in pi_weights]
    exact = np.array(kl_gradient(pi, "exact", [], []))
    _, on_bias, _ = readout(pi, pi, 4)
    k1_mean = np.zeros(4)  # the bias is mean - exact: mean = 0 gives |exact|
    assert on_bias[0] == pytest.approx(np.linalg.norm(k1_mean - exact), rel=1e-12)
    assert on_bias[1] == pytest.approx(np.linalg.norm(np.array(pi) - 0.25 - exact), rel=1e-12)
    assert on_bias[2] < 1e-15
    mu_weights, mu_norm = softmax_weights([1.0, 0.2, -0.5, 0.3])
    _, off_bias, _ = readout(pi, [w / mu_norm for w in mu_weights], 4)
    assert off_bias[2] < 1e-15 and off_bias[1] > 0.01


def test_estimators_monte_carlo_mean_and_error_are_the_readouts() -> None:
    # 200,000 groups of 4 drawn from the sampler (numpy's generator): each estimator's mean
    # squared error against the exact gradient is an average of independent terms; its Monte
    # Carlo mean lies within 5 standard errors of the readout's closed form (a false alarm
    # once in 1.7 million runs per check).
    rng = np.random.default_rng(11)
    pi_weights, pi_norm = softmax_weights([0.4, -0.7, 1.3, 0.0])
    pi = np.array([w * (1.0 / pi_norm) for w in pi_weights])
    mu_weights, mu_norm, _ = sampler_weights([1.0, 0.2, -0.5, 0.3], 1.0)
    mu = np.array([w / mu_norm for w in mu_weights])
    exact = np.array(kl_gradient(list(pi), "exact", [], []))
    group, draws = 4, 200_000
    _, _, mse = readout(list(pi), list(mu), group)
    arms = rng.choice(4, size=(draws, group), p=mu)
    scores = np.eye(4)[arms] - pi  # (draws, group, K)
    chosen = pi[arms]
    factors = {"k1": np.ones_like(chosen), "k3": 1.0 - 1.0 / (4 * chosen),
               "k3_is": chosen / mu[arms] * np.log(chosen * 4)}
    for e, name in enumerate(("k1", "k3", "k3_is")):
        estimate = (factors[name][..., None] * scores).mean(axis=1)
        errors = ((estimate - exact) ** 2).sum(axis=1)
        assert abs(errors.mean() - mse[e]) < 5 * errors.std() / math.sqrt(draws) + 1e-15


@pytest.mark.parametrize(("text", "message"), [
    ("is+tis", "joins two weights"),
    ("gspo", "^is not one of none, cispo, is, ppo_clip, tis, opsm, keep_mask"),
    ("tis+gspo", "^has the part 'gspo', which is not one of"), ("none+opsm", "joins none"),
    ("opsm+opsm", "twice")])
def test_bad_corrections_are_named(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_correction(text)


def test_mismatch_noise_is_standard_normal() -> None:
    # The MISMATCH stream's z of 20,000 updates of 5 arms (the kernel's, which the reference
    # test above pins to these): 100,000 draws, independent within a Box-Muller pair too. Their
    # mean has sd 1 / sqrt(n) and their variance sd sqrt(2 / n); each is allowed 5 sd, and the
    # Kolmogorov-Smirnov test against the standard normal rejects at 1e-6 (false alarms: about
    # one in a million runs each).
    key = run_keys(17, np.arange(1))[0]
    z = np.array([mismatch_noise(key, update, 5) for update in range(20_000)]).ravel()
    n = len(z)
    assert abs(z.mean()) < 5 / math.sqrt(n)
    assert abs(z.var() - 1.0) < 5 * math.sqrt(2 / n)
    assert kstest(z, norm.cdf).pvalue > 1e-6


def test_an_off_policy_study_runs_to_its_table(tmp_path) -> None:
    # Through the command line: the grid's samplers are cells (an estimator without a KL term
    # is one cell, not one per estimator), their description is in cells.parquet, the runs
    # carry the readout, and the on-policy sampler's runs are the on-policy study's.
    from bandit_study.cli import main
    from conftest import config_text
    from study.model.schema import OFFPOLICY_CELL_COLUMNS, OFFPOLICY_RUN_COLUMNS
    from study.orchestration.storage import read_runs

    common = {"baseline": ["group_mean"], "group_size": [4], "lr": [1.0], "budgets": [8, 80]}
    off = tmp_path / "off.toml"
    off.write_text(config_text(lag=[0, 2], correction=["none", "tis+keep_mask"],
                               top_p=[1.0, 0.9], kl_beta=[0.0, 0.5],
                               kl_estimator=["k3", "k3_is"], **common))
    on = tmp_path / "on.toml"
    on.write_text(config_text(**common))
    for path in (off, on):
        assert main(["run", str(path), "--out", str(tmp_path / path.stem), "--quiet"]) == 0
    runs = read_runs(tmp_path / "off")
    assert set(OFFPOLICY_CELL_COLUMNS) | set(OFFPOLICY_RUN_COLUMNS) <= set(runs.columns)
    # 2 lags x 2 corrections x 2 top_p x (beta 0, and beta 0.5 with each of 2 estimators).
    assert runs["cell"].nunique() == 2 * 2 * 2 * 3
    first = runs[(runs["lag"] == 0) & (runs["correction"] == "none") & (runs["top_p"] == 1.0)
                 & (runs["kl_beta"] == 0.0)]
    today = read_runs(tmp_path / "on")
    for column in ("greedy_arm", "p_best", "pass_rate", "reward_sum", "zero_signal_updates"):
        np.testing.assert_array_equal(first[column].to_numpy(), today[column].to_numpy())
    assert np.isfinite(runs[list(OFFPOLICY_RUN_COLUMNS[-7:])].to_numpy()).all()


def test_an_offpolicy_study_with_a_paper_role_is_refused_by_its_analysis(tmp_path) -> None:
    # The headline role reads a reference learner's comparison and the per-arm baseline's, which
    # an off-policy study does not make: the analysis refuses the role with one line and writes
    # nothing, where the paper once crashed on it; without the role the same study is analysed.
    from conftest import config_text, run_cli, run_module

    grid = {"baseline": ["group_mean"], "group_size": [4], "lr": [1.0], "budgets": [8, 80],
            "lag": [0, 2]}
    (tmp_path / "off.toml").write_text(config_text(**grid))
    assert run_cli("run", str(tmp_path / "off.toml"), "--out", str(tmp_path / "runs"),
                   "--quiet").returncode == 0
    (tmp_path / "role.toml").write_text(config_text(**grid) + '[analysis]\npaper_role = '
                                                             '"headline"\n')
    done = run_module("analysis", str(tmp_path / "runs"), "--config", str(tmp_path / "role.toml"),
                      "--out", str(tmp_path / "tables" / "off"))
    assert done.returncode == 2 and not done.stdout
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: analysis.paper_role: 'headline' reads the tables vs_")
    assert not (tmp_path / "tables").exists()  # nor the folders made on the way
    done = run_module("analysis", str(tmp_path / "runs"), "--config", str(tmp_path / "off.toml"),
                      "--out", str(tmp_path / "tables"))
    assert done.returncode == 0, done.stderr


def test_the_offpolicy_tables_are_the_runs_recomputed(tmp_path) -> None:
    # From the tidy runs of a small off-policy study, by scipy, statsmodels and the slow
    # betting reference rather than the package's calls: each stale cell is set against the
    # cell alike in all but lag 0, each cell with a KL term against the same without one (its
    # estimator moot); the served and the learner's pass rate by betting on the bandit's range
    # (the learner's in single precision, widened by its rounding), accuracy, the stuck share
    # and collapse by McNemar's exact test, Holm within each metric's family over the pairs of
    # distinct simulations only (a pair of cells whose runs repeat an earlier pair's, bit for
    # bit, repeats its test outside the family); the estimators' errors are means over the runs
    # of each state, and k3_is has none beyond rounding where the sampler can draw every arm
    # (its expectation is then the exact gradient: the theory this checks on the kernel's own
    # states).
    from betting_reference import p_value
    from scipy.stats import binomtest
    from statsmodels.stats.multitest import multipletests

    from analysis.offpolicy import COLLAPSED
    from analysis.stuck import STUCK_WRONG_MASS
    from analysis.study_tables import analyze_outcomes, load
    from conftest import config_text
    from study.model.config import parse_config
    from study.model.schema import OFFPOLICY_RUN_COLUMNS
    from study.orchestration.outputs import run_and_write
    from study.orchestration.storage import read_runs

    config = parse_config(config_text(
        {"seeds": 60}, probs=[[0.5, 0.55, 0.6]], baseline=["group_mean"], group_size=[4],
        lr=[3.0], lag=[0, 2], correction=["none", "tis+keep_mask"], kl_beta=[0.0, 0.5],
        kl_estimator=["k3", "k3_is"], top_p=[1.0, 0.8], mismatch=[0.0, 0.5], budgets=[40, 400])
        + "[analysis]\ncompared_budgets = [400]\n")
    run_and_write(config, tmp_path, quiet=True)
    outcomes, manifest = load(tmp_path)
    tables = analyze_outcomes(outcomes, manifest, tmp_path, config.analysis)
    runs = read_runs(tmp_path).sort_values(["cell", "seed", "budget"])
    last = runs[runs["budget"] == 400].set_index("cell")
    before = runs[runs["budget"] == 40].set_index("cell")
    keys = ["lag", "correction", "kl_beta", "kl_estimator", "top_p", "mismatch"]
    setting = {cell: tuple(rows[keys].iloc[0]) for cell, rows in last.groupby(level=0)}
    # A cell's simulation: the first cell whose every run column is the same, bit for bit.
    stored = list(OFFPOLICY_RUN_COLUMNS)
    owner: dict[int, int] = {}
    for cell, rows in runs.groupby("cell"):
        owner[int(cell)] = next(c for c in [*sorted(owner), int(cell)] if c == int(cell) or all(
            np.array_equal(rows[k].to_numpy(), runs[runs["cell"] == c][k].to_numpy())
            for k in stored))
    assert len(set(owner.values())) < len(owner)  # the kept mask at top_p 1 repeats a cell

    def stuck(frame: pd.DataFrame, earlier: pd.DataFrame) -> np.ndarray:
        # Half or more of the served mass on wrong arms, the learner's best-arm mass not above
        # the previous checkpoint's; a state that is not finite serves nothing.
        wrong = ~(1.0 - frame["served_p_best"].to_numpy() < STUCK_WRONG_MASS)
        gaining = frame["p_best"].to_numpy() > earlier["p_best"].to_numpy() + 1e-6
        return (wrong & ~gaining) | ~frame["finite"].to_numpy(bool)

    for name, axis, reference in (("staleness", "lag", 0), ("kl_term", "kl_beta", 0.0),
                                  ("truncation", "top_p", 1.0), ("mismatch", "mismatch", 0.0)):
        found = tables[name]
        assert {"served_pass_rate", "pass_rate", "accuracy", "stuck", "collapsed"} == set(
            found["metric"])
        for metric, rows in found.groupby("metric", sort=False):
            expected_p, first = [], {}
            for row in rows.itertuples():
                ours, theirs = setting[row.cell_a], setting[row.cell_b]
                changed = {k for k, a, b in zip(keys, ours, theirs, strict=True) if a != b}
                moot = {"kl_estimator"} if axis == "kl_beta" else set()
                assert axis in changed and changed <= {axis, *moot}
                assert dict(zip(keys, theirs, strict=True))[axis] == reference
                pair = (owner[row.cell_a], owner[row.cell_b])
                assert row.distinct == (pair not in first)
                if not row.distinct:
                    assert (row.p_value, row.p_value_holm) == first[pair]
                    assert row.family == ""
                    continue
                a, b = (last.loc[c] for c in (row.cell_a, row.cell_b))
                if metric in ("pass_rate", "served_pass_rate"):
                    # A state that is not finite serves nothing, a pass rate of 0, which the
                    # pair's range then holds; the learner's is held in single precision.
                    x, y = (frame[metric].to_numpy(np.float32 if metric == "pass_rate"
                                                   else np.float64).astype(float)
                            for frame in (a, b))
                    finite = np.isfinite(x).all() and np.isfinite(y).all()
                    d = np.nan_to_num(x) - np.nan_to_num(y)
                    high = float(np.nextafter(np.float32(0.6), np.float32(np.inf)))
                    low = float(np.nextafter(np.float32(0.5 if finite else 0.0),
                                             np.float32(-np.inf)))
                    expected_p.append(p_value(d, low - high, high - low, 0.0,
                                              0.05 / rows["distinct"].sum()))
                    assert row.difference == pytest.approx(d.mean(), abs=1e-12)
                else:
                    # A run whose state is not finite counts as collapsed and as stuck.
                    if metric == "accuracy":
                        x, y = (frame["correct"].to_numpy(bool) for frame in (a, b))
                    elif metric == "stuck":
                        x, y = (stuck(last.loc[c], before.loc[c])
                                for c in (row.cell_a, row.cell_b))
                    else:
                        x, y = ((frame["p_best"].to_numpy() <= COLLAPSED)
                                | ~frame["finite"].to_numpy(bool) for frame in (a, b))
                    only_a, only_b = int((x & ~y).sum()), int((~x & y).sum())
                    expected_p.append(binomtest(only_a, only_a + only_b).pvalue
                                      if only_a + only_b else 1.0)
                    assert row.difference == pytest.approx((only_a - only_b) / 60, abs=1e-12)
                first[pair] = (row.p_value, row.p_value_holm)
            distinct = rows[rows["distinct"]]
            np.testing.assert_allclose(distinct["p_value"], expected_p, rtol=1e-6, atol=1e-12)
            np.testing.assert_allclose(distinct["p_value_holm"],
                                       multipletests(expected_p, method="holm")[1],
                                       rtol=1e-6, atol=1e-12)
    shares = tables["truncation_collapse"]
    assert len(shares) == len(setting)  # every cell, at the one compared budget
    for row in shares.itertuples():
        runs_at = last.loc[row.cell]
        collapsed = int(((runs_at["p_best"].to_numpy() <= COLLAPSED)
                         | ~runs_at["finite"].to_numpy(bool)).sum())
        exact = binomtest(collapsed, 60).proportion_ci(0.95, method="exact")
        assert (row.collapsed, row.collapsed_low, row.collapsed_high) == pytest.approx(
            (collapsed / 60, exact.low, exact.high), rel=1e-12, abs=1e-15)
        held = int(stuck(runs_at, before.loc[row.cell]).sum())
        exact = binomtest(held, 60).proportion_ci(0.95, method="exact")
        assert (row.stuck, row.stuck_low, row.stuck_high) == pytest.approx(
            (held / 60, exact.low, exact.high), rel=1e-12, abs=1e-15)
        served = np.nan_to_num(runs_at["served_pass_rate"].to_numpy())
        assert row.served_pass_rate == pytest.approx(served.mean(), rel=1e-12)
        # Updates so far: 400 rollouts in groups of 4.
        stalled = runs_at["zero_signal_updates"].to_numpy() / 100
        assert row.stalled_updates == pytest.approx(stalled.mean(), rel=1e-12)
        assert row.distinct == (owner[row.cell] == row.cell)
    errors = tables["kl_estimators"]
    assert set(errors["kl_beta"]) == {0.0}
    for row in errors.itertuples():
        # Runs whose state is not finite have no error to read, and are in no state.
        cell_runs = runs[(runs["cell"] == row.cell) & (runs["budget"] == row.budget)]
        cell_runs = cell_runs[cell_runs["finite"].to_numpy(bool)]
        if row.state != "early":
            cell_runs = cell_runs[(cell_runs["p_best"].to_numpy() <= COLLAPSED)
                                  == (row.state == "collapsed")]
        chosen = cell_runs
        assert row.runs == len(chosen)
        assert row.bias == pytest.approx(chosen[f"{row.estimator}_bias"].mean(), rel=1e-12)
        assert row.rms == pytest.approx(math.sqrt(chosen[f"{row.estimator}_mse"].mean()),
                                        rel=1e-12)
    # Unbiased where the sampler can draw every arm; a truncated sampler never draws some, and
    # no weight restores their share of the gradient.
    full = errors["top_p"] == 1.0
    assert (errors.loc[full & (errors["estimator"] == "k3_is"), "bias"] < 1e-12).all()
    assert (errors.loc[~full & (errors["estimator"] == "k3_is"), "bias"] > 1e-6).any()
    assert (errors.loc[errors["estimator"] == "k3", "bias"] > 1e-3).all()


@pytest.mark.parametrize("baseline", ["group_mean", "leave_one_out"])
def test_a_sampler_that_keeps_one_arm_stalls_the_learner(baseline: str) -> None:
    # The mechanism the truncation section states, read from the model: at the uniform start
    # top_p 0.3 keeps arm 0 alone (its third of the mass reaches 0.3), so every rollout is arm 0
    # and the group's advantages sum to 0. With the kept mask each term of the step is 0 (the
    # masked policy is all on arm 0): the logits stay 0 bit for bit and the learner's mass on the
    # best arm stays its untrained third, while the served (truncated) policy gives arm 0, a wrong
    # arm, every time. Without the mask the terms cancel to rounding (1e-12: two hundred updates
    # of four terms below 1 that sum to 0, each sum off by a few ulps at most).
    values = (0.5, 0.55, 0.6)
    keys = run_keys(7, np.arange(8))
    budgets = (400, 800)
    for correction, exact in (("keep_mask", True), ("none", False)):
        sim = Simulation("reinforce", Environment.fixed(values), 1.0, baseline, 4,
                         offpolicy=OffPolicy(top_p=0.3, correction=correction))
        out = simulate(sim, keys, budgets, scores=True)
        # Rewards still vary within a group: the advantages are not all 0, the update is.
        assert (out.zero_signal[:, -1] < budgets[-1] // 4).all()
        if not exact:
            # The rounding left moves the near-tied logits, so which arm the sampler keeps
            # can change; the learner itself goes nowhere.
            assert np.abs(out.scores).max() < 1e-12
            continue
        assert (out.pulls[:, :, 1:] == 0).all()
        assert (out.scores == 0.0).all()
        assert (out.p_best == 1.0 / 3.0).all()
        assert (out.served[:, :, 0] == values[0]).all() and (out.served[:, :, 1] == 0.0).all()


def test_logit_noise_unfreezes_a_learner_that_truncation_stalled() -> None:
    # The mismatch section's mechanism: at lr 1 on the headline bandit a sampler truncated to
    # top_p 0.8 with the kept mask has stalled every run by 10,000 rollouts (its learner's mass
    # bit for bit the same at 20,000 in all of the sampler study's 1,000 seeds); with logit noise
    # 2 the sampler keeps a second arm now and then, whose rollouts carry a signal, and no run of
    # the study stands still. 64 seeds: shares of 0.9 and 0.1 are some six standard errors (at
    # most 0.5 / 8) from the study's 1.0 and 0.0.
    keys = run_keys(11, np.arange(64))
    still = {}
    for mismatch in (0.0, 2.0):
        sim = Simulation("reinforce", Environment.fixed((0.5, 0.55, 0.6)), 1.0, "group_mean",
                         8, offpolicy=OffPolicy(top_p=0.8, mismatch=mismatch,
                                                correction="keep_mask"))
        out = simulate(sim, keys, (10000, 20000))
        still[mismatch] = float(np.mean(out.p_best[:, 0] == out.p_best[:, 1]))
    assert still[0.0] >= 0.9 and still[2.0] <= 0.1, still


def test_k3_is_is_biased_where_the_sampler_cannot_draw_an_arm() -> None:
    # k3_is's zero bias is algebra where the sampler covers pi's support; a truncated sampler
    # never draws some arm the policy still weighs, and no ratio restores that arm's share of the
    # gradient: the readout's bias is then far above rounding (the study's tables print no
    # interval around the covered case's rounding, and this is why the cover matters).
    pi_weights, pi_norm = softmax_weights([0.4, -0.7, 1.3, 0.0])
    pi = [w * (1.0 / pi_norm) for w in pi_weights]
    truncated, norm, kept = sampler_weights([0.4, -0.7, 1.3, 0.0], 0.8)
    assert not all(kept)
    _, bias, _ = readout(pi, [w / norm for w in truncated], 4)
    assert bias[2] > 1e-3


@pytest.mark.slow
def test_the_sampler_grid_is_304_distinct_simulations_of_384_cells(tmp_path) -> None:
    # The sampler study's grid at a few seeds: the kept mask with top_p 1 repeats the unmasked
    # cell, and without mismatch tis with the kept mask repeats the kept mask (every ratio is 1),
    # so its 384 cells are 304 distinct simulations, whatever the seeds; the analysis's
    # ``simulations`` finds the same groups as a digest of every run column here.
    import hashlib

    from analysis.offpolicy import simulations
    from analysis.questions import Inputs
    from conftest import REPO
    from study.model.config import load_config
    from study.model.schema import OFFPOLICY_RUN_COLUMNS
    from study.orchestration.outputs import run_and_write
    from study.orchestration.storage import read_runs

    config = load_config(REPO / "study" / "configs" / "offpolicy_sampler.toml").with_seeds(8)
    run_and_write(config, tmp_path, quiet=True)
    columns = list(OFFPOLICY_RUN_COLUMNS)
    runs = read_runs(tmp_path, ["cell", *columns]).sort_values(["cell", "seed", "budget"])
    groups: dict[str, list[int]] = {}
    for cell, rows in runs.groupby("cell"):
        digest = hashlib.sha256(b"".join(rows[c].to_numpy().tobytes() for c in columns))
        groups.setdefault(digest.hexdigest(), []).append(int(cell))
    assert (runs["cell"].nunique(), len(groups)) == (384, 304)
    owner = simulations(Inputs(study="sampler", analysis=config.analysis,
                               settings_frame=pd.DataFrame(), cells=pd.DataFrame(),
                               run_dir=tmp_path))
    assert owner == {cell: min(group) for group in groups.values() for cell in group}


@pytest.mark.slow
def test_the_stuck_share_rises_with_truncation_where_the_learner_stalls(tmp_path) -> None:
    # The headline bandit, groups of 8 with the kept mask. At lr 10 without logit noise a
    # sampler truncated to top_p 0.8 stalls the learner wherever one arm holds 0.8 of its mass
    # (the sampler study, 1,000 seeds at 20,000 rollouts: stuck 0.52 against 0.19 untruncated,
    # collapse 0.005 against 0.23), so truncation raises the stuck share while it lowers the
    # collapse share; with 300 seeds a difference of 0.3 is some seven standard errors of a
    # paired difference of shares (at most sqrt(1 / 300) = 0.058), past Holm in a family of
    # eight. At lr 1 with logit noise 2 the noise unsticks it (0.001 against 0.000 there): the
    # stuck share is not shown higher.
    from analysis.study_tables import analyze_outcomes, load
    from conftest import config_text
    from study.model.config import parse_config
    from study.orchestration.outputs import run_and_write

    config = parse_config(config_text(
        {"seeds": 300}, probs=[[0.5, 0.55, 0.6]], baseline=["group_mean"], group_size=[8],
        lr=[1.0, 10.0], top_p=[1.0, 0.8], mismatch=[0.0, 2.0], correction=["keep_mask"],
        budgets=[10000, 20000]) + "[analysis]\ncompared_budgets = [20000]\n")
    run_and_write(config, tmp_path, quiet=True)
    outcomes, manifest = load(tmp_path)
    tables = analyze_outcomes(outcomes, manifest, tmp_path, config.analysis)
    found = tables["truncation"].set_index(["lr", "mismatch", "metric"])["finding"]
    assert found[(10.0, 0.0, "stuck")] == "higher"
    assert found[(10.0, 0.0, "collapsed")] == "lower"
    assert found[(1.0, 2.0, "stuck")] != "higher"
    shares = tables["truncation_collapse"].set_index(["lr", "mismatch", "top_p"])
    assert shares.loc[(10.0, 0.0, 0.8), "stuck"] > shares.loc[(10.0, 0.0, 1.0), "stuck"]
    assert shares.loc[(1.0, 2.0, 0.8), "stuck"] < 0.02


@pytest.mark.parametrize("baseline", ["group_mean", "group_zscore", "leave_one_out"])
def test_the_kept_mask_alone_changes_an_update_by_rounding_only(baseline: str) -> None:
    # The truncation section's and the ledger's reason: the mask changes the score's pi term,
    # sum_i A_i pi, and every group estimator's advantages sum to zero, so without a weight the
    # masked update is the unmasked one up to rounding (1e-12 on the logits: a few hundred
    # updates of terms below 1 whose cancellation leaves an ulp or so each); with tis the
    # weights differ by rollout and the mask changes the update.
    keys = run_keys(3, np.arange(8))
    env = Environment.fixed((0.5, 0.55, 0.6))

    def scores(correction: str) -> np.ndarray:
        sim = Simulation("reinforce", env, 1.0, baseline, 8,
                         offpolicy=OffPolicy(top_p=0.8, mismatch=2.0, correction=correction))
        return simulate(sim, keys, (800,), scores=True).scores

    assert np.abs(scores("keep_mask") - scores("none")).max() < 1e-12
    assert np.abs(scores("tis+keep_mask") - scores("tis")).max() > 1e-3
