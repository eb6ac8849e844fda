"""requirements.lock: every dependency pinned to one version that pyproject.toml allows, and the
versions this environment runs with are the lock's (``make venv`` installs from it)."""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parent.parent


def locked() -> dict[str, str]:
    """The lock's pins that apply here (their markers hold), by canonical name."""
    pins = {}
    for line in (REPO / "requirements.lock").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        requirement = Requirement(line)
        assert len(requirement.specifier) == 1, line
        (pin,) = requirement.specifier
        assert pin.operator == "==", line
        if requirement.marker is None or requirement.marker.evaluate():
            pins[canonicalize_name(requirement.name)] = pin.version
    return pins


def test_every_dependency_of_pyproject_is_pinned_within_its_range() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    pins = locked()
    for line in [*project["dependencies"], *project["optional-dependencies"]["dev"]]:
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is not in requirements.lock (make lock)"
        assert requirement.specifier.contains(pins[name]), (name, pins[name])


def test_the_environment_runs_the_locked_versions() -> None:
    for name, pinned in locked().items():
        try:
            installed = version(name)
        except PackageNotFoundError:
            raise AssertionError(f"{name}=={pinned} is locked but not installed") from None
        assert installed == pinned, f"{name}: {installed} installed, {pinned} locked (make venv)"
