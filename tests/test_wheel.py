"""The package as a user installs it: built into a wheel, installed into a fresh virtual
environment outside the checkout, and run there from a study of the user's own to its report;
nothing is written into the installed package."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow

CONFIG = """\
[study]
name = "mine"
root_seed = 5
seeds = 60

[grid]
algorithm = ["reinforce", "uniform"]
probs = [[0.5, 0.55, 0.6]]
lr = [0.5]
budgets = [20, 200]
"""


def tracked_copy(target: Path) -> Path:
    """The checkout's tracked files (as they are in the working tree) copied to ``target``: the
    wheel is built from there, so that the build writes nothing into the checkout."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def files(folder: Path) -> set[str]:
    """The files under ``folder``, but Python's byte-code caches."""
    return {str(path.relative_to(folder)) for path in folder.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts}


def test_the_wheel_runs_a_study_to_its_report_from_a_fresh_environment(tmp_path: Path) -> None:
    source = tracked_copy(tmp_path / "source")
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir",
                    str(tmp_path / "dist"), str(source)], check=True, capture_output=True)
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    fresh = tmp_path / "fresh"
    venv.create(fresh, with_pip=True)
    python = fresh / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)],
                   check=True, capture_output=True)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; "
                                "print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # The dependencies are those of this environment, reached through a path entry rather than
    # installed again (minutes of downloads); the package itself comes from the wheel alone.
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    installed = files(site)

    work = tmp_path / "work"
    work.mkdir()
    (work / "mine.toml").write_text(CONFIG)
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "NUMBA_CACHE_DIR")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "user-cache")

    def run(*arguments: str) -> str:
        done = subprocess.run([str(python), *arguments], cwd=work, env=env, capture_output=True,
                              text=True)
        assert done.returncode == 0, (arguments, done.stderr[-2000:])
        return done.stdout

    where = run("-c", "import study, analysis, figures; "
                "print(study.__file__, analysis.__file__, figures.__file__)")
    assert all(Path(path).is_relative_to(site) for path in where.split()), where
    run("-m", "bandit_study", "run", "mine.toml", "--out", "runs/mine", "--quiet")
    assert "reinforce" in run("-m", "bandit_study", "summarize", "runs/mine")
    run("-m", "analysis", "runs/mine", "--config", "mine.toml", "--out", "tables/mine")
    run("-m", "figures", "tables", "--out", "figures")
    run("-m", "figures.report", "--tables", "tables", "--figures", "figures", "--runs", "runs",
        "--out", "report.md")
    assert (work / "report.md").read_text().startswith("#")
    quick = run("-m", "bandit_study", "quick", "--out", "runs/quick")
    assert "never-training sampler" in quick
    # The console command of the wheel, without --out: the runs go under the current folder.
    assert (fresh / "bin" / "bandit-study").is_file()
    subprocess.run([str(fresh / "bin" / "bandit-study"), "run", "mine.toml", "--out",
                    "runs/again", "--quiet"], cwd=work, env=env, check=True)

    assert files(site) == installed
    assert not [path for path in site.rglob("*") if path.suffix in (".nbi", ".nbc")]
    assert list((tmp_path / "user-cache" / "bandit-budget-study" / "numba").rglob("*.nbi"))
