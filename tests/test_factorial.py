"""A study whose cells are a fractional factorial's rows (``[design]``, ``study.model.design``):
the design the protocol study declares, its bad input, the full recipe at neutral settings
against the plain learner, and the effects' verdicts recomputed from the runs without
``analysis``."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import t as student_t
from scipy.stats import ttest_1samp
from statsmodels.stats.multitest import multipletests

from analysis.cost import Support
from analysis.prompts.factorial import model_check
from analysis.prompts.study_tables import study_tables
from study.model.config import ConfigError, config_from_dict
from study.model.grid import cells
from study.model.schema import run_columns
from study.orchestration.runner import run_study
from study.rewards import LIFTED as LIFTED_AT

REPO = Path(__file__).resolve().parents[1]
PROTOCOL = tomllib.loads((REPO / "study/configs/protocol.toml").read_text())
HAZARDS = {"staleness", "mismatch", "truncation", "noise"}


def small(data: dict, **grid: object) -> dict:
    """``data`` (a config as a dict) shrunk to a quick run: 9 prompts, 60 seeds, two budgets
    (a pass of 9 groups of 16 costs about 330 tokens)."""
    return {**data, "study": {**data["study"], "seeds": 60},
            "grid": {**data["grid"], "prompts": [9], "token_budgets": [1000, 10000], **grid},
            "analysis": {**data["analysis"], "compared_budgets": [1000, 10000]}}


def test_the_protocol_design_holds_its_named_rows_at_resolution_six() -> None:
    config = config_from_dict(PROTOCOL)
    design = config.design
    assert design.resolution == 6 and design.matrix.shape == (128, 9)
    rows = {tuple(row) for row in design.matrix}
    hazards = np.array([1 if name in HAZARDS else -1 for name in design.names])
    # The plain learner, the full recipe, the hazards alone and the remedies alone.
    for row in (-np.ones(9), np.ones(9), hazards, -hazards):
        assert tuple(row.astype(np.int8)) in rows
    grid = cells(config)
    assert [cell.design_row for cell in grid] == list(range(128))
    full = grid[int(np.flatnonzero((design.matrix == 1).all(axis=1))[0])].simulation
    assert (full.offpolicy.lag, full.offpolicy.correction) == (4, "tis+opsm+keep_mask")
    assert full.environment.verdict_parameters[0] == 0.1
    # Every main effect and two-part interaction aliased only with four parts or more.
    assert all(alias.count(":") >= 3 for said in design.aliases().values() if said
               for alias in said.split(" = "))


@pytest.mark.parametrize(("change", "field"), [
    (lambda d: d["design"].update(generators="a b c d e f g ab ac"), "design.generators"),
    (lambda d: d["design"]["factor"][0]["high"].update(lr=2.0), "design.factor[0].high.lr"),
    (lambda d: d["grid"].update(lag=[0]), "grid.lag"),
    (lambda d: d["design"]["factor"][1].update(high={"mismatch": 0.0}), "design.factor[1].high"),
    (lambda d: d["design"]["factor"][2].update(name="staleness"), "design.factor[2].name"),
    (lambda d: d["design"].update(generators="a b c"), "design.generators"),
    (lambda d: d["analysis"].update(chosen_after_run=["pairs"]), "analysis.chosen_after_run"),
    (lambda d: (d["analysis"].pop("pass_rate_target"),
                d["analysis"].update(chosen_after_run=["tokens_to_target"])),
     "analysis.chosen_after_run"),
])
def test_a_bad_design_is_refused_naming_its_field(change, field: str) -> None:
    data = tomllib.loads((REPO / "study/configs/protocol.toml").read_text())
    change(data)
    with pytest.raises(ConfigError) as error:
        config_from_dict(data)
    assert error.value.field == field, str(error.value)
    assert "\n" not in str(error.value)


NEUTRAL = {"lag": [0], "mismatch": [0.0], "top_p": [1.0], "correction": ["tis+opsm+keep_mask"],
           "kl_beta": [0.0], "false_positive": [0.0], "penalty": [0.0]}
"""The full recipe's every part at its neutral setting: no staleness, mismatch, truncation,
noise or penalty, a KL term of weight 0, and every correction on."""


def test_the_full_recipe_at_neutral_settings_is_the_plain_learner_bit_for_bit() -> None:
    # One row as a config of its own: without the design, and so without what the design's
    # analysis chose after its run.
    alone = {key: value for key, value in PROTOCOL.items() if key != "design"}
    alone["analysis"] = {key: value for key, value in alone["analysis"].items()
                         if key != "chosen_after_run"}
    recipe = small(alone, **NEUTRAL)
    plain = small(alone)
    for key in ("reward_model", "penalty_until", "verdict", "kl_estimator", "tis_cap",
                "opsm_threshold"):
        del plain["grid"][key]
    ours = run_study(config_from_dict(recipe), progress=False).runs
    theirs = run_study(config_from_dict(plain), progress=False).runs
    # Every run column of the plain learner (the recipe's also has its served pass rate).
    shared = list(run_columns(answers=True, prompts=True))
    pd.testing.assert_frame_equal(ours[shared], theirs[shared])


FACTORS = [{"name": "staleness", "low": {"lag": 0}, "high": {"lag": 2}},
           {"name": "tis", "low": {}, "high": {"correction": "tis"}},
           {"name": "opsm", "low": {}, "high": {"correction": "opsm"}},
           {"name": "noise", "low": {"false_positive": 0.0}, "high": {"false_positive": 0.2}},
           {"name": "length_penalty", "low": {"penalty": 0.0}, "high": {"penalty": 0.05}}]


def test_the_effects_verdicts_recomputed_from_the_runs() -> None:
    data = small({"study": PROTOCOL["study"], "analysis": PROTOCOL["analysis"],
                  "grid": {key: value for key, value in PROTOCOL["grid"].items()
                           if key != "kl_estimator"},
                  "design": {"generators": "a b c d abcd", "resolution": 5,
                             "factor": FACTORS}})
    config = config_from_dict(data)
    runs = run_study(config, progress=False).runs
    tables = study_tables(runs, "mine", config.analysis,
                          {env.text: env for env in config.environments}, Path("."),
                          config.design)
    effects = tables["factorial_effects"]
    served = effects[effects["metric"] == "served_pass_rate"]
    # Enough seeds differ for a t interval everywhere (``analysis.cost.SETTLED_SEEDS``): the
    # t-test below is the analysis's test, not an approximation of its bound.
    assert (served["interval_method"] == "t").all()
    # Independently: each seed's served pass rate in each design row, the high half's mean
    # less the low half's per term, a t-test per term, Holm over the metric's 30 tests.
    per_seed = (runs.groupby(["design_row", "seed", "budget"])
                [["served_pass_rate_sum", "band_prompts"]].sum())
    value = (per_seed["served_pass_rate_sum"] / per_seed["band_prompts"]).unstack("design_row")
    x = config.design.matrix.astype(float)
    names = config.design.names
    columns = [(n, x[:, i]) for i, n in enumerate(names)] + [
        (f"{names[i]}:{names[j]}", x[:, i] * x[:, j])
        for i in range(len(names)) for j in range(i + 1, len(names))]
    rows = []
    for budget in (1000, 10000):
        wide = value.xs(budget, level="budget").to_numpy()
        for term, column in columns:
            effect = wide[:, column > 0].mean(axis=1) - wide[:, column < 0].mean(axis=1)
            # The 90% t interval of the two one-sided tests of equivalence.
            half = student_t.ppf(0.95, len(effect) - 1) * effect.std(ddof=1) / np.sqrt(
                len(effect))
            rows.append((budget, term, effect.mean(), ttest_1samp(effect, 0.0).pvalue,
                         abs(effect.mean()) + half < 0.01))
    mine = pd.DataFrame(rows, columns=["budget", "term", "difference", "p", "within"])
    mine["holm"] = multipletests(mine["p"], method="holm")[1]
    mine["finding"] = np.where(mine["holm"] < 0.05,
                               np.where(mine["difference"] > 0, "higher", "lower"),
                               np.where(mine["within"], "equivalent", "unresolved"))
    theirs = served.set_index(["budget", "term"]).loc[list(zip(mine["budget"], mine["term"],
                                                               strict=True))]
    assert len(served) == len(mine) == 2 * (5 + 10)
    np.testing.assert_allclose(theirs["difference"], mine["difference"], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(theirs["p_value_holm"], mine["holm"], rtol=1e-9, atol=1e-300)
    assert list(theirs["finding"].astype(str)) == list(mine["finding"])
    assert set(mine["finding"]) - {"unresolved"}, "a test that shows nothing checks little"


def test_the_model_check_is_the_least_squares_fit_of_mains_and_pairs() -> None:
    # Independently: numpy's least squares of every row's mean over seeds on the intercept, the
    # main effects' and the two-part interactions' columns; its prediction at the named rows is
    # the model check's (a linear fit commutes with the mean over seeds).
    design = config_from_dict(PROTOCOL).design
    rng = np.random.default_rng(7)
    seeds = rng.normal(0.5, 0.1, size=(40, len(design.matrix)))
    found = model_check({100: seeds}, design, "served_pass_rate", [100],
                        Support((-1.0, 1.0), discrete=False))
    x = design.matrix.astype(float)
    k = x.shape[1]
    columns = [np.ones(len(x)), *x.T, *(x[:, i] * x[:, j] for i in range(k)
                                        for j in range(i + 1, k))]
    model = np.column_stack(columns)
    fit, *_ = np.linalg.lstsq(model, seeds.mean(axis=0), rcond=None)
    named = design.named_rows()
    assert list(found["row"]) == list(named)
    np.testing.assert_allclose(found["predicted"], (model @ fit)[list(named.values())],
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(found["miss"], found["observed"] - found["predicted"],
                               rtol=0, atol=1e-12)


AT_SCALE = tomllib.loads((REPO / "study/configs/protocol_environments.toml").read_text())


def test_a_full_factorial_of_the_two_roles_is_the_four_named_rows_and_misses_nothing() -> None:
    # The at-scale study's design: every combination of its two parts, its four rows the four
    # the roles name, no word in its defining relation; its model of the two mains and their
    # interaction holds a term per row but the mean, so it fits every row exactly and the model
    # check, which reads what that model leaves out, has no row to show.
    design = config_from_dict(AT_SCALE).design
    assert len(design.matrix) == 4 and design.defining_relation() == []
    assert design.resolution == len(design.factors) + 1
    assert sorted(design.named_rows().values()) == [0, 1, 2, 3]
    seeds = np.random.default_rng(3).normal(0.5, 0.1, size=(40, 4))
    assert model_check({100: seeds}, design, "served_pass_rate", [100],
                       Support((-1.0, 1.0), discrete=False)).empty


def test_the_named_rows_per_difficulty_recomputed_from_the_runs() -> None:
    # The at-scale study shrunk to 300 prompts from 30 environments of 2 or 3 arms: each
    # pair's difference per tenth of environment mean pass probability is the mean over seeds
    # of the two rows' per-seed shares of the bin's prompts, its interval Student's t at
    # 1 - 0.05 / m, m the differences of the metric at the budget that vary (Bonferroni).
    law = {**AT_SCALE["grid"]["probs"][0], "environments": 30, "fewest_arms": 2}
    data = small(AT_SCALE, prompts=[300], probs=[law], token_budgets=[4000, 40000])
    data["study"]["seeds"] = 40
    data["analysis"]["compared_budgets"] = [40000]
    config = config_from_dict(data)
    env = config.environments[0]
    runs = run_study(config, progress=False).runs
    tables = study_tables(runs, "mine", config.analysis,
                          {each.text: each for each in config.environments}, Path("."),
                          config.design)
    table = tables["factorial_difficulty"]
    assert set(table["metric"]) == {"served_pass_rate", "accuracy", "stuck"}
    named = config.design.named_rows()
    cell = {row: int(runs.loc[runs["design_row"] == row, "cell"].iat[0])
            for row in named.values()}
    drawn = env.population
    bins = np.minimum((drawn.pass_probability * 10).astype(int), 9)
    last = runs[runs["budget"] == 40000]
    checked = 0
    for metric, column in (("served_pass_rate", "served_pass_rate_sum"),
                           ("stuck", "stuck_prompts")):
        shown = table[(table["metric"] == metric) & (table["budget"] == 40000)]
        assert (shown["intervals"] == (shown["difference_interval"] != "constant").sum()).all()
        for where in np.unique(bins):
            members = np.flatnonzero(bins == where)
            per_seed = {}
            for name in ("full_recipe", "plain"):
                rows = last[(last["cell"] == cell[named[name]])
                            & last["environment_index"].isin(members)]
                sums = rows.groupby("seed")[[column, "band_prompts"]].sum()
                per_seed[name] = (sums[column] / sums["band_prompts"]).to_numpy()
            row = shown[(shown["a"] == "full_recipe") & (shown["b"] == "plain")
                        & np.isclose(shown["pass_probability_low"], where / 10)].iloc[0]
            assert row["bin_prompts"] == drawn.holdings[members].sum()
            differences = per_seed["full_recipe"] - per_seed["plain"]
            assert row["difference"] == pytest.approx(differences.mean(), abs=1e-12)
            if row["difference_interval"] == "t":
                level = 1 - 0.05 / row["intervals"]
                half = (student_t.ppf(1 - (1 - level) / 2, 39) * differences.std(ddof=1)
                        / np.sqrt(40))
                # The package takes the spread rounded to 9 decimals (analysis.cost).
                assert row["difference_high"] == pytest.approx(differences.mean() + half,
                                                               abs=1e-8)
                checked += 1
    assert checked


LIFTED = tomllib.loads((REPO / "study/configs/protocol_lifted.toml").read_text())


def test_the_lifted_penalty_against_kept_recomputed_from_the_runs() -> None:
    # A penalty of 0.2 (the config's is 0.04) moves the kept cell's policy to short answers
    # within these small budgets, so that the two cells part after the switch.
    data = small(LIFTED, penalty=[0.2], token_budgets=[1000, 8000, 9000, 10000])
    config = config_from_dict(data)
    runs = run_study(config, progress=False).runs
    tables = study_tables(runs, "mine", config.analysis,
                          {env.text: env for env in config.environments}, Path("."))
    lifted = tables["prompts_lifted"]
    # Independently: each seed's metric in each cell, lifted minus kept, at the budgets after
    # 80% of 10,000 tokens (before it the two cells are one run), a t-test per budget, Holm
    # over each metric's two.
    until = {cell.index: cell.simulation.environment.reward_columns()[LIFTED_AT.name]
             for cell in cells(config)}
    (a,), (b,) = ([c for c, u in until.items() if u == share] for share in (0.8, 1.0))
    per_seed = runs.groupby(["cell", "budget", "seed"])[
        ["served_pass_rate_sum", "expected_length_sum", "band_prompts"]].sum()
    assert (per_seed.xs(1000, level="budget").loc[a].to_numpy()
            == per_seed.xs(1000, level="budget").loc[b].to_numpy()).all()
    for metric in ("served_pass_rate", "expected_length"):
        value = per_seed[f"{metric}_sum"] / per_seed["band_prompts"]
        rows = []
        for budget in (9000, 10000):
            difference = (value.loc[a].xs(budget, level="budget").to_numpy()
                          - value.loc[b].xs(budget, level="budget").to_numpy())
            # Two one-sided t-tests of the difference within +-0.01, by hand: the larger of
            # the two one-sided p-values.
            error = difference.std(ddof=1) / np.sqrt(len(difference))
            tost = max(student_t.sf((difference.mean() + 0.01) / error, len(difference) - 1),
                       student_t.cdf((difference.mean() - 0.01) / error, len(difference) - 1))
            rows.append((budget, difference.mean(), ttest_1samp(difference, 0.0).pvalue, tost))
        mine = pd.DataFrame(rows, columns=["budget", "difference", "p", "tost"])
        mine["holm"] = multipletests(mine["p"], method="holm")[1]
        theirs = lifted[lifted["metric"] == metric].sort_values("budget")
        assert list(theirs["budget"]) == [9000, 10000]
        assert (theirs["cell_a"] == a).all() and (theirs["cell_b"] == b).all()
        assert (theirs["interval_method"] == "t").all()
        np.testing.assert_allclose(theirs["difference"], mine["difference"], rtol=1e-12,
                                   atol=1e-15)
        np.testing.assert_allclose(theirs["p_value_holm"], mine["holm"], rtol=1e-9, atol=1e-300)
        if metric == "served_pass_rate":
            np.testing.assert_allclose(theirs["p_equivalence_holm"],
                                       multipletests(mine["tost"], method="holm")[1], rtol=1e-9,
                                       atol=1e-300)
        else:
            assert theirs["p_equivalence_holm"].isna().all()
    length = lifted[lifted["metric"] == "expected_length"]
    assert (length["finding"] == "higher").all(), "lifting a penalty lengthens the answers"
