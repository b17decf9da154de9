"""httperf's summary (HP's httperf; Debian's 0.9.0).

httperf opens ``--num-conns`` connections at ``--rate`` connections per
second, whatever the answers do (open loop; without ``--rate``, one
connection after the other), sends ``--num-calls`` requests on each, and
prints, after the echo of its whole command line (defaults included)::

    httperf --client=0/1 --server=127.0.0.1 --port=18600 --uri=/ --rate=200 --send-buffer=4096 ...
    Maximum connect burst length: 2

    Total: connections 2200 requests 2200 replies 2200 test-duration 10.996 s

    Connection rate: 200.1 conn/s (5.0 ms/conn, <=4 concurrent connections)
    Connection time [ms]: min 0.1 avg 0.3 max 12.0 median 0.5 stddev 0.7
    Connection time [ms]: connect 0.0
    Connection length [replies/conn]: 1.000

    Request rate: 200.1 req/s (5.0 ms/req)
    Request size [B]: 62.0

    Reply rate [replies/s]: min 200.0 avg 200.0 max 200.0 stddev 0.0 (2 samples)
    Reply time [ms]: response 0.3 transfer 0.0
    Reply size [B]: header 230.0 content 177.0 footer 0.0 (total 407.0)
    Reply status: 1xx=0 2xx=2200 3xx=0 4xx=0 5xx=0

    CPU time [s]: user 1.41 system 8.86 (user 12.8% system 80.5% total 93.4%)
    Net I/O: 91.6 KB/s (0.8*10^6 bps)

    Errors: total 0 client-timo 0 socket-timo 0 connrefused 0 connreset 0
    Errors: fd-unavail 0 addrunavail 0 ftab-full 0 other 0

=====================================  ==============================================  ========
line                                   column                                          unit
=====================================  ==============================================  ========
echo: ``--server --port --uri --ssl``  ``url``, ``host``, ``port``, ``path``
echo: ``--rate``                       ``rate_target_per_s`` (connections per second)  1/s
echo: ``--num-conns``                  ``connections_planned``; ``requests_planned``
                                       = num-conns x ``calls_per_connection``
echo: ``--num-calls``, ``--timeout``   ``calls_per_connection``, ``timeout_s``          s
``Maximum connect burst length``       ``connect_burst_max``
``Total``                              ``connections``, ``requests_attempted``
                                       (requests sent), ``requests`` (replies),
                                       ``duration_s``                                  s
``Connection rate``                    ``connection_rate_per_s``,                      1/s
                                       ``connections_concurrent_max``
``Connection time`` min ... stddev     phases ``connection`` (min, mean, max,          ms
                                       median, sd: a whole connection)
``Connection time`` connect            phases ``connect`` (mean)                       ms
``Connection length``                  ``replies_per_connection``
``Request rate``, ``Request size``     ``requests_attempted_per_s``,                   1/s, B
                                       ``bytes_sent_per_request`` (headers included)
``Reply rate`` (5-s samples)           ``interval_requests_per_s_min`` / ``_mean`` /   1/s
                                       ``_max`` / ``_stdev``, ``interval_samples``
                                       (empty with 0 samples: httperf prints zeros)
``Reply time``                         phases ``response`` (to the reply's first       ms
                                       byte) and ``transfer`` (the rest);
                                       ``latency_mean_s`` is their sum
``Reply size``                         ``reply_header_bytes``, ``bytes_per_request``   B
                                       (content), ``reply_footer_bytes``,
                                       ``reply_bytes`` (total)
``Reply status``                       ``status_codes``, ``non_2xx`` (replies not
                                       2xx), ``requests_ok`` (replies below 400)
``CPU time``                           the ``cpu`` table: httperf's own process        s, %
                                       (user_s, system_s, user_pct, system_pct,
                                       cpu_pct: their total, of one core)
``Net I/O``                            ``bytes_per_s_total`` (sent + received,         KB/s
                                       KB = 1024 B)
``Errors``                             ``failed`` = ``failed_network`` (total: none
                                       got a reply), ``errors_client_timeout`` ...
                                       ``errors_other`` by kind
``reply-rate = N`` (``-v``)            intervals (5 s each, ``requests_per_s``)        1/s
=====================================  ==============================================  ========

The rate of requests asked is ``--rate`` x ``--num-calls``; ``rate_target_per_s``
holds the connection rate as httperf takes it. ``bytes_total`` is the replies
times their mean size, ``bytes_sent`` the requests sent times theirs. A run
with errors and no reply has ``error`` set (no answer); httperf refusing
its options (``unrecognized option``) is a command refused.

>>> text = ("Total: connections 10 requests 10 replies 8 test-duration 1.000 s\\n"
...         "Reply status: 1xx=0 2xx=6 3xx=0 4xx=0 5xx=2\\n"
...         "Errors: total 2 client-timo 2 socket-timo 0 connrefused 0 connreset 0\\n")
>>> r = parse(Segment(text)).runs[0]
>>> r["requests"], r["requests_ok"], r["non_2xx"], r["failed_network"], r["status_codes"]
(8, 6, 2, 2, '2xx: 6; 5xx: 2')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...text import Segment, at_line_start, command_argv
from ..base import COMMAND_REFUSED, NO_ANSWER, Format, LineKind, Parsed, error_row, scan, to_float, to_int

__all__ = ["ERRORS", "FORMATS", "LINE_KINDS", "OPTIONS", "detect", "parse", "parse_command"]

#: Its ``Errors:`` counters -> columns (``total`` is ``failed``).
ERRORS: dict[str, str] = {
    "client-timo": "errors_client_timeout",
    "socket-timo": "errors_socket_timeout",
    "connrefused": "errors_connection_refused",
    "connreset": "errors_connection_reset",
    "fd-unavail": "errors_fd_unavailable",
    "addrunavail": "errors_address_unavailable",
    "ftab-full": "errors_ftab_full",
    "other": "errors_other",
}
#: Options (``--name=value`` or ``--name value``) -> (column, type).
OPTIONS: dict[str, tuple[str, type]] = {
    "rate": ("rate_target_per_s", float),
    "num-conns": ("connections_planned", int),
    "num-calls": ("calls_per_connection", int),
    "timeout": ("timeout_s", float),
    "method": ("method", str),
}
_FLAGS = {"hog", "ssl", "verbose", "v", "retry-on-failure", "http-version", "no-host-hdr", "session-cookie"}
_MS = 1e-3

_ECHO_RE = re.compile(r"^httperf(?: --[\w-]+(?:=\S*)?)+$")
_VERSION_RE = re.compile(r"^httperf: httperf-(\S+) ")
_BURST_RE = re.compile(r"^Maximum connect burst length: (\d+)")
_TOTAL_RE = re.compile(r"^Total: connections (\d+) requests (\d+) replies (\d+) test-duration (\S+) s")
_CONN_RATE_RE = re.compile(r"^Connection rate: (\S+) conn/s \((\S+) ms/conn, <=(\d+) concurrent connections\)")
_CONN_TIME_RE = re.compile(r"^Connection time \[ms\]: min (\S+) avg (\S+) max (\S+) median (\S+) stddev (\S+)")
_CONNECT_RE = re.compile(r"^Connection time \[ms\]: connect (\S+)")
_CONN_LENGTH_RE = re.compile(r"^Connection length \[replies/conn\]: (\S+)")
_REQ_RATE_RE = re.compile(r"^Request rate: (\S+) req/s \((\S+) ms/req\)")
_REQ_SIZE_RE = re.compile(r"^Request size \[B\]: (\S+)")
_REPLY_RATE_RE = re.compile(r"^Reply rate \[replies/s\]: min (\S+) avg (\S+) max (\S+) stddev (\S+) \((\d+) samples\)")
_REPLY_TIME_RE = re.compile(r"^Reply time \[ms\]: response (\S+) transfer (\S+)")
_REPLY_SIZE_RE = re.compile(r"^Reply size \[B\]: header (\S+) content (\S+) footer (\S+) \(total (\S+)\)")
_STATUS_RE = re.compile(r"^Reply status: (.*)$")
_CPU_RE = re.compile(r"^CPU time \[s\]: user (\S+) system (\S+) \(user (\S+)% system (\S+)% total (\S+)%\)")
_NET_RE = re.compile(r"^Net I/O: (\S+) KB/s")
_ERRORS_RE = re.compile(r"^Errors: (.*)$")
_SAMPLE_RE = re.compile(r"^reply-rate = (\S+)")
_MESSAGE_RE = re.compile(r"^httperf: (.*)$")
_REFUSED_RE = re.compile(r"unrecognized option|invalid option|requires an argument|illegal|unknown option")


@dataclass
class _Run:
    line: int
    d: dict = field(default_factory=dict)
    phases: list[dict] = field(default_factory=list)
    samples: list[float] = field(default_factory=list)
    cpu: dict = field(default_factory=dict)
    statuses: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    has_total: bool = False


@dataclass
class _Reader:
    """The runs of one segment: each starts at httperf's echo of its command, or at a ``Total`` line."""

    runs: list[_Run] = field(default_factory=list)
    messages: list[tuple[int, str]] = field(default_factory=list)
    version: str | None = None

    def run_for(self, kind: str, n: int) -> _Run:
        """The run this line belongs to, started here when :func:`_starts_run` says so."""
        if _starts_run(kind, self.runs[-1] if self.runs else None):
            self.runs.append(_Run(n))
        return self.runs[-1]


