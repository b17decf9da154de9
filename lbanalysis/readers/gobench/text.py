"""gobench (github.com/cmpxchg16/gobench) output, net/http and fasthttp versions.

Format (stdout; identical labels in both versions)::

    Dispatching 10 clients
    Waiting for results...

    Requests:                            54133 hits
    Successful requests:                 54133 hits
    Network failed:                          0 hits
    Bad requests failed (!2xx):              0 hits
    Successful requests rate:            10826 hits/sec
    Read throughput:                   4222374 bytes/sec
    Write throughput:                   931259 bytes/sec
    Test time:                               5 sec

=========================== ====================== ========================================
label                       column                 unit
=========================== ====================== ========================================
Dispatching N clients       ``concurrency``        clients (-c, default 100)
Requests                    ``requests_attempted`` all requests made, failed included
(Requests - Network failed) ``requests``           responses received
Successful requests         ``requests_ok``        2xx (net/http version: 200 only)
Network failed              ``failed_network``     connect/read/write errors
Bad requests failed (!2xx)  ``non_2xx``            responses outside 2xx (net/http: != 200)
(sum of the two above)      ``failed``             network failed + bad requests
Successful requests rate    ``requests_per_s``     **successful** requests per s
Read throughput             ``bytes_per_s``        B/s received (headers included)
Write throughput            ``bytes_sent_per_s``   B/s sent
Test time                   ``duration_s``         s
=========================== ====================== ========================================

gobench prints no latency at all: the latency columns stay empty. The
fasthttp version (``cmd/gobench``, December 2016 on) prints integers only:
the elapsed time is truncated to whole seconds (at least 1) and every rate
is an integer division by it. The older net/http version (the 2016 article
runs; ``gobench.go`` at the repository root) prints the rates with
``%10.0f`` and, in its last revisions, ``Test time`` with ``%10.2f`` — both
forms are read.

Command line (Go ``flag`` syntax: ``-c 10``, ``-c=10``, ``--c 10``):
``-u`` URL, ``-f`` URL file (``urls_file``), ``-c`` clients, ``-r``
requests per client (``repetitions``; ``requests_planned`` = r x c),
``-t`` seconds (``time_limit_s``), ``-k`` keep-alive (a bool flag, default
**true**: only ``-k=false`` turns it off), ``-d`` POST data file / ``-b``
POST body (``method`` POST), ``-auth``, ``-tr``/``-tw``/``-tc`` timeouts,
``-content-type`` (accepted, not stored).

Errors: without ``-r`` or ``-t`` gobench prints ``Requests or period must
be provided`` then its usage text and exits 1; with both, ``Only one should
be provided: [requests|period]``; without ``-u``/``-f`` only the usage;
unknown flags give ``flag provided but not defined: -x``. Each is one run
with ``error`` set. A run where every request failed at the network level
(nothing listening) is a run with ``error`` set and its figures kept.

The widely used fork github.com/bingoohuang/gobench (2020 on) prints::

    Dispatching 100 goroutines at 2021-03-24 23:25:57.176
    Waiting for results...

    Total Requests:                 664004 hits
    Successful requests:            664004 hits
    Network failed:                 0 hits
    Bad requests(!2xx):             0 hits
    Successful requests rate:       66391 hits/sec
    Read throughput:                19 MiB/sec
    Write throughput:               6.0 MiB/sec
    Test time:                      10.001s(2021-03-24 23:25:57.176-23:26:07.177)

(tab-aligned in some builds; the rate with three decimals in others;
``Bad requests(!2xx/cond)`` with a condition; an ``X-Gobench-Seq`` line).
Byte rates are binary (KiB, MiB: humanize.IBytes), ``Test time`` a Go
duration (``92.985453ms``, ``1m0.5s``) with the start and end clock times
(the start becomes ``timestamp``, local time of the client). Its command
line differs: the URL is positional (or ``-u``, or ``-l`` for a list), ``-t``
is the goroutines (the concurrency, also printed), ``-n`` the total
requests, ``-r`` requests per goroutine, ``-d`` a duration (``10s``),
``-X``/``-m``/``--method`` the method, ``-post``/``-post.file`` a body.

``requests`` is responses received: Requests (or Total Requests) minus
Network failed; an attempt that got no answer is counted in ``failed``
and ``failed_network`` only.

Versions checked: the fasthttp version (four live outputs in the lab
corpus), the net/http version (ten outputs quoted by the 2016 article,
``data/raw/haproxy-maxconn-gobench``) and both sources; the
bingoohuang fork from the outputs its README and users' notes show
(``tests/fixtures/gobench/shapes``).

>>> p = parse(Segment("Dispatching 10 clients\\nWaiting for results...\\n\\nRequests:  38 hits\\n"
...                   "Successful requests:  8 hits\\nNetwork failed:  0 hits\\nBad requests failed (!2xx):  30 hits\\n"
...                   "Test time:  5 sec\\n", command="gobench -u http://h/ -c 10 -t 5"))
>>> r = p.runs[0]
>>> r["concurrency"], r["requests"], r["requests_ok"], r["non_2xx"], r["failed"], r["time_limit_s"], r["keepalive"]
(10, 38, 8, 30, 30, 5.0, True)
"""

