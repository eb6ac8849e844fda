"""``python -m figures.report``: ``out/report.md``, ``out/numbers.tex`` and
``out/report_sources.csv`` from the analysis tables, the figures and the studies' manifests.

Every number in the prose is a ``figures.cite.Cited`` value: a table's cell, a count of a
table's rows, a value of a study's manifest or a named constant of the code, formatted into
the prose by the section's template (an f-string of cited values). Each printed number is
recorded with its source in ``report_sources.csv``; a digit in the prose that no cited value wrote
stops the report (``Report.add``), and ``figures.cite.expected_text`` recomputes each recorded
number from its source, which the tests do for every one. A section whose tables are missing says
so instead of being silently dropped.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd

from analysis.families import plain
from analysis.study_tables import SETTINGS
from analysis.tables import readable
from figures import prose, sections
from figures.cite import MARKED, Tables, unmark, unmarked_digits
from figures.named import named_numbers
from figures.numbers import Scope, study_prefix
from figures.sections import adjusted_column, family_query
from figures.words import bandit
from study.spec.atomic import write_files
from study.spec.schema import MANIFEST_FILE

SOURCES_FILE = "report_sources.csv"
"""Beside the report: one row per number in its prose, with where it comes from."""
NUMBER_SOURCES_FILE = "number_sources.csv"
"""The named numbers (``figures.numbers``) with their sources, beside ``numbers.tex``."""
TESTS = {
    "accuracy": "one-sided exact binomial test of accuracy > chance",
    "per_arm_vs_chance": "two-sided exact binomial test of accuracy = chance",
    "equivalence": "two one-sided exact binomial tests of accuracy within chance +- margin",
    **dict.fromkeys(("vs_uniform", "per_arm_vs_running_mean", "vs_best_arm_identification",
                     "best_lr_vs_references", "group_vs_single", "group_zscore_vs_mean"),
                    "two-sided exact McNemar test (paired by seed)"),
}
"""The test behind each table's family, for the Methods section."""






def compared_query(settings: pd.Series) -> str:
    """``headline_rows`` of a paired table as a ``DataFrame.query``, for a count."""
    return (f"cell_a == {plain(settings['headline_cell'])} and budget in "
            f"{[int(b) for b in settings['compared_budgets']]!r}")


