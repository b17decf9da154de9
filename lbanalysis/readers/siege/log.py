"""siege.log: the CSV that ``siege -l`` / ``--log[=FILE]`` appends to, one row per run.

Format (siege 2.x-4.x, ``src/log.c``; the header is written when the file
is created, each run appends one row, ``-m``/``--mark`` appends a mark line
*before* the run's row)::

          Date & Time,  Trans,  Elap Time,  Data Trans,  Resp Time,  Trans Rate,  Throughput,  Concurrent,    OKAY,   Failed
    **** first mark ****
    2026-11-22 12:51:40,      4,       0.01,           0,       0.00,      400.00,        0.00,        2.00,       4,       0
    2012-03-12 12:21:55,      0,       9.80,           0,        nan,        0.00,        0.00,        0.00,       0,     105
    **** siege aborted due to excessive socket failure. ****

The row is ``"%s,%7d,%11.2f,%12u,%11.2f,%12.2f,%12.2f,%12.2f,%8d,%8d"`` of
``date, count, elapsed, MB, ttime/count, count/elapsed, MB/elapsed,
ttime/elapsed, code, failed``.

=========== ========================= =========================================
column      run column                unit as written -> stored
=========== ========================= =========================================
Date & Time ``timestamp``             local time of the end of the run (no zone)
Trans       ``requests``              count
Elap Time   ``duration_s``            s
Data Trans  ``bytes_total``           **whole** MB (2^20 B), truncated -> B
Resp Time   ``latency_mean_s``        s (``nan``/``inf`` when Trans is 0)
Trans Rate  ``requests_per_s``        1/s
Throughput  ``bytes_per_s``           whole MB / elapsed -> B/s
Concurrent  ``concurrency_achieved``  mean open transactions (not -c)
OKAY        ``requests_ok``           count (siege's "Successful transactions")
Failed      ``failed``                count
=========== ========================= =========================================

Precision caveat: ``write_to_log()`` takes the megabytes as an ``int``, so
``Data Trans`` is the MB count **truncated** to a whole number (a run that
moved 0.99 MB logs 0), and the log's ``Throughput`` is computed from that
truncated number. ``bytes_total`` = value x 2^20 is therefore a lower bound,
up to 1 MiB short, and ``bytes_per_s`` likewise (both 0 for small runs).
Checked live with 4.0.7: a run printed ``Data transferred: 5.72 MB`` and
``Throughput: 114.44 MB/sec``; its log row says ``5`` and ``100.00``
(= 5 / 0.05 s). The log has no configured concurrency, URL or version.

Marks: a line ``**** text ****`` (``mark_log_file()``) labels the runs that
follow it (``label``) until the next mark. ``**** siege aborted due to
excessive socket failure. ****`` is written *after* an aborted run's row: it
sets ``error`` on that run and is not a label. A run with no transaction is
a failed run (``error`` set).

Known defects of real files: ``nan``, ``-nan`` and ``inf`` values (C
``printf`` of 0/0 and x/0 when a run has no transaction; 4.0.7 writes
``inf`` as Resp Time and ``-nan`` in Trans Rate, Throughput and Concurrent)
become NaN; rows whose numbers outgrew their widths are wider than the
header (read by the commas, not by position) and fields that ran together
without a comma are split by their printed form (counts are integers, the
rest have two decimals); the header may carry bytes that are not UTF-8 (a
GBK label, read as U+FFFD by :func:`lbanalysis.text.decode`); a file may
carry an extra first column before ``Date & Time`` (a mark column, or a
run label typed into the file: the public file with a GBK header names it
"框架", "framework"): its value becomes ``label`` and wins over a mark; a
file may hold several headers (logs concatenated). Rows that cannot be
read become runs with ``error`` set; lines that are no row, mark or header
are ignored.

Versions checked: siege 4.0.7 (live, Debian 12), logs of siege 2.70-4.x
(public files from 2012-2022), ``src/log.c`` of 3.x and 4.x.

>>> p = parse(Segment("      Date & Time,  Trans,  Elap Time,  Data Trans,  Resp Time,  Trans Rate,  Throughput,  "
...                   "Concurrent,    OKAY,   Failed\\n**** A ****\\n"
...                   "2012-03-12 05:00:31,    157,       9.07,          22,       0.82,       17.31,        2.43,"
...                   "       14.13,     157,       2\\n"))
>>> r = p.runs[0]
>>> r["label"], r["requests"], r["bytes_total"], r["timestamp"].isoformat()
('A', 157, 23068672.0, '2012-03-12T05:00:31')
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime

from ...text import Segment
from ..base import NO_ANSWER, Format, LineKind, Parsed, printed_step, scan, to_float, to_int

MB = 1024.0 * 1024.0

# The nine values after the date: (column, kind, factor).
COLUMNS: tuple[tuple[str, str, float], ...] = (
    ("requests", "int", 1.0),
    ("duration_s", "float", 1.0),
    ("bytes_total", "intfloat", MB),
    ("latency_mean_s", "float", 1.0),
    ("requests_per_s", "float", 1.0),
    ("bytes_per_s", "float", MB),
    ("concurrency_achieved", "float", 1.0),
    ("requests_ok", "int", 1.0),
    ("failed", "int", 1.0),
)
HEADER_NAMES = (
    "Trans",
    "Elap Time",
    "Data Trans",
    "Resp Time",
    "Trans Rate",
    "Throughput",
    "Concurrent",
    "OKAY",
    "Failed",
)

_HEADER_RE = re.compile(r"Date\s*&\s*Time\s*,\s*Trans\s*,\s*Elap Time", re.IGNORECASE)
_MARK_RE = re.compile(r"^\s*\*{4}\s?(.*?)\s?\*{4}\s*$")
_ABORT_RE = re.compile(r"siege aborted due to excessive socket failure", re.IGNORECASE)
_ROW_RE = re.compile(
    r"^\s*(?:(?P<label>[^,\n]*?)\s*,\s*)??(?P<date>\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2})\s*,(?P<rest>.*)$"
)
_NUM = r"(?:[-+]?nan|[-+]?inf|-?\d+\.\d\d|-?\d+)"
_TOKEN_RE = re.compile(r"[-+]?nan|[-+]?inf|-?\d+\.\d\d|-?\d+", re.IGNORECASE)
_CELL_RE = re.compile(r"^\s*" + _NUM + r"\s*$", re.IGNORECASE)
_DETECT_ROW_RE = re.compile(r"^\s*(?:[^,\n]*,\s*)?\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\s*-?\d+,")


def detect(text: str) -> bool:
    """True when the text is a siege.log (header, mark or row near the top).

    >>> detect("      Date & Time,  Trans,  Elap Time,  Data Trans,  Resp Time,  Trans Rate,  Throughput, ...\\n")
    True
    >>> detect("** SIEGE 4.0.7\\nTransactions:  5 hits\\n")
    False
    """
    lines = text.split("\n", 12)[:12]  # the loop below looks no further
    head = "\n".join(lines)
    # Cheap guard (this runs on every file read): a header, a mark, or a
    # dated row (at the start of a line, or after a leading label column).
    if not ("Date" in head or "****" in head or ", 19" in head or ", 20" in head or head.lstrip()[:2] in ("19", "20")):
        return False
    seen = 0
    for line in lines:
        if not line.strip():
            continue
        if _HEADER_RE.search(line) or _DETECT_ROW_RE.match(line):
            return True
        if not _MARK_RE.match(line):
            seen += 1
        if seen >= 3:
            break
    return False


def _values(rest: str) -> list[str] | None:
    """The nine value strings of a row, after the date; None if unreadable."""
    cells = [c.strip() for c in rest.split(",")]
    while cells and not cells[-1]:
        cells.pop()
    if len(cells) >= 9 and all(_CELL_RE.match(c) for c in cells[:9]):
        return cells[:9]
    # Fields that ran together (no comma between them): split by printed form.
    toks = _TOKEN_RE.findall(rest)
    if len(toks) == 9:
        return toks
    return None


def _row(values: list[str]) -> dict:
    d: dict = {}
    for (col, kind, factor), raw in zip(COLUMNS, values, strict=True):
        if kind == "int":
            d[col] = to_int(raw)
        else:
            v = to_float(raw)
            d[col] = None if v is None else v * factor
            step = printed_step(raw) if col == "latency_mean_s" else None
            if step is not None:
                d["latency_mean_step_s"] = step * factor
    return d


def _run_row(m: re.Match, line: str, n: int, label: str | None) -> dict:
    """One row of the log as a run (its own -m label, else the last marker line's)."""
    d: dict = {"tool": "siege", "format": "siege-log", "line": n}
    try:
        d["timestamp"] = datetime.strptime(m.group("date").replace("T", " "), "%Y-%m-%d %H:%M:%S")
    except ValueError:
        d["warnings"] = f"unreadable date {m.group('date')!r}"
    own = (m.group("label") or "").strip()
    if own or label is not None:
        d["label"] = own or label
    values = _values(m.group("rest"))
    if values is None:
        d["error"] = f"unreadable siege.log row: {line[:120]}"
        return d
    d.update(_row(values))
    if len([c for c in m.group("rest").split(",") if c.strip()]) > 9:
        d["warnings"] = "row has more fields than siege writes; extra fields ignored"
    if d.get("requests") == 0:
        failed = d.get("failed")
        d["error"] = "no transaction completed" + (f" ({failed} failed)" if failed else "")
        d["error_kind"] = NO_ANSWER
    for k in ("latency_mean_s", "requests_per_s", "bytes_per_s", "concurrency_achieved", "duration_s"):
        v = d.get(k)
        if v is not None and math.isinf(v):
            d[k] = float("nan")
    return d


@dataclass
class _Reader:
    """The runs of one log, and the label of the last ``-m`` mark read."""

    out: Parsed = field(default_factory=Parsed)
    label: str | None = None


def _mark(rd: _Reader, n: int, m: re.Match) -> None:
    text = m.group(1).strip()
    if not _ABORT_RE.search(text):
        rd.label = text  # a -m marker names the runs after it
    elif rd.out.runs:  # an abort notice belongs to the run before it
        prev = rd.out.runs[-1]
        prev["error"] = f"{prev['error']}; {text}" if prev.get("error") else text


def _ignored(rd: _Reader, n: int, m: re.Match) -> None:
    """A header line (logs concatenated hold several)."""


def _run(rd: _Reader, n: int, m: re.Match) -> None:
    rd.out.runs.append(_run_row(m, m.string, n, rd.label))  # each row is one run


#: The lines of a siege.log, in the order they are tried (first match wins; see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("mark", "****", _MARK_RE, _mark),
    LineKind("header", "", _HEADER_RE, _ignored, search=True),
    LineKind("row", ",", _ROW_RE, _run),
]


def parse(seg: Segment) -> Parsed:
    """Read every run of a siege.log (see the module docstring)."""
    return scan(seg.text, LINE_KINDS, _Reader(), prepare=lambda n, line: line.strip()).out


FORMATS = [
    Format(
        "siege-log",
        "siege",
        detect,
        parse,
        whole_file=True,
        description="siege.log CSV written by siege -l/--log (one row per run, -m marks)",
    )
]

__all__ = ["COLUMNS", "FORMATS", "HEADER_NAMES", "LINE_KINDS", "detect", "parse"]
