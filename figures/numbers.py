"""The named numbers: one name, one value, one source for each number the write-up prints.

A ``Registry`` holds named ``figures.cite.Cited`` values, each with the one way it is printed (a
format spec or a registered formatter). The report's templates print them by name, the paper
defines its macros from them and ``numbers.tex`` lists them with their sources, so a value has
one name everywhere and every printed copy can be read again from its source. Putting a name
twice is allowed only for the same source printed the same way: two values under one name, or
one printed two ways, is an error. Names are CamelCase letters (they are LaTeX macro names).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from figures.cite import Cited, qualified

NAME = re.compile(r"[A-Z][A-Za-z]*")

_ONES = ["", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
         "Eleven", "Twelve", "Thirteen", "Fourteen", "Fifteen", "Sixteen", "Seventeen",
         "Eighteen", "Nineteen"]
_TENS = ["", "", "Twenty", "Thirty", "Forty", "Fifty", "Sixty", "Seventy", "Eighty", "Ninety"]


def number_word(n: int) -> str:
    """An integer as CamelCase English words, for LaTeX macro names (which take no digits):
    5000 -> ``FiveThousand``, 200 -> ``TwoHundred``."""
    if n == 0:
        return "Zero"
    for size, name in ((10**9, "Billion"), (10**6, "Million"), (1000, "Thousand"),
                       (100, "Hundred")):
        if n >= size:
            rest = n % size
            return number_word(n // size) + name + (number_word(rest) if rest else "")
    return _ONES[n] if n < 20 else _TENS[n // 10] + _ONES[n % 10]


def study_prefix(study: str) -> str:
    """A study's name as the CamelCase prefix of its named numbers and LaTeX macros (digits
    spelled out): ``my_study_2`` -> ``MyStudyTwo``."""
    return "".join(number_word(int(w)) if w.isdigit() else w[:1].upper() + w[1:]
                   for w in re.findall(r"\d+|[A-Za-z]+", study))


def macro_name(*parts: str) -> str:
    """A LaTeX command name from parts: letters only, each part capitalised."""
    name = "".join(part[:1].upper() + part[1:] for part in parts)
    if not re.fullmatch(r"[A-Za-z]+", name):
        raise ValueError(f"not a LaTeX macro name: {name!r}")
    return name


@dataclass(frozen=True)
class Named:
    """A cited value and how it is printed: ``spec`` (``format``) or ``shown`` (a registered
    formatter, ``figures.cite.formatter``)."""

    value: Cited
    spec: str = ""
    shown: Callable[[Any], str] | None = None

    def marked(self) -> str:
        """The printed text, recorded in the value's ledger (a new entry for every copy, so each
        copy's place in the report is noted)."""
        return self.value.shown(self.shown) if self.shown else format(self.value, self.spec)

    def __str__(self) -> str:
        """``marked``: a template prints a value it was given as the number it names, recorded
        where the template prints it."""
        return self.marked()

    def plain(self) -> str:
        """The printed text, not recorded (for files that list the numbers with their
        sources)."""
        return self.shown(self.value.value) if self.shown else format(self.value.value,
                                                                      self.spec)


class Registry:
    """Named numbers, in the order they were put."""

    def __init__(self) -> None:
        self._named: dict[str, Named] = {}
        self._scoped: dict[str, dict[str, str]] = {}

    def put(self, name: str, value: Cited, spec: str = "",
            shown: Callable[[Any], str] | None = None) -> None:
        """Name ``value``, printed with ``spec`` or by ``shown``."""
        if not NAME.fullmatch(name):
            raise ValueError(f"{name!r} is not a name of CamelCase letters")
        named = Named(value, spec, shown)
        known = self._named.get(name)
        if known is not None and (known.value.source, known.spec, known.shown) != (
                value.source, spec, shown):
            raise ValueError(f"{name} would name two numbers: {known.value.source} printed "
                             f"{known.spec or known.shown!r}, and {value.source} printed "
                             f"{spec or shown!r}")
        self._named[name] = named

    def put_scoped(self, prefix: str, name: str, value: Cited, spec: str = "",
                   shown: Callable[[Any], str] | None = None) -> None:
        """``put`` under ``<prefix><name>``, remembered as ``name`` of ``scoped(prefix)``."""
        self.put(prefix + name, value, spec, shown)
        self._scoped.setdefault(prefix, {})[name] = prefix + name

    def __contains__(self, name: str) -> bool:
        return name in self._named

    def __iter__(self) -> Iterator[str]:
        return iter(self._named)

    def text(self, name: str) -> str:
        """The number called ``name`` as printed, recorded in its ledger."""
        return self._named[name].marked()

    def scope(self, prefix: str) -> Scope:
        """The names that begin with ``prefix``, by the rest of their name: a template's view
        of one study's numbers."""
        return Scope(self, prefix)

    def scoped(self, prefix: str) -> dict[str, str]:
        """The names put through ``scope(prefix)``, by the rest of their name (not every name
        that begins with ``prefix``: ``MyStudy`` is a prefix of ``MyStudyTwo``'s
        names too)."""
        return dict(self._scoped.get(prefix, {}))

    def frame(self) -> pd.DataFrame:
        """One row per name: its printed text, its source (JSON, ``figures.cite.Source``) and
        how it is printed (``spec`` or ``formatter``, as the ledger records them, so
        ``figures.cite.expected_text`` reads a row again from the files)."""
        return pd.DataFrame(
            [{"name": name, "text": named.plain(), "kind": named.value.source.kind,
              "source": json.dumps(asdict(named.value.source)), "spec": named.spec,
              "formatter": qualified(named.shown) if named.shown else ""}
             for name, named in self._named.items()],
            columns=["name", "text", "kind", "source", "spec", "formatter"])

    def latex(self) -> str:
        """Every name as a LaTeX macro, each after a comment line that gives its source."""
        lines = []
        for row in self.frame().itertuples():
            text = (row.text.replace("%", "\\%").replace("<=", "$\\leq$")
                    .replace(">", "$>$"))
            lines += [f"% {row.name}: {row.source}", f"\\newcommand{{\\{row.name}}}{{{text}}}"]
        return "\n".join(lines) + "\n"


class Scope:
    """A registry seen through a prefix: ``scope.Seeds`` prints ``<prefix>Seeds`` (or, where the
    study has no such number, the constant ``Seeds`` that no study owns), and
    ``scope.put("Seeds", ...)`` names it."""

    def __init__(self, registry: Registry, prefix: str) -> None:
        self._registry, self._prefix = registry, prefix

    def put(self, name: str, value: Cited, spec: str = "",
            shown: Callable[[Any], str] | None = None) -> None:
        """``Registry.put`` under ``<prefix><name>``."""
        self._registry.put_scoped(self._prefix, name, value, spec, shown)

    def put_constant(self, name: str, value: Cited, spec: str = "",
                     shown: Callable[[Any], str] | None = None) -> None:
        """``Registry.put`` under ``name`` itself: a constant of the code is no study's, so
        every study and the paper print it under one name."""
        self._registry.put(name, value, spec, shown)

    def resolve(self, name: str) -> str:
        """The registry's name for ``name``: the study's own, else the plain constant's."""
        for full in (self._prefix + name, name):
            if full in self._registry:
                return full
        raise AttributeError(f"no number is named {self._prefix + name}")

    def __getattr__(self, name: str) -> str:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._registry.text(self.resolve(name))

    def __getitem__(self, name: str) -> str:
        """``scope["Slope" ~ key]`` in a template: a name built from parts."""
        return getattr(self, name)
