"""The many-prompts analysis (``analysis.prompts``) against known answers, theory and
independent references (scipy, statsmodels), on runs tables made by hand and by the kernel."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import nct, ttest_rel
from scipy.stats import t as student_t
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.weightstats import DescrStatsW, ttost_paired
from test_prompts import run_kernel

from analysis.pass_rate import achievable
from analysis.prompts.budget_to_target import budget_to_target
from analysis.prompts.compute_curve import compute_curve, curve_starts, scaling_curve
from analysis.prompts.means import band_spending
from analysis.prompts.outcomes import CELL_COLUMNS, repeats_another, seed_outcomes
from analysis.prompts.seeds import seeds_needed
from analysis.prompts.versus_uniform import verdict_table, versus_uniform
from analysis.roles import Censoring, CurveFit, Finding, Placement
from study.core import prompt_rules
from study.core.prompts import difficulty_bands
from study.core.streams import run_keys
from study.model import registry
from study.model.environment import Environment
from study.model.schema import PROMPT_FIELD_COLUMNS

MARGIN = 0.02
KERNEL_COLUMNS = dict(zip(prompt_rules.FIELDS, PROMPT_FIELD_COLUMNS, strict=True))
"""The runs table's name of each field the kernel records."""


def describe(cell: int, allocation: str, prompts: int, environment: str = "beta(2,2)x3",
             baseline: str = "group_mean", group_size: int = 1,
             lr: float = 0.5) -> dict[str, object]:
    """A cell's ``CELL_COLUMNS``. A hand-made cell's group size is 1 unless said: its rule is a
    label, and with P rollouts a pass every budget of these tests is past the first pass, which
    ``versus_uniform`` compares (the runs of a rule whose first pass is uniform allocation's are
    uniform allocation's up to it)."""
    return {"cell": cell, "allocation": allocation, "normalization": "per_group",
            "baseline": baseline, "group_size": group_size, "lr": lr,
            "environment": environment, "prompts": prompts}


def tidy(description: dict[str, object], fields: dict[str, np.ndarray],
         budgets: list[int]) -> pd.DataFrame:
    """One cell's rows of the runs table from its fields, (seeds, budgets, bands) each."""
    seeds, checkpoints, bands = fields["prompts"].shape
    seed, checkpoint, band = np.indices((seeds, checkpoints, bands)).reshape(3, -1)
    frame = pd.DataFrame({"seed": seed, "budget": np.asarray(budgets)[checkpoint], "band": band,
                          **{KERNEL_COLUMNS[name]: fields[name].ravel()
                             for name in prompt_rules.FIELDS}})
    return frame.assign(**description)[[*CELL_COLUMNS, *frame.columns]]


def kernel_runs(rules: tuple[str, ...], seeds: int, prompts: int, budgets: list[int],
                lr: float = 0.5, group: int = 4, values: np.ndarray | None = None,
                root_seed: int = 3) -> pd.DataFrame:
    """A runs table from the kernel, one cell per rule on the same seeds, prompts and draws
    (values from beta(2, 2) per seed and prompt unless given, three arms)."""
    if values is None:
        values = np.random.default_rng(root_seed).beta(2.0, 2.0, size=(seeds, prompts, 3))
    keys = run_keys(root_seed, np.arange(seeds))
    return pd.concat([tidy(describe(cell, rule, prompts, lr=lr, group_size=group),
                           run_kernel(keys, values, lr, "group_mean", group, rule, budgets),
                           budgets)
                      for cell, rule in enumerate(rules)], ignore_index=True)


