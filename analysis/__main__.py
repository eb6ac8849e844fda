"""``python -m analysis RUN_DIR --config CONFIG --out TABLE_DIR``: every table of one study (see
``analysis.study_tables``), as Parquet, CSV and Markdown, with its headline numbers, analysed as
the config's ``[analysis]`` table says.
``python -m analysis plan TEST ...``: the seeds a test needs (``analysis.plan_cli``, the command
line of ``analysis.plan``)."""

from __future__ import annotations

import sys
from pathlib import Path

from analysis.paper_roles import role_gap
from analysis.prompts.outcomes import read_columns
from analysis.prompts.study_tables import study_tables as prompts_tables
from analysis.study_tables import analyze_outcomes, load
from analysis.tables import write_tables
from study.model.config import ArgumentParser, ConfigError, StudyConfig, load_config, make_folder
from study.orchestration.storage import read_cells, read_manifest, read_runs, run_column_names


def check_simulation(config: StudyConfig, manifest: dict) -> None:
    """ConfigError unless ``config`` describes the simulation whose manifest is ``manifest``
    (at the seeds it ran with): the ``[analysis]`` table of one config must not be applied to
    another config's runs."""
    if config.with_seeds(manifest["seeds"]).content_hash() != manifest.get("config_hash"):
        raise ConfigError("--config", config.name, "does not describe the simulation in run_dir "
                          "(its [study] or [grid] changed since the run: simulate it again)")


def main() -> int:
    """Analyze one study (or plan, see ``analysis.plan_cli``); exit 2 with one line if the arguments
    are not usable, its runs are missing or cannot be read, its config is bad or not the runs',
    or ``--out`` cannot be created."""
    if sys.argv[1:2] == ["plan"]:
        from analysis.plan_cli import main as plan

        return plan(sys.argv[2:])
    parser = ArgumentParser(prog="python -m analysis", epilog=(
        "python -m analysis plan TEST ... gives the seeds a test needs for a stated effect "
        "(python -m analysis plan --help)"))
    parser.add_argument("run_dir", type=Path,
                        help="the study's runs folder (python -m bandit_study run ... --out)")
    parser.add_argument("--config", type=Path, required=True,
                        help="the study's TOML config, whose [analysis] table the analysis reads")
    parser.add_argument("--out", type=Path, required=True,
                        help="the folder the study's tables are written to")
    try:
        args = parser.parse_args()
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        cells = read_cells(args.run_dir)
        many = "allocation" in cells
        outcomes, manifest = (None, read_manifest(args.run_dir)) if many else load(args.run_dir)
    except (ValueError, OSError) as error:
        print(f"error: run_dir: {str(args.run_dir)!r} {error}", file=sys.stderr)
        return 2
    try:
        config = load_config(args.config)
        check_simulation(config, manifest)
        # Before the analysis, which takes minutes on a full study, and after every other check,
        # so that bad input leaves no folder behind.
        # The folders this command makes, deepest first: a refusal after the analysis removes
        # them, so that bad input leaves nothing behind.
        made = [folder for folder in (args.out, *args.out.parents) if not folder.exists()]
        make_folder("--out", args.out)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if many:
        columns = read_columns(list(cells.columns), run_column_names(args.run_dir))
        tables = prompts_tables(read_runs(args.run_dir, columns), manifest["study"],
                                config.analysis, {env.text: env for env in config.environments},
                                args.run_dir, config.design)
    else:
        tables = analyze_outcomes(outcomes, manifest, args.run_dir, config.analysis)
    refused = role_gap(config.analysis.paper_role, tables)
    if refused:
        for folder in made:
            folder.rmdir()
        print(f"error: {ConfigError('analysis.paper_role', config.analysis.paper_role, refused)}",
              file=sys.stderr)
        return 2
    write_tables(tables, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