def _starts_run(kind: str, current: _Run | None) -> bool:
    """The one place that decides where a run starts: the echo of its command, the first figure when
    no run is open (the echo was the segment's command line, or a summary was pasted without it), or a
    ``Total`` line when the open run has its total already.

    >>> _starts_run("echo", _Run(1)), _starts_run("sample", None), _starts_run("status", _Run(1))
    (True, True, False)
    """
    return kind == "echo" or current is None or (kind == "total" and current.has_total)


def _echo(rd: _Reader, n: int, m: re.Match) -> None:
    run = rd.run_for("echo", n)
    run.d.update(parse_command(m.group(0)))
    run.d["command"] = m.group(0)


def _version(rd: _Reader, n: int, m: re.Match) -> None:
    rd.version = m.group(1).rstrip(".")


def _burst(rd: _Reader, n: int, m: re.Match) -> None:
    rd.run_for("burst", n).d["connect_burst_max"] = int(m.group(1))


def _total(rd: _Reader, n: int, m: re.Match) -> None:
    run = rd.run_for("total", n)
    run.has_total = True
    run.d.update(connections=int(m.group(1)), requests_attempted=int(m.group(2)), requests=int(m.group(3)),
                 duration_s=to_float(m.group(4)))  # fmt: skip


def _conn_rate(rd: _Reader, n: int, m: re.Match) -> None:
    run = rd.run_for("rate", n)
    run.d["connection_rate_per_s"] = to_float(m.group(1))
    run.d["connections_concurrent_max"] = int(m.group(3))


