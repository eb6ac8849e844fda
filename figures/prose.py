"""Prose from templates: the report's sentences live in Jinja2 templates (``figures/templates/``),
filled only with named numbers (``figures.numbers``) and phrases without digits that the data
chose; the Python of a section (``figures.sections``) selects and computes, it writes no
sentence. A template types no digit: the report refuses one in its prose, as it refuses one in
Python's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

TEMPLATES = Path(__file__).parent / "templates"

_ENVIRONMENT = Environment(loader=FileSystemLoader(TEMPLATES), undefined=StrictUndefined,
                           trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                           autoescape=False)
"""``StrictUndefined``: a name a template uses that its section did not give is an error, not an
empty string in the report."""


def render(template: str, **context: Any) -> str:
    """The text of ``templates/<template>`` with ``context``."""
    return _ENVIRONMENT.get_template(template).render(**context)
