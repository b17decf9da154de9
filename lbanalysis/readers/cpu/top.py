"""procps ``top -b`` snapshots: the ``%Cpu(s)`` line (scope ``all``, or ``%Cpu0`` per core) and the process rows.

::

    top - 14:38:41 up 8 min,  0 user,  load average: 9.03, 5.95, 2.68
    Tasks: 115 total,   7 running, 108 sleeping,   0 stopped,   0 zombie
    %Cpu(s): 75.0 us, 25.0 sy,  0.0 ni,  0.0 id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st
    MiB Mem :  24105.6 total,  17598.5 free,   1128.7 used,   5701.2 buff/cache

      PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND
    18904 root      20   0   98088  15096  11096 S  31.2   0.1   0:15.30 haproxy

The shares (:data:`SHARES`: ``us`` + ``ni`` is ``user_pct``, ``sy``
``system_pct``, ``hi`` ``irq_pct``, ``si`` ``softirq_pct`` …) and each
process's ``PID``, ``%CPU`` (of one core: ``cpu_pct``) and ``COMMAND``,
found by name in the header row. top prints the time of day but no date
and no host: ``time`` and ``host`` stay empty. The load average, tasks,
memory and the other process columns are not kept. procps 3.2's
``Cpu(s):  5.0%us,`` reads the same.

>>> text = ("top - 14:38:41 up 8 min,  0 user,  load average: 9.03, 5.95, 2.68\\n"
...         "%Cpu(s): 75.0 us, 20.0 sy,  0.0 ni,  5.0 id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st\\n\\n"
...         "  PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\\n"
...         "18904 root      20   0   98088  15096  11096 S  31.2   0.1   0:15.30 haproxy\\n")
>>> [(r["scope"], r.get("busy_pct"), r.get("cpu_pct"), r.get("command")) for r in parse(Segment(text)).tables["cpu"]]
[('all', 95.0, None, None), ('process', None, 31.2, 'haproxy')]
"""

from __future__ import annotations

import re

from ...errors import ParseError
from ...text import Segment
from ..base import Format, LineKind, Parsed, scan
from .shared import cpu_row

__all__ = ["FORMATS", "LINE_KINDS", "SHARES", "parse"]

#: the %Cpu line's labels -> cpu columns
SHARES = {
    "us": "user_pct",
    "sy": "system_pct",
    "ni": "nice_pct",
    "id": "idle_pct",
    "wa": "iowait_pct",
    "hi": "irq_pct",
    "si": "softirq_pct",
    "st": "steal_pct",
}

_TOP_RE = re.compile(r"^top - (\d\d:\d\d:\d\d) up ")
_DETECT_RE = re.compile(r"^top - \d\d:\d\d:\d\d up ", re.MULTILINE)
_CPU_RE = re.compile(r"^%?Cpu(\(s\)|\d+)\s*:\s*(.*)$")
_SHARE_RE = re.compile(r"([\d.]+)\s*%?\s*([a-z]{2})\b")
_HEADER_RE = re.compile(r"^\s*PID\s+USER\s+.*%CPU.*COMMAND\s*$")
_PROCESS_RE = re.compile(r"^\s*\d+\s+\S")


class _Reader:
    def __init__(self, seg: Segment) -> None:
        self.seg = seg
        self.rows: list[dict] = []
        self.names: list[str] | None = None

    def snapshot(self, n: int, m: re.Match) -> None:
        self.names = None

    def cpu(self, n: int, m: re.Match) -> None:
        shares = {SHARES[k]: float(v) for v, k in _SHARE_RE.findall(m[2]) if k in SHARES}
        if "idle_pct" not in shares:
            raise ParseError(
                "top: a %Cpu line without 'id'", source=self.seg.source, line=self.seg.line - 1 + n, text=m[0]
            )
        if shares.get("nice_pct"):
            shares["user_pct"] = round(shares.get("user_pct", 0.0) + shares["nice_pct"], 6)
        scope = "all" if m[1] == "(s)" else m[1]
        row = cpu_row("top", n, scope=scope, **shares)
        if scope != "all":
            row["cores"] = 1.0
        self.rows.append(row)

    def header(self, n: int, m: re.Match) -> None:
        self.names = m[0].split()

    def process(self, n: int, m: re.Match) -> bool | None:
        names = self.names
        if names is None:
            return False
        line = m.string
        cells = line.split(None, len(names) - 1)
        if len(cells) != len(names):
            raise ParseError(
                f"top: {len(cells)} values under {len(names)} columns",
                source=self.seg.source,
                line=self.seg.line - 1 + n,
                text=line,
            )
        values = dict(zip(names, cells, strict=True))
        try:
            figures = {"pid": int(values["PID"]), "cpu_pct": float(values["%CPU"])}
        except (KeyError, ValueError):
            raise ParseError(
                "top: a process row without its PID or %CPU",
                source=self.seg.source,
                line=self.seg.line - 1 + n,
                text=line,
            ) from None
        self.rows.append(cpu_row("top", n, scope="process", command=values.get("COMMAND"), **figures))
        return None


#: top's lines, in the order they are tried (see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("snapshot", "top - ", _TOP_RE, _Reader.snapshot),
    LineKind("cpu", "Cpu", _CPU_RE, _Reader.cpu),
    LineKind("header", "PID", _HEADER_RE, _Reader.header),
    LineKind("process", "", _PROCESS_RE, _Reader.process),
]


def parse(seg: Segment) -> Parsed:
    """top -b snapshots into rows of the ``cpu`` table."""
    return Parsed(tables={"cpu": scan(seg.text, LINE_KINDS, _Reader(seg)).rows})


def detect(text: str) -> bool:
    """top's first line (``top - 14:38:41 up``, maybe after a prompt) and a ``%Cpu`` line under it."""
    head = text[:2000]
    return bool(_DETECT_RE.search(head)) and bool(re.search(r"^%?Cpu(?:\(s\)|\d+)\s*:", head, re.MULTILINE))


def trailer(text: str) -> int | None:
    """Where top's first line begins after another tool's output, else None."""
    m = _DETECT_RE.search(text) if "top - " in text else None
    return None if m is None else m.start()


FORMATS = [Format("top", "top", detect, parse, trailer=trailer, description="top -b snapshots")]