def _conn_time(rd: _Reader, n: int, m: re.Match) -> None:
    low, mean, high, median, sd = (to_float(m.group(i)) for i in range(1, 6))
    rd.run_for("phase", n).phases.append(
        {
            "phase": "connection",
            "min_s": _s(low),
            "mean_s": _s(mean),
            "max_s": _s(high),
            "median_s": _s(median),
            "sd_s": _s(sd),
        }
    )


def _connect(rd: _Reader, n: int, m: re.Match) -> None:
    rd.run_for("phase", n).phases.append({"phase": "connect", "mean_s": _s(to_float(m.group(1)))})


def _conn_length(rd: _Reader, n: int, m: re.Match) -> None:
    rd.run_for("length", n).d["replies_per_connection"] = to_float(m.group(1))


def _req_rate(rd: _Reader, n: int, m: re.Match) -> None:
    rd.run_for("rate", n).d["requests_attempted_per_s"] = to_float(m.group(1))


def _req_size(rd: _Reader, n: int, m: re.Match) -> None:
    rd.run_for("size", n).d["bytes_sent_per_request"] = to_float(m.group(1))


def _reply_rate(rd: _Reader, n: int, m: re.Match) -> None:
    run = rd.run_for("rate", n)
    run.d["interval_samples"] = samples = int(m.group(5))
    if samples:  # with no sample httperf prints zeros: nothing was measured
        for i, col in enumerate(("min", "mean", "max", "stdev"), 1):
            run.d[f"interval_requests_per_s_{col}"] = to_float(m.group(i))


def _reply_time(rd: _Reader, n: int, m: re.Match) -> None:
    run = rd.run_for("phase", n)
    for i, phase in ((1, "response"), (2, "transfer")):
        run.phases.append({"phase": phase, "mean_s": _s(to_float(m.group(i)))})


def _reply_size(rd: _Reader, n: int, m: re.Match) -> None:
    header, content, footer, total = (to_float(m.group(i)) for i in range(1, 5))
    rd.run_for("size", n).d.update(reply_header_bytes=header, bytes_per_request=content,
                                   reply_footer_bytes=footer, reply_bytes=total)  # fmt: skip


def _status(rd: _Reader, n: int, m: re.Match) -> None:
    run = rd.run_for("status", n)
    for part in m.group(1).split():
        code, _, count = part.partition("=")
        run.statuses[code] = int(count)


