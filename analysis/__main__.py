"""``python -m analysis RUN_DIR --out TABLE_DIR``: every table of one study (see
``analysis.study_tables``), as CSV and Markdown, with its headline numbers.
``python -m analysis plan TEST ...``: the seeds a test needs (``analysis.plan``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis.study_tables import analyze_outcomes, load
from analysis.tables import write_tables


def main() -> int:
    """Analyze one study (or plan, see ``analysis.plan``); exit 2 with one line if its runs are
    missing or cannot be read."""
    if sys.argv[1:2] == ["plan"]:
        from analysis.plan import main as plan

        return plan(sys.argv[2:])
    parser = argparse.ArgumentParser(prog="python -m analysis")
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    try:
        outcomes, manifest = load(args.run_dir)
    except (ValueError, OSError) as error:
        print(f"error: run_dir: {str(args.run_dir)!r} {error}", file=sys.stderr)
        return 2
    tables, numbers = analyze_outcomes(outcomes, manifest, args.run_dir)
    write_tables(tables, numbers, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