class Report:
    """Reads the tables of each study under ``tables`` and renders the Markdown report; every
    number it writes into prose is cited (``figures.cite``)."""

    def __init__(self, tables: Path, figures: Path, runs: Path, out: Path) -> None:
        self.figures, self.runs, self.out = figures, runs, out
        self.cite = Tables(tables, runs)
        # Every named number of the write-up, built as the paper builds it, so the report's
        # templates, the paper and numbers.tex print each under one name.
        self.numbers = named_numbers(self.cite)
        self.lines: list[str] = []
        self.level = self.cite.constant("1 - analysis.families.ALPHA")
        self.level90 = self.cite.constant("1 - 2 * analysis.families.ALPHA")
        self.alpha = self.cite.constant("analysis.families.ALPHA")
        self.target = self.cite.constant("analysis.budget_to_target.TARGET")
        self.default_lr = self.cite.constant("study.spec.config.DEFAULT_LR")

    def table(self, study: str, name: str) -> pd.DataFrame | None:
        """One table of one study, or None where it was not made or has no rows."""
        return self.cite.read(study, name)

    def settings(self, study: str) -> pd.Series:
        """The ``[analysis]`` settings a study was analysed with (its ``settings`` table's row):
        the comparisons its config declares, for selecting rows (cite a value through
        ``self.table(study, SETTINGS)``)."""
        return self.table(study, SETTINGS).iloc[0]

    def add(self, *lines: str) -> None:
        """Lines of the report. A digit in a line of prose (not a heading, a table or a figure
        link) that no cited value wrote is a number typed into the prose: refused."""
        for line in (part for text in lines for part in text.split("\n")):
            if not line.startswith(("#", "|", "![")) and unmarked_digits(line):
                raise ValueError("a number in the report's prose has no source (cited numbers "
                                 f"shown as ~): {MARKED.sub('~', line)[:300]!r}")
            self.lines.append(self.cite.ledger.placed(line, len(self.lines)))

    def figure(self, name: str, caption: str) -> None:
        self.add(self.figure_text(name, caption))

    def figure_text(self, name: str, caption: str) -> str:
        """A figure's link and caption, or a note that it was not drawn."""
        path = self.figures / f"{name}.png"
        if path.is_file():
            relative = os.path.relpath(path, self.out.parent)
            return f"![{name}]({relative})\n\n*Figure: {caption}*\n"
        return f"*(figure {self.cite.literal(name)} not drawn: its tables are missing)*\n"

    def markdown(self, frame: pd.DataFrame) -> None:
        self.add(self.markdown_text(frame))

    def markdown_text(self, frame: pd.DataFrame) -> str:
        """A table as Markdown, with a blank line after it."""
        # Text columns (typed categoricals hold no marks and no gaps): a row with no text shows
        # empty, not "nan" or "None".
        text = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])
                and not isinstance(frame[c].dtype, pd.CategoricalDtype)]
        shown = frame.fillna({c: "" for c in text})
        shown = shown.assign(**{c: shown[c].map(lambda v: unmark(v) if isinstance(v, str) else v)
                                for c in text})
        return readable(shown).to_markdown(index=False, floatfmt=".5g") + "\n"

    def family_text(self, table: pd.DataFrame, column: str = "family") -> str:
        """The Holm family (or families) of a table's p-values and their sizes, e.g.
        "family `budget_sweep/vs_uniform`, 175 hypotheses"."""
        whole = self.cite.whole(table)
        # A family whose rows here carry no adjusted p-value is tested in another table.
        sizes = {name: self.cite.count(whole, family_query(whole, name, column))
                 for name in table[column].drop_duplicates()}
        return "; ".join(f"family `{self.cite.literal(name)}`, {size:,} hypotheses"
                         for name, size in sizes.items() if size.value)

    def agreement(self, table: pd.DataFrame) -> str:
        """How often a paired table's Newcombe interval and exact test disagree, and which
        decides."""
        return (f"In {self.cite.count(table, '~interval_agrees')} of {self.cite.count(table)} "
                f"rows the {self.level:.0%} Newcombe interval and the exact McNemar test disagree "
                "about a difference of zero: the interval approximates the test, so they can "
                f"part near p = {self.alpha:g} and when the discordant seeds are few and all on "
                "one side; the exact test decides, and the tables flag those rows "
                "(`interval_agrees`).")

    def band_wilson(self) -> str:
        return (f"Bands are {self.level:.0%} Wilson score intervals over seeds "
                "(`scipy.stats.binomtest(...).proportion_ci(method=\"wilson\")`).")

    def band_newcombe(self) -> str:
        return (f"Bands are {self.level:.0%} Newcombe hybrid-score intervals for a paired "
                "difference of proportions (seed i of one cell against seed i of the other).")

    def interval_rule(self) -> str:
        settled = self.cite.constant("analysis.cost.SETTLED_SEEDS")
        return (f"Intervals of means over seeds are {self.level:.0%} t intervals where at least "
                f"{settled} seeds differ from the most common value; with fewer (late in "
                "training most seeds deploy the same arm) they are bounds built from "
                "Clopper-Pearson limits of the shares of seeds above and below that value, "
                "times the smallest and the largest step a seed's value can take (`interval` "
                "says which), so they stay valid when every seed agrees.")

    # Sections -----------------------------------------------------------------------------
    def groups(self) -> None:
        self.add("## 9. Group rollouts: GRPO, Dr. GRPO and RLOO at the same rollout budget", "")
        # Every study whose grid made the group tables (more than one group size), by name.
        studies = sorted(path.parent.name for path in
                         self.cite.tables.glob("*/group_best_lr.parquet")
                         if self.table(path.parent.name, "group_best_lr") is not None)
        if not studies:
            self.add("*the group studies have not been analysed.*", "")
            return
        margin = self.cite.first(self.table(studies[0], "group_vs_single")).margin
        self.add("Each update draws G rollouts from the current policy and uses the group as its "
                 "baseline (README, \"Group rollouts\"). Every (bandit, estimator, G) is an arm; "
                 "its lr is chosen on the even seeds (largest mean accuracy over the checkpoints) "
                 "and everything below is estimated on the odd seeds, paired by seed on common "
                 "random numbers (the rollouts of every G are the same draws). Paired tests are "
                 f"exact McNemar tests with Newcombe {self.level:.0%} intervals, made at every "
                 "checkpoint where the group learner has made at least one update (before it, "
                 "B < G, it is the untrained policy); each table is one Holm family (named with "
                 "it), and a verdict of a difference uses the Holm-adjusted p, while the printed "
                 f"{self.level:.0%} interval is not adjusted, so it can exclude zero in a row "
                 f"whose verdict is \"unresolved\". \"equivalent within +-{margin:g}\" means the "
                 f"{self.level90:.0%} interval (two one-sided tests at {self.alpha:g}, per row, "
                 f"not adjusted for the family) lies inside +-{margin:g}, a margin stated before "
                 f"the run; a significant difference whose {self.level90:.0%} interval is also "
                 "inside it is "
                 "reported as smaller than the margin; anything else is \"unresolved\". Where "
                 "both arms are right on nearly every seed (as at the largest budgets) an "
                 "equivalence says only that both have solved the bandit.", "")
        for study in studies:
            self._group_study(study)

    def _group_study(self, study: str) -> None:
        best = self.table(study, "group_best_lr")
        versus = self.table(study, "group_vs_single")
        top = self.table(study, "group_best_arm")
        budgets = self.table(study, "group_budget_to_target")
        zscore = self.table(study, "group_zscore_vs_mean")
        zero = self.table(study, "group_zero_signal")
        self.add(f"### {study}", "")
        edges = best[best["at_edge"]]
        seeds = (f"; {self.cite.first(versus).seeds:,} odd seeds per estimate"
                 if versus is not None and len(versus) else "")
        self.add(f"{self.cite.count(best)} arms; best lr at an edge of the grid for "
                 f"{self.cite.count(best, 'at_edge')} of them"
                 + (": " + ", ".join(f"{r.baseline} G = {r.group_size} on "
                                     f"{r.environment.shown(bandit)} (lr {r.best_lr:g})"
                                     for r in self.cite.rows(edges)) if len(edges) else "")
                 + seeds + ".", "")
        single = self.cite.literal("G = 1")
        self.add(f"**{self.cite.literal('1.')} Is one rollout per update ({single}) best, and "
                 "how much does it matter?** The arm with the largest even-seed accuracy per "
                 "bandit, and its difference from single-rollout REINFORCE (running-mean "
                 "baseline, its own best lr) on the odd seeds (rows of the `group_vs_single` "
                 "family; where its rows are equivalent or unresolved, the choice among "
                 "near-equal arms on the even seeds is noise):", "")
        self.markdown(top)
        if versus is not None and len(versus):
            counts = versus.groupby(["environment", "verdict"]).size().unstack(fill_value=0)
            self.add("Every arm against single-rollout REINFORCE at every checkpoint after its "
                     f"first update (Holm family: the {self.cite.count(versus)} rows of "
                     "`group_vs_single`), verdicts per bandit:", "")
            self.markdown(counts.reset_index())
            dr = versus[versus["baseline"] == "group_mean"]
            self.add("Dr. GRPO (group mean) against single-rollout REINFORCE, difference "
                     f"[{self.level:.0%} Newcombe] and verdict:", "")
            shown = dr.assign(**{"difference [95%]": [
                f"{r.difference:+.4f} [{r.ci_low:+.4f}, {r.ci_high:+.4f}]"
                for r in self.cite.rows(dr)]})
            self.markdown(shown[["environment", "group_size", "lr", "budget", "rollouts",
                                 "difference [95%]", "p_value_holm", "verdict"]])
        self.figure(f"group_accuracy_{study}", "accuracy against the rollouts spent, a line per "
                    f"G (Dr. GRPO's group mean for {self.cite.literal('G > 1')}, single-rollout "
                    f"REINFORCE with the running-mean baseline for {single}), at each arm's best "
                    "lr (top) and at lr "
                    f"{self.default_lr:g} (bottom), odd seeds. Bands are {self.level:.0%} Wilson "
                    "score intervals.")
        self.add(f"**{self.cite.literal('2.')} Rollouts to {self.target:g} accuracy** at each "
                 f"arm's best lr ({self.level:.0%} bootstrap interval over odd seeds, read "
                 "against the rollouts actually spent), and its ratio to single-rollout "
                 f"REINFORCE and to uniform allocation ({self.level:.0%} paired bootstrap):", "")
        ratio_columns = [c for c in ("ratio_to_single", "ratio_to_uniform") if c in budgets]
        shown = budgets.assign(**{f"{c} [95%]": [
            (f"{r[c]:.2f} [{r[c + '_low']:.2f}, {r[c + '_high']:.2f}]"
             if pd.notna(r[c].value) else "") for r in self.cite.rows(budgets)]
            for c in ratio_columns})
        self.markdown(shown[["environment", "baseline", "group_size", "lr", "summary",
                             *(f"{c} [95%]" for c in ratio_columns)]])
        self.figure(f"group_budget_{study}", f"rollouts to {self.target:g} accuracy against G, a "
                    f"line per advantage estimator at its best lr; bars are {self.level:.0%} "
                    "percentile bootstrap intervals resampling whole odd seeds (an upper bar cut "
                    "at the point means the interval is unbounded above).")
        if zscore is not None and len(zscore):
            self.add(f"**{self.cite.literal('3.')} GRPO against Dr. GRPO** (z-score minus group "
                     "mean, each at its best lr; Holm family: the "
                     f"{self.cite.count(zscore)} rows of `group_zscore_vs_mean`). Dividing by "
                     "the group's spread s multiplies the step of a group with signal by "
                     f"E[{self.cite.literal('1')} / (s + "
                     f"{self.cite.constant('study.learners.reinforce.ZSCORE_EPSILON'):g})], "
                     "computed exactly for the uniform policy's mean pass rate and for the "
                     "best arm's; checkpoints after the first update:", "")
            shown = zscore.assign(**{"difference [95%]": [
                f"{r.difference:+.4f} [{r.ci_low:+.4f}, {r.ci_high:+.4f}]"
                for r in self.cite.rows(zscore)]})
            self.markdown(shown[["environment", "group_size", "lr_grpo", "lr_dr_grpo",
                                 "step_scale_uniform_policy", "step_scale_best_arm", "budget",
                                 "rollouts", "difference [95%]", "p_value_holm", "verdict"]])
        error = (f", standard error about {0.5 / (2 * self.cite.first(versus).seeds) ** 0.5:.3f} "
                 "per lr" if versus is not None and len(versus) else "")
        self.add(f"**{self.cite.literal('4.')} Robustness to lr**: the lr over which each arm's "
                 f"mean accuracy over the checkpoints (all seeds{error}) stays within "
                 f"{self.cite.constant('analysis.groups.ROBUST'):g} of its best, and its width in "
                 "decades; where the range reaches an edge of the grid it may extend beyond it, "
                 "so its width is a lower bound. (The greedy arm is the argmax of the logits, "
                 "which does not depend on their scale, so a small lr costs little accuracy; the "
                 "best of the grid's values is taken on all seeds here.)", "")
        self.markdown(best[["environment", "baseline", "group_size", "best_lr", "at_edge",
                            "robust_lr_low", "robust_lr_high", "robust_decades",
                            "robust_contiguous", "robust_range_at_edge"]])
        if zero is not None:
            self.add(f"**{self.cite.literal('5.')} Rollouts spent on groups with no signal**: "
                     "the share of updates whose advantages were all zero by the largest budget "
                     "(each update is G rollouts, so it is also the share of rollouts), at each "
                     f"arm's best lr, with its {self.level:.0%} interval over odd seeds (a t "
                     "interval where at least "
                     f"{self.cite.constant('analysis.cost.SETTLED_SEEDS')} seeds differ from the "
                     "most common share, else bounds from Clopper-Pearson limits of the counts of "
                     "seeds above and below it: column interval), beside its exact value for a "
                     "policy that stays uniform and for one that pulls only the best arm (all "
                     "rewards equal for a group estimator, all zero without a baseline):", "")
            self.markdown(zero[["environment", "baseline", "group_size", "lr", "updates",
                                "zero_signal_share", "ci_low", "ci_high", "interval",
                                "uniform_policy", "best_arm_policy"]])
            self.figure(f"group_zero_signal_{study}", "share of updates with no signal against "
                        f"G, per estimator at its best lr; bars are the table's "
                        f"{self.level:.0%} intervals over odd seeds; dashed and dotted: exact "
                        "values for the group estimators under a uniform policy and under one "
                        "that pulls only the best arm.")

    def section(self, number: int, module: ModuleType, studies: list[str]) -> None:
        """Section ``number`` of ``figures.sections``: its heading, a shared section's
        introduction and each study's part, the sentences from their templates and the numbers
        named in ``self.numbers`` under the study's prefix."""
        section = module.SECTION
        self.add(f"## {number}. {section.title}"
                 + ("" if section.shared else f" (`{studies[0]}`)"), "")
        if section.introduction:
            self.add(self.prose(section.introduction, self.numbers.scope(""),
                                module.introduce(self.cite, studies)))
        for study in studies:
            numbers = self.numbers.scope(study_prefix(study))
            context = {"study": study, **module.claims(self.cite, study, numbers)}
            self.add(self.prose(section.template, numbers, context,
                                f"{study}_{section.figure}" if section.figure else ""))

    def prose(self, template: str, numbers: Scope, context: dict[str, Any],
              figure: str = "") -> str:
        """A template's text with ``numbers`` as ``n``, ``context``, and the report's figures
        (``figure(caption, name=...)``, by default ``figure``) and tables (``markdown``)."""
        return prose.render(template, n=numbers, **context,
                            figure=lambda caption, name=figure: self.figure_text(name, caption),
                            markdown=self.markdown_text)

    def methods(self) -> None:
        self.add("## Methods", "")
        self.add("Every p-value belongs to exactly one family, adjusted by Holm's step-down "
                 f"method within it (family-wise error rate {self.alpha:g}); each table names its "
                 "family in a `family` column. A study's primary family is declared in its "
                 "config before the run; every other table of a study is its own secondary "
                 "family. Cells that differ only in their per-pull cost are one simulation and "
                 "one hypothesis, so they enter a family once. The families of this run:", "")
        rows = []
        for path in sorted(self.cite.tables.glob("*/*.parquet")):
            table = self.table(path.parent.name, path.stem)
            if table is None:
                continue  # a table with no rows: the study does not ask that question
            for column in ("family", "equivalence_family"):
                if column not in table or adjusted_column(table.columns, column) not in table:
                    continue  # no family, or names the family of a test planned elsewhere
                test = TESTS.get(path.stem if column == "family" else "equivalence", "")
                for name in table[column].drop_duplicates():
                    counted = table.query(family_query(table, name, column), engine="python")
                    if counted.empty:
                        continue  # tested in another table
                    seeds = counted["seeds"]
                    rows.append({"family": name, "hypotheses": len(counted), "test": test,
                                 "seeds per test": f"{seeds.min():,}" if seeds.min() == seeds.max()
                                 else f"{seeds.min():,} to {seeds.max():,}"})
        if rows:
            self.markdown(pd.DataFrame(rows))
        self.add("The tests and intervals (alpha the level, z the standard normal quantile "
                 f"{self.cite.literal('z_(1 - alpha/2)')}):", "")
        for name, formula, reference in METHODS:
            self.add(f"- **{name}**: {self.cite.literal(formula)} "
                     f"({self.cite.literal(reference)}).")
        self.add("")
        settled = self.cite.constant("analysis.cost.SETTLED_SEEDS")
        resamples = self.cite.constant("analysis.budget_to_target.BOOTSTRAP")
        self.add(f"Where each is used: Wilson intervals for accuracies; Newcombe intervals for "
                 f"paired differences, at {self.level:.0%} and at {self.level90:.0%} for two "
                 f"one-sided tests of equivalence (equivalent when the {self.level90:.0%} "
                 "interval lies inside the margin stated in the config); percentile bootstrap "
                 f"intervals resampling whole seeds ({resamples:,} resamples) for budgets to "
                 f"{self.target:g} and their ratios, read off an isotonic fit of accuracy "
                 "against budget; for means over seeds of net value and break-even cost, t "
                 f"intervals where at least {settled} seeds differ from the most common value "
                 "and otherwise Clopper-Pearson bounds on the share of seeds above and below it. "
                 "Selection: a cell chosen as best (lr, budget) is chosen on the even seeds and "
                 "estimated and tested on the odd seeds. Power: the exact power of the exact "
                 "test that is run, at the level of the first Holm step of its family, for "
                 "effects stated before the run, reported as the smallest n from which it stays "
                 "at the target (`python -m analysis plan`). Decisions read from intervals "
                 "rather than p-values (a paired row's equivalence, a `resolved` best budget, the "
                 "`higher` learner by net value, a budget ratio's verdict, tied lr) are per row, "
                 f"at {self.level:.0%} ({self.level90:.0%} for equivalence), and not adjusted "
                 "for the number of rows in their table. Every number in this report's prose is "
                 f"listed with its source (table and row, count, manifest or constant) in "
                 f"`{SOURCES_FILE}`.", "")

    def provenance(self) -> None:
        self.add("## Provenance", "")
        rows = []
        for manifest_path in sorted(self.runs.glob(f"*/{MANIFEST_FILE}")):
            m = json.loads(manifest_path.read_text())
            rows.append({"study": m["study"], "config hash": m["config_hash"][:16],
                         "root seed": m["root_seed"], "seeds": m["seeds"],
                         "episodes": f"{m['episodes']:.3g}", "wall seconds": m["wall_seconds"],
                         "episodes per second": f"{m['episodes_per_second']:.3g}",
                         "git commit": m["git_commit"][:12]})
        if rows:
            study = sorted(self.runs.glob(f"*/{MANIFEST_FILE}"))[0].parent.name
            versions = json.loads((self.runs / study / MANIFEST_FILE).read_text())["versions"]
            self.markdown(pd.DataFrame(rows))
            self.add("Versions: " + ", ".join(
                f"{name} {self.cite.manifest_value(study, f'versions.{name}')}"
                for name in sorted(versions)) + ".", "")

    def render(self) -> str:
        self.add("# How much does paying for more RL rollouts buy?", "",
                 "Generated by `make all` from the configs in `study/configs/`; every number "
                 "below is read from `out/tables/` and regenerates. Headline numbers are also "
                 "LaTeX macros in `out/numbers.tex`.", "")
        parts = sections.headed(self.cite.tables)
        legacy = (None, None, None, None,
                  None, None, None, None,
                  self.groups)
        converted = [part for part in parts if part[0].SECTION.order <= len(legacy)]
        for number, (module, studies) in enumerate(converted, start=1):
            self.section(number, module, studies)
        for method in legacy[len(converted):]:
            method()
        for number, (module, studies) in enumerate(parts[len(converted):],
                                                   start=len(legacy) + 1):
            self.section(number, module, studies)
        for section in (self.methods, self.provenance):
            section()
        return "\n".join(self.lines) + "\n"


