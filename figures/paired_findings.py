"""What the off-policy studies' sections share: named counts of a paired table's findings
(``analysis.offpolicy.compare_with_partners``'s: each cell against its partner on the pass rate,
accuracy and collapse), in all and per correction, which ``phrases.md.j2``'s ``findings``,
``per_correction`` and ``paired_findings`` print; and their figures' layout, a panel per lr and
bandit with a series per correction."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.axes import Axes

from analysis.roles import Finding, RatioFinding
from figures.cite import Tables
from figures.numbers import Scope, macro_name
from figures.sections import distinct, families
from figures.style import outside_legend, save

METRICS = {"pass_rate": "PassRate", "accuracy": "Accuracy", "collapsed": "Collapsed"}
"""Each metric in the names of its numbers, the post-training readers' metric first."""


def correction_word(correction: str) -> str:
    """A correction in the names of its numbers: ``tis+keep_mask`` -> ``TisKeepMask``."""
    return macro_name(*correction.replace("+", "_").split("_"))


def name_findings(cite: Tables, numbers: Scope, tests: pd.DataFrame,
                  prefix: str) -> list[dict[str, Any]]:
    """Name, under ``prefix``, each metric's rows (``<prefix><Metric>Rows``), their margin, and
    their count per finding in all (``<prefix><Metric><Finding>``) and per correction
    (``...<Correction>``, with ``<prefix><Metric>PerCorrection`` rows each); return the
    corrections, each its ``name`` and ``word``."""
    corrections = list(dict.fromkeys(tests["correction"]))
    for metric, word in METRICS.items():
        at = f"metric == {metric!r}"
        stem = prefix + word
        numbers.put(f"{stem}Rows", cite.count(tests, at), ",")
        if metric != "collapsed":
            numbers.put(f"{stem}Margin", cite.first(tests.query(at)).margin, "g")
        for finding in Finding:
            numbers.put(f"{stem}{finding.value.capitalize()}",
                        cite.count(tests, f"{at} and finding == {finding.value!r}"), ",")
            for correction in corrections:
                numbers.put(f"{stem}{finding.value.capitalize()}{correction_word(correction)}",
                            cite.count(tests, f"{at} and correction == {correction!r} and "
                                       f"finding == {finding.value!r}"), ",")
        numbers.put(f"{stem}PerCorrection",
                    cite.count(tests, f"{at} and correction == {corrections[0]!r}"), ",")
    return [{"name": c, "word": correction_word(c)} for c in corrections]


def panels_by_lr_and_bandit(rows: pd.DataFrame, out_dir: Path, name: str, xlabel: str,
                            ylabel: str, draw: Callable[[Axes, int, str, pd.DataFrame], None],
                            finish: Callable[[Axes], None]) -> list[Path]:
    """A figure of ``rows`` with a row of panels per lr and a column per bandit, in each a series
    per correction drawn by ``draw(ax, i, correction, its rows)`` (the i-th correction), each
    panel then ``finish``-ed (its scales and references); labelled, with the corrections'
    legend, saved as ``name`` in ``out_dir``."""
    lrs = sorted(rows["lr"].unique())
    environments = list(dict.fromkeys(rows["environment"]))
    corrections = list(dict.fromkeys(rows["correction"]))
    figure, axes = plt.subplots(len(lrs), len(environments),
                                figsize=(3.4 * len(environments), 2.5 * len(lrs)),
                                squeeze=False, sharex=True, layout="constrained")
    for (r, lr), (c, environment) in itertools.product(enumerate(lrs), enumerate(environments)):
        ax = axes[r][c]
        for i, correction in enumerate(corrections):
            draw(ax, i, correction, rows[(rows["lr"] == lr) & (rows["environment"] == environment)
                                         & (rows["correction"] == correction)])
        finish(ax)
        if r == 0:
            ax.set_title(environment, fontsize="small")
        if r == len(lrs) - 1:
            ax.set_xlabel(xlabel)
        if c == 0:
            ax.set_ylabel(f"lr {lr:g}: {ylabel}")
    outside_legend(figure, axes[0][0], title="correction")
    return save(figure, out_dir, name)


def paired_context(cite: Tables, study: str, numbers: Scope, tests: pd.DataFrame,
                   prefix: str) -> dict[str, Any]:
    """What ``phrases.md.j2``'s ``paired_tests`` and ``paired_findings`` print of a paired
    table ``tests``: its counts (``name_findings`` under ``prefix``), the levels, the compared
    budgets and the families; the other constants they name."""
    numbers.put_constant("Level", cite.constant("1 - analysis.families.ALPHA"), ".0%")
    numbers.put_constant("LevelNinety", cite.constant("1 - 2 * analysis.families.ALPHA"), ".0%")
    numbers.put_constant("OffPolicyCollapsedMass",
                         cite.constant("1 - analysis.offpolicy.COLLAPSED"), "g")
    numbers.put("Seeds", cite.manifest_value(study, "seeds"), ",")
    return {"corrections": name_findings(cite, numbers, tests, prefix), "prefix": prefix,
            "compared": distinct(cite, tests, "budget"),
            "tested": {"families": {m: families(cite, tests.query(f"metric == {m!r}"))
                                    for m in METRICS},
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
    numbers.put(f"{prefix}Margin", cite.first(ratios.query(at)).ratio_margin, "g")
    for verdict in RatioFinding:
        word = macro_name(*verdict.value.split(" "))
        where = f"{at} and equivalence == {verdict.value!r}"
        numbers.put(f"{prefix}{word}", cite.count(ratios, where), ",")
        for one in corrections:
            numbers.put(f"{prefix}{word}{one['word']}",
                        cite.count(ratios, f"{where} and {column} == {one['name']!r}"), ",")
