"""Running a study and writing its outputs: check the run's options, simulate a config through
the shards (``study.orchestration.runner``) and write its runs table, cells and manifest into
its folder; and the stamp of its simulation that ``make`` depends on. The command line
(``bandit_study.cli``) and the notebook API (``bandit_study.api``) both run studies through
here.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from study.model.atomic import write_if_changed
from study.model.config import ConfigError, StudyConfig, make_folder
from study.model.paths import shard_cache, study_out_dir
from study.orchestration.backends import Backend


def set_threads(threads: int | None) -> None:
    """Run numba's parallel loops on ``threads`` threads (None: numba's default); ConfigError
    naming ``--threads`` outside [1, NUMBA_NUM_THREADS]."""
    import numba

    if threads is None:
        return
    most = numba.config.NUMBA_NUM_THREADS
    if not 1 <= threads <= most:
        raise ConfigError("--threads", threads, f"is outside [1, {most}] (NUMBA_NUM_THREADS)")
    numba.set_num_threads(threads)


def run_and_write(config: StudyConfig, out_dir: Path, quiet: bool,
                  cache_dir: Path | None = None, backend: Backend | None = None,
                  shard_seeds: int | None = None) -> None:
    """Simulate ``config`` (reusing the shards already in ``cache_dir``, by default
    ``study.model.paths.shard_cache(out_dir)``, under the per-user cache), write its runs table,
    cells and manifest into ``out_dir``; say on stderr which combinations of the grid are not
    cells, and warn about any run whose state became non-finite."""
    import pyarrow as pa

    from study.model.grid import cells, skipped
    from study.orchestration.manifest import build_manifest
    from study.orchestration.runner import run_study
    from study.orchestration.storage import cells_table, study_files

    cache_dir = cache_dir or shard_cache(out_dir)
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
    set_threads(threads)
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
