"""The question-module protocol (``analysis.questions``): each table built after the tables it
reads, one table per key of a named field, a module that reads a table none builds or modules
that read each other refused, and every table of the package's studies a module with a test for
each family it declares."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pandas as pd
import pytest

from analysis import questions
from analysis.questions import Inputs, build, methods_test
from study.model.config import AnalysisConfig


def package(root: Path, name: str, modules: dict[str, str]) -> str:
    """A package ``name`` under ``root`` holding ``modules`` (name: source)."""
    folder = root / name
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for module, source in modules.items():
        (folder / f"{module}.py").write_text(textwrap.dedent(source))
    return name


def inputs() -> Inputs:
    return Inputs(study="t", analysis=AnalysisConfig(), settings_frame=pd.DataFrame([{}]),
                  cells=pd.DataFrame(), run_dir=Path("."))


READS = """
    import pandas as pd
    TABLE, TEST, AFTER = "{table}", "", {after}
    def table(inputs):
        seen = [len(inputs.tables[name]) for name in AFTER]
        return pd.DataFrame({{"rows_read": [sum(seen)], "built": [len(inputs.tables)]}})
    """


def test_tables_are_built_after_those_they_read(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    # Module names in the reverse of the order the tables need.
    name = package(tmp_path, "ordered", {
        "a_last": READS.format(table="last", after=("middle", "first")),
        "b_middle": READS.format(table="middle", after=("first",)),
        "c_first": READS.format(table="first", after=()),
        "d_empty": """
            import pandas as pd
            TABLE, TEST = "empty", ""
            def table(inputs):
                return pd.DataFrame()
            """,
        "e_each": """
            import pandas as pd
            TABLE, TEST = "vs_{learner}", {"vs_a": "test a", "vs_b": "test b"}
            def table(inputs):
                return {key: pd.DataFrame({"x": [1]}) for key in ("a", "b")}
            """})
    tables = build(inputs(), name)
    assert tables["first"]["built"].iat[0] < tables["middle"]["built"].iat[0]
    assert tables["middle"]["built"].iat[0] < tables["last"]["built"].iat[0]
    assert tables["last"]["rows_read"].iat[0] == 2
    # An empty table is not written; a named field makes a table per key.
    assert "empty" not in tables and {"vs_a", "vs_b"} <= set(tables)


@pytest.mark.parametrize(("name", "modules", "message"), [
    ("unbuilt", {"a": READS.format(table="a", after=("nowhere",))},
     "which no question module builds"),
    ("cycle", {"a": READS.format(table="a", after=("b",)),
               "b": READS.format(table="b", after=("a",))}, "read each other's tables")])
def test_a_table_no_module_builds_or_a_cycle_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, modules: dict[str, str],
        message: str) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match=message):
        build(inputs(), package(tmp_path, name, modules))


def test_every_family_of_the_packages_modules_has_its_test() -> None:
    # A module's families: ``<table>`` (or the names its TEST maps); a module that declares a
    # family in its source without a test would print an empty test in Methods.
    for name in questions.PACKAGES:
        for module in questions.modules(name):
            source = Path(module.__file__).read_text()
            declares = "declare(" in source or "paired_family(" in source or (
                "versus_single_table(" in source)
            if isinstance(module.TEST, dict):
                assert all(module.TEST.values()), module.__name__
                assert all(methods_test(module.TABLE, family) for family in module.TEST)
            elif declares:
                assert module.TEST, f"{module.__name__} declares a family and names no test"
    assert methods_test("vs_uniform", "vs_uniform") == methods_test("vs_epsilon_greedy", "x")
    assert methods_test("no_such_table", "no_such_table") == ""
