"""The pass-rate analysis (``analysis.pass_rate``): the achievable gain against closed forms,
and the per-cell table against the runs it summarises."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analysis.cost import Support
from analysis.outcomes import Outcomes
from analysis.pass_rate import achievable, interval_columns, policy_table
from conftest import make_config
from study.model.environment import Environment
from study.orchestration.runner import run_study


@pytest.mark.parametrize("arms", [2, 3, 10])
def test_the_achievable_gain_of_drawn_values_is_the_expected_largest_draw(arms: int) -> None:
    # The largest of K uniform(low, high) draws has mean low + (high - low) K / (K + 1); beta(1,
    # 1) is uniform(0, 1); the larger of two N(m, s^2) draws has mean m + s / sqrt(pi). The
    # quadrature is good to far better than 1e-9.
    for env, best in ((Environment.drawn("uniform", arms, (0.2, 0.7)),
                       0.2 + 0.5 * arms / (arms + 1)),
                      (Environment.drawn("beta", arms, (1.0, 1.0)), arms / (arms + 1))):
        found = achievable(env)
        assert found.best == pytest.approx(best, abs=1e-9)
        assert found.start == pytest.approx(float(np.mean(env.params)) if env.draw == "uniform"
                                            else 0.5, abs=1e-12)
    two = achievable(Environment.drawn("normal", 2, (4.0, 1.5)))
    assert two.best == pytest.approx(4.0 + 1.5 / math.sqrt(math.pi), abs=1e-9)
    fixed = achievable(Environment.fixed((0.5, 0.55, 0.6)))
    assert (fixed.start, fixed.best) == (pytest.approx(0.55, abs=1e-15), 0.6)
    assert fixed.target(0.5) == pytest.approx(0.575, abs=1e-15)


def test_a_constant_has_no_interval() -> None:
    found = interval_columns("share", np.full(50, 0.25), Support((0.0, 1.0), False))
    assert found["share"] == 0.25 and found["share_interval"] == "constant"
    assert math.isnan(found["share_low"]) and math.isnan(found["share_high"])


def test_the_policy_table_summarises_the_runs_pass_rates() -> None:
    config = make_config({"seeds": 200}, algorithm=["reinforce", "uniform"], lr=[0.0, 0.5],
                         probs=[[0.2, 0.5, 0.6]], budgets=[10, 300])
    runs = run_study(config, progress=False).runs
    table = policy_table(Outcomes.from_runs(runs))
    # uniform has no policy, so no rows; lr 0 never moves: its pass rate is the mean of the
    # values in every seed (read back in single precision, within 2^-24 of it), and so has no
    # interval.
    assert set(table["algorithm"]) == {"reinforce"}
    still = table[table["lr"] == 0.0]
    np.testing.assert_allclose(still["pass_rate"], np.mean([0.2, 0.5, 0.6]), rtol=2.0**-24,
                               atol=0)
    assert (still["pass_rate_interval"] == "constant").all()
    trained = table[table["lr"] == 0.5].set_index("budget")
    for budget, group in runs[(runs["lr"] == 0.5)
                              & (runs["algorithm"] == "reinforce")].groupby("budget"):
        rates = group["pass_rate"].to_numpy()
        # The table reads float32 copies: the means agree to that rounding.
        assert trained.loc[budget, "pass_rate"] == pytest.approx(rates.mean(), abs=1e-6)
        assert trained.loc[budget, "regret"] == pytest.approx(0.6 - rates.mean(), abs=1e-6)
        assert trained.loc[budget, "pass_rate_interval"] == "t"
        assert trained.loc[budget, "pass_rate_low"] < rates.mean() < trained.loc[
            budget, "pass_rate_high"]
