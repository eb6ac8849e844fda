"""A ledger of published claims: one module per claim, found by listing this folder.

A claim module declares ``CLAIM = Claim(...)``: the paper it comes from (its key in
``figures/typst/references.yml``), the claim in one line with its published number, and either
where this model tests it, or why it cannot. A tested claim names a table by its name (never a
study's: the study is whichever made that table with the claim's row), a ``DataFrame.query`` that
selects the claim's row (``pick`` chooses one where the query selects several), the columns that
describe the row's cells, its estimate with its interval, and the column (or expression of the
row's columns) holding the table's own verdict: a paired table's ``finding`` (Holm-adjusted
within its declared family, or equivalence by two one-sided tests), a budget ratio's placement
against one, a compute curve's check of a held-out budget. ``verdicts`` maps each value that
column can take to the ledger's verdict and its reason, so that a verdict is the table's, read
again, and never a test of the ledger's own; a paired difference shown in the direction a claim
predicts but also shown within the table's equivalence margin (smaller than the effect stated
before the run) takes the verdict the claim gives equivalence. ``siblings`` selects the rows of
the same comparison in the other strata (learning rates, difficulty laws, budgets), which the
report shows beside the claim's row, each with its own verdict, so that no count pools strata
whose directions differ.

``entries(cite)`` judges every claim against the tables under ``cite.tables``: each verdict is a
``figures.cite.Cited`` value derived from the cell it is read from (its source says how), each
estimate a cited cell; ``counts`` gives how many claims took each verdict, cited as well, for the
report and the paper's abstract.
"""

from __future__ import annotations

import functools
import importlib
import math
import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import pandas as pd

from figures.cite import Cited, Row, Source, Tables, read_table
from figures.numbers import macro_name

SUPPORTED = "supported"
CONTRADICTED = "contradicted"
UNRESOLVED = "not resolved"
UNTESTABLE = "not testable in a bandit"
PENDING = "not tested yet"
VERDICTS = (SUPPORTED, CONTRADICTED, UNRESOLVED, UNTESTABLE, PENDING)
"""The ledger's verdicts, in the order the report counts them."""
TESTED = (SUPPORTED, CONTRADICTED, UNRESOLVED)
"""The verdicts read from a table."""


@dataclass(frozen=True)
class Claim:
    """A published claim and the cells of this model that test it (or why none can)."""

    source: str
    """The paper's key in ``figures/typst/references.yml`` (the paper cites it as ``@key``)."""
    cited: str
    """The paper as the report names it: authors, year and the method's name."""
    stated: str
    """The claim in one line, with its published number where the source gives one (plain
    text: no braces, which the LaTeX macros of ``numbers.tex`` cannot hold)."""
    order: int
    """The claim's place in the ledger."""
    short: str = ""
    """The claim in a few words without digits, the source's name or its number: the paper's
    table prints it beside the source's citation and ``published``."""
    published: str = ""
    """The source's number in a few words ("" where the source gives none, or it is not
    confirmed), without hyphens: the paper's table may break a line at one, and its text must
    show the number whole."""
    metric: str = ""
    """The metric of this model the claim is judged on, in words."""
    analogue: str = ""
    """The bandit analogue in words (the cells' values are printed from the row itself)."""
    table: str = ""
    """The table whose row judges the claim ("" for a claim no table holds)."""
    rows: str = ""
    """A ``DataFrame.query`` of ``table`` selecting the claim's row."""
    pick: str = ""
    """Where ``rows`` selects several: ``largest:<column>`` or ``smallest:<column>``."""
    cells: tuple[str, ...] = ()
    """The row's columns that say which cells it compares, printed with the row."""
    estimate: tuple[str, str, str] = ("difference", "ci_low", "ci_high")
    """The row's estimate and its interval's limits (a limit "" or missing: no interval)."""
    spec: str = "+.3g"
    """How the estimate and its limits are printed."""
    judged: str = "finding"
    """The column (or ``DataFrame.eval`` expression of the row's columns) holding the table's
    verdict."""
    verdicts: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """Each value of ``judged`` (as ``str`` writes it) -> (the ledger's verdict, its reason)."""
    siblings: str = ""
    """A ``DataFrame.query`` of ``table``: the same comparison in the claim's other strata ("":
    the claim's row alone)."""
    untestable: str = ""
    """Why a bandit cannot test the claim ("" for a claim it can)."""
    pending: str = ""
    """Why no table tests the claim yet, where none does (said with the missing table)."""


