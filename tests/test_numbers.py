"""Named numbers: one name, one value, one source; printed anew at every use, listed with their
sources, refused where a name would hold two numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from jinja2.exceptions import UndefinedError

from figures.cite import Tables, expected_text, unmark
from figures.numbers import Registry
from figures.prose import render
from figures.words import fraction


@pytest.fixture()
def tables(tmp_path: Path) -> Tables:
    (tmp_path / "tables" / "study").mkdir(parents=True)
    pd.DataFrame({"budget": [50, 200], "accuracy": [0.5, 0.875], "chance": [1 / 3] * 2}
                 ).to_parquet(tmp_path / "tables" / "study" / "accuracy.parquet", index=False)
    return Tables(tmp_path / "tables", tmp_path / "runs")


def test_a_name_prints_its_number_anew_at_every_use(tables: Tables) -> None:
    numbers = Registry()
    frame = tables.read("study", "accuracy")
    last = tables.last(frame)
    numbers.put("StudyAccuracy", last.accuracy, ".3f")
    numbers.put("StudyChance", last.chance, shown=fraction)
    numbers.put("StudyAccuracy", last.accuracy, ".3f")  # the same number again: allowed
    texts = [numbers.text("StudyAccuracy"), numbers.text("StudyAccuracy")]
    assert [unmark(t) for t in texts] == ["0.875", "0.875"] and texts[0] != texts[1]
    assert len(tables.ledger.entries) == 2
    listed = numbers.frame()
    assert listed["name"].tolist() == ["StudyAccuracy", "StudyChance"]
    assert listed["text"].tolist() == ["0.875", "1/3"]
    for row in listed.to_dict("records"):
        assert expected_text(row, tables.tables, tables.runs) == row["text"]
    assert json.loads(listed["source"].iat[0])["expression"] == "accuracy"


def test_a_name_cannot_hold_two_numbers(tables: Tables) -> None:
    numbers = Registry()
    frame = tables.read("study", "accuracy")
    numbers.put("StudyAccuracy", tables.last(frame).accuracy, ".3f")
    with pytest.raises(ValueError, match="two numbers"):
        numbers.put("StudyAccuracy", tables.first(frame).accuracy, ".3f")
    with pytest.raises(ValueError, match="two numbers"):
        numbers.put("StudyAccuracy", tables.last(frame).accuracy, ".2f")
    with pytest.raises(ValueError, match="CamelCase"):
        numbers.put("study_accuracy", tables.last(frame).accuracy)


def test_latex_lists_each_macro_after_its_source_and_escapes_percent(tables: Tables) -> None:
    numbers = Registry()
    numbers.put("Level", tables.constant("1 - analysis.families.ALPHA"), ".0%")
    lines = numbers.latex().splitlines()
    assert lines[0].startswith("% Level: ") and json.loads(lines[0][len("% Level: "):])
    assert lines[1] == "\\newcommand{\\Level}{95\\%}"


def test_a_scope_prints_its_names_and_a_template_refuses_a_missing_one(tables: Tables) -> None:
    numbers = Registry()
    scope = numbers.scope("Study")
    scope.put("Budget", tables.first(tables.read("study", "accuracy")).budget, ",")
    assert unmark(scope.Budget) == "50" and "StudyBudget" in numbers
    with pytest.raises(AttributeError, match="no number is named StudyVerifiers"):
        scope.Verifiers  # noqa: B018
    # StrictUndefined: a name the section did not put stops the report, it is not left blank.
    with pytest.raises(UndefinedError, match="Verifiers"):
        render("reward_noise.md.j2", n=scope, baseline="", unresolved=False, shrink="",
               prediction="", figure=lambda caption: "", markdown=lambda frame: "", table=None)


def test_a_constant_has_one_plain_name_that_every_scope_prints(tables: Tables) -> None:
    numbers = Registry()
    level = tables.constant("1 - analysis.families.ALPHA")
    numbers.scope("Study").put_constant("Level", level, ".0%")
    numbers.scope("Other").put_constant("Level", level, ".0%")  # the same constant: allowed
    assert list(numbers) == ["Level"]
    assert numbers.scope("Study").resolve("Level") == "Level"
    assert unmark(numbers.scope("Other").Level) == "95%"
