"""Locust's end-of-run tables (text): request statistics, response time percentiles, error report.

``locust --headless`` logs to stderr and prints, at the end (and every 2 s
while running, unless ``--only-summary``)::

    [2026-11-25 18:44:44,977] vm/INFO/locust.main: Starting Locust 2.47.0
    [2026-11-25 18:44:44,978] vm/INFO/locust.main: Run time limit set to 3 seconds
    [2026-11-25 18:44:44,986] vm/INFO/locust.runners: Ramping to 5 users at a rate of 5.00 per second
    Type     Name      # reqs      # fails |    Avg     Min     Max    Med |   req/s  failures/s
    --------|---------|-------|-------------|-------|-------|-------|-------|--------|-----------
    GET      /           1600     0(0.00%) |      5       0     119      2 |  685.72        0.00
    --------|---------|-------|-------------|-------|-------|-------|-------|--------|-----------
             Aggregated  1600     0(0.00%) |      5       0     119      2 |  685.72        0.00

    Response time percentiles (approximated)
    Type     Name          50%    66%    75%    80%    90%    95%    98%    99%  99.9% 99.99%   100% # reqs
             Aggregated      2      5      8     10     14     17     25     53    110    120    120   1600

    Error report
    # occurrences      Error
    1782               GET /: ConnectionRefusedError(111, 'Connection refused')

The ``Aggregated`` rows are the run; the rows per request name go to the
metrics table (``GET /flaky``: ``requests``, ``failures``, ``avg`` …
``p(99)``, in s and 1/s); the last table of a run is its final one.

==================================  =========================================  ==========
line                                column                                     unit
==================================  =========================================  ==========
``Starting Locust V``               ``tool_version``, ``timestamp``
``Run time limit set to N seconds``  ``time_limit_s``                          s
``Ramping to N users at a rate of   ``concurrency``, ``spawn_rate_per_s``      1/s
R per second``
``# reqs``                          ``requests`` (minus the failures without   count
                                    a response), ``requests_ok`` = reqs - fails
``# fails``                         ``failed``                                 count
``Avg`` ``Min`` ``Max``             ``latency_mean_s``, ``_min_s``, ``_max_s``  ms (whole)
``req/s``                           ``requests_per_s`` (responses per second),  1/s
                                    ``duration_s`` = reqs / req/s
percentiles row                     percentiles table                          ms (whole)
Error report rows                   ``failed_network`` (errors that are an
                                    exception of the connection, not
                                    ``HTTPError`` nor the script's own
                                    failure), ``non_2xx_3xx`` (``HTTPError``:
                                    a status of 400 or more), ``warnings``
``ERROR/locust.user.task`` lines    ``exceptions`` (the script raised)
``CPU usage above 90%!``            the ``cpu`` table: Locust's own process    % of one
                                    (``cpu_pct`` 90, a lower bound: ``summary``  core
                                    'warning'), its host and time
``Worker W (index I) exceeded cpu   the same for worker W's process (its host
threshold``                         from W's id)
==================================  =========================================  ==========

Locust measures its own process every 10 s and logs ``CPU usage above
90%!`` the first time it is over (:data:`CPU_WARNING`); at the end it
repeats ``CPU usage was too high at some point during the test!``, which
alone (a log cut before the first warning) gives the same row; a master
logs each worker over the threshold once. These are the load generator's
CPU evidence: the run's figures were bounded by the tool, not the server.

Locust counts a request that got no response (refused, reset, timed out)
in ``# reqs`` and ``# fails``; ``requests`` are responses, as for every
tool, so they are told apart by the error report. Without one (an older or
cut output) and with failures, ``requests`` stays empty. Times are printed
in whole milliseconds: ``latency_mean_step_s`` is 0.001 s. ``req/s`` is
Locust's: every request, failures included, over the time from the first
request to the last.

>>> p = parse(Segment("Type     Name   # reqs      # fails |    Avg     Min     Max    Med |   req/s  failures/s\\n"
...                   "         Aggregated   100   10(10.00%) |  5  1  9  4 |  50.00  5.00\\n"
...                   "Error report\\n# occurrences      Error\\n10    GET /: HTTPError('503 Server Error')\\n"))
>>> r = p.runs[0]
>>> r["requests"], r["failed"], r["non_2xx_3xx"], r["failed_network"], r["duration_s"], r["latency_mean_s"]
(100, 10, 10, 0, 2.0, 0.005)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlsplit

from ...text import Segment, command_argv
from ..base import NO_ANSWER, NO_RESULT_SHOWN, Format, LineKind, Parsed, Runs, error_row, scan, to_float, to_int

__all__ = [
    "CPU_WARNING",
    "FORMATS",
    "LINES",
    "LINE_KINDS",
    "detect",
    "error_kind",
    "name_rows",
    "parse",
    "parse_command",
]

# an error that is an exception of the connection: no response came (the others are responses)
_RESPONSE_ERRORS = ("HTTPError", "CatchResponseError", "BadStatusCode")


def error_kind(error: str) -> str:
    """'status' (an HTTP error status), 'no response' (refused, reset, timeout) or 'script' (a failure it set).

    >>> error_kind("HTTPError('503 Server Error: Service Unavailable for url: /503')")
    'status'
    >>> error_kind("ConnectionRefusedError(111, 'Connection refused')"), error_kind("body is not the page")
    ('no response', 'script')
    >>> error_kind("CatchResponseError('body is not the page')")
    'script'
    """
    m = re.match(r"^([A-Za-z_][\w.]*)\(", error.strip())
    if not m:
        return "script"
    name = m.group(1).rsplit(".", 1)[-1]
    if name in ("HTTPError", "BadStatusCode"):
        return "status"
    if name in _RESPONSE_ERRORS:
        return "script"
    return "no response"


@dataclass
class _Run:
    d: dict = field(default_factory=dict)
    stats: re.Match | None = None
    percent_labels: list[float] = field(default_factory=list)
    percentiles: list[dict] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)
    section: str = ""
    exceptions: int = 0
    shut_down: bool = False
    names: list[dict] = field(default_factory=list)  # the rows per request name of the last tables (metrics)
    name_percentiles: list[dict] = field(default_factory=list)
    line: int = 0  # the line of the segment it starts on
    cpu: dict[str, dict] = field(default_factory=dict)  # the CPU warnings, one row per process ('' = this one)


_STATS_HEADER_RE = re.compile(r"^\s*(?:Type\s+)?Name\s+# reqs\s+# fails\b")
_PERCENTILES_HEADER_RE = re.compile(r"^\s*(?:Type\s+)?Name\s+((?:[\d.]+%\s+)+)# reqs\s*$")
_OLD_PERCENTILES_HEADER_RE = re.compile(r"^\s*Name\s+# reqs\s+((?:[\d.]+%\s*)+)$")
_OPENERS = ("stats_header", "percentiles_header", "old_percentiles_header")  # a table with no log above it
_LOG_SEARCHED = ("time_limit", "ramping", "spawned", "shutting_down")  # kinds found anywhere in a line


def _reader() -> Runs[_Run]:
    """The runs of one segment (:class:`~lbanalysis.readers.base.Runs`), started where :func:`_starts_run` says."""
    return Runs(lambda n: _Run(line=n), _starts_run)


def _starts_run(kind: str, m: re.Match, cur: _Run | None) -> bool:
    """A run starts at ``Starting Locust``, or at a statistics or percentiles table before any run
    (also one whose header line holds a log message another kind reads first).

    >>> head = _STATS_HEADER_RE.match("Type  Name  # reqs  # fails")
    >>> _starts_run("stats_header", head, None), _starts_run("stats_header", head, _Run()), _starts_run("rule", head, None)
    (True, False, False)
    """
    if kind == "starting":
        return True
    if cur is not None:
        return False
    return kind in _OPENERS or (kind in _LOG_SEARCHED and _opens(m.string))


def _opens(line: str) -> bool:
    return any(p.match(line) for p in (_STATS_HEADER_RE, _PERCENTILES_HEADER_RE, _OLD_PERCENTILES_HEADER_RE))


def _time(stamp: str) -> datetime | None:
    """A log line's time (``2026-11-25 18:44:44``), None where it is not one."""
    try:
        return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None


