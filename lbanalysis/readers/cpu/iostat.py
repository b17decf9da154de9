"""sysstat ``iostat -c`` (and the ``avg-cpu`` part of plain ``iostat``): one ``cpu`` row per report, scope ``all``.

::

    Linux 6.1.0-18-amd64 (web-1) \t11/27/2026 \t_x86_64_\t(2 CPU)

    avg-cpu:  %user   %nice %system %iowait  %steal   %idle
               5.01    0.00    2.50    0.10    0.00   92.39

The host, date and cores come from the first line; the first report
averages since the host booted (``summary`` 'since boot'); ``-t`` prints
each report's time on the line before it. ``%user`` + ``%nice`` is
``user_pct``. Device tables (without ``-c``) are not kept.

>>> text = ("Linux 6.1.0 (web-1) \\t11/27/2026 \\t_x86_64_\\t(2 CPU)\\n\\n"
...         "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\\n"
...         "           5.00    0.00    2.50    0.50    0.00   92.00\\n")
>>> r = parse(Segment(text)).tables["cpu"][0]
>>> r["host"], r["busy_pct"], r["summary"]
('web-1', 7.5, 'since boot')
"""

from __future__ import annotations

import re
from datetime import datetime

from ...errors import ParseError
from ...text import Segment
from ..base import Format, LineKind, Parsed, scan, to_float
from .shared import SYSSTAT_HEADER_RE, cpu_row, sysstat_header, sysstat_trailer
from .sysstat import PERCENT

__all__ = ["FORMATS", "LINE_KINDS", "parse"]

_HEADER_RE = re.compile(r"^avg-cpu:\s+(%\w+(?:\s+%\w+)*)$")
_VALUES_RE = re.compile(r"^\s+(\d+[.,]\d+(?:\s+\d+[.,]\d+)*)$")
_TIME_RE = re.compile(r"^(\d\d/\d\d/\d{2,4} \d\d:\d\d:\d\d(?: [AP]M)?|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\S*)$")


class _Reader:
    def __init__(self, seg: Segment) -> None:
        self.seg = seg
        self.head: dict = {}
        self.names: list[str] | None = None
        self.when: str | None = None
        self.rows: list[dict] = []

    def first(self, n: int, m: re.Match) -> None:
        self.head = sysstat_header(m[0]) or {}

    def time(self, n: int, m: re.Match) -> None:
        raw = m[1]
        for fmt in ("%m/%d/%Y %I:%M:%S %p", "%m/%d/%Y %H:%M:%S", "%m/%d/%y %H:%M:%S", "%m/%d/%y %I:%M:%S %p"):
            try:
                self.when = datetime.strptime(raw, fmt).isoformat(sep=" ")
                return
            except ValueError:
                continue
        try:
            self.when = datetime.fromisoformat(raw).replace(tzinfo=None).isoformat(sep=" ")
        except ValueError:
            self.when = None

    def header(self, n: int, m: re.Match) -> None:
        self.names = m[1].split()

    def values(self, n: int, m: re.Match) -> bool | None:
        if self.names is None:
            return False
        cells = m[1].replace(",", ".").split()
        if len(cells) != len(self.names):
            raise ParseError(
                f"iostat: {len(cells)} values under {len(self.names)} columns",
                source=self.seg.source,
                line=self.seg.line - 1 + n,
                text=m[0],
            )
        figures = {PERCENT[k]: to_float(v) for k, v in zip(self.names, cells, strict=True) if k in PERCENT}
        if figures.get("nice_pct") and figures.get("user_pct") is not None:
            figures["user_pct"] = round(figures["user_pct"] + figures["nice_pct"], 6)
        row = cpu_row("iostat", n, host=self.head.get("host"), scope="all", cores=self.head.get("cores"), **figures)
        if not self.rows:
            row["summary"] = "since boot"
        if self.when:
            row["time"] = self.when
        self.rows.append(row)
        self.names = None
        return None


#: iostat's lines, in the order they are tried (see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("host", "Linux ", SYSSTAT_HEADER_RE, _Reader.first),
    LineKind("time", "", _TIME_RE, _Reader.time),
    LineKind("header", "avg-cpu:", _HEADER_RE, _Reader.header),
    LineKind("values", "", _VALUES_RE, _Reader.values),
]


def parse(seg: Segment) -> Parsed:
    """An iostat report into rows of the ``cpu`` table."""
    return Parsed(tables={"cpu": scan(seg.text, LINE_KINDS, _Reader(seg)).rows})


def detect(text: str) -> bool:
    """sysstat's host line, then an ``avg-cpu:`` header."""
    head = text.lstrip()[:2000]
    return bool(SYSSTAT_HEADER_RE.match(head)) and "\navg-cpu:" in head


FORMATS = [Format("iostat", "iostat", detect, parse, trailer=sysstat_trailer, description="iostat -c")]
