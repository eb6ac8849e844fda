"""Numbers in prose that know where they come from.

The report writes numbers only through ``Cited`` values: a table's cell (read through
``rows``/``first``/``last``/``smallest``/``largest``), a count of a table's rows that meet a query
(``count``), a value of a study's manifest (``manifest_value``), or a named constant of the code
(``constant``), and arithmetic on those (``a - b`` of one row stays traceable: its source is the
expression of the row's columns; across sources it is ``derived`` from each). Formatting a
``Cited`` (``f"{x:.3f}"``) records the printed text and its source in a ``Ledger`` and brackets
the text with invisible marks that carry its entry's number, so the report can refuse any digit in
its prose that no ``Cited`` wrote (``unmarked_digits``), note where in the report each entry
landed (``placed``), and a test can read every source again from the files and compare the text
(``expected_text``). Digits that are not results (a figure's number in a book, an exponent in a
formula) are declared with ``Tables.literal``.
"""

from __future__ import annotations

import functools
import importlib
import json
import operator
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.families import plain

OPEN, SEPARATOR, CLOSE = "\x02", "\x1f", "\x03"
MARKED = re.compile(f"{OPEN}(\\d+){SEPARATOR}([^{CLOSE}]*){CLOSE}")
INDEX = "table_row"
"""The index of a table read for the report: its row in the table, which a cited cell names."""


@dataclass(frozen=True)
class Source:
    """Where a number comes from. ``kind``: ``cell`` (``table`` = "study/name", ``row`` = its
    row in the table, ``expression`` = a column or a ``DataFrame.eval`` expression of the row's
    columns), ``count`` (rows of ``table`` meeting the ``DataFrame.query`` in ``expression``;
    empty: every row), ``manifest`` (``table`` = the study, ``expression`` = the dotted path in
    its manifest), ``constant`` (``expression`` = a Python expression of dotted names, e.g.
    ``1 - analysis.families.ALPHA``), ``derived`` (a Python expression of ``x0``, ``x1``, ... the
    values of ``parts``, for arithmetic across sources) or ``literal`` (not a result)."""

    kind: str
    table: str = ""
    row: int = -1
    expression: str = ""
    parts: tuple[Source, ...] = ()


@dataclass
class Ledger:
    """Every number the prose printed, in order: its text, its source, how it was formatted (a
    format spec, or a function of ``FORMATTERS`` by its qualified name) and, once the report has
    taken the line it is in, where (``line`` of the report and ``column`` in it)."""

    entries: list[dict[str, Any]] = field(default_factory=list)

    def record(self, text: str, source: Source, spec: str = "", formatter: str = "") -> str:
        """Add an entry; return its text marked with the entry's number."""
        if OPEN in text or CLOSE in text:
            raise ValueError(f"cited text holds cited text: {text!r}")
        self.entries.append({"text": text, "kind": source.kind,
                             "source": json.dumps(asdict(source)), "spec": spec,
                             "formatter": formatter, "line": -1, "column": -1})
        return f"{OPEN}{len(self.entries) - 1}{SEPARATOR}{text}{CLOSE}"

    def placed(self, line: str, number: int) -> str:
        """``line`` without its marks, noting for each marked entry that it is at ``number``
        (a line of the report) and at which column."""
        parts, end = [], 0
        for match in MARKED.finditer(line):
            parts.append(line[end:match.start()])
            entry = self.entries[int(match.group(1))]
            entry["line"], entry["column"] = number, sum(map(len, parts))
            parts.append(match.group(2))
            end = match.end()
        parts.append(line[end:])
        return "".join(parts)

    def frame(self) -> pd.DataFrame:
        """The ledger as a table (one row per printed number; ``source`` as JSON)."""
        return pd.DataFrame(self.entries, columns=["text", "kind", "source", "spec", "formatter",
                                                   "line", "column"])


FORMATTERS: dict[str, Callable[[Any], str]] = {}
"""Functions that turn a value into prose text, by name, so ``verify`` can apply them again."""


def formatter(function: Callable[[Any], str]) -> Callable[[Any], str]:
    """Register ``function`` as a formatter ``Cited.shown`` may use, under its qualified name
    (``figures.words.pvalue``), so that ``expected_text`` can import it again."""
    FORMATTERS[qualified(function)] = function
    return function