def counted_runs(cells: list[tuple[dict[str, object], np.ndarray]],
                 budgets: list[int]) -> pd.DataFrame:
    """A runs table made by hand: per cell its description and its seeds' counts of prompts
    right, (seeds, budgets), split over four bands of P / 4 prompts (the first band filled
    first); every prompt finite, every band spending a quarter of the budget."""
    frames = []
    for description, correct in cells:
        quarter = int(description["prompts"]) // prompt_rules.BANDS
        correct = np.asarray(correct)
        assert ((correct >= 0) & (correct <= prompt_rules.BANDS * quarter)).all()
        filled = np.clip(correct[..., None] - quarter * np.arange(prompt_rules.BANDS), 0, quarter)
        spent = np.broadcast_to((np.asarray(budgets) // prompt_rules.BANDS)[None, :, None],
                                filled.shape)
        fields = {"prompts": np.full_like(filled, quarter), "best": filled,
                  "greedy_value": filled.astype(float), "pass_rate": filled.astype(float),
                  "best_value": np.full(filled.shape, float(quarter)),
                  "rollouts": spent, "groups": spent // 4, "zero_signal": np.zeros_like(filled),
                  "non_finite": np.zeros_like(filled)}
        frames.append(tidy(description, fields, budgets))
    return pd.concat(frames, ignore_index=True)


# versus_uniform -------------------------------------------------------------------------------


def test_a_rule_identical_to_uniform_differs_by_exactly_zero_and_is_equivalent() -> None:
    # Every seed's difference is 0, so the interval is the bound: with 0 of n seeds off 0 the
    # one-sided Clopper-Pearson limit at 1 - 0.1 / 4 is 1 - 0.025^(1/n), times the largest
    # difference, 1: below the margin 0.02 once n > log(0.025) / log(0.98) = 183 seeds.
    prompts, seeds = 16, 200
    correct = np.random.default_rng(1).binomial(prompts, 0.6, size=(seeds, 2))
    runs = counted_runs([(describe(0, "uniform", prompts), correct),
                         (describe(1, "variance", prompts), correct)], [64, 128])
    table = versus_uniform(runs, MARGIN)
    assert (table["difference"] == 0).all()
    assert (table["p_value"] == 1).all() and (table["p_value_holm"] == 1).all()
    assert (table["interval_method"] == "bound").all()
    assert table["within_margin"].all()
    assert (table["finding"] == Finding.EQUIVALENT).all()
    np.testing.assert_allclose(table["rule_mean"], correct.mean(axis=0) / prompts)


def test_with_many_differing_seeds_it_is_the_paired_t_test_and_tost() -> None:
    # Every seed differs by an amount drawn from a wide spread, so at least SETTLED_SEEDS seeds
    # differ from the most common difference: the t interval and the paired t-test, checked
    # against statsmodels (interval, TOST) and scipy (ttest_rel), which compute them their own
    # way; equal to rounding.
    prompts, seeds = 64, 80
    rng = np.random.default_rng(2)
    uniform = rng.binomial(prompts, 0.5, size=(seeds, 1))
    rule = uniform + rng.integers(-4, 6, size=(seeds, 1))
    runs = counted_runs([(describe(0, "uniform", prompts), uniform),
                         (describe(1, "oracle_variance", prompts), rule)], [256])
    row = versus_uniform(runs, MARGIN).iloc[0]
    a, b = rule[:, 0] / prompts, uniform[:, 0] / prompts
    assert row["interval_method"] == "t"
    low, high = DescrStatsW(a - b).tconfint_mean(alpha=0.05)
    assert (row["difference_low"], row["difference_high"]) == pytest.approx((low, high), abs=1e-12)
    assert row["p_value"] == pytest.approx(ttest_rel(a, b).pvalue, rel=1e-9)
    tost_p = ttost_paired(a, b, -MARGIN, MARGIN)[0]
    assert row["within_margin"] == (tost_p < 0.05)


def test_cells_that_are_one_simulation_are_one_hypothesis() -> None:
    # At lag 0, without mismatch or truncation, the sampler is the policy and TIS changes
    # nothing: each rule's tis cell repeats its none cell's runs bit for bit. The repeats are
    # left out of the comparisons (the family holds each simulation once); a rule whose runs
    # are uniform allocation's is no repeat (the same-rule cells only are).
    prompts, seeds = 16, 60
    rng = np.random.default_rng(4)
    uniform = rng.binomial(prompts, 0.5, size=(seeds, 2))
    variance = np.clip(uniform + rng.integers(-2, 3, size=uniform.shape), 0, prompts)
    cells = [("uniform", "none", uniform), ("uniform", "tis", uniform),
             ("variance", "none", variance), ("variance", "tis", variance),
             ("oracle_variance", "none", uniform)]
    runs = counted_runs([(describe(c, rule, prompts), correct)
                         for c, (rule, _, correct) in enumerate(cells)], [64, 128])
    runs = runs.assign(lag=0, mismatch=0.0, top_p=1.0, kl_beta=0.0, kl_estimator="k3",
                       correction=runs["cell"].map(dict(enumerate(c for _, c, _ in cells))))
    assert repeats_another(runs).tolist() == [False, True, False, True, False]
    table = versus_uniform(runs, MARGIN)
    assert sorted(set(zip(table["allocation"], table["correction"], strict=True))) == [
        ("oracle_variance", "none"), ("variance", "none")]
    assert len(table) == 4
    np.testing.assert_allclose(table["p_value_holm"],
                               multipletests(table["p_value"], method="holm")[1])


def test_holm_runs_over_the_whole_table_as_one_family() -> None:
    # 200 seeds: with none of them below the common difference 1/P, the bound's lower limit is
    # 1/P - (1/P + 1) (1 - 0.0125^(1/200)) = 0.039 > 0 for P = 16 (60 seeds would leave it < 0).
    prompts, seeds = 16, 200
    rng = np.random.default_rng(3)
    uniform = rng.binomial(prompts - 1, 0.5, size=(seeds, 2))
    runs = counted_runs([(describe(0, "uniform", prompts), uniform),
                         (describe(1, "variance", prompts), uniform + 1),
                         (describe(2, "skip_zero_signal", prompts),
                          uniform + rng.integers(-1, 2, size=uniform.shape))], [64, 128])
    table = versus_uniform(runs, MARGIN, family="t/prompts_vs_uniform")
    assert len(table) == 4 and (table["family"] == "t/prompts_vs_uniform").all()
    np.testing.assert_allclose(table["p_value_holm"],
                               multipletests(table["p_value"], method="holm")[1])
    # One more prompt right on every seed: shown higher, by the bound (no seed differs from 1/P)
    shifted = table[table["allocation"] == "variance"]
    assert (shifted["difference"] == 1 / prompts).all()
    assert (shifted["finding"] == Finding.HIGHER).all()
    # The bound's p-value inverts its interval: below 0.05 exactly where the 95% interval
    # excludes 0.
    excludes = (table["difference_low"] > 0) | (table["difference_high"] < 0)
    assert ((table["p_value"] < 0.05) == excludes).all()


def test_cells_paired_by_seed_must_hold_the_same_seeds() -> None:
    correct = np.full((6, 1), 8)
    runs = counted_runs([(describe(0, "uniform", 16), correct),
                         (describe(1, "variance", 16), correct)], [64])
    with pytest.raises(ValueError, match="same seeds"):
        versus_uniform(runs[~((runs["cell"] == 1) & (runs["seed"] == 5))], MARGIN)


@pytest.mark.parametrize(("steps", "weights", "method"), [
    # A difference of -2..3 prompts, each as likely: mean 0.5 / P, and nearly every seed differs.
    (np.arange(-2, 4), np.full(6, 1 / 6), "t"),
    # 0 prompts with probability 0.9: about 6 of 60 seeds differ, so the interval is the bound.
    (np.array([-1, 0, 1]), np.array([0.04, 0.9, 0.06]), "bound"),
])
def test_the_paired_interval_covers_the_true_difference(steps: np.ndarray, weights: np.ndarray,
                                                        method: str) -> None:
    # 400 replicates (one environment each, so one table holds them all) of 60 seeds; the
    # intervals are independent, so their coverage is a binomial count: a valid 95% interval
    # covers at least 0.95 - 3 * sqrt(0.95 * 0.05 / 400) = 0.917 of them, failing a correct one
    # with probability about 0.2%.
    prompts, seeds, replicates = 64, 60, 400
    rng = np.random.default_rng(4)
    truth = float(steps @ weights) / prompts
    cells = []
    for r in range(replicates):
        uniform = rng.binomial(prompts, 0.5, size=(seeds, 1))
        shift = rng.choice(steps, size=(seeds, 1), p=weights)
        environment = f"replicate {r}"
        cells += [(describe(2 * r, "uniform", prompts, environment), uniform),
                  (describe(2 * r + 1, "variance", prompts, environment), uniform + shift)]
    table = versus_uniform(counted_runs(cells, [256]), MARGIN)
    assert (table["interval_method"] == method).mean() > 0.9
    covered = (table["difference_low"] <= truth) & (truth <= table["difference_high"])
    assert covered.mean() >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / replicates)


