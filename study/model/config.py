"""Study configs: TOML in, a validated, frozen ``StudyConfig`` out.

Every check names the field and the offending value in one line (``ConfigError``), because the
CLI turns it into exit status 2 with exactly that line and nothing else; a config is fully checked
before anything is simulated or written.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import re
import sys
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, ClassVar, NoReturn, TypeVar

from study.core import prompt_rules
from study.model import population, registry
from study.model.design import ROLES, Design, Factor
from study.model.environment import (
    DRAW_VALUES,
    DRAWS,
    FIXED,
    LENGTH_LAWS,
    MAX_LENGTH,
    Environment,
)
from study.model.offpolicy import ESTIMATORS, OffPolicy, parse_correction
from study.model.offpolicy import keys as offpolicy_keys
from study.rewards import ROLES as NOISE_ROLES
from study.rewards import VALUE_KEYS, RewardModel

DEFAULT_LR = 0.1
"""The learning rate a config gets when it names none (README, "Choosing the default lr")."""

MAX_BUDGET = 10**9
"""Largest checkpoint accepted: past it one run takes minutes and a grid takes days, which is a
typo far more often than an intent."""

MAX_SEEDS = 10**7

MAX_GROUP_SIZE = 1024
"""Largest group of rollouts per update: past it a group is a sizeable share of any budget the
study runs, and the kernel keeps a group's arms and rewards for every lockstep lane."""

MAX_ARMS = 1000
"""Most arms a bandit may have; one code path serves every K up to it (the state of 1,000 arms in
the kernel's 32 lockstep lanes is 1 MB)."""

MAX_MEAN = 1000.0
"""Largest |mean| of a Gaussian arm (fixed, or the centre of a drawn one), and MAX_SD the largest
spread of drawn means: together they keep every reward within 2^12 in magnitude (a drawn mean
would have to lie 30 sd out to break it), which the fixed-point sums of the per-step curves need
to stay inside int64 (``study.core.kernel.CURVE_SCALE``)."""
MAX_SD = 100.0
MAX_MISMATCH = 100.0
"""The largest spread of a sampler's logit noise (``grid.mismatch``): far past any served
policy's (a spread of 100 makes the sampler all but a uniform draw of a greedy arm), and small
enough that the noise leaves an arm a prompt does not have where it is
(``study.core.prompt_rules.ABSENT``)."""

DEFAULT_DEPLOYMENT_PULLS = 100_000
"""D, the pulls a trained policy serves after training, when a config names none: 20 times the
headline 5,000-rollout budget, so that training is a real but not dominant cost (README, "Cost")."""
DEFAULT_EQUIVALENCE_MARGIN = 0.01
"""The accuracy difference within which two cells (or a cell and chance) are called equivalent
when a config states none: two one-sided tests at this margin (``analysis.paired.verdict``,
``analysis.study_tables.chance_equivalence``)."""
DEFAULT_PASS_RATE_MARGIN = 0.01
"""The pass-rate difference within which two cells are called equivalent when a config states
none: one percentage point of mean@k accuracy, the resolution at which post-training papers
tabulate it."""
DEFAULT_RATIO_MARGIN = 1.25
"""Two budgets to a target are called as efficient as each other when their ratio is shown to lie
within [1 / margin, margin] (two one-sided tests on the 90% bootstrap interval), when a config
states no other margin."""
STREAM_MODES = ("per_seed", "per_cell")

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_SECTION = re.compile(r"[a-z]+(_[a-z]+)*")
"""A section's name in ``[analysis] sections`` (a module of ``figures.sections``), or a paper
role's in ``[analysis] paper_role``."""
T = TypeVar("T")
_STUDY_KEYS = {"name", "root_seed", "seeds", "streams", "description", "curves"}
_GRID_KEYS = {"algorithm", "probs", "means", "reward_model", "lr", "baseline", "group_size", "cost",
              "budgets", "token_budgets", "prompts", "allocation", "normalization", "lengths",
              "length_law", "verdict", *offpolicy_keys()}
BUDGET_UNITS = ("rollouts", "tokens")
"""What a study's checkpoints count: rollouts (``grid.budgets``) or the tokens of the answers
(``grid.token_budgets``, for arms whose answers have lengths, ``grid.lengths``)."""
_ANALYSIS_KEYS = {"deployment_pulls", "primary_budgets", "compared_budgets", "equivalence_margin",
                  "pass_rate_margin", "ratio_margin", "same_simulation_as", "headline_lr",
                  "headline_baseline", "reference", "sections", "headline_group_size",
                  "curve_cut", "paper_role", "pass_rate_target", "chosen_after_run"}
CHOSEN_AFTER_RUN = ("named_rows", "stuck", "tokens_to_target", "difficulty")
"""What a factorial study's analysis may have chosen after its runs had been read, which its
write-up then says: the comparisons of the rows its factors' roles name
(``analysis.prompts.factorial.pairs``), the share of stuck prompts as a metric, the tokens to
``pass_rate_target``, and those comparisons per environment difficulty for a population
(``factorial_difficulty``)."""
DEFAULT_HEADLINE_BASELINE = "running_mean"
"""The baseline of the headline cell when a config names none (with ``DEFAULT_LR``, the cell the
write-up's headline numbers describe)."""


