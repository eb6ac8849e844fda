"""Cited numbers: each knows its source, formats through the ledger, and is read back from the
files by ``expected_text`` (known answers on a small table written here)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from figures.cite import Tables, expected_text, unmark, unmarked_digits
from figures.report import Report
from figures.words import fraction, pvalue


@pytest.fixture()
def tables(tmp_path: Path) -> Tables:
    (tmp_path / "tables" / "study").mkdir(parents=True)
    pd.DataFrame({"budget": [50, 200, 1000], "accuracy": [0.5, 0.75, 0.875],
                  "chance": [1 / 3] * 3, "p_value": [0.2, 1e-20, 0.004],
                  "verdict": ["unresolved", "above", "above"]}).to_parquet(
        tmp_path / "tables" / "study" / "accuracy.parquet", index=False)
    (tmp_path / "runs" / "study").mkdir(parents=True)
    (tmp_path / "runs" / "study" / "manifest.json").write_text(
        json.dumps({"config": {"deployment_pulls": 100000, "environments": [{"arms": 10}]}}))
    return Tables(tmp_path / "tables", tmp_path / "runs")


def entries(tables: Tables) -> list[dict]:
    return tables.ledger.entries


def test_cells_counts_and_arithmetic_format_and_read_back(tables: Tables) -> None:
    frame = tables.read("study", "accuracy")
    rows = list(tables.rows(frame[frame["budget"] > 50]))
    gap = rows[1].accuracy - rows[1].chance
    text = (f"{rows[0].accuracy:.3f} at {rows[1].budget:,}; gap {gap:+.4f}; "
            f"{tables.count(frame, 'verdict == ' + repr('above'))} of {tables.count(frame)}; "
            f"p {rows[1].p_value.shown(pvalue)}; chance {rows[0].chance.shown(fraction)}; "
            f"width {tables.largest(frame, 'accuracy - chance'):.4f}; "
            f"D = {tables.manifest_value('study', 'config.deployment_pulls'):,}, "
            f"K = {tables.manifest_value('study', 'config.environments.0.arms')}; "
            f"level {tables.constant('1 - analysis.families.ALPHA'):.0%}; "
            f"share {tables.count(frame, 'budget > 50') / tables.count(frame):.2f}")
    assert unmark(text) == ("0.750 at 1,000; gap +0.5417; 2 of 3; p = 0.004; chance 1/3; "
                            "width 0.5417; D = 100,000, K = 10; level 95%; share 0.67")
    assert unmarked_digits(text) == ""
    # Every entry is read again from the table, the manifest or the code, and formatted alike.
    for entry in entries(tables):
        assert expected_text(entry, tables.tables, tables.runs) == entry["text"]
    kinds = [e["kind"] for e in entries(tables)]
    # The share of two counts is one number, derived from both.
    assert kinds.count("count") == 2 and kinds[-1] == "derived" and "manifest" in kinds


def test_a_changed_table_no_longer_matches_its_entry(tables: Tables) -> None:
    frame = tables.read("study", "accuracy")
    f"{tables.first(frame).accuracy:.3f}"
    changed = frame.assign(accuracy=[0.51, 0.75, 0.875])
    changed.to_parquet(tables.tables / "study" / "accuracy.parquet", index=False)
    entry = entries(tables)[0]
    assert entry["text"] == "0.500"
    assert expected_text(entry, tables.tables, tables.runs) == "0.510"


def test_the_report_refuses_a_typed_number(tables: Tables, tmp_path: Path) -> None:
    report = Report(tables.tables, tmp_path, tables.runs, tmp_path / "report.md")
    frame = report.table("study", "accuracy")
    report.add(f"cited: {report.cite.first(frame).budget:,} rollouts", "# 1. a heading",
               "| 3 | a table |", f"a formula {report.cite.literal('1/gap^2')}")
    with pytest.raises(ValueError, match="has no source"):
        report.add("typed: 50 rollouts")
    with pytest.raises(ValueError, match="has no source"):
        report.add(f"half cited: {report.cite.first(frame).budget} of 3")
    assert report.lines[0] == "cited: 50 rollouts"


def test_the_report_notes_where_each_number_landed(tables: Tables, tmp_path: Path) -> None:
    report = Report(tables.tables, tmp_path, tables.runs, tmp_path / "report.md")
    frame = report.table("study", "accuracy")
    row = report.cite.first(frame)
    report.add("# a heading", f"first {row.budget:,}\nthen {row.accuracy:.2f} and {row.budget}")
    assert report.lines == ["# a heading", "first 50", "then 0.50 and 50"]
    placed = [(e["text"], e["line"], e["column"]) for e in report.cite.ledger.entries]
    assert placed == [("50", 1, 6), ("0.50", 2, 5), ("50", 2, 14)]


def test_rows_must_keep_their_table_rows_and_numpy_numbers_stay_readable(tables: Tables
                                                                         ) -> None:
    frame = tables.read("study", "accuracy")
    with pytest.raises(ValueError, match="table's rows"):
        tables.first(frame.reset_index(drop=True))
    # A numpy number in arithmetic is written as a plain number in the source's expression.
    text = f"{tables.first(frame).accuracy * frame['budget'].iat[0]:g}"
    assert unmark(text) == "25"
    entry = entries(tables)[-1]
    assert entry["source"].count("np.") == 0
    assert expected_text(entry, tables.tables, tables.runs) == "25"


def test_arithmetic_across_rows_is_derived_and_checked(tables: Tables) -> None:
    frame = tables.read("study", "accuracy")
    first, last = tables.first(frame), tables.last(frame)
    text = f"{last.accuracy - first.accuracy:.3f}"
    assert unmark(text) == "0.375"
    entry = entries(tables)[-1]
    assert entry["kind"] == "derived"
    assert expected_text(entry, tables.tables, tables.runs) == "0.375"