from __future__ import annotations

import re
from datetime import datetime

from ...text import Segment, at_line_start, command_argv
from ..base import (
    COMMAND_REFUSED,
    NO_ANSWER,
    NO_RESULT_SHOWN,
    Format,
    LineKind,
    Parsed,
    error_kind,
    scan,
    to_float,
    to_int,
)

LABELS: dict[str, tuple[str, str]] = {
    "requests": ("requests", "int"),
    "total requests": ("requests", "int"),
    "successful requests": ("requests_ok", "int"),
    "network failed": ("failed_network", "int"),
    "bad requests failed (!2xx)": ("non_2xx", "int"),
    "bad requests(!2xx)": ("non_2xx", "int"),
    "successful requests rate": ("requests_per_s", "float"),
    "read throughput": ("bytes_per_s", "rate"),
    "write throughput": ("bytes_sent_per_s", "rate"),
    "test time": ("duration_s", "duration"),
}
# "Bad requests(!2xx/status==200)": the fork's condition is part of the label
_LABEL_RE = re.compile(
    r"^\s*(requests|total requests|successful requests|network failed|bad requests failed \(!2xx\)|"
    r"bad requests\(!2xx(?:/[^)]*)?\)|successful requests rate|read throughput|write throughput|test time)"
    r"\s*:\s*(?P<value>[-+]?[\d.]+(?:[eE][-+]?\d+)?|nan|[-+]?inf|(?:[\d.]+(?:ms|us|µs|ns|h|m|s))+)"
    r"\s*(?P<unit>hits/sec|hits|bytes/sec|[KMGTPE]?i?B/sec|secs?|s)?\s*(?:\((?P<start>[\d-]+ [\d:.]+)-[\d:.]+\))?\s*$",
    re.IGNORECASE,
)
# binary byte units of humanize.IBytes, and Go duration units
_BYTE_UNITS = {"b": 1, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40, "pib": 2**50, "eib": 2**60,
               "kb": 1e3, "mb": 1e6, "gb": 1e9, "bytes": 1}  # fmt: skip
_GO_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
_GO_PART_RE = re.compile(r"([\d.]+)(h|ms|us|µs|ns|m|s)")


def go_duration(text: str) -> float | None:
    """Seconds in a Go duration string (``time.Duration.String()``).

    >>> go_duration("10.001s"), go_duration("92.985453ms"), go_duration("1m0.5s"), go_duration("2h45m0s")
    (10.001, 0.092985453, 60.5, 9900.0)
    """
    parts = _GO_PART_RE.findall(text)
    if not parts or "".join(a + b for a, b in parts) != text:
        return None
    total = 0.0
    for num, unit in parts:
        v = to_float(num)
        if v is None:
            return None
        total += v * _GO_UNITS[unit]
    return round(total, 12)


def _value(kind: str, m: re.Match) -> object:
    """A label's value in the schema's unit: counts, rates, B/s (binary units), seconds."""
    raw, unit = m.group("value"), (m.group("unit") or "").lower()
    if kind == "int":
        return to_int(raw)
    if kind == "duration":  # "5 sec", "1.98 sec" (gobench) or a Go duration "10.001s", "92.985453ms" (the fork)
        go = go_duration(raw + unit) if unit == "s" or raw[-1:].isalpha() else None
        return go if go is not None else to_float(raw)
    v = to_float(raw)
    if kind == "rate" and v is not None:
        v *= _BYTE_UNITS.get(unit.removesuffix("/sec"), 1)
    return v


