"""Families of hypotheses for Holm's correction, declared once.

Every p-value in a study's tables belongs to exactly one family, named in the table's ``family``
column and adjusted within it (``p_value_holm``):

* ``<study>/primary``: the hypotheses a config declares before its run
  (``analysis.primary_budgets``): the headline cell's accuracy against chance at those budgets, a
  family of a few tests that the many secondary ones cannot dilute.
* otherwise one family per table of one study, ``<study>/<table>``: one question asked of many
  cells and budgets.

Cells that differ only in their per-pull cost share one simulation, so they are one hypothesis:
only the first cost's rows enter the family, and a row at another cost carries its twin's
adjusted p-value.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

PRIMARY = "primary"
"""The name of the primary family within its study."""
ALPHA = 0.05
"""The family-wise error rate each family is held to."""


def holm(p_values: pd.Series | np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values (step-down, controls the family-wise error rate)."""
    p_values = np.asarray(p_values, dtype=float)
    if p_values.size == 0:
        return p_values
    return multipletests(p_values, method="holm")[1]


def family_name(study: str, table: str) -> str:
    """The secondary family of one table of one study."""
    return f"{study}/{table}"


def declare(table: pd.DataFrame, family: str, members: pd.Series | None = None,
            p_column: str = "p_value", adjusted: str = "p_value_holm",
            family_column: str = "family") -> pd.DataFrame:
    """Adjust the p-values of the rows in ``members`` (all rows by default) by Holm within
    ``family`` and name the family; other rows are left as they are. Only rows at the table's
    first cost are hypotheses: a row at another cost is the same simulation, so it carries the
    adjusted p-value and the family of its first-cost twin, whichever ``members`` it is in."""
    table = table.copy()
    if members is None:
        members = pd.Series(True, index=table.index)
    if family_column not in table:
        table[family_column] = ""
    if adjusted not in table:
        table[adjusted] = np.nan
    twins = "cost" in table and table["cost"].nunique() > 1
    first = (table["cost"] == table["cost"].min() if twins
             else pd.Series(True, index=table.index))
    distinct = members & first
    table.loc[distinct, adjusted] = holm(table.loc[distinct, p_column])
    table.loc[distinct, family_column] = family
    if twins:
        keys = [c for c in table.columns if c in _TWIN_KEYS]
        source = table.loc[distinct].set_index(keys)[adjusted]
        later = table.index[~first]
        found = source.reindex(pd.MultiIndex.from_frame(table.loc[later, keys])).to_numpy()
        hit = ~np.isnan(found)
        table.loc[later[hit], adjusted] = found[hit]
        table.loc[later[hit], family_column] = family
    return table


_TWIN_KEYS = ("algorithm", "baseline", "lr", "group_size", "reward_model", "environment",
              "budget", "algorithm_b")
"""What identifies a hypothesis across cost twins (all but the cell ids and the cost)."""


def add_to_digests(digests: dict[int, Any], cells: np.ndarray, values: np.ndarray) -> None:
    """Add one run column's ``values`` to each cell's running SHA-256 in ``digests``; ``cells``
    holds each value's cell, the rows of a cell together and in the same order (seed, budget,
    ...) for every cell. Fed every run column, two cells' digests agree where their runs do, bit
    for bit: one simulation, one hypothesis."""
    values = np.ascontiguousarray(values)
    starts = np.flatnonzero(np.r_[True, cells[1:] != cells[:-1]])
    for start, stop in zip(starts, [*starts[1:], len(cells)], strict=True):
        digests.setdefault(int(cells[start]), hashlib.sha256()).update(
            values[start:stop].tobytes())


def plain(value: object) -> str:
    """A value as an expression or a query writes it: ``0.1``, not numpy's
    ``np.float64(0.1)``."""
    return repr(value.item() if hasattr(value, "item") else value)


def hypothesis_query(table: pd.DataFrame, family: str, family_column: str = "family",
                     adjusted: str | None = None) -> str:
    """The ``DataFrame.query`` (Python engine) that picks the distinct hypotheses of ``family``
    in a whole table: its rows at the table's first cost (the others are their twins: one
    simulation, one hypothesis) and, with ``adjusted``, with an adjusted p-value (rows without
    one are tested in another table)."""
    query = f"{family_column} == {family!r}"
    if "cost" in table:
        query += f" and cost == {plain(table['cost'].min())}"
    return query + (f" and {adjusted}.notna()" if adjusted is not None else "")


def family_sizes(table: pd.DataFrame, family_column: str = "family",
                 adjusted: str | None = None) -> dict[str, int]:
    """How many distinct hypotheses (``hypothesis_query``) each family of ``table`` holds;
    families with none here, and rows in no family (an empty name), are left out."""
    sizes = {str(family): len(table.query(hypothesis_query(table, family, family_column,
                                                           adjusted), engine="python"))
             for family in table[family_column].dropna().drop_duplicates() if family}
    return {family: size for family, size in sizes.items() if size}