@pytest.mark.slow
def test_on_the_pass_rate_it_is_the_paired_t_test_of_the_seeds_pass_rates() -> None:
    # The pass rate is continuous: with 60 seeds every paired difference differs from the
    # others, so the comparison is scipy's paired t-test of the seeds' mean pass rates (the
    # kernel's pass_rate_sum over band_prompts), to rounding.
    budgets = [256, 1024]
    runs = kernel_runs(("uniform", "variance"), seeds=60, prompts=16, budgets=budgets)
    table = versus_uniform(runs, 0.01, family="t/pass", metric="pass_rate")
    totals = runs.groupby(["cell", "seed", "budget"])[["pass_rate_sum", "band_prompts"]].sum()
    rates = (totals["pass_rate_sum"] / totals["band_prompts"]).unstack("budget")
    assert len(table) == len(budgets) and (table["metric"] == "pass_rate").all()
    for row in table.itertuples():
        a, b = rates.loc[1][row.budget].to_numpy(), rates.loc[0][row.budget].to_numpy()
        assert row.interval_method == "t"
        assert row.difference == pytest.approx((a - b).mean(), abs=1e-15)
        assert row.p_value == pytest.approx(ttest_rel(a, b).pvalue, rel=1e-9)
    verdicts = verdict_table(table, "group_mean", 4)
    assert len(verdicts) == 1 and verdicts["comparisons"].iat[0] == len(table)
    assert verdicts[[f.value for f in Finding]].sum(axis=1).iat[0] == len(table)
    largest = table[table["budget"] == max(budgets)].iloc[0]
    assert verdicts["finding"].iat[0] == largest["finding"]
    assert verdicts["difference"].iat[0] == largest["difference"]


