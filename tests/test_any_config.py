"""A user's own studies, end to end: configs the report's sections were not written for (only
reference learners; REINFORCE with learning curves on Bernoulli arms; drawn Gaussian arms with
several learners; an off-policy learner whose answers cost tokens, rewarded by a noisy
verifier's verdict under a length penalty, on one bandit and on many prompts sharing the
budget), each declaring every section a config may declare,
through the analysis, the figures and the report. Every section is given to a study or listed,
with its reason, among the sections not given; none crashes."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_module
from figures import sections

pytestmark = pytest.mark.slow

DECLARED = "sections = [" + ", ".join(f'"{name}"' for name in sections.declarable()) + "]"

CONFIGS = {
    "references_only": """
[grid]
algorithm = ["uniform", "successive_rejects"]
probs = [[0.5, 0.55, 0.6]]
budgets = [20, 200]
""",
    "curves": """
[grid]
algorithm = ["reinforce", "uniform"]
probs = [[0.5, 0.55, 0.6]]
lr = [0.5]
budgets = [20, 200]
""",
    "drawn_gaussian": """
[grid]
algorithm = ["reinforce", "uniform", "successive_rejects"]
means = [{draw = "normal", arms = 4, mean = 0.0, sd = 1.0}]
lr = [0.1, 0.5]
baseline = ["running_mean", "per_arm"]
budgets = [20, 200, 800]
""",
    "composed": """
[grid]
probs = [[0.5, 0.55, 0.6]]
lengths = [[1, 2, 4]]
length_law = "geometric"
reward_model = "length_penalty"
penalty = [0.0, 0.05]
verdict = "noisy_verifier"
false_positive = [0.1]
lr = [1.0]
baseline = ["leave_one_out"]
group_size = [4]
lag = [0, 2]
correction = ["none", "tis"]
token_budgets = [20, 200]
""",
    "many_composed": """
[grid]
prompts = [12]
allocation = ["uniform", "skip_zero_signal"]
probs = [{draw = "beta", arms = 3, a = 2, b = 2}]
lengths = [[1, 2, 4]]
reward_model = "length_penalty"
penalty = [0.05]
verdict = "noisy_verifier"
false_positive = [0.1]
lr = [0.5]
baseline = ["leave_one_out"]
group_size = [4]
lag = [0, 2]
correction = ["none", "tis"]
token_budgets = [200, 2000]
""",
}


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Each config run, analysed, drawn and reported, in one folder as a user would lay it out."""
    work = tmp_path_factory.mktemp("mine")
    for name, grid in CONFIGS.items():
        curves = "true" if name == "curves" else "false"
        (work / f"{name}.toml").write_text(
            f'[study]\nname = "{name}"\nroot_seed = 5\nseeds = 60\ncurves = {curves}\n{grid}\n'
            f"[analysis]\n{DECLARED}\nprimary_budgets = [200]\n")
        for module, *args in (("bandit_study", "run", f"{name}.toml", "--out", f"runs/{name}",
                               "--quiet"),
                              ("analysis", f"runs/{name}", "--config", f"{name}.toml", "--out",
                               f"tables/{name}")):
            done = run_module(module, *args, cwd=work)
            assert done.returncode == 0, (module, done.stderr[-3000:])
    for module, *args in (("figures", "tables", "--out", "figures"),
                          ("figures.report", "--tables", "tables", "--figures", "figures",
                           "--runs", "runs", "--out", "report.md")):
        done = run_module(module, *args, cwd=work)
        assert done.returncode == 0, (module, done.stderr[-3000:])
    return work


def test_every_section_is_given_or_said_not_to_be(outputs: Path) -> None:
    report = (outputs / "report.md").read_text()
    given = set(sections.given(outputs / "tables"))
    left = {(left.module, study) for left in sections.not_given(outputs / "tables")
            for study in [*left.missing, *left.undeclared, *(s for s, _ in left.unfit)]}
    every = {(module, study) for module in sections.modules() for study in CONFIGS}
    assert given | left == every and not given & left
    headings = [line for line in report.splitlines() if line.startswith("## ")]
    for module in sections.modules():
        studies = [study for m, study in given if m is module]
        assert any(module.SECTION.title in heading for heading in headings) == bool(studies)
    not_given = report.split("## Sections not given", 1)[1].split("## Methods", 1)[0]
    # A study without REINFORCE: the sections about REINFORCE's curve say so.
    assert "`references_only`, which has no REINFORCE cell" in not_given
    assert "`references_only`, whose headline cell has no paired comparison" in not_given


def test_each_given_section_shows_its_figures(outputs: Path) -> None:
    # A config declaring the headline section gets its figures without a line of Python.
    report = (outputs / "report.md").read_text()
    assert "not drawn" not in report
    for study in ("curves", "drawn_gaussian"):
        assert f"![{study}_accuracy_vs_budget]" in report
        assert (outputs / "figures" / f"{study}_accuracy_vs_budget.pdf").is_file()


def test_the_header_names_the_studies_and_folders(outputs: Path) -> None:
    header = (outputs / "report.md").read_text().split("\n## ", 1)[0]
    for study in CONFIGS:
        assert f"`{study}`" in header
    assert "`tables`" in header and "`runs`" in header


def test_the_paper_refuses_studies_it_is_not_written_about_in_one_line(outputs: Path) -> None:
    # The paper names its studies by role: for tables where no config takes its roles
    # ([analysis] paper_role) it exits 2 with one line naming the roles it needs, and writes
    # nothing.
    done = run_module("figures.paper", "--tables", "tables", "--figures", "figures", "--runs",
                      "runs", "--out", "paper.pdf", cwd=outputs)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: --tables: ") and "paper_role" in done.stderr
    assert all(role in done.stderr for role in ("headline", "narrow", "groups"))
    assert not (outputs / "paper.pdf").exists() and not (outputs / "paper").exists()


def test_a_family_without_a_methods_test_stops_the_report(outputs: Path, monkeypatch) -> None:
    # Methods names the test of every family: a question module whose table has a family and
    # whose TEST is empty is a fault the report refuses, not an empty cell in Methods.
    from analysis.questions import pass_rate_regret
    from figures.report import Report

    report = Report(outputs / "tables", outputs / "figures", outputs / "runs",
                    outputs / "unused.md")
    report.methods()
    monkeypatch.setattr(pass_rate_regret, "TEST", "")
    with pytest.raises(ValueError, match="pass_rate_regret has no test for Methods"):
        report.methods()
