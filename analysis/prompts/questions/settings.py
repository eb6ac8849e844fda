"""The study's ``[analysis]`` settings (``analysis.questions.settings``)."""

from analysis.questions.settings import TABLE, TEST, table

__all__ = ["TABLE", "TEST", "table"]