METHODS = (
    ("Wilson score interval", "(p + z^2/2n +- z sqrt(p(1 - p)/n + z^2/4n^2)) / (1 + z^2/n) for "
     "k of n seeds right, p = k/n", "Wilson 1927; Brown, Cai and DasGupta 2001"),
    ("exact binomial test against chance", "with k of n seeds right and chance c (the best "
     "arms' share of the K arms), one-sided p = P(Bin(n, c) >= k); two-sided, the sum of "
     "P(Bin(n, c) = j) over every j no more likely than k", "`scipy.stats.binomtest`"),
    ("exact McNemar test", "with b seeds right only in cell A and c only in B, "
     "p = min(1, 2 P(Bin(b + c, 1/2) <= min(b, c)))", "McNemar 1947; Fagerland, Lydersen and "
     "Laake 2013"),
    ("Newcombe interval for a paired difference", "the difference of the two accuracies with "
     "limits from each accuracy's Wilson limits and the phi correlation of the paired outcomes",
     "Newcombe 1998, method 10"),
    ("two one-sided tests (TOST)", "equivalent within +-d when both one-sided tests at level "
     "alpha reject, i.e. the (1 - 2 alpha) interval lies inside (-d, d), per row; per-arm cells "
     "against chance: two exact binomial tests at c - d and c + d, the larger p Holm-adjusted in "
     "its own family", "Schuirmann 1987"),
    ("Holm's step-down method", "with p-values sorted p_(1) <= ... <= p_(m), reject while "
     "p_(i) <= alpha / (m - i + 1); adjusted p_(i) = max over j <= i of min(1, (m - j + 1) p_(j))",
     "Holm 1979; `statsmodels.stats.multitest.multipletests`"),
    ("percentile seed bootstrap", "resample the seeds with replacement (all checkpoints of a "
     "seed together, both cells of a pair together), recompute, take the alpha/2 and "
     "1 - alpha/2 quantiles", "Efron and Tibshirani 1993"),
    ("sup-t simultaneous band", "at every checkpoint the estimate minus f times its distance "
     "to the lower Wilson limit, and plus f times its distance to the upper one (clipped to "
     "[0, 1]), with f the (1 - alpha) quantile over seed-bootstrap resamples of the largest, over "
     "checkpoints, deviation of the resampled curve from the estimate in units of the Wilson "
     "half-width on its side, and f at least 1", "Montiel Olea and Plagborg-Moller 2019"),
    ("Clopper-Pearson bound", "the exact binomial limit for a share of seeds, used where fewer "
     "than a settled number of seeds differ", "Clopper and Pearson 1934"),
    ("exact power", "sum over outcomes of their probability under the stated effect times "
     "whether the exact test rejects; the normal approximations beside it are Cohen's h "
     "(binomial) and Connor's formula (McNemar)", "Connor 1987; Chernick and Liu 2002 on the "
     "sawtooth"),
    ("hardness", "H = sum over the arms a other than the best of 1 / (p_best - p_a)^2, the "
     "complexity H1 of the reference without its term for the best arm (1 / the smallest gap^2)",
     "Audibert, Bubeck and Munos 2010"),
)
"""Each test and interval of the report: name, formula, reference (for the Methods section)."""


def arguments(prog: str) -> argparse.Namespace:
    """The command line of the report and of the paper: the tables, figures and runs they read
    (``--tables``, ``--figures``, ``--runs``) and the file they write (``--out``)."""
    parser = argparse.ArgumentParser(prog=prog)
    for name in ("tables", "figures", "runs", "out"):
        parser.add_argument(f"--{name}", type=Path, required=True)
    return parser.parse_args()


def main() -> None:
    """Write the report, the sources of its numbers and the LaTeX numbers, each atomically."""
    args = arguments("python -m figures.report")
    report = Report(args.tables, args.figures, args.runs, args.out)
    text = report.render()
    numbers = report.numbers.latex()
    sources = report.cite.ledger.frame()
    named = report.numbers.frame()
    write_files({args.out.parent / "numbers.tex": lambda path: path.write_text(numbers),
                 args.out.parent / SOURCES_FILE: lambda path: sources.to_csv(path, index=False),
                 args.out.parent / NUMBER_SOURCES_FILE:
                     lambda path: named.to_csv(path, index=False),
                 args.out: lambda path: path.write_text(text)})


if __name__ == "__main__":
    main()
