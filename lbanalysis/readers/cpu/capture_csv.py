"""The CPU a sweep measured around each run (``cpu/NNN.csv``, written by ``lbanalysis sweep``).

One CSV per run (or per test of ``--processes N``), in the cpu table's own
columns, so that it reads into :attr:`lbanalysis.Dataset.cpu` as written::

    time,host,role,scope,cores,cores_by,interval_s,user_pct,...,tool,run_source,run,paired_by
    2026-11-27 15:02:11.502113,lab,client,process,1,ab: 1,0.41,,,,,,,92.7,ab -c 4 -n 2000 http://...,
    2026-11-27 15:02:11.502113,lab,client,all,2,,0.41,31.0,40.2,0.0,0.0,6.1,22.7,77.3,,,,,,,,proc-stat,../003-...

=============== ==================================================================== =====
column          meaning                                                              unit
=============== ==================================================================== =====
time            end of the measurement (UTC)
host            this host's name (``socket.gethostname()``)
role            ``client``: the host and the process that ran the load tool
scope           ``process`` (the load tool, from ``os.wait4``), ``all`` or a core id
                (``/proc/stat`` before and after the run)
cores           what the scope could use: for the process the smallest of the tool's
                threads (registry ``Drive.cores``), its affinity and a cgroup quota
cores_by        how ``cores`` was found (``ab: 1; affinity: 2 (0-1); cgroup /x: 0.2``)
interval_s      the run's wall time                                                  s
*_pct           shares of the scope's time (``/proc/stat`` fields; irq in system)    %
busy_pct        100 - idle - iowait; for the process cpu_pct / cores                 %
command, pid    the process's command line and id
cpu_pct         (user_s + system_s) / wall_s, in percent of one core                 %
user_s ...      user and system CPU time, wall time, peak resident memory            s, B
tool            ``sweep`` (the process row) or ``proc-stat`` (the host rows)
run_source      the run's output file, relative to this file (``../003-ab-c4-r1.txt``)
run, paired_by  the run's index in its file (0) and ``name stem`` (the sweep named both)
=============== ==================================================================== =====

``run_source`` is read as a path next to the CSV's own (the runs table's
``source`` of the same run, when the folder is read as a whole); in a text
that is not a file it stays as written.

>>> text = (",".join(COLUMNS) + "\\n" + "2026-11-27 15:02:11,lab,client,process,1,ab: 1,2.0,,,,,,,"
...         "95.0,ab -c 1 -n 9 http://h/,42,95.0,1.5,0.4,2.0,8192000,sweep,../001-ab-c1-r1.txt,0,name stem\\n")
>>> row = parse(Segment(text, "runs/cpu/001.csv")).tables["cpu"][0]
>>> row["busy_pct"], row["user_s"], row["pid"], row["run_source"], row["line"]
(95.0, 1.5, 42, 'runs/001-ab-c1-r1.txt', 2)
"""

from __future__ import annotations

import csv
import io
import os

from ... import schema
from ...errors import ParseError
from ...text import Segment
from ..base import Format, Parsed

__all__ = ["COLUMNS", "FORMATS", "detect", "parse"]

#: The columns of a sweep's cpu CSV, in order (the first five are its signature).
COLUMNS = (
    "time", "host", "role", "scope", "cores", "cores_by", "interval_s", "user_pct", "system_pct", "iowait_pct",
    "steal_pct", "softirq_pct", "idle_pct", "busy_pct", "command", "pid", "cpu_pct", "user_s", "system_s",
    "wall_s", "max_rss_bytes", "tool", "run_source", "run", "paired_by",
)  # fmt: skip
_SIGNATURE = ",".join(COLUMNS[:5]) + ","


def detect(text: str) -> bool:
    """True for a CSV whose header starts with the sweep's cpu columns.

    >>> detect("time,host,role,scope,cores,cores_by\\n"), detect("time,host\\n")
    (True, False)
    """
    return text.lstrip("\ufeff").startswith(_SIGNATURE)


def _value(name: str, raw: str, source: str, line: int) -> object:
    """One cell in its column's type: empty stays empty; a number that does not read is an error."""
    raw = raw.strip()
    if raw == "":
        return None
    dtype = schema.CPU[name].dtype if name in schema.CPU else "string"
    if dtype in ("float64", "Int64"):
        try:
            value = float(raw)
        except ValueError:
            raise ParseError(f"{name}: not a number: {raw!r}", source=source, line=line, text=raw) from None
        if dtype == "Int64":
            if value != int(value):
                raise ParseError(f"{name}: not a whole number: {raw!r}", source=source, line=line, text=raw)
            return int(value)
        return value
    return raw


def parse(seg: Segment) -> Parsed:
    """One cpu row per CSV line (``line``: its line in the file), ``run_source`` made a path beside the file's."""
    reader = csv.reader(io.StringIO(seg.text.lstrip("\ufeff")))
    header = next(reader, [])
    unknown = [c for c in header if c not in COLUMNS]
    if unknown:
        raise ParseError(f"not a column of the sweep's cpu CSV: {', '.join(unknown)}", source=seg.source, line=1)
    here = os.path.dirname(seg.source) if seg.source and not seg.source.startswith("<") else None
    rows = []
    for n, cells in enumerate(reader, start=seg.line + 1):
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(header):
            raise ParseError(
                f"{len(cells)} fields where the header has {len(header)}",
                source=seg.source,
                line=n,
                text=",".join(cells),
            )
        row = {c: _value(c, v, seg.source, n) for c, v in zip(header, cells, strict=True)}
        if here is not None and row.get("run_source"):
            row["run_source"] = os.path.normpath(os.path.join(here, str(row["run_source"]))).replace("\\", "/")
        row["line"] = n
        rows.append(row)
    if not rows:
        raise ParseError("the sweep's cpu CSV has a header and no sample", source=seg.source, line=1)
    return Parsed(tables={"cpu": rows})


FORMATS = [
    Format(
        "sweep-cpu-csv",
        "sweep",
        detect,
        parse,
        whole_file=True,
        description="lbanalysis sweep: the load tool's CPU (os.wait4) and the host's (/proc/stat) per run",
    )
]
