"""Does a rule beat uniform allocation at a budget, or match it (``versus_uniform``), on each
metric, each its own Holm family (``family``); and the verdict on each rule, law and
normalization (``verdict_table``)."""

from __future__ import annotations

import pandas as pd

from analysis.cost import CONFIDENCE, Support
from analysis.families import ALPHA, family_name
from analysis.paired import judged_family, paired_difference
from analysis.pass_rate import DIFFERENCE as PASS_RATE_DIFFERENCE
from analysis.prompts.outcomes import (
    METRICS,
    check_aligned,
    difference_support,
    seed_frames,
    uniform_pairs,
)
from analysis.roles import Finding, typed
from study.model import registry

FAMILY = family_name("prompts", "prompts_vs_uniform")
"""The Holm family of ``versus_uniform`` unless the caller names another."""


def _support(metric: str, prompts: int) -> Support:
    """What the paired difference of two seeds' ``metric`` can be: k / P for accuracy, any real
    in [-1, 1] for the pass rate."""
    return difference_support(prompts) if metric == "accuracy" else PASS_RATE_DIFFERENCE


def versus_uniform(runs: pd.DataFrame, margin: float, family: str = FAMILY,
                   alpha: float = ALPHA, confidence: float = CONFIDENCE,
                   metric: str = "accuracy") -> pd.DataFrame:
    """Each allocation rule against uniform allocation in the same (environment, prompts,
    group_size, baseline, lr, normalization), on ``metric`` (one of ``METRICS``), at each
    budget, paired by seed; for a rule whose first pass is
    uniform allocation's (``study.allocations.Allocation.uniform_first_pass``), at each budget past
    one pass (P G rollouts) only, since up to it the two cells' runs are the same.

    Columns: the rule's ``cell_columns``, ``metric``, ``uniform_cell``, ``budget``, ``seeds``,
    ``rule_mean`` and ``uniform_mean`` (means over seeds), ``difference`` (the mean of
    the per-seed differences, rule minus uniform) with its ``confidence`` interval
    (``difference_low``, ``difference_high``) and its 1 - 2 alpha interval (``equivalence_low``,
    ``equivalence_high``), ``differing_seeds`` (seeds off the most common difference),
    ``interval_method`` (``t`` or ``bound``, ``paired_difference``), ``p_value`` (two-sided,
    the same rule), ``p_value_holm`` and ``family`` (Holm within ``family``: the whole table),
    ``margin``, ``verdict``, ``within_margin`` (the 1 - 2 alpha interval inside +-margin: two
    one-sided tests at alpha) and ``finding`` (``analysis.paired.judge``).
    """
    per_seed = seed_frames(runs, metric)
    rows = []
    for rule, reference in uniform_pairs(runs):
        ours, theirs = per_seed[rule["cell"]], per_seed[reference["cell"]]
        check_aligned(ours, theirs)
        support = _support(metric, int(rule["prompts"]))
        # Up to one pass such a rule's runs are uniform allocation's, draw for draw: no
        # hypothesis to test (it would only make the family larger).
        same_until = (int(rule["prompts"]) * int(rule["group_size"])
                      if registry.allocation(rule["allocation"]).uniform_first_pass else 0)
        for budget in ours.columns[ours.columns > same_until]:
            a, b = ours[budget].to_numpy(), theirs[budget].to_numpy()
            rows.append({**rule.to_dict(), "metric": metric,
                         "uniform_cell": reference["cell"], "budget": int(budget),
                         "rule_mean": float(a.mean()), "uniform_mean": float(b.mean()),
                         **paired_difference(a - b, support, alpha, confidence)})
    if not rows:
        return pd.DataFrame(rows)
    return judged_family(rows, family, margin, alpha)


VERDICT_KEYS = ["allocation", "environment", "normalization", "metric"]
"""What a row of ``verdict_table`` is about."""


def verdict_table(versus: pd.DataFrame, baseline: str, group_size: int) -> pd.DataFrame:
    """One row per rule, law, normalization and metric (``VERDICT_KEYS``) of ``versus``
    (``versus_uniform`` on every metric): the headline cells' (``baseline``, ``group_size``)
    comparison with uniform allocation at the largest budget (``budget``, ``difference`` with
    ``difference_low`` and ``difference_high``, ``finding``: ``higher``, ``lower``,
    ``equivalent`` within the metric's margin, or ``unresolved``; ``within_margin``, the
    equivalence test's, so that a difference shown but smaller than the margin is told from a
    larger one), and over every estimator,
    group size and budget of the rule, law and normalization, how many comparisons found each
    (``comparisons``, ``higher``, ``lower``, ``equivalent``, ``unresolved``); and
    ``other_metric_finding``, the other metric's finding there, with ``metrics_agree``."""
    rows = []
    largest = versus["budget"].max()
    for key, group in versus.groupby(VERDICT_KEYS, observed=True, sort=False):
        head = group[(group["baseline"] == baseline) & (group["group_size"] == group_size)
                     & (group["budget"] == largest)]
        counts = group["finding"].value_counts()
        row = dict(zip(VERDICT_KEYS, key, strict=True))
        if len(head):
            first = head.iloc[0]
            row |= {"budget": int(largest), "difference": first["difference"],
                    "difference_low": first["difference_low"],
                    "difference_high": first["difference_high"], "margin": first["margin"],
                    "finding": first["finding"], "within_margin": first["within_margin"]}
        rows.append(row | {"comparisons": len(group),
                           **{f.value: int(counts.get(f, 0)) for f in Finding}})
    table = pd.DataFrame(rows)
    if "finding" in table:
        # Where the two metrics' verdicts on the same rule, law and normalization part.
        same = ["allocation", "environment", "normalization"]
        others = table.assign(metric=table["metric"].map(dict(zip(METRICS, METRICS[::-1],
                                                                  strict=True))))
        table = table.merge(others[[*same, "metric", "finding"]].rename(
            columns={"finding": "other_metric_finding"}), on=[*same, "metric"], how="left")
        table["metrics_agree"] = table["finding"] == table["other_metric_finding"]
        for column in ("finding", "other_metric_finding"):
            table[column] = typed(table[column], Finding)
    return table


def family(metric: str) -> str:
    """The table part of the Holm family of the comparisons with uniform allocation on
    ``metric`` (the study's name comes first): accuracy's keeps its old name."""
    return "prompts_vs_uniform" if metric == "accuracy" else f"prompts_vs_uniform_{metric}"
