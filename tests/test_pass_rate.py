"""The pass-rate analysis (``analysis.pass_rate``): the achievable gain against closed forms,
and the per-cell table against the runs it summarises."""

from __future__ import annotations

import math
from pathlib import Path

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


def test_the_regret_table_is_the_runs_regret_tested_against_the_untrained_policy() -> None:
    # An independent recomputation from the runs: regret = best value (0.6) - pass rate per
    # seed, as the runs table stores both, scipy's
    # one-sample t-test against the never-training policy's 0.6 - mean(0.2, 0.5, 0.6), Holm by
    # statsmodels, Wilson intervals by statsmodels (not the scipy call the module makes).
    # Computed from the same single-precision pass rates as the analysis, means and p-values
    # agree to float rounding.
    import pandas as pd
    from scipy.stats import ttest_1samp
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.proportion import proportion_confint

    from analysis.accuracy import cells_frame
    from analysis.questions import Inputs, pass_rate_regret
    from study.model.config import AnalysisConfig

    config = make_config({"seeds": 200}, algorithm=["reinforce", "uniform"], lr=[0.0, 0.5],
                         probs=[[0.2, 0.5, 0.6]], budgets=[10, 100, 300])
    runs = run_study(config, progress=False).runs
    outcomes = Outcomes.from_runs(runs)
    cells = cells_frame(outcomes)
    trained = int(cells[(cells["algorithm"] == "reinforce") & (cells["lr"] == 0.5)]["cell"].iat[0])
    settings = pd.Series({"study": "t", "headline_cell": trained, "compared_budgets": [10, 300]})
    def regret_table(settings: pd.Series) -> pd.DataFrame:
        return pass_rate_regret.table(Inputs(
            study="t", analysis=AnalysisConfig(), settings_frame=settings.to_frame().T,
            cells=cells, run_dir=Path("."), outcomes=outcomes))

    table = regret_table(settings).set_index("budget")
    assert list(table.index) == [10, 300]
    untrained = 0.6 - np.mean([0.2, 0.5, 0.6])
    mine = runs[runs["cell"] == trained]
    p_values = []
    for budget in (10, 300):
        seeds = mine[mine["budget"] == budget].sort_values("seed")
        best = seeds["best_value"].to_numpy(dtype=np.float64)
        exact = best - seeds["pass_rate"].to_numpy(dtype=np.float64)
        # The analysis holds pass rates in single precision (analysis.outcomes): each within
        # 2^-25 of the runs' value in [0.5, 1), 2^-26 below, so the mean regret within 2^-25.
        regret = best - seeds["pass_rate"].to_numpy(dtype=np.float32).astype(np.float64)
        row = table.loc[budget]
        assert row["regret"] == pytest.approx(exact.mean(), abs=2.0**-25)
        assert row["regret"] == pytest.approx(regret.mean(), rel=1e-12)
        assert row["untrained_regret"] == pytest.approx(untrained, abs=1e-15)
        low, high = proportion_confint(int(seeds["correct"].sum()), len(seeds), 0.05, "wilson")
        assert (row["accuracy_low"], row["accuracy_high"]) == (pytest.approx(low, abs=1e-12),
                                                               pytest.approx(high, abs=1e-12))
        assert row["regret_interval"] == "t"
        p_values.append(ttest_1samp(regret, untrained, alternative="less").pvalue)
        assert row["p_value"] == pytest.approx(p_values[-1], rel=1e-9, abs=1e-300)
    holm = multipletests(p_values, method="holm")[1]
    np.testing.assert_allclose(table["p_value_holm"], holm, rtol=1e-9, atol=1e-300)
    assert (table["family"] == "t/pass_rate_regret").all()
    # Training at lr 0.5 for 300 pulls on gaps of 0.1 lowers the regret: the test sees it.
    assert table.loc[300, "p_value_holm"] < 1e-6
    # lr 0 never moves: its regret is the untrained one on every seed, a constant without an
    # interval or a test (no hypothesis enters the family).
    still = int(cells[(cells["algorithm"] == "reinforce") & (cells["lr"] == 0.0)]["cell"].iat[0])
    frozen = settings.copy()
    frozen["headline_cell"] = still
    flat = regret_table(frozen)
    assert (flat["regret_interval"] == "constant").all() and flat["p_value"].isna().all()
    np.testing.assert_allclose(flat["regret"], untrained, rtol=2.0**-22)
    # A learner without a policy gets no table.
    uniform = int(cells[cells["algorithm"] == "uniform"]["cell"].iat[0])
    none = settings.copy()
    none["headline_cell"] = uniform
    assert regret_table(none).empty
