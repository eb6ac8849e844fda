"""The study's cells, each described once (``analysis.questions.cells``)."""

from analysis.questions.cells import TABLE, TEST, table

__all__ = ["TABLE", "TEST", "table"]
