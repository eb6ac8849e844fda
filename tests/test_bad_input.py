"""Bad input for every command, each run as a user runs it (``python -m <module>`` in a process of
its own): exit status 2, one line on stderr naming the option, field or path and its value,
nothing on stdout, no traceback, and nothing written, replaced or removed anywhere.

The valid input the cases break is one tiny study run, analysed, drawn and reported by the
commands themselves (``built``); each case works in a copy of it, by paths relative to the copy
so that the line shows a value short enough to be shown whole.

In the slow set: some thirty processes of two seconds each, and ``make test-fast`` has the
study command's bad input (``test_cli.py``) and the ``[analysis]`` errors in process."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from conftest import run_module

pytestmark = pytest.mark.slow

# With curves, so that python -m figures draws a figure of it (the other figures are of named
# studies) and the earlier figures a bad input must leave are real; of drawn Gaussian arms, which
# the report's textbook section, given to a study with curves, reads from the manifest.
STUDY = """[study]
name = "t"
root_seed = 1
seeds = 6
curves = true
[grid]
algorithm = ["reinforce", "uniform"]
means = [{draw = "normal", arms = 3}]
budgets = [10, 40]
"""
# Output folders are not named like a package (``figures``) or a module (``tables``): the
# working folder is the commands' first import path.
RUNS, TABLES, FIGURES, REPORT = "runs_out", "tables_out", "figures_out", "report.md"
SKIPPING = STUDY.replace("[grid]", "[grid]\nbaseline = [\"running_mean\", \"group_mean\"]\n"
                         "group_size = [1, 2]").replace("curves = true\n", "")
"""A grid with a combination skipped, whose note must not join a bad input's error line."""


