"""Before and after a change, on this host: the kernel and its floor of another revision against
this checkout's, each timed in a process of its own, the two alternating round by round.

These hosts are shared and their speed drifts within minutes, so a change is judged by the
median of several rounds measured interleaved, never by two timings taken apart
(``python -m benchmarks.ab REVISION [ROUNDS]``; ``make bench`` with ``BENCH_BASE`` set times
that revision and every commit since, a row per change).
The other revision is checked out into a temporary git worktree, with a numba cache of its own.
The same interleaving compares this checkout compiled for the two vector widths LLVM can be tuned
for (``compare_widths``), which ``make bench`` always reports.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import llvmlite.binding as llvm

from study.model.paths import REPO_ROOT

ROUNDS = 5
SEEDS, BUDGET = 2048, 10_000

# The script runs in either checkout, so it names nothing whose module moved between revisions:
# both pass 128 lanes to the floor, the kernel's LANES.
_TIMING = textwrap.dedent(f"""
    import numba, numpy as np
    from benchmarks.floor import floor_loop
    from benchmarks.run import SIM, median_seconds
    from study.orchestration.simulate import simulate
    from study.core.streams import kernel_keys, run_keys
    numba.set_num_threads(1)
    keys = run_keys(1, np.arange({SEEDS}))
    episodes = {SEEDS} * {BUDGET} * 1e-9
    kernel = median_seconds(lambda: simulate(SIM, keys, ({BUDGET},)), 3) / episodes
    floor = median_seconds(lambda: floor_loop(kernel_keys(keys), 3, {BUDGET}, 128), 3) / episodes
    print(kernel, floor)
""")


def _timed(tree: Path, cache: Path, features: str | None = None) -> tuple[float, float]:
    """(kernel, floor) ns per episode of the checkout at ``tree``, one thread, a fresh process;
    numba compiles for the host's CPU with ``features`` (``NUMBA_CPU_FEATURES``) if given."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(tree)}
    if features is not None:
        env["NUMBA_CPU_FEATURES"] = features
    done = subprocess.run([sys.executable, "-c", _TIMING], cwd=tree, env=env, check=True,
                          capture_output=True, text=True)
    kernel, floor = done.stdout.split()
    return float(kernel), float(floor)


def _git(*arguments: str) -> str:
    return subprocess.run(["git", *arguments], cwd=REPO_ROOT, check=True, capture_output=True,
                          text=True).stdout.strip()


def _interleaved(revisions: dict[str, str | None], rounds: int) -> dict[str, dict[str, float]]:
    """Median ns per episode of the kernel and the floor of each named revision (each checked
    out in a worktree of its own; None: this checkout as it is), the revisions timed in turn
    in every round."""
    with tempfile.TemporaryDirectory() as folder:
        trees: dict[str, Path] = {}
        try:
            for i, (name, revision) in enumerate(revisions.items()):
                if revision is None:
                    trees[name] = REPO_ROOT
                    continue
                trees[name] = Path(folder) / f"tree-{i}"
                _git("worktree", "add", "--detach", str(trees[name]), revision)
            found: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
            for _ in range(rounds):
                for name, tree in trees.items():
                    found[name].append(_timed(tree, Path(folder) / f"cache-{tree.name}"))
        finally:
            for tree in trees.values():
                if tree != REPO_ROOT:
                    _git("worktree", "remove", "--force", str(tree))
    return _medians(found)


def compare(revision: str, rounds: int = ROUNDS) -> dict[str, dict[str, float]]:
    """Median ns per episode of the kernel and the floor at ``revision`` and here."""
    return _interleaved({revision: revision, "this checkout": None}, rounds)


def compare_commits(base: str, rounds: int = ROUNDS) -> dict[str, dict[str, float]]:
    """``compare`` with a row per change: ``base``, then every commit after it on this branch
    (first parents, oldest first), each named by its hash and subject, then this checkout if it
    has uncommitted changes; all interleaved in the same rounds."""
    revisions: dict[str, str | None] = {base: base}
    for line in _git("log", "--first-parent", "--reverse", "--format=%h %s",
                     f"{base}..HEAD").splitlines():
        commit, _, subject = line.partition(" ")
        revisions[f"{commit} {subject[:60]}"] = commit
    if _git("status", "--porcelain", "--untracked-files=no"):
        revisions["this checkout (uncommitted changes)"] = None
    return _interleaved(revisions, rounds)


def _medians(found: dict[str, list[tuple[float, float]]]) -> dict[str, dict[str, float]]:
    return {name: {"kernel": statistics.median(k for k, _ in rows),
                   "floor": statistics.median(f for _, f in rows)}
            for name, rows in found.items()}


WIDTHS = {"256-bit vectors preferred": "+prefer-256-bit",
          "512-bit vectors allowed": "-prefer-256-bit"}
"""LLVM's tuning flag for the vector width, both ways: on some AVX-512 hosts (Intel server
parts) LLVM's default tuning prefers 256-bit vectors and emits no 512-bit ones, on others it
emits 512-bit ones; which is faster is this host's to say."""


def compare_widths(rounds: int = ROUNDS) -> dict[str, dict[str, float]]:
    """Median ns per episode of this checkout's kernel and floor compiled with each of
    ``WIDTHS`` added to the host's CPU features, interleaved round by round (the same bits either
    way: the vector width never changes a result)."""
    host = llvm.get_host_cpu_features()
    host.pop("prefer-256-bit", None)
    features = host.flatten()
    found: dict[str, list[tuple[float, float]]] = {name: [] for name in WIDTHS}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(rounds):
            for name, flag in WIDTHS.items():
                found[name].append(_timed(REPO_ROOT, Path(folder) / flag,
                                          f"{features},{flag}"))
    return _medians(found)


def markdown(revision: str, result: dict[str, dict[str, float]], rounds: int) -> str:
    """A comparison as a Markdown table under the title ``revision``."""
    lines = [f"{revision} ({rounds} interleaved rounds, separate processes, one thread, "
             f"{SEEDS} seeds x {BUDGET} episodes, median ns per episode):", "",
             "| build | kernel | floor | kernel / floor |", "|---|---:|---:|---:|"]
    for name, row in result.items():
        lines.append(f"| {name} | {row['kernel']:.2f} | {row['floor']:.2f} | "
                     f"{row['kernel'] / row['floor']:.2f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Compare the revision named on the command line with this checkout; print the table."""
    revision = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else ROUNDS
    print(markdown(f"Before and after, {revision} against this checkout",
                   compare(revision, rounds), rounds))


if __name__ == "__main__":
    main()
