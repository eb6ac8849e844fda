"""Named counts of a paired table's findings (``analysis.offpolicy.compare_with_partners``'s:
each cell against its partner on the pass rate, accuracy and collapse), in all and per
correction, for the sections of the off-policy studies; the phrases that print them are
``phrases.md.j2``'s ``findings`` and ``per_correction``."""

from __future__ import annotations

from typing import Any

import pandas as pd

from analysis.roles import Finding
from figures.cite import Tables
from figures.numbers import Scope, macro_name

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
