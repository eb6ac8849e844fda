"""Every location the package reads or writes, derived from one place.

Generated files live under ``out/`` beside the repository's code folders and never beside the code
itself, so a clean clone plus ``make all`` reproduces everything and ``make clean`` removes it all.
Compiled kernels are the exception: they go to a per-user cache (``study.core.jit``).
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR: Path = Path(__file__).resolve().parents[1]
REPO_ROOT: Path = PACKAGE_DIR.parent
CONFIG_DIR: Path = PACKAGE_DIR / "configs"
OUT_DIR: Path = REPO_ROOT / "out"


def study_out_dir(name: str) -> Path:
    """The folder a study named ``name`` writes its runs table and manifest to when no folder is
    given: ``out/<name>`` under the current folder (never beside the installed package)."""
    return Path("out") / name
