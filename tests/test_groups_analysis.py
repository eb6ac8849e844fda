"""The group study's analysis against cases with known answers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import ttest_rel

from analysis.groups import (
    best_lr_table,
    pass_rate_budget_table,
    versus_single_table,
    zero_signal_table,
    zscore_scale,
)
from analysis.outcomes import Outcomes
from analysis.paired import judge
from conftest import make_config
from figures.words import paired_verdict
from study.model.config import DEFAULT_EQUIVALENCE_MARGIN
from study.orchestration.runner import run_study


def test_zscore_scale_sums_over_the_number_of_passes() -> None:
    # G = 2: s = sqrt(1/2) when the two rewards differ (probability 2 p (1 - p)), else 0.
    scale, zero = zscore_scale(0.3, 2)
    assert zero == pytest.approx(0.3**2 + 0.7**2)
    assert scale == pytest.approx(1 / (math.sqrt(0.5) + 1e-4))
    # G = 4, p = 1/2: k = 1 or 3 give s^2 = 3/12, k = 2 gives 4/12 (weights 8/14 and 6/14).
    scale, zero = zscore_scale(0.5, 4)
    assert zero == pytest.approx(2 / 16)
    expected = (8 / (math.sqrt(3 / 12) + 1e-4) + 6 / (math.sqrt(4 / 12) + 1e-4)) / 14
    assert scale == pytest.approx(expected)


def _runs(accuracy: dict[tuple[float, int], list[list[bool]]]) -> pd.DataFrame:
    """A runs table of cells (lr, G) with outcome matrices (seeds x 2 checkpoints)."""
    frames = []
    for cell, ((lr, group), outcomes) in enumerate(accuracy.items()):
        outcomes = np.asarray(outcomes)
        seeds = outcomes.shape[0]
        frames.append(pd.DataFrame({
            "cell": cell, "algorithm": "reinforce", "nested": True, "baseline": "group_mean",
            "lr": lr, "group_size": group, "normalization": "per_group",
            "reward_model": "bernoulli", "environment": "0.5,0.6",
            "arms": 2, "draw": "fixed", "arm_values": [(0.5, 0.6)] * (2 * seeds),
            "draw_parameters": [()] * (2 * seeds), "cost": 0.0,
            "seed": np.repeat(np.arange(seeds), 2),
            "budget": np.tile([10, 20], seeds), "rollouts": np.tile([10, 20], seeds) // group
            * group, "correct": outcomes.ravel(), "finite": True, "greedy_value": 0.6,
            "zero_signal_updates": 0, "best_value": 0.6, "pass_rate": np.nan}))
    return pd.concat(frames, ignore_index=True)


def test_best_lr_is_chosen_on_the_even_seeds_with_ties_to_the_smaller_lr() -> None:
    # lr 0.1 wins on the odd seeds only, lr 0.3 and 1.0 tie on the even seeds: 0.3 is chosen.
    good_odd = [[False, False], [True, True]] * 4
    good_even = [[True, True], [False, False]] * 4
    runs = _runs({(0.1, 2): good_odd, (0.3, 2): good_even, (1.0, 2): good_even})
    best = best_lr_table(Outcomes.from_runs(runs))
    assert best["best_lr"].tolist() == [0.3]
    assert not best["at_edge"].iat[0]
    # All seeds: every lr has mean accuracy 1/2, so the whole grid is within 0.01 of the best.
    assert (best["robust_lr_low"].iat[0], best["robust_lr_high"].iat[0]) == (0.1, 1.0)


def test_a_table_that_is_not_a_full_grid_is_refused() -> None:
    runs = _runs({(0.1, 2): [[True, False]] * 4})
    with pytest.raises(ValueError, match="one row per"):
        Outcomes.from_runs(runs.iloc[:-1])


@pytest.mark.parametrize(("row", "expected"), [
    ({"p_value_holm": 0.01, "difference": 0.02, "ci90_low": 0.01, "ci90_high": 0.03},
     "A better"),
    ({"p_value_holm": 0.01, "difference": -0.02, "ci90_low": -0.03, "ci90_high": -0.01},
     "A worse"),
    ({"p_value_holm": 0.001, "difference": -0.004, "ci90_low": -0.006, "ci90_high": -0.002},
     "A worse, by less than 0.01"),
    ({"p_value_holm": 0.5, "difference": 0.001, "ci90_low": -0.004, "ci90_high": 0.006},
     "equivalent within +-0.01"),
    ({"p_value_holm": 0.5, "difference": 0.001, "ci90_low": -0.012, "ci90_high": 0.006},
     "unresolved"),
])
def test_verdicts(row: dict[str, float], expected: str) -> None:
    # judge's typed finding, worded by the report's formatter, is the verdict.
    judged = judge(pd.DataFrame([row]), DEFAULT_EQUIVALENCE_MARGIN).iloc[0]
    assert paired_verdict((judged["finding"], judged["within_margin"],
                           judged["margin"])) == expected


def test_an_all_zero_share_gets_an_interval_of_positive_width() -> None:
    # No seed has an update without signal: the t interval would be [0, 0]. Fewer than
    # SETTLED_SEEDS seeds differ from the common share 0, so the interval is the package's bound:
    # the share is at most 1, times the one-sided Clopper-Pearson upper limit of the fraction of
    # seeds above 0, here 0 of the n = 20 odd seeds at level 1 - 0.05 / 4: 1 - 0.0125^(1/n).
    outcomes = Outcomes.from_runs(_runs({(0.1, 2): [[True, True]] * 40}))
    best = best_lr_table(outcomes)
    table = zero_signal_table(outcomes, best, {"0.5,0.6": (0.55, 0.6)})
    assert table["zero_signal_share"].iat[0] == 0.0 and table["ci_low"].iat[0] == 0.0
    assert table["ci_high"].iat[0] == pytest.approx(1 - 0.0125 ** (1 / 20))
    assert table["interval"].iat[0] == "bound"


def test_on_the_pass_rate_groups_meet_single_rollouts_by_the_paired_t_test() -> None:
    # Real runs of three arms (G = 1 and 4 with the running mean, G = 4 with the group mean):
    # on the pass rate each comparison with G = 1 is scipy's paired t-test of the odd seeds'
    # pass rates (every seed's differs, so the t interval applies), and the budget to a
    # pass-rate target of the reference against itself is not compared.
    config = make_config({"seeds": 120}, baseline=["running_mean", "group_mean"],
                         group_size=[1, 4], lr=[0.5], probs=[[0.2, 0.5, 0.6]],
                         budgets=[40, 400])
    outcomes = Outcomes.from_runs(run_study(config, progress=False).runs)
    best = best_lr_table(outcomes).set_index(["baseline", "group_size"])["cell"]
    table = versus_single_table(outcomes, best_lr_table(outcomes), "t/pass", 0.01,
                                metric="pass_rate")
    _, odd = outcomes.halves()
    single = int(best[("running_mean", 1)])
    assert len(table) == 4 and (table["metric"] == "pass_rate").all()
    for row in table.itertuples():
        c = list(outcomes.budgets).index(row.budget)
        ours = int(best[(row.baseline, row.group_size)])
        a = outcomes.pass_rate[outcomes.row(ours)][odd, c].astype(float)
        b = outcomes.pass_rate[outcomes.row(single)][odd, c].astype(float)
        assert row.interval_method == "t"
        assert row.difference == pytest.approx((a - b).mean(), abs=1e-12)
        assert row.p_value == pytest.approx(ttest_rel(a, b).pvalue, rel=1e-9)
    budgets = pass_rate_budget_table(outcomes, best_lr_table(outcomes))
    assert sorted(set(budgets["fraction"])) == [0.5, 0.75, 0.9]
    assert budgets.loc[budgets["group_size"] == 1, "ratio"].isna().all()
    assert budgets.loc[budgets["group_size"] == 4, "ratio"].notna().any()