def qualified(function: Callable[[Any], str]) -> str:
    """A formatter's name as the ledger records it: its module and qualified name."""
    module = function.__module__
    if module == "__main__":  # run as ``python -m figures.report``: name the module, not main
        spec = sys.modules["__main__"].__spec__
        module = spec.name if spec is not None else module
    return f"{module}.{function.__qualname__}"


def _binary(symbol: str, apply: Callable[[Any, Any], Any], reflected: bool = False):
    def method(self: Cited, other: object) -> Cited:
        left, right = (other, self) if reflected else (self, other)
        return Cited.combine(symbol, apply, left, right)
    return method


def _compare(apply: Callable[[Any, Any], bool]):
    def method(self: Cited, other: object) -> bool:
        return apply(self.value, other.value if isinstance(other, Cited) else other)
    return method


class Cited:
    """A value with its ``Source``; formatting it records the text in ``ledger``."""

    __slots__ = ("ledger", "source", "value")

    def __init__(self, value: Any, source: Source, ledger: Ledger) -> None:
        self.value, self.source, self.ledger = value, source, ledger

    def __format__(self, spec: str) -> str:
        return self.ledger.record(format(self.value, spec), self.source, spec)

    def __str__(self) -> str:
        return format(self, "")

    def shown(self, function: Callable[[Any], str]) -> str:
        """The value as ``function`` (a registered formatter) writes it, recorded."""
        name = qualified(function)
        if FORMATTERS.get(name) is not function:
            raise ValueError(f"{name} is not a registered formatter")
        return self.ledger.record(function(self.value), self.source, formatter=name)

    def __float__(self) -> float:
        return float(self.value)

    def __int__(self) -> int:
        return int(self.value)

    def __bool__(self) -> bool:
        return bool(self.value)

    def __repr__(self) -> str:
        return f"Cited({self.value!r}, {self.source})"

    @staticmethod
    def combine(symbol: str, apply: Callable[[Any, Any], Any], left: object,
                right: object) -> Cited:
        """``left symbol right`` where each is a Cited or a plain number. Within one row of one
        table (or among constants) the source is one expression of that row (or of the
        constants); across sources it is ``derived`` from both."""
        cited = [x for x in (left, right) if isinstance(x, Cited)]
        places = {(c.source.kind, c.source.table, c.source.row) for c in cited}
        value = apply(*(x.value if isinstance(x, Cited) else x for x in (left, right)))
        if len(places) == 1 and cited[0].source.kind in ("cell", "constant"):
            def term(x: object) -> str:
                return f"({x.source.expression})" if isinstance(x, Cited) else plain(x)
            first = cited[0].source
            source = Source(first.kind, first.table, first.row,
                            f"{term(left)} {symbol} {term(right)}")
        else:
            parts = tuple(c.source for c in cited)
            names = iter(f"x{i}" for i in range(len(parts)))
            terms = [next(names) if isinstance(x, Cited) else plain(x) for x in (left, right)]
            source = Source("derived", expression=f"{terms[0]} {symbol} {terms[1]}",
                            parts=parts)
        return Cited(value, source, cited[0].ledger)

    @staticmethod
    def gather(*values: Cited) -> Cited:
        """The tuple of ``values``, for a formatter that prints them together (a budget with its
        interval and its bounds); its source is ``derived`` from each."""
        names = ", ".join(f"x{i}" for i in range(len(values)))
        return Cited(tuple(v.value for v in values),
                     Source("derived", expression=f"({names},)",
                            parts=tuple(v.source for v in values)), values[0].ledger)

    __add__, __radd__ = _binary("+", operator.add), _binary("+", operator.add, True)
    __sub__, __rsub__ = _binary("-", operator.sub), _binary("-", operator.sub, True)
    __mul__, __rmul__ = _binary("*", operator.mul), _binary("*", operator.mul, True)
    __truediv__ = _binary("/", operator.truediv)
    __rtruediv__ = _binary("/", operator.truediv, True)
    __pow__ = _binary("**", operator.pow)
    __lt__, __le__ = _compare(operator.lt), _compare(operator.le)
    __gt__, __ge__ = _compare(operator.gt), _compare(operator.ge)

    def __eq__(self, other: object) -> bool:
        return self.value == (other.value if isinstance(other, Cited) else other)

    __hash__ = None  # equal to its value, so not usable as a key

    def __neg__(self) -> Cited:
        return Cited.combine("*", operator.mul, -1, self)


