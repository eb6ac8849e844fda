"""What the off-policy studies' sections share: named counts of a paired table's findings
(``analysis.offpolicy.compare_with_partners``'s: each cell against its partner on the served and
the learner's pass rate, accuracy, the stuck share and collapse), each distinct simulation pair
counted once, per stratum of the factor the effect depends on and per correction within it,
which ``phrases.md.j2``'s ``findings``, ``per_correction`` and ``paired_findings`` print; and
their figures' layout, a panel per lr and bandit with a series per correction."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.axes import Axes

from analysis.families import plain
from analysis.roles import Finding, RatioFinding
from figures.cite import Tables
from figures.claims import distinct, families
from figures.numbers import Scope, macro_name, number_word
from figures.style import outside_legend, save

METRICS = {"served_pass_rate": "ServedPassRate", "pass_rate": "PassRate",
           "accuracy": "Accuracy", "stuck": "Stuck", "collapsed": "Collapsed"}
"""Each metric in the names of its numbers, the post-training readers' metric as a user meets it
(the served policy's pass rate) first."""
MARGINLESS = ("stuck", "collapsed")
"""The metrics no margin was stated for: never called equivalent."""
DISTINCT = "distinct"
"""The query of a paired table's rows that count: each pair of distinct simulations once
(``analysis.offpolicy.compare_with_partners``)."""


def correction_word(correction: str) -> str:
    """A correction in the names of its numbers: ``tis+keep_mask`` -> ``TisKeepMask``."""
    return macro_name(*correction.replace("+", "_").split("_"))


def present(tests: pd.DataFrame) -> dict[str, str]:
    """The ``METRICS`` a paired table holds (the served pass rate only where the sampler
    truncates or mismatches somewhere: else the served policy is the learner's)."""
    return {metric: word for metric, word in METRICS.items() if (tests["metric"] == metric).any()}


def stratum_word(i: int) -> str:
    """The i-th stratum (from 0) in the names of its numbers: ``AtOne``, ``AtTwo`` ..."""
    return f"At{number_word(i + 1)}"


def _name_counts(cite: Tables, numbers: Scope, tests: pd.DataFrame, stem: str, at: str,
                 corrections: list[str]) -> None:
    """Name the rows ``at`` selects (``<stem>Rows``), their count per finding
    (``<stem><Finding>``) and per finding and correction (``...<Correction>``)."""
    numbers.put(f"{stem}Rows", cite.count(tests, at), ",")
    for finding in Finding:
        where = f"{at} and finding == {finding.value!r}"
        numbers.put(f"{stem}{finding.value.capitalize()}", cite.count(tests, where), ",")
        for correction in corrections:
            numbers.put(f"{stem}{finding.value.capitalize()}{correction_word(correction)}",
                        cite.count(tests, f"{where} and correction == {correction!r}"), ",")


LABELS = {"top_p": "top-p", "lr": "learning rate", "mismatch": "mismatch",
          "correction": "correction"}
"""A stratum's column as the prose names it (words a Typst paragraph prints as they are)."""


def _strata(cite: Tables, numbers: Scope, tests: pd.DataFrame, prefix: str,
            stratum: tuple[str, ...], corrections: list[str]) -> list[dict[str, Any]]:
    """Each combination of the ``stratum`` columns' values that has distinct rows, in order:
    its ``query``, its ``word`` (``stratum_word``), its ``values`` (each column's ``label``,
    cited ``value`` and ``word``, named ``<prefix>Stratum<At...><Column>``) and its
    ``corrections`` with a distinct pair of their own (the kept mask at top_p 1 repeats the
    unmasked cell: nothing of its own to count there)."""
    combinations = sorted(tests.loc[tests[DISTINCT], list(stratum)].drop_duplicates()
                          .itertuples(index=False, name=None))
    found = []
    for i, combination in enumerate(combinations):
        query = " and ".join(f"{column} == {plain(value)}"
                             for column, value in zip(stratum, combination, strict=True))
        first = cite.first(tests.query(f"{DISTINCT} and {query}"))
        word = stratum_word(i)
        values = []
        for column in stratum:
            part = macro_name(*column.split("_"))
            cited = first[column]
            numbers.put(f"{prefix}Stratum{word}{part}", cited,
                        "" if isinstance(cited.value, str) else "g")
            values.append({"label": LABELS.get(column, column), "value": cited, "word": part})
        chosen = tests.query(f"{DISTINCT} and {query}")
        found.append({"query": query, "word": word, "values": values, "corrections": [
            {"name": c, "word": correction_word(c)} for c in corrections
            if (chosen["correction"] == c).any()]})
    return found


def name_findings(cite: Tables, numbers: Scope, tests: pd.DataFrame, prefix: str,
                  stratum: tuple[str, ...] = ()) -> tuple[list[dict[str, Any]],
                                                          list[dict[str, Any]]]:
    """Name, under ``prefix``, each metric's distinct rows (``<prefix><Metric>Rows``), their
    margin, and their count per finding in all (``<prefix><Metric><Finding>``) and per
    correction (``...<Correction>``, with ``<prefix><Metric>PerCorrection`` rows each); with
    ``stratum`` columns, the same within each combination of their values
    (``<prefix><Metric>At<One>...``, ``_strata``). Return the corrections, each its ``name``
    and ``word``, and the strata."""
    corrections = list(dict.fromkeys(tests["correction"]))
    strata = _strata(cite, numbers, tests, prefix, stratum, corrections) if stratum else []
    for metric, word in present(tests).items():
        at = f"metric == {metric!r} and {DISTINCT}"
        stem = prefix + word
        _name_counts(cite, numbers, tests, stem, at, corrections)
        if metric not in MARGINLESS:
            numbers.put(f"{stem}Margin", cite.first(tests.query(at)).margin, "g")
        numbers.put(f"{stem}PerCorrection",
                    cite.count(tests, f"{at} and correction == {corrections[0]!r}"), ",")
        for one in strata:
            _name_counts(cite, numbers, tests, stem + one["word"], f"{at} and {one['query']}",
                         corrections)
    return [{"name": c, "word": correction_word(c)} for c in corrections], strata


def panels_by_lr_and_bandit(rows: pd.DataFrame, out_dir: Path, name: str, xlabel: str,
                            ylabel: str, draw: Callable[[Axes, int, str, pd.DataFrame], None],
                            finish: Callable[[Axes], None], across: str | None = None,
                            titled: Callable[[Any], str] | None = None) -> list[Path]:
    """A figure of ``rows`` with a row of panels per lr and a column per bandit (and per value of
    ``across``, a stratum or a measure, where it has two at most), or, where ``across`` has more
    values, a row per lr and bandit and a column per value (titled by ``titled``: by default
    its name and value); in each panel a series per
    correction drawn by ``draw(ax, i, correction, its rows)`` (the i-th correction), each panel
    then ``finish``-ed (its scales and references); labelled, with the corrections' legend,
    saved as ``name`` in ``out_dir``."""
    lrs = sorted(rows["lr"].unique())
    environments = list(dict.fromkeys(rows["environment"]))
    strata = list(dict.fromkeys(rows[across])) if across else []
    if len(strata) > 2:
        lines = list(itertools.product(lrs, environments))
        columns = [(None, value) for value in strata]
    elif across:
        # Two measures or strata beside each bandit keep the figure as wide as it is tall.
        lines = [(lr, None) for lr in lrs]
        columns = list(itertools.product(environments, strata))
    else:
        lines = [(lr, None) for lr in lrs]
        columns = [(environment, None) for environment in environments]
    corrections = list(dict.fromkeys(rows["correction"]))
    figure, axes = plt.subplots(len(lines), len(columns),
                                figsize=(3.2 * len(columns), 2.4 * len(lines)),
                                squeeze=False, sharex=True, layout="constrained")
    for (r, (lr, line_bandit)), (c, (column_bandit, value)) in itertools.product(
            enumerate(lines), enumerate(columns)):
        ax = axes[r][c]
        environment = line_bandit or column_bandit
        panel = (rows["lr"] == lr) & (rows["environment"] == environment)
        if across:
            panel &= rows[across] == value
        for i, correction in enumerate(corrections):
            draw(ax, i, correction, rows[panel & (rows["correction"] == correction)])
        finish(ax)
        if r == 0:
            label = (titled(value) if titled else f"{across} {value:g}") if across else ""
            title = label if line_bandit else "\n".join(filter(None, (environment, label)))
            ax.set_title(title, fontsize="small")
        if r == len(lines) - 1:
            ax.set_xlabel(xlabel)
        if c == 0:
            ax.set_ylabel(f"{environment}, lr {lr:g}:\n{ylabel}" if line_bandit
                          else f"lr {lr:g}: {ylabel}", fontsize="small" if line_bandit else None)
    outside_legend(figure, axes[0][0], title="correction")
    return save(figure, out_dir, name)


def paired_context(cite: Tables, study: str, numbers: Scope, tests: pd.DataFrame,
                   prefix: str, stratum: tuple[str, ...] = ()) -> dict[str, Any]:
    """What ``phrases.md.j2``'s ``paired_tests`` and ``paired_findings`` print of a paired
    table ``tests``: its counts (``name_findings`` under ``prefix``, per value of ``stratum``
    where the effect depends on it), the distinct and repeated rows, the levels, the compared
    budgets and the families; the other constants they name."""
    numbers.put_constant("Level", cite.constant("1 - analysis.families.ALPHA"), ".0%")
    numbers.put_constant("LevelNinety", cite.constant("1 - 2 * analysis.families.ALPHA"), ".0%")
    numbers.put_constant("OffPolicyCollapsedMass",
                         cite.constant("1 - analysis.offpolicy.COLLAPSED"), "g")
    numbers.put_constant("StuckWrongMass", cite.constant("analysis.stuck.STUCK_WRONG_MASS"),
                         "g")
    numbers.put("Seeds", cite.manifest_value(study, "seeds"), ",")
    # Comparisons (a pair at a compared budget), all and those of distinct simulations (the
    # latter is ``<prefix>PassRateRows``).
    numbers.put(f"{prefix}Pairs", cite.count(tests, "metric == 'pass_rate'"), ",")
    corrections, strata = name_findings(cite, numbers, tests, prefix, stratum)
    return {"corrections": corrections, "strata": strata, "prefix": prefix,
            "stratum": " and ".join(LABELS.get(c, c) for c in stratum),
            "by_correction": "correction" not in stratum,
            "compared": distinct(cite, tests, "budget"),
            "served": "served_pass_rate" in present(tests),
            "tested": {"families": {m: families(cite, tests.query(f"metric == {m!r}"))
                                    for m in present(tests)},
                       "equivalence": families(cite, tests, "equivalence_family")},
            "betting": cite.literal("Waudby-Smith and Ramdas, 2024")}


def name_budget_verdicts(cite: Tables, numbers: Scope, ratios: pd.DataFrame, prefix: str,
                         corrections: list[dict[str, Any]], column: str = "correction") -> None:
    """Name, under ``prefix``, the budget ratios on the pass rate where both cells reach the
    target (``analysis.offpolicy``'s ``budget_ratios``) and those shown within the margin
    (``<prefix>Equivalent``), not shown (``<prefix>NotShown``) and unresolved, in all and per
    value of ``column`` (each of ``corrections``: its ``name`` and ``word``), and the margin
    (``<prefix>Margin``)."""
    # A ratio of two budgets of which one, or neither, reaches the target is only bounded.
    at = "metric == 'pass_rate' and reached_a and reached_b"
    numbers.put(f"{prefix}Rows", cite.count(ratios, at), ",")
    # The margin is the config's, on every row: read where no ratio reaches the target too.
    numbers.put(f"{prefix}Margin", cite.first(ratios).ratio_margin, "g")
    for verdict in RatioFinding:
        word = macro_name(*verdict.value.split(" "))
        where = f"{at} and equivalence == {verdict.value!r}"
        numbers.put(f"{prefix}{word}", cite.count(ratios, where), ",")
        for one in corrections:
            numbers.put(f"{prefix}{word}{one['word']}",
                        cite.count(ratios, f"{where} and {column} == {one['name']!r}"), ",")
