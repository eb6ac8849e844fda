"""``python -m figures TABLES_ROOT --out FIGURE_DIR``: every figure, PNG and PDF: each section
given to a study (``figures.sections.given``) draws its figures from the study's tables."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from figures.curves import check_tables_root
from figures.sections import check_declared, given
from study.model.atomic import write_text
from study.model.config import ArgumentParser, ConfigError, make_folder
from study.model.schema import INDEX_FILE


def draw_all(tables_root: Path, out_dir: Path) -> dict[str, list[str]]:
    """Every figure of the sections the studies under ``tables_root`` are given; returns figure
    name -> its files."""
    drawn: dict[str, list[Path]] = {}
    for module, study in given(tables_root):
        if module.SECTION.figures:
            drawn.update(module.draw(tables_root / study, out_dir, study))
    return {name: [path.name for path in paths] for name, paths in drawn.items()}


def main() -> int:
    """Draw the figures and write ``index.json`` (the file make depends on) last; exit 2 with one
    line if the arguments are not usable, TABLES_ROOT is not a folder of studies' tables or
    ``--out`` cannot be created."""
    parser = ArgumentParser(prog="python -m figures")
    parser.add_argument("tables_root", type=Path,
                        help="the folder of every study's tables (a subfolder per study)")
    parser.add_argument("--out", type=Path, required=True,
                        help="the folder the figures (PNG and PDF) are written to")
    try:
        args = parser.parse_args()
        check_tables_root("tables_root", args.tables_root)
        check_declared("tables_root", args.tables_root)
        # Here, not where a figure is saved: tables that give no figure still get their index.
        make_folder("--out", args.out)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    drawn = draw_all(args.tables_root, args.out)
    write_text(args.out / INDEX_FILE, json.dumps(drawn, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
