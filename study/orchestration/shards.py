"""Shards: one simulation over one block of seed indices, the unit of work that is cached,
resumed and distributed (``study.orchestration.backends``).

A shard is pure: its result depends only on what its key hashes (the simulation, the seed block,
the checkpoints, the root seed and stream mode, the package version and the source of the modules
that compute it). Each finished shard is one Parquet file ``<key>.parquet`` in the study's cache
folder, written under a temporary name and renamed, with its key and a SHA-256 checksum of its
columns in the file's metadata. A re-run reuses every shard whose file is present and valid, so a
study killed half-way loses at most the shards in flight; a truncated or altered file is reported
on stderr and recomputed. Two studies never share a cache folder (one per study name), and two
runs of the same study write the same bytes under the same names, so concurrent runs cannot
corrupt each other.
"""

from __future__ import annotations

import ast
import hashlib
import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import ClassVar, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import study
from study.core import prompt_rules
from study.model import registry
from study.model.atomic import write_files
from study.model.grid import Simulation
from study.model.schema import ANSWER_RUN_COLUMNS, SAMPLER_RUN_COLUMNS

SHARD_EPISODES = 200_000_000
"""Target work per shard (seconds on one core at the kernel's ns per episode, ``make bench``):
long enough that the per-shard overhead (key, file, checksum) is noise, short enough that an
interruption loses little and a cluster gets many shards to balance."""

SEED_GRAIN = 256
"""Shards hold a multiple of 256 seeds: whole blocks of the kernel's lockstep lanes
(``study.core.state.LANES``), two or more, so that both cores of these machines get one. A
partial block costs as much as a full one (measured: 200-seed shards made the narrow-margins
study about 20% slower than one unsharded run)."""

_PACKAGE = Path(study.__file__).parent
T = TypeVar("T")
_COMPUTES = "study.orchestration.simulate"
"""The module whose ``run_shard`` computes a shard: the root of the modules a result depends on."""


def _source(module: str) -> Path | None:
    """The file of a module of the package, or None (a name imported from a module)."""
    base = _PACKAGE.joinpath(*module.split(".")[1:])
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imported(path: Path) -> set[str]:
    """The package's modules that ``path`` imports anywhere in its code (inside functions too),
    with the packages that contain them (importing a module runs their ``__init__``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level:
            raise ImportError(f"{path}: a relative import, which the shard key does not follow")
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    ours = {name for name in found if name.split(".")[0] == study.__name__}
    return {".".join(name.split(".")[:end]) for name in ours
            for end in range(1, name.count(".") + 2)}


def code_files() -> tuple[Path, ...]:
    """The source files a shard's result can depend on, derived rather than listed: every module
    of the package that ``run_shard`` imports, directly or through others, and every learner the
    registry finds (it imports them by name, which no import statement shows)."""
    seen: set[Path] = set()
    queue = [_source(_COMPUTES), *registry.source_files()]
    while queue:
        path = queue.pop()
        if path is not None and path not in seen:
            seen.add(path)
            queue += [_source(name) for name in _imported(path)]
    return tuple(sorted(seen))


def code_digest(sources: Mapping[Path, bytes]) -> str:
    """SHA-256 of each file's name (relative to the package) and content, in name order."""
    digest = hashlib.sha256()
    for path in sorted(sources):
        digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0")
        digest.update(sources[path])
    return digest.hexdigest()


@cache
def code_version() -> str:
    """``code_digest`` of every file a shard's result depends on (``code_files``)."""
    return code_digest({path: path.read_bytes() for path in code_files()})


def horizon(simulation: Simulation, budgets: tuple[int, ...]) -> int:
    """Episodes one seed of ``simulation`` costs: one run to the largest budget when runs are
    nested, one run per checkpoint otherwise (for a budget of tokens, a bound: each rollout costs
    a token at least)."""
    return budgets[-1] // simulation.group_size * simulation.group_size if (
        simulation.learner.nested) else sum(budgets)


