"""Every location the package reads or writes, derived from one place.

Generated files live under ``out/`` beside the repository's code folders and never beside the code
itself, so a clean clone plus ``make all`` reproduces everything and ``make clean`` removes it all.
Compiled kernels and, unless a run is told where, its shards are the exception: they go to the
per-user cache (``study.core.jit``, ``shard_cache``).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import platformdirs

PACKAGE_DIR: Path = Path(__file__).resolve().parents[1]
REPO_ROOT: Path = PACKAGE_DIR.parent
CONFIG_DIR: Path = PACKAGE_DIR / "configs"
OUT_DIR: Path = REPO_ROOT / "out"


def study_out_dir(name: str) -> Path:
    """The folder a study named ``name`` writes its runs table and manifest to when no folder is
    given: ``out/<name>`` under the current folder (never beside the installed package)."""
    return Path("out") / name


SHARD_CACHE_VARIABLE = "BANDIT_STUDY_SHARD_CACHE"
"""The environment variable that, when set, replaces the per-user folder of ``shard_cache``."""


def shard_cache(out_dir: Path) -> Path:
    """Where a study writing to ``out_dir`` keeps its shards when no ``--cache`` is given:
    ``<per-user cache>/bandit-budget-study/shards/<out folder name>-<hash>``
    (``platformdirs.user_cache_dir``, or ``$BANDIT_STUDY_SHARD_CACHE`` in its place), the hash
    of ``out_dir``'s absolute path, so that a study run again into the same folder reuses its
    shards and nothing is written beside ``out_dir`` that the user did not name."""
    root = os.environ.get(SHARD_CACHE_VARIABLE) or Path(
        platformdirs.user_cache_dir("bandit-budget-study")) / "shards"
    digest = hashlib.sha256(str(out_dir.resolve()).encode()).hexdigest()[:12]
    return Path(root) / f"{out_dir.name}-{digest}"
