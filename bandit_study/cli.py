"""Command line: ``python -m bandit_study run CONFIG --out DIR``, ``quick``, ``summarize DIR`` and
``stamp CONFIG --out FILE``.

Bad input of any kind ends with exit status 2 and one line on stderr naming the field and the
value, before anything is simulated or written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from study.model.config import ArgumentParser, ConfigError, load_config
from study.model.paths import CONFIG_DIR
from study.orchestration.backends import BACKENDS, Backend
from study.orchestration.outputs import run_config, write_stamp

EXIT_BAD_INPUT = 2


def _parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="python -m bandit_study", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=ArgumentParser)
    run = commands.add_parser("run", help="simulate a study config into DIR/runs.parquet")
    run.add_argument("config", type=Path)
    run.add_argument("--out", type=Path, required=True, help="output folder")
    run.add_argument("--cache", type=Path, default=None,
                     help="shard cache folder (default: a folder per --out under the per-user "
                     "cache; $BANDIT_STUDY_SHARD_CACHE replaces its root)")
    run.add_argument("--backend", choices=BACKENDS, default="local",
                     help="where shards run: this process, or dask.distributed")
    run.add_argument("--scheduler", default=None,
                     help="dask scheduler address (tcp://HOST:PORT); without it, --backend dask "
                     "starts a LocalCluster")
    run.add_argument("--workers", type=int, default=2, help="LocalCluster workers (dask)")
    run.add_argument("--shard-seeds", type=int, default=None,
                     help="seeds per shard (default: about 2e8 episodes per shard)")
    stamp = commands.add_parser("stamp", help="write the simulation part of a config (no "
                                "[analysis]) to FILE, only if it changed: make's runs.parquet "
                                "depends on it, so editing [analysis] simulates nothing again")
    stamp.add_argument("config", type=Path)
    stamp.add_argument("--out", type=Path, required=True, help="the stamp file")
    stamp.add_argument("--seeds", type=int, default=None, help="override study.seeds")
    quick = commands.add_parser("quick", help="run study/configs/quick.toml and summarize it")
    quick.add_argument("--out", type=Path, default=None, help="output folder (out/quick)")
    for command in (run, quick):
        command.add_argument("--seeds", type=int, default=None, help="override study.seeds")
        command.add_argument("--threads", type=int, default=None, help="numba threads")
        command.add_argument("--quiet", action="store_true", help="no progress bar")
    summary = commands.add_parser("summarize", help="print accuracy per budget of DIR")
    summary.add_argument("dir", type=Path)
    return parser


def _backend(args: argparse.Namespace) -> Backend:
    """The backend the options ask for (``quick`` always runs locally)."""
    name = getattr(args, "backend", "local")
    scheduler = getattr(args, "scheduler", None)
    workers = getattr(args, "workers", 2)
    if scheduler is not None and name != "dask":
        raise ConfigError("--scheduler", scheduler, "needs --backend dask")
    if scheduler is not None and not scheduler.startswith(("tcp://", "tls://", "inproc://")):
        raise ConfigError("--scheduler", scheduler, "is not an address like tcp://HOST:PORT")
    if not 1 <= workers <= 1024:
        raise ConfigError("--workers", workers, "is outside [1, 1024]")
    return Backend(name, scheduler, workers)


def _summarize(out_dir: Path) -> None:
    from analysis.outcomes import Outcomes
    from analysis.summary import summarize, summarize_prompts
    from study.orchestration.storage import read_cells, read_runs

    try:
        if "allocation" in read_cells(out_dir):
            print(summarize_prompts(read_runs(out_dir)))
            return
        outcomes = Outcomes.load(out_dir)
    except (ValueError, OSError) as error:
        raise ConfigError("dir", str(out_dir), str(error)) from None
    print(summarize(outcomes))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    try:
        args = _parser().parse_args(argv)
        if args.command == "summarize":
            _summarize(args.dir)
            return 0
        if args.command == "stamp":
            write_stamp(load_config(args.config), args.out, args.seeds)
            return 0
        path = CONFIG_DIR / "quick.toml" if args.command == "quick" else args.config
        out_dir = run_config(load_config(path), args.out, args.seeds, args.threads, args.quiet,
                             getattr(args, "cache", None), _backend(args),
                             getattr(args, "shard_seeds", None))
        if args.command == "quick":
            _summarize(out_dir)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted: no output was written", file=sys.stderr)
        return 130
    return 0