def paired(expects: str, margin: str = "") -> dict[str, tuple[str, str]]:
    """The verdicts of a paired table's ``finding`` for a claim that predicts ``expects``
    ("higher" or "lower": A minus B), with ``margin`` the words for what equivalence shows."""
    other = "lower" if expects == "higher" else "higher"
    return {expects: (SUPPORTED, f"{expects} after Holm within the table's family"),
            other: (CONTRADICTED, f"{other} after Holm within the table's family"),
            "equivalent": (CONTRADICTED, margin or "shown within the equivalence margin by two "
                                                   "one-sided tests: no effect of that size"),
            "unresolved": (UNRESOLVED, "neither a difference after Holm nor equivalence within "
                                       "the margin")}


def harmless() -> dict[str, tuple[str, str]]:
    """The verdicts of a paired table's ``finding`` for a claim that a change costs nothing
    (A minus B is not lower)."""
    return {"equivalent": (SUPPORTED, "shown within the equivalence margin by two one-sided "
                                      "tests"),
            "higher": (SUPPORTED, "higher after Holm within the table's family"),
            "lower": (CONTRADICTED, "lower after Holm within the table's family"),
            "unresolved": (UNRESOLVED, "neither a difference after Holm nor equivalence within "
                                       "the margin")}


def fewer() -> dict[str, tuple[str, str]]:
    """The verdicts of a budget ratio's placement against one (``interval_against_one``) for a
    claim that a rule needs fewer rollouts."""
    return {"below": (SUPPORTED, "the ratio's interval lies below one: fewer rollouts"),
            "above": (CONTRADICTED, "the ratio's interval lies above one: more rollouts"),
            "inside": (UNRESOLVED, "the ratio's interval contains one"),
            "unresolved": (UNRESOLVED, "one lies within a limit's Monte Carlo error")}


@dataclass(frozen=True)
class Entry:
    """A claim judged against the tables: its row, where a study's table holds it."""

    key: str
    """The claim module's name."""
    claim: Claim
    verdict: str
    """The ledger's verdict (``VERDICTS``)."""
    reason: str
    cited_verdict: Cited | None = None
    """The verdict as a cited value derived from the cell it is read from (tested claims)."""
    study: str = ""
    row: Row | None = None
    frame: pd.DataFrame | None = None
    """The study's whole table (read by ``figures.cite.Tables``) that ``row`` is a row of."""
    label: int = -1
    """``row``'s label in ``frame`` (its row in the table file)."""

    @property
    def name(self) -> str:
        """The claim's name in macros: ``opsm_stable`` -> ``OpsmStable``."""
        return macro_name(*self.key.split("_"))

    def value(self, column: str) -> Cited | None:
        """A cited cell of the row, None where the claim has no row or no such column, or the
        cell is missing."""
        if self.row is None or not column or self.frame is None or column not in self.frame:
            return None
        cited = self.row[column]
        value = cited.value
        return None if isinstance(value, float) and not math.isfinite(value) else cited

    def siblings(self) -> pd.DataFrame | None:
        """The rows of the same comparison in the claim's other strata, the claim's row among
        them, in the table's order (None without a row)."""
        if self.frame is None:
            return None
        labels = pd.Index([self.label])
        if self.claim.siblings:
            labels = self.frame.query(self.claim.siblings, engine="python").index.union(labels)
        return self.frame.loc[labels]


def modules() -> list[ModuleType]:
    """Every claim module, in the ledger's order."""
    found = [importlib.import_module(f"{__name__}.{info.name}")
             for info in pkgutil.iter_modules(__path__)]
    return sorted(found, key=lambda module: (module.CLAIM.order, module.__name__))


def claims() -> dict[str, Claim]:
    """Every claim by its module's name, in the ledger's order."""
    return {module.__name__.rpartition(".")[2]: module.CLAIM for module in modules()}


def stated(key: str) -> str:
    """The claim ``key`` in one line (its source's number is a constant of this code: the
    ledger cites it from here)."""
    return claims()[key].stated


def published(key: str) -> str:
    """The number the source of claim ``key`` publishes, in a few words (a constant of this
    code, as ``stated``)."""
    return claims()[key].published


def untestable() -> int:
    """How many claims a bandit cannot test."""
    return sum(bool(claim.untestable) for claim in claims().values())


def locate(root: Path, claim: Claim) -> dict[str, pd.DataFrame]:
    """The rows of each study under ``root`` whose ``claim.table`` meets ``claim.rows``, by
    study (only studies with such rows)."""
    found = {}
    for path in sorted(root.glob(f"*/{claim.table}.parquet")):
        frame = read_table(root, f"{path.parent.name}/{claim.table}")
        if frame is None:
            continue
        rows = frame.query(claim.rows, engine="python")
        if len(rows):
            found[path.parent.name] = rows
    return found


def holders(root: Path) -> set[str]:
    """The studies under ``root`` whose tables hold a row that judges a claim."""
    files = sorted({path for claim in claims().values() if claim.table
                    for path in root.glob(f"*/{claim.table}.parquet")})
    # Keyed by the files' times and sizes, as ``figures.cite.read_table``: every section's
    # ``given`` asks this of every study, several times per report.
    return set(_holders(root, tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size)
                                    for p in files)))


