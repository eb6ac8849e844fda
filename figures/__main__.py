"""``python -m figures TABLES_ROOT --out FIGURE_DIR``: every figure, PNG and PDF."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from figures.plots import draw_all
from study.spec.atomic import write_text
from study.spec.schema import INDEX_FILE


def main() -> None:
    """Draw the figures and write ``index.json`` (the file make depends on) last."""
    parser = argparse.ArgumentParser(prog="python -m figures")
    parser.add_argument("tables_root", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    drawn = draw_all(args.tables_root, args.out)
    write_text(args.out / INDEX_FILE, json.dumps(drawn, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
