"""``python -m figures.report``: ``out/report.md`` and ``out/numbers.tex`` from the analysis
tables, the figures and the studies' manifests.

Every sentence that states a result is filled from a table, with its interval and its test; a
section whose tables are missing says so instead of being silently dropped.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from fractions import Fraction
from pathlib import Path

import pandas as pd

from analysis.budget_to_target import BOOTSTRAP
from analysis.cost import SETTLED_SEEDS
from analysis.families import ALPHA, family_sizes
from analysis.groups import MARGIN, ROBUST
from analysis.study_tables import CLAIM_SEEDS
from analysis.tables import latex_macros, p_text
from figures.curves import SUTTON_BARTO
from study.orchestration.storage import read_manifest
from study.spec import registry
from study.spec.atomic import write_files
from study.spec.config import DEFAULT_LR
from study.spec.schema import MANIFEST_FILE, NUMBERS_FILE

HEADLINE = (50, 200, 1000, 5000)
COMPARED_AT = {"budget_sweep": HEADLINE, "narrow_margins": (10_000, 30_000, 100_000)}
"""Budgets at which the report tabulates paired comparisons (all budgets are in the tables)."""
GROUP_STUDIES = ("group_rollouts", "group_rollouts_narrow")
BAND_WILSON = ("Bands are 95% Wilson score intervals over seeds "
               "(`scipy.stats.binomtest(...).proportion_ci(method=\"wilson\")`).")
INTERVAL_RULE = ("Intervals of means over seeds are 95% t intervals where at least "
                 f"{SETTLED_SEEDS} seeds differ from the most common value; with fewer (late in "
                 "training most seeds deploy the same arm) they are bounds built from "
                 "Clopper-Pearson limits of the shares of seeds above and below that value, "
                 "times the smallest and the largest step a seed's value can take (`interval` "
                 "says which), so they stay valid when every seed agrees.")
TESTS = {
    "accuracy": "one-sided exact binomial test of accuracy > chance",
    "per_arm_vs_chance": "two-sided exact binomial test of accuracy = chance",
    "equivalence": "two one-sided exact binomial tests of accuracy within chance +- margin",
    **dict.fromkeys(("vs_uniform", "per_arm_vs_running_mean", "vs_best_arm_identification",
                     "best_lr_vs_references", "group_vs_single", "group_zscore_vs_mean"),
                    "two-sided exact McNemar test (paired by seed)"),
}
"""The test behind each table's family, for the Methods section."""
AGREEMENT = ("In {} of {} rows the 95% Newcombe interval and the exact McNemar test disagree "
             "about 0: the interval approximates the test, so they can part near p = 0.05 and "
             "with few discordant seeds (0 against 5 gives an interval that excludes 0 and "
             "p = 0.0625); the exact test decides, and the tables flag those rows "
             "(`interval_agrees`).")
BAND_NEWCOMBE = ("Bands are 95% Newcombe hybrid-score intervals for a paired difference of "
                 "proportions (seed i of one cell against seed i of the other).")


def pvalue(p: float) -> str:
    """A p-value as text after "p": "= 0.013", or "< 1e-15" below ``analysis.tables.P_FLOOR``."""
    return p_text(p).removeprefix("p ")


def adjusted_column(columns: pd.Index, family_column: str = "family") -> str:
    """The Holm-adjusted p-value column that belongs to ``family_column`` in a table with these
    columns (equivalence tests, tests against chance, or paired tests)."""
    if family_column == "equivalence_family":
        return "p_equivalence_holm"
    return "p_vs_chance_holm" if "p_vs_chance_holm" in columns else "p_value_holm"


def family_text(table: pd.DataFrame, column: str = "family") -> str:
    """The Holm family (or families) of a table's p-values and their sizes, e.g.
    "family `budget_sweep/vs_uniform`, 175 hypotheses"."""
    sizes = family_sizes(table, column, adjusted_column(table.columns, column))
    return "; ".join(f"family `{name}`, {size:,} hypotheses" for name, size in sizes.items())


def _seeds_text(seeds: float, discordance: float) -> str:
    """Seeds needed, in words where there is no number: an effect above the discordance cannot
    occur (NaN), inf where the planner found no n (its search ends at 2.5 times the normal
    approximation's n) from which the power stays at the target."""
    if math.isnan(seeds):
        return f"impossible with discordance {discordance:.3f}"
    return f"{seeds:,.0f} seeds" if math.isfinite(seeds) else "more seeds than the planner searched"


def display(name: str) -> str:
    """A learner's display name ("successive rejects"), or the text itself if it is none."""
    return registry.display(name) if name in registry.names() else name


def fraction(x: float) -> str:
    """A chance level as the fraction it is (1/3), else to four decimals."""
    near = Fraction(x).limit_denominator(1000)
    return f"{near.numerator}/{near.denominator}" if abs(float(near) - x) < 1e-12 else f"{x:.4f}"


def ratio_verdict(row: object) -> str:
    """What a budget ratio (REINFORCE over another algorithm) shows: fewer or more rollouts
    (95% interval below or above 1), within the margin (TOST), both, or neither."""
    side = ("fewer rollouts" if row.ci_high < 1 else "more rollouts" if row.ci_low > 1
            else "")
    if row.as_efficient:
        return f"{side}, by less than the margin" if side else "as efficient"
    return side or "unresolved (the interval is all these seeds say)"


def lr_choice(row: object) -> str:
    """"best lr 0.01", or "best lr 0.01, tied with lr 0.003, 0.03" where the choosing seeds
    could not tell them apart."""
    tied = row.tied_lr if isinstance(row.tied_lr, str) else ""
    return f"best lr {row.lr:g}" + (f", tied with lr {tied}" if tied else "")


def in_h(row: object) -> str:
    """A budget to 0.9 in units of H: "2.19 H", "> 80.00 H" where it is not reached by the
    largest budget, "<= 0.08 H" where it is reached by the first checkpoint."""
    ratio = row.budget_to_target / row.hardness_H
    if not row.reached:
        return f"> {ratio:.2f} H"
    return f"<= {ratio:.2f} H" if row.at_first_checkpoint else f"{ratio:.2f} H"


def baseline_name(baseline: str) -> str:
    """``none`` -> ``no baseline``, ``running_mean`` -> ``the running-mean baseline``."""
    return "no baseline" if baseline == "none" else f"the {baseline.replace('_', '-')} baseline"