def test_the_verdict_table_sets_each_metrics_finding_beside_the_others() -> None:
    budgets = [256, 1024]
    runs = kernel_runs(("uniform", "variance", "skip_zero_signal"), seeds=40, prompts=16,
                       budgets=budgets)
    versus = pd.concat([versus_uniform(runs, 0.02, metric="accuracy"),
                        versus_uniform(runs, 0.01, family="t/pass", metric="pass_rate")])
    verdicts = verdict_table(versus, "group_mean", 4).set_index(["allocation", "metric"])
    for rule in ("variance", "skip_zero_signal"):
        accuracy, passing = verdicts.loc[(rule, "accuracy")], verdicts.loc[(rule, "pass_rate")]
        assert accuracy["other_metric_finding"] == passing["finding"]
        assert passing["other_metric_finding"] == accuracy["finding"]
        assert accuracy["metrics_agree"] == (accuracy["finding"] == passing["finding"])


def test_a_pass_rate_target_is_a_share_of_the_achievable_gain() -> None:
    # On beta(2, 2) with three arms the untrained pass rate is 1/2 and the best 0.6929: the
    # targets are the shares of the distance between them, whatever the runs.
    runs = kernel_runs(("uniform",), seeds=20, prompts=8, budgets=[64, 256])
    gains = {"beta(2,2)x3": achievable(Environment.drawn("beta", 3, (2.0, 2.0)))}
    table = budget_to_target(runs, (0.5, 0.9), resamples=50, metric="pass_rate", gains=gains)
    gain = gains["beta(2,2)x3"]
    np.testing.assert_allclose(table["target"], [gain.target(0.5), gain.target(0.9)])
    assert table["fraction"].tolist() == [0.5, 0.9] and (table["metric"] == "pass_rate").all()


