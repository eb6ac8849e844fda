"""The check of a study's tables that every command of the write-up makes before it reads them,
and ``python -m figures.curves TABLE_DIR --out FIGURE_DIR``, which draws the figures of one
study's curves table (the learning-curves section's, ``figures.sections.textbook``; ``make
sutton-barto`` uses it, so the textbook check needs only its own study).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pyarrow.parquet as pq

from figures.sections import textbook
from study.model.config import ArgumentParser, ConfigError, make_folder
from study.model.schema import INDEX_FILE


def check_tables(field: str, folder: Path) -> None:
    """ConfigError naming ``field`` unless ``folder`` holds one study's tables as ``python -m
    analysis`` writes them: an index (written last, so a half-written folder has none) listing
    the tables, each a Parquet file that can be read. The figures, the report and the paper
    check their tables so before they read any."""
    index = folder / INDEX_FILE
    try:
        names = json.loads(index.read_text())
    except FileNotFoundError:
        raise ConfigError(field, str(folder), f"is not a study's tables (it has no {INDEX_FILE}, "
                          "which python -m analysis writes last)") from None
    except (OSError, ValueError) as error:
        raise ConfigError(field, str(index), f"cannot be read ({error})") from None
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise ConfigError(field, str(index), "is not a list of table names")
    for name in names:
        path = folder / f"{name}.parquet"
        try:
            pq.read_schema(path)
        except (OSError, ValueError) as error:
            # An Arrow message may hold line breaks; the error is one line.
            raise ConfigError(field, str(path), "is not a table that can be read "
                              f"({' '.join(str(error).split())})") from None


def check_tables_root(field: str, root: Path) -> None:
    """ConfigError naming ``field`` unless ``root`` is a folder of studies' tables, at least one,
    each folder in it one study's (``check_tables``)."""
    if not root.is_dir():
        raise ConfigError(field, str(root), "is not a folder")
    studies = sorted(path for path in root.iterdir() if path.is_dir())
    if not studies:
        raise ConfigError(field, str(root), "holds no study's tables (a folder per study, as "
                          "python -m analysis writes them)")
    for study in studies:
        check_tables(field, study)


def main() -> int:
    """Draw one study's curve figures; exit 2 with one line if the arguments are not usable,
    the folder is not a study's tables with curves, or ``--out`` cannot be created."""
    parser = ArgumentParser(prog="python -m figures.curves")
    parser.add_argument("table_dir", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    try:
        args = parser.parse_args()
        check_tables("table_dir", args.table_dir)
        if not (args.table_dir / "curves.parquet").is_file():
            raise ConfigError("table_dir", str(args.table_dir), "has no curves.parquet")
        make_folder("--out", args.out)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    textbook.draw(args.table_dir, args.out, args.table_dir.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
