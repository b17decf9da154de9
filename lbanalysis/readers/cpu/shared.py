"""What the CPU monitor readers share: the sysstat header, the rows of the ``cpu`` table, the busy share.

Every monitor (vmstat, mpstat, sar, iostat, pidstat, dstat, top, time)
gives rows of the ``cpu`` table (:data:`lbanalysis.schema.CPU`) and no run
of its own: a row's ``run`` is None, or the index of the run printed just
before it in the same segment (``time``'s report after the command it
timed). :mod:`lbanalysis.pairing` then pairs the others with runs and gives
each row its role.

sysstat's tools (mpstat, sar, iostat, pidstat) open with one header line
naming the kernel, the host, the date and the cores::

    Linux 6.1.0-18-amd64 (lb-01) \t11/27/2026 \t_x86_64_\t(2 CPU)

>>> h = sysstat_header("Linux 6.1.0-18-amd64 (lb-01) \\t11/27/2026 \\t_x86_64_\\t(2 CPU)")
>>> h["host"], h["date"], h["cores"]
('lb-01', '2026-11-27', 2.0)
>>> busy(idle=83.5, iowait=1.5)
15.0
"""

from __future__ import annotations

import re
from datetime import datetime

__all__ = ["SYSSTAT_HEADER_RE", "busy", "clock_time", "cpu_row", "sysstat_header", "sysstat_trailer", "taskset_cores"]

#: sysstat's first line: kernel, (host), date, architecture, (N CPU)
SYSSTAT_HEADER_RE = re.compile(
    r"^Linux \S+ \((?P<host>[^)]*)\)\s+(?P<date>\d{2}/\d{2}/\d{2,4}|\d{4}-\d{2}-\d{2}|\d{2}\.\d{2}\.\d{2,4})"
    r"\s+_?(?P<arch>\w+)_?\s+\((?P<cores>\d+) CPU\)"
)


_HEADER_ANYWHERE_RE = re.compile(SYSSTAT_HEADER_RE.pattern, re.MULTILINE)


def sysstat_trailer(text: str) -> int | None:
    """Where sysstat's header line begins in a text (a report run after another tool's output), else None.

    >>> sysstat_trailer("Requests per second: 5\\nLinux 6.1 (h) \\t11/27/2026 \\t_x86_64_\\t(2 CPU)\\n")
    23
    """
    m = _HEADER_ANYWHERE_RE.search(text) if " CPU)" in text else None
    return None if m is None else m.start()


def sysstat_header(line: str) -> dict | None:
    """The host, date (ISO) and cores of sysstat's header line, else None.

    >>> sysstat_header("Linux 6.18.44 (vm) \\t2026-11-27 \\t_x86_64_\\t(4 CPU)")["date"]
    '2026-11-27'
    """
    m = SYSSTAT_HEADER_RE.match(line)
    if m is None:
        return None
    raw = m["date"]
    for fmt in ("%m/%d/%Y", "%m/%d/%y", "%Y-%m-%d", "%d.%m.%Y", "%d.%m.%y"):
        try:
            date = datetime.strptime(raw, fmt).date().isoformat()
            break
        except ValueError:
            continue
    else:
        date = None
    return {"host": m["host"], "date": date, "cores": float(m["cores"])}


def clock_time(date: str | None, clock: str) -> str | None:
    """An ISO time from a date (ISO) and a clock as sysstat prints it (``14:05:01`` or ``02:05:01 PM``).

    >>> clock_time("2026-11-27", "02:05:01 PM"), clock_time("2026-11-27", "14:05:01"), clock_time(None, "14:05:01")
    ('2026-11-27 14:05:01', '2026-11-27 14:05:01', None)
    """
    if date is None:
        return None
    clock = clock.strip()
    for fmt in ("%H:%M:%S", "%I:%M:%S %p"):
        try:
            return f"{date} {datetime.strptime(clock, fmt).time().isoformat()}"
        except ValueError:
            continue
    return None


def busy(idle: float | None, iowait: float | None = None) -> float | None:
    """The busy share: 100 - idle - iowait (iowait counts as idle), rounded to the hundredth; None without idle.

    >>> busy(92.39, 0.1), busy(None)
    (7.51, None)
    """
    if idle is None:
        return None
    return round(100.0 - idle - (iowait or 0.0), 6)


def cpu_row(tool: str, line: int, **figures) -> dict:
    """One row of the ``cpu`` table (no run: pairing says which), ``busy_pct`` from idle and iowait when not given.

    >>> r = cpu_row("vmstat", 3, scope="all", idle_pct=90.0, iowait_pct=2.0)
    >>> r["busy_pct"], r["run"], r["tool"]
    (8.0, None, 'vmstat')
    """
    row = {"run": None, "tool": tool, "line": line, **{k: v for k, v in figures.items() if v is not None}}
    if "busy_pct" not in row and row.get("idle_pct") is not None:
        row["busy_pct"] = busy(row["idle_pct"], row.get("iowait_pct"))
    return row


_TASKSET_RE = re.compile(r"(?:^|\s)taskset\s+(?:-a\s+)?(?:-c|--cpu-list)\s+(\S+)")


def taskset_cores(command: str | None) -> float | None:
    """The cores a ``taskset -c LIST`` in a command lets the process use, else None.

    >>> taskset_cores("taskset -c 0 hey -c 8 http://h/"), taskset_cores("taskset -c 0,2-3 ab"), taskset_cores("ab")
    (1.0, 3.0, None)
    """
    m = _TASKSET_RE.search(command or "")
    if m is None:
        return None
    n = 0
    for part in m[1].split(","):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            return None
        n += int(hi) - int(lo) + 1 if hi else 1
    return float(n)
