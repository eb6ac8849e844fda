"""Every location the package reads or writes, derived from one place.

Generated files live under ``out/`` beside the repository's code folders and never beside the code
itself, so a clean clone plus ``make all`` reproduces everything and ``make clean`` removes it all.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

PACKAGE_DIR: Path = Path(__file__).resolve().parents[1]
REPO_ROOT: Path = PACKAGE_DIR.parent
CONFIG_DIR: Path = PACKAGE_DIR / "configs"
OUT_DIR: Path = REPO_ROOT / "out"
NUMBA_CACHE_ROOT: Path = OUT_DIR / "numba-cache"


def numba_cache_dir() -> Path:
    """``out/numba-cache/<hash>``, the hash of the source of the numba layer, the learners and
    the reward models.

    numba checks a cached function against its own file only, not against the files of the
    functions it calls or inlines (the drivers inline every learner's pieces), so a cache that
    outlived an edit of a learner would run the old code. A folder per source hash cannot.
    """
    digest = hashlib.sha256()
    for folder in ("core", "learners", "rewards"):
        for path in sorted((PACKAGE_DIR / folder).glob("*.py")):
            digest.update(path.name.encode() + path.read_bytes())
    return NUMBA_CACHE_ROOT / digest.hexdigest()[:16]


def use_out_dir_for_numba_cache() -> None:
    """Point numba's on-disk cache at ``numba_cache_dir()`` unless the user chose a folder.

    numba writes its cache beside the source files by default; this must run before numba is
    imported, because numba reads ``NUMBA_CACHE_DIR`` once at import.
    """
    os.environ.setdefault("NUMBA_CACHE_DIR", str(numba_cache_dir()))


def study_out_dir(name: str) -> Path:
    """The folder a study named ``name`` writes its runs table and manifest to."""
    return OUT_DIR / name