_DISPATCH_RE = re.compile(
    r"^\s*Dispatching\s+(\d+)\s+(clients?|goroutines?)(?:\s+at\s+(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?))?\s*$"
)
_NOISE_RE = re.compile(r"^\s*(?:X-Gobench-Seq:\s*\d+|\[[^\]]*\]\s*\[\d{3}\].*)\s*$")  # fork: sequence, -p echo
_WAITING_RE = re.compile(r"^\s*Waiting for results\.\.\.\s*$")
_USAGE_RE = re.compile(r"^\s*Usage of \S*:\s*$")
_USAGE_BODY_RE = re.compile(r"^(?:\s+-\w|\s{4,}|\t)")
_ERROR_RE = re.compile(
    r"^\s*(Requests or period must be provided|Only one should be provided: \[requests\|period\]|"
    r"flag provided but not defined: .*|invalid value .* for flag .*|bad flag syntax: .*|"
    r"flag needs an argument: .*|caught recover: .*|panic: .*|"
    r"(?:\d{4}/\d\d/\d\d \d\d:\d\d:\d\d )?Error in ioutil\.ReadFile .*)\s*$"
)
#: What an error line says of the requests (the runs' ``error_kind``): gobench's complaints about its flags
#: and its data file mean it sent nothing; a panic says nothing either way.
ERROR_KINDS = (
    (re.compile(r"^(?:Requests or period|Only one should|flag |invalid value|bad flag|(?:\S+ \S+ )?Error in ioutil)"),
     COMMAND_REFUSED),
)  # fmt: skip
_DETECT_RE = re.compile(
    r"^(?:\s*Dispatching \d+ (?:clients|goroutines)|\s*Bad requests(?: failed)? ?\(!2xx[^)]*\):|\s*Successful requests rate:|"
    r"\s*Requests or period must be provided|\s*Only one should be provided: \[requests\|period\]|"
    r"Usage of \S*gobench\S*:)",
    re.MULTILINE,
)
_DETECTED = at_line_start(_DETECT_RE)  # sought from line ends, not at every position
_DETECT_HINTS = (
    "Dispatching ",
    "Bad requests",
    "Successful requests rate",
    "Requests or period",
    "Only one",
    "Usage of ",
)
_URL_RE = re.compile(r"^(?:(https?)://)?([^/:\[\]\s]+|\[[^\]]+\])(?::(\d+))?(/\S*)?$", re.IGNORECASE)
_BOOL_FLAGS = {"k"}
_FALSE = {"false", "0", "f", "F", "FALSE", "False"}


def detect(text: str) -> bool:
    """True when text looks like gobench output (or its usage error).

    >>> detect("Dispatching 10 clients\\nWaiting for results...\\n")
    True
    >>> detect("Transactions:  5 hits\\n")
    False
    """
    if not any(h in text for h in _DETECT_HINTS):
        return False
    return _DETECTED(text)


def parse_command(command: str) -> dict:
    """Run fields from a gobench command line (Go ``flag`` syntax).

    >>> d = parse_command("gobench -u http://10.42.226.10/fast -c 20 -t 30")
    >>> d["url"], d["host"], d["path"], d["concurrency"], d["time_limit_s"], d["keepalive"], d["method"]
    ('http://10.42.226.10/fast', '10.42.226.10', '/fast', 20, 30.0, True, 'GET')
    >>> d = parse_command("gobench -u=http://h:8080/ -r 100 -k=false -d post.json")
    >>> d["repetitions"], d["requests_planned"], d["keepalive"], d["method"], d["port"]
    (100, 10000, False, 'POST', 8080)
    """
    argv = command_argv(command)
    opts: dict[str, str] = {}
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok.startswith("-") and len(tok) > 1 and tok != "--":
            name, eq, val = tok.lstrip("-").partition("=")
            if name in _BOOL_FLAGS:
                opts[name] = val if eq else "true"
            elif eq:
                opts[name] = val
            elif i + 1 < len(argv):
                i += 1
                opts[name] = argv[i]
        i += 1
    out: dict = {}
    out["concurrency"] = to_int(opts.get("c", "100"))
    if "t" in opts and (to_float(opts["t"]) or -1) > 0:
        out["time_limit_s"] = to_float(opts["t"])
    if "r" in opts and (to_int(opts["r"]) or -1) > 0:
        out["repetitions"] = to_int(opts["r"])
        if out["concurrency"] is not None:
            out["requests_planned"] = out["repetitions"] * out["concurrency"]
    out["keepalive"] = opts.get("k", "true") not in _FALSE
    out["method"] = "POST" if (opts.get("d") or opts.get("b")) else "GET"
    if opts.get("f"):
        out["urls_file"] = opts["f"]
    if opts.get("u"):
        out.update(_url_fields(opts["u"]))
    return out


