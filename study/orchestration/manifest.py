"""The provenance record written beside every runs table (``manifest.json``)."""

from __future__ import annotations

import platform
import subprocess
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numba

from study.model.config import StudyConfig
from study.model.paths import REPO_ROOT
from study.model.schema import MANIFEST_KEYS
from study.orchestration.runner import StudyRun

_PACKAGES = ("bandit-budget-study", "numba", "llvmlite", "numpy", "scipy", "pandas", "pyarrow")


def git_commit() -> str:
    """The commit the code ran from, with ``+dirty`` when the work tree has changes, or
    ``unknown`` outside a git checkout (an installed package: the folder above it may be some
    other repository)."""
    if not (REPO_ROOT / ".git").exists():
        return "unknown"
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True,
                                text=True, check=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=REPO_ROOT, capture_output=True, text=True, check=True,
                               timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def package_versions() -> dict[str, str]:
    """Versions of Python and of the packages that decide the numbers."""
    found = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "not installed"
    return found


def build_manifest(config: StudyConfig, run: StudyRun, wall_seconds: float) -> dict[str, Any]:
    """Everything needed to say where a runs table came from and what it cost, under the keys
    of the data contract (``study.model.schema.MANIFEST_KEYS``), in that order."""
    values = {
        "study": config.name,
        "config": config.to_dict(),
        "config_hash": config.content_hash(),
        "root_seed": config.root_seed,
        "seeds": config.seeds,
        "rows": run.rows,
        "curve_rows": 0 if run.curves is None else len(run.curves),
        "non_finite_rows": run.non_finite_rows,
        "versions": package_versions(),
        "git_commit": git_commit(),
        "threads": numba.get_num_threads(),
        "backend": run.backend,
        "shards": run.shards,
        "shards_reused": run.shards_reused,
        "episodes": run.episodes,
        "episodes_computed": run.episodes_computed,
        "kernel_seconds": round(run.kernel_seconds, 6),
        "wall_seconds": round(wall_seconds, 6),
        "episodes_per_second": round(run.episodes_per_second, 1),
    }
    return {key: values[key] for key in MANIFEST_KEYS}