def test_on_kernel_runs_each_rule_meets_uniform_at_every_budget() -> None:
    budgets = [64, 256, 1024]
    runs = kernel_runs(registry.allocation_names(), seeds=12, prompts=16, budgets=budgets)
    table = versus_uniform(runs, MARGIN)
    assert sorted(set(table["allocation"])) == sorted(
        set(registry.allocation_names()) - {"uniform"})
    # A rule whose first pass (16 prompts x 4) is uniform allocation's is compared past it only.
    past = [b for b in budgets if b > 16 * 4]
    assert len(table) == sum(len(past) if rule.uniform_first_pass else len(budgets)
                             for rule in registry.allocations() if rule.name != "uniform")
    assert (table["seeds"] == 12).all()
    means = seed_outcomes(runs).groupby(["cell", "budget"])["accuracy"].mean()
    for row in table.itertuples():
        assert row.rule_mean == pytest.approx(means[(row.cell, row.budget)])
        assert row.uniform_mean == pytest.approx(means[(row.uniform_cell, row.budget)])
        assert row.difference == pytest.approx(row.rule_mean - row.uniform_mean)
        assert row.difference_low <= row.difference <= row.difference_high
        assert row.p_value <= row.p_value_holm <= 1


# budget_to_target -----------------------------------------------------------------------------


def test_budget_to_target_on_a_hand_made_curve_is_the_exact_crossing() -> None:
    # Every seed the same, so the bootstrap's resamples are all the sample itself: intervals of
    # zero width at the point estimates. Accuracies in sixteenths and 8 seeds keep every mean
    # exact in binary, so no crossing sits a rounding error off a budget.
    prompts, seeds, budgets = 16, 8, [100, 200, 400, 800]
    curves = {"uniform": [8, 11, 13, 15],  # 0.5, 0.6875, 0.8125, 0.9375
              "variance": [13, 15, 16, 16],  # past 0.75 already at the first budget
              "skip_zero_signal": [8, 9, 11, 13]}  # never 0.875
    runs = counted_runs([(describe(cell, rule, prompts), np.tile(curve, (seeds, 1)))
                         for cell, (rule, curve) in enumerate(curves.items())], budgets)
    table = budget_to_target(runs, (0.75, 0.875), resamples=200).set_index(
        ["allocation", "target"])
    # Every target here lies half way between two budgets' accuracies: at their geometric mean.
    uniform_low, uniform_high = 200 * math.sqrt(2), 400 * math.sqrt(2)
    assert table.loc[("uniform", 0.75), "budget_to_target"] == pytest.approx(uniform_low)
    assert table.loc[("uniform", 0.875), "budget_to_target"] == pytest.approx(uniform_high)
    assert pd.isna(table.loc[("uniform", 0.75), "ratio_to_uniform"])
    variance = table.loc[("variance", 0.75)]
    assert variance["at_first_checkpoint"] and variance["budget_to_target"] == 100
    assert variance["ratio_to_uniform"] == pytest.approx(100 / uniform_low)
    assert (variance["ratio_low"], variance["ratio_high"]) == pytest.approx(
        (100 / uniform_low,) * 2)
    assert variance["interval_against_half"] == Placement.BELOW
    assert variance["censoring"] == Censoring.NONE
    assert table.loc[("variance", 0.875), "ratio_to_uniform"] == pytest.approx(0.25)
    # Skip needs twice uniform's budget for 0.75 and never reaches 0.875: censored, its ratio
    # only bounded below, by 800 over uniform's budget, and its interval open above.
    assert table.loc[("skip_zero_signal", 0.75), "ratio_to_uniform"] == pytest.approx(2.0)
    assert table.loc[("skip_zero_signal", 0.75), "interval_against_half"] == Placement.ABOVE
    censored = table.loc[("skip_zero_signal", 0.875)]
    assert censored["censoring"] == Censoring.RULE and not censored["reached"]
    assert pd.isna(censored["ratio_to_uniform"])
    assert censored["ratio_bound"] == pytest.approx(800 / uniform_high)
    assert censored["ratio_high"] == math.inf


