"""Shards through faults: reuse on re-run, corrupt files, a killed run, unwritable folders; the
shard key's files."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numba
import pytest

from bandit_study.cli import main
from conftest import REPO, config_text, run_cli
from study.orchestration.storage import read_runs

# Two simulations of 1024 seeds to budget 200,000 (about 4e8 episodes), 256 seeds per shard:
# 8 shards of about half a second each, so a kill lands between shards.
SLOW = config_text({"seeds": 1024}, algorithm=["reinforce", "uniform"], budgets=[1000, 200000])
SLOW_SHARDS = ["--shard-seeds", "256"]
SPREAD = config_text({"seeds": 2048}, algorithm=["reinforce"], budgets=[1000, 400000])
"""Eight shards of about a second each on one thread, finished one after another: a signal sent
when the first is written lands between shards (uniform allocation's shards take milliseconds,
so a study with them finishes within a poll of its first shard on a loaded machine)."""
SMALL = config_text({"seeds": 300}, algorithm=["reinforce", "uniform"], lr=[0.1, 0.5],
                    budgets=[10, 2000])


def manifest(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())


def shard_files(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.parquet"))


# A many-prompts study's simulations differ in their allocation rule alone: a key without it
# gave the four rules one cache file, so a rerun read one rule's runs for all four.
PROMPTS = config_text({"seeds": 20}, prompts=[8], allocation=["uniform", "variance"],
                      probs=[{"draw": "beta", "arms": 3, "a": 1, "b": 1}],
                      baseline=["group_mean"], group_size=[4], lr=[0.5], budgets=[32, 128])


@pytest.mark.parametrize("text", [SMALL, PROMPTS], ids=["single", "prompts"])
def test_a_rerun_reuses_every_shard_and_writes_the_same_file(text: str, write_config,
                                                             tmp_path) -> None:
    path = write_config(text)
    out, cache = tmp_path / "study", tmp_path / "cache" / "study"
    assert main(["run", str(path), "--out", str(out), "--cache", str(cache), "--quiet"]) == 0
    first = (out / "runs.parquet").read_bytes()
    shards = manifest(out)["shards"]
    assert shards == len(shard_files(cache)) > 0 and manifest(out)["shards_reused"] == 0
    assert main(["run", str(path), "--out", str(out), "--cache", str(cache), "--quiet"]) == 0
    assert manifest(out)["shards_reused"] == shards and manifest(out)["episodes_computed"] == 0
    assert (out / "runs.parquet").read_bytes() == first


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="numba has one thread here")
def test_threads_do_not_change_the_runs_table(write_config, tmp_path) -> None:
    # 300 seeds are three lane blocks, which two threads split unevenly; a table is the same
    # bytes whichever thread computed a block.
    path = write_config(SMALL)
    written = []
    for threads in ("1", "2"):
        out = tmp_path / f"threads-{threads}"
        assert main(["run", str(path), "--out", str(out), "--quiet", "--threads", threads]) == 0
        written.append((out / "runs.parquet").read_bytes())
    assert written[0] == written[1]


def test_corrupt_shards_are_reported_and_recomputed(write_config, tmp_path, capsys) -> None:
    path = write_config(SMALL)
    out, cache = tmp_path / "study", tmp_path / "cache" / "study"
    assert main(["run", str(path), "--out", str(out), "--cache", str(cache), "--quiet"]) == 0
    expected = (out / "runs.parquet").read_bytes()
    files = shard_files(cache)
    truncated, swapped = files[0], files[1]
    truncated.write_bytes(truncated.read_bytes()[:100])
    swapped.write_bytes(files[2].read_bytes())  # a valid file under the wrong name
    capsys.readouterr()
    assert main(["run", str(path), "--out", str(out), "--cache", str(cache), "--quiet"]) == 0
    err = capsys.readouterr().err
    warnings = [line for line in err.splitlines() if line.startswith("warning: cached shard")]
    assert len(warnings) == 2 and len(err.splitlines()) == 2
    assert str(truncated) in warnings[0] + warnings[1] and str(swapped) in warnings[0] + warnings[1]
    assert manifest(out)["shards_reused"] == manifest(out)["shards"] - 2
    assert (out / "runs.parquet").read_bytes() == expected


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT], ids=["kill", "interrupt"])
def test_a_killed_run_resumes_to_the_same_table(stop: signal.Signals, write_config,
                                               tmp_path) -> None:
    # Killed, nothing runs after the signal; interrupted (Ctrl-C), the run says so in one line,
    # exits 130, and leaves what a killed run leaves: the shards it finished, no runs table.
    path = write_config(SPREAD)
    whole = tmp_path / "whole"
    assert run_cli("run", str(path), "--out", str(whole), "--quiet", *SLOW_SHARDS).returncode == 0
    out, cache = tmp_path / "killed", tmp_path / "cache" / "killed"
    # As in a terminal, Ctrl-C's default action in the run: a shell that started these tests in
    # the background (`make test &`) ignores SIGINT, and Python then installs no handler of its
    # own in a child that inherits that.
    process = subprocess.Popen([sys.executable, "-m", "bandit_study", "run", str(path), "--out",
                                str(out), "--cache", str(cache), "--quiet", "--threads", "1",
                                *SLOW_SHARDS], cwd=REPO,
                               stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 300
    while not shard_files(cache) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, "the run ended before the signal could be sent"
    process.send_signal(stop)
    _, stderr = process.communicate()
    if stop == signal.SIGINT:
        assert process.returncode == 130
        assert stderr == "interrupted: no output was written\n"
    done = len(shard_files(cache))
    assert 0 < done < manifest(whole)["shards"], "the kill should land between shards"
    assert not (out / "runs.parquet").exists()
    resumed = run_cli("run", str(path), "--out", str(out), "--cache", str(cache), "--quiet",
                      *SLOW_SHARDS)
    assert resumed.returncode == 0, resumed.stderr
    assert manifest(out)["shards_reused"] >= done
    assert (out / "runs.parquet").read_bytes() == (whole / "runs.parquet").read_bytes()
    assert not [p for p in cache.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("option", ["--out", "--cache"])
def test_an_unwritable_folder_exits_2_and_leaves_earlier_results(option: str, write_config,
                                                                 tmp_path, capsys) -> None:
    path = write_config(SMALL)
    out = tmp_path / "study"
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 0
    before = (out / "runs.parquet").read_bytes()
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    args = {"--out": ["--out", str(blocker / "study")],
            "--cache": ["--out", str(out), "--cache", str(blocker / "cache")]}[option]
    capsys.readouterr()
    assert main(["run", str(path), *args, "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {option}:"), err
    assert (out / "runs.parquet").read_bytes() == before


def test_stale_temporary_files_of_dead_writers_are_removed(tmp_path) -> None:
    from study.model.atomic import remove_stale_temporaries

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    stale = tmp_path / f".x.parquet.{dead}.tmp"
    live = tmp_path / f".y.parquet.{os.getpid()}.tmp"
    stale.write_text("")
    live.write_text("")
    remove_stale_temporaries(tmp_path)
    assert not stale.exists() and live.exists()


@pytest.mark.slow
def test_dask_local_cluster_writes_the_same_file_as_the_local_backend(write_config,
                                                                      tmp_path) -> None:
    path = write_config(SMALL)
    for backend in ("local", "dask"):
        done = run_cli("run", str(path), "--out", str(tmp_path / backend), "--backend", backend,
                       "--quiet")
        assert done.returncode == 0, done.stderr
    assert manifest(tmp_path / "dask")["backend"].startswith("dask (LocalCluster, 2 workers")
    assert ((tmp_path / "dask" / "runs.parquet").read_bytes()
            == (tmp_path / "local" / "runs.parquet").read_bytes())


def _dask(*arguments: str) -> subprocess.Popen:
    """A ``dask`` command (the scheduler or a worker) as a process of its own, quiet."""
    return subprocess.Popen([str(Path(sys.executable).with_name("dask")), *arguments],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                filter(None, (str(REPO), os.environ.get("PYTHONPATH"))))})


@pytest.mark.slow
def test_a_dask_worker_killed_mid_run_does_not_change_the_table(write_config, tmp_path) -> None:
    # A cluster as a lab runs one: the scheduler and two workers started by dask's own commands,
    # each a process of its own (no nanny to restart a worker), the study run through its
    # address; one worker killed once the first shard is back, the other finishing the rest.
    from distributed import Client

    path = write_config(SLOW)
    whole = tmp_path / "whole"
    assert run_cli("run", str(path), "--out", str(whole), "--quiet", *SLOW_SHARDS).returncode == 0
    out, cache = tmp_path / "dask", tmp_path / "cache" / "dask"
    address_file = tmp_path / "scheduler.json"
    cluster = [_dask("scheduler", "--scheduler-file", str(address_file), "--port", "0",
                     "--no-dashboard")]
    process = None
    try:
        deadline = time.monotonic() + 120
        while not address_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        cluster += [_dask("worker", "--scheduler-file", str(address_file), "--nthreads", "1",
                          "--no-nanny", "--no-dashboard") for _ in range(2)]
        with Client(scheduler_file=str(address_file), timeout=120) as client:
            client.wait_for_workers(2, timeout=120)
            address = client.scheduler.address
        process = subprocess.Popen(
            [sys.executable, "-m", "bandit_study", "run", str(path), "--out", str(out), "--cache",
             str(cache), "--quiet", "--backend", "dask", "--scheduler", address, *SLOW_SHARDS],
            cwd=REPO, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 300
        while not shard_files(cache) and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process.poll() is None, "the run should still be going"
        cluster[1].kill()
        _, err = process.communicate(timeout=300)
    finally:
        for started in [*cluster, *([process] if process is not None else [])]:
            if started.poll() is None:
                started.kill()
            started.wait(timeout=60)
    assert cluster[1].returncode == -signal.SIGKILL
    assert process.returncode == 0, err
    assert manifest(out)["backend"] == f"dask ({address}, 2 workers)"
    assert (out / "runs.parquet").read_bytes() == (whole / "runs.parquet").read_bytes()


@pytest.mark.slow
def test_two_studies_running_at_once_do_not_disturb_each_other(write_config, tmp_path) -> None:
    # Separate folders per study (out/<name>, cache/<name>) and atomic renames: two studies
    # started together into one output root give the tables each gives alone.
    configs = {name: write_config(SMALL.replace('name = "t"', f'name = "{name}"'), f"{name}.toml")
               for name in ("first", "second")}
    together = [subprocess.Popen([sys.executable, "-m", "bandit_study", "run", str(path), "--out",
                                  str(tmp_path / "shared" / name), "--quiet"], cwd=REPO)
                for name, path in configs.items()]
    assert [p.wait(timeout=300) for p in together] == [0, 0]
    for name, path in configs.items():
        assert run_cli("run", str(path), "--out", str(tmp_path / "alone" / name),
                       "--quiet").returncode == 0
        assert ((tmp_path / "shared" / name / "runs.parquet").read_bytes()
                == (tmp_path / "alone" / name / "runs.parquet").read_bytes())


KEY_SCRIPT = """
import numpy as np
from study.orchestration.shards import Shard, code_files
from study.model.environment import Environment
from study.model.grid import Simulation
simulation = Simulation("reinforce", Environment.fixed((0.5, 0.55, 0.6)), 0.1, "running_mean")
print(Shard(simulation, 0, 256, (10, 100), 1, "per_seed").key(), len(code_files()))
"""


def _key(root: Path) -> str:
    done = subprocess.run([sys.executable, "-c", KEY_SCRIPT], cwd=root, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(root)}, check=True)
    return done.stdout.strip()


def test_the_shard_key_changes_with_every_module_a_shard_depends_on_and_no_other(
        tmp_path) -> None:
    # The key's files are derived from run_shard's imports: the numba layer, every learner, the
    # specification and orchestration modules it uses; not the runner, storage, the CLI, the API,
    # the analysis or the report, whose changes cannot change a shard's result.
    from study.orchestration.shards import code_digest, code_files

    package = REPO / "study"
    files = set(code_files())
    required = {*package.glob("core/*.py"), *package.glob("learners/*.py"),
                *(package / "orchestration" / name for name in ("simulate.py", "shards.py")),
                *(package / "model" / name for name in ("environment.py", "grid.py",
                                                        "registry.py"))}
    assert required <= files, sorted(map(str, required - files))
    unrelated = [REPO / "bandit_study" / name for name in ("cli.py", "api.py", "__main__.py")] + [
        package / "orchestration" / name for name in ("runner.py", "storage.py", "backends.py",
                                                      "outputs.py", "manifest.py")]
    assert not files & set(unrelated)
    sources = {path: path.read_bytes() for path in files}
    for path in files:
        flipped = bytes([sources[path][0] ^ 1]) + sources[path][1:]
        assert code_digest({**sources, path: flipped}) != code_digest(sources), path
    # End to end on a copy of the code, one byte changed at a time.
    for folder in ("bandit_study", "study", "analysis", "figures"):
        shutil.copytree(REPO / folder, tmp_path / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    original = _key(tmp_path)
    for name, changes in (("study/orchestration/simulate.py", True),
                          ("study/learners/reinforce.py", True), ("bandit_study/cli.py", False),
                          ("analysis/study_tables.py", False), ("figures/report.py", False)):
        path = tmp_path / name
        text = path.read_bytes()
        path.write_bytes(text + b"\n")
        assert (_key(tmp_path) != original) == changes, name
        path.write_bytes(text)


@pytest.mark.slow
def test_a_run_killed_while_writing_leaves_the_previous_output_or_none(write_config,
                                                                       tmp_path) -> None:
    path = write_config(SLOW)
    whole = tmp_path / "whole"
    assert run_cli("run", str(path), "--out", str(whole), "--quiet", *SLOW_SHARDS).returncode == 0
    out = tmp_path / "out"

    def killed_while_writing(cache: str) -> None:
        # A fresh cache, so that the run computes: its runs table is being written once the
        # first simulation is done, and the second one takes seconds more.
        process = subprocess.Popen([sys.executable, "-m", "bandit_study", "run", str(path), "--out",
                                    str(out), "--cache", str(tmp_path / cache), "--quiet",
                                    *SLOW_SHARDS], cwd=REPO, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 300
        while (not list(out.glob(".runs.parquet.*.tmp")) and process.poll() is None
               and time.monotonic() < deadline):
            time.sleep(0.01)
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert list(out.glob(".runs.parquet.*.tmp")), "the kill should land while writing"

    killed_while_writing("first")
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == []
    assert run_cli("run", str(path), "--out", str(out), "--seeds", "512", "--quiet",
                   *SLOW_SHARDS).returncode == 0
    previous = {p.name: p.read_bytes() for p in out.iterdir()}
    killed_while_writing("second")
    assert {p.name: p.read_bytes() for p in out.iterdir() if not p.name.startswith(".")} == (
        previous)
    assert read_runs(out)["seed"].nunique() == 512
    resumed = run_cli("run", str(path), "--out", str(out), "--quiet", *SLOW_SHARDS)
    assert resumed.returncode == 0, resumed.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in whole.iterdir())
    for name in ("runs.parquet", "cells.parquet"):
        assert (out / name).read_bytes() == (whole / name).read_bytes()


def test_a_failure_between_the_final_renames_leaves_no_runs_table(write_config, tmp_path,
                                                                  monkeypatch, capsys) -> None:
    # runs.parquet is what make and every reader start from: once the companions start to be
    # replaced the old one is gone, so a folder never pairs a runs table with another run's cells.
    import study.model.atomic as atomic

    path = write_config(SMALL)
    out = tmp_path / "study"
    assert main(["run", str(path), "--out", str(out), "--seeds", "256", "--quiet"]) == 0
    replace = atomic.os.replace

    def failing(source, target) -> None:
        if Path(target).name == "manifest.json":
            raise OSError(28, "No space left on device")
        replace(source, target)

    monkeypatch.setattr(atomic.os, "replace", failing)
    capsys.readouterr()
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 2
    assert capsys.readouterr().err.startswith("error: --out:")
    assert not (out / "runs.parquet").exists() and not list(out.glob(".*.tmp"))
    with pytest.raises(ValueError, match=r"has no runs\.parquet"):
        read_runs(out)
    monkeypatch.setattr(atomic.os, "replace", replace)
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 0
    assert read_runs(out)["seed"].nunique() == 300


def test_a_runs_table_is_never_read_with_another_runs_cells(write_config, tmp_path) -> None:
    path = write_config(SMALL)
    for name, seeds in (("a", "256"), ("b", "300")):
        assert main(["run", str(path), "--out", str(tmp_path / name), "--seeds", seeds,
                     "--quiet"]) == 0
    shutil.copy(tmp_path / "b" / "cells.parquet", tmp_path / "a" / "cells.parquet")
    with pytest.raises(ValueError, match="not written together"):
        read_runs(tmp_path / "a")
    done = subprocess.run([sys.executable, "-m", "analysis", str(tmp_path / "a"), "--config",
                           str(path), "--out", str(tmp_path / "tables")], cwd=REPO,
                          capture_output=True, text=True)
    assert done.returncode == 2 and not (tmp_path / "tables").exists()
    assert done.stderr == (f"error: run_dir: {str(tmp_path / 'a')!r} holds a runs.parquet and a "
                           "cells.parquet that were not written together by one run\n")


MODULES_SCRIPT = """
import sys
from pathlib import Path
from study.orchestration import simulate
from study.orchestration.shards import code_files
from study.model import registry
registry.register_kernels()
loaded = {Path(m.__file__) for name, m in list(sys.modules.items())
          if name.split(".")[0] == "study" and getattr(m, "__file__", None)}