def _starting(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("starting", n, m)
    if r is None:
        return
    r.d["tool_version"] = m.group(2)
    stamp = _time(m.group(1))
    if stamp is not None:
        r.d["timestamp"] = stamp


def _time_limit(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("time_limit", n, m)
    if r is None:
        return
    r.d["time_limit_s"] = float(m.group(1))


def _ramping(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("ramping", n, m)
    if r is None:
        return
    r.d["concurrency"], r.d["spawn_rate_per_s"] = int(m.group(1)), float(m.group(2))


def _spawned(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("spawned", n, m)
    if r is None:
        return
    r.d["concurrency"] = int(m.group(1))


def _exception(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("exception", n, m)
    if r is None:
        return
    r.exceptions += 1


def _shutting_down(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("shutting_down", n, m)
    if r is None:
        return
    r.shut_down = True


#: Locust's CPU warning threshold (``runners.CPU_WARNING_THRESHOLD``, percent of one core; a constant since 0.14),
#: for the warnings that do not print it
CPU_WARNING = 90.0
_CPU_WARNING_RE = re.compile(
    r"^\[([\d-]+ [\d:]+)(?:,\d+)?\] (\S+)/WARNING/[\w.]+: (?:CPU usage above ([\d.]+)%!"
    r"|Worker (\S+?)(?: \(index \d+\))? exceeded cpu threshold|CPU usage (?:was too high at some point"
    r"|threshold was exceeded on (workers)))"
)


def _cpu_warning(rd: Runs[_Run], n: int, m: re.Match) -> None:
    """A CPU warning: a row of the ``cpu`` table for the process it names (this one, or a worker), once each."""
    r = rd.run_for("cpu_warning", n, m)
    if r is None:
        return
    stamp, host, above, worker, workers = m.groups()
    key = worker or ("worker" if workers else "")
    if key in r.cpu or (workers and any(r.cpu)):
        return
    if worker:
        host = worker.rsplit("_", 1)[0] if "_" in worker else None
    elif workers:
        host = None  # a master's summary: some worker, not named
    pct = float(above) if above else CPU_WARNING
    r.cpu[key] = {
        "line": n, "host": host, "time": _time(stamp), "scope": "process", "role": "client", "cores": 1.0,
        "cpu_pct": pct, "busy_pct": pct, "summary": "warning",
        "command": "locust --worker" if key else "locust",
    }  # fmt: skip


def _stats_header(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("stats_header", n, m)
    if r is None:
        return
    r.section = "stats"
    r.names = []


def _percentiles_header(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("percentiles_header", n, m)
    if r is not None:
        _percent_labels(r, m)


def _percent_labels(r: _Run, m: re.Match) -> None:
    r.section = "percentiles"
    r.percent_labels = [float(x.rstrip("%")) for x in m.group(1).split()]
    r.name_percentiles = []


def _error_header(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("error_header", n, m)
    if r is None:
        return
    r.section = "errors"
    r.errors = []


def _aggregated_stats(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("aggregated_stats", n, m)
    if r is None:
        return
    r.stats = m
    r.errors = []  # a later table: its error report follows it
    r.names = [x for x in r.names if x["metric"] != "Aggregated"]
    _add_name_stats(r, m, "Aggregated")  # its share and rate of failures, which the run has no column for


def _old_percentiles_header(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("old_percentiles_header", n, m)
    if r is None:
        return
    _percent_labels(r, m)
    r.section = "old percentiles"  # Locust 0.x: '# reqs' comes first


def _old_total_stats(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("old_total_stats", n, m)
    if r is None:
        return
    r.stats = m
    r.errors = []


def _aggregated_percentiles(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("aggregated_percentiles", n, m)
    if r is None:
        return
    if r.section not in ("percentiles", "old percentiles"):
        return
    values = m.group(1).split()
    values = values[1:] if r.section == "old percentiles" else values[:-1]  # without '# reqs'
    r.percentiles = [
        {"percentile": p, "latency_s": int(v) / 1e3}
        for p, v in zip(r.percent_labels, values, strict=False)
        if v != "N/A"
    ]


def _name_stats(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("name_stats", n, m)
    if r is not None:
        _add_name_stats(r, m)


def _add_name_stats(r: _Run, m: re.Match, metric: str | None = None) -> None:
    """The rows of one request name's statistics (``metric``: the Aggregated row, whose match has no name)."""
    if r.section != "stats":
        return
    g = ("", "", *m.groups()) if metric else m.groups()
    r.names += name_rows(metric or f"{g[0]} {g[1]}", [
        ("requests", int(g[2]), ""), ("failures", int(g[3]), ""), ("failures_pct", float(g[4]), "%"),
        ("avg", int(g[5]) / 1e3, "s"), ("min", int(g[6]) / 1e3, "s"), ("max", int(g[7]) / 1e3, "s"),
        ("med", int(g[8]) / 1e3, "s"), ("rate", float(g[9]), "1/s"), ("failures_rate", float(g[10]), "1/s"),
    ])  # fmt: skip


def _name_percentiles(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("name_percentiles", n, m)
    if r is None:
        return
    if r.section != "percentiles":
        return
    values = m.group(3).split()
    items = [
        (f"p({p:g})", int(v) / 1e3, "s") for p, v in zip(r.percent_labels, values[:-1], strict=False) if v != "N/A"
    ]
    r.name_percentiles += name_rows(f"{m.group(1)} {m.group(2)}", items)


def name_rows(metric: str, items: list[tuple[str, float | None, str]]) -> list[dict]:
    """Rows of the metrics table for one request name (``GET /flaky``): (stat, value, unit) each.

    >>> name_rows("GET /", [("requests", 5, ""), ("avg", 0.004, "s"), ("min", None, "s")])[1]
    {'metric': 'GET /', 'stat': 'avg', 'value': 0.004, 'unit': 's'}
    """
    return [{"metric": metric, "stat": s, "value": float(v), "unit": u} for s, v, u in items if v is not None]


def _error_row(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("error_row", n, m)
    if r is None:
        return
    if r.section == "errors":
        r.errors.append((int(m.group(1)), m.group(2)))


def _rule(rd: Runs[_Run], n: int, m: re.Match) -> None:
    rd.run_for("rule", n, m)


#: The lines Locust prints, in the order they are tried (first match wins; see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("starting", "Starting Locust ",
             re.compile(r"^\[([\d-]+ [\d:]+)(?:,\d+)?\] \S+/INFO/locust\.main: Starting Locust (\S+)"), _starting),
    LineKind("time_limit", "Run time limit set to ",
             re.compile(r"/INFO/locust\.main: Run time limit set to ([\d.]+) seconds"), _time_limit, search=True),
    LineKind("ramping", "Ramping to ",
             re.compile(r"/INFO/locust\.runners: Ramping to (\d+) users at a rate of ([\d.]+) per second"), _ramping,
             search=True),
    LineKind("spawned", "All users spawned: ",
             re.compile(r"/INFO/locust\.runners: All users spawned: .*\((\d+) total users\)"), _spawned, search=True),
    # 'task:(?: |$)': its space is gone from the right-stripped line when no message follows
    LineKind("exception", "/ERROR/locust.user.task:", re.compile(r"^\[[^\]]+\] \S+/ERROR/locust\.user\.task:(?: |$)"),
             _exception),
    LineKind("shutting_down", "Shutting down (exit code ",
             re.compile(r"/INFO/locust\.main: Shutting down \(exit code (\d+)\)"), _shutting_down, search=True),
    LineKind("cpu_warning", "/WARNING/", _CPU_WARNING_RE, _cpu_warning),
    LineKind("stats_header", "# fails", _STATS_HEADER_RE, _stats_header),
    LineKind("percentiles_header", "# reqs", _PERCENTILES_HEADER_RE, _percentiles_header),
    LineKind("old_percentiles_header", "# reqs", _OLD_PERCENTILES_HEADER_RE, _old_percentiles_header),
    LineKind("error_header", "# occur", re.compile(r"^\s*# occurr?ences\s+Error\s*$"), _error_header),
    LineKind("aggregated_stats", "%)", re.compile(
        r"^\s*(?:None\s+)?(?:Aggregated|Total)\s+(\d+)\s+(\d+)\(([\d.]+)%\)\s*\|\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)"
        r"\s*\|\s*([\d.]+)\s+([\d.]+)\s*$"), _aggregated_stats),
    LineKind("old_total_stats", "Total", re.compile(r"^\s*Total\s+(\d+)\s+(\d+)\(([\d.]+)%\)\s+([\d.]+)\s*$"),
             _old_total_stats),
    LineKind("aggregated_percentiles", "",
             re.compile(r"^\s*(?:None\s+)?(?:Aggregated|Total)\s+((?:(?:\d+|N/A)\s+)+\d+)\s*$"), _aggregated_percentiles),
    LineKind("name_stats", "%)", re.compile(
        r"^\s*([A-Z]+)\s+(\S.*?)\s+(\d+)\s+(\d+)\(([\d.]+)%\)\s*\|\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)"
        r"\s*\|\s*([\d.]+)\s+([\d.]+)\s*$"), _name_stats),
    LineKind("name_percentiles", "", re.compile(r"^\s*([A-Z]+)\s+(\S.*?)\s+((?:(?:\d+|N/A)\s+)+\d+)\s*$"),
             _name_percentiles),
    LineKind("error_row", "", re.compile(r"^\s*(\d+)\s{2,}(\S.*?)\s*$"), _error_row),
    LineKind("rule", "", re.compile(r"^[-|]+\s*$"), _rule),
]  # fmt: skip
#: Line kind -> pattern (kept for code that reads it; the grammar is :data:`LINE_KINDS`).
LINES: dict[str, re.Pattern] = {k.name: k.pattern for k in LINE_KINDS}


def parse_command(command: str) -> dict:
    """Run fields from a locust command line.

    >>> d = parse_command("locust -f x.py --headless -u 10 -r 5 -t 30s --host http://127.0.0.1:8089/api")
    >>> d["concurrency"], d["spawn_rate_per_s"], d["time_limit_s"], d["port"], d["path"]
    (10, 5.0, 30.0, 8089, '/api')
    """
    argv = command_argv(command)
    opts: dict[str, str] = {}
    names = {"-u": "u", "--users": "u", "-r": "r", "--spawn-rate": "r", "-t": "t", "--run-time": "t", "-H": "host",
             "--host": "host"}  # fmt: skip
    for i, tok in enumerate(argv):
        key, eq, val = tok.partition("=")
        if key in names:
            if eq:
                opts[names[key]] = val
            elif i + 1 < len(argv):
                opts[names[key]] = argv[i + 1]
    out: dict = {}
    if "u" in opts:
        out["concurrency"] = to_int(opts["u"])
    if "r" in opts:
        out["spawn_rate_per_s"] = to_float(opts["r"])
    if "t" in opts:
        out["time_limit_s"] = _run_time(opts["t"])
    if "host" in opts and "://" in opts["host"]:
        parts = urlsplit(opts["host"])
        out.update(url=opts["host"], host=parts.hostname, path=parts.path or "/")
        try:
            out["port"] = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            pass
    return {k: v for k, v in out.items() if v is not None}


def _run_time(text: str) -> float | None:
    """Seconds from Locust's ``-t`` (``30``, ``30s``, ``1h30m``, ``2m``)."""
    parts = re.findall(r"(\d+(?:\.\d+)?)([hms]?)", text)
    if not parts or "".join(a + b for a, b in parts) != text.strip():
        return None
    return sum(float(v) * {"h": 3600.0, "m": 60.0, "s": 1.0, "": 1.0}[u] for v, u in parts)


def counts(d: dict, reqs: int, fails: int, errors: list[tuple[int, str]] | None) -> None:
    """requests, failed, requests_ok, failed_network and non_2xx_3xx from Locust's counts and errors."""
    d["failed"], d["requests_ok"] = fails, reqs - fails
    if errors is not None:
        no_answer = sum(n for n, e in errors if error_kind(_message(e)) == "no response")
        d["failed_network"] = no_answer
        d["non_2xx_3xx"] = sum(n for n, e in errors if error_kind(_message(e)) == "status")
        d["requests"] = reqs - no_answer
    elif fails == 0:
        d["failed_network"], d["requests"] = 0, reqs


def _message(error: str) -> str:
    """The error without its ``METHOD name: `` prefix (the text error report prints it)."""
    m = re.match(r"^[A-Z]+ \S.*?: (\S.*)$", error)
    return m.group(1) if m else error


def _row(r: _Run) -> dict:
    d = dict(r.d)
    d["tool"] = "locust"
    if r.exceptions:
        d["exceptions"] = r.exceptions
    if r.stats is None:
        d["error"] = (
            "no statistics table printed (--json or --json-file takes its place)"
            if r.shut_down
            else "no result: the output stops before Locust's request statistics"
        )
        d["error_kind"] = NO_RESULT_SHOWN
        return d
    reqs, fails = int(r.stats.group(1)), int(r.stats.group(2))
    old = r.stats.re is LINES["old_total_stats"]  # Locust 0.x: the Total row has no times
    times = None if old else tuple(int(r.stats.group(i)) / 1e3 for i in (4, 5, 6))
    rate = float(r.stats.group(4 if old else 8))
    error_seen = bool(r.errors) or r.section == "errors"
    counts(d, reqs, fails, r.errors if error_seen or fails == 0 else None)
    if r.errors:
        d["warnings"] = "; ".join(f"{e} (x{n})" for n, e in r.errors)
    if d.get("requests") and times is not None:
        d.update(latency_mean_s=times[0], latency_min_s=times[1], latency_max_s=times[2], latency_mean_step_s=0.001)
    if rate > 0:
        d["duration_s"] = reqs / rate
        if "requests" in d:
            d["requests_per_s"] = rate if d["requests"] == reqs else d["requests"] / d["duration_s"]
    if reqs and d.get("requests") == 0:
        d["error"] = "no response: " + "; ".join(f"{e} (x{n})" for n, e in r.errors)
        d["error_kind"] = NO_ANSWER
        d.pop("warnings", None)
    elif reqs == 0:
        d["error"], d["error_kind"] = "no request was made", NO_RESULT_SHOWN
    return d


def parse(seg: Segment) -> Parsed:
    """Read every Locust run in a segment (a run starts at ``Starting Locust``)."""
    cmd = parse_command(seg.command) if seg.command else {}
    out = Parsed()
    for run in scan(seg.text, LINE_KINDS, _reader()).runs:
        row = _row(run)
        answered = run.stats is not None and row.get("requests") != 0  # Locust times refusals too: not latencies
        cpu = [{**c, "run_source": seg.source, "paired_by": "same file", "tool": "locust"} for c in run.cpu.values()]
        out.add_run({**cmd, **row, "line": run.line}, percentiles=run.percentiles if answered else [],
                    metrics=run.names + run.name_percentiles, cpu=cpu)  # fmt: skip
    if not out.runs and seg.command:
        out.add_run(error_row("locust", "no output after the command", **cmd))
    return out


_DETECT_RE = re.compile(
    r"^\[[\d-]+ [\d:,]+\] \S+/INFO/locust\.main: Starting Locust \S+|^\s*(?:Type\s+)?Name\s+# reqs\s+# fails\s",
    re.M,
)


def detect(text: str) -> bool:
    """True for Locust's log or request statistics table.

    >>> detect("Type     Name      # reqs      # fails |    Avg     Min     Max    Med |   req/s  failures/s\\n")
    True
    """
    return ("locust" in text or "# reqs" in text) and bool(_DETECT_RE.search(text))


FORMATS = [
    Format(
        "locust",
        "locust",
        detect,
        parse,
        description="Locust end-of-run tables (request statistics, percentiles, error report) and log",
    )
]