@dataclass(frozen=True)
class Shard:
    """One simulation over the seed indices ``start .. stop - 1``."""

    simulation: Simulation
    start: int
    stop: int
    budgets: tuple[int, ...]
    root_seed: int
    streams: str
    curves: bool = False
    tokens: bool = False
    """Whether ``budgets`` count tokens (a study's ``grid.token_budgets``), not rollouts."""

    @property
    def episodes(self) -> int:
        """Episodes (pulls) the shard simulates."""
        return (self.stop - self.start) * horizon(self.simulation, self.budgets)

    def key(self) -> str:
        """Content hash of everything the shard's result depends on."""
        content = {"algorithm": self.simulation.algorithm,
                   "environment": self.simulation.environment.to_dict(),
                   "lr": self.simulation.lr, "baseline": self.simulation.baseline,
                   "group_size": self.simulation.group_size,
                   "allocation": self.simulation.allocation,
                   "normalization": self.simulation.normalization,
                   "seeds": [self.start, self.stop], "budgets": list(self.budgets),
                   "root_seed": self.root_seed, "streams": self.streams, "curves": self.curves,
                   "version": study.__version__, "code": code_version()}
        if self.tokens:
            # Only where it is set, so the keys of the shards of every study before tokens stay.
            content["tokens"] = True
        if self.simulation.offpolicy is not None:
            content["offpolicy"] = repr(self.simulation.offpolicy)
        text = json.dumps(content, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:32]


class Grouped:
    """A shard's result of fields and optional column groups (``FIELDS``, ``GROUPS``)."""

    FIELDS: ClassVar[tuple[str, ...]]
    GROUPS: ClassVar[dict[str, tuple[str, ...]]]

    @property
    def fields(self) -> tuple[str, ...]:
        """The result's arrays per (seed, checkpoint[, band]): ``FIELDS``, then the groups it
        has."""
        return (*self.FIELDS, *(name for group in self.GROUPS.values() for name in group
                                if getattr(self, group[0]) is not None))


@dataclass(frozen=True)
class ShardResult(Grouped):
    """What the runs table needs from a shard, each of shape (seeds, checkpoints), and the
    per-step sums of the curves over the shard's seeds, shape (steps,) (empty without curves);
    and the column groups of the parts the simulation uses (``GROUPS``), None where it does not:
    what each run spent by each checkpoint where answers cost tokens
    (``study.core.kernel.simulate_tokens``), and what an off-policy learner records
    (``study.core.offpolicy``), the runs table's columns of those names."""

    FIELDS: ClassVar[tuple[str, ...]] = ("greedy", "p_best", "pass_rate", "reward_sum",
                                         "best_pulls", "finite", "zero_signal", "best_arm",
                                         "best_value", "value_gap", "greedy_value")
    GROUPS: ClassVar[dict[str, tuple[str, ...]]] = {
        "answers": ("rollouts", *ANSWER_RUN_COLUMNS), "sampler": SAMPLER_RUN_COLUMNS}
    CURVES: ClassVar[tuple[str, ...]] = ("curve_optimal", "curve_reward", "curve_seeds")
    TRAILING: ClassVar[tuple[int, ...]] = ()
    """The shape of each field past (seeds, checkpoints) (-1: as many as the stored result
    has)."""

    greedy: np.ndarray
    p_best: np.ndarray
    pass_rate: np.ndarray
    reward_sum: np.ndarray
    best_pulls: np.ndarray
    finite: np.ndarray
    zero_signal: np.ndarray
    best_arm: np.ndarray
    best_value: np.ndarray
    value_gap: np.ndarray
    greedy_value: np.ndarray
    curve_optimal: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    curve_reward: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    curve_seeds: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """The runs each step of the curves sums (``study.orchestration.simulate.KernelOutput``)."""
    rollouts: np.ndarray | None = None
    tokens: np.ndarray | None = None
    expected_length: np.ndarray | None = None
    entropy: np.ndarray | None = None
    k1_bias: np.ndarray | None = None
    k1_mse: np.ndarray | None = None
    k3_bias: np.ndarray | None = None
    k3_mse: np.ndarray | None = None
    k3_is_bias: np.ndarray | None = None
    k3_is_mse: np.ndarray | None = None
    served_pass_rate: np.ndarray | None = None
    served_p_best: np.ndarray | None = None

    @property
    def rows(self) -> int:
        """Rows of the runs table the result makes per cell: one per (seed, checkpoint)."""
        return self.finite.size

    @property
    def non_finite_rows(self) -> int:
        """Of those, the rows whose state is not finite."""
        return self.finite.size - int(self.finite.sum())