def headline_rows(accuracy: pd.DataFrame) -> pd.DataFrame:
    """The rows of an accuracy table for the default cell (REINFORCE, default lr, running-mean
    baseline) at the headline budgets, the cell the write-up's headline numbers describe."""
    return accuracy[accuracy["algorithm"].isin(registry.trained()) & (accuracy["lr"] == DEFAULT_LR)
                    & (accuracy["baseline"] == "running_mean") & accuracy["budget"].isin(HEADLINE)]


class Report:
    """Reads the tables of each study under ``tables`` and renders the Markdown report."""

    def __init__(self, tables: Path, figures: Path, runs: Path, out: Path) -> None:
        self.tables, self.figures, self.runs, self.out = tables, figures, runs, out
        self.lines: list[str] = []

    def table(self, study: str, name: str) -> pd.DataFrame | None:
        """One table of one study, or None where it was not made or has no rows."""
        path = self.tables / study / f"{name}.csv"
        if not path.is_file():
            return None
        try:
            # A column of lr lists stays text even where every list holds a single lr.
            return pd.read_csv(path, dtype={"tied_lr": str})
        except pd.errors.EmptyDataError:
            return None

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def figure(self, name: str, caption: str) -> None:
        path = self.figures / f"{name}.png"
        if path.is_file():
            relative = os.path.relpath(path, self.out.parent)
            self.add(f"![{name}]({relative})", "", f"*Figure: {caption}*", "")
        else:
            self.add(f"*(figure {name} not drawn: its tables are missing)*", "")

    def markdown(self, frame: pd.DataFrame) -> None:
        # A text column read back from CSV has NaN where it was empty; show it empty.
        text = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
        self.add(frame.fillna({c: "" for c in text}).to_markdown(index=False, floatfmt=".5g"),
                 "")

    # Sections -----------------------------------------------------------------------------
    def headline(self) -> None:
        self.add("## 1. How accuracy rises with the budget", "")
        accuracy = self.table("budget_sweep", "accuracy")
        if accuracy is None:
            self.add("*budget_sweep has not been analysed.*", "")
            return
        rows = headline_rows(accuracy)
        seeds = int(rows["seeds"].iat[0])
        parts = [f"{r.accuracy:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}] at {r.budget:,}"
                 for r in rows.itertuples()]
        bandit = rows["environment"].iat[0].replace(",", ", ")
        chance = fraction(rows["chance"].iat[0])
        self.add(f"REINFORCE with the running-mean baseline at the default lr {DEFAULT_LR:g} is "
                 f"right {', '.join(parts)} rollouts ({seeds:,} seeds; 95% Wilson intervals).",
                 "")
        self.figure("accuracy_vs_budget", f"best-arm accuracy against budget on ({bandit}), one "
                    "panel per baseline, a line per lr. " + BAND_WILSON + " Black: uniform "
                    f"allocation; dashed: the never-training sampler ({chance}).")
        self.markdown(rows[["lr", "baseline", "budget", "seeds", "accuracy", "ci_low",
                            "ci_high", "non_finite"]])
        band = self.table("budget_sweep", "accuracy_band")
        if band is not None:
            first, last = band.iloc[0], band.iloc[-1]
            self.add("A claim about the whole curve (how it rises from the first checkpoint to "
                     "the last) needs a band that covers every checkpoint at once: the sup-t band "
                     "widens each pointwise interval by one factor, "
                     f"{band['band_factor'].iat[0]:.2f} here, the 95% quantile over seed-"
                     "bootstrap resamples (whole seeds, so a seed's checkpoints move together) "
                     "of the largest standardized deviation. Within it the curve runs from "
                     f"[{first['band_low']:.3f}, {first['band_high']:.3f}] at "
                     f"{int(first['budget']):,} to [{last['band_low']:.3f}, "
                     f"{last['band_high']:.3f}] at {int(last['budget']):,} rollouts.", "")
            self.figure("accuracy_band", "the headline cell's accuracy against budget; the dark "
                        "band is the pointwise 95% Wilson interval at each checkpoint, the light "
                        "band the simultaneous 95% sup-t band that covers every checkpoint at "
                        "once (seed bootstrap); bottom: the widths of the two (solid: pointwise, "
                        "dashed: simultaneous).")
        self.figure("lr_heatmap", "accuracy over lr x budget, one panel per baseline "
                    f"(colour: accuracy from chance {chance} to 1).")
        trained = accuracy[accuracy["algorithm"].isin(registry.trained())]
        last = trained[trained["budget"] == trained["budget"].max()]
        top = last[last["accuracy"] == last["accuracy"].max()].sort_values(["baseline", "lr"])
        final = top.iloc[0]
        # Cells with the same accuracy are named together: picking one of them would be a choice
        # made by the order of a sort, not by the data.
        cells = "; ".join(f"lr {r['lr']:g} with {baseline_name(r['baseline'])}"
                          for _, r in top.iterrows())
        self.add(f"At the largest budget ({final['budget']:,}) the most accurate REINFORCE "
                 f"{'cell is' if len(top) == 1 else f'cells ({len(top)}) tie:'} {cells}: "
                 f"{final['accuracy']:.4f} [{final['ci_low']:.4f}, {final['ci_high']:.4f}]"
                 f"{'' if len(top) == 1 else ' each'}.", "")

    def above_references(self) -> None:
        self.add("## 2. Above the never-training sampler and above uniform allocation", "")
        accuracy = self.table("budget_sweep", "accuracy")
        versus = self.table("budget_sweep", "vs_uniform")
        if accuracy is None or versus is None:
            self.add("*budget_sweep has not been analysed.*", "")
            return
        head = headline_rows(accuracy)
        primary = head[head["family"].str.endswith("/primary")]
        gaps = [f"{r.accuracy - r.chance:+.3f} [{r.ci_low - r.chance:+.3f}, "
                f"{r.ci_high - r.chance:+.3f}] at {r.budget:,} (exact binomial p "
                f"{pvalue(r.p_vs_chance)}, Holm {pvalue(r.p_vs_chance_holm)})"
                for r in head.itertuples()]
        self.add("The never-training sampler (zero logits, ties broken at random) is right with "
                 f"probability exactly {fraction(head['chance'].iat[0])}. The trained policy's "
                 "gap to it is " + "; ".join(gaps)
                 + ". These are the study's primary hypotheses, declared in its config before "
                 f"the run: {family_text(primary)}; every other cell's test against chance is in "
                 f"{family_text(accuracy[~accuracy['family'].str.endswith('/primary')])}.", "")
        rows = versus[(versus["lr"] == DEFAULT_LR) & (versus["baseline"] == "running_mean")
                      & versus["budget"].isin(HEADLINE)]
        self.add("Against uniform allocation with an empirical-best pick, paired by seed on common "
                 "random numbers (exact McNemar test on the discordant seeds, Newcombe interval "
                 f"for the difference; Holm within {family_text(versus)}):", "")
        self.markdown(rows[["budget", "seeds", "accuracy_a", "accuracy_b", "difference",
                            "ci_low", "ci_high", "only_a", "only_b", "p_value", "p_value_holm",
                            "verdict"]]
                      .rename(columns={"accuracy_a": "reinforce", "accuracy_b": "uniform"}))
        significant = rows[rows["p_value_holm"] < ALPHA]
        found = [f"{r.difference:+.4f} [{r.ci_low:+.4f}, {r.ci_high:+.4f}] at {r.budget:,} "
                 f"(Holm p {pvalue(r.p_value_holm)})" for r in significant.itertuples()]
        equivalent = versus["verdict"].str.startswith("equivalent")
        self.add(f"At the default lr the difference is significant after Holm at "
                 f"{len(significant)} of {len(rows)} headline budgets"
                 + (": " + "; ".join(found) if found else "") + ". Over the whole family, "
                 f"{int(equivalent.sum())} of {len(versus)} rows are equivalent within "
                 f"+-{versus['margin'].iat[0]:g} (the 90% Newcombe interval inside it: two "
                 "one-sided tests at "
                 f"0.05, per row) and {int((versus['verdict'] == 'unresolved').sum())} are "
                 "unresolved: neither a difference nor an equivalence, only the interval. "
                 + AGREEMENT.format(int((~versus["interval_agrees"]).sum()), len(versus)), "")
        self.figure("vs_uniform", "REINFORCE (running-mean baseline) minus uniform allocation, "
                    "per lr. " + BAND_NEWCOMBE)

    def baselines(self) -> None:
        self.add("## 3. Per-arm baseline against running-mean baseline", "")
        paired = self.table("budget_sweep", "per_arm_vs_running_mean")
        chance = self.table("budget_sweep", "per_arm_vs_chance")
        if paired is None or chance is None:
            self.add("*budget_sweep has not been analysed.*", "")
            return
        rows = paired[(paired["lr"] == DEFAULT_LR) & paired["budget"].isin(HEADLINE)]
        parts = [f"{r.difference:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}] at {r.budget:,} "
                 f"(McNemar p {pvalue(r.p_value)}, Holm {pvalue(r.p_value_holm)})"
                 for r in rows.itertuples()]
        significant = paired["p_value_holm"] < ALPHA
        worse = int((significant & (paired["difference"] < 0)).sum())
        better = int((significant & (paired["difference"] > 0)).sum())
        self.add(f"Paired by seed at lr {DEFAULT_LR:g}, per-arm minus running-mean accuracy is "
                 + "; ".join(parts) + f". Over every lr and budget ({family_text(paired)}), "
                 f"the per-arm baseline is significantly worse after Holm in {worse} of "
                 f"{len(paired)} comparisons and better in {better}. "
                 + AGREEMENT.format(int((~paired["interval_agrees"]).sum()), len(paired)),
                 "")
        self.add(*self._per_arm_against_chance(chance))
        self.figure("per_arm_vs_running_mean", "per-arm minus running-mean baseline, paired by "
                    "seed, per lr. " + BAND_NEWCOMBE)
        self.markdown(rows[["lr", "budget", "seeds", "accuracy_a", "accuracy_b", "difference",
                            "ci_low", "ci_high", "p_value", "p_value_holm", "verdict"]]
                      .rename(columns={"accuracy_a": "per_arm", "accuracy_b": "running_mean"}))

    @staticmethod
    def _per_arm_against_chance(chance: pd.DataFrame) -> list[str]:
        """What the per-arm cells show against chance: two-sided tests and equivalence tests,
        and the mechanism, every number from the ``per_arm_vs_chance`` table."""
        margin = float(chance["margin"].iat[0])
        above = chance[chance["verdict"].str.startswith("above")]
        below = chance[chance["verdict"].str.startswith("below")]
        within = chance[chance["p_equivalence_holm"] < ALPHA]
        late = chance[chance["budget"] > above["budget"].max()] if len(above) else chance
        if late.empty:  # above chance at the largest budget too
            late = chance
        low, high = late.loc[late["accuracy"].idxmin()], late.loc[late["accuracy"].idxmax()]

        def cell(r: pd.Series) -> str:
            return (f"{r['accuracy']:.4f} [{r['ci_low']:.4f}, {r['ci_high']:.4f}] at lr "
                    f"{r['lr']:g}, B = {r['budget']:,}")

        where = (f"beyond budget {above['budget'].max():,}" if len(above)
                 else "at every budget")
        early = (f", all at budgets up to {above['budget'].max():,} ({len(above)} of the "
                 f"{int((chance['budget'] <= above['budget'].max()).sum())} cells at those "
                 "budgets)" if len(above) else "")
        floor = float(chance["p_equivalence_at_chance"].min())
        threshold = ALPHA / len(chance)
        design = (f"With these seeds the smallest TOST p-value possible at this margin (accuracy "
                  f"exactly at chance) is {floor:.2g}, above Holm's first threshold "
                  f"{threshold:.2g}: no single cell can be shown equivalent within +-{margin:g} "
                  "in this family, whatever the data; per row at 0.05, unadjusted, "
                  f"{int((chance['p_equivalence'] < ALPHA).sum())} of {len(chance)} pass. "
                  if floor > threshold else "")
        findings = ([f"above chance in {len(above)} cells, all at budgets up to "
                     f"{above['budget'].max():,}"] if len(above) else [])
        findings += [f"below chance in {len(below)} cells"] if len(below) else []
        findings.append(f"shown equivalent to chance within +-{margin:g} in {len(within)} of "
                        f"{len(chance)} cells" if len(within) else "nowhere shown equivalent "
                        f"to chance within +-{margin:g}")
        first = (f"Against chance ({chance['chance'].iat[0]:.4f}), each per-arm cell is tested "
                 f"two-sided (exact binomial; {family_text(chance)}) and for equivalence within "
                 f"+-{margin:g}, a margin stated in the config before the run (two one-sided "
                 f"exact binomial tests; {family_text(chance, 'equivalence_family')}). "
                 f"{len(above)} of {len(chance)} cells are above chance after Holm{early}, "
                 f"{len(below)} below it, and {len(within)} are shown equivalent within "
                 f"+-{margin:g}; {where} accuracy ranges from {cell(low)} to {cell(high)}. "
                 + design + "So the data do not say that the per-arm baseline stays at "
                 "chance; they say it is " + "; ".join(findings) + ".")
        second = ("Why: the per-arm baseline is the mean of arm a's earlier rewards, 0 before "
                  "its first pull. After an arm's first pull E[r - b_a | a] = p_a - p_a = 0 for "
                  "every arm, so the expected policy-gradient step is zero and the logits drift "
                  "without direction; only the first pull of each arm, whose advantage is its "
                  "whole reward, pushes the policy towards arms that passed.")
        if len(above):
            counts = above.groupby("lr").size().reindex(sorted(chance["lr"].unique()),
                                                        fill_value=0)
            second += (" The cells above chance after Holm, by lr: "
                       + ", ".join(f"lr {lr:g}: {n}" for lr, n in counts.items()) + ".")
        return [first, "", second, ""]

    def narrow(self) -> None:
        self.add("## 4. Narrow margins: the budget to 0.9 accuracy", "")
        budgets = self.table("narrow_margins", "budget_to_target")
        if budgets is None:
            self.add("*narrow_margins has not been analysed.*", "")
            return
        best = budgets[budgets["selection"].str.startswith("best lr")]
        uniform = budgets[budgets["algorithm"] == "uniform"]
        h = budgets["hardness_H"].iat[0]
        parts = [f"{r.summary} with {baseline_name(r.baseline)} ({lr_choice(r)}; "
                 f"{in_h(r)})" for r in best.itertuples()]
        bandit = budgets["environment"].iat[0].replace(",", ", ")
        self.add(f"On ({bandit}), H = sum of 1/gap^2 = {h:,.0f}. At the best lr REINFORCE "
                 f"reaches 0.9 accuracy at " + "; ".join(parts) + ". Uniform allocation needs "
                 + ", ".join(f"{r.summary} ({in_h(r)})" for r in uniform.itertuples())
                 + ". Brackets are 95% percentile bootstrap intervals resampling whole seeds. "
                 "To keep the choice of the best lr from biasing its estimate, the lr is chosen "
                 "on the even seeds and its budget estimated on the odd seeds (so those rows use "
                 "half the seeds); where the even seeds cannot tell other lr from the chosen one "
                 "(the paired bootstrap interval of the ratio of their budgets contains 1) the "
                 "best lr is a tie, and the tied lr are named.", "")
        self.figure("narrow_margins", f"accuracy against budget on ({bandit}), a line "
                    "per lr; points on the 0.9 line are each lr's budget to 0.9 with its 95% "
                    "percentile bootstrap interval over seeds (an arrow: the upper limit lies "
                    "beyond the largest budget). Bands are 95% Wilson score intervals over "
                    "seeds.")
        self.markdown(budgets[["algorithm", "baseline", "lr", "selection", "tied_lr", "seeds",
                               "summary", "ratio_to_H"]])
        targets = self.table("narrow_margins", "budget_by_target")
        if targets is not None:
            self.add("How the answer depends on the target: budget to each accuracy target "
                     "(REINFORCE at the lr chosen for 0.9, on the odd seeds; the others on all "
                     "seeds; 95% bootstrap intervals):", "")
            wide = targets.pivot_table(index=["algorithm", "baseline", "lr"], columns="target",
                                       values="summary", aggfunc="first", sort=False)
            wide.columns = [f"to {t:g}" for t in wide.columns]
            self.markdown(wide.reset_index())

    def best_arm_identification(self) -> None:
        self.add("## 5. REINFORCE against best-arm identification", "")
        studies = [(study, self.table(study, "budget_to_target"),
                    self.table(study, "vs_best_arm_identification"),
                    self.table(study, "best_lr_vs_references"),
                    self.table(study, "budget_ratio"))
                   for study in ("budget_sweep", "narrow_margins")]
        if any(table is None for _, budgets, versus, _, ratios in studies
               for table in (budgets, versus, ratios)):
            self.add("*the studies with the best-arm-identification algorithms have not been "
                     "analysed.*", "")
            return
        planners = [item for item in registry.learners() if not item.nested]
        self.add("The fixed-budget best-arm-identification algorithms, "
                 + "; ".join(f"{item.display} ({item.summary})" for item in planners)
                 + ", are built to find the best arm with a fixed budget; they run on the same "
                 "seeds (common random numbers), once per checkpoint because their phases depend "
                 "on the budget.", "")
        self.figure("best_arm_identification", "accuracy against budget of every algorithm on "
                    "both bandits. " + BAND_WILSON)
        for study, budgets, versus, held_out, ratios in studies:
            h = budgets["hardness_H"].iat[0]
            rows = budgets[~budgets["algorithm"].isin(registry.trained())
                           | budgets["selection"].str.startswith("best lr")]
            rows = rows[rows["baseline"].isin(["none", "running_mean"])]
            self.add(f"**{study}** (H = {h:,.0f}): budget to 0.9 accuracy with 95% bootstrap "
                     "intervals, and its ratio to H:", "")
            self.markdown(rows[["algorithm", "baseline", "lr", "selection", "tied_lr", "seeds",
                                "summary", "ratio_to_H"]])
            parts = [f"{r.ratio:.2f} [{r.ci_low:.2f}, {r.ci_high:.2f}] times the budget of "
                     f"{registry.display(r.reference)}" for r in ratios.itertuples()]
            margin = float(ratios["ratio_margin"].iat[0])
            self.add(f"REINFORCE at its best lr ({ratios['lr'].iat[0]:g}, running-mean "
                     "baseline) needs " + "; ".join(parts) + " to reach 0.9 (ratio of the two "
                     "budgets on the odd seeds, 95% paired bootstrap interval; a resample in "
                     "which neither reaches 0.9 counts against both limits). Against a margin "
                     f"stated in the config before the run (a ratio within [1/{margin:g}, "
                     f"{margin:g}] is as efficient; two one-sided tests on the 90% bootstrap "
                     "interval): " + "; ".join(f"{registry.display(r.reference)}: "
                                              f"{ratio_verdict(r)}"
                                              for r in ratios.itertuples()) + ".", "")
            listed = ", ".join(f"{b:,}" for b in COMPARED_AT[study])
            if held_out is None:
                self.add(f"The even seeds chose the default lr {DEFAULT_LR:g}, so the "
                         "comparisons of the best lr are those of the default lr below (all "
                         "seeds, specified before the run), not asked a second time.", "")
            for table, who in ((versus, f"the default lr {DEFAULT_LR:g} (all seeds)"),
                               (held_out, "the best lr, on the odd seeds only (the even seeds "
                                "chose it)")):
                if table is None:
                    continue
                head = table[table["budget"].isin(COMPARED_AT[study])]
                if len(head):
                    self.add(f"REINFORCE at {who}, paired by seed at budgets {listed} (exact "
                             f"McNemar; Holm within {family_text(table)}). "
                             + AGREEMENT.format(int((~table["interval_agrees"]).sum()),
                                                len(table)), "")
                    self.markdown(head[["lr", "algorithm_b", "budget", "seeds", "accuracy_a",
                                        "accuracy_b", "difference", "ci_low", "ci_high",
                                        "p_value", "p_value_holm", "verdict"]].rename(
                                            columns={"accuracy_a": "reinforce"}))

    def cost(self) -> None:
        self.add("## 6. With a per-pull cost: does the extra compute pay for itself?", "")
        best = self.table("cost", "best_budget")
        steps = self.table("cost", "break_even")
        versus = self.table("cost", "net_value_vs_reference")
        if best is None or steps is None or versus is None:
            self.add("*cost has not been analysed.*", "")
            return
        deployment = read_manifest(self.runs / "cost")["config"]["deployment_pulls"]
        best = best[best["algorithm"].isin(registry.trained())]
        steps = steps[steps["algorithm"].isin(registry.trained())]
        resolved = int(best["resolved"].sum())
        self.add(f"A run's net value is D * p[deployed arm] - c * B with D = {deployment:,} "
                 f"deployment pulls. {INTERVAL_RULE} The best budget per cost for REINFORCE "
                 f"(lr {steps['lr'].iat[0]:g}) is chosen on the even seeds; its net value and "
                 "its paired gain over the runner-up budget are estimated on the odd seeds. The "
                 f"optimum is resolved (gain's interval above 0) at {resolved} of {len(best)} "
                 "costs:", "")
        self.markdown(best[["cost", "best_budget", "net_value", "ci_low", "ci_high",
                            "runner_up_budget", "gain_over_runner_up", "gain_over_runner_up_low",
                            "gain_over_runner_up_high", "interval", "resolved"]])
        paying = steps[steps["ci_low"] > 0]
        unresolved = steps[(steps["ci_low"] <= 0) & (steps["ci_high"] >= 0)]
        last = (f"; the last step whose interval lies above 0 is {paying['from_budget'].iat[-1]:,}"
                f" -> {paying['to_budget'].iat[-1]:,}, break-even "
                f"{paying['break_even_cost'].iat[-1]:.3g} [{paying['ci_low'].iat[-1]:.3g}, "
                f"{paying['ci_high'].iat[-1]:.3g}] per pull" if len(paying) else "")
        self.add("Break-even cost per pull of each step between checkpoints: the extra rollouts "
                 "pay for themselves below it. It is D times the gain in expected deployed value "
                 "per extra rollout, so it is proportional to D (a tenth of it at D / 10). "
                 f"{len(unresolved)} of {len(steps)} steps have an interval that includes 0: "
                 f"these seeds do not tell whether that step gains anything{last}.", "")
        self.markdown(steps[["from_budget", "to_budget", "break_even_cost", "ci_low", "ci_high",
                             "interval"]])
        self.figure("net_value", "expected net value against budget per per-pull cost, all "
                    "seeds; stars mark the best budget (chosen on the even seeds). Bands are "
                    "95% intervals of the mean over seeds (t, or the Clopper-Pearson bound where "
                    f"fewer than {SETTLED_SEEDS} seeds differ).")
        verdicts = []
        for pulls, at_d in versus.groupby("deployment_pulls", sort=True):
            parts = []
            for verdict, rows in at_d.groupby("higher", sort=False):
                name = ("unresolved" if verdict == "unresolved"
                        else f"{registry.display(verdict)} higher")
                parts.append(f"{name} at c = " + ", ".join(f"{c:g}" for c in rows["cost"]))
            verdicts.append(f"at D = {pulls:,.0f}: " + "; ".join(parts))
        self.add("REINFORCE against uniform allocation by net value, each at its own best budget "
                 "(chosen on the even seeds), paired on the odd seeds (difference = REINFORCE "
                 "minus uniform; 95% intervals, one per row, not adjusted for the table's "
                 f"{len(versus)} rows). The answer depends on c / D, and D is a guess, so the "
                 "table repeats it at D / 10, D and 10 D: " + "; ".join(verdicts) + ".", "")
        self.markdown(versus[["deployment_pulls", "cost", "best_budget_a", "best_budget_b",
                              "net_value_a", "net_value_b", "difference", "ci_low", "ci_high",
                              "interval", "higher"]].rename(columns={
                                  "best_budget_a": "reinforce_budget",
                                  "best_budget_b": "uniform_budget",
                                  "net_value_a": "reinforce_net", "net_value_b": "uniform_net"}))

    def seeds(self) -> None:
        self.add("## 7. How many seeds each claim needs", "")
        power = self.table("budget_sweep", "power")
        quick = self.table("quick", "accuracy")
        if power is None:
            self.add("*budget_sweep has not been analysed.*", "")
            return
        effects = sorted(power["effect_of_interest"].unique())
        self.add("Seeds each test needs for effects stated before the run (differences in "
                 "accuracy of " + ", ".join(f"{e:g}" for e in effects) + "; against chance, a "
                 "gain of that much over it), at 80% exact power of the exact test the study "
                 "runs (one-sided exact binomial against chance, two-sided exact McNemar for "
                 "paired comparisons) at the level it meets in the first step of its Holm "
                 "family, 0.05 / m for a family of m hypotheses (`alpha_per_test`). Exact power "
                 "is a sawtooth in n, so `seeds_exact` is the smallest n from which it stays at "
                 "80%; `seeds_normal` is the normal approximation's n and "
                 "`exact_power_at_seeds_normal` what the exact test has there. A paired "
                 "comparison's discordance is this run's share of seeds on which the two cells "
                 "disagree (an effect above it cannot occur: empty). The same numbers for any "
                 "stated effect: `python -m analysis plan`.", "")
        self.markdown(power)
        self.figure("power_curves", "power against seeds at the rates this run observed, an "
                    "illustration of the run, not a plan: lines are normal approximations, "
                    f"rings Monte Carlo resampling of seeds; dashed: 80% power; dotted: "
                    f"{CLAIM_SEEDS} seeds.")
        chance = power[power["comparison"] == "trained vs never-training sampler"]
        chance = chance[chance["budget"] == chance["budget"].min()]
        paired = power[(power["comparison"] != "trained vs never-training sampler")
                       & (power["effect_of_interest"] == max(effects))]
        self.add(f"Against chance, {CLAIM_SEEDS} seeds have exact power (at level "
                 f"{chance['alpha_per_test'].iat[0]:.3g}) "
                 + ", ".join(f"{r.exact_power_40_seeds:.2f} for a gain of {r.effect_of_interest:g}"
                             for r in chance.itertuples())
                 + f"; a paired difference of {max(effects):g} needs "
                 + ", ".join(f"{_seeds_text(r.seeds_exact, r.discordance)} ({r.comparison}, "
                             f"{r.budget:,})" for r in paired.itertuples()) + ".", "")
        if quick is not None:
            rows = quick[quick["budget"].isin(HEADLINE)]
            parts = [f"{r.accuracy:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}] at {r.budget:,}"
                     for r in rows.itertuples()]
            widths = rows["ci_high"] - rows["ci_low"]
            sweep = headline_rows(self.table("budget_sweep", "accuracy"))
            wide = sweep["ci_high"] - sweep["ci_low"]
            self.add(f"The seed exercise (`quick`, {int(rows['seeds'].iat[0])} seeds) measured "
                     + ", ".join(parts)
                     + f": intervals {widths.min():.3f} to {widths.max():.3f} wide, against "
                     f"{wide.min():.3f} to {wide.max():.3f} for the {sweep['seeds'].iat[0]:,} "
                     "seeds of section 1.", "")

    def textbook(self) -> None:
        self.add("## 8. The textbook check: Sutton and Barto, Figure 2.5", "")
        points = self.table(SUTTON_BARTO, "curve_points")
        if points is None:
            self.add(f"*{SUTTON_BARTO} has not been analysed.*", "")
            return
        seeds = int(points["seeds"].iat[0])
        self.add("The gradient bandit (REINFORCE with a softmax policy) on the 10-armed Gaussian "
                 f"testbed with true values q*(a) ~ N(4, 1), {seeds:,} runs of 1000 steps, "
                 "with the book's baseline (the average reward including the current one) and "
                 "without. Fraction of runs taking the optimal action at chosen steps:", "")
        shown = points[points["step"].isin((100, 500, 1000))].copy()
        shown["optimal action [95% Wilson]"] = [
            f"{r.optimal_action:.3f} [{r.optimal_ci_low:.3f}, {r.optimal_ci_high:.3f}]"
            for r in shown.itertuples()]
        self.markdown(shown[["lr", "baseline", "step", "optimal action [95% Wilson]",
                             "mean_reward"]])
        end = points[points["step"] == points["step"].max()].set_index(["baseline", "lr"])
        if {("running_mean_inclusive", 0.1), ("none", 0.1)} <= set(end.index):
            with_b, without = end.loc[("running_mean_inclusive", 0.1)], end.loc[("none", 0.1)]
            self.add(f"At step {int(with_b['step']):,} with step size 0.1 the baseline lifts the "
                     f"optimal-action rate from {without['optimal_action']:.3f} "
                     f"[{without['optimal_ci_low']:.3f}, {without['optimal_ci_high']:.3f}] to "
                     f"{with_b['optimal_action']:.3f} [{with_b['optimal_ci_low']:.3f}, "
                     f"{with_b['optimal_ci_high']:.3f}], the gap the book's figure shows.", "")
        self.figure(SUTTON_BARTO, "% optimal action against steps in the book's layout. Bands "
                    "and brackets are 95% Wilson score intervals over the runs at each step "
                    "(`statsmodels.stats.proportion.proportion_confint(method=\"wilson\")`).")

    def groups(self) -> None:
        self.add("## 9. Group rollouts: GRPO, Dr. GRPO and RLOO at the same rollout budget", "")
        studies = [study for study in GROUP_STUDIES
                   if self.table(study, "group_best_lr") is not None]
        if not studies:
            self.add("*the group studies have not been analysed.*", "")
            return
        self.add("Each update draws G rollouts from the current policy and uses the group as its "
                 "baseline (README, \"Group rollouts\"). Every (bandit, estimator, G) is an arm; "
                 "its lr is chosen on the even seeds (largest mean accuracy over the checkpoints) "
                 "and everything below is estimated on the odd seeds, paired by seed on common "
                 "random numbers (the rollouts of every G are the same draws). Paired tests are "
                 "exact McNemar tests with Newcombe 95% intervals, made at every checkpoint where "
                 "the group learner has made at least one update (before it, B < G, it is the "
                 "untrained policy); each table is one Holm family (named with it), and a verdict "
                 "of a difference uses the Holm-adjusted p, while the printed 95% interval is "
                 "not adjusted, so it can exclude 0 in a row whose verdict is \"unresolved\". "
                 f"\"equivalent within +-{MARGIN:g}\" means the 90% interval (two one-sided "
                 f"tests at 0.05, per row, not adjusted for the family) lies inside +-{MARGIN:g}, "
                 "a margin stated before the run; a significant difference whose 90% interval is "
                 "also inside it is reported as smaller than the margin; anything else is "
                 "\"unresolved\". Where both arms are right on nearly every seed (1.000 at the "
                 "largest budgets) an equivalence says only that both have solved the bandit.", "")
        for study in studies:
            self._group_study(study)

    def _group_study(self, study: str) -> None:
        best = self.table(study, "group_best_lr")
        versus = self.table(study, "group_vs_single")
        top = self.table(study, "group_best_arm")
        budgets = self.table(study, "group_budget_to_target")
        zscore = self.table(study, "group_zscore_vs_mean")
        zero = self.table(study, "group_zero_signal")
        seeds = int(versus["seeds"].iat[0]) if versus is not None and len(versus) else 0
        self.add(f"### {study}", "")
        edges = best[best["at_edge"]]
        self.add(f"{len(best)} arms; best lr at an edge of the grid for {len(edges)} of them"
                 + (": " + ", ".join(f"{r.baseline} G = {r.group_size} on {r.environment} "
                                     f"(lr {r.best_lr:g})" for r in edges.itertuples())
                    if len(edges) else "") + f"; {seeds:,} odd seeds per estimate.", "")
        self.add("**1. Is the best G 1, and how much does it matter?** The arm with the largest "
                 "even-seed accuracy per bandit, and its difference from single-rollout "
                 "REINFORCE (running-mean baseline, its own best lr) on the odd seeds (rows of "
                 "the `group_vs_single` family; where its rows are equivalent or unresolved, the "
                 "choice among near-equal arms on the even seeds is noise):", "")
        self.markdown(top)
        if versus is not None and len(versus):
            counts = versus.groupby(["environment", "verdict"]).size().unstack(fill_value=0)
            self.add("Every arm against single-rollout REINFORCE at every checkpoint after its "
                     f"first update (Holm family: the {len(versus)} rows of `group_vs_single`), "
                     "verdicts per bandit:", "")
            self.markdown(counts.reset_index())
            dr = versus[versus["baseline"] == "group_mean"]
            self.add("Dr. GRPO (group mean) against single-rollout REINFORCE, difference [95% "
                     "Newcombe] and verdict:", "")
            shown = dr.assign(**{"difference [95%]": [
                f"{r.difference:+.4f} [{r.ci_low:+.4f}, {r.ci_high:+.4f}]"
                for r in dr.itertuples()]})
            self.markdown(shown[["environment", "group_size", "lr", "budget", "rollouts",
                                 "difference [95%]", "p_value_holm", "verdict"]])
        self.figure(f"group_accuracy_{study}", "accuracy against the rollouts spent, a line per "
                    "G (Dr. GRPO's group mean for G > 1, single-rollout REINFORCE with the "
                    "running-mean baseline for G = 1), at each arm's best lr (top) and at lr "
                    f"{DEFAULT_LR:g} (bottom), odd seeds. Bands are 95% Wilson score intervals.")
        self.add("**2. Rollouts to 0.9 accuracy** at each arm's best lr (95% bootstrap interval "
                 "over odd seeds, read against the rollouts actually spent), and its ratio to "
                 "single-rollout REINFORCE and to uniform allocation (95% paired bootstrap):", "")
        ratio_columns = [c for c in ("ratio_to_single", "ratio_to_uniform") if c in budgets]
        shown = budgets.assign(**{f"{c} [95%]": [
            (f"{r[c]:.2f} [{r[c + '_low']:.2f}, {r[c + '_high']:.2f}]"
             if pd.notna(r[c]) else "") for _, r in budgets.iterrows()] for c in ratio_columns})
        self.markdown(shown[["environment", "baseline", "group_size", "lr", "summary",
                             *(f"{c} [95%]" for c in ratio_columns)]])
        self.figure(f"group_budget_{study}", "rollouts to 0.9 accuracy against G, a line per "
                    "advantage estimator at its best lr; bars are 95% percentile bootstrap "
                    "intervals resampling whole odd seeds (an upper bar cut at the point means "
                    "the interval is unbounded above).")
        if zscore is not None and len(zscore):
            self.add("**3. GRPO against Dr. GRPO** (z-score minus group mean, each at its best lr; "
                     f"Holm family: the {len(zscore)} rows of `group_zscore_vs_mean`). Dividing "
                     "by the group's spread s multiplies the step of a group with signal by "
                     "E[1/(s + 1e-4)], computed exactly for the uniform policy's mean pass rate "
                     "and for the best arm's; checkpoints after the first update:", "")
            shown = zscore.assign(**{"difference [95%]": [
                f"{r.difference:+.4f} [{r.ci_low:+.4f}, {r.ci_high:+.4f}]"
                for r in zscore.itertuples()]})
            self.markdown(shown[["environment", "group_size", "lr_grpo", "lr_dr_grpo",
                                 "step_scale_uniform_policy", "step_scale_best_arm", "budget",
                                 "rollouts", "difference [95%]", "p_value_holm", "verdict"]])
        self.add(f"**4. Robustness to lr**: the lr over which each arm's mean accuracy over the "
                 f"checkpoints (all seeds, standard error about "
                 f"{0.5 / max(2 * seeds, 1) ** 0.5:.3f} per lr) stays within {ROBUST:g} of its "
                 "best, and its width in decades; where the range reaches an edge of the grid it "
                 "may extend beyond it, so its width is a lower bound. (The greedy arm is the "
                 "argmax of the logits, which does not depend on their scale, so a small lr costs "
                 "little accuracy; the best of the grid's values is taken on all seeds here.)", "")
        self.markdown(best[["environment", "baseline", "group_size", "best_lr", "at_edge",
                            "robust_lr_low", "robust_lr_high", "robust_decades",
                            "robust_contiguous", "robust_range_at_edge"]])
        if zero is not None:
            self.add("**5. Rollouts spent on groups with no signal**: the share of updates whose "
                     "advantages were all 0 by the largest budget (each update is G rollouts, so "
                     "it is also the share of rollouts), at each arm's best lr, 95% t interval "
                     "over odd seeds, beside its exact value for a policy that stays uniform and "
                     "for one that pulls only the best arm (all rewards equal for a group "
                     "estimator, all 0 without a baseline):", "")
            self.markdown(zero[["environment", "baseline", "group_size", "lr", "updates",
                                "zero_signal_share", "ci_low", "ci_high", "uniform_policy",
                                "best_arm_policy"]])
            self.figure(f"group_zero_signal_{study}", "share of updates with no signal against "
                        "G, per estimator at its best lr; bars are 95% t intervals over odd "
                        "seeds; dashed and dotted: exact values for the group estimators under a "
                        "uniform policy and under one that pulls only the best arm.")

    def hardness(self) -> None:
        self.add("## 10. Budget against hardness", "")
        points, slopes = self.table("hardness", "hardness"), self.table("hardness",
                                                                         "hardness_slope")
        if points is None or slopes is None:
            self.add("*hardness has not been analysed.*", "")
            return
        arms = sorted(points["arms"].unique())
        self.add(f"The budget to 0.9 accuracy on {points['environment'].nunique()} fixed bandits "
                 f"of K = {arms[0]} to {arms[-1]} arms, H = "
                 f"{points['hardness_H'].min():,.0f} to {points['hardness_H'].max():,.0f}, "
                 f"each algorithm on the same {int(points['seeds'].iat[0]):,} odd seeds "
                 "(REINFORCE at its best lr per bandit, chosen on the even seeds), and the slope "
                 "of log budget on log H: 1 means the budget grows in proportion to H. "
                 "Intervals are 95% percentile bootstrap intervals, one resample of seeds shared "
                 "by every bandit. " + "; ".join(
                     f"{display(r.algorithm)}: slope {r.slope:.2f} [{r.ci_low:.2f}, "
                     f"{r.ci_high:.2f}], {r.budget_per_H_at_median_H:.2f} H at the median H"
                     for r in slopes.itertuples()) + ". The intervals cover the seeds' noise "
                 "for these bandits only: about the fitted lines the budgets scatter by a "
                 f"standard deviation of {slopes['residual_sd_log'].min():.2f} to "
                 f"{slopes['residual_sd_log'].max():.2f} in log budget, what K and the shape of "
                 "the gaps add beyond H, so other bandits of the same H can sit off the line.",
                 "")
        self.figure("hardness", "rollouts to 0.9 accuracy against H on log-log axes, one "
                    "colour per algorithm; bars are 95% percentile bootstrap intervals over "
                    "odd seeds (drawn up to the estimate where unbounded above), lines the fitted "
                    "log budget on log H; points at one H are spread sideways to stay visible.")
        self.markdown(slopes[["algorithm", "bandits", "bandits_reached", "slope", "ci_low",
                              "ci_high", "budget_per_H_at_median_H", "residual_sd_log",
                              "censored_resamples"]])

    def methods(self) -> None:
        self.add("## Methods", "")
        self.add("Every p-value belongs to exactly one family, adjusted by Holm's step-down "
                 "method within it (family-wise error rate 0.05); each table names its family in "
                 "a `family` column. A study's primary family is declared in its config before "
                 "the run; every other table of a study is its own secondary family. Cells that "
                 "differ only in their per-pull cost are one simulation and one hypothesis, so "
                 "they enter a family once. The families of this run:", "")
        rows = []
        for path in sorted(self.tables.glob("*/*.csv")):
            try:
                header = pd.read_csv(path, nrows=0).columns
            except pd.errors.EmptyDataError:
                continue  # a table with no rows: the study does not ask that question
            for column in ("family", "equivalence_family"):
                if column not in header:
                    continue
                table = pd.read_csv(path)
                test = TESTS.get(path.stem if column == "family" else "equivalence", "")
                adjusted = adjusted_column(header, column)
                if adjusted not in header:
                    continue  # names the family of a test planned elsewhere (power)
                for name, size in family_sizes(table, column, adjusted).items():
                    seeds = table.loc[table[column] == name, "seeds"]
                    rows.append({"family": name, "hypotheses": size, "test": test,
                                 "seeds per test": f"{seeds.min():,}" if seeds.min() == seeds.max()
                                 else f"{seeds.min():,} to {seeds.max():,}"})
        if rows:
            self.markdown(pd.DataFrame(rows))
        self.add(f"Intervals: Wilson score intervals for accuracies; Newcombe's hybrid score "
                 "interval (his method 10) for paired differences, at 95% and at 90% for two "
                 "one-sided tests of equivalence (equivalent when the 90% interval lies inside "
                 "the margin stated in the config); percentile bootstrap intervals resampling "
                 f"whole seeds ({BOOTSTRAP:,} resamples) for budgets to 0.9 and their ratios, "
                 "read off an isotonic fit of accuracy against budget; for means over seeds of "
                 f"net value and break-even cost, t intervals where at least {SETTLED_SEEDS} "
                 "seeds differ from the most common value and otherwise Clopper-Pearson bounds "
                 "on the share of seeds above and below it. Selection: a cell chosen as best "
                 "(lr, budget) is chosen on the even seeds and estimated and tested on the odd "
                 "seeds. Power: the exact power of the exact test that is run, at the level of "
                 "the first Holm step of its family, for effects stated before the run, reported "
                 "as the smallest n from which it stays at the target (`python -m analysis "
                 "plan`). Decisions read from intervals rather than p-values (a paired row's "
                 "equivalence, a `resolved` best budget, the `higher` learner by net value, a "
                 "budget ratio's verdict, tied lr) are per row, at 95% (90% for equivalence), "
                 "and not adjusted for the number of rows in their table.", "")

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
            versions = json.loads(sorted(self.runs.glob(f"*/{MANIFEST_FILE}"))[0].read_text())[
                "versions"]
            self.markdown(pd.DataFrame(rows))
            self.add("Versions: " + ", ".join(f"{k} {v}" for k, v in sorted(versions.items()))
                     + ".", "")

    def render(self) -> str:
        self.add("# How much does paying for more RL rollouts buy?", "",
                 "Generated by `make all` from the configs in `study/configs/`; every number "
                 "below is read from `out/tables/` and regenerates. Headline numbers are also "
                 "LaTeX macros in `out/numbers.tex`.", "")
        for section in (self.headline, self.above_references, self.baselines, self.narrow,
                        self.best_arm_identification, self.cost, self.seeds, self.textbook,
                        self.groups, self.hardness, self.methods, self.provenance):
            section()
        return "\n".join(self.lines) + "\n"


def numbers_tex(tables: Path) -> str:
    """Every study's headline numbers as LaTeX macros."""
    numbers: dict[str, str] = {}
    for path in sorted(tables.glob(f"*/{NUMBERS_FILE}")):
        numbers.update(json.loads(path.read_text()))
    return latex_macros({k: v.replace("<=", "$\\leq$").replace(">", "$>$")
                         for k, v in numbers.items()})


def main() -> None:
    """Write the report and the LaTeX numbers, each atomically."""
    parser = argparse.ArgumentParser(prog="python -m figures.report")
    parser.add_argument("--tables", type=Path, required=True)
    parser.add_argument("--figures", type=Path, required=True)
    parser.add_argument("--runs", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    report = Report(args.tables, args.figures, args.runs, args.out).render()
    numbers = numbers_tex(args.tables)
    write_files({args.out.parent / "numbers.tex": lambda path: path.write_text(numbers),
                 args.out: lambda path: path.write_text(report)})


if __name__ == "__main__":
    main()
