"""The reward models: each declared once, with a reference and a stream of its own; the noisy
verifier's rewards against their law, and against Bernoulli rewards when it makes no errors."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numba as nb
import numpy as np
import pandas as pd
import pytest
from numba.core.errors import TypingError

import reference
from analysis import budget_to_target
from analysis.accuracy import cells_frame
from analysis.outcomes import Outcomes
from analysis.pass_rate import FRACTIONS, achievable, seed_pass_rates
from analysis.questions import Inputs, reward_noise
from analysis.questions.effective_hardness import table as effective_hardness
from analysis.questions.reward_noise import (
    Metric,
    Prediction,
    crossings,
    joint_slope,
    ratio_interval,
    variance_folded_ratio,
)
from analysis.questions.reward_noise import table as reward_noise_cost
from analysis.questions.reward_noise_slope import table as reward_noise_slope
from analysis.roles import Placement
from analysis.study_tables import load
from conftest import config_text
from study.core.reward_hooks import implement, own_pair, own_stream
from study.core.streams import MAIN_C2, MAIN_C3, NOISE_C2, NOISE_C3, TIE_BREAK_C3, run_keys
from study.model import registry
from study.model.config import AnalysisConfig, parse_config
from study.model.environment import Environment
from study.model.grid import Simulation
from study.orchestration.outputs import run_and_write
from study.orchestration.simulate import simulate


def study_inputs(outcomes: Outcomes, run_dir: Path) -> Inputs:
    """A study's inputs to its question modules, without settings, which the noisy-verifier
    questions do not read (their questions follow from the cells alone)."""
    return Inputs(study="t", analysis=AnalysisConfig(), settings_frame=pd.DataFrame([{}]),
                  cells=cells_frame(outcomes), run_dir=run_dir, outcomes=outcomes)

INSTANCE_C2 = 2
"""c2 of the instance draws' counter (numpy's Philox4x64, ``study.core.streams.INSTANCE``)."""


def test_every_reward_model_has_a_reference_and_a_stream_range_of_its_own() -> None:
    taken = {(MAIN_C2, MAIN_C3), (INSTANCE_C2, 0)}
    for model in registry.reward_models():
        module = reference.reward_model(model.name)
        # A verdict draws and decides a reward; a shaping (a length-constraint model) shapes one.
        pieces = ("shaped",) if model.lengths else ("own", "outcome")
        assert all(callable(getattr(module, piece, None)) for piece in pieces), model.name
        assert model.values in ("probs", "means")
        if model.stream is None:
            continue
        # c3 = 1 holds the tie-break ranges, whatever c2; the others must not meet.
        assert model.stream[1] != TIE_BREAK_C3 and model.stream not in taken, model.name
        taken.add(model.stream)
    assert registry.reward_model("gaussian").stream == (NOISE_C2, NOISE_C3)


def test_a_model_drawing_words_of_its_own_must_name_their_stream() -> None:
    """``own_stream``'s default is the main stream's range: a model with ``own_pair`` and without
    it would draw its own words from the action and reward draws, so it does not compile."""
    registry.register_kernels()

    @implement(own_pair, "streamless")
    def _pair(model, w0, w1, w2, w3):  # type: ignore[no-untyped-def]  # pragma: no cover
        return 0.0, 0.0

    @nb.njit
    def stream_of(model):  # type: ignore[no-untyped-def]  # pragma: no cover
        nb.literally(model)
        return own_stream(model)

    assert [int(c) for c in stream_of("gaussian")] == [NOISE_C2, NOISE_C3]
    with pytest.raises(TypingError, match="implements own_pair but not own_stream"):
        stream_of("streamless")


def test_a_verifier_grid_crosses_each_bandit_with_every_rate() -> None:
    config = parse_config(config_text(probs=[[0.5, 0.6], [0.2, 0.4]],
                                      reward_model="noisy_verifier",
                                      false_positive=[0.0, 0.1], false_negative=[0.2]))
    assert [(env.values, env.reward_parameters) for env in config.environments] == [
        ((0.5, 0.6), (0.0, 0.2)), ((0.5, 0.6), (0.1, 0.2)),
        ((0.2, 0.4), (0.0, 0.2)), ((0.2, 0.4), (0.1, 0.2))]
    assert {env.reward for env in config.environments} == {"noisy_verifier"}


@pytest.mark.parametrize(("algorithm", "baseline", "group"), [
    ("reinforce", "running_mean", 1), ("reinforce", "leave_one_out", 4),
    ("successive_rejects", "none", 1)])
def test_a_verifier_without_errors_gives_the_bernoulli_runs(algorithm: str, baseline: str,
                                                            group: int) -> None:
    keys = run_keys(7, np.arange(40))
    budgets = (5, 64, 301)
    runs = {}
    for reward, parameters in (("bernoulli", ()), ("noisy_verifier", (0.0, 0.0))):
        env = Environment.fixed((0.5, 0.55, 0.6), reward, parameters)
        lr = 0.0 if algorithm == "successive_rejects" else 0.5
        runs[reward] = simulate(Simulation(algorithm, env, lr, baseline, group), keys, budgets,
                                scores=True)
    for name in ("greedy", "reward_sum", "pulls", "scores", "zero_signal"):
        np.testing.assert_array_equal(getattr(runs["bernoulli"], name),
                                      getattr(runs["noisy_verifier"], name), err_msg=name)


def test_noisy_verifier_rewards_follow_their_law() -> None:
    # Uniform allocation pulls arm t mod 2, so after 2n pulls each arm has n rewards, each 1 with
    # probability q = fp + p (1 - fp - fn). Over S seeds the pooled mean has standard error
    # sqrt(q (1 - q) / (n S)); 5 standard errors leave a false alarm of 6e-7 per arm.
    probs, rates = (0.3, 0.8), (0.1, 0.2)
    seeds, pulls = 400, 2000
    env = Environment.fixed(probs, "noisy_verifier", rates)
    out = simulate(Simulation("uniform", env, 0.0, "none"), run_keys(11, np.arange(seeds)),
                   (pulls,), scores=True)
    for arm, p in enumerate(probs):
        expected = rates[0] + p * (1.0 - rates[0] - rates[1])
        n = seeds * pulls // 2
        assert out.pulls[:, 0, arm].sum() == n
        observed = out.scores[:, 0, arm].mean()
        assert abs(observed - expected) < 5.0 * math.sqrt(expected * (1 - expected) / n), arm


def test_reward_noise_cost_pairs_each_noisy_cell_with_its_exact_verifier(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The families' resamples are the study's concern; a few hundred keep this test of the
    # pairing fast (every figure below is read from the same draws however many there are).
    monkeypatch.setitem(reward_noise.RESAMPLES, Metric.ACCURACY, 1500)
    monkeypatch.setitem(reward_noise.RESAMPLES, Metric.PASS_RATE, 1500)
    config = parse_config(config_text({"seeds": 300}, reward_model="noisy_verifier",
                                      false_positive=[0.0, 0.2], false_negative=[0.0, 0.1],
                                      baseline=["running_mean", "none"],
                                      budgets=[10, 100, 1000, 10000]))
    run_and_write(config, tmp_path, quiet=True)
    outcomes, _ = load(tmp_path)
    inputs = study_inputs(outcomes, tmp_path)
    table = reward_noise_cost(inputs)
    # Three noisy verifiers per baseline, each paired with the exact verifier of its baseline,
    # on accuracy and on the pass rate at each share of the achievable gain: one family per
    # metric.
    accuracy = table[table["metric"] == Metric.ACCURACY]
    passing = table[table["metric"] == Metric.PASS_RATE]
    assert len(accuracy) == 6 and len(passing) == 6 * len(FRACTIONS)
    assert set(accuracy["family_size"]) == {6} and set(passing["family_size"]) == {18}
    gain = achievable(Environment.fixed((0.5, 0.55, 0.6)))
    assert sorted(set(passing["target"])) == pytest.approx([gain.target(f) for f in FRACTIONS])
    for row in table.itertuples():
        exact = outcomes.cells[outcomes.cells["cell"] == row.exact_cell].iloc[0]
        assert exact["baseline"] == row.baseline and (
            exact["false_positive"], exact["false_negative"]) == (0.0, 0.0)
        assert row.predicted_ratio == pytest.approx(
            1.0 / (1.0 - row.false_positive - row.false_negative) ** 2)
        assert row.mean_p == pytest.approx(0.55)
        assert row.variance_predicted_ratio == pytest.approx(
            variance_folded_ratio(0.55, row.false_positive, row.false_negative))
        assert row.ci_low <= row.ratio <= row.ci_high
        assert row.simultaneous_low <= row.ci_low and row.ci_high <= row.simultaneous_high
    # One slope per metric's target and prediction, all one family.
    slopes = reward_noise_slope(inputs)
    assert len(slopes) == 2 * (1 + len(FRACTIONS)) * 2
    assert set(slopes["family_size"]) == {len(slopes)} and set(slopes["verifiers"]) == {3}
    # Per unit of effective hardness: H of (0.5, 0.55, 0.6) is 1 / 0.05^2 + 1 / 0.1^2 = 500,
    # shrunk gaps make it 500 / (1 - fp - fn)^2, and the budget is divided by that alone.
    effective = effective_hardness(inputs)
    assert len(effective) == 8
    for row in effective.itertuples():
        factor = 1.0 - row.false_positive - row.false_negative
        assert row.effective_H == pytest.approx(500.0 / factor**2)
        assert row.per_effective_H * row.effective_H == pytest.approx(row.budget_to_target)
        assert row.per_effective_H_low <= row.per_effective_H <= row.per_effective_H_high
    # The exact verifier against itself costs nothing: its pass-rate budget ratio is 1 in every
    # resample, so its interval is [1, 1].
    exact = int(accuracy["exact_cell"].iat[0])
    for fraction in FRACTIONS:
        rates = seed_pass_rates(outcomes, exact)
        own = crossings(rates, outcomes.budgets, gain.target(fraction), 400)
        itself = ratio_interval(own, own, 0.025)
        assert (itself.estimate, itself.low, itself.high) == (1.0, 1.0, 1.0)


def test_a_ratio_read_from_drawn_crossings_is_budget_ratio(tmp_path: Path) -> None:
    """``ratio_interval`` reads the paired ratio's interval from crossings drawn once; the
    budget-to-target module's own ``budget_ratio`` draws them itself: on the same seeds and
    resamples the two must agree exactly, limits and Monte Carlo ranges alike."""
    config = parse_config(config_text({"seeds": 200}, reward_model="noisy_verifier",
                                      false_positive=[0.0, 0.3], budgets=[10, 100, 1000, 10000]))
    run_and_write(config, tmp_path, quiet=True)
    outcomes, _ = load(tmp_path)
    exact, noisy = (outcomes.outcomes(c) for c in outcomes.cells["cell"])
    for target in (0.8, 0.9):
        reference = budget_to_target.budget_ratio(noisy, exact, outcomes.budgets, target)
        found = ratio_interval(crossings(noisy, outcomes.budgets, target, 1000),
                               crossings(exact, outcomes.budgets, target, 1000), 0.025)
        assert (found.estimate, found.low, found.high) == (
            reference.ratio, reference.ci_low, reference.ci_high)
        assert (found.low_range, found.high_range) == (reference.ci_low_range,
                                                       reference.ci_high_range)
        assert found.undefined == reference.undefined_resamples


def test_the_variance_folded_prediction_has_its_closed_form() -> None:
    # By hand, pbar = 0.55. fp = 0.3, fn = 0: qbar = 0.3 + 0.55 * 0.7 = 0.685, so the ratio is
    # (0.685 * 0.315) / (0.55 * 0.45) / 0.7^2 = 0.215775 / 0.121275 = 1.779220...
    assert variance_folded_ratio(0.55, 0.3, 0.0) == pytest.approx(0.215775 / 0.121275,
                                                                  rel=1e-12)
    # fp = 0, fn = 0.2: qbar = 0.44, (0.44 * 0.56) / (0.55 * 0.45) / 0.8^2 = 0.2464 / 0.1584,
    # which is 14/9: the variance falls by 2464/2475 as the margin prediction's 25/16 rises.
    assert variance_folded_ratio(0.55, 0.0, 0.2) == pytest.approx(14 / 9, rel=1e-12)
    # With equal rates a pass probability of 1/2 stays 1/2 (qbar = fp + (1 - 2 fp) / 2): the
    # variance is unchanged and the prediction is the margin one.
    for rate in (0.1, 0.25, 0.4):
        assert variance_folded_ratio(0.5, rate, rate) == pytest.approx(
            1 / (1 - 2 * rate) ** 2, rel=1e-12)


def _following(slope: float, predicted: np.ndarray, budgets: np.ndarray, seeds: int,
               rng: np.random.Generator) -> tuple[np.ndarray, list[np.ndarray]]:
    """Outcomes (seeds, checkpoints) of an exact verifier and of one noisy verifier per
    ``predicted`` ratio, each budget to the median exactly ``predicted ** slope`` times the
    exact one's: seed i is right from budget T_i on, log T_i = log 1000 + U_i + W_i + slope log
    P, U_i ~ U(0, 4) shared by every verifier (common random numbers), W_i ~ U(0, 1) each its
    own. The density of U + W is flat (1/4) between 1 and 4, so its median (2.5) moves by
    exactly slope log P and, the CDF being linear in log budget there, the log-linear
    interpolation between checkpoints reads it without bias."""
    shared = rng.uniform(0.0, 4.0, seeds)

    def right(log_ratio: float) -> np.ndarray:
        first = np.exp(np.log(1000.0) + shared + rng.uniform(0.0, 1.0, seeds) + log_ratio)
        return budgets[None, :] >= first[:, None]

    return right(0.0), [right(slope * math.log(p)) for p in predicted]


@pytest.mark.parametrize("prediction", list(Prediction))
def test_the_joint_slope_is_not_rejected_at_the_true_slope_and_rejected_at_another(
        prediction: Prediction) -> None:
    rates = [r for r in itertools.product((0.0, 0.1, 0.2, 0.3), repeat=2) if sum(r) > 0]
    predicted = np.array([1 / (1 - sum(r)) ** 2 if prediction == Prediction.MARGIN
                          else variance_folded_ratio(0.55, *r) for r in rates])
    budgets = np.geomspace(100, 1e6, 41)
    seeds, resamples, tail = 600, 1000, 0.005
    # The slope's standard error, from the sample size: two verifiers' medians of log budget
    # differ by the share of seeds that fall between them, each seed with probability
    # E|W - W'| f = 1/12 (f = 1/4 the density there), over f, so the difference has variance
    # (1/12) / (f^2 n); the part all verifiers share cancels in the slope (its x's are
    # centred), whose variance is about half that over S_xx (3.0 for the margin predictions,
    # 3.1 for the folded ones). With n = 600: sqrt(2/3 / (600 * 3)) = 0.019. The interval's
    # half-width at 1 - 2 * tail is 2.6 of those; a slope of 1.5 is 26 of them from 1, rejected
    # whatever the seeds, and the true slope lies inside but for 1% of seed sets.
    rng = np.random.default_rng(20261204)
    for slope, verdict in ((1.0, Placement.INSIDE), (1.5, Placement.BELOW)):
        exact, noisy = _following(slope, predicted, budgets, seeds, rng)
        found, _ = joint_slope(np.log(predicted),
                               [crossings(n, budgets, 0.5, resamples) for n in noisy],
                               crossings(exact, budgets, 0.5, resamples), tail)
        assert found.placed(1.0) == verdict, (slope, found)
        assert found.low < slope < found.high, (slope, found)
        assert found.undefined == 0
