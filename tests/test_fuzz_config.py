"""Generated configs, valid and broken: each either runs or exits 2 with one line naming the
field, never a traceback, never a partial file. They vary the study, the grid (its bandits, reward
models and their parameters, the many-prompts keys) and the [analysis] table."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bandit_study.cli import main
from conftest import toml_value
from study.core.prompt_rules import MAX_PROMPTS, NORMALIZATIONS
from study.model import registry
from study.model.config import AnalysisConfig

# Three arms in the bases and in every valid environment the strategies below offer: the kernels
# are compiled once per K (the many-prompts kernel for tens of seconds), and K = 3 is compiled
# anyway by the other tests, so the fuzzer's valid runs add no compilation of their own. (The
# `mutations` still draw arm counts from -1 to 12 and past the limit.)
BASE_STUDY = {"name": "fuzz", "root_seed": 3, "seeds": 3}
BASE_GRID = {"algorithm": ["reinforce", "uniform"], "probs": [[0.4, 0.5, 0.6]], "lr": [0.1],
             "baseline": ["running_mean"], "cost": [0.0], "budgets": [5, 40]}
OFF_GRID = {"algorithm": ["reinforce"], "probs": [[0.4, 0.5, 0.6]], "lr": [0.5],
            "baseline": ["group_mean"], "group_size": [2], "budgets": [4, 20], "lag": [1]}
"""An off-policy study (``study.model.offpolicy``): the base of the examples that vary its
keys."""
MANY_GRID = {"algorithm": ["reinforce"], "probs": [{"draw": "beta", "arms": 3, "a": 2, "b": 2}],
             "prompts": [3], "allocation": ["uniform", "variance"], "baseline": ["group_mean"],
             "group_size": [2], "normalization": ["per_group", "per_batch"], "lr": [0.5],
             "budgets": [6, 24]}
"""A many-prompts study as small as one gets: the base of the examples that vary its keys (few
single-prompt mutations make a valid one: it needs a group estimator, groups of 2 or more and
REINFORCE alone)."""

junk = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20),
                 st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
                 st.lists(st.integers(-5, 5), max_size=3), st.just([]))
numbers = st.floats(-1e4, 1e4) | st.sampled_from([0.0, 1.0, -1.0, float("nan"), float("inf")])
draw_tables = st.fixed_dictionaries(
    {"draw": st.sampled_from(["normal", "beta", "uniform", "cauchy"]),
     "arms": st.integers(-1, 12) | st.sampled_from([100, 10**6])},
    optional={key: numbers for key in ("a", "b", "mean", "sd", "low", "high")})
environments = st.lists(st.lists(numbers, max_size=4) | draw_tables, max_size=2)
mutations = st.one_of(
    st.tuples(st.just("grid"), st.sampled_from(["probs", "means"]), environments),
    st.tuples(st.just("study"), st.just("curves"), st.booleans() | junk),
    st.tuples(st.just("grid"), st.just("baseline"),
              st.lists(st.sampled_from(["none", "running_mean_inclusive", "per_arm", "x",
                                        "group_mean", "group_zscore", "leave_one_out"]),
                       max_size=3)),
    st.tuples(st.just("grid"), st.just("group_size"),
              st.lists(st.sampled_from([-1, 0, 1, 2, 3, 64, 1025, 2.5]), max_size=3) | junk),
    st.tuples(st.just("study"), st.sampled_from(sorted(BASE_STUDY)), junk),
    st.tuples(st.just("grid"), st.sampled_from(sorted(BASE_GRID)), junk),
    st.tuples(st.just("grid"), st.just("budgets"),
              # huge budgets only past the limit (10^9), so a valid example stays quick
              st.lists(st.sampled_from([-3, 0, 1, 7, 50, 10**9 + 1, 10**12]), max_size=4)),
    st.tuples(st.just("grid"), st.just("budgets"), st.just([10, 10])),
    st.tuples(st.just("grid"), st.just("lr"),
              st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=3)),
    st.tuples(st.just("grid"), st.just("probs"),
              st.lists(st.lists(st.floats(-1, 2), max_size=4), max_size=2)),
    st.tuples(st.just("study"), st.just("seeds"), st.integers(-5, 5)),
    st.tuples(st.sampled_from(["study", "grid"]), st.text("abcxyz_", min_size=1, max_size=6),
              st.integers(0, 3)),
    st.tuples(st.just("drop"), st.sampled_from(["name", "seeds", "probs", "budgets", "prompts",
                                                "allocation"]), st.none()),
)


def either(valid: list, invalid: list) -> st.SearchStrategy:
    """One of ``valid`` or of ``invalid``, even odds: an example is valid often enough to run."""
    return st.sampled_from(valid) | st.sampled_from(invalid)


def some(valid: list, invalid: list) -> st.SearchStrategy:
    """A list of distinct values of ``valid``, or any list of them and of ``invalid``."""
    return (st.lists(st.sampled_from(valid), min_size=1, unique_by=repr)
            | st.lists(st.sampled_from(valid + invalid), max_size=3))


PARAMETERS = [parameter.name for model in registry.reward_models()
              for parameter in model.parameters]
reward_models = st.one_of(
    st.tuples(st.just("grid"), st.just("reward_model"),
              either([model.name for model in registry.reward_models()], ["poisson"])),
    # Every parameter of every model under any model: another model's parameter is an error.
    st.tuples(st.just("grid"), st.sampled_from(PARAMETERS),
              some([0.0, 0.1, 0.2], [0.45, 0.6, 1.5, -0.1, float("nan")])),
    st.tuples(st.just("grid"), st.just("means"),
              some([[0.0, 0.2, 0.5], {"draw": "normal", "arms": 3}], [[1e4, 0.0], [2.0]])),
    st.tuples(st.just("grid"), st.sampled_from(["reward_model", *PARAMETERS]), junk),
    # The verdict a shaping shapes: any model (a shaping or Gaussian rewards are no verdict of
    # pass probabilities) under any model (one that is no shaping takes none).
    st.tuples(st.just("grid"), st.just("verdict"),
              either([model.name for model in registry.reward_models()], ["poisson", 0])),
)
answers = st.one_of(
    st.tuples(st.just("grid"), st.just("lengths"),
              some([[1, 2, 4], [1.0, 3.0, 9.0]], [[1, 2], [0, 1, 2], [1.5, 2, 3], [1e9, 1, 1]])),
    st.tuples(st.just("grid"), st.just("length_law"), either(["fixed", "geometric"], ["normal"])),
    st.tuples(st.just("grid"), st.just("token_budgets"), some([5, 40], [0, -1, 10**12])),
    st.tuples(st.just("drop"), st.just("budgets"), st.none()),
    st.tuples(st.just("grid"), st.sampled_from(["lengths", "length_law", "token_budgets"]), junk),
)
many_prompts = st.one_of(
    st.tuples(st.just("grid"), st.just("prompts"), some([1, 2, 3], [0, -1, MAX_PROMPTS + 1, 2.5])),
    st.tuples(st.just("grid"), st.just("allocation"),
              some(list(registry.allocation_names()), ["greedy"])),
    st.tuples(st.just("grid"), st.just("normalization"), some(list(NORMALIZATIONS), ["per_token"])),
    st.tuples(st.just("grid"), st.just("probs"),
              some([[0.2, 0.5, 0.7], {"draw": "beta", "arms": 3, "a": 1, "b": 9},
                    {"draw": "uniform", "arms": 3}], [{"draw": "normal", "arms": 3}])),
    st.tuples(st.just("grid"), st.sampled_from(["prompts", "allocation", "normalization"]), junk),
)


off_policy = st.one_of(
    st.tuples(st.just("grid"), st.just("lag"), some([0, 1, 3], [-1, 1.5, 10**6])),
    st.tuples(st.just("grid"), st.just("mismatch"), some([0.0, 0.5], [-0.1, float("inf")])),
    st.tuples(st.just("grid"), st.just("top_p"), some([1.0, 0.9, 0.5], [0.0, 1.5, -1.0])),
    st.tuples(st.just("grid"), st.just("correction"),
              some(["none", "is", "tis+keep_mask", "ppo_clip+opsm"], ["is+tis", "gspo", ""])),
    st.tuples(st.just("grid"), st.just("kl_beta"), some([0.0, 0.1], [-0.5])),
    st.tuples(st.just("grid"), st.just("kl_estimator"),
              some(["exact", "k1", "k3", "k3_is"], ["k2"])),
    st.tuples(st.just("grid"), st.sampled_from(["clip_range", "tis_cap", "opsm_threshold"]),
              either([0.1, 2.0], [0.0, -1.0, "x"])),
    st.tuples(st.just("grid"), st.sampled_from(["lag", "top_p", "correction", "kl_estimator"]),
              junk),
)


def analysis_values(grid: dict) -> dict[str, st.SearchStrategy]:
    """Each key of the [analysis] table with values that ``grid`` makes valid (its budgets, lr,
    baselines, group sizes, references) or not."""
    budgets = grid["budgets"]
    references = [name for name in grid["algorithm"] if name in registry.references()]
    return {
        "deployment_pulls": either([1, 100_000], [0, 10**16, 2.5]),
        "primary_budgets": some(budgets, [7, 0, 10**10]),
        "compared_budgets": some(budgets, [7, 0, 10**10]),
        "equivalence_margin": either([0.01, 0.2], [0.0, 0.5, -0.1, float("nan")]),
        "pass_rate_margin": either([0.01, 0.49], [0.0, 0.5, float("inf")]),
        "ratio_margin": either([1.25, 10.0], [1.0, 10.5, float("inf")]),
        "same_simulation_as": either(["", "quick"], ["a b", "../up"]),
        "headline_lr": either(grid["lr"], [0.3, -1.0]),
        "headline_baseline": either(grid["baseline"], ["none", "median"]),
        "reference": either(["", *references], ["reinforce", "successive_rejects", "oracle"]),
        "sections": some(["headline", "seed_exercise"], ["Seeds 2", ""]),
        "headline_group_size": either(grid.get("group_size", [1]), [3, 0, 2.0]),
        "curve_cut": either(budgets[:-1], [budgets[-1], 7, "5"]),
        "paper_role": either(["", "headline", "my_role"], ["Head line", 1, ["narrow"]]),
        "pass_rate_target": either([0.5, 1.0], [0.0, 1.5, "0.6"]),
        # A factorial's: none of the fuzzer's grids has a [design], so only [] is valid here.
        "chosen_after_run": either([[]], [["stuck"], ["pairs"], "stuck"]),
    }


def analysis_changes(grid: dict) -> st.SearchStrategy:
    """Changes to the [analysis] table of a study of ``grid``."""
    values = analysis_values(grid)
    return st.one_of(
        *(st.tuples(st.just("analysis"), st.just(key), value) for key, value in values.items()),
        st.tuples(st.just("analysis"), st.sampled_from(sorted(values)), junk),
        st.tuples(st.just("analysis"), st.text("abcxyz_", min_size=1, max_size=6),
                  st.integers(0, 3)))


@st.composite
def studies(draw: st.DrawFn) -> tuple[dict, list]:
    """A base grid, single-prompt, many-prompts or off-policy, and up to three changes to the
    config."""
    grid = draw(st.sampled_from([BASE_GRID, MANY_GRID, OFF_GRID]))
    changes = draw(st.lists(mutations | reward_models | answers | many_prompts | off_policy
                            | analysis_changes(grid), max_size=3))
    return grid, changes


def render(study: dict, grid: dict, analysis: dict | None = None) -> str:
    def table(name: str, entries: dict) -> list[str]:
        return [f"[{name}]", *(f"{k} = {toml_value(v)}" for k, v in entries.items()
                               if v is not None)]
    return "\n".join(table("study", study) + table("grid", grid)
                     + (table("analysis", analysis) if analysis else [])) + "\n"


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
# One config in four garbled: the TOML error is one check, the others are many.
@given(config=studies(), garble=st.sampled_from([False, False, False, True]))
# Groups larger than every budget: no episode to run (found by this test, once).
@example(config=(BASE_GRID, [("grid", "group_size", [64])]), garble=False)
# A list as the reward model: a TypeError where the name was looked for in a set (found once).
@example(config=(BASE_GRID, [("grid", "reward_model", [])]), garble=False)
def test_a_generated_config_runs_or_fails_cleanly(config: tuple[dict, list], garble: bool
                                                  ) -> None:
    base, changes = config
    study, grid = dict(BASE_STUDY), dict(base)
    tables = {"study": study, "grid": grid, "analysis": {}}
    for where, key, value in changes:
        if where == "drop":
            study.pop(key, None)
            grid.pop(key, None)
        else:
            tables[where][key] = value
    text = render(study, grid, tables["analysis"])
    if garble:
        text = text.replace("]", "", 1)
    with tempfile.TemporaryDirectory() as folder:
        path, out = Path(folder) / "c.toml", Path(folder) / "out"
        path.write_text(text)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            status = main(["run", str(path), "--out", str(out), "--quiet"])
        lines = err.getvalue().strip().splitlines()
        if status == 0:
            assert (out / "runs.parquet").is_file() and (out / "manifest.json").is_file()
        else:
            assert status == 2
            assert len(lines) == 1 and lines[0].startswith("error: ") and ": " in lines[0][7:]
            assert not out.exists() or not any(out.iterdir())
        assert not [p for p in Path(folder).rglob("*.tmp")]


def test_the_base_configs_of_the_fuzzer_are_valid() -> None:
    for grid in (BASE_GRID, MANY_GRID, OFF_GRID):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "c.toml"
            path.write_text(render(BASE_STUDY, grid))
            assert main(["run", str(path), "--out", str(Path(folder) / "out"), "--quiet"]) == 0


def test_the_fuzzer_varies_every_key_of_the_analysis_table() -> None:
    keys = {item.name for item in dataclasses.fields(AnalysisConfig)}
    assert set(analysis_values(BASE_GRID)) == set(analysis_values(MANY_GRID)) == keys
