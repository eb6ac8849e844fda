"""Study configs: TOML in, a validated, frozen ``StudyConfig`` out.

Every check names the field and the offending value in one line (``ConfigError``), because the
CLI turns it into exit status 2 with exactly that line and nothing else; a config is fully checked
before anything is simulated or written.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import tomllib
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from study.model import ALGORITHM_CODES, BASELINE_CODES

DEFAULT_LR = 0.1
"""The learning rate a config gets when it names none (README, "Choosing the default lr")."""

MAX_BUDGET = 10**9
"""Largest checkpoint accepted: past it one run takes minutes and a grid takes days, which is a
typo far more often than an intent."""

MAX_SEEDS = 10**7

DEFAULT_DEPLOYMENT_PULLS = 100_000
"""D, the pulls a trained policy serves after training, when a config names none: 20 times the
headline 5,000-rollout budget, so that training is a real but not dominant cost (README, "Cost")."""
STREAM_MODES = ("per_seed", "per_cell")

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_STUDY_KEYS = {"name", "root_seed", "seeds", "streams", "description"}
_GRID_KEYS = {"algorithm", "probs", "lr", "baseline", "cost", "budgets"}
_ANALYSIS_KEYS = {"deployment_pulls"}


class ConfigError(ValueError):
    """A config field holds a value the study cannot run; ``str()`` is the one-line message."""

    def __init__(self, field: str, value: object, reason: str) -> None:
        self.field = field
        super().__init__(f"{field}: {_show(value)} {reason}")


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True)
class StudyConfig:
    """A validated study: who it is (name, root seed), how many seeds, and the grid of cells.

    ``streams`` is ``per_seed`` (the default: a run's random stream depends on the root seed and
    the seed index only, so cells are compared on common random numbers) or ``per_cell`` (each
    cell also mixes its own identity into the stream, for independent cells).
    """

    name: str
    root_seed: int
    seeds: int
    algorithm: tuple[str, ...]
    probs: tuple[tuple[float, ...], ...]
    lr: tuple[float, ...]
    baseline: tuple[str, ...]
    cost: tuple[float, ...]
    budgets: tuple[int, ...]
    streams: str = "per_seed"
    description: str = ""
    deployment_pulls: int = DEFAULT_DEPLOYMENT_PULLS

    def with_seeds(self, seeds: int) -> StudyConfig:
        """The same study with another number of seeds (the CLI's ``--seeds``)."""
        return replace(self, seeds=_check_int("--seeds", seeds, 1, MAX_SEEDS))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form, as recorded in the manifest."""
        return {key: _plain(value) for key, value in asdict(self).items()}

    def content_hash(self) -> str:
        """SHA-256 of the canonical JSON of the config: two configs that simulate the same thing
        have the same hash, whatever their TOML spelling."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


def load_config(path: str | Path) -> StudyConfig:
    """Read and validate the TOML study config at ``path``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError("config", str(path), f"cannot be read ({error.strerror})") from None
    except UnicodeDecodeError:
        raise ConfigError("config", str(path), "is not UTF-8 text") from None
    return parse_config(text, source=str(path))


def parse_config(text: str, source: str = "config") -> StudyConfig:
    """Validate TOML text; raise ``ConfigError`` naming the first field that is wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError("config", source, f"is not valid TOML ({error})") from None
    _check_keys("config", data, {"study", "grid", "analysis"}, required={"study", "grid"})
    study = _table("study", data["study"])
    grid = _table("grid", data["grid"])
    analysis = _table("analysis", data.get("analysis", {}))
    _check_keys("analysis", analysis, _ANALYSIS_KEYS, required=set())
    _check_keys("study", study, _STUDY_KEYS, required={"name", "root_seed", "seeds"})
    _check_keys("grid", grid, _GRID_KEYS, required={"probs", "budgets"})

    name = study["name"]
    if not isinstance(name, str) or not _NAME.match(name):
        raise ConfigError("study.name", name, "is not a name of letters, digits, '_', '-', '.'")
    streams = study.get("streams", "per_seed")
    if streams not in STREAM_MODES:
        raise ConfigError("study.streams", streams, f"is not one of {', '.join(STREAM_MODES)}")
    description = study.get("description", "")
    if not isinstance(description, str):
        raise ConfigError("study.description", description, "is not a string")

    budgets = tuple(_check_int(f"grid.budgets[{i}]", b, 1, MAX_BUDGET)
                    for i, b in enumerate(_axis("grid.budgets", grid["budgets"])))
    for i in range(1, len(budgets)):
        if budgets[i] <= budgets[i - 1]:
            raise ConfigError(f"grid.budgets[{i}]", budgets[i],
                              f"is not greater than the checkpoint before it ({budgets[i - 1]})")

    return StudyConfig(
        name=name,
        root_seed=_check_int("study.root_seed", study["root_seed"], 0, 2**128 - 1),
        seeds=_check_int("study.seeds", study["seeds"], 1, MAX_SEEDS),
        algorithm=_choices("grid.algorithm", grid.get("algorithm", ["reinforce"]), ALGORITHM_CODES),
        probs=_unique("grid.probs", tuple(_probs(f"grid.probs[{i}]", p)
                      for i, p in enumerate(_axis("grid.probs", grid["probs"])))),
        lr=_unique("grid.lr", tuple(_number(f"grid.lr[{i}]", v) for i, v in
                   enumerate(_axis("grid.lr", grid.get("lr", [DEFAULT_LR]))))),
        baseline=_choices("grid.baseline", grid.get("baseline", ["running_mean"]), BASELINE_CODES),
        cost=_unique("grid.cost", tuple(_number(f"grid.cost[{i}]", v) for i, v in
                     enumerate(_axis("grid.cost", grid.get("cost", [0.0]))))),
        budgets=budgets,
        streams=streams,
        description=description,
        deployment_pulls=_check_int("analysis.deployment_pulls",
                                    analysis.get("deployment_pulls", DEFAULT_DEPLOYMENT_PULLS),
                                    1, 10**15),
    )


def _table(field: str, value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(field, value, "is not a table")
    return value


def _check_keys(field: str, table: dict[str, Any], allowed: set[str], required: set[str]) -> None:
    for key in table:
        if key not in allowed:
            raise ConfigError(f"{field}.{key}" if field != "config" else key, table[key],
                              f"is not a known key (known: {', '.join(sorted(allowed))})")
    for key in sorted(required - table.keys()):
        raise ConfigError(f"{field}.{key}" if field != "config" else key, None, "is missing")


def _axis(field: str, value: object) -> list[Any]:
    if not isinstance(value, list):
        raise ConfigError(field, value, "is not a list")
    if not value:
        raise ConfigError(field, value, "is empty")
    return value


def _unique(field: str, values: tuple[Any, ...]) -> tuple[Any, ...]:
    for i, value in enumerate(values):
        if value in values[:i]:
            raise ConfigError(f"{field}[{i}]", value, "repeats an earlier value")
    return values


def _check_int(field: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(field, value, "is not an integer")
    if not low <= value <= high:
        raise ConfigError(field, value, f"is outside [{low}, {high}]")
    return value


def _number(field: str, value: object) -> float:
    """A finite, non-negative real (ints are accepted as floats; booleans are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(field, value, "is not a number")
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ConfigError(field, value, "is not a finite number >= 0")
    return value


def _probs(field: str, value: object) -> tuple[float, ...]:
    if not isinstance(value, list) or len(value) < 2:
        raise ConfigError(field, value, "is not a list of at least two arm probabilities")
    probs = []
    for k, p in enumerate(value):
        if isinstance(p, bool) or not isinstance(p, int | float) or not 0.0 <= p <= 1.0:
            raise ConfigError(f"{field}[{k}]", p, "is not a probability in [0, 1]")
        probs.append(float(p))
    return tuple(probs)


def _choices(field: str, value: object, known: dict[str, int]) -> tuple[str, ...]:
    names = _axis(field, value)
    for i, name in enumerate(names):
        if name not in known:
            raise ConfigError(f"{field}[{i}]", name, f"is not one of {', '.join(known)}")
    return _unique(field, tuple(names))