@functools.lru_cache(maxsize=16)
def _holders(root: Path, files: tuple[tuple[str, int, int], ...]) -> frozenset[str]:
    return frozenset(study for claim in claims().values() if claim.table
                     for study in locate(root, claim))


def _label(rows: pd.DataFrame, claim: Claim, key: str) -> int:
    """The label of the claim's row among ``rows``: the only one, or the one ``pick`` names."""
    if not claim.pick:
        if len(rows) != 1:
            raise ValueError(f"the claim {key} selects {len(rows)} rows of {claim.table}, not "
                             "one: narrow its rows or give it a pick")
        return int(rows.index[0])
    how, _, column = claim.pick.partition(":")
    values = rows[column] if column in rows else rows.eval(column)
    return int(values.idxmax() if how == "largest" else values.idxmin())


def judge(cite: Tables, key: str, claim: Claim) -> Entry:
    """``claim`` against the tables under ``cite.tables``."""
    if claim.untestable:
        return Entry(key, claim, UNTESTABLE, claim.untestable)
    found = locate(cite.tables, claim) if claim.table else {}
    if not found:
        where = f"no study's {claim.table} table has its row" if claim.table else ""
        return Entry(key, claim, PENDING, "; ".join(filter(None, (claim.pending, where))))
    if len(found) > 1:
        raise ValueError(f"the claim {key} finds its row in the {claim.table} tables of "
                         f"{', '.join(found)}: its rows must name one study's cells")
    (study, rows), = found.items()
    frame = cite.read(study, claim.table)
    label = _label(rows, claim, key)
    row = Row(frame, label, cite.ledger)
    judged = row.evaluated(claim.judged)
    word = str(judged.value)
    if word not in claim.verdicts:
        raise ValueError(f"the claim {key} has no verdict for {claim.judged} = {word!r}")
    # A paired table's difference whose 90% interval also lies inside the margin is small: shown,
    # and shown smaller than the effect stated before the run. Where that is the direction the
    # claim predicts, the claim of an effect that matters is judged as equivalence is.
    small = row["within_margin"] if "within_margin" in frame else None
    equivalence = claim.verdicts.get("equivalent", (SUPPORTED,))[0]
    promoted = tuple(w for w in ("higher", "lower") if equivalence != SUPPORTED
                     and claim.verdicts.get(w, ("",))[0] == SUPPORTED)
    key_of = "str(x0)" if small is None else (
        f"'equivalent' if x1 and str(x0) in {promoted!r} else str(x0)")
    read = eval(key_of, {"x0": judged.value, "x1": None if small is None else small.value})
    verdict, reason = claim.verdicts[read]
    if read != word:
        reason = f"{word} after Holm, but {reason}"
    elif word in ("higher", "lower") and small is not None and small.value:
        reason += ", by less than the equivalence margin"
    # The verdict's source is the judged cell (and whether it lies within the margin) and the
    # claim's mapping of its values, so the verdict printed is read again from the table by
    # ``figures.cite.value_of``.
    mapping = {value: words[0] for value, words in claim.verdicts.items()}
    parts = (judged.source,) if small is None else (judged.source, small.source)
    cited = Cited(verdict, Source("derived", expression=f"{mapping!r}[{key_of}]", parts=parts),
                  cite.ledger)
    return Entry(key, claim, verdict, reason, cited, study, row, frame, label)


def entries(cite: Tables) -> list[Entry]:
    """Every claim judged against the tables under ``cite.tables``, in the ledger's order."""
    return [judge(cite, key, claim) for key, claim in claims().items()]


def counts(cite: Tables, judged: list[Entry]) -> dict[str, Cited]:
    """How many claims took each verdict, by name (``Claims``, ``Supported``, ``Contradicted``,
    ``Unresolved``, ``Untestable``, ``Pending``), each cited: the tested verdicts derived from
    the cells they are read from, the untestable from the code, the pending the rest."""
    parts = tuple(e.cited_verdict.source for e in judged if e.cited_verdict is not None)
    values = [e.verdict for e in judged if e.cited_verdict is not None]
    names = ", ".join(f"x{i}" for i in range(len(parts)))

    def tally(verdict: str) -> Cited:
        return Cited(values.count(verdict),
                     Source("derived", expression=f"[{names}].count({verdict!r})", parts=parts),
                     cite.ledger)

    total = cite.constant("len(figures.ledger.claims())")
    found = {"Claims": total, "Supported": tally(SUPPORTED),
             "Contradicted": tally(CONTRADICTED), "Unresolved": tally(UNRESOLVED),
             "Untestable": cite.constant("figures.ledger.untestable()")}
    found["Pending"] = (total - found["Supported"] - found["Contradicted"]
                        - found["Unresolved"] - found["Untestable"])
    return found
