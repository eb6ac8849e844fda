"""Generated configs, valid and broken: each either runs or exits 2 with one line naming the
field, never a traceback, never a partial file."""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import toml_value
from study.cli import main

BASE_STUDY = {"name": "fuzz", "root_seed": 3, "seeds": 3}
BASE_GRID = {"algorithm": ["reinforce", "uniform"], "probs": [[0.4, 0.6]], "lr": [0.1],
             "baseline": ["running_mean"], "cost": [0.0], "budgets": [5, 40]}

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
    st.tuples(st.just("drop"), st.sampled_from(["name", "seeds", "probs", "budgets"]), st.none()),
)


def render(study: dict, grid: dict) -> str:
    def table(name: str, entries: dict) -> list[str]:
        return [f"[{name}]", *(f"{k} = {toml_value(v)}" for k, v in entries.items()
                               if v is not None)]
    return "\n".join(table("study", study) + table("grid", grid)) + "\n"


@settings(max_examples=120, suppress_health_check=[HealthCheck.too_slow])
@given(changes=st.lists(mutations, max_size=2), garble=st.booleans())
# Groups larger than every budget: no episode to run (found by this test, once).
@example(changes=[("grid", "group_size", [64])], garble=False)
def test_a_generated_config_runs_or_fails_cleanly(changes: list, garble: bool) -> None:
    study, grid = dict(BASE_STUDY), dict(BASE_GRID)
    for where, key, value in changes:
        if where == "drop":
            study.pop(key, None)
            grid.pop(key, None)
        else:
            (study if where == "study" else grid)[key] = value
    text = render(study, grid)
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


def test_the_base_config_of_the_fuzzer_is_valid() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "c.toml"
        path.write_text(render(BASE_STUDY, BASE_GRID))
        assert main(["run", str(path), "--out", str(Path(folder) / "out"), "--quiet"]) == 0