class ConfigError(ValueError):
    """A config field holds a value the study cannot run; ``str()`` is the one-line message."""

    def __init__(self, field: str, value: object, reason: str) -> None:
        self.field = field
        super().__init__(f"{field}: {_show(value)} {reason}")


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but a usage error (an unknown option, a missing one) is a ``ConfigError``: the
    one line naming the arguments that a command prints for any bad input, not argparse's usage
    text and error line. The line shows the arguments parsed (``sys.argv`` when none are given),
    which a subcommand's parser never sees whole."""

    parsing: ClassVar[list[str]] = []

    def parse_args(self, args: Sequence[str] | None = None,
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        ArgumentParser.parsing = list(sys.argv[1:] if args is None else args)
        return super().parse_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        raise ConfigError("arguments", " ".join(ArgumentParser.parsing),
                          f"are not usable: {message}")


def make_folder(field: str, folder: Path) -> None:
    """Create ``folder`` (and its parents) for a command's outputs, or raise the ``ConfigError``
    naming ``field`` that the command prints as its one line."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(field, str(folder), f"cannot be created ({error.strerror})") from None


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True)
class AnalysisConfig:
    """The ``[analysis]`` table: what the analysis of a study asks and with which margins, stated
    before the run. None of it changes a simulation, so none of it is in the runs' identity
    (``StudyConfig.content_hash``): editing it re-runs the analysis only.

    ``primary_budgets``: the checkpoints of the primary family; ``compared_budgets``: those at
    which the write-up tabulates paired comparisons (the primary ones when a config names none);
    ``headline_lr`` and ``headline_baseline``: the REINFORCE cell the headline numbers describe;
    ``reference``: the learner that does not train against which REINFORCE is compared and
    planned ("" for none declared: the first nested reference learner of the grid);
    ``same_simulation_as``: another study whose simulation this one repeats; ``sections``: the
    report's sections (``figures.sections``, by module name) that describe this study among the
    studies that make their table, and the parts a section reads from it (``seed_exercise``);
    ``headline_group_size``: the group size of the headline cells (0: none declared);
    ``curve_cut``: the largest budget a compute curve is fitted on, the larger ones held out to
    check its predictions (0: no curve); ``paper_role``: the part of the paper this study's
    numbers and figures take (``figures.named.ROLES``: "headline", "narrow", "groups"; "" for
    none), so that the paper names its studies by role, never by config."""

    deployment_pulls: int = DEFAULT_DEPLOYMENT_PULLS
    primary_budgets: tuple[int, ...] = ()
    compared_budgets: tuple[int, ...] = ()
    equivalence_margin: float = DEFAULT_EQUIVALENCE_MARGIN
    pass_rate_margin: float = DEFAULT_PASS_RATE_MARGIN
    ratio_margin: float = DEFAULT_RATIO_MARGIN
    same_simulation_as: str = ""
    headline_lr: float = DEFAULT_LR
    headline_baseline: str = DEFAULT_HEADLINE_BASELINE
    reference: str = ""
    sections: tuple[str, ...] = ()
    headline_group_size: int = 0
    curve_cut: int = 0
    paper_role: str = ""
    pass_rate_target: float = 0.0
    """The served pass rate whose budget a factorial study's parts are compared at
    (``analysis.prompts.factorial.tokens_to_target``); 0: none."""
    chosen_after_run: tuple[str, ...] = ()
    """The parts of a factorial study's analysis chosen after its runs had been read (of
    ``CHOSEN_AFTER_RUN``); the others were stated before the run."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form, as the analysis records it beside its tables."""
        return {key: _plain(value) for key, value in asdict(self).items()}


@dataclass(frozen=True)
class StudyConfig:
    """A validated study: who it is (name, root seed), how many seeds, and the grid of cells.

    ``streams`` is ``per_seed`` (the default: a run's random stream depends on the root seed and
    the seed index only, so cells are compared on common random numbers) or ``per_cell`` (each
    cell also mixes its own identity into the stream, for independent cells). ``environments``
    are the bandits of the grid: the entries of ``grid.probs`` (Bernoulli) and then of
    ``grid.means`` (Gaussian). ``curves`` asks for the per-step learning curves.
    """

    name: str
    root_seed: int
    seeds: int
    algorithm: tuple[str, ...]
    environments: tuple[Environment, ...]
    lr: tuple[float, ...]
    baseline: tuple[str, ...]
    cost: tuple[float, ...]
    budgets: tuple[int, ...]
    group_size: tuple[int, ...] = (1,)
    allocation: tuple[str, ...] = ("",)
    """The allocation rules of a many-prompts study (``grid.prompts``); ("",) for any other."""
    normalization: tuple[str, ...] = ("per_group",)
    """How a group update is normalised (``study.core.prompt_rules.NORMALIZATIONS``): it changes
    the update only where a prompt's group can differ from the configured G (a many-prompts
    study's non-uniform allocation rules); elsewhere the cells of both share one simulation."""
    streams: str = "per_seed"
    description: str = ""
    curves: bool = False
    analysis: AnalysisConfig = AnalysisConfig()
    budget_unit: str = BUDGET_UNITS[0]
    """What ``budgets`` count (``BUDGET_UNITS``)."""
    offpolicy: tuple[OffPolicy, ...] | None = None
    """The samplers of an off-policy study (``study.model.offpolicy``), an axis of its grid;
    None for every other study."""
    design: Design | None = None
    """The fractional factorial over the study's parts (``study.model.design``, ``[design]``);
    None for a study whose cells are its grid's whole product."""
    design_rows: tuple[tuple[tuple[Environment, ...], tuple[OffPolicy, ...] | None], ...] = ()
    """Each row of ``design``: the environments and samplers its levels make (the study's
    ``environments`` and ``offpolicy`` are their union); its cells are their product with the
    grid's other axes."""

    def with_seeds(self, seeds: int) -> StudyConfig:
        """The same study with another number of seeds (the CLI's ``--seeds``)."""
        return replace(self, seeds=_check_int("--seeds", seeds, 1, MAX_SEEDS))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form of the simulation (``analysis`` left out), as recorded in the
        manifest and in the simulation stamp (``simulation_text``)."""
        # The budget's unit only where it is not rollouts, a bandit's verdict only where it names
        # one: the simulations of every study before them keep the text, and so the hash, they
        # had.
        found = {key: _plain(value) for key, value in asdict(self).items()
                 if key not in ("analysis", "design", "design_rows")
                 and (key != "budget_unit" or value != BUDGET_UNITS[0])
                 and (key != "offpolicy" or value is not None)}
        if self.design is not None:
            found["design"] = self.design.to_dict()
        for env in found["environments"]:
            if not env["verdict"]:
                del env["verdict"], env["verdict_parameters"]
        return found

    def simulation_text(self) -> str:
        """The canonical JSON of the simulation (``to_dict``): what ``runs.parquet`` depends on,
        so make compares this text, not the TOML, before it simulates again."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def content_hash(self) -> str:
        """SHA-256 of ``simulation_text``: two configs that simulate the same thing have the same
        hash, whatever their TOML spelling and their ``[analysis]`` table."""
        return hashlib.sha256(self.simulation_text().encode()).hexdigest()


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
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
    return config_from_dict(data)


