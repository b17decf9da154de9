"""Settings named by lines between the runs of a file (``podnum=4`` before a wrk run), as columns of the runs.

A transcript that sweeps a setting often says its value on a line of its own before each run. Each run gets
the last value of each key said before its output starts (a value said before the first run holds until the file
says another). The reader marks each run of a text output as it parses the file (:func:`mark`: the text is in
memory then, never read again); :func:`with_sections` turns the marks into columns.

>>> import pandas as pd
>>> rows = [{"line": 2, "format": "wrk"}, {"line": 5, "format": "wrk"}]
>>> mark(rows, "podnum=1\\nwrk -c8 http://h/\\nout\\npodnum=2\\nwrk -c8 http://h/\\nout\\n")
>>> runs, keys = with_sections(pd.DataFrame(rows))
>>> runs["podnum"].tolist(), keys
([1.0, 2.0], ['podnum'])
"""

from __future__ import annotations

from functools import lru_cache

import pandas as pd

from .tokens import section_lines

__all__ = ["mark", "with_sections"]

#: Formats whose files are whole documents (JSON, CSV, logs of one request per line): no section lines.
_WHOLE = ("json", "csv", "gnuplot", "log", "xml", "typed", "state")
#: The private column of the marks (a tuple of (key, value) pairs per run: a run row holding no container is not
#: tracked by the garbage collector, whose full passes over a large read's rows made its cost grow faster than the
#: rows), dropped by :func:`with_sections`.
MARKS = "_sections"


def mark(runs: list[dict], text: str, found: list[tuple[int, str, float | str]] | None = None) -> None:
    """Set on each run row of a text output (in place) the settings that lines before its output name (``found``:
    those lines as :func:`section_lines` gives them, when known; else they are sought in ``text``)."""
    rows = [r for r in runs if r.get("line") is not None and _text_output(r.get("format", ""))]
    last = max((r["line"] for r in rows), default=0)
    if last <= 1:  # no line before any run's output (a clean output's run starts at its first line)
        return
    # (a byte-order mark before the first line is no part of it: `### Apache` after one is still a heading)
    if found is None:  # what no run starts after is no mark
        found = section_lines(_before_line(text.removeprefix("\ufeff"), last))
    if not found:
        return
    said: dict = {}  # the settings said before the run being marked: one sweep down the lines, not one per run
    k = 0
    marks = ()  # the runs under the same settings share one tuple (a sweep's log: thousands of runs, a few settings)
    for r in sorted(rows, key=lambda r: r["line"]):
        before = k
        while k < len(found) and found[k][0] < r["line"]:
            said[found[k][1]] = found[k][2]
            k += 1
        if k != before:  # a setting said since the run before
            marks = tuple(said.items())
        if marks:
            r[MARKS] = marks


@lru_cache(maxsize=256)
def _text_output(fmt: object) -> bool:
    """Whether a format is a text output's (not a whole document's: JSON, CSV, a log of requests).

    >>> _text_output("wrk"), _text_output("k6-summary-json")
    (True, False)
    """
    return not any(w in str(fmt) for w in _WHOLE)


def _before_line(text: str, line: int) -> str:
    """The lines of ``text`` before line ``line`` (1-based), each with its line end: a clean output's run starts at
    its first line, and no line is sought for the settings before it.

    >>> _before_line("a\\nb\\nc\\n", 3), _before_line("a\\nb\\n", 1), _before_line("a", 5)
    ('a\\nb\\n', '', 'a')
    """
    if line <= 1:
        return ""
    rest = text.split("\n", line - 1)  # the lines before, then the rest (split in C)
    return text if len(rest) < line else text[: len(text) - len(rest[-1])]


def with_sections(runs: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The runs with a column per setting the marks name (numbers numeric), and those columns' names."""
    if MARKS not in runs:
        return runs, []
    values = runs.pop(MARKS).tolist()
    # a list per key, filled from each run's (key, value) pairs: no dict made per run (a sweep's log marks every run
    # with a setting of its own); keys in the order first seen
    by_key: dict[str, list] = {}
    for i, m in enumerate(values):
        if isinstance(m, tuple):
            for key, value in m:
                column = by_key.get(key)
                if column is None:
                    column = by_key[key] = [None] * len(values)
                column[i] = value
    cols = []
    for key, column in by_key.items():
        col = key if key not in runs.columns else f"{key} (line)"
        cols.append(col)
        runs[col] = column
        num = pd.to_numeric(runs[col], errors="coerce")
        if num.notna().sum() == runs[col].notna().sum():
            runs[col] = num
    return runs, cols
