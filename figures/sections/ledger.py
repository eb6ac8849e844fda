"""A ledger of published claims (``figures.ledger``): one section, shared by every study whose
tables hold a row a claim is judged on. Its opening lists every claim with the cells that test
it, the verdict read from the table and the estimate with its interval, and counts the verdicts;
each study's part shows the rows the ledger reads from its tables beside the same comparison in
the claim's other strata, each row with its own test. The paper's part is one table of every
claim, written once, with the first of the ledger's studies.

The ledger spans studies, so it is given through the sections' own door without naming any: its
table is the ``settings`` every study has, and ``unfit`` leaves out the studies that hold no
claim's row. Its named numbers (the verdict counts the abstract prints, each claim's estimate
and the number its source published) belong to no study: they are put under plain names
(``LedgerSupported``, ``LedgerGreso``, ``LedgerGresoPublished``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from analysis.questions import SETTINGS
from figures import ledger
from figures.cite import Cited, Tables
from figures.ledger import Entry
from figures.numbers import Named, Scope
from figures.sections import Section

SECTION = Section(table=SETTINGS, title="A ledger of published claims", template="ledger.md.j2",
                  order=30, shared=True, introduction="ledger_intro.md.j2",
                  paper="ledger.typ.j2")

SHOWN = ("p_value_holm", "within_margin")
"""Columns of a claim's table shown beside its cells and estimate where the table has them:
the Holm-adjusted p-value and whether the difference was shown within the margin."""


def unfit(tables: Path, study: str) -> str:
    """Why a study (its tables in ``tables``) does not take a part of the ledger: none of its
    tables holds a row a claim is judged on ("" where one does)."""
    if study in ledger.holders(tables.parent):
        return ""
    return "whose tables hold no row a published claim is judged on"


def _spec(value: Cited) -> str:
    """How a cell that says which cells a row compares is printed: counts with thousands
    separators, other numbers as they are."""
    if pd.api.types.is_bool(value.value) or not pd.api.types.is_number(value.value):
        return ""
    return "," if float(value.value).is_integer() and abs(value.value) >= 1000 else "g"


def _put(cite: Tables, numbers: Scope, judged: list[Entry]) -> None:
    """Name the ledger's numbers: the verdict counts, and each claim's published number and
    estimate with its interval."""
    for name, value in ledger.counts(cite, judged).items():
        numbers.put_constant(f"Ledger{name}", value, "")
    numbers.put_constant("Level", cite.constant("1 - analysis.families.ALPHA"), ".0%")
    for entry in judged:
        if entry.claim.published:
            numbers.put_constant(f"Ledger{entry.name}Published",
                                 cite.constant(f"figures.ledger.published({entry.key!r})"), "")
        for column, suffix in zip(entry.claim.estimate, ("", "Low", "High"), strict=True):
            value = entry.value(column)
            if value is not None:
                numbers.put_constant(f"Ledger{entry.name}{suffix}", value, entry.claim.spec)


def _row(cite: Tables, entry: Entry) -> dict[str, Any]:
    """A claim as the templates print it: words, and cited values printed where they go."""
    claim = entry.claim
    cells = [{"column": column, "value": Named(entry.row[column], _spec(entry.row[column]))}
             for column in claim.cells] if entry.row is not None else []
    return {"name": entry.name, "source": claim.source, "cited": cite.declared(claim.cited),
            "stated": Named(cite.constant(f"figures.ledger.stated({entry.key!r})")),
            "short": claim.short, "published": bool(claim.published),
            "metric": claim.metric, "analogue": claim.analogue, "table": claim.table,
            "study": cite.declared(entry.study) if entry.study else "", "cells": cells,
            "verdict": entry.cited_verdict if entry.cited_verdict is not None else entry.verdict,
            "word": entry.verdict, "reason": entry.reason,
            "estimate": entry.value(claim.estimate[0]) is not None,
            "interval": all(entry.value(c) is not None for c in claim.estimate[1:])}


def _evidence(entry: Entry) -> pd.DataFrame:
    """The rows the claim's verdict is read from (its row and its siblings), with the columns
    that say which cells they compare, the estimate and the table's verdict."""
    claim, frame = entry.claim, entry.frame
    judged = [claim.judged] if claim.judged in frame else []
    columns = [c for c in (*claim.cells, *claim.estimate, *SHOWN, *judged) if c and c in frame]
    return entry.siblings()[list(dict.fromkeys(columns))]


def _context(cite: Tables, study: str, judged: list[Entry]) -> dict[str, Any]:
    """Every claim (for the opening and the paper's table, which only the ledger's first study
    writes) and this study's claims with the rows they read."""
    first = min(e.study for e in judged if e.study)
    return {"lead": study == first, "rows": [_row(cite, e) for e in judged],
            "parts": [{"cited": cite.declared(e.claim.cited), "word": e.verdict,
                       "table": e.claim.table, "siblings": bool(e.claim.siblings),
                       "rows": _evidence(e)}
                      for e in judged if e.study == study]}


def claims(cite: Tables, study: str, numbers: Scope) -> dict[str, Any]:
    """Name the ledger's numbers in ``numbers`` (as constants: no study's); return the
    templates' context (``_context``)."""
    judged = ledger.entries(cite)
    _put(cite, numbers, judged)
    return _context(cite, study, judged)


def introduce(cite: Tables, studies: list[str]) -> dict[str, Any]:
    """The context of the section's opening: every claim (its numbers are named already: the
    report names every number before it writes)."""
    return _context(cite, studies[0], ledger.entries(cite))
