"""The group study's analysis against cases with known answers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis.groups import best_lr_table, zero_signal_table, zscore_scale
from analysis.outcomes import Outcomes
from analysis.paired import verdict
from study.spec.config import DEFAULT_EQUIVALENCE_MARGIN


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
            "draw_parameters": [()] * (2 * seeds),
            "reward_parameters": [()] * (2 * seeds), "cost": 0.0,
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
    assert verdict(pd.Series(row), DEFAULT_EQUIVALENCE_MARGIN) == expected


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