class Row:
    """One row of a table whose attributes are ``Cited`` cells."""

    def __init__(self, frame: pd.DataFrame, label: int, ledger: Ledger) -> None:
        if frame.index.name != INDEX:  # reset, pivoted or joined: rows no longer name CSV rows
            raise ValueError(f"{frame.attrs.get('table')}: cited rows must keep the table's rows "
                             f"as their index ({INDEX})")
        self._frame, self._label, self._ledger = frame, label, ledger

    def __getattr__(self, column: str) -> Cited:
        if column.startswith("_") or column not in self._frame.columns:
            raise AttributeError(column)
        return self[column]

    def __getitem__(self, column: str) -> Cited:
        # .at keeps the column's dtype (a row as a Series would turn the integers into floats).
        return Cited(self._frame.at[self._label, column],
                     Source("cell", self._frame.attrs["table"], int(self._label), column),
                     self._ledger)

    def estimate(self, value: str = "budget_to_target", low: str = "ci_low",
                 high: str = "ci_high") -> Cited:
        """A budget to a target of this row with its interval and the columns that say how to
        read it (``figures.words.ESTIMATE``), gathered for ``figures.words.budget_estimate``."""
        return Cited.gather(self[value], self[low], self[high],
                            *(self[column] for column in ("reached", "at_first_checkpoint",
                                                          "largest_budget")))

    def evaluated(self, expression: str) -> Cited:
        """A column, or a ``DataFrame.eval`` expression of this row's columns, e.g.
        ``ci_high - ci_low``."""
        if expression in self._frame.columns:
            return self[expression]
        value = _values(self._frame.loc[[self._label]], expression).iat[0]
        return Cited(value, Source("cell", self._frame.attrs["table"], int(self._label),
                                   expression), self._ledger)


