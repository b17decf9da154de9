"""The report tables of sysstat (mpstat, sar, pidstat), read in one line grammar: a header, rows, averages.

::

    Linux 6.1.0-18-amd64 (lb-01) \t11/27/2026 \t_x86_64_\t(2 CPU)

    14:40:01     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle
    14:40:02     all   10.00    0.00    5.00    0.00    0.00    2.00    0.00    0.00    0.00   83.00
    14:40:02       0   12.00    0.00    6.00    0.00    0.00    3.00    0.00    0.00    0.00   79.00

    Average:     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle
    Average:     all   10.00    0.00    5.00    0.00    0.00    2.00    0.00    0.00    0.00   83.00

A header line starts with a clock (``14:40:01`` or ``02:40:01 PM``) or
``Average:`` and names the columns; each row after it gives their values.
The columns are read by name (:data:`PERCENT`); the host, the date and the
cores come from the first line (:func:`lbanalysis.readers.cpu.shared.sysstat_header`).
A row's time is its clock on the header's date (sysstat prints the end of
each interval), its ``interval_s`` the time since the row before of the
same scope; ``Average:`` rows are the tool's own means (``summary``
'average').

>>> text = ("Linux 6.1.0 (web-1) \\t11/27/2026 \\t_x86_64_\\t(2 CPU)\\n\\n"
...         "14:40:01     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle\\n"
...         "14:40:02     all   10.00    0.00    5.00    0.00    0.00    2.00    0.00    0.00    0.00   83.00\\n")
>>> r = read_tables(Segment(text), "mpstat")[0]
>>> r["host"], r["time"], r["scope"], r["busy_pct"], r["cores"]
('web-1', '2026-11-27 14:40:02', 'all', 17.0, 2.0)
"""

from __future__ import annotations

import re
from datetime import datetime

from ...errors import ParseError
from ...text import Segment
from ..base import LineKind, scan, to_float
from .shared import SYSSTAT_HEADER_RE, clock_time, cpu_row, sysstat_header

__all__ = ["LINE_KINDS", "PERCENT", "read_tables"]

#: sysstat's columns -> cpu columns (the same name in mpstat, sar -u, sar -u ALL, pidstat and iostat)
PERCENT: dict[str, str] = {
    "%usr": "user_pct",
    "%user": "user_pct",
    "%nice": "nice_pct",
    "%sys": "system_pct",
    "%system": "system_pct",
    "%iowait": "iowait_pct",
    "%irq": "irq_pct",
    "%soft": "softirq_pct",
    "%steal": "steal_pct",
    "%idle": "idle_pct",
    "%CPU": "cpu_pct",
    "PID": "pid",
    "runq-sz": "run_queue",
}

_CLOCK = r"\d\d:\d\d:\d\d(?: [AP]M)?"
_HEADER_RE = re.compile(
    rf"^(?P<when>{_CLOCK}|Average:)\s+(?P<names>(?:[A-Za-z#][\w-]*|%\w+)(?:\s+(?:%\w+|[A-Za-z][\w-]*))+)$"
)
_ROW_RE = re.compile(rf"^(?P<when>{_CLOCK}|Average:)\s+(?P<cells>\S.*)$")


class _Reader:
    def __init__(self, seg: Segment, tool: str) -> None:
        self.seg, self.tool = seg, tool
        self.head: dict = {}
        self.names: list[str] | None = None
        self.rows: list[dict] = []
        self.last: dict[str, datetime] = {}

    def first(self, n: int, m: re.Match) -> None:
        self.head = sysstat_header(m[0]) or {}

    def header(self, n: int, m: re.Match) -> bool | None:
        names = m["names"].split()
        if not any(x.startswith("%") for x in names):
            return False
        self.names = names
        return None

    def row(self, n: int, m: re.Match) -> bool | None:
        if self.names is None:
            return False
        names = self.names
        cells = m["cells"].split(None, len(names) - 1)
        if len(cells) != len(names):
            raise ParseError(
                f"{self.tool}: {len(cells)} values under {len(names)} columns",
                source=self.seg.source,
                line=self.seg.line - 1 + n,
                text=m[0],
            )
        values = dict(zip(names, cells, strict=True))
        figures: dict = {}
        for name, col in PERCENT.items():
            if name in values:
                v = to_float(values[name])
                figures[col] = round(v) if col == "pid" and v is not None else v
        if figures.get("nice_pct") and figures.get("user_pct") is not None:
            figures["user_pct"] = round(figures["user_pct"] + figures["nice_pct"], 6)
        average = m["when"] == "Average:"
        row = cpu_row(self.tool, n, host=self.head.get("host"), **figures)
        if "Command" in values:
            row.update(scope="process", command=values["Command"])
        else:
            core = values.get("CPU", "all")
            row.update(scope=core, cores=self.head.get("cores") if core == "all" else 1.0)
        if average:
            row["summary"] = "average"
        else:
            when = clock_time(self.head.get("date"), m["when"])
            if when is not None:
                row["time"] = when
                key = f"{row['scope']}/{row.get('pid')}"
                t = datetime.fromisoformat(when)
                if key in self.last:
                    row["interval_s"] = (t - self.last[key]).total_seconds()
                self.last[key] = t
        self.rows.append(row)
        return None


#: sysstat's lines, in the order they are tried (see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("host", "Linux ", SYSSTAT_HEADER_RE, _Reader.first),
    LineKind("header", "", _HEADER_RE, _Reader.header),
    LineKind("row", "", _ROW_RE, _Reader.row),
]


def read_tables(seg: Segment, tool: str) -> list[dict]:
    """The ``cpu`` rows of a sysstat report (``tool``: the tool that printed it)."""
    return scan(seg.text, LINE_KINDS, _Reader(seg, tool)).rows


def header_names(text: str) -> list[str]:
    """The column names of the first table header of a sysstat report (after its host line), else [].

    >>> header_names("Linux 6.1 (h) \\t11/27/2026 \\t_x86_64_\\t(2 CPU)\\n\\n14:40:01  CPU  %user  %idle\\n")
    ['CPU', '%user', '%idle']
    """
    head = text.lstrip()[:3000]
    if not SYSSTAT_HEADER_RE.match(head):
        return []
    for line in head.split("\n")[1:8]:
        m = _HEADER_RE.match(line.rstrip())
        if m and "%" in line:
            return m["names"].split()
    return []