@dataclass(frozen=True)
class PromptShardResult(Grouped):
    """A many-prompts shard's result (``study.core.prompts``, ``study.core.passes``): each
    field of ``study.core.prompt_rules.FIELDS``, of shape (seeds, checkpoints, groups: the
    difficulty bands, or a population's environments), and the
    column groups of the parts the simulation uses (``GROUPS``, None where it does not): the
    tokens spent and the expected answer length where answers cost tokens, and the served
    policy's pass rate and the prompts stuck (``study.core.prompt_rules.STUCK_WRONG_MASS``) of an
    off-policy sampler, each summed over a group's prompts."""

    FIELDS: ClassVar[tuple[str, ...]] = prompt_rules.FIELDS
    GROUPS: ClassVar[dict[str, tuple[str, ...]]] = {
        "answers": ("tokens", "expected_length"), "sampler": ("served_pass_rate", "stuck")}
    CURVES: ClassVar[tuple[str, ...]] = ()
    TRAILING: ClassVar[tuple[int, ...]] = (-1,)

    prompts: np.ndarray
    best: np.ndarray
    greedy_value: np.ndarray
    pass_rate: np.ndarray
    best_value: np.ndarray
    rollouts: np.ndarray
    groups: np.ndarray
    zero_signal: np.ndarray
    non_finite: np.ndarray
    tokens: np.ndarray | None = None
    expected_length: np.ndarray | None = None
    served_pass_rate: np.ndarray | None = None
    stuck: np.ndarray | None = None

    @property
    def rows(self) -> int:
        """Rows of the runs table the result makes per cell: one per (seed, checkpoint, group)."""
        return self.prompts.size

    @property
    def non_finite_rows(self) -> int:
        """Of those, the rows with a prompt whose logits are not finite."""
        return int((self.non_finite > 0).sum())


Result = ShardResult | PromptShardResult


def fields_of(simulation: Simulation) -> tuple[str, ...]:
    """The arrays per (seed, checkpoint) a simulation's shards give: ``PromptShardResult``'s
    fields for many prompts, else ``ShardResult``'s, with the groups of the parts the
    simulation uses."""
    kind = PromptShardResult if simulation.allocation else ShardResult
    groups = kind.GROUPS
    return (*kind.FIELDS,
            *(groups["answers"] if simulation.environment.lengths is not None else ()),
            *(groups["sampler"] if simulation.offpolicy is not None else ()))


def _arrays(result: Result) -> list[np.ndarray]:
    """The result's arrays in a fixed order: its fields, then its curves."""
    return [getattr(result, name) for name in (*result.fields, *result.CURVES)]


def checksum(result: Result) -> str:
    """SHA-256 of every array's bytes, in a fixed order."""
    digest = hashlib.sha256()
    for array in _arrays(result):
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def concat(parts: list[Result]) -> Result:
    """Join shard results along the seed axis, in order; the curves' sums add up (integers, so
    the total does not depend on how the seeds were split)."""
    kind, fields = type(parts[0]), parts[0].fields
    columns = list(zip(*(_arrays(p) for p in parts), strict=True))
    return kind(**{name: np.concatenate(arrays)
                   for name, arrays in zip(fields, columns, strict=False)},
                **{name: np.sum(arrays, axis=0)
                   for name, arrays in zip(kind.CURVES, columns[len(fields):], strict=True)})


def plan(simulations: list[Simulation], start: int, stop: int, budgets: tuple[int, ...],
         root_seed: int, streams: str, seeds_per_shard: int | None = None,
         curves: bool = False, tokens: bool = False) -> list[Shard]:
    """Every shard of the study, simulation by simulation and block by block, in the fixed order
    in which the runs table is assembled."""
    shards = []
    for simulation in simulations:
        # A study whose budgets all fall short of one group costs no episodes; its shards are
        # then as large as they may be.
        cost = max(horizon(simulation, budgets), 1)
        block = seeds_per_shard or min(8192, SEED_GRAIN * max(
            1, round(SHARD_EPISODES / cost / SEED_GRAIN)))
        shards += [Shard(simulation, first, min(first + block, stop), budgets, root_seed, streams,
                         curves, tokens) for first in range(start, stop, block)]
    return shards


class CorruptShardError(Exception):
    """A cached shard file that cannot be trusted; ``str()`` says why."""


def _curves_path(path: Path) -> Path:
    return path.with_name(path.name.replace(".parquet", ".curves.parquet"))


