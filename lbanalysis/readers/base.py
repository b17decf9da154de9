"""What every reader module provides, and the small helpers they share.

A reader module defines one or more :class:`Format` objects in a
module-level ``FORMATS`` list. A format has a ``detect(text) -> bool`` that
peeks at normalized text, and a ``parse(segment) -> Parsed`` that returns
plain Python rows under the column names of :mod:`lbanalysis.schema`.

Rows in ``Parsed.runs`` are one dict per run. Rows of detail tables carry a
``run`` key: the index of their run in ``Parsed.runs``. The dispatcher fills
``source`` and renumbers runs across the segments of a file. A run may give
``line`` relative to its segment text (1-based); the dispatcher makes it
absolute.

>>> p = Parsed([{"tool": "ab", "requests": 5}], {"percentiles": [{"run": 0, "percentile": 50.0, "latency_s": 0.1}]})
>>> p.n_runs
1
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from ..errors import ParseError
from ..text import Segment

__all__ = ["Format", "ParseError", "Parsed", "Segment", "error_row", "to_float", "to_int"]


@dataclass
class Parsed:
    """Runs (list of dicts) and detail tables (list of dicts or a frame) read from one segment."""

    runs: list[dict] = field(default_factory=list)
    tables: dict[str, list[dict] | pd.DataFrame] = field(default_factory=dict)
    #: outputs that are not tests (help, version banners, bare commands): line, tool, command, kind
    not_runs: list[dict] = field(default_factory=list)

    @property
    def n_runs(self) -> int:
        return len(self.runs)

    def add_run(self, run: dict, **details: list[dict]) -> int:
        """Append one run and its detail rows (``intervals=[...]``); returns its index.

        >>> p = Parsed()
        >>> p.add_run({"tool": "iperf3"}, intervals=[{"start_s": 0.0}, {"start_s": 1.0}])
        0
        >>> p.tables["intervals"][1]
        {'run': 0, 'start_s': 1.0}
        """
        i = len(self.runs)
        self.runs.append(run)
        for name, rows in details.items():
            if rows:
                self.tables.setdefault(name, []).extend({"run": i, **r} for r in rows)  # type: ignore[union-attr]
        return i

    def extend(self, other: Parsed) -> None:
        """Append another result, renumbering its runs after ours."""
        offset = len(self.runs)
        self.runs.extend(other.runs)
        self.not_runs.extend(other.not_runs)
        for name, rows in other.tables.items():
            if isinstance(rows, pd.DataFrame):
                rows = rows.assign(run=rows["run"] + offset) if offset else rows
            else:
                rows = [{**r, "run": r["run"] + offset} for r in rows] if offset else rows
            mine = self.tables.get(name)
            if mine is None:
                self.tables[name] = rows
            elif isinstance(mine, pd.DataFrame) or isinstance(rows, pd.DataFrame):
                self.tables[name] = pd.concat([pd.DataFrame(mine), pd.DataFrame(rows)], ignore_index=True)
            else:
                mine.extend(rows)


@dataclass(frozen=True)
class Format:
    """One input format: its name, tool, detector and parser.

    ``whole_file`` formats are tried on the whole file before it is split
    into transcript segments (CSV logs, TSV, JSON documents). ``parse_path``
    is an optional fast path used when the input is a file on disk, called as
    ``parse_path(path, source, tables, executor=None)`` (``tables``: the
    detail tables the caller wants, None for all; see :meth:`Segment.wants`;
    ``executor``: the caller's thread pool, from ``read(..., executor=)``).
    """

    name: str
    tool: str
    detect: Callable[[str], bool]
    parse: Callable[[Segment], Parsed]
    whole_file: bool = False
    parse_path: Callable[..., Parsed] | None = None
    description: str = ""


_NUM_RE = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def printed_step(text: str | None) -> float | None:
    """The step of a number as printed: 0.01 for ``0.01`` or ``12.50``, 1 for ``7``; None if no number.

    A value printed to this step lies within half a step of the printed one.

    >>> printed_step("0.01 secs"), printed_step("12.50"), printed_step("7"), printed_step("nan"), printed_step("-")
    (0.01, 0.01, 1.0, None, None)
    """
    if text is None:
        return None
    head = text.split(None, 1)
    if not head:
        return None
    num = head[0]
    try:
        if not math.isfinite(float(num)):
            return None
    except ValueError:
        return None
    mantissa, _, exponent = num.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


def to_float(text: str | None) -> float | None:
    """First number in text as float (``nan``/``inf`` understood), else None.

    >>> to_float("  12.5 [ms] (mean)"), to_float("nan"), to_float("-"), to_float("1,234")
    (12.5, nan, None, 1.0)
    """
    if text is None:
        return None
    head = text.split(None, 1)
    if head:
        try:
            v = float(head[0])
            return float("nan") if v != v else v
        except ValueError:
            pass
    m = _NUM_RE.search(text)
    return float(m.group(0)) if m else None


def to_int(text: str | None) -> int | None:
    """First number in text as int, else None.

    >>> to_int("Complete requests:      1000"), to_int("none")
    (1000, None)
    """
    v = to_float(text)
    if v is None or v != v or v in (float("inf"), float("-inf")):
        return None
    return round(v)


def error_row(tool: str, message: str, **extra) -> dict:
    """A run row for a run that produced no result (error set, figures empty)."""
    return {"tool": tool, "error": message, **extra}
