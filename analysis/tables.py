"""Writing analysis tables (Parquet for code, CSV and Markdown for people)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from study.model.atomic import write_files, write_text
from study.model.schema import INDEX_FILE

P_FLOOR = 1e-15
"""Smallest p-value shown as a number in the tables and the report; below it "< 1e-15": the
tests' approximations and the rounding of their sums carry no meaning further out, and some
underflow to 0, which no test's p-value is (the CSV files keep every computed value above it in
full, the Parquet files every computed value)."""


def shown_pvalue(p: float) -> str:
    """A p-value for reading: to two significant digits, or "< 1e-15" below ``P_FLOOR``."""
    return "< 1e-15" if p < P_FLOOR else f"{p:.2g}"


def p_text(p: float) -> str:
    """A p-value for prose: "p = 0.013", or "p < 1e-15" below ``P_FLOOR``."""
    shown = shown_pvalue(p)
    return f"p {shown}" if shown.startswith("<") else f"p = {shown}"


ROUNDING_NOISE = 1e-12
"""Magnitude below which a table's value (other than a p-value) is shown as 0: differences and
sums of numbers of order 1 that should cancel leave rounding residues near 1e-15, which a reader
would take for a result; no quantity the tables hold means anything at that scale."""


def _is_p_value(column: object) -> bool:
    """Whether a column holds p-values (``p_value``, ``p_vs_chance``, ...)."""
    return re.fullmatch(r"p(_[a-z]+)*", str(column)) is not None


def floored(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` for its CSV file: its p-value columns as computed, but "< 1e-15" below
    ``P_FLOOR`` (NaN stays empty)."""
    shown = table.copy()
    for column in shown.columns:
        if _is_p_value(column) and pd.api.types.is_float_dtype(shown[column]):
            shown[column] = [("< 1e-15" if p < P_FLOOR else repr(float(p))) if pd.notna(p)
                             else "" for p in shown[column]]
    return shown


def readable(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` for reading: its p-value columns (``p_value``, ``p_vs_chance``, ... ) as text
    floored at ``P_FLOOR`` (NaN stays empty), and rounding residues (``ROUNDING_NOISE``) of its
    other floating-point columns as 0."""
    shown = table.copy()
    for column in shown.columns:
        if not pd.api.types.is_float_dtype(shown[column]):
            continue
        if _is_p_value(column):
            shown[column] = [shown_pvalue(p) if pd.notna(p) else "" for p in shown[column]]
        else:
            shown[column] = shown[column].mask(shown[column].abs() < ROUNDING_NOISE, 0.0)
    return shown


FAMILY_COLUMNS = ("family", "equivalence_family")
"""Columns that name a Holm family (``analysis.families``): stored as categoricals, a few names
repeated over many rows."""
TABLE_SUFFIXES = (".parquet", ".csv", ".md")
"""The files each table is written as: Parquet, which keeps the columns' types (categoricals,
booleans, integers, lists) and is what code reads; CSV and Markdown for people."""


def write_tables(tables: dict[str, pd.DataFrame], out_dir: Path) -> None:
    """Each table as ``<name>.parquet``, ``<name>.csv`` and ``<name>.md``; then ``index.json``
    last, the file make depends on, so a half-finished step is redone."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, table in tables.items():
        typed = table.astype({c: "category" for c in FAMILY_COLUMNS if c in table})
        write_files({out_dir / f"{name}.parquet":
                     lambda path, typed=typed: typed.to_parquet(path, index=False)})
        write_text(out_dir / f"{name}.csv", floored(table).to_csv(index=False))
        write_text(out_dir / f"{name}.md",
                   readable(table).to_markdown(index=False, floatfmt=".5g") + "\n")
    # A table an earlier analysis wrote and this one does not (a question no longer asked) must
    # not be read as if it were current.
    for stale in [path for suffix in TABLE_SUFFIXES for path in out_dir.glob(f"*{suffix}")]:
        if stale.stem not in tables:
            stale.unlink()
    write_text(out_dir / INDEX_FILE, json.dumps(sorted(tables), indent=2) + "\n")
