"""JMeter's non-GUI console (``jmeter -n -t plan.jmx``): the summariser's ``summary +`` and ``summary =`` lines.

::

    Creating summariser <summary>
    Created the tree successfully using ../capture/jmeter_get.jmx
    Starting the test @ Fri Nov 27 14:37:06 UTC 2026 (1795790226604)
    Waiting for possible shutdown message on port 4445
    summary +      1 in     1s =    1.1/s Avg:    99 Min:    99 Max:    99 Err:     0 (0.00%) Active: 8 Started: 8 Finished: 0
    summary +    271 in   3.2s =   83.7/s Avg:    96 Min:    91 Max:   114 Err:     0 (0.00%) Active: 0 Started: 8 Finished: 8
    summary =    272 in   4.1s =   66.1/s Avg:    96 Min:    91 Max:   114 Err:     0 (0.00%)
    Tidying up ...    @ Fri Nov 27 14:37:10 UTC 2026 (1795790230818)
    ... end of run

The summariser (on by default from JMeter 3.0; ``-Jsummariser.name=summary``
before; a *Generate Summary Results* listener in the plan prints under its own
name, ``Generate Summary Results +``) prints, every ``summariser.interval`` seconds, the samples of the
interval (``+``) and the totals so far (``=``); JMeter 3.0+ prints the time
as ``00:00:04``. The last ``summary =`` of a run is the run, the ``+`` lines
its intervals table (``stream`` the summariser's name, ``requests``,
``errors``, ``requests_per_s``, ``latency_*_s``, ``users`` = Active,
``users_started``, ``users_finished``).

==========================  ==============================================  =====
printed                     runs column                                     unit
==========================  ==============================================  =====
N (samples)                 ``requests_attempted``; ``requests`` when Err
                            is 0 (JMeter counts a sample without an answer
                            among them, and the console does not say how
                            many got none)
in T                        ``duration_s`` = N / rate (the time is rounded)  s
= R/s                       ``requests_attempted_per_s``; ``requests_per_s`` 1/s
                            when Err is 0
Avg Min Max                 ``latency_mean_s`` ``_min_s`` ``_max_s`` (every  ms
                            sample, failed ones too)
Err                         ``failed``
Starting the test @ … (ms)  ``timestamp``
``-Jthreads=N``             ``concurrency`` (a plan reading the threads
                            property, as the sweep's); else the most Active
``Error in NonGUIDriver``   ``error`` (the plan did not load: no request)
==========================  ==============================================  =====

>>> p = parse(Segment("summary =    272 in   4.1s =   66.1/s Avg:    96 Min:    91 Max:   114 Err:     0 (0.00%)\\n"))
>>> r = p.runs[0]
>>> r["requests"], r["failed"], round(r["duration_s"], 3), r["latency_mean_s"]
(272, 0, 4.115, 0.096)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ...text import Segment, command_argv
from ..base import COMMAND_REFUSED, NO_RESULT_SHOWN, Format, LineKind, Parsed, Runs, error_row, scan, to_int

__all__ = ["FORMATS", "LINE_KINDS", "detect", "parse", "parse_command"]

_NUM = r"(-?\d+(?:[.,]\d+)?)"
# name, + or =, samples, time (4.1s, 1s, 00:00:04), rate, Avg, Min, Max, Err, then Active Started Finished on +
_SUMMARY_RE = re.compile(
    r"^(\w+(?: \w+)*) ([+=]) +(\d+) in +(\d\d:\d\d:\d\d|[\d.,]+s?) += +" + _NUM + r"/s Avg: +(-?\d+) Min: +(-?\d+) "
    r"Max: +(-?\d+) Err: +(\d+) \([\d.,]+%\)(?: Active: (\d+) Started: (\d+) Finished: (\d+))?"
)


@dataclass
class _Run:
    line: int
    d: dict = field(default_factory=dict)
    total: re.Match | None = None
    intervals: list[dict] = field(default_factory=list)
    started: bool = False
    error: str = ""


def _seconds(text: str) -> float:
    """Seconds of the summariser's time: ``4.1s``, ``1s`` or ``00:00:04``.

    >>> _seconds("4.1s"), _seconds("00:01:04"), _seconds("0,5s")
    (4.1, 64.0, 0.5)
    """
    if ":" in text:
        h, m, s = (int(x) for x in text.split(":"))
        return h * 3600.0 + m * 60.0 + s
    return float(text.rstrip("s").replace(",", "."))


def _rate(text: str) -> float:
    return float(text.replace(",", "."))


def _starts(kind: str, m: re.Match | None, cur: _Run | None) -> bool:
    """The one place deciding where a run starts: its first line, or a test's start after another test's lines."""
    if cur is None:
        return True
    done = cur.total is not None or bool(cur.intervals) or bool(cur.error)
    if kind == "tree":
        return done or cur.started or "timestamp" in cur.d
    if kind == "starting":
        return done or "timestamp" in cur.d
    return kind == "error" and done


def _tree(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("tree", n, m)
    if r is not None:
        r.started = True


def _starting(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("starting", n, m)
    if r is not None:
        r.d["timestamp"] = datetime.fromtimestamp(int(m.group(1)) / 1e3, UTC).replace(tzinfo=None)


def _summary(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("summary", n, m)
    if r is None:
        return
    if m.group(2) == "=":
        r.total = m
        return
    count, seconds, rate = int(m.group(3)), _seconds(m.group(4)), _rate(m.group(5))
    length = count / rate if rate > 0 else seconds
    start = r.intervals[-1]["end_s"] if r.intervals else 0.0
    row = {"stream": m.group(1), "start_s": start, "end_s": start + length, "requests": count,
           "errors": int(m.group(9)), "requests_per_s": rate, "latency_mean_s": int(m.group(6)) / 1e3,
           "latency_min_s": int(m.group(7)) / 1e3, "latency_max_s": int(m.group(8)) / 1e3}  # fmt: skip
    if m.group(10) is not None:
        row.update(users=int(m.group(10)), users_started=int(m.group(11)), users_finished=int(m.group(12)))
    r.intervals.append(row)


def _error(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("error", n, m)
    if r is not None and not r.error:
        r.error = m.group(1).strip()


#: The lines JMeter's non-GUI console prints, in the order they are tried (see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("summary", " in ", _SUMMARY_RE, _summary),
    LineKind("tree", "Created the tree", re.compile(r"^Created the tree successfully using (.*)$"), _tree),
    LineKind(
        "starting", "test @ ", re.compile(r"^Starting (?:the |standalone )?test @ .*\((\d{12,13})\)\s*$"), _starting
    ),
    LineKind("error", "Error in NonGUIDriver", re.compile(r"^Error in NonGUIDriver (.*)$"), _error),
]


def parse_command(command: str) -> dict:
    """Run fields from a jmeter command line: the plan's threads (``-Jthreads=N``, ``-Jthreads N``).

    >>> parse_command("jmeter -n -t plan.jmx -l out.jtl -Jthreads=8 -Jduration=4")
    {'concurrency': 8}
    """
    argv = command_argv(command)
    out: dict = {}
    for i, a in enumerate(argv):
        if a.startswith("-Jthreads="):
            out["concurrency"] = to_int(a.split("=", 1)[1])
        elif a == "-Jthreads" and i + 1 < len(argv):
            out["concurrency"] = to_int(argv[i + 1])
    return {k: v for k, v in out.items() if v is not None}


def _row(r: _Run) -> dict:
    d = {"tool": "jmeter", **r.d}
    active = [iv["users"] for iv in r.intervals if "users" in iv]
    if active:
        d["concurrency"] = max(active)
    m = r.total
    if m is None:
        if r.error:
            return {**d, **error_row("jmeter", r.error, COMMAND_REFUSED)}
        why = "no result: the output stops before JMeter's 'summary =' line"
        return {**d, **error_row("jmeter", why, NO_RESULT_SHOWN)}
    count, errors, rate = int(m.group(3)), int(m.group(9)), _rate(m.group(5))
    d.update(requests_attempted=count, failed=errors, requests_attempted_per_s=rate)
    d["duration_s"] = count / rate if rate > 0 else _seconds(m.group(4))
    d.update(latency_mean_s=int(m.group(6)) / 1e3, latency_min_s=int(m.group(7)) / 1e3,
             latency_max_s=int(m.group(8)) / 1e3)  # fmt: skip
    if errors == 0:
        d.update(requests=count, requests_ok=count, failed_network=0, requests_per_s=rate)
    return d


def parse(seg: Segment) -> Parsed:
    """Read every JMeter run of a segment (the last ``summary =`` of each is the run)."""
    cmd = parse_command(seg.command) if seg.command else {}
    out = Parsed()
    for r in scan(seg.text, LINE_KINDS, Runs(_Run, _starts)).runs:
        out.add_run({**_row(r), **cmd, "line": r.line}, intervals=r.intervals if seg.wants("intervals") else [])
    if not out.runs and seg.command:
        out.add_run(error_row("jmeter", "no output after the command", NO_RESULT_SHOWN, **cmd))
    return out


def detect(text: str) -> bool:
    """True for JMeter's console: a summariser line, or the non-GUI driver's start.

    >>> detect("summary =     30 in     1s =   34.6/s Avg:     6 Min:     1 Max:   119 Err:     0 (0.00%)\\n")
    True
    >>> detect("Generate Summary Results =   3001 in 00:00:06 =  526.6/s Avg:     9 Min:     0 Max:   272 Err:     0 "
    ...        "(0.00%)")  # the listener's own name (a Generate Summary Results element in the plan)
    True
    >>> detect("Created the tree successfully using plan.jmx\\n"), detect("Summary:\\n  Total: 1 secs\\n")
    (True, False)
    """
    if "Err:" in text and " in " in text:
        for line in text.split("\n"):
            if "Err:" in line and _SUMMARY_RE.match(line.strip()):
                return True
    return "Created the tree successfully using " in text or "Error in NonGUIDriver " in text


FORMATS = [
    Format("jmeter", "jmeter", detect, parse,
           description="JMeter non-GUI console (summariser 'summary +' and 'summary =' lines)"),
]  # fmt: skip