def _cpu(rd: _Reader, n: int, m: re.Match) -> None:
    user_s, system_s, user_pct, system_pct, total_pct = (to_float(m.group(i)) for i in range(1, 6))
    rd.run_for("cpu", n).cpu = {
        "line": n, "user_s": user_s, "system_s": system_s, "user_pct": user_pct, "system_pct": system_pct,
        "cpu_pct": total_pct,
    }  # fmt: skip


def _net(rd: _Reader, n: int, m: re.Match) -> None:
    kb = to_float(m.group(1))
    rd.run_for("net", n).d["bytes_per_s_total"] = kb * 1024 if kb is not None else None


def _errors(rd: _Reader, n: int, m: re.Match) -> None:
    run = rd.run_for("errors", n)
    words = m.group(1).split()
    for name, count in zip(words[::2], words[1::2], strict=False):
        run.errors[name] = int(count)


def _sample(rd: _Reader, n: int, m: re.Match) -> None:
    rd.run_for("sample", n).samples.append(to_float(m.group(1)) or 0.0)


def _message(rd: _Reader, n: int, m: re.Match) -> None:
    rd.messages.append((n, m.group(1)))


#: The lines httperf prints, in the order they are tried (first match wins; see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("echo", "httperf --", _ECHO_RE, _echo),
    LineKind("version", "httperf: httperf-", _VERSION_RE, _version),
    LineKind("message", "httperf: ", _MESSAGE_RE, _message),
    LineKind("burst", "burst", _BURST_RE, _burst),
    LineKind("total", "Total:", _TOTAL_RE, _total),
    LineKind("connection rate", "conn/s", _CONN_RATE_RE, _conn_rate),
    LineKind("connection time", "stddev", _CONN_TIME_RE, _conn_time),
    LineKind("connect", "connect", _CONNECT_RE, _connect),
    LineKind("connection length", "length", _CONN_LENGTH_RE, _conn_length),
    LineKind("request rate", "req/s", _REQ_RATE_RE, _req_rate),
    LineKind("request size", "Request size", _REQ_SIZE_RE, _req_size),
    LineKind("reply rate", "samples", _REPLY_RATE_RE, _reply_rate),
    LineKind("reply time", "Reply time", _REPLY_TIME_RE, _reply_time),
    LineKind("reply size", "Reply size", _REPLY_SIZE_RE, _reply_size),
    LineKind("reply status", "Reply status", _STATUS_RE, _status),
    LineKind("cpu", "CPU time", _CPU_RE, _cpu),
    LineKind("net", "Net I/O", _NET_RE, _net),
    LineKind("errors", "Errors:", _ERRORS_RE, _errors),
    LineKind("reply-rate sample", "reply-rate", _SAMPLE_RE, _sample),
]


def _s(ms: float | None) -> float | None:
    return ms * _MS if ms is not None else None


def parse_command(command: str) -> dict:
    """Run fields from an httperf command line (as typed, or as httperf echoes it).

    >>> d = parse_command("httperf --server 127.0.0.1 --port=8080 --uri /a --rate 50 --num-conns 100 --num-calls 2")
    >>> d["url"], d["rate_target_per_s"], d["connections_planned"], d["requests_planned"]
    ('http://127.0.0.1:8080/a', 50.0, 100, 200)
    """
    argv = command_argv(command)
    opts: dict[str, str] = {}
    i = 1 if argv and not argv[0].startswith("-") else 0
    while i < len(argv):
        tok = argv[i]
        if tok.startswith("--"):
            name, eq, val = tok[2:].partition("=")
            if not eq and name not in _FLAGS and i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                i += 1
                val = argv[i]
            opts[name] = val
        i += 1
    out: dict = {}
    for name, (col, kind) in OPTIONS.items():
        if opts.get(name):
            value = to_float(opts[name]) if kind is not str else opts[name].upper()
            if value is not None:
                out[col] = round(value) if kind is int else value
    if out.get("rate_target_per_s") == 0:
        del out["rate_target_per_s"]  # --rate=0: one connection after another, no target
    calls = out.get("calls_per_connection", 1)
    if "connections_planned" in out:
        out["requests_planned"] = out["connections_planned"] * calls
    out.setdefault("method", "GET")
    host = opts.get("server")
    if host:
        ssl = "ssl" in opts
        port = to_int(opts.get("port")) or (443 if ssl else 80)
        path = opts.get("uri") or "/"
        out.update(url=f"{'https' if ssl else 'http'}://{host}:{port}{path}", host=host, port=port, path=path)
    return out


