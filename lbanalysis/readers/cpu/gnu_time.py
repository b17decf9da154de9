"""``time``'s report of one process: GNU ``time -v`` and its default line, the shells' ``time`` (bash, zsh, ``-p``).

People append it after the tool's output (``$ /usr/bin/time -v hey ...``,
``$ time ab ...``): the dispatcher cuts it off the tool's output
(:attr:`Format.trailer`) and its row belongs to the run printed just
before. One row per report in the ``cpu`` table, scope ``process``:

============================================ ======================= =========
printed                                      column                  unit
============================================ ======================= =========
``Command being timed: "hey -c 8 ..."``      ``command``
``User time (seconds): 0.52`` / ``0.52user`` ``user_s``              s
``System time (seconds)`` / ``system``       ``system_s``            s
``Percent of CPU this job got: 98%``         ``cpu_pct``             % of one core
``Elapsed (wall clock) time ...: 0:01.23``   ``wall_s``              s
``Maximum resident set size (kbytes)``       ``max_rss_bytes``       B (KiB x 1024)
bash ``real 0m1.234s`` / ``user`` / ``sys``  ``wall_s``, ``user_s``, ``system_s``
``-p``: ``real 1.23`` / ``user`` / ``sys``   the same, in seconds
zsh ``CMD  0.50s user 0.10s system 45% cpu 1.234 total``   the same and ``cpu_pct``
============================================ ======================= =========

Where ``time`` prints no CPU share (bash, ``-p``) it is (user + system) /
real. The cores the process could use come from a ``taskset -c LIST`` in
the command (``cores``; ``busy_pct`` is then ``cpu_pct / cores``); GNU
time's page faults, context switches, I/O and exit status are not kept.

>>> p = parse(Segment("\\nreal\\t0m2.000s\\nuser\\t0m0.500s\\nsys\\t0m0.300s\\n", command="time ab -c 2 http://h/"))
>>> r = p.tables["cpu"][0]
>>> r["wall_s"], r["user_s"], r["system_s"], r["cpu_pct"], r["command"]
(2.0, 0.5, 0.3, 40.0, 'time ab -c 2 http://h/')
"""

from __future__ import annotations

import re

from ...errors import ParseError
from ...text import Segment
from ..base import Format, LineKind, Parsed, scan
from .shared import cpu_row, taskset_cores

__all__ = ["FORMATS", "LINE_KINDS", "VERBOSE", "parse"]

#: time -v labels -> (column, factor to SI)
VERBOSE: dict[str, tuple[str, float]] = {
    "User time (seconds)": ("user_s", 1.0),
    "System time (seconds)": ("system_s", 1.0),
    "Percent of CPU this job got": ("cpu_pct", 1.0),
    "Elapsed (wall clock) time (h:mm:ss or m:ss)": ("wall_s", 1.0),
    "Maximum resident set size (kbytes)": ("max_rss_bytes", 1024.0),
}
#: the shells' ``time`` lines (bash's ``real\t0m1.234s`` and ``-p``'s ``real 1.23``) -> column
SHELL: dict[str, str] = {"real": "wall_s", "user": "user_s", "sys": "system_s"}

_CLOCK = r"(?:\d+:)?\d+:\d+(?:\.\d+)?|\d+(?:\.\d+)?"
_VERBOSE_START_RE = re.compile(r"^\s*Command being timed: \"(.*)\"\s*$")
_VERBOSE_RE = re.compile(r"^\s*([A-Z][^:]*(?:\([^)]*\))?[^:]*): (.*)$")
_DEFAULT_RE = re.compile(
    r"^(?:Command exited with non-zero status \d+\n)?"
    rf"(\d+\.\d+)user (\d+\.\d+)system ({_CLOCK})elapsed (\d+|\?)%CPU "
    r"\((\d+)avgtext\+(\d+)avgdata (\d+)maxresident\)k$"
)
_BASH_RE = re.compile(r"^(real|user|sys)\t(\d+)m(\d+(?:\.\d+)?)s$")
_POSIX_RE = re.compile(r"^(real|user|sys) (\d+(?:\.\d+)?)$")
_ZSH_RE = re.compile(rf"^(.*?)\s+(\d+\.\d+)s user (\d+\.\d+)s system (\d+|\?)% cpu ({_CLOCK}) total$")
#: a word of each kind of report's first line
_START_WORDS = ("Command being timed", "maxresident", "real", "% cpu ")
#: the first line of each kind of report (where a report appended after a tool's output begins)
_START_RE = re.compile(
    r"^(?:[ \t]*Command being timed: \"|\d+\.\d+user \d+\.\d+system |real(?:\t\d+m| \d)|.*\s\d+\.\d+s user \d+\.\d+s system .* total$)",
    re.MULTILINE,
)