def _url_fields(url: str) -> dict:
    """``url``, and its ``host``, ``port`` and ``path`` where the URL shows them.

    >>> _url_fields("https://h/a")
    {'url': 'https://h/a', 'host': 'h', 'port': 443, 'path': '/a'}
    """
    out: dict = {"url": url}
    m = _URL_RE.match(url)
    if m:
        out["host"] = m.group(2)
        out["port"] = int(m.group(3)) if m.group(3) else (443 if (m.group(1) or "").lower() == "https" else 80)
        out["path"] = m.group(4) or "/"
    return out


_FORK_HINTS = ("Total Requests:", " goroutines", "Bad requests(!2xx")
_FORK_WITH_ARG = {"u", "l", "X", "m", "method", "c", "n", "t", "r", "d", "p", "x", "proxy", "post", "post.file",
                  "content.type", "head.auth", "keepalive", "k", "cond", "timeout"}  # fmt: skip


def _timestamp(text: str) -> datetime | None:
    """The fork's clock time ``2021-03-24 23:25:57.176`` (the client's local time)."""
    try:
        return datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f" if "." in text else "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None


def parse_fork_command(command: str) -> dict:
    """Run fields from a command line of the bingoohuang/gobench fork.

    >>> d = parse_fork_command("gobench http://127.0.0.1:5003/api/demo -t 50 -n 1000 --method POST")
    >>> d["url"], d["port"], d["path"], d["concurrency"], d["requests_planned"], d["method"]
    ('http://127.0.0.1:5003/api/demo', 5003, '/api/demo', 50, 1000, 'POST')
    >>> parse_fork_command("gobench -u http://h/ -d 10s -post '{}'")["time_limit_s"], parse_fork_command("gobench -u http://h/ -post x")["method"]
    (10.0, 'POST')
    """
    argv = command_argv(command)
    opts: dict[str, str] = {}
    positional: list[str] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok.startswith("-") and len(tok) > 1 and tok != "--":
            name, eq, val = tok.lstrip("-").partition("=")
            if eq:
                opts[name] = val
            elif name in _FORK_WITH_ARG and i + 1 < len(argv) and name not in ("keepalive", "k"):
                i += 1
                opts[name] = argv[i]
            else:
                opts[name] = "true"
        else:
            positional.append(tok)
        i += 1
    out: dict = {}
    out["concurrency"] = to_int(opts.get("t", "100"))
    if to_int(opts.get("n")):
        out["requests_planned"] = to_int(opts["n"])
    elif to_int(opts.get("r")) and out["concurrency"]:
        out["repetitions"] = to_int(opts["r"])
    if opts.get("d") and go_duration(opts["d"]):
        out["time_limit_s"] = go_duration(opts["d"])
    method = opts.get("X") or opts.get("m") or opts.get("method")
    out["method"] = method.upper() if method else ("POST" if (opts.get("post") or opts.get("post.file")) else "GET")
    out["keepalive"] = opts.get("keepalive", opts.get("k", "true")) not in _FALSE
    url = opts.get("u") or next((p for p in positional if "://" in p or p.startswith(":")), None)
    if url:
        out.update(_url_fields(url.split(",")[0]))
    return out


def _new(line: int) -> dict:
    return {"tool": "gobench", "format": "gobench", "line": line}