def _counts(d: dict, r: _Run) -> None:
    """Status classes and errors: the answers that were not good, the failures by kind."""
    replies = d.get("requests")
    if r.statuses:
        d["status_codes"] = "; ".join(f"{k}: {v}" for k, v in r.statuses.items() if v) or None
        if replies is not None:
            d["non_2xx"] = replies - r.statuses.get("2xx", 0)
            d["requests_ok"] = replies - r.statuses.get("4xx", 0) - r.statuses.get("5xx", 0)
    if r.errors:
        d["failed"] = d["failed_network"] = r.errors.get("total", 0)
        d.update({col: r.errors[name] for name, col in ERRORS.items() if name in r.errors})


def _volumes(d: dict) -> None:
    """Rates and bytes from the counts, the sizes per reply or request, and the duration."""
    replies, duration = d.get("requests"), d.get("duration_s")
    if replies and duration:
        d["requests_per_s"] = replies / duration
    if replies is not None and d.get("reply_bytes") is not None:
        d["bytes_total"] = replies * d["reply_bytes"]
        if duration:
            d["bytes_per_s"] = d["bytes_total"] / duration
    if d.get("requests_attempted") is not None and d.get("bytes_sent_per_request") is not None:
        d["bytes_sent"] = d["requests_attempted"] * d["bytes_sent_per_request"]
        if duration:
            d["bytes_sent_per_s"] = d["bytes_sent"] / duration


def _row(r: _Run, version: str | None) -> dict:
    d = dict(r.d)
    if version:
        d["tool_version"] = version
    replies = d.get("requests")
    _counts(d, r)
    _volumes(d)
    times = {p["phase"]: p["mean_s"] for p in r.phases}
    if replies and times.get("response") is not None:
        d["latency_mean_s"] = times["response"] + (times.get("transfer") or 0.0)
    if not replies and d.get("failed"):
        kinds = ", ".join(f"{name} {r.errors[name]}" for name in ERRORS if r.errors.get(name))
        d["error"], d["error_kind"] = f"no reply: {kinds or 'errors ' + str(d['failed'])}", NO_ANSWER
    return d


def _phases(r: _Run) -> list[dict]:
    """The phases the run measured (none when no reply came: httperf prints zeros)."""
    if not r.d.get("requests"):
        return [p for p in r.phases if p["phase"] == "connect" and p["mean_s"]]
    return r.phases


def parse(seg: Segment) -> Parsed:
    """Read every httperf summary in a segment."""
    rd = scan(seg.text, LINE_KINDS, _Reader())
    cmd = parse_command(seg.command) if seg.command else {}
    warnings = "; ".join(dict.fromkeys(msg for _, msg in rd.messages if msg.startswith("warning")))
    out = Parsed()
    for run in rd.runs:
        row = {**cmd, **_row(run, rd.version), "line": run.line}
        if seg.command:
            row.pop("command", None)  # the command typed above the echo is the run's
        if warnings:
            row["warnings"] = warnings
        intervals = [
            {"start_s": 5.0 * i, "end_s": 5.0 * (i + 1), "requests_per_s": v} for i, v in enumerate(run.samples)
        ]
        cpu = []
        if run.cpu:
            cpu = [{**run.cpu, "run_source": seg.source, "paired_by": "same file", "role": "client",
                    "scope": "process", "cores": 1.0, "busy_pct": run.cpu["cpu_pct"], "command": "httperf",
                    "tool": "httperf"}]  # fmt: skip
        out.add_run(row, phases=_phases(run), intervals=intervals, cpu=cpu)
    if not out.runs:
        refused = [msg for _, msg in rd.messages if _REFUSED_RE.search(msg)]
        if refused:
            out.add_run(error_row("httperf", "; ".join(refused), COMMAND_REFUSED, **cmd))
        elif seg.command:
            out.add_run(error_row("httperf", "no output after the command", **cmd))
    return out


_DETECT_RE = re.compile(
    r"^(?:Total: connections \d+ requests \d+ replies \d+ test-duration |httperf: unrecognized option )", re.M
)
_DETECTED = at_line_start(_DETECT_RE)  # sought from line ends, not at every position


def detect(text: str) -> bool:
    """True for httperf's summary (its ``Total:`` line), or httperf refusing an option.

    >>> detect("Total: connections 5 requests 0 replies 0 test-duration 0.411 s\\n")
    True
    """
    return ("test-duration" in text or "httperf: " in text) and _DETECTED(text)


FORMATS = [
    Format(
        "httperf",
        "httperf",
        detect,
        parse,
        description="httperf summary (connections, requests, replies, rates, times, sizes, status, CPU, errors)",
    )
]
