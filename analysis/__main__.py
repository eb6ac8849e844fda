"""``python -m analysis RUN_DIR --out TABLE_DIR``: every table of one study (see
``analysis.study_tables``), as CSV and Markdown, with its headline numbers.
``python -m analysis plan TEST ...``: the seeds a test needs (``analysis.plan``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis.study_tables import analyze
from analysis.tables import write_tables
from study.spec.schema import RUNS_FILE


def main() -> int:
    """Analyze one study (or plan, see ``analysis.plan``); exit 2 with one line if its runs are
    missing."""
    if sys.argv[1:2] == ["plan"]:
        from analysis.plan import main as plan

        return plan(sys.argv[2:])
    parser = argparse.ArgumentParser(prog="python -m analysis")
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    if not (args.run_dir / RUNS_FILE).is_file():
        print(f"error: run_dir: {str(args.run_dir)!r} has no {RUNS_FILE}", file=sys.stderr)
        return 2
    tables, numbers = analyze(args.run_dir)
    write_tables(tables, numbers, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