class _Reader:
    """The runs of one segment, read by :data:`LINE_KINDS`; a new run starts in :meth:`next_run`."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.runs: list[dict] = []
        self.cur = _new(1)
        self.keys: set[str] = set()

    def started(self) -> bool:
        return bool(self.keys) or "concurrency" in self.cur or "error" in self.cur

    def next_run(self, n: int) -> None:
        """The run so far is complete; a new one starts at line ``n``."""
        self.runs.append(self.cur)
        self.cur, self.keys = _new(n), set()

    def label(self, n: int, m: re.Match) -> None:
        label = m.group(1).lower()
        if label.startswith("bad requests("):
            label = "bad requests(!2xx)"
        if _starts_run("label", self, label):  # a repeated label: the next pasted output
            self.next_run(n)
        elif not self.started():
            self.cur["line"] = n
        self.keys.add(label)
        col, kind = LABELS[label]
        self.cur[col] = _value(kind, m)
        if m.group("start"):
            self.cur["timestamp"] = _timestamp(m.group("start"))

    def dispatch(self, n: int, m: re.Match) -> None:
        if _starts_run("dispatch", self):
            self.next_run(n)
        self.cur["line"] = n
        self.cur["concurrency"] = int(m.group(1))
        if m.group(3):
            self.cur["timestamp"] = _timestamp(m.group(3))

    def error(self, n: int, m: re.Match) -> None:
        if _starts_run("error", self):
            self.next_run(n)
        elif "error" not in self.cur and "concurrency" not in self.cur:
            self.cur["line"] = n
        msg, before = m.group(1), self.cur.get("error")
        self.cur["error"] = f"{before}; {msg}" if before and before != "usage error" else msg
        kind = error_kind([msg], ERROR_KINDS)
        if kind:
            self.cur["error_kind"] = kind

    def usage(self, n: int, m: re.Match) -> int:
        """The usage text: one error; returns the line after it (its body is passed over)."""
        if _starts_run("usage", self):
            self.next_run(n)
        if "error" not in self.cur:
            self.cur["line"] = n
            self.cur["error"] = "usage error"
        self.cur["error_kind"] = COMMAND_REFUSED  # gobench prints its usage when it refuses its flags
        body = 0
        while n + body < len(self.lines) and (
            not self.lines[n + body].strip() or _USAGE_BODY_RE.match(self.lines[n + body])
        ):
            body += 1
        return n + 1 + body

    def ignored(self, n: int, m: re.Match) -> None:
        """A line that says nothing about the run (the fork's echo, ``Waiting for results...``)."""

    def finished(self) -> list[dict]:
        """The runs read, the last one included when it has begun."""
        if self.started():
            self.runs.append(self.cur)
        return self.runs


def _starts_run(kind: str, rd: _Reader, label: str = "") -> bool:
    """The one place that decides where a new run starts (the run so far is complete): a label the run
    already has (the next pasted output), ``Dispatching`` once the run has begun, an error or the usage
    text after figures.

    >>> rd = _Reader([])
    >>> rd.keys.add("requests")
    >>> _starts_run("label", rd, "requests"), _starts_run("label", rd, "test time"), _starts_run("error", rd)
    (True, False, True)
    >>> _starts_run("dispatch", _Reader([])), _starts_run("usage", _Reader([]))
    (False, False)
    """
    if kind == "label":
        return label in rd.keys
    if kind == "dispatch":
        return rd.started()
    return kind in ("error", "usage") and bool(rd.keys)


#: The lines gobench prints, in the order they are tried (first match wins; see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("label", ":", _LABEL_RE, _Reader.label),
    LineKind("dispatch", "Dispatching", _DISPATCH_RE, _Reader.dispatch),
    LineKind("noise", "", _NOISE_RE, _Reader.ignored),
    LineKind("waiting", "Waiting for results...", _WAITING_RE, _Reader.ignored),
    LineKind("error", "", _ERROR_RE, _Reader.error),
    LineKind("usage", "Usage of ", _USAGE_RE, _Reader.usage),
]


def _finish(d: dict, cmd: dict) -> dict:
    """A run's derived fields: the command's, requests planned, failures, responses received, the error."""
    for k, v in cmd.items():
        d.setdefault(k, v)
    if d.get("repetitions") is not None and d.get("concurrency") is not None:
        d["requests_planned"] = d["repetitions"] * d["concurrency"]
    net, bad = d.get("failed_network"), d.get("non_2xx")
    if net is not None or bad is not None:
        d["failed"] = (net or 0) + (bad or 0)
    attempts = d.get("requests")
    if attempts is not None:
        d["requests_attempted"] = attempts  # the figure gobench printed, kept beside the responses
    if attempts is not None and net is not None:
        d["requests"] = max(attempts - net, 0)  # responses received: an unanswered attempt is a failure
    if not d.get("error"):
        if attempts is None:
            d["error"], d["error_kind"] = "no result in the output (interrupted before the summary)", NO_RESULT_SHOWN
        elif attempts == 0:
            d["error"] = "no request completed"
        elif d.get("requests_ok") == 0 and not bad and net:
            d["error"] = f"every request failed at the network level ({net} network failures)"
            d["error_kind"] = NO_ANSWER
    return d


def parse(seg: Segment) -> Parsed:
    """Read every gobench run in a segment (usage errors become error rows)."""
    fork = any(h in seg.text for h in _FORK_HINTS)
    cmd = (parse_fork_command if fork else parse_command)(seg.command) if seg.command else {}
    runs = scan(seg.text, LINE_KINDS, _Reader(seg.text.split("\n"))).finished()
    if not runs and seg.command:
        runs.append({**_new(1), "error": "no output after the command"})
    return Parsed([_finish(d, cmd) for d in runs])


FORMATS = [
    Format(
        "gobench",
        "gobench",
        detect,
        parse,
        description="gobench results (net/http 2016 and fasthttp versions, the bingoohuang fork) and usage errors",
    )
]

__all__ = ["FORMATS", "LABELS", "LINE_KINDS", "detect", "go_duration", "parse", "parse_command", "parse_fork_command"]
