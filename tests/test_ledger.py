"""The ledger of published claims (``figures.ledger``): every claim is a module with its source,
its number and either the row that judges it or the reason nothing can; each verdict is the
judged table's own, read again here from the table file with pandas, and each number printed is
the table's cell."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from conftest import REPO
from figures import ledger
from figures.cite import Source, Tables, expected_text, value_of
from figures.ledger import CONTRADICTED, PENDING, SUPPORTED, TESTED, UNTESTABLE, VERDICTS

PAPER_VALUES = {"finding": ("higher", "lower", "equivalent", "unresolved"),
                "interval_against_one": ("below", "above", "inside", "unresolved"),
                "prediction": ("below", "above", "inside", "unresolved")}
"""Every value each of the tables' verdict columns can take (``analysis.roles``)."""
OWN_VERDICTS = ("finding", "interval_against_one", "prediction")
"""The tables' own verdict columns: a paired table's Holm or equivalence finding, a budget
ratio's placement against one, a compute curve's held-out check."""


def references() -> dict[str, object]:
    return yaml.safe_load((REPO / "figures" / "typst" / "references.yml").read_text())


def test_the_ledger_is_a_folder_of_claims_each_with_its_reason() -> None:
    claims = ledger.claims()
    modules = sorted(p.stem for p in (REPO / "figures" / "ledger").glob("*.py")
                     if p.stem != "__init__")
    assert sorted(claims) == modules and len(claims) >= 10
    assert len({claim.order for claim in claims.values()}) == len(claims)
    for key, claim in claims.items():
        assert claim.source and claim.cited and claim.stated and claim.short, key
        # Printed in prose and in the paper's table, where a digit needs a source: words only.
        for words in (claim.metric, claim.analogue, claim.untestable, claim.pending,
                      claim.short, *(reason for _, reason in claim.verdicts.values())):
            assert not re.search(r"\d", words), (key, words)
        # The paper's text must show the published number whole: no line break at a hyphen.
        assert "-" not in claim.published and "{" not in claim.stated + claim.published, key
        if claim.untestable:
            assert not claim.table and not claim.pending, key
            continue
        if not claim.table:
            assert claim.pending, key  # a claim no table holds says why
            continue
        # A tested claim maps every value its table's verdict column can take.
        assert claim.verdicts and all(v in TESTED for v, _ in claim.verdicts.values()), key
        if claim.judged in PAPER_VALUES:
            assert set(claim.verdicts) == set(PAPER_VALUES[claim.judged]), key
        else:
            assert set(claim.verdicts) == {"True", "False"}, key


def test_every_claim_cites_an_entry_of_the_bibliography() -> None:
    keys = set(references())
    assert {claim.source for claim in ledger.claims().values()} <= keys


def _tables(root: Path) -> Path:
    """A small tables folder by hand: one study with GRESO's budget ratios in three laws (the
    claim's row below one), one with the KL estimators' bias, one with both nothing a claim
    reads and a settings table."""
    tables = root / "tables"
    ratios = pd.DataFrame({
        "allocation": ["skip_zero_signal"] * 3 + ["uniform"], "normalization": "per_group",
        "baseline": "leave_one_out", "group_size": 8, "metric": "pass_rate",
        "fraction": 0.5, "environment": ["beta(4,1)x3", "beta(2,2)x3", "beta(1,9)x3",
                                         "beta(4,1)x3"],
        "target": 0.86, "ratio_to_uniform": [0.95, 1.01, 0.86, math.nan],
        "ratio_low": [0.94, 1.005, 0.85, math.nan], "ratio_high": [0.96, 1.02, 0.87, math.nan],
        "interval_against_one": ["below", "above", "below", None]})
    bias = pd.DataFrame({"environment": "0.5,0.55,0.6", "lr": [1.0, 10.0, 1.0], "lag": 0,
                         "state": "late", "budget": 2000, "estimator": ["k3_is", "k3_is", "k1"],
                         "runs": 100, "bias": [1e-17, 3e-16, 0.2],
                         "bias_low": math.nan, "bias_high": math.nan})
    for study, frames in (("alpha", {"prompts_budget_to_target": ratios}),
                          ("beta", {"kl_estimators": bias}),
                          ("gamma", {"settings": pd.DataFrame({"study": ["gamma"]})})):
        (tables / study).mkdir(parents=True)
        for name, frame in frames.items():
            frame.to_parquet(tables / study / f"{name}.parquet")
    return tables


