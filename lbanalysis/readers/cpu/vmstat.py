"""procps ``vmstat`` (plain, ``-t``, ``-w``): one ``cpu`` row per line, scope ``all``.

::

    procs -----------memory---------- ---swap-- -----io---- -system-- -------cpu------- -----timestamp-----
     r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st                 UTC
     2  0      0 3043204  40556 418520    0    0    97    21  601  962  5  3 92  0  0 2026-11-27 14:40:01

The columns are found by name in the header (procps 3.3 and 4.x; ``gu``,
guest time, in 4.0.3+). The first line averages since the host booted
(``summary`` 'since boot'); the others each cover the interval asked
(``interval_s`` from the times of ``-t``). vmstat prints no host name.

=========== =================== =========
printed     column              unit
=========== =================== =========
``us``      ``user_pct``        %
``sy``      ``system_pct``      %
``id``      ``idle_pct``        %
``wa``      ``iowait_pct``      %
``st``      ``steal_pct``       %
``r``       ``run_queue``       processes
``in``      ``interrupts_per_s`` 1/s
``cs``      ``context_switches_per_s`` 1/s
=========== =================== =========

Memory, swap and block I/O are not kept.

>>> text = (" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\\n"
...         " 1  0      0 300000  4000 40000    0    0     1     2  100  200 10  5 84  1  0\\n"
...         " 3  0      0 300000  4000 40000    0    0     1     2  900 1200 60 30 10  0  0\\n")
>>> [(r["busy_pct"], r.get("summary")) for r in parse(Segment(text)).tables["cpu"]]
[(15.0, 'since boot'), (90.0, None)]
"""

from __future__ import annotations

import re
from datetime import datetime

from ...text import Segment
from ..base import Format, LineKind, Parsed, scan
from .shared import cpu_row

__all__ = ["COLUMNS", "FORMATS", "LINE_KINDS", "parse"]

#: vmstat's column -> (cpu column, kind)
COLUMNS: dict[str, tuple[str, type]] = {
    "us": ("user_pct", float),
    "sy": ("system_pct", float),
    "id": ("idle_pct", float),
    "wa": ("iowait_pct", float),
    "st": ("steal_pct", float),
    "r": ("run_queue", float),
    "in": ("interrupts_per_s", float),
    "cs": ("context_switches_per_s", float),
}

_GROUPS_RE = re.compile(r"^-*procs-*\s+-+memory-+")
_HEADER_RE = re.compile(r"^\s*r\s+b\s+swpd\s+free\s.*\bus\s+sy\s+id\b.*$")
_DETECT_RE = re.compile(r"^(?:-*procs-*\s+-+memory-+|\s*r\s+b\s+swpd\s+free\s)", re.MULTILINE)
_DATA_RE = re.compile(r"^\s*\d+(?:\s+-?\d+)+(?:\s+(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d))?\s*$")


class _Reader:
    def __init__(self, seg: Segment) -> None:
        self.seg = seg
        self.names: list[str] | None = None
        self.rows: list[dict] = []
        self.last_time: datetime | None = None

    def groups(self, n: int, m: re.Match) -> None:
        return None

    def header(self, n: int, m: re.Match) -> None:
        self.names = m[0].split()

    def data(self, n: int, m: re.Match) -> bool | None:
        if self.names is None:
            return False
        cells = m[0].split()
        when = m[1]
        if when:
            cells = cells[:-2]
        if len(cells) != len([c for c in self.names if c.islower()]):  # the zone of -t is upper case: UTC
            return False
        values = dict(zip(self.names, cells, strict=False))
        figures = {col: kind(values[name]) for name, (col, kind) in COLUMNS.items() if name in values}
        row = cpu_row("vmstat", n, scope="all", **figures)
        if not self.rows:
            row["summary"] = "since boot"
        if when:
            t = datetime.fromisoformat(when)
            row["time"] = when
            if self.last_time is not None and self.rows:
                row["interval_s"] = (t - self.last_time).total_seconds()
            self.last_time = t
        self.rows.append(row)
        return None


#: vmstat's lines, in the order they are tried (see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("groups", "procs", _GROUPS_RE, _Reader.groups),
    LineKind("header", "swpd", _HEADER_RE, _Reader.header),
    LineKind("data", "", _DATA_RE, _Reader.data),
]


def parse(seg: Segment) -> Parsed:
    """A vmstat output into rows of the ``cpu`` table."""
    return Parsed(tables={"cpu": scan(seg.text, LINE_KINDS, _Reader(seg)).rows})


def detect(text: str) -> bool:
    """vmstat's two header lines."""
    return bool(_DETECT_RE.search(text[:2000]))


def trailer(text: str) -> int | None:
    """Where vmstat's header begins after another tool's output (``$ vmstat 1 3`` run after it), else None."""
    m = _DETECT_RE.search(text) if "swpd" in text else None
    return None if m is None else m.start()


FORMATS = [Format("vmstat", "vmstat", detect, parse, trailer=trailer, description="vmstat (plain, -t, -w)")]
