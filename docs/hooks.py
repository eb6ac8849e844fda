"""The docs' lists of the package's doors, generated from the registries when the site is built
(a mkdocs hook, ``mkdocs.yml``): a page holds a marker ``<!-- registry: <list> -->`` where a
list goes, so a new learner, reward model, correction or allocation rule appears in the docs
by itself. ``LISTS`` names each list and the function that writes it."""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib import import_module
from types import ModuleType

from study.model import registry

MARKER = re.compile(r"<!-- registry: (\w+) -->")


def _first_paragraph(module: ModuleType) -> str:
    """A module docstring's first paragraph on one line, for a table cell."""
    paragraph = (module.__doc__ or "").strip().split("\n\n", 1)[0]
    return " ".join(paragraph.split()).replace("|", "\\|")


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def learner_names() -> str:
    """Every learner's name, inline."""
    return _names(registry.names())


def learners() -> str:
    """A table: each learner, whether its runs are nested, what it does (its module's
    docstring's first paragraph)."""
    rows = ["| algorithm | runs nested | what it does |", "|---|---|---|"]
    for learner in registry.learners():
        rows.append(f"| `{learner.name}` | {'yes' if learner.nested else 'no'} | "
                    f"{_first_paragraph(import_module(f'study.learners.{learner.name}'))} |")
    return "\n".join(rows)


def reward_model_names() -> str:
    """Every reward model's name, inline, with its values key."""
    return "; ".join(f"`{model.name}` takes `{model.values}`"
                     + (" (and `lengths`)" if model.lengths else "")
                     for model in registry.reward_models())


def reward_models() -> str:
    """A table: each reward model, its values key, its parameters and its reward."""
    rows = ["| reward model | the arm's value | parameters | the reward of a pull |",
            "|---|---|---|---|"]
    for model in registry.reward_models():
        parameters = ", ".join(f"`{p.name}` in [{p.low:g}, {p.high:g}] (default {p.default:g})"
                               for p in model.parameters) or "none"
        rows.append(f"| `{model.name}` | `{model.values}` | {parameters} | {model.summary} |")
    return "\n".join(rows)


def weights() -> str:
    """The corrections that weight a rollout, inline."""
    return _names(registry.corrections_of("weight"))


def masks() -> str:
    """The masks and the support, inline."""
    return _names((*registry.corrections_of("mask"), *registry.corrections_of("support")))


def corrections() -> str:
    """A table: each correction, its kind, its parameters, what it does and its source."""
    rows = ["| correction | kind | parameters | what it does | from |", "|---|---|---|---|---|"]
    for item in registry.corrections():
        parameters = ", ".join(f"`{p.name}` (default {p.default:g})"
                               for p in item.parameters) or "none"
        rows.append(f"| `{item.name}` | {item.kind} | {parameters} | {item.summary} | "
                    f"{item.source or 'the package'} |")
    return "\n".join(rows)


def correction_parameters() -> str:
    """The config reference's rows of the corrections' parameters."""
    rows = []
    for item in registry.corrections():
        for p in item.parameters:
            rows.append(f"| `{p.name}` | number | `{p.default:g}` | off-policy, `{item.name}`: "
                        f"{p.meaning}, in `[{p.low:g}, {p.high:g}]` |")
    return "\n".join(rows)


def allocation_names() -> str:
    """Every allocation rule's name, inline."""
    return _names(registry.allocation_names())


def allocations() -> str:
    """A table: each allocation rule, the group sizes it gives, whether its groups are whole and
    its first pass uniform allocation's, and its source."""
    rows = ["| allocation | the group sizes of a pass | whole groups | first pass uniform's | "
            "from |", "|---|---|---|---|---|"]
    for rule in registry.allocations():
        rows.append(f"| `{rule.name}` | {rule.summary} | "
                    f"{'yes' if rule.whole_groups else 'no'} | "
                    f"{'yes' if rule.uniform_first_pass else 'no'} | "
                    f"{rule.source or 'the package'} |")
    return "\n".join(rows)


LISTS: dict[str, Callable[[], str]] = {
    "learner_names": learner_names, "learners": learners,
    "reward_model_names": reward_model_names, "reward_models": reward_models,
    "weights": weights, "masks": masks, "corrections": corrections,
    "correction_parameters": correction_parameters,
    "allocation_names": allocation_names, "allocations": allocations}
"""Each list a page may ask for, by its marker's name."""


def expand(markdown: str) -> str:
    """``markdown`` with every marker replaced by its list; KeyError naming an unknown one."""
    def replaced(match: re.Match[str]) -> str:
        if match.group(1) not in LISTS:
            raise KeyError(f"no registry list {match.group(1)!r}: one of {', '.join(LISTS)}")
        return LISTS[match.group(1)]()
    return MARKER.sub(replaced, markdown)


def on_page_markdown(markdown: str, **_: object) -> str:
    """mkdocs' hook: a page's markdown with its lists."""
    return expand(markdown)
