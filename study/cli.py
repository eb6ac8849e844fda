"""Command line: ``python -m study run CONFIG --out DIR``, ``quick``, ``summarize DIR`` and
``stamp CONFIG --out FILE``.

Bad input of any kind ends with exit status 2 and one line on stderr naming the field and the
value, before anything is simulated or written.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from study.orchestration.backends import BACKENDS, Backend
from study.spec.atomic import write_if_changed
from study.spec.config import ArgumentParser, ConfigError, StudyConfig, load_config, make_folder
from study.spec.paths import CONFIG_DIR, study_out_dir

EXIT_BAD_INPUT = 2


def _parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="python -m study", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=ArgumentParser)
    run = commands.add_parser("run", help="simulate a study config into DIR/runs.parquet")
    run.add_argument("config", type=Path)
    run.add_argument("--out", type=Path, required=True, help="output folder")
    run.add_argument("--cache", type=Path, default=None,
                     help="shard cache folder (default: cache/<out folder name> beside --out)")
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


def _set_threads(threads: int | None) -> None:
    import numba

    if threads is None:
        return
    most = numba.config.NUMBA_NUM_THREADS
    if not 1 <= threads <= most:
        raise ConfigError("--threads", threads, f"is outside [1, {most}] (NUMBA_NUM_THREADS)")
    numba.set_num_threads(threads)


def default_cache(out_dir: Path) -> Path:
    """Where a study writing to ``out_dir`` keeps its shards: ``cache/<name>`` beside it, so
    ``out/budget_sweep`` caches in ``out/cache/budget_sweep``."""
    return out_dir.parent / "cache" / out_dir.name


def run_and_write(config: StudyConfig, out_dir: Path, quiet: bool,
                  cache_dir: Path | None = None, backend: Backend | None = None,
                  shard_seeds: int | None = None) -> None:
    """Simulate ``config`` (reusing the shards already in ``cache_dir``, by default
    ``default_cache(out_dir)``), write its runs table, cells and manifest into ``out_dir``; say on
    stderr which combinations of the grid are not cells, and warn about any run whose state
    became non-finite."""
    import pyarrow as pa

    from study.orchestration.manifest import build_manifest
    from study.orchestration.runner import run_study
    from study.orchestration.storage import cells_table, study_files
    from study.spec.grid import cells, skipped

    cache_dir = cache_dir or default_cache(out_dir)
    # Both checked before either is made, so that a --cache that cannot be made leaves no --out.
    for field, folder in (("--out", out_dir), ("--cache", cache_dir)):
        ancestor = next(path for path in (folder, *folder.parents) if path.exists())
        if not ancestor.is_dir():
            raise ConfigError(field, str(folder), f"cannot be created ({ancestor} is not a folder)")
    for field, folder in (("--out", out_dir), ("--cache", cache_dir)):
        make_folder(field, folder)
    # After the checks: bad input is the error line alone.
    for combination in skipped(config):
        print(f"note: skipped {combination} (a group estimator needs group_size >= 2)",
              file=sys.stderr)
    began = time.perf_counter()
    try:
        grid = cells_table(cells(config))
        with study_files(out_dir, grid, config.content_hash()) as files:

            def add(table: pa.Table) -> None:
                try:
                    files.add(table)
                except OSError as error:
                    raise ConfigError("--out", str(out_dir),
                                      f"cannot be written ({error.strerror})") from None

            try:
                run = run_study(config, chunk=shard_seeds, progress=False if quiet else None,
                                cache_dir=cache_dir, backend=backend, sink=add)
            except OSError as error:
                raise ConfigError("--cache", str(cache_dir),
                                  f"cannot be written ({error.strerror})") from None
            manifest = build_manifest(config, run, time.perf_counter() - began)
            files.manifest, files.curves = manifest, run.curves
    except OSError as error:
        raise ConfigError("--out", str(out_dir), f"cannot be written ({error.strerror})") from None
    non_finite = manifest["non_finite_rows"]
    if non_finite:
        print(f"warning: {non_finite} rows of {config.name} have a non-finite state "
              "(finite = false); they count as wrong", file=sys.stderr)


def run_config(config: StudyConfig, out_dir: Path | None, seeds: int | None,
               threads: int | None, quiet: bool, cache_dir: Path | None = None,
               backend: Backend | None = None, shard_seeds: int | None = None) -> Path:
    """Check the run's options, simulate ``config`` and write it (``run_and_write``); return the
    folder written (``out_dir``, by default ``out/<study name>``). Raises ``ConfigError`` for
    a bad option, before anything is simulated."""
    if seeds is not None:
        config = config.with_seeds(seeds)
    out_dir = out_dir or study_out_dir(config.name)
    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError("--out", str(out_dir), "is not a folder")
    _set_threads(threads)
    if shard_seeds is not None and not 1 <= shard_seeds <= 10**7:
        raise ConfigError("--shard-seeds", shard_seeds, "is outside [1, 10000000]")
    run_and_write(config, out_dir, quiet, cache_dir, backend, shard_seeds)
    return out_dir


def write_stamp(config: StudyConfig, path: Path, seeds: int | None = None) -> bool:
    """Write the simulation that ``config`` (with ``seeds``, if given) describes to ``path``, only
    if the file does not hold it already (``write_if_changed``); return whether it wrote."""
    if seeds is not None:
        config = config.with_seeds(seeds)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return write_if_changed(path, config.simulation_text() + "\n")
    except OSError as error:
        raise ConfigError("--out", str(path), f"cannot be written ({error.strerror})") from None


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