def config_from_dict(data: object) -> StudyConfig:
    """Validate a config given as the dict its TOML would parse to (``{"study": {...}, "grid":
    {...}, "analysis": {...}}``, lists as lists); raise ``ConfigError`` naming the first field
    that is wrong."""
    data = _table("config", data)
    _check_keys("config", data, {"study", "grid", "analysis", "design"},
                required={"study", "grid"})
    if "design" in data:
        return _designed(data)
    chosen = _table("analysis", data.get("analysis", {})).get("chosen_after_run", [])
    if chosen:
        raise ConfigError("analysis.chosen_after_run", chosen, "names parts of a factorial's "
                          "analysis, and the config has no [design]")
    return _undesigned(data)


def _undesigned(data: dict[str, Any]) -> StudyConfig:
    """A config without ``[design]`` (its keys checked), or one row of a design's."""
    study = _table("study", data["study"])
    grid = _table("grid", data["grid"])
    analysis = _table("analysis", data.get("analysis", {}))
    _check_keys("analysis", analysis, _ANALYSIS_KEYS, required=set())
    _check_keys("study", study, _STUDY_KEYS, required={"name", "root_seed", "seeds"})
    model = _reward_model(grid)
    verdict = _verdict(grid, model)
    _check_keys("grid", grid, _GRID_KEYS | {p.name for p in model.parameters}
                | {p.name for p in (verdict.parameters if verdict else ())}, required=set())
    unit = _budget_unit(grid)
    budgets_key = f"grid.{'token_' if unit == 'tokens' else ''}budgets"
    if "probs" not in grid and "means" not in grid:
        raise ConfigError("grid.probs", None, "is missing (give grid.probs, grid.means or both)")

    name = study["name"]
    if not isinstance(name, str) or not _NAME.match(name):
        raise ConfigError("study.name", name, "is not a name of letters, digits, '_', '-', '.'")
    streams = study.get("streams", "per_seed")
    if streams not in STREAM_MODES:
        raise ConfigError("study.streams", streams, f"is not one of {', '.join(STREAM_MODES)}")
    description = study.get("description", "")
    if not isinstance(description, str):
        raise ConfigError("study.description", description, "is not a string")
    curves = study.get("curves", False)
    if not isinstance(curves, bool):
        raise ConfigError("study.curves", curves, "is not true or false")

    budgets = tuple(_check_int(f"{budgets_key}[{i}]", b, 1, MAX_BUDGET)
                    for i, b in enumerate(_axis(budgets_key, grid[budgets_key[5:]])))
    for i in range(1, len(budgets)):
        if budgets[i] <= budgets[i - 1]:
            raise ConfigError(f"{budgets_key}[{i}]", budgets[i],
                              f"is not greater than the checkpoint before it ({budgets[i - 1]})")

    lr = _each(grid, "lr", [DEFAULT_LR], _number)
    algorithm = _choices("grid.algorithm", grid.get("algorithm", ["reinforce"]),
                         registry.names())
    baseline = _choices("grid.baseline", grid.get("baseline", ["running_mean"]),
                        registry.baselines())
    group_sizes = _each(grid, "group_size", [1],
                        lambda field, g: _check_int(field, g, 1, MAX_GROUP_SIZE))
    config = StudyConfig(
        name=name,
        root_seed=_check_int("study.root_seed", study["root_seed"], 0, 2**128 - 1),
        seeds=_check_int("study.seeds", study["seeds"], 1, MAX_SEEDS),
        algorithm=algorithm,
        environments=_environments(grid, model, verdict),
        lr=lr,
        baseline=baseline,
        cost=_each(grid, "cost", [0.0], _number),
        budgets=budgets,
        group_size=group_sizes,
        allocation=("",),
        normalization=_choices("grid.normalization", grid.get("normalization", ["per_group"]),
                               prompt_rules.NORMALIZATIONS),
        streams=streams,
        description=description,
        curves=curves,
        analysis=_analysis(analysis, budgets, lr, baseline, algorithm, group_sizes),
        budget_unit=unit,
    )
    _check_lengths(config, grid, model)
    config = replace(config, offpolicy=_offpolicy(config, grid))
    if "prompts" in grid or "allocation" in grid:
        return _many_prompts(config, grid)
    for i, entry in _populations(grid):
        raise ConfigError(f"grid.probs[{i}].draw", entry["draw"],
                          "is a dataset of many prompts, and grid.prompts is missing")
    _check_some_cell(config)
    return config


def _designed(data: dict[str, Any]) -> StudyConfig:
    """A study whose cells are the rows of a fractional factorial over its parts
    (``study.model.design``): each row's grid is the config's with the row's levels set, checked
    as a config of its own."""
    table = _table("design", data["design"])
    _check_keys("design", table, {"factor", "generators", "resolution"},
                required={"factor", "generators", "resolution"})
    grid = _table("grid", data["grid"])
    model = _reward_model(grid)
    verdict = _verdict(grid, model)
    settable = {*offpolicy_keys(), *(p.name for p in model.parameters),
                *(p.name for p in (verdict.parameters if verdict else ()))}
    entries = _axis("design.factor", table["factor"])
    factors = tuple(_factor(f"design.factor[{i}]", entry, settable, grid)
                    for i, entry in enumerate(entries))
    names = [factor.name for factor in factors]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise ConfigError(f"design.factor[{i}].name", name, "repeats an earlier factor")
    for i, factor in enumerate(factors):
        for key, _ in (*factor.low, *factor.high):
            other = next((f.name for f in factors[:i]
                          for k, _ in (*f.low, *f.high) if k == key), None)
            if other is not None and key != "correction":
                raise ConfigError(f"design.factor[{i}].{key}", factor.name,
                                  f"sets a key the factor {other} sets (only correction's parts "
                                  "join)")
    generators = table["generators"]
    if not isinstance(generators, str):
        raise ConfigError("design.generators", generators, "is not a string")
    design = Design(factors, generators)
    try:
        columns = design.matrix.shape[1]
    except (ValueError, IndexError, KeyError) as error:
        raise ConfigError("design.generators", generators, "is not pydoe.fracfact's generators "
                          f"(letters a, b, ... and their words: {error})") from None
    if columns != len(factors):
        raise ConfigError("design.generators", generators, f"makes {columns} columns for "
                          f"{len(factors)} factors")
    least = _check_int("design.resolution", table["resolution"], 3, len(factors) + 1)
    if design.resolution < least:
        raise ConfigError("design.generators", generators, f"makes a design of resolution "
                          f"{design.resolution}, below design.resolution {least}")
    scalars = {p.name for p in registry.correction_parameters()}
    rows = []
    rest = {key: value for key, value in data.items() if key != "design"}
    for keys in design.rows():
        levels = {key: value if key in scalars else [value] for key, value in keys.items()}
        rows.append(_undesigned({**rest, "grid": {**grid, **levels}}))
    if len({(row.environments, row.offpolicy) for row in rows}) < len(rows):
        raise ConfigError("design.factor", names, "makes two rows the same simulation (a "
                          "factor's levels set nothing that differs)")
    samplers = (None if rows[0].offpolicy is None else
                tuple(dict.fromkeys(s for row in rows for s in row.offpolicy or ())))
    return replace(rows[0], design=design,
                   environments=tuple(dict.fromkeys(e for row in rows
                                                    for e in row.environments)),
                   offpolicy=samplers,
                   design_rows=tuple((row.environments, row.offpolicy) for row in rows))