def clock_seconds(text: str) -> float:
    """Seconds of ``h:mm:ss``, ``m:ss.ss`` or ``ss.ss``.

    >>> clock_seconds("0:01.23"), clock_seconds("1:02:03"), clock_seconds("4.5")
    (1.23, 3723.0, 4.5)
    """
    total = 0.0
    for part in text.split(":"):
        total = total * 60 + float(part)
    return round(total, 6)


class _Reader:
    """The reports of one segment; ``row`` is the report being read."""

    def __init__(self, seg: Segment) -> None:
        self.seg = seg
        self.rows: list[dict] = []
        self.row: dict | None = None

    def start(self, n: int, command: str | None) -> dict:
        command = command or self.seg.command
        self.row = cpu_row("time", n, scope="process", command=command, cores=taskset_cores(command))
        self.rows.append(self.row)
        return self.row

    def verbose_start(self, n: int, m: re.Match) -> None:
        self.start(n, m[1])

    def verbose(self, n: int, m: re.Match) -> bool | None:
        if self.row is None or self.row["tool"] != "time" or "_shell" in self.row:
            return False
        known = VERBOSE.get(m[1].strip())
        if known is None:
            return None  # page faults, context switches, I/O, exit status: not kept
        col, factor = known
        value = m[2].strip().rstrip("%")
        try:
            self.row[col] = (clock_seconds(value) if col == "wall_s" else float(value)) * factor
        except ValueError:
            raise ParseError(
                f"time -v: {m[1].strip()!r} is not a number",
                source=self.seg.source,
                line=self.seg.line - 1 + n,
                text=m[0],
            ) from None
        return None

    def default(self, n: int, m: re.Match) -> None:
        row = self.start(n, None)
        row.update(user_s=float(m[1]), system_s=float(m[2]), wall_s=clock_seconds(m[3]))
        if m[4] != "?":
            row["cpu_pct"] = float(m[4])
        row["max_rss_bytes"] = float(m[7]) * 1024.0

    def shell(self, n: int, m: re.Match) -> None:
        seconds = float(m[2]) * 60 + float(m[3]) if m.lastindex == 3 else float(m[2])
        if self.row is None or "_shell" not in self.row or SHELL[m[1]] in self.row:
            self.start(n, None)["_shell"] = True
        assert self.row is not None
        self.row[SHELL[m[1]]] = round(seconds, 6)

    def zsh(self, n: int, m: re.Match) -> None:
        row = self.start(n, m[1].strip() or None)
        row.update(user_s=float(m[2]), system_s=float(m[3]), wall_s=clock_seconds(m[5]))
        if m[4] != "?":
            row["cpu_pct"] = float(m[4])

    def finish(self) -> list[dict]:
        for row in self.rows:
            row.pop("_shell", None)
            if "cpu_pct" not in row and row.get("wall_s") and "user_s" in row and "system_s" in row:
                row["cpu_pct"] = round((row["user_s"] + row["system_s"]) / row["wall_s"] * 100.0, 6)
            if row.get("cores") and row.get("cpu_pct") is not None:
                row["busy_pct"] = round(row["cpu_pct"] / row["cores"], 6)
        return self.rows


#: The lines of time's reports, in the order they are tried (see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("verbose start", "Command being timed", _VERBOSE_START_RE, _Reader.verbose_start),
    LineKind("verbose field", ": ", _VERBOSE_RE, _Reader.verbose),
    LineKind("default", "maxresident", _DEFAULT_RE, _Reader.default),
    LineKind("bash", "\t", _BASH_RE, _Reader.shell),
    LineKind("posix", " ", _POSIX_RE, _Reader.shell),
    LineKind("zsh", " total", _ZSH_RE, _Reader.zsh),
]


def parse(seg: Segment) -> Parsed:
    """Every ``time`` report of a segment into rows of the ``cpu`` table."""
    rows = scan(seg.text, LINE_KINDS, _Reader(seg)).finish()
    if not rows:
        raise ParseError(
            "no report of time's (time -v, real/user/sys) in this output", source=seg.source, line=seg.line
        )
    return Parsed(tables={"cpu": rows})


def trailer(text: str) -> int | None:
    """Where a report of time's begins in a tool's output, else None.

    >>> trailer("Requests per second: 5\\n\\nreal\\t0m1.000s\\nuser\\t0m0.1s\\n")
    24
    """
    if not any(word in text for word in _START_WORDS):  # most outputs: no regex search over them
        return None
    m = _START_RE.search(text)
    return None if m is None else m.start()


def detect(text: str) -> bool:
    """A text that is one of time's reports from its first line (a report alone in its file)."""
    head = text.lstrip("\n")[:400]
    m = _START_RE.match(head)
    return m is not None and (not head.startswith("real") or "\nuser" in head)


FORMATS = [Format("time", "time", detect, parse, trailer=trailer, description="time -v, GNU time, bash/zsh time")]
