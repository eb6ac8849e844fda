"""The reward models: each declared once, with a reference and a stream of its own; the noisy
verifier's rewards against their law, and against Bernoulli rewards when it makes no errors."""

from __future__ import annotations

import math
from pathlib import Path

import numba as nb
import numpy as np
import pytest
from numba.core.errors import TypingError

import reference
from analysis.accuracy import cells_frame
from analysis.questions.effective_hardness import table as effective_hardness
from analysis.questions.reward_noise import table as reward_noise_cost
from analysis.study_tables import load
from conftest import config_text
from study.cli import run_and_write
from study.core.reward_hooks import implement, own_pair, own_stream
from study.core.streams import MAIN_C2, MAIN_C3, NOISE_C2, NOISE_C3, TIE_BREAK_C3
from study.orchestration.simulate import simulate
from study.spec import registry
from study.spec.config import parse_config
from study.spec.environment import Environment
from study.spec.grid import Simulation
from study.spec.streams import run_keys

INSTANCE_C2 = 2
"""c2 of the instance draws' counter (numpy's Philox4x64, ``study.core.streams.INSTANCE``)."""


def test_every_reward_model_has_a_reference_and_a_stream_range_of_its_own() -> None:
    taken = {(MAIN_C2, MAIN_C3), (INSTANCE_C2, 0)}
    for model in registry.reward_models():
        module = reference.reward_model(model.name)
        assert callable(module.own) and callable(module.outcome), model.name
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


def test_reward_noise_cost_pairs_each_noisy_cell_with_its_exact_verifier(tmp_path: Path) -> None:
    config = parse_config(config_text({"seeds": 300}, reward_model="noisy_verifier",
                                      false_positive=[0.0, 0.2], false_negative=[0.0, 0.1],
                                      baseline=["running_mean", "none"],
                                      budgets=[10, 100, 1000, 10000]))
    run_and_write(config, tmp_path, quiet=True)
    outcomes, _ = load(tmp_path)
    table = reward_noise_cost(outcomes, cells_frame(outcomes))
    # Three noisy verifiers per baseline, each paired with the exact verifier of its baseline.
    assert len(table) == 6
    for row in table.itertuples():
        exact = outcomes.cells[outcomes.cells["cell"] == row.exact_cell].iloc[0]
        assert exact["baseline"] == row.baseline and exact["reward_parameters"] == (0.0, 0.0)
        assert row.predicted_ratio == pytest.approx(
            1.0 / (1.0 - row.false_positive - row.false_negative) ** 2)
        assert row.ci_low <= row.ratio <= row.ci_high
    # Per unit of effective hardness: H of (0.5, 0.55, 0.6) is 1 / 0.05^2 + 1 / 0.1^2 = 500,
    # shrunk gaps make it 500 / (1 - fp - fn)^2, and the budget is divided by that alone.
    effective = effective_hardness(outcomes, cells_frame(outcomes))
    assert len(effective) == 8
    for row in effective.itertuples():
        factor = 1.0 - row.false_positive - row.false_negative
        assert row.effective_H == pytest.approx(500.0 / factor**2)
        assert row.per_effective_H * row.effective_H == pytest.approx(row.budget_to_target)
        assert row.per_effective_H_low <= row.per_effective_H <= row.per_effective_H_high