def _factor(field: str, value: object, settable: set[str], grid: dict[str, Any]) -> Factor:
    """One ``[[design.factor]]``: its name and its low and high levels, each a table of the grid
    keys it sets (none of them a grid axis too)."""
    entry = _table(field, value)
    _check_keys(field, entry, {"name", "low", "high", "role"}, required={"name", "low", "high"})
    role = entry.get("role", "")
    if role not in ("", *ROLES):
        raise ConfigError(f"{field}.role", role, f"is not one of {', '.join(ROLES)}")
    name = entry["name"]
    if not isinstance(name, str) or not _SECTION.fullmatch(name):
        raise ConfigError(f"{field}.name", name, "is not a name of lower-case words joined by _")
    levels = []
    for side in ("low", "high"):
        level = _table(f"{field}.{side}", entry[side])
        _check_keys(f"{field}.{side}", level, settable, required=set())
        for key, setting in level.items():
            if not isinstance(setting, int | float | str) or isinstance(setting, bool):
                raise ConfigError(f"{field}.{side}.{key}", setting, "is not a number or a name")
            if key in grid:
                raise ConfigError(f"grid.{key}", grid[key], f"is set by the design's factor "
                                  f"{name} (a key the design sets is not a grid key too)")
        levels.append(tuple(level.items()))
    if levels[0] == levels[1]:
        raise ConfigError(f"{field}.high", dict(levels[1]), "is the same as its low level")
    return Factor(name, levels[0], levels[1], role)


MAX_LAG = 1000
"""The largest staleness ``grid.lag`` allows (the kernel keeps lag + 2 copies of the logits)."""


def _offpolicy(config: StudyConfig, grid: dict[str, Any]) -> tuple[OffPolicy, ...] | None:
    """The off-policy samplers of the grid (``study.model.offpolicy``): the product of the axes
    ``grid.lag``, ``mismatch``, ``top_p``, ``correction``, ``kl_beta`` and ``kl_estimator``,
    each sampler with the single numbers of its correction's parameters (``clip_range``,
    ``tis_cap``, ... : ``study.corrections``); None where the grid names none of them. Only
    REINFORCE's group learner on a single bandit samples off policy."""
    if not any(key in grid for key in offpolicy_keys()):
        return None
    defaults = OffPolicy()
    lag = _each(grid, "lag", [0], lambda field, d: _check_int(field, d, 0, MAX_LAG))
    mismatch = _each(grid, "mismatch", [0.0], _mismatch)
    top_p = _each(grid, "top_p", [1.0], _probability_above_zero)
    corrections = _each(grid, "correction", ["none"], _correction)
    beta = _each(grid, "kl_beta", [0.0], _number)
    estimators = _choices("grid.kl_estimator", grid.get("kl_estimator", ["exact"]), ESTIMATORS)
    scalars = {}
    for parameter in registry.correction_parameters():
        field = f"grid.{parameter.name}"
        value = _number(field, grid.get(parameter.name, parameter.default))
        if not parameter.low <= value <= parameter.high:
            raise ConfigError(field, value, f"is outside [{parameter.low:g}, "
                              f"{parameter.high:g}] ({parameter.meaning})")
        scalars[parameter.name] = value
    _check_group_reinforce(config, "an off-policy study")

    def used(correction: str) -> tuple[tuple[str, float], ...]:
        # A sampler carries its correction's parameters alone: two cells whose corrections do
        # not read a parameter they differ in are one simulation.
        weight, masks = parse_correction(correction)
        return tuple((p.name, scalars[p.name]) for name in (weight, *sorted(masks))
                     for p in registry.correction(name).parameters)

    # Without a KL term the estimator changes nothing: one sampler, not one per estimator.
    return tuple(dict.fromkeys(
        OffPolicy(lag=d, mismatch=eps, top_p=p, correction=c, kl_beta=b,
                  kl_estimator=e if b > 0 else defaults.kl_estimator, parameters=used(c))
        for d in lag for eps in mismatch for p in top_p
        for c in corrections for b in beta
        for e in estimators))


def _check_group_reinforce(config: StudyConfig, study: str) -> None:
    """``study`` (a kind of study) trains REINFORCE's group update alone: its grid names no
    other learner and only group estimators."""
    if config.algorithm != ("reinforce",):
        raise ConfigError("grid.algorithm", list(config.algorithm),
                          f"is not [\"reinforce\"] ({study} trains REINFORCE's group update)")
    for i, name in enumerate(config.baseline):
        if name not in prompt_rules.ESTIMATORS:
            raise ConfigError(f"grid.baseline[{i}]", name, "is not a group estimator "
                              f"({', '.join(prompt_rules.ESTIMATORS)}), which {study} needs")


def _correction(field: str, value: object) -> str:
    """An off-policy correction (``study.model.offpolicy.parse_correction``)."""
    if not isinstance(value, str):
        raise ConfigError(field, value, "is not a string")
    try:
        parse_correction(value)
    except ValueError as error:
        raise ConfigError(field, value, str(error)) from None
    return value


