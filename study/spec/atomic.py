"""The one way the package writes a file: under a temporary name in the destination folder, then
renamed over the final name (``os.replace`` is atomic on one file system), so a reader never sees
a half-written file and a failed write leaves the earlier file as it was."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

Writer = Callable[[Path], None]
"""Writes a file's content to the path it is given."""


def temporary_path(path: Path) -> Path:
    """The temporary name ``path`` is written under: hidden, and carrying this process's id so
    that concurrent writers never share one and a killed writer's leftovers can be recognized
    (``study.orchestration.shards.remove_stale_temporaries``)."""
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def write_files(files: Mapping[Path, Writer]) -> None:
    """Write every file (path -> writer) to its temporary name, then rename them all, in order;
    on any failure the temporary files are removed and no final file has changed unless all
    were written."""
    pending = [(temporary_path(path), path, write) for path, write in files.items()]
    try:
        for temporary, _, write in pending:
            write(temporary)
        for temporary, final, _ in pending:
            os.replace(temporary, final)
    finally:
        for temporary, _, _ in pending:
            temporary.unlink(missing_ok=True)


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically."""
    write_files({path: lambda temporary: temporary.write_text(text)})