def test_a_hand_made_tables_folder_is_judged_by_its_own_verdicts(tmp_path: Path) -> None:
    tables = _tables(tmp_path)
    cite = Tables(tables, tmp_path)
    judged = {entry.key: entry for entry in ledger.entries(cite)}
    assert list(judged) == list(ledger.claims())
    greso, kl = judged["greso"], judged["unbiased_kl"]
    # The claim's row (the mostly easy law), its verdict the placement's, its siblings beside.
    assert (greso.study, greso.label, greso.verdict) == ("alpha", 0, SUPPORTED)
    assert greso.value("ratio_to_uniform").value == 0.95
    assert list(greso.siblings().index) == [0, 1, 2]
    # The largest bias of the ratio-weighted estimator, below rounding.
    assert (kl.study, kl.label, kl.verdict) == ("beta", 1, SUPPORTED)
    assert kl.value("bias_low") is None
    assert ledger.holders(tables) == {"alpha", "beta"}
    for key, entry in judged.items():
        claim = ledger.claims()[key]
        if key not in ("greso", "unbiased_kl"):
            expected = UNTESTABLE if claim.untestable else PENDING
            assert entry.verdict == expected and entry.reason, key
            assert entry.cited_verdict is None and entry.row is None
    # Each cited verdict, and each count, reads again from the files as printed.
    for entry in (greso, kl):
        source = {"source": _json(entry.cited_verdict.source), "formatter": "", "spec": ""}
        assert expected_text(source, tables, tmp_path) == entry.verdict
    counts = ledger.counts(cite, list(judged.values()))
    values = {name: value_of(_asdict(c.source), tables, tmp_path) for name, c in counts.items()}
    assert values == {name: c.value for name, c in counts.items()}
    assert values["Supported"] == 2 and values["Claims"] == len(judged)
    assert values["Untestable"] == sum(bool(c.untestable) for c in ledger.claims().values())
    assert sum(values[n] for n in ("Supported", "Contradicted", "Unresolved", "Untestable",
                                   "Pending")) == values["Claims"]
    # The placement decides: the same row above one contradicts the claim.
    ratios = pd.read_parquet(tables / "alpha" / "prompts_budget_to_target.parquet")
    ratios.loc[0, "interval_against_one"] = "above"
    ratios.to_parquet(tables / "alpha" / "prompts_budget_to_target.parquet")
    assert ledger.judge(cite, "greso", ledger.claims()["greso"]).verdict == CONTRADICTED


def test_a_claim_whose_row_two_studies_hold_is_refused(tmp_path: Path) -> None:
    tables = _tables(tmp_path)
    (tables / "delta").mkdir()
    frame = pd.read_parquet(tables / "alpha" / "prompts_budget_to_target.parquet")
    frame.to_parquet(tables / "delta" / "prompts_budget_to_target.parquet")
    with pytest.raises(ValueError, match="alpha, delta"):
        ledger.entries(Tables(tables, tmp_path))


def _json(source: Source) -> str:
    """A source as the sources files hold it (JSON)."""
    return json.dumps(dataclasses.asdict(source))


def _asdict(source: Source) -> dict[str, object]:
    """A source as ``figures.cite.value_of`` reads it from a sources file."""
    return json.loads(_json(source))


def _row(tables: Path, study: str, claim: ledger.Claim) -> pd.Series:
    """The claim's row of its table, read again with pandas: the rows its query selects and,
    where it selects several, the one its pick names."""
    frame = pd.read_parquet(tables / study / f"{claim.table}.parquet")
    rows = frame.query(claim.rows, engine="python")
    if claim.pick:
        how, _, column = claim.pick.partition(":")
        label = rows[column].idxmax() if how == "largest" else rows[column].idxmin()
    else:
        assert len(rows) == 1, claim.table
        label = rows.index[0]
    return frame.loc[label]


@pytest.mark.slow
def test_each_number_and_verdict_of_the_ledger_is_its_tables(study_outputs: Path
                                                              ) -> None:
    tables = study_outputs / "tables"
    judged = ledger.entries(Tables(tables, study_outputs))
    named = pd.read_csv(study_outputs / "number_sources.csv", dtype=str, keep_default_na=False)
    named = named.set_index("name")
    report = (study_outputs / "report.md").read_text()
    part = report.split("A ledger of published claims", 1)[1].split("\n## ", 1)[0]
    assert sum(e.verdict in TESTED for e in judged) >= 10
    for entry in judged:
        claim = entry.claim
        # The report states every claim with its verdict and, where none is tested, why.
        assert f"**{claim.cited}**: {claim.stated}." in part
        assert f"*Verdict:* **{entry.verdict}**: {entry.reason}" in part
        if entry.verdict not in TESTED:
            assert entry.reason and entry.row is None
            continue
        row = _row(tables, entry.study, claim)
        assert row.name == entry.label
        # The verdict is the table's own: its verdict column, mapped by the claim.
        assert claim.judged in OWN_VERDICTS or claim.judged.startswith("bias <"), entry.key
        judged_value = (str(row[claim.judged]) if claim.judged in row
                        else str(bool(row["bias"] < 1e-12)))
        assert claim.verdicts[judged_value][0] == entry.verdict
        if claim.judged == "finding":
            # A distinct hypothesis of the table's declared Holm family, not a repeat.
            assert row["family"] and not pd.isna(row["p_value_holm"]), entry.key
            assert bool(row.get("distinct", True)), entry.key
        # Each number named for the paper is the cell, formatted as printed.
        for column, suffix in zip(claim.estimate, ("", "Low", "High"), strict=True):
            name = f"Ledger{entry.name}{suffix}"
            value = row.get(column, math.nan)
            if pd.isna(value):
                assert name not in named.index
                continue
            source = named.loc[name]
            assert source["text"] == format(value, claim.spec), name
            assert (f'"table": "{entry.study}/{claim.table}", "row": {entry.label}, '
                    f'"expression": "{column}"') in source["source"], name
            assert expected_text(source, tables, study_outputs) == source["text"]
    # The counts the abstract prints add up to the claims, and read again from the tables.
    counts = {name: int(named.loc[f"Ledger{name}", "text"])
              for name in ("Claims", "Supported", "Contradicted", "Unresolved", "Untestable",
                           "Pending")}
    assert counts["Claims"] == len(judged) == sum(counts.values()) - counts["Claims"]
    for verdict, name in zip(VERDICTS, list(counts)[1:], strict=True):
        assert counts[name] == sum(e.verdict == verdict for e in judged), name
