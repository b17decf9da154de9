"""The package's own exceptions and warnings.

Every error a user can cause with bad input is a :class:`LBAnalysisError`
(a :class:`ValueError`) that names the file, and the line and the text where
that helps, and says what was expected.

>>> e = ParseError("expected a number", source="ab.txt", line=12, text="Requests per second: abc")
>>> print(e)
ab.txt:12: expected a number
    Requests per second: abc
"""

from __future__ import annotations

__all__ = ["FitError", "LBAnalysisError", "ParseError", "SkippedFileWarning", "UnknownFormatError"]


class LBAnalysisError(ValueError):
    """Base class of lbanalysis's errors."""


class ParseError(LBAnalysisError):
    """Input that could not be read: carries ``source``, ``line`` and ``text``."""

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None, text: str | None = None):
        self.message = message
        self.source = source
        self.line = line
        self.text = text
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.source or "<input>"
        if self.line is not None:
            where += f":{self.line}"
        s = f"{where}: {self.message}"
        if self.text:
            s += "\n    " + self.text[:200]
        return s

    def __reduce__(self):  # picklable across worker processes
        return (_rebuild, (type(self), self.message, self.source, self.line, self.text))


def _rebuild(cls, message, source, line, text):
    return cls(message, source=source, line=line, text=text)


class UnknownFormatError(ParseError):
    """No reader recognised the input; the message lists the known formats."""


class FitError(LBAnalysisError):
    """A model could not be fitted to the data given (too few loads, no convergence)."""


class SkippedFileWarning(UserWarning):
    """A file was skipped by ``read(..., errors="warn")``."""