def _write_atomic(table: pa.Table, path: Path) -> None:
    write_files({path: lambda temporary: pq.write_table(table, temporary)})


def save(path: Path, shard: Shard, result: Result) -> None:
    """Write ``result`` to ``path`` atomically, with its key and checksum in the metadata. A
    shard with curves keeps them in ``<key>.curves.parquet``, written first: the main file, whose
    checksum covers both, is what makes the shard count as done."""
    seeds, checkpoints = getattr(result, result.FIELDS[0]).shape[:2]
    steps = len(getattr(result, result.CURVES[0])) if result.CURVES else 0
    if steps:
        _write_atomic(pa.table({name: getattr(result, name) for name in result.CURVES}),
                      _curves_path(path))
    table = pa.table({name: getattr(result, name).ravel() for name in result.fields})
    table = table.replace_schema_metadata({
        "shard_key": shard.key(), "checksum": checksum(result),
        "shape": json.dumps([seeds, checkpoints, steps])})
    _write_atomic(table, path)


def _read(path: Path, reader: Callable[[Path], T] = pq.read_table) -> T:
    try:
        return reader(path)
    except (OSError, pa.ArrowException) as error:
        raise CorruptShardError(f"not a readable Parquet file: {type(error).__name__}") from None


def _metadata(schema: pa.Schema, shard: Shard) -> dict[str, str]:
    """The file's metadata; CorruptShardError unless it was written for ``shard``."""
    meta = {k.decode(): v.decode() for k, v in (schema.metadata or {}).items()}
    if meta.get("shard_key") != shard.key():
        raise CorruptShardError("its key does not match its name")
    return meta


def load(path: Path, shard: Shard) -> Result:
    """The cached result of ``shard`` at ``path``; ``CorruptShardError`` if it is not what was
    written for this shard (unreadable, wrong key, wrong shape or checksum)."""
    table = _read(path)
    meta = _metadata(table.schema, shard)
    seeds, checkpoints, steps = json.loads(meta.get("shape", "[0, 0, 0]"))
    if seeds != shard.stop - shard.start or checkpoints != len(shard.budgets):
        raise CorruptShardError("its shape does not match the shard")
    kind = PromptShardResult if shard.simulation.allocation else ShardResult
    fields = fields_of(shard.simulation)
    curves = {name: np.zeros(0, dtype=np.int64) for name in kind.CURVES}
    if steps:
        found = _read(_curves_path(path))
        if found.num_rows != steps or found.column_names != list(kind.CURVES):
            raise CorruptShardError("its curves do not match the shard")
        curves = {name: found.column(name).to_numpy() for name in kind.CURVES}
    if table.column_names != list(fields):
        raise CorruptShardError("its columns do not match the shard")
    result = kind(**{name: table.column(name).to_numpy().reshape(seeds, checkpoints,
                                                                 *kind.TRAILING)
                     for name in fields}, **curves)
    if checksum(result) != meta.get("checksum"):
        raise CorruptShardError("its checksum does not match its contents")
    return result


def _checked(folder: Path | None, shard: Shard, check: Callable[[Path], T]) -> T | None:
    """``check`` of the shard's cached file, or None: no file, or one that ``check`` finds
    corrupt (reported on stderr and removed, so the caller recomputes it)."""
    if folder is None:
        return None
    path = folder / f"{shard.key()}.parquet"
    if not path.is_file():
        return None
    try:
        return check(path)
    except CorruptShardError as reason:
        print(f"warning: cached shard {path} is corrupt ({reason}); recomputing it",
              file=sys.stderr)
        path.unlink(missing_ok=True)
        _curves_path(path).unlink(missing_ok=True)
        return None


def cached(folder: Path | None, shard: Shard) -> Result | None:
    """The shard's valid cached result, or None (a corrupt file is reported on stderr and
    removed, so the caller recomputes it)."""
    return _checked(folder, shard, lambda path: load(path, shard))


def present(folder: Path | None, shard: Shard) -> bool:
    """Whether the shard's file is cached with the shard's key in its footer, read without its
    columns (``cached`` checks the rest when the result is needed); a file that is not is
    reported and removed as ``cached`` does."""
    return _checked(folder, shard,
                    lambda path: _metadata(_read(path, pq.read_schema), shard)) is not None