class Tables:
    """Reads a study's tables (Parquet, typed) for the report, each tagged with its name so its
    rows cite themselves, and the ledger they write to."""

    def __init__(self, tables: Path, runs: Path) -> None:
        self.tables, self.runs, self.ledger = tables, runs, Ledger()

    def read(self, study: str, name: str) -> pd.DataFrame | None:
        """One table of one study, or None where it was not made or has no rows."""
        frame = read_table(self.tables, f"{study}/{name}")
        if frame is not None:
            frame.attrs["table"] = f"{study}/{name}"
            frame.index.name = INDEX
        return frame

    def rows(self, frame: pd.DataFrame) -> Iterator[Row]:
        """The rows of ``frame`` (a table read by ``read``, or a selection of one)."""
        for label in frame.index:
            yield Row(frame, label, self.ledger)

    def first(self, frame: pd.DataFrame) -> Row:
        """The first row of ``frame``."""
        return Row(frame, frame.index[0], self.ledger)

    def last(self, frame: pd.DataFrame) -> Row:
        """The last row of ``frame``."""
        return Row(frame, frame.index[-1], self.ledger)

    def smallest(self, frame: pd.DataFrame, expression: str) -> Cited:
        """The smallest value of a column (or ``DataFrame.eval`` expression) over ``frame``'s
        rows, cited from the row that has it."""
        return Row(frame, _values(frame, expression).idxmin(), self.ledger).evaluated(expression)

    def largest(self, frame: pd.DataFrame, expression: str) -> Cited:
        """The largest value, as ``smallest``."""
        return Row(frame, _values(frame, expression).idxmax(), self.ledger).evaluated(expression)

    def whole(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The whole table that ``frame`` was selected from."""
        study, name = frame.attrs["table"].split("/")
        return self.read(study, name)

    def count(self, frame: pd.DataFrame, query: str = "") -> Cited:
        """How many rows of the whole table ``frame`` comes from meet ``query``
        (``DataFrame.query``, Python engine; empty: every row)."""
        table = frame.attrs["table"]
        return Cited(_count(self.whole(frame), query), Source("count", table, -1, query),
                     self.ledger)

    def manifest_value(self, study: str, path: str) -> Cited:
        """A value of a study's manifest by its dotted path, e.g. ``config.deployment_pulls``
        or ``config.environments.0.arms``."""
        return Cited(_manifest_value(self.runs, study, path),
                     Source("manifest", study, -1, path), self.ledger)

    def constant(self, dotted: str) -> Cited:
        """A named constant of the code, e.g. ``analysis.families.ALPHA``."""
        return Cited(_evaluate(dotted), Source("constant", "", -1, dotted), self.ledger)

    def literal(self, text: str) -> str:
        """Text with digits that is not a result (a name such as "Figure 2.5", a formula)."""
        return str(self.declared(text))

    def declared(self, text: str) -> Cited:
        """``literal`` as a value a template prints: recorded where it is printed, not where it
        is chosen."""
        return Cited(text, Source("literal"), self.ledger)


def read_table(tables: Path, table: str) -> pd.DataFrame | None:
    """``tables/<study>/<name>.parquet`` with its columns' types, or None where it is missing
    or has no columns (a question with no rows at all; a fresh copy)."""
    path = tables / f"{table}.parquet"
    if not path.is_file():
        return None
    stat = path.stat()
    frame = _read_parquet(str(path), stat.st_mtime_ns, stat.st_size)
    return None if frame.columns.empty else frame.copy()


@functools.lru_cache(maxsize=256)
def _read_parquet(path: str, modified: int, size: int) -> pd.DataFrame:
    # Keyed by the file's time and size too, so a table written again is read again; writing a
    # report, and checking its numbers, read each table hundreds of times.
    return pd.read_parquet(path)


def _values(frame: pd.DataFrame, expression: str) -> pd.Series:
    """A column of ``frame``, or a ``DataFrame.eval`` expression of its columns."""
    return frame[expression] if expression in frame.columns else frame.eval(expression)


def _count(frame: pd.DataFrame, query: str) -> int:
    return len(frame.query(query, engine="python")) if query else len(frame)


def _manifest_value(runs: Path, study: str, path: str) -> Any:
    value = json.loads((runs / study / "manifest.json").read_text())
    for key in path.split("."):
        value = value[int(key)] if isinstance(value, list) else value[key]
    return value


def _evaluate(expression: str) -> Any:
    """A Python expression of dotted names of the code's modules (``analysis.x.NAME``)."""
    namespace = {}
    for dotted in re.findall(r"\b(?:analysis|figures|study)(?:\.\w+)+", expression):
        module, _ = dotted.rsplit(".", 1)
        importlib.import_module(module)
        top = dotted.split(".", 1)[0]
        namespace[top] = importlib.import_module(top)
    return eval(expression, namespace)


def unmarked_digits(line: str) -> str:
    """The digits of a line of prose outside cited and literal text ("" when there are none)."""
    return "".join(re.findall(r"\d", MARKED.sub("", line)))


def unmark(text: str) -> str:
    """Text without the marks ``Ledger.record`` put around each cited number."""
    return MARKED.sub(lambda match: match.group(2), text)


def value_of(source: dict[str, Any], tables: Path, runs: Path) -> Any:
    """The value a source (``Source`` as a dict) names, read again from the files."""
    kind, table, expression = source["kind"], source["table"], source["expression"]
    if kind == "cell":
        return _values(read_table(tables, table).loc[[int(source["row"])]], expression).iat[0]
    if kind == "count":
        return _count(read_table(tables, table), expression)
    if kind == "manifest":
        return _manifest_value(runs, table, expression)
    if kind == "derived":
        values = {f"x{i}": value_of(part, tables, runs) for i, part in enumerate(source["parts"])}
        return eval(expression, values)
    if kind == "constant":
        return _evaluate(expression)
    raise ValueError(f"a source of kind {kind!r} has no value")


def expected_text(entry: pd.Series | dict, tables: Path, runs: Path) -> str | None:
    """The text an entry of the ledger should have, recomputed from its source in the files
    (None for a literal)."""
    source = json.loads(entry["source"])
    if source["kind"] == "literal":
        return None
    value = value_of(source, tables, runs)
    name = entry["formatter"]
    if isinstance(name, str) and name:
        importlib.import_module(name.rsplit(".", 1)[0])  # registers its formatters
        return FORMATTERS[name](value)
    spec = entry["spec"]
    return format(value, "" if pd.isna(spec) else spec)