def command(folder: Path, module: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m MODULE ARGS`` in ``folder``, as a user runs it."""
    return run_module(module, *args, cwd=folder)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny study's config, runs, tables, figures and report, by the commands themselves."""
    folder = tmp_path_factory.mktemp("built")
    (folder / "t.toml").write_text(STUDY)
    (folder / "skip.toml").write_text(SKIPPING)
    for module, *args in (
            ("bandit_study", "run", "t.toml", "--out", f"{RUNS}/t", "--cache", "cache", "--quiet"),
            ("analysis", f"{RUNS}/t", "--config", "t.toml", "--out", f"{TABLES}/t"),
            ("figures", TABLES, "--out", FIGURES),
            ("figures.report", "--tables", TABLES, "--figures", FIGURES, "--runs", RUNS,
             "--out", REPORT)):
        done = command(folder, module, *args)
        assert done.returncode == 0, done.stderr
    assert (folder / FIGURES / "t_learning_curves.png").is_file()
    return folder


def junk(path: str) -> Callable[[Path], None]:
    """Overwrite ``path`` with bytes that are no Parquet, JSON or TOML."""
    return lambda folder: (folder / path).write_bytes(b"\x00junk")


def remove(path: str) -> Callable[[Path], None]:
    return lambda folder: (folder / path).unlink()


def make_folder(path: str) -> Callable[[Path], None]:
    return lambda folder: (folder / path).mkdir()


def write(path: str, text: str) -> Callable[[Path], None]:
    return lambda folder: (folder / path).write_text(text)


def declare_sections(*names: str) -> Callable[[Path], None]:
    """Make the study's settings table declare ``names`` as its report sections, as its
    config's ``[analysis] sections`` would."""
    def damage(folder: Path) -> None:
        path = folder / TABLES / "t" / "settings.parquet"
        settings = pd.read_parquet(path)
        settings["sections"] = [list(names)] * len(settings)
        settings.to_parquet(path)
    return damage


@dataclass(frozen=True)
class Case:
    """A command given bad input: the line must start ``error: <field>: `` and hold ``value``."""

    module: str
    args: tuple[str, ...]
    field: str
    value: str
    breaks: tuple[Callable[[Path], None], ...] = ()


REPORT_ARGS = ("--tables", TABLES, "--figures", FIGURES, "--runs", RUNS, "--out", REPORT)


def report(module: str = "figures.report", **given: str) -> tuple[str, ...]:
    """The report's (or the paper's) arguments with some replaced: ``tables="nowhere"``."""
    args = dict(zip(REPORT_ARGS[::2], REPORT_ARGS[1::2], strict=True))
    if module == "figures.paper":
        args["--out"] = "paper.pdf"
    args.update({f"--{name}": value for name, value in given.items()})
    return tuple(item for pair in args.items() for item in pair)


# A case per check of each command's input, not per way of failing one: a check the commands
# share (figures.curves.check_tables, figures.report.arguments) is broken once, through one of
# them, and each command's own parser and handling once (a process takes two seconds).
CASES = {
    # python -m figures TABLES_ROOT --out FIGURE_DIR (the figures there stay as they were)
    "figures: unknown option": Case("figures", (TABLES, "--out", "new", "--colour", "red"),
                                    "arguments", "unrecognized arguments: --colour red"),
    "figures: missing tables": Case("figures", ("nowhere", "--out", FIGURES), "tables_root",
                                    "'nowhere'"),
    "figures: empty tables": Case("figures", ("empty", "--out", FIGURES), "tables_root",
                                  "'empty'", (make_folder("empty"),)),
    "figures: tables without an index": Case("figures", (TABLES, "--out", FIGURES),
                                             "tables_root", f"'{TABLES}/t'",
                                             (remove(f"{TABLES}/t/index.json"),)),
    "figures: an index that is no list": Case("figures", (TABLES, "--out", FIGURES),
                                              "tables_root", f"'{TABLES}/t/index.json'",
                                              (write(f"{TABLES}/t/index.json", "{}"),)),
    "figures: a misspelt declared section": Case("figures", (TABLES, "--out", FIGURES),
                                                 "tables_root", "'headlin'",
                                                 (declare_sections("headlin"),)),
    "figures: --out under a file": Case("figures", (TABLES, "--out", "t.toml/new"), "--out",
                                        "'t.toml/new'"),
    # python -m figures.report (report.md, numbers.tex and the sources stay as they were)
    "report: unknown option": Case("figures.report", (*report(), "--x", "1"), "arguments",
                                   "unrecognized arguments: --x 1"),
    "report: a corrupt table": Case("figures.report", report(), "--tables",
                                    f"'{TABLES}/t/settings.parquet'",
                                    (junk(f"{TABLES}/t/settings.parquet"),)),
    "report: missing figures": Case("figures.report", report(figures="nowhere"), "--figures",
                                    "'nowhere'"),
    "report: missing runs": Case("figures.report", report(runs="nowhere"), "--runs",
                                 "'nowhere'"),
    "report: runs without the study's manifest": Case(
        "figures.report", report(), "--runs", f"'{RUNS}'",
        (remove(f"{RUNS}/t/manifest.json"),)),
    "report: --out in a missing folder": Case("figures.report", report(out="nowhere/r.md"),
                                              "--out", "'nowhere/r.md'"),
    "report: --out a folder": Case("figures.report", report(out=FIGURES), "--out",
                                   f"'{FIGURES}'"),
    # python -m figures.paper (an earlier paper.pdf stays; no paper/ folder is made)
    "paper: tables without the cited roles": Case(
        "figures.paper", report("figures.paper"), "--tables", f"'{TABLES}' has no study of the "
        "paper roles headline, narrow, groups", (write("paper.pdf", "earlier"),)),
    "paper: missing tables": Case("figures.paper", report("figures.paper", tables="nowhere"),
                                  "--tables", "'nowhere'"),
    # python -m figures.curves TABLE_DIR --out FIGURE_DIR
    "curves: unknown option": Case("figures.curves", (f"{TABLES}/t", "--out", "new", "--x"),
                                   "arguments", "unrecognized arguments: --x"),
    "curves: runs as tables": Case("figures.curves", (f"{RUNS}/t", "--out", "new"),
                                   "table_dir", f"'{RUNS}/t'"),
    "curves: --out under a file": Case("figures.curves", (f"{TABLES}/t", "--out", "t.toml/n"),
                                       "--out", "'t.toml/n'"),
    # python -m analysis RUN_DIR --config CONFIG --out TABLE_DIR (earlier tables stay)
    "analysis: unknown option": Case("analysis", (f"{RUNS}/t", "--config", "t.toml", "--out",
                                                  "new", "--x"), "arguments",
                                     "unrecognized arguments: --x"),
    "analysis: missing runs": Case("analysis", ("nowhere", "--config", "t.toml", "--out",
                                                f"{TABLES}/t"), "run_dir", "'nowhere'"),
    "analysis: the config of other runs": Case(
        "analysis", (f"{RUNS}/t", "--config", "t.toml", "--out", "new"), "--config",
        "'t' does not describe the simulation",
        (write("t.toml", STUDY.replace("budgets = [10, 40]", "budgets = [10, 50]")),)),
    "analysis: an [analysis] error": Case(
        "analysis", (f"{RUNS}/t", "--config", "t.toml", "--out", f"{TABLES}/t"),
        "analysis.headline_lr", "0.3 is not one of grid.lr",
        (write("t.toml", STUDY + "[analysis]\nheadline_lr = 0.3\n"),)),
    "analysis: a paper role the study's tables cannot serve": Case(
        "analysis", (f"{RUNS}/t", "--config", "t.toml", "--out", "new"), "analysis.paper_role",
        "'headline' reads the tables per_arm_vs_running_mean",
        (write("t.toml", STUDY + "[analysis]\npaper_role = \"headline\"\n"),)),
    "analysis: --out under a file": Case("analysis", (f"{RUNS}/t", "--config", "t.toml",
                                                      "--out", "t.toml/new"), "--out",
                                         "'t.toml/new'"),
    # python -m analysis plan TEST ...
    "plan: a pilot that is no runs": Case("analysis", ("plan", "ratio", "--runs", f"{TABLES}/t",
                                                       "--a", "cell=0", "--b", "cell=1",
                                                       "--ratio", "2"), "--runs",
                                          f"'{TABLES}/t'"),
    "plan: unknown test": Case("analysis", ("plan", "poisson"), "arguments",
                               "invalid choice: 'poisson'"),
    "plan: accuracy 1": Case("analysis", ("plan", "binomial", "--accuracy", "1", "--chance",
                                          "1/3"), "--accuracy", "'1'"),
    "plan: power 0": Case("analysis", ("plan", "--power", "0", "binomial", "--accuracy", "0.5",
                                       "--chance", "1/3"), "--power", "'0'"),
    # python -m bandit_study: the commands that read or write beside a config
    "study stamp: --out under a file": Case("bandit_study",
                                            ("stamp", "t.toml", "--out", "t.toml/s"),
                                            "--out", "'t.toml/s'"),
    # A skipped combination's note came before the error, and --out was made before --cache
    # failed (both fixed).
    "study run: --cache under a file": Case("bandit_study", ("run", "skip.toml", "--out", "new",
                                                      "--cache", "t.toml/c"), "--cache",
                                            "'t.toml/c'"),
}


def snapshot(folder: Path) -> dict[str, tuple[int, int] | None]:
    """Every path under ``folder``, with each file's size and modification time: a command that
    wrote, replaced or removed anything changes it (a folder's own time is left out, so that a
    temporary file made and removed again is no change)."""
    return {str(path.relative_to(folder)): (path.stat().st_size, path.stat().st_mtime_ns)
            if path.is_file() else None for path in folder.rglob("*")}


def check_refused(folder: Path, case: Case) -> None:
    """Run ``case`` in ``folder`` (a copy of the built study, broken as the case says) and check
    that it is refused as the project's rule for bad input says."""
    for damage in case.breaks:
        damage(folder)
    before = snapshot(folder)
    done = command(folder, case.module, *case.args)
    lines = done.stderr.splitlines()
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(f"error: {case.field}: ") and case.value in lines[0], lines[0]
    assert snapshot(folder) == before


@pytest.fixture
def copy(built: Path, tmp_path: Path) -> Path:
    """A copy of the built study to break, its files' times kept."""
    return Path(shutil.copytree(built, tmp_path / "study"))


@pytest.mark.parametrize("name", CASES)
def test_bad_input_exits_2_with_one_line_and_writes_nothing(name: str, copy: Path) -> None:
    check_refused(copy, CASES[name])


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any folder")
def test_report_into_a_folder_that_cannot_be_written(copy: Path) -> None:
    (copy / "locked").mkdir()
    (copy / "locked").chmod(0o500)
    try:
        check_refused(copy, Case("figures.report", report(out="locked/r.md"), "--out",
                                 "'locked/r.md'"))
    finally:
        (copy / "locked").chmod(0o700)


def test_the_built_study_is_valid_for_each_command_a_case_breaks(copy: Path) -> None:
    # Every case changes one thing of input the commands take: the fixture ran the study, its
    # analysis, figures and report; the curves run here (the paper needs the tables of every
    # study, which its cases break on purpose).
    assert (copy / REPORT).read_text().startswith("#")
    done = command(copy, "figures.curves", f"{TABLES}/t", "--out", "curves_out")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert sorted(p.name for p in (copy / "curves_out").iterdir()) == [
        "t_learning_curves.pdf", "t_learning_curves.png"]


def test_budgets_and_token_budgets_together_name_the_budgets_given(write_config) -> None:
    # Both units at once: the line names grid.budgets with the value the config gave, not None.
    from conftest import config_text, run_cli

    path = write_config(config_text(budgets=[8, 16], token_budgets=[10], lengths=[[1, 2]],
                                    probs=[[0.5, 0.6]]))
    done = run_cli("run", str(path), "--out", str(path.parent / "out"))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: grid.budgets: [8, 16] and grid.token_budgets are both given (give one)"]
    assert not (path.parent / "out").exists()


def test_an_unknown_correction_is_named_once(write_config) -> None:
    from conftest import config_text, run_cli

    path = write_config(config_text(correction=["tiss"], group_size=[4],
                                    baseline=["group_mean"]))
    done = run_cli("run", str(path), "--out", str(path.parent / "out"))
    assert done.returncode == 2
    line = done.stderr.strip()
    assert line.startswith("error: grid.correction[0]: 'tiss' is not one of none, cispo, is, "
                           "ppo_clip, tis")
    assert line.count("tiss") == 1