def _probability_above_zero(field: str, value: object) -> float:
    """A number in (0, 1]."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise ConfigError(field, value, "is not a number in (0, 1]")
    return float(value)


def _budget_unit(grid: dict[str, Any]) -> str:
    """``tokens`` for a grid that gives ``token_budgets``, ``rollouts`` for ``budgets``; one of
    the two is required, not both."""
    given = [key for key in ("budgets", "token_budgets") if key in grid]
    if not given:
        raise ConfigError("grid.budgets", None, "is missing (give grid.budgets, or "
                          "grid.token_budgets for answers that cost tokens)")
    if len(given) > 1:
        raise ConfigError("grid.budgets", grid["budgets"],
                          "and grid.token_budgets are both given (give one)")
    return BUDGET_UNITS[given[0] == "token_budgets"]


def _check_lengths(config: StudyConfig, grid: dict[str, Any], model: RewardModel) -> None:
    """Answers with lengths (``grid.lengths``) are what a length-constraint reward model and
    token budgets need, and what only the nested learners run."""
    if all(env.lengths is None for env in config.environments):
        if model.lengths:
            raise ConfigError("grid.lengths", None, f"is missing (the reward model {model.name} "
                              "rewards answers by their length)")
        if config.budget_unit == "tokens":
            raise ConfigError("grid.lengths", None, "is missing (grid.token_budgets counts the "
                              "tokens of answers that have lengths)")
        return
    if len(config.cost) > 1:
        raise ConfigError("grid.cost", list(config.cost), "prices rollouts, whose number at a "
                          "checkpoint differs by seed when answers cost tokens: give one cost")
    for i, name in enumerate(config.algorithm):
        if not registry.learner(name).nested:
            raise ConfigError(f"grid.algorithm[{i}]", name,
                              "plans from a budget of rollouts: it does not run answers that "
                              "cost tokens")


def _many_prompts(config: StudyConfig, grid: dict[str, Any]) -> StudyConfig:
    """A many-prompts study (README, "Many prompts, one rollout budget"): ``grid.prompts`` (a list
    of dataset sizes P) crossed with the bandits of ``grid.probs``, each prompt a Bernoulli
    bandit trained by REINFORCE with a group estimator, under the rules of ``grid.allocation``
    (default ``uniform``); its groups may come from a stale, mismatched or truncated sampler
    (``grid.lag`` ...), be judged by another verdict and its answers cost tokens
    (``grid.lengths``: ``study.core.passes``)."""
    if "prompts" not in grid:
        raise ConfigError("grid.prompts", None, "is missing (grid.allocation needs it)")
    sizes = _each(grid, "prompts", None,
                  lambda field, p: _check_int(field, p, 1, prompt_rules.MAX_PROMPTS))
    allocation = _choices("grid.allocation", grid.get("allocation", ["uniform"]),
                          registry.allocation_names())
    _check_group_reinforce(config, "a many-prompts study")
    for i, size in enumerate(config.group_size):
        if size < prompt_rules.FLOOR:
            raise ConfigError(f"grid.group_size[{i}]", size, "is below 2 (a group estimator "
                              "needs a group of at least 2 rollouts)")
    for env in config.environments:
        if registry.reward_model(env.judged_by).values != "probs":
            raise ConfigError("grid.reward_model" if "means" not in grid else "grid.means",
                              env.judged_by, "does not judge pass or fail (a many-prompts "
                              "study's prompts are bandits of pass probabilities)")
    shaped = [env.reward for env in config.environments
              if registry.reward_model(env.reward).lengths]
    counting = [rule for rule in allocation if registry.allocation(rule).reads_passes]
    if shaped and counting:
        raise ConfigError("grid.allocation", list(allocation),
                          f"names {counting[0]}, which estimates a prompt's pass rate from its "
                          f"last group's passes and fails, beside the shaping {shaped[0]}, whose "
                          "rewards are not passes and fails")
    if config.curves:
        # The model defines a step of one run (its t-th rollout); a many-prompts run draws its
        # prompts' groups side by side in passes, so its t-th rollout is no one moment.
        raise ConfigError("study.curves", True,
                          "is per step of one run, and a many-prompts run's prompts share its "
                          "steps (grid.prompts makes it one): its readouts are per budget")
    for i, entry in _populations(grid):
        if len(sizes) > 1:
            # A population's environments and their shares are drawn for its dataset's size:
            # two sizes would be two populations under one text.
            raise ConfigError("grid.prompts", list(sizes), f"names more than one dataset size "
                              f"beside the population of grid.probs[{i}] (its environments are "
                              "drawn for one size)")
        quiet = sorted({env.judged_by for env in config.environments if not any(
            p.role for p in registry.reward_model(env.judged_by).parameters)})
        if entry.get("exact_share", 0.0) > 0.0 and quiet:
            verdict = quiet[0]
            raise ConfigError(f"grid.probs[{i}].exact_share", entry["exact_share"],
                              f"is above 0, and the verdict {verdict} has no noise for an exact "
                              "verifier to remove (no parameter with a role of "
                              f"{', '.join(NOISE_ROLES)})")
        if entry.get("length_spread", 0.0) > 0.0 and "lengths" not in grid:
            raise ConfigError(f"grid.probs[{i}].length_spread", entry["length_spread"],
                              "is above 0, and the answers have no lengths (grid.lengths)")
        held = [size for size in sizes if size < entry["environments"]]
        if held:
            raise ConfigError(f"grid.probs[{i}].environments", entry["environments"],
                              f"is more than the {held[0]} prompts of grid.prompts (an "
                              "environment holds at least one prompt)")
    environments = tuple(env.with_prompts(size).with_population_seed(config.root_seed)
                         for env in config.environments for size in sizes)
    return replace(config, environments=environments, allocation=allocation)


def _populations(grid: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """The populations of environments among ``grid.probs``' entries, with their places (each
    already checked as a bandit)."""
    return [(i, entry) for i, entry in enumerate(grid.get("probs", ()))
            if isinstance(entry, dict) and entry.get("draw") == population.NAME]


def _analysis(analysis: dict[str, Any], budgets: tuple[int, ...], lr: tuple[float, ...],
              baseline: tuple[str, ...], algorithm: tuple[str, ...],
              group_size: tuple[int, ...]) -> AnalysisConfig:
    """The ``[analysis]`` table, each key checked against the grid it analyses."""
    primary = _budgets_of(analysis, "primary_budgets", budgets)
    headline_lr = _number("analysis.headline_lr", analysis.get("headline_lr", DEFAULT_LR))
    if "headline_lr" in analysis and headline_lr not in lr:
        raise ConfigError("analysis.headline_lr", headline_lr, "is not one of grid.lr")
    headline_baseline = analysis.get("headline_baseline", DEFAULT_HEADLINE_BASELINE)
    if "headline_baseline" in analysis and headline_baseline not in baseline:
        raise ConfigError("analysis.headline_baseline", headline_baseline,
                          "is not one of grid.baseline")
    reference = analysis.get("reference", "")
    if reference != "" and (reference not in algorithm
                            or reference not in registry.references()):
        raise ConfigError("analysis.reference", reference, "is not one of grid.algorithm "
                          "that does not train")
    return AnalysisConfig(
        deployment_pulls=_check_int("analysis.deployment_pulls",
                                    analysis.get("deployment_pulls", DEFAULT_DEPLOYMENT_PULLS),
                                    1, 10**15),
        primary_budgets=primary,
        compared_budgets=(_budgets_of(analysis, "compared_budgets", budgets)
                          if "compared_budgets" in analysis else primary),
        equivalence_margin=_margin(analysis, "equivalence_margin", DEFAULT_EQUIVALENCE_MARGIN),
        pass_rate_margin=_margin(analysis, "pass_rate_margin", DEFAULT_PASS_RATE_MARGIN),
        ratio_margin=_ratio_margin(analysis),
        same_simulation_as=_study_name("analysis.same_simulation_as",
                                       analysis.get("same_simulation_as", "")),
        headline_lr=headline_lr, headline_baseline=headline_baseline, reference=reference,
        sections=_names("analysis.sections", analysis.get("sections", [])),
        headline_group_size=_one_of(analysis, "headline_group_size", group_size,
                                    "grid.group_size"),
        curve_cut=_one_of(analysis, "curve_cut", budgets[:-1], "grid.budgets but the last"),
        paper_role=_name("analysis.paper_role", analysis.get("paper_role", "")),
        pass_rate_target=(_probability_above_zero("analysis.pass_rate_target",
                                                  analysis["pass_rate_target"])
                          if "pass_rate_target" in analysis else 0.0),
        chosen_after_run=_chosen_after_run(analysis))


def _chosen_after_run(analysis: dict[str, Any]) -> tuple[str, ...]:
    """``analysis.chosen_after_run``: distinct names of ``CHOSEN_AFTER_RUN``, the tokens to the
    target only beside a ``pass_rate_target``."""
    value = analysis.get("chosen_after_run", [])
    if (not isinstance(value, list) or not all(v in CHOSEN_AFTER_RUN for v in value)
            or len(set(value)) != len(value)):
        raise ConfigError("analysis.chosen_after_run", value,
                          f"is not a list of distinct names of {', '.join(CHOSEN_AFTER_RUN)}")
    if "tokens_to_target" in value and "pass_rate_target" not in analysis:
        raise ConfigError("analysis.chosen_after_run", value, "names tokens_to_target, and "
                          "analysis.pass_rate_target is missing")
    return tuple(value)


def _one_of(analysis: dict[str, Any], key: str, allowed: tuple[int, ...], where: str) -> int:
    """``analysis.<key>``, an integer that must be one of ``allowed`` (0 when absent)."""
    if key not in analysis:
        return 0
    value = _check_int(f"analysis.{key}", analysis[key], 1, MAX_BUDGET)
    if value not in allowed:
        raise ConfigError(f"analysis.{key}", value, f"is not one of {where}")
    return value


def _name(field: str, value: object) -> str:
    """A name (of a part of the paper), or "" for none: lower-case words joined by underscores."""
    if not isinstance(value, str) or not (value == "" or _SECTION.fullmatch(value)):
        raise ConfigError(field, value, "is not a name such as \"headline\"")
    return value


def _names(field: str, value: object) -> tuple[str, ...]:
    """A list of names (of the report's sections): lower-case words joined by underscores."""
    if not isinstance(value, list) or not all(isinstance(v, str) and _SECTION.fullmatch(v)
                                              for v in value):
        raise ConfigError(field, value, "is not a list of names such as \"headline\"")
    return tuple(value)


def _budgets_of(analysis: dict[str, Any], key: str, budgets: tuple[int, ...]) -> tuple[int, ...]:
    """Checkpoints declared before the run under ``analysis.<key>``: each must be a budget of the
    grid."""
    if key not in analysis:
        return ()
    field = f"analysis.{key}"
    chosen = _unique(field, tuple(_check_int(f"{field}[{i}]", b, 1, MAX_BUDGET)
                                  for i, b in enumerate(_axis(field, analysis[key]))))
    for i, budget in enumerate(chosen):
        if budget not in budgets:
            raise ConfigError(f"{field}[{i}]", budget, "is not one of grid.budgets")
    return chosen


def _margin(analysis: dict[str, Any], key: str, default: float) -> float:
    margin = _number(f"analysis.{key}", analysis.get(key, default))
    if not 0 < margin < 0.5:
        raise ConfigError(f"analysis.{key}", margin, "is not in (0, 0.5)")
    return margin


def _study_name(field: str, value: object) -> str:
    """Another study's name ("" for none)."""
    if value != "" and (not isinstance(value, str) or not _NAME.match(value)):
        raise ConfigError(field, value, "is not a study name")
    return value


def _ratio_margin(analysis: dict[str, Any]) -> float:
    margin = _number("analysis.ratio_margin", analysis.get("ratio_margin", DEFAULT_RATIO_MARGIN))
    if not 1 < margin <= 10:
        raise ConfigError("analysis.ratio_margin", margin, "is not in (1, 10]")
    return margin


def _check_some_cell(config: StudyConfig) -> None:
    """A grid whose every combination is skipped (group estimators need a group of at least 2
    rollouts) has no cell to run."""
    for algorithm in config.algorithm:
        learner = registry.learner(algorithm)
        if not learner.trains or any(learner.accepts(b, g) for b in config.baseline
                                     for g in config.group_size):
            return
    raise ConfigError("grid.group_size", list(config.group_size),
                      f"leaves no cell for baselines {', '.join(config.baseline)} (group "
                      "estimators need a group_size of at least 2)")


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


def _each(grid: dict[str, Any], key: str, default: list[Any] | None,
          check: Callable[[str, object], T]) -> tuple[T, ...]:
    """The entries of the list ``grid.<key>`` (``default`` where it is absent), each checked by
    ``check(field, entry)`` and none repeated."""
    field = f"grid.{key}"
    return _unique(field, tuple(check(f"{field}[{i}]", entry) for i, entry in
                                enumerate(_axis(field, grid.get(key, default)))))


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


def _mismatch(field: str, value: object) -> float:
    """A sampler's logit noise: a number in [0, MAX_MISMATCH]."""
    value = _number(field, value)
    if value > MAX_MISMATCH:
        raise ConfigError(field, value, f"is above {MAX_MISMATCH:g}")
    return value


def _number(field: str, value: object) -> float:
    """A finite, non-negative real (ints are accepted as floats; booleans are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(field, value, "is not a number")
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ConfigError(field, value, "is not a finite number >= 0")
    return value


def _reward_model(grid: dict[str, Any]) -> RewardModel:
    """``grid.reward_model``: the model of the bandits under its values key (``probs`` or
    ``means``); the other key's bandits get the first model of the registry for it. Without it,
    the first model for ``probs`` (Bernoulli)."""
    name = grid.get("reward_model", _default_model("probs").name)
    # A list, not a set: a set hashes the value looked for, and a list or a table has no hash.
    if name not in [model.name for model in registry.reward_models()]:
        raise ConfigError("grid.reward_model", name,
                          f"is not one of {', '.join(m.name for m in registry.reward_models())}")
    return registry.reward_model(name)


def _verdict(grid: dict[str, Any], model: RewardModel) -> RewardModel | None:
    """``grid.verdict``: the verdict the length-constraint model ``model`` shapes (a model whose
    arms have pass probabilities and that is not a shaping itself: ``study.rewards``); None when
    not given (the model's default, the Bernoulli check)."""
    if "verdict" not in grid:
        return None
    name = grid["verdict"]
    verdicts = [m.name for m in registry.reward_models() if m.values == "probs" and not m.lengths]
    if name not in verdicts:
        raise ConfigError("grid.verdict", name, f"is not one of {', '.join(verdicts)}")
    if not model.lengths:
        shapings = [m.name for m in registry.reward_models() if m.lengths]
        raise ConfigError("grid.verdict", name, f"is the verdict a length-constraint reward model "
                          f"({', '.join(shapings)}) shapes; grid.reward_model {model.name} is a "
                          "verdict itself")
    return registry.reward_model(name)


def _default_model(key: str) -> RewardModel:
    return next(model for model in registry.reward_models() if model.values == key)


def _environments(grid: dict[str, Any], model: RewardModel,
                  verdict: RewardModel | None) -> tuple[Environment, ...]:
    """The bandits of ``grid.probs`` and then of ``grid.means``, each under its reward model,
    the entries crossed with the model's parameter axes (in the order the model declares
    them) and then with those of the verdict it shapes, if one is named."""
    found: list[Environment] = []
    lengths = _lengths(grid)
    for key in VALUE_KEYS:
        if key not in grid:
            continue
        chosen = model if model.values == key else _default_model(key)
        settings = _reward_settings(grid, chosen)
        if chosen.canonical is not None:
            # Combinations that simulate the same thing are one bandit of the grid.
            settings = list(dict.fromkeys(chosen.canonical(s) for s in settings))
        bandits = [_environment(f"grid.{key}[{i}]", entry, key)
                   for i, entry in enumerate(_axis(f"grid.{key}", grid[key]))]
        if lengths is not None:
            bandits = _with_lengths(bandits, lengths, grid.get("length_law", FIXED))
        judged = [(verdict.name, s) for s in _reward_settings(grid, verdict)] if (
            verdict is not None and chosen is model) else [("", ())]
        entries = tuple(env.with_reward(chosen.name, parameters).with_verdict(*judging)
                        for env in bandits for parameters in settings for judging in judged)
        found += _unique(f"grid.{key}", entries)
    return tuple(found)


def _lengths(grid: dict[str, Any]) -> list[list[float]] | None:
    """``grid.lengths``: one list of each arm's answer length per entry of ``grid.probs``, whole
    numbers of tokens from 1 for ``fixed`` lengths, means from 1 for ``geometric`` ones
    (``grid.length_law``); None when absent."""
    law = grid.get("length_law", FIXED)
    if law not in LENGTH_LAWS:
        raise ConfigError("grid.length_law", law, f"is not one of {', '.join(LENGTH_LAWS)}")
    if "lengths" not in grid:
        if "length_law" in grid:
            raise ConfigError("grid.lengths", None, "is missing (grid.length_law needs it)")
        return None
    if "means" in grid:
        raise ConfigError("grid.lengths", grid["lengths"],
                          "go with grid.probs only: answers to Gaussian arms have no length")
    if "probs" not in grid:
        raise ConfigError("grid.lengths", grid["lengths"], "go with grid.probs, which is missing")
    entries = _axis("grid.lengths", grid["lengths"])
    found = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, list):
            raise ConfigError(f"grid.lengths[{i}]", entry, "is not a list of arm lengths")
        for k, v in enumerate(entry):
            whole = law != FIXED or (not isinstance(v, bool) and isinstance(v, int | float)
                                     and float(v).is_integer())
            if not _is_number(v, 1.0, MAX_LENGTH) or not whole:
                raise ConfigError(f"grid.lengths[{i}][{k}]", v, (
                    f"is not a whole number of tokens in [1, {MAX_LENGTH:g}]" if law == FIXED
                    else f"is not a mean length in [1, {MAX_LENGTH:g}]"))
        found.append([float(v) for v in entry])
    return found


def _with_lengths(bandits: list[Environment], lengths: list[list[float]],
                  law: str) -> list[Environment]:
    """Each entry of ``grid.probs`` with its entry of ``grid.lengths`` (as many entries, each
    with one length per arm)."""
    if len(lengths) != len(bandits):
        raise ConfigError("grid.lengths", lengths, f"has {len(lengths)} entries for "
                          f"{len(bandits)} entries of grid.probs")
    for i, (env, entry) in enumerate(zip(bandits, lengths, strict=True)):
        if len(entry) != env.arms:
            raise ConfigError(f"grid.lengths[{i}]", entry, f"has {len(entry)} lengths for "
                              f"{env.arms} arms")
    return [env.with_lengths(tuple(entry), law)
            for env, entry in zip(bandits, lengths, strict=True)]


def _reward_settings(grid: dict[str, Any], model: RewardModel) -> list[tuple[float, ...]]:
    """Every combination of the model's parameter axes (``grid.<parameter>``, each a list of
    values in the parameter's range; its default alone when absent)."""
    axes = []
    for parameter in model.parameters:
        field = f"grid.{parameter.name}"
        values = tuple(float(_number(f"{field}[{i}]", v)) for i, v in
                       enumerate(_axis(field, grid.get(parameter.name, [parameter.default]))))
        for i, value in enumerate(values):
            if not parameter.low <= value <= parameter.high:
                raise ConfigError(f"{field}[{i}]", value, f"is outside [{parameter.low:g}, "
                                  f"{parameter.high:g}] ({parameter.meaning})")
        axes.append(_unique(field, values))
    settings = list(itertools.product(*axes))
    for setting in settings:
        reason = model.constraint(setting) if model.constraint else None
        if reason is not None:
            raise ConfigError(f"grid.{model.parameters[-1].name}",
                              dict(zip((p.name for p in model.parameters), setting, strict=True)),
                              reason)
    return settings


def _environment(field: str, value: object, key: str) -> Environment:
    """One entry of ``grid.probs`` or ``grid.means`` (``key``): a list of fixed arm values, or a
    table ``{draw = ..., arms = K, <parameters>}`` for values drawn per seed (under the key's
    first reward model; the caller sets the model)."""
    default = _default_model(key).name
    if isinstance(value, dict):
        return _drawn(field, value, key)
    what = "arm probabilities" if key == "probs" else "arm means"
    if not isinstance(value, list) or not 2 <= len(value) <= MAX_ARMS:
        raise ConfigError(field, value, f"is not a list of 2 to {MAX_ARMS} {what} "
                          "or a {draw = ...} table")
    for k, v in enumerate(value):
        if key == "probs" and not _is_number(v, 0.0, 1.0):
            raise ConfigError(f"{field}[{k}]", v, "is not a probability in [0, 1]")
        if key == "means" and not _is_number(v, -MAX_MEAN, MAX_MEAN):
            raise ConfigError(f"{field}[{k}]", v, f"is not a mean in [-{MAX_MEAN:g}, {MAX_MEAN:g}]")
    return Environment.fixed(value, default)


def _is_number(value: object, low: float, high: float) -> bool:
    return (not isinstance(value, bool) and isinstance(value, int | float)
            and low <= value <= high)


_DRAW_DEFAULTS = {"uniform": {"low": 0.0, "high": 1.0}, "beta": {},
                  "normal": {"mean": 0.0, "sd": 1.0}, population.NAME: {"sigma": 0.0}}


def _drawn(field: str, table: dict[str, Any], key: str) -> Environment:
    """A ``{draw = ..., arms = K, ...}`` table: which distribution, how many arms, its
    parameters (beta's a and b are required; the others default to uniform(0, 1), normal(0, 1))."""
    draw = table.get("draw")
    allowed = [name for name, values in DRAW_VALUES.items() if values == key]
    if draw not in allowed:
        raise ConfigError(f"{field}.draw", draw, f"is not one of {', '.join(allowed)}")
    _check_keys(field, table, {"draw", "arms", *DRAWS[draw]}, required={"arms"})
    arms = _check_int(f"{field}.arms", table["arms"], 2, MAX_ARMS)
    # A population's environments have the entry's arms each unless it says fewer.
    defaults = _DRAW_DEFAULTS[draw] | (
        dict(zip(population.PARAMETERS[-population.OPTIONAL:], population.defaults(arms),
                 strict=True)) if draw == population.NAME else {})
    params = []
    for name in DRAWS[draw]:
        value = table.get(name, defaults.get(name))
        if value is None:
            raise ConfigError(f"{field}.{name}", None, "is missing")
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(
                value):
            raise ConfigError(f"{field}.{name}", value, "is not a finite number")
        params.append(float(value))
    if draw == "uniform" and not 0.0 <= params[0] <= params[1] <= 1.0:
        raise ConfigError(f"{field}.low", params[0],
                          f"and high {params[1]:g} do not satisfy 0 <= low <= high <= 1")
    if draw == "beta":
        for name, value in zip(("a", "b"), params, strict=True):
            low, high = population.BETA_RANGE
            if not low <= value <= high:
                raise ConfigError(f"{field}.{name}", value, f"is outside [{low:g}, {high:g}]")
    if draw == "normal":
        if abs(params[0]) > MAX_MEAN:
            raise ConfigError(f"{field}.mean", params[0], f"is outside [-{MAX_MEAN:g}, "
                              f"{MAX_MEAN:g}]")
        if not 0.0 <= params[1] <= MAX_SD:
            raise ConfigError(f"{field}.sd", params[1], f"is outside [0, {MAX_SD:g}]")
    if draw == population.NAME:
        _check_population(field, params, arms)
        params = list(population.stated(tuple(params), arms))
    return Environment.drawn(draw, arms, tuple(params))


def _check_population(field: str, params: list[float], arms: int) -> None:
    """A population's law (``study.model.population``) is one numpy can sample: a whole number
    of environments, beta parameters and a concentration in the range a bandit's beta has, a
    spread of shares in [0, MAX_SIGMA], a whole number of fewest arms from 2 to the entry's
    arms, a share of exact verifiers in [0, 1] and a spread of lengths in [0,
    MAX_LENGTH_SPREAD]."""
    environments, a, b, concentration, sigma, fewest_arms, exact_share, length_spread = params
    if not fewest_arms.is_integer() or not 2 <= fewest_arms <= arms:
        raise ConfigError(f"{field}.fewest_arms", fewest_arms,
                          f"is not a whole number in [2, {arms}] (the entry's arms)")
    if not environments.is_integer() or not 1 <= environments <= prompt_rules.MAX_PROMPTS:
        raise ConfigError(f"{field}.environments", environments,
                          f"is not a whole number in [1, {prompt_rules.MAX_PROMPTS}]")
    low, high = population.BETA_RANGE
    for name, value in (("a", a), ("b", b), ("concentration", concentration)):
        if not low <= value <= high:
            raise ConfigError(f"{field}.{name}", value, f"is outside [{low:g}, {high:g}]")
    if not 0.0 <= sigma <= population.MAX_SIGMA:
        raise ConfigError(f"{field}.sigma", sigma, f"is outside [0, {population.MAX_SIGMA:g}]")
    if not 0.0 <= exact_share <= 1.0:
        raise ConfigError(f"{field}.exact_share", exact_share, "is outside [0, 1]")
    if not 0.0 <= length_spread <= population.MAX_LENGTH_SPREAD:
        raise ConfigError(f"{field}.length_spread", length_spread,
                          f"is outside [0, {population.MAX_LENGTH_SPREAD:g}]")


def _choices(field: str, value: object, known: tuple[str, ...]) -> tuple[str, ...]:
    names = _axis(field, value)
    for i, name in enumerate(names):
        if name not in known:
            raise ConfigError(f"{field}[{i}]", name, f"is not one of {', '.join(known)}")
    return _unique(field, tuple(names))
