"""``python -m figures.paper``: the write-up, ``out/paper.pdf``, typeset by Typst from ``paper/``.

The prose is ``paper/paper.typ`` (its layout in ``paper/style.typ``, its references in
``paper/references.yml``) and types no number: every number is a macro of the module
``numbers.typ`` that this program writes beside the PDF, in ``out/paper/``, from the tables
through ``figures.cite``, so that each macro's source (table cell, row count or constant of the
code) is listed in ``out/paper/numbers.csv`` and a test can read it again from the files and find
it in the PDF. A digit typed into the prose is refused before anything is written, as in the
report. The paragraphs of the sections that follow from a study's tables (``figures.sections``)
come from their Typst templates into ``sections.typ``, which ``paper.typ`` includes, and are
checked for typed digits the same way. Figures are the vector PDFs of ``out/figures/``.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import tempfile
from pathlib import Path

import pandas as pd
import typst

from analysis.power import TARGET_POWER
from analysis.roles import Against, Finding, LrRole
from analysis.study_tables import SETTINGS
from analysis.tables import macro_name, number_word, study_prefix
from figures import prose, sections
from figures.cite import MARKED, Tables, unmark
from figures.numbers import Registry
from figures.report import arguments, bandit, fraction, headline_rows, pvalue
from study.spec import registry
from study.spec.atomic import write_files
from study.spec.paths import REPO_ROOT

PAPER_DIR = REPO_ROOT / "paper"
SOURCE = "paper.typ"
SOURCES = (SOURCE, "style.typ", "references.yml")
"""The files of ``paper/`` the PDF is typeset from (copied next to the generated macros)."""
MODULE, MACRO_SOURCES, PDF = "numbers.typ", "numbers.csv", "paper.pdf"
SECTIONS = "sections.typ"
"""The paragraphs of the sections that follow from a study's tables (``figures.sections``),
rendered from their Typst templates; ``paper.typ`` includes it."""
GROUP_STUDY = "group_rollouts"
PRIMARY = "primary"
POWER_EFFECT = 0.05
"""The gain over chance whose seeds the paper quotes (one of the effects the study states)."""
EQUIVALENT = f"finding == {Finding.EQUIVALENT.value!r}"
SOLVED = 0.99
"""Accuracy above which a learner has solved the bandit: two such are equivalent trivially."""


class Paper:
    """The paper's macros: name -> text, each text one cited number (or a phrase without
    digits chosen by the data), built from the tables under ``tables``."""

    def __init__(self, tables: Path, runs: Path) -> None:
        self.cite = Tables(tables, runs)
        self.macros: dict[str, str] = {}
        self.sections: list[str] = []

    def settings(self, study: str) -> pd.Series:
        """The ``[analysis]`` settings a study was analysed with (its ``settings`` table's row),
        for selecting the rows its config declares."""
        return self.table(study, SETTINGS).iloc[0]

    def table(self, study: str, name: str) -> pd.DataFrame:
        frame = self.cite.read(study, name)
        if frame is None:
            raise SystemExit(f"the paper needs the table {study}/{name}: run `make all` first")
        return frame

    def put(self, name: str, text: str) -> None:
        """Define macro ``name``: one cited number, or a phrase with no digit."""
        marks = MARKED.findall(text)
        if len(marks) > 1 or (not marks and re.search(r"\d", text)):
            raise ValueError(f"macro {name} must be one cited number: {unmark(text)!r}")
        self.macros[name] = text

    def build(self) -> dict[str, str]:
        """Every macro of the paper."""
        self.headline()
        self.baselines()
        self.narrow()
        self.groups()
        self.seeds()
        self.declared()
        return self.macros

    def declared(self) -> None:
        """The sections that follow from a study's tables (``figures.sections``): their named
        numbers as macros, under the names the report and ``numbers.tex`` give them, and their
        paragraphs, from their Typst templates, in ``self.sections``."""
        numbers = Registry()
        for module in sections.modules():
            section = module.SECTION
            for path in sorted(self.cite.tables.glob(f"*/{section.table}.parquet")):
                study = path.parent.name
                prefix = study_prefix(study)
                context = module.claims(self.cite, study, numbers.scope(prefix))
                if section.paper:
                    self.sections.append(prose.render(
                        section.paper, n=Macros(prefix), title=section.title,
                        figure=f"{study}_{section.figure}",
                        **{k: v for k, v in context.items() if isinstance(v, str)}))
        for name in numbers:
            self.put(name, numbers.text(name))

    def headline(self) -> None:
        cite, put = self.cite, self.put
        put("Level", f"{cite.constant('1 - analysis.families.ALPHA'):.0%}")
        put("LevelNinety", f"{cite.constant('1 - 2 * analysis.families.ALPHA'):.0%}")
        put("Alpha", f"{cite.constant('analysis.families.ALPHA'):g}")
        put("Target", f"{cite.constant('analysis.budget_to_target.TARGET'):g}")
        put("DefaultLr", f"{cite.constant('study.spec.config.DEFAULT_LR'):g}")
        put("Resamples", f"{cite.constant('analysis.budget_to_target.BOOTSTRAP'):,}")
        accuracy = self.table("budget_sweep", "accuracy")
        settings = self.settings("budget_sweep")
        rows = headline_rows(accuracy, settings)
        one = cite.first(rows)
        put("Arms", one.environment.shown(bandit))
        put("Chance", one.chance.shown(fraction))
        put("Seeds", f"{one.seeds:,}")
        for r in cite.rows(rows):
            word = number_word(int(r.budget.value))
            put(f"Budget{word}", f"{r.budget:,}")
            put(f"Acc{word}", f"{r.accuracy:.3f}")
            put(f"Acc{word}Low", f"{r.ci_low:.3f}")
            put(f"Acc{word}High", f"{r.ci_high:.3f}")
            put(f"Gap{word}", f"{r.accuracy - r.chance:+.3f}")
            put(f"Gap{word}P", r.p_vs_chance_holm.shown(pvalue))
        put("PrimaryFamily", f"{cite.count(rows, PRIMARY)}")
        band = cite.first(self.table("budget_sweep", "accuracy_band"))
        put("BandFactor", f"{band.band_factor:.2f}")
        versus = self.table("budget_sweep", f"vs_{settings['reference']}")
        put("UniformFamily", f"{cite.count(versus)}")
        put("UniformMargin", f"{cite.first(versus).margin:g}")
        put("UniformEquivalent", f"{cite.count(versus, EQUIVALENT)}")
        solved = cite.constant("figures.paper.SOLVED")
        put("Solved", f"{solved:g}")
        both_solved = f"{EQUIVALENT} and accuracy_a > {SOLVED} and accuracy_b > {SOLVED}"
        put("UniformEquivalentSolved", f"{cite.count(versus, both_solved)}")
        for r in cite.rows(headline_rows(versus, settings)):
            word = number_word(int(r.budget.value))
            put(f"Uniform{word}", f"{r.difference:+.3f}")
            put(f"Uniform{word}Low", f"{r.ci_low:+.3f}")
            put(f"Uniform{word}High", f"{r.ci_high:+.3f}")
            put(f"Uniform{word}P", r.p_value_holm.shown(pvalue))

    def baselines(self) -> None:
        cite, put = self.cite, self.put
        paired = self.table("budget_sweep", "per_arm_vs_running_mean")
        settings = self.settings("budget_sweep")
        # The per-arm baseline's paragraph quotes the third compared budget (1,000 rollouts).
        at = settings["compared_budgets"][2]
        row = cite.first(paired[(paired["lr"] == settings["headline_lr"])
                                & (paired["budget"] == at)])
        put("PerArmBudget", f"{row.budget:,}")
        put("PerArm", f"{row.difference:+.3f}")
        put("PerArmLow", f"{row.ci_low:+.3f}")
        put("PerArmHigh", f"{row.ci_high:+.3f}")
        put("PerArmP", row.p_value_holm.shown(pvalue))
        # Worse, and not by less than the margin.
        worse = f"finding == {Finding.LOWER.value!r} and ~within_margin"
        put("PerArmWorse", f"{cite.count(paired, worse)}")
        put("PerArmFamily", f"{cite.count(paired)}")
        budgets = self.table("budget_sweep", "budget_to_target")
        # At the default lr on all seeds (not the rows of a best lr, measured on the odd seeds).
        default = budgets[(budgets["lr"] == settings["headline_lr"])
                          & budgets["algorithm"].isin(registry.trained())
                          & (budgets["lr_role"] == LrRole.GRID)]
        for r in cite.rows(default):
            put(macro_name("ToTarget", *r.baseline.value.split("_")), f"{r.summary}")

    def narrow(self) -> None:
        cite, put = self.cite, self.put
        budgets = self.table("narrow_margins", "budget_to_target")
        one = cite.first(budgets)
        put("NarrowArms", one.environment.shown(bandit))
        put("NarrowH", f"{one.hardness_H:,.0f}")
        best = cite.first(budgets[(budgets["lr_role"] == LrRole.BEST)
                                  & (budgets["baseline"] == "running_mean")])
        put("NarrowLr", f"{best.lr:g}")
        put("NarrowBest", f"{best.summary}")
        put("NarrowBestInH", f"{best.ratio_to_H:.1f}")
        put("NarrowSeeds", f"{best.seeds:,}")
        uniform = cite.first(budgets[budgets["algorithm"]
                                     == self.settings("narrow_margins")["reference"]])
        put("NarrowUniform", f"{uniform.summary}")
        put("NarrowUniformInH", f"{uniform.ratio_to_H:.1f}")
        ratios = self.table("narrow_margins", "budget_ratio")
        for r in cite.rows(ratios):
            name = macro_name(*r.reference.value.split("_"))
            put(f"Ratio{name}", f"{r.ratio:.2f}")
            put(f"Ratio{name}Low", f"{r.ci_low:.2f}")
            put(f"Ratio{name}High", f"{r.ci_high:.2f}")
            put(f"Ratio{name}LowNinety", f"{r.ci90_low:.3f}")
            put(f"Ratio{name}HighNinety", f"{r.ci90_high:.3f}")
            put(f"Ratio{name}Verdict", {"equivalent": "inside", "not shown": "not inside",
                                        "unresolved": "within Monte Carlo error of"}[
                                            r.equivalence.value])
        put("RatioMargin", f"{cite.first(ratios).ratio_margin:g}")

    def groups(self) -> None:
        cite, put = self.cite, self.put
        budgets = self.table(GROUP_STUDY, "group_budget_to_target")
        # The headline bandit (the study's first); groups with Dr. GRPO's group mean.
        budgets = budgets[budgets["environment"] == budgets["environment"].iat[0]]
        single = cite.first(budgets[budgets["group_size"] == 1])
        groups = budgets[budgets["baseline"] == "group_mean"]
        largest = cite.first(groups[groups["group_size"] == groups["group_size"].max()])
        put("GroupSingle", f"{single.summary}")
        put("GroupSize", f"{largest.group_size}")
        put("GroupToTarget", f"{largest.summary}")
        put("GroupRatio", f"{largest.ratio_to_single:.2f}")
        put("GroupRatioLow", f"{largest.ratio_to_single_low:.2f}")
        put("GroupRatioHigh", f"{largest.ratio_to_single_high:.2f}")
        for r in cite.rows(groups[groups["group_size"] < groups["group_size"].max()]):
            word = number_word(int(r.group_size.value))
            put(f"GroupSize{word}", f"{r.group_size}")
            put(f"GroupRatio{word}", f"{r.ratio_to_single:.2f}")
            put(f"GroupRatio{word}Low", f"{r.ratio_to_single_low:.2f}")
            put(f"GroupRatio{word}High", f"{r.ratio_to_single_high:.2f}")

    def seeds(self) -> None:
        cite, put = self.cite, self.put
        power = self.table("budget_sweep", "power")
        chance = power[power["against"] == Against.CHANCE]
        chance = chance[(chance["budget"] == chance["budget"].min())
                        & (chance["effect_of_interest"] == POWER_EFFECT)]
        if chance.empty:
            raise SystemExit(f"the paper quotes the power for a gain of {POWER_EFFECT:g} over "
                             "chance, which budget_sweep's power table does not plan")
        row = cite.first(chance)
        put("PowerTarget", f"{cite.constant('analysis.power.TARGET_POWER'):.0%}")
        put("PowerEffect", f"{row.effect_of_interest:g}")
        put("PowerAlpha", f"{row.alpha_per_test:.3g}")
        put("PowerSeeds", f"{row.seeds_exact:,.0f}")
        put("PowerSeedsNormal", f"{row.seeds_normal:,.0f}")
        put("PowerAtNormal", f"{row.exact_power_at_seeds_normal:.3f}")
        put("PowerShort", "only " if row.exact_power_at_seeds_normal.value < TARGET_POWER else "")


class Macros:
    """A Typst template's view of one study's named numbers: ``n.Seeds`` is the macro
    ``#<prefix>Seeds`` of ``numbers.typ``."""

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix

    def __getattr__(self, name: str) -> str:
        if name.startswith("_"):
            raise AttributeError(name)
        return f"#{self._prefix}{name}"


def typed_numbers(source: str) -> list[str]:
    """Digits in the prose of a Typst source that no macro wrote: what remains after removing
    comments, code (``#name``, ``#name.field``, ``#name(...)`` calls on one line, with their
    strings), labels and references (``<label>``, ``@key``). Quoted prose is prose: checked."""
    text = re.sub(r"//[^\n]*", "", source)
    text = re.sub(r"#[A-Za-z_][\w.-]*(\([^()\n]*\))?", "", text)
    text = re.sub(r"<[\w-]+>|@[\w-]+", "", text)
    return [line.strip() for line in text.splitlines() if re.search(r"\d", line)]


def module(macros: dict[str, str]) -> str:
    """The macros as a Typst module of string constants."""
    def quoted(text: str) -> str:
        return '"' + unmark(text).replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "".join(f"#let {name} = {quoted(text)}\n" for name, text in sorted(macros.items()))


def sources(paper: Paper) -> pd.DataFrame:
    """Each macro with its text and the ledger entry of its number (none for a phrase)."""
    ledger = paper.cite.ledger.frame()
    rows = []
    for name, text in sorted(paper.macros.items()):
        marks = MARKED.findall(text)
        entry = ledger.iloc[int(marks[0][0])].to_dict() if marks else {
            "text": text, "kind": "phrase", "source": "", "spec": "", "formatter": ""}
        rows.append({"macro": name, **{k: entry[k] for k in ("text", "kind", "source", "spec",
                                                              "formatter")}})
    return pd.DataFrame(rows)


def build(tables: Path, figures: Path, runs: Path, out: Path) -> None:
    """Typeset ``out`` (the PDF) from ``paper/`` and the macros of the tables; the macros and
    their sources go to ``out.parent / "paper"``, the copied sources beside them."""
    paper = Paper(tables, runs)
    macros = paper.build()
    declared = "\n".join(paper.sections)
    for name, text in ((PAPER_DIR / SOURCE, (PAPER_DIR / SOURCE).read_text()),
                       ("the sections' templates", declared)):
        typed = typed_numbers(text)
        if typed:
            raise SystemExit(f"a number typed into {name} has no macro: {typed[0]!r}")
    work = out.parent / "paper"
    work.mkdir(parents=True, exist_ok=True)
    # Typeset in a folder of its own, then replace every output at once: a failed run leaves
    # the earlier macros, sources and PDF together as they were.
    with tempfile.TemporaryDirectory(dir=work) as staging:
        staged = Path(staging)
        for name in SOURCES:
            shutil.copyfile(PAPER_DIR / name, staged / name)
        (staged / MODULE).write_text(module(macros))
        (staged / SECTIONS).write_text(declared)
        root = Path(os.path.commonpath([staged.resolve(), figures.resolve()]))
        typst.compile(str(staged / SOURCE), output=str(staged / PDF), root=str(root),
                      sys_inputs={"figures": "/" + figures.resolve().relative_to(root).as_posix()},
                      ignore_system_fonts=True, format="pdf")
        copies = {work / name: functools.partial(shutil.copyfile, staged / name)
                  for name in (*SOURCES, MODULE, SECTIONS)}
        write_files({**copies,
                     work / MACRO_SOURCES: lambda path: sources(paper).to_csv(path, index=False),
                     out: functools.partial(shutil.copyfile, staged / PDF)})


def main() -> None:
    """Write the paper and the sources of its macros."""
    args = arguments("python -m figures.paper")
    build(args.tables, args.figures, args.runs, args.out)


if __name__ == "__main__":
    main()
