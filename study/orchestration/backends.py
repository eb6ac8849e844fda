"""Where shards are computed: in this process (``local``, the default) or on a dask.distributed
cluster (``dask``): an existing one given by its scheduler address, or a ``LocalCluster`` started
on this machine. Either way a backend yields (shard, result) pairs as they finish, and the caller
saves each to the cache at once, so a run on a cluster resumes like a local one. Workers need only
the installed package: shards travel to them and results back through dask, no shared files.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from study.model.config import ConfigError
from study.orchestration.shards import Result, Shard
from study.orchestration.simulate import run_shard

BACKENDS = ("local", "dask")
IN_FLIGHT = 4
"""Shards submitted per dask worker ahead of the ones being collected: enough to keep each
worker busy while results travel back."""


@dataclass
class Backend:
    """How to compute shards; ``seconds`` accumulates compute time (wall time on a cluster)."""

    name: str = "local"
    scheduler: str | None = None
    workers: int = 2
    seconds: float = field(default=0.0)
    described: str = "local (this process, numba threads)"

    def run(self, shards: list[Shard]) -> Iterator[tuple[Shard, Result]]:
        """Compute ``shards``, yielding each with its result as soon as it is done."""
        if not shards:
            return
        if self.name == "local":
            yield from self._local(shards)
        else:
            yield from self._dask(shards)

    def _local(self, shards: list[Shard]) -> Iterator[tuple[Shard, Result]]:
        for shard in shards:
            began = time.perf_counter()
            result = run_shard(shard)
            self.seconds += time.perf_counter() - began
            yield shard, result

    def _dask(self, shards: list[Shard]) -> Iterator[tuple[Shard, Result]]:
        from distributed import Client, Future, LocalCluster, as_completed

        cluster = None
        if self.scheduler is None:
            # One single-threaded worker per core: each worker's numba kernel then uses one
            # thread, so workers do not oversubscribe the cores.
            cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
        try:
            client = Client(self.scheduler or cluster, timeout="10s")
        except OSError as error:  # an unreachable scheduler ends in a TimeoutError (an OSError)
            raise ConfigError("--scheduler", self.scheduler,
                              f"cannot be reached ({type(error).__name__})") from None
        workers = len(client.scheduler_info()["workers"])
        self.described = (f"dask ({self.scheduler or 'LocalCluster'}, {workers} workers)")
        began = time.perf_counter()
        try:
            single = cluster is not None
            futures: dict[Future, int] = {}
            finished = [False] * len(shards)
            oldest = submitted = 0
            # Submitted in the plan's order, never more than a window past the oldest shard not
            # yet finished: the caller assembles in that order, so the results it holds for
            # later simulations are at most a window, even behind a straggler or a retry.
            window = IN_FLIGHT * max(workers, 1)
            running = as_completed()

            def fill() -> None:
                nonlocal submitted
                while submitted < min(len(shards), oldest + window):
                    shard = shards[submitted]
                    future = client.submit(_compute, shard, single,
                                           key=f"shard-{shard.key()}", retries=3)
                    futures[future] = submitted
                    running.add(future)
                    submitted += 1

            fill()
            for future in running:
                index = futures.pop(future)
                yield shards[index], future.result()
                finished[index] = True
                while oldest < len(shards) and finished[oldest]:
                    oldest += 1
                fill()
        finally:
            self.seconds += time.perf_counter() - began
            client.close()
            if cluster is not None:
                cluster.close()


def _compute(shard: Shard, single_thread: bool) -> Result:
    """A shard on a dask worker."""
    if single_thread:
        import numba

        numba.set_num_threads(1)
    return run_shard(shard)
