"""The one way the package writes a file: under a temporary name in the destination folder, then
renamed over the final name (``os.replace`` is atomic on one file system), so a reader never sees
a half-written file and a failed write leaves the earlier file as it was."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

Writer = Callable[[Path], None]
"""Writes a file's content to the path it is given."""


def temporary_path(path: Path) -> Path:
    """The temporary name ``path`` is written under: hidden, and carrying this process's id so
    that concurrent writers never share one and a killed writer's leftovers can be recognized
    (``remove_stale_temporaries``)."""
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


@contextmanager
def replacing(paths: Sequence[Path]) -> Iterator[list[Path]]:
    """The temporary names of ``paths``, to be written inside the ``with`` block (for files
    written piece by piece, such as a runs table cell by cell); when the block ends without an
    error each is renamed over its final name, in order. On any failure the temporary files are
    removed and no final file has changed unless all were written. (A process killed outright
    leaves its temporary files, named by its pid, for ``remove_stale_temporaries``.)"""
    temporaries = [temporary_path(path) for path in paths]
    try:
        yield temporaries
        for temporary, final in zip(temporaries, paths, strict=True):
            os.replace(temporary, final)
    finally:
        for temporary in temporaries:
            temporary.unlink(missing_ok=True)


def write_files(files: Mapping[Path, Writer]) -> None:
    """Write every file (path -> writer) to its temporary name, then rename them all, in order
    (``replacing``)."""
    with replacing(list(files)) as temporaries:
        for temporary, write in zip(temporaries, files.values(), strict=True):
            write(temporary)


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically."""
    write_files({path: lambda temporary: temporary.write_text(text)})


def write_if_changed(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` atomically unless it holds that text already; return whether it
    wrote. A file whose time changes only with its content is a stamp make can depend on."""
    try:
        if path.read_text() == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    write_text(path, text)
    return True


def remove_stale_temporaries(folder: Path) -> None:
    """Delete temporary files left by writers that were killed (their pid, part of the name, no
    longer runs); a live writer's temporary file is left alone."""
    for path in folder.glob(".*.tmp"):
        try:
            pid = int(path.name.rsplit(".", 2)[-2])
            os.kill(pid, 0)
        except ProcessLookupError:
            path.unlink(missing_ok=True)
        except (ValueError, PermissionError):
            continue