def test_budget_to_target_on_kernel_runs_pairs_the_resamples() -> None:
    # Uniform against itself under another name: the same seeds in the same resamples give a
    # ratio of exactly 1 in every resample, which only pairing gives.
    budgets = [64, 128, 256, 512, 1024, 2048]
    runs = kernel_runs(("uniform", "variance"), seeds=16, prompts=16, budgets=budgets, lr=2.0)
    twin = runs[runs["cell"] == 0].assign(cell=2, allocation="oracle_variance")
    table = budget_to_target(pd.concat([runs, twin]), (0.6,), resamples=100)
    row = table[table["cell"] == 2].iloc[0]
    assert row["reached"] and row["censoring"] == Censoring.NONE
    assert row["ratio_to_uniform"] == row["ratio_low"] == row["ratio_high"] == 1.0
    assert row["interval_against_half"] == Placement.ABOVE


# band_spending --------------------------------------------------------------------------------


def test_band_spending_at_lr_zero_matches_theory() -> None:
    # Uniform allocation gives every prompt G rollouts a pass and the bands hold P / 4 prompts
    # each, so at the end of a pass every band has spent exactly a quarter. At lr 0 the policies
    # stay uniform: prompt i's groups carry no signal with probability q_i = p_i^G + (1 - p_i)^G
    # (p_i the mean of its values), independently, so the band's pooled share over seeds has
    # standard deviation sqrt(sum_i q_i (1 - q_i) per group) / groups: 4.5 of them fail a
    # correct analysis with probability 7e-6.
    prompts, seeds, group, passes = 16, 64, 4, 10
    rows = np.random.default_rng(5).uniform(0.0, 1.0, size=(prompts, 3))
    values = np.tile(rows, (seeds, 1, 1))
    budgets = [prompts * group * passes]
    runs = kernel_runs(("uniform",), seeds, prompts, budgets, lr=0.0, group=group, values=values)
    table = band_spending(runs)
    # Exactly a quarter in every seed: a constant, which gets no interval.
    assert (table["rollout_share"] == 0.25).all()
    assert (table["rollout_share_interval"] == "constant").all()
    assert table[["rollout_share_low", "rollout_share_high"]].isna().all(axis=None)
    band = difficulty_bands(values[:1])[0]
    p = rows.mean(axis=1)
    q = p**group + (1 - p) ** group
    for row in table.itertuples():
        members = q[band == row.band]
        groups = seeds * passes * len(members)
        sd = math.sqrt(seeds * passes * np.sum(members * (1 - members))) / groups
        assert abs(row.zero_signal_share - members.mean()) <= 4.5 * sd
        assert row.band_prompts == prompts // 4
    direct = runs.groupby("band")["correct_prompts"].sum() / (seeds * prompts // 4)
    np.testing.assert_allclose(table["accuracy"], direct.to_numpy())


def test_bands_whose_seeds_ran_no_group_are_left_out_of_the_zero_signal_share() -> None:
    runs = kernel_runs(("skip_zero_signal",), seeds=8, prompts=16, budgets=[8, 512])
    table = band_spending(runs)
    first = table[table["budget"] == 8]
    assert (first["zero_signal_share_seeds"] < 8).any()
    assert (table["accuracy_seeds"] == 8).all()


# compute_curve --------------------------------------------------------------------------------

TRUTH = {"asymptote": 0.9, "steepness": 1.3, "midpoint": 600.0}
BUDGETS = [50, 100, 200, 400, 800, 1600, 3200, 6400]
CHANCE = 1 / 3


def _curve_runs(counts: np.ndarray, prompts: int) -> pd.DataFrame:
    return counted_runs([(describe(0, "uniform", prompts), counts)], BUDGETS)


def test_a_curve_made_from_the_sigmoid_is_recovered() -> None:
    # Seeds in pairs at R(C) + e and R(C) - e, rounded to whole prompts of P = 4 * 2^18: the seed
    # mean is the curve to within 0.5 / P at each budget. A least-squares fit is no farther from
    # the truth than the data are (a projection onto the curve's family, with the truth in it), so
    # its values lie within sqrt(n) * 0.5 / P of the curve over the n fitted budgets.
    prompts, cut = 4 * 2**18, 1600
    truth = scaling_curve(np.array(BUDGETS), CHANCE, *TRUTH.values())
    spread = np.array([[0.05], [-0.05]] * 8)
    counts = np.round((truth[None, :] + spread) * prompts).astype(np.int64)
    fit = compute_curve(_curve_runs(counts, prompts), cut, {"beta(2,2)x3": CHANCE},
                        resamples=50)
    row = fit.parameters.iloc[0]
    fitted = np.array(BUDGETS[:6], dtype=float)
    found = scaling_curve(fitted, CHANCE, row["asymptote"], row["steepness"], row["midpoint"])
    assert np.abs(found - truth[:6]).max() <= math.sqrt(6) * 0.5 / prompts
    assert row["fit"] == CurveFit.GOOD
    assert len(fit.predictions) == 2
    assert (fit.predictions["prediction"] == Placement.INSIDE).all()
    # The same seeds 0.1 lower at the held-out budgets: a resample moves its measured mean and
    # its refitted curve together (by the mean e of its seeds' +-0.05, sd 0.0125 over 16 seeds,
    # times at most 2 for the refit's extrapolation), so the error interval stays near -0.1,
    # well clear of 0 for |e| < 0.025, i.e. in over 95% of the resamples.
    counts[:, 6:] -= int(0.1 * prompts)
    off = compute_curve(_curve_runs(counts, prompts), cut, {"beta(2,2)x3": CHANCE},
                        resamples=50).predictions
    assert (off["prediction"] == Placement.ABOVE).all()
    assert np.allclose(off["error"], -0.1, atol=1e-5)


def test_a_curve_off_the_sigmoid_at_its_first_budgets_fits_from_a_later_one() -> None:
    # The exact curve of the test above, but 0.8 at budgets 50 and 100, where it is about 0.35
    # and 0.38: no increasing curve passes within 0.17 of both 0.8 at 100 and the truth, 0.44, at
    # 200, so a fit from 50 or 100 leaves a residual RMS of at least 0.17 / sqrt(6) = 0.07, many
    # times the seed means' standard error (0.05 / sqrt(16) = 0.0125; poor past twice it). From
    # 200 on the data are the curve again, and the fit and its predictions are as above. (From
    # 50 the least-squares search may also give up: either way the fit is not good.)
    prompts, cut = 4 * 2**18, 1600
    truth = scaling_curve(np.array(BUDGETS), CHANCE, *TRUTH.values())
    truth[:2] = 0.8
    spread = np.array([[0.05], [-0.05]] * 8)
    counts = np.round((truth[None, :] + spread) * prompts).astype(np.int64)
    runs = _curve_runs(counts, prompts)
    chance = {"beta(2,2)x3": CHANCE}
    assert compute_curve(runs, cut, chance, resamples=50).parameters["fit"].iat[0] in (
        CurveFit.POOR, CurveFit.FAILED)
    starts = curve_starts(runs, cut, chance, resamples=50)
    assert starts["first_budget"].tolist() == [100, 200]
    assert starts["fitted_budgets"].tolist() == [5, 4]
    assert starts["poor_fits"].tolist() == [1, 0]
    later = starts.iloc[1]
    assert later["held_out"] == 2 and later["prediction_inside"] == 2
    assert abs(later["largest_error"]) <= 1e-5


def test_a_noisy_sigmoid_is_recovered_within_its_noise() -> None:
    # Each seed's count at each budget is binomial(P, R(C)), independent, so the seed mean's
    # standard error is at most s = 0.5 / sqrt(P * seeds). The fit's error is the noise projected
    # onto the curve family's three-dimensional tangent space: its length is at most s times
    # sqrt(chi2(3)), and chi2(3) > 30 has probability 1.4e-6, so each fitted value lies within
    # sqrt(30) s of the truth.
    prompts, seeds, cut = 256, 100, 1600
    truth = scaling_curve(np.array(BUDGETS), CHANCE, *TRUTH.values())
    counts = np.random.default_rng(6).binomial(prompts, truth, size=(seeds, len(BUDGETS)))
    fit = compute_curve(_curve_runs(counts, prompts), cut, {"beta(2,2)x3": CHANCE},
                        resamples=100)
    row = fit.parameters.iloc[0]
    assert row["fit"] == CurveFit.GOOD and row["fitted_budgets"] == 6
    found = scaling_curve(np.array(BUDGETS), CHANCE, row["asymptote"], row["steepness"],
                          row["midpoint"])
    s = 0.5 / math.sqrt(prompts * seeds)
    assert np.abs(found[:6] - truth[:6]).max() <= math.sqrt(30) * s
    for name in TRUTH:
        assert row[f"{name}_low"] <= row[name] <= row[f"{name}_high"]
    assert row["failed_resamples"] < row["resamples"]
    predicted = fit.predictions
    assert predicted["budget"].tolist() == [3200, 6400]
    assert ((predicted["predicted_low"] <= predicted["predicted"])
            & (predicted["predicted"] <= predicted["predicted_high"])).all()


def test_a_curve_that_is_no_sigmoid_fits_poorly_and_too_few_budgets_are_said() -> None:
    # Accuracy up and down between 0.4 and 0.9 at alternate budgets: no monotone curve comes
    # within 0.2 of half the budgets, hundreds of standard errors (about 0.003 here).
    prompts, seeds = 256, 100
    zigzag = np.where(np.arange(len(BUDGETS)) % 2, 0.9, 0.4)
    counts = np.random.default_rng(7).binomial(prompts, zigzag, size=(seeds, len(BUDGETS)))
    runs = _curve_runs(counts, prompts)
    poor = compute_curve(runs, 6400, {"beta(2,2)x3": CHANCE}, resamples=20).parameters
    assert poor["fit"].iat[0] == CurveFit.POOR
    few = compute_curve(runs, 200, {"beta(2,2)x3": CHANCE}, resamples=20)
    assert few.parameters["fit"].iat[0] == CurveFit.TOO_FEW_BUDGETS
    assert few.predictions.empty


# seeds_needed ---------------------------------------------------------------------------------


def _paired_t_power(n: int, size: float, alpha: float) -> float:
    """The two-sided one-sample t-test's power from scipy's noncentral t, written out."""
    critical = student_t.isf(alpha / 2, n - 1)
    shift = size * math.sqrt(n)
    return float(nct.sf(critical, n - 1, shift) + nct.cdf(-critical, n - 1, shift))


@pytest.mark.parametrize("sd", [0.02, 0.05, 0.1])
def test_seeds_needed_is_the_smallest_count_with_the_power(sd: float) -> None:
    n = seeds_needed(sd, effect=0.02, alpha=0.05, power=0.8)
    assert _paired_t_power(n, 0.02 / sd, 0.05) >= 0.8 > _paired_t_power(n - 1, 0.02 / sd, 0.05)
