"""A two-level fractional factorial design over a study's parts (a config's ``[design]``).

Each factor is a part of the run with two levels, each level a few grid keys: a sampler's
(``lag``, ``mismatch``, ``top_p``, ``kl_beta``, ``kl_estimator``, a correction's parameters), a
correction's part (``correction``: the parts of the factors at their levels are joined by ``+``,
``none`` where none is set) or a reward model's or verdict's parameter (``penalty``,
``false_positive``, ...). The design's runs are the rows of ``pydoe.fracfact`` for the declared
generators (the letters a, b, ... name the factors in their order; a word such as ``abcdeg``
makes its factor's column the product of theirs): row r sets each factor at its low level where
the row has -1, at its high level where it has +1, and the rest of the grid is the config's.

A design of resolution R estimates every effect of fewer than R / 2 factors free of every other
effect of fewer than R / 2 (resolution V: every main effect and every two-factor interaction,
aliased with interactions of three factors or more only). The resolution is measured from the
defining relation (the sets of columns whose product is constant over the rows) and a config
states the least it accepts.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from pydoe import fracfact, fracfact_aliasing

Level = tuple[tuple[str, object], ...]
"""A factor's level: the grid keys it sets with their values, in the config's order."""
ROLES = ("hazard", "remedy")
"""What a factor may declare it is: a condition the trainer meets (its high level the hazard) or
a part a protocol adds (its high level the remedy); the analysis compares the design's rows
that these name (every part high, the hazards alone, ...)."""


@dataclass(frozen=True)
class Factor:
    """A part of the run at two levels (``low`` coded -1, ``high`` +1)."""

    name: str
    low: Level
    high: Level
    role: str = ""
    """``ROLES``, or "" for neither."""

    def level(self, coded: float) -> Level:
        """The level a design row's entry (-1 or +1) sets."""
        return self.high if coded > 0 else self.low


@dataclass(frozen=True)
class Design:
    """The factors and the generators of a two-level fractional factorial (the module's
    docstring)."""

    factors: tuple[Factor, ...]
    generators: str

    @cached_property
    def matrix(self) -> np.ndarray:
        """(rows, factors): each row's coded levels, -1 or +1, in ``pydoe.fracfact``'s order."""
        return fracfact(self.generators).astype(np.int8)

    @property
    def names(self) -> tuple[str, ...]:
        """The factors' names in their order (the generators' letters a, b, ...)."""
        return tuple(factor.name for factor in self.factors)

    def defining_relation(self) -> list[tuple[str, ...]]:
        """The words of the defining relation: every set of factors whose columns' product is the
        same on every row (the effects that the design cannot tell from the grand mean)."""
        found = []
        for size in range(1, len(self.factors) + 1):
            for chosen in itertools.combinations(range(len(self.factors)), size):
                product = np.prod(self.matrix[:, chosen], axis=1)
                if np.all(product == product[0]):
                    found.append(tuple(self.names[i] for i in chosen))
        return found

    @property
    def resolution(self) -> int:
        """The length of the shortest word of the defining relation (the number of factors plus
        one for a full factorial, which has none)."""
        return min((len(word) for word in self.defining_relation()),
                   default=len(self.factors) + 1)

    def aliases(self) -> dict[str, str]:
        """Each main effect and two-factor interaction (``a`` and ``a:b`` by factor names) with
        the effects it is aliased with (``pydoe.fracfact_aliasing``), as text, ``b:c:d = ...``;
        "" where it is aliased with none."""
        letters = {chr(ord("a") + i): name for i, name in enumerate(self.names)}
        found = {}
        for group in fracfact_aliasing(self.matrix.astype(float))[0]:
            terms = [":".join(letters[c] for c in term.strip()) for term in group.split("=")]
            for term in terms:
                if term.count(":") <= 1:
                    found[term] = " = ".join(t for t in terms if t != term)
        return found

    def rows(self) -> list[dict[str, object]]:
        """Each row's grid keys at its levels; ``correction`` is the join of the parts the row's
        levels set (``none`` where a factor sets it and no level of the row does)."""
        corrects = any(key == "correction" for factor in self.factors
                       for key, _ in (*factor.low, *factor.high))
        found = []
        for coded in self.matrix:
            keys: dict[str, object] = {}
            parts: list[str] = []
            for factor, entry in zip(self.factors, coded, strict=True):
                for key, value in factor.level(entry):
                    if key == "correction":
                        parts.append(str(value))
                    else:
                        keys[key] = value
            if corrects:
                keys["correction"] = "+".join(parts) or "none"
            found.append(keys)
        return found

    def row_of(self, coded: np.ndarray) -> int:
        """The index of the row with these coded levels, -1 where the fraction has none."""
        found = np.flatnonzero((self.matrix == np.asarray(coded)).all(axis=1))
        return int(found[0]) if len(found) else -1

    def named_rows(self) -> dict[str, int]:
        """The rows the factors' roles name, each present in the fraction: ``plain`` (every
        part low), ``full_recipe`` (every part high), ``hazards_alone`` and ``remedies_alone``
        (the factors of that role high, the rest low); those the fraction lacks are left out."""
        roles = np.array([factor.role for factor in self.factors])
        wanted = {"plain": np.full(len(roles), -1), "full_recipe": np.ones(len(roles)),
                  "hazards_alone": np.where(roles == "hazard", 1, -1),
                  "remedies_alone": np.where(roles == "remedy", 1, -1)}
        return {name: row for name, coded in wanted.items()
                if (row := self.row_of(coded.astype(np.int8))) >= 0}

    def to_dict(self) -> dict[str, object]:
        """The design as the simulation's text records it (the factors' roles, which change no
        simulation, left out)."""
        return {"generators": self.generators,
                "factors": [{"name": f.name, "low": dict(f.low), "high": dict(f.high)}
                            for f in self.factors]}