print(sorted(str(p) for p in loaded - set(code_files())))
"""


def test_every_module_loaded_to_compute_a_shard_is_in_its_key() -> None:
    # Not derived from the same import statements as the key: what Python actually loads to
    # run a shard, dynamic imports (the registry's learners, their numba pieces) included.
    done = subprocess.run([sys.executable, "-c", MODULES_SCRIPT], cwd=REPO, capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


def test_every_field_a_shard_is_described_by_is_in_its_key(monkeypatch) -> None:
    # One change per field of the shard, its simulation and its environment, each from a base
    # where the field matters (a drawn many-prompts dataset, a fixed noisy-verifier bandit); the
    # fields are enumerated from the dataclasses, so a field added to them without a line here
    # (and in the key) fails the test.
    import dataclasses

    import study
    from study.model.environment import Environment
    from study.model.grid import Simulation
    from study.model.offpolicy import OffPolicy
    from study.orchestration import shards
    from study.orchestration.shards import Shard

    drawn = dataclasses.replace(Environment.drawn("beta", 3, (1.0, 9.0)), prompts=4)
    fixed = Environment.fixed((0.5, 0.55, 0.6), "noisy_verifier", (0.1, 0.2))
    dataset = Shard(Simulation("reinforce", drawn, 0.5, "group_mean", 4, "variance"), 0, 10,
                    (64, 128), 1, "per_seed")
    bandit = Shard(Simulation("reinforce", fixed, 0.1, "running_mean"), 0, 10, (10, 100), 1,
                   "per_seed")
    plain = Shard(Simulation("reinforce", Environment.fixed((0.5, 0.6)), 0.1, "running_mean"),
                  0, 10, (10, 100), 1, "per_seed")
    answers = Shard(Simulation("reinforce", Environment.fixed((0.5, 0.55, 0.6)).with_lengths(
        (1, 2, 4)), 0.1, "running_mean"), 0, 10, (10, 100), 1, "per_seed")
    people = Environment.drawn("population", 3, (2.0, 1.0, 1.0, 4.0, 0.0)).with_prompts(
        4).with_population_seed(1)
    population = Shard(Simulation("reinforce", people, 0.5, "group_mean", 4, "uniform"), 0, 10,
                       (64, 128), 1, "per_seed")
    shaped = Shard(Simulation("reinforce", Environment.fixed(
        (0.5, 0.55, 0.6), "length_penalty", (0.1, 1.0, 1.0)).with_lengths((1, 2, 4)).with_verdict(
            "noisy_verifier", (0.1, 0.2)), 0.1, "running_mean"), 0, 10, (10, 100), 1, "per_seed")

    def environment(base: Shard, **change: object) -> tuple[Shard, Shard]:
        new = dataclasses.replace(base.simulation.environment, **change)
        return base, dataclasses.replace(base, simulation=dataclasses.replace(
            base.simulation, environment=new))

    def simulation(base: Shard, **change: object) -> tuple[Shard, Shard]:
        return base, dataclasses.replace(base, simulation=dataclasses.replace(base.simulation,
                                                                              **change))

    def shard(base: Shard, **change: object) -> tuple[Shard, Shard]:
        return base, dataclasses.replace(base, **change)

    changed = {
        # Two models without parameters, so that only the model's name differs.
        "environment.reward": environment(plain, reward="gaussian"),
        "environment.arms": environment(dataset, arms=4),
        "environment.values": environment(bandit, values=(0.5, 0.55, 0.65)),
        # Beta and uniform name their parameters apart in to_dict as well ({a, b}, {low, high}).
        "environment.draw": environment(dataset, draw="uniform"),
        "environment.params": environment(dataset, params=(1.0, 8.0)),
        "environment.reward_parameters": environment(bandit, reward_parameters=(0.1, 0.3)),
        "environment.prompts": environment(dataset, prompts=8),
        "environment.lengths": environment(answers, lengths=(1.0, 2.0, 8.0)),
        "environment.length_law": environment(answers, length_law="geometric"),
        "environment.verdict": environment(shaped, verdict="", verdict_parameters=()),
        "environment.verdict_parameters": environment(shaped, verdict_parameters=(0.1, 0.3)),
        # The population's own seed (a config sets it to the root seed, a key's field as well).
        "environment.population_seed": environment(population, population_seed=2),
        "simulation.algorithm": simulation(bandit, algorithm="epsilon_greedy"),
        "simulation.lr": simulation(bandit, lr=0.2),
        "simulation.baseline": simulation(bandit, baseline="none"),
        "simulation.group_size": simulation(dataset, group_size=8),
        "simulation.allocation": simulation(dataset, allocation="uniform"),
        "simulation.normalization": simulation(dataset, normalization="per_batch"),
        "simulation.offpolicy": simulation(bandit, offpolicy=OffPolicy(lag=1)),
        "shard.start": shard(bandit, start=1),
        "shard.stop": shard(bandit, stop=11),
        "shard.budgets": shard(bandit, budgets=(10, 200)),
        "shard.root_seed": shard(bandit, root_seed=2),
        "shard.streams": shard(bandit, streams="per_cell"),
        "shard.curves": shard(bandit, curves=True),
        "shard.tokens": shard(answers, tokens=True),
    }
    described = {f"{prefix}.{field.name}" for prefix, kind in (
        ("environment", Environment), ("simulation", Simulation), ("shard", Shard))
        for field in dataclasses.fields(kind)} - {"shard.simulation", "simulation.environment"}
    assert set(changed) == described
    for field, (base, other) in changed.items():
        assert other.key() != base.key(), field
    # And what is not a field: the package's version and its code.
    keys = {dataset.key(), bandit.key()}
    monkeypatch.setattr(study, "__version__", study.__version__ + ".post1")
    assert not keys & {dataset.key(), bandit.key()}
    monkeypatch.undo()
    monkeypatch.setattr(shards, "code_version", lambda: "another code")
    assert not keys & {dataset.key(), bandit.key()}
