"""siege text output: the summary on stderr, verbose request lines, notices.

Format (siege 4.0.7 with ``-v``, stdout and stderr together; the summary
goes to stderr, verbose lines to stdout, so with ``2>&1`` into a file the
buffered verbose lines often come *after* the summary)::

    ** SIEGE 4.0.7
    ** Preparing 25 concurrent users for battle.
    The server is now under siege...
    HTTP/1.1 200     0.06 secs:     395 bytes ==> GET  /
    HTTP/1.1 404     0.00 secs:     335 bytes ==> GET  /nothere
    Lifting the server siege...                 (timed runs, ^C; 3.x: "...  done.")
    Transactions:                   3002 hits
    Availability:                 100.00 %
    Elapsed time:                 179.01 secs
    Data transferred:              28.48 MB
    Response time:                  1.76 secs   (4.1.x: "1760.00 ms")
    Transaction rate:              16.77 trans/sec
    Throughput:                     0.16 MB/sec
    Concurrency:                   29.58
    Successful transactions:        3002
    HTTP OK received:               3002        (only with -D / debug)
    Failed transactions:               0
    Longest transaction:           57.32        (4.1.x: "57320.00 ms")
    Shortest transaction:           0.00

======================== ========================= ===========================
label                    column                    unit as printed -> stored
======================== ========================= ===========================
``** SIEGE x.y.z``       ``tool_version``
``** Preparing N ...``   ``concurrency``           users (-c, capped by limit)
Transactions             ``requests``              hits
Availability             ``availability_pct``      %
Elapsed time             ``duration_s``            secs
Data transferred         ``bytes_total``           MB (2^20 B); 2.x: bytes
Response time            ``latency_mean_s``        secs; ms in 4.1.x
Transaction rate         ``requests_per_s``        trans/sec
Throughput               ``bytes_per_s``           MB/sec (2^20 B/s); 2.x: bytes/sec
Concurrency              ``concurrency_achieved``  sum of transaction times / elapsed
Successful transactions  ``requests_ok``           count
HTTP OK received         ``http_ok``               count
Failed transactions      ``failed``                count
Longest transaction      ``latency_max_s``         secs (no unit before 4.1); ms in 4.1.x
Shortest transaction     ``latency_min_s``         secs (no unit before 4.1); ms in 4.1.x
======================== ========================= ===========================

Units are read where they are printed. Where a line has no unit, the
version's default applies: seconds before 4.1.7, ms from 4.1.7 on. The
4.1.x ``src/main.c`` prints ``1000.0f * data_get_response_time()`` and the
longest/shortest transaction with ``ms``; 4.0.x and 3.x print ``secs`` for
the response time and no unit at all for longest/shortest (secs). The exact
first ms release is taken from the issue (4.1.7): the sources we could read
show the ms variant but not its version number, and every real 4.1.x
output prints its unit anyway. siege 2.x prints ``bytes`` and ``bytes/sec``.
MB is 2^20 bytes: ``data_get_megabytes()`` returns ``bytes/(1024.0*1024.0)``
and ``data_get_throughput()`` ``bytes/(elapsed*1024.0*1024.0)``
(``src/data.c``); checked on a live run: 40 x 300000 bytes printed as
``11.44 MB``. siege's ``Concurrency:`` is an achieved average (total
transaction time / elapsed, Little's law), kept as ``concurrency_achieved``;
``concurrency`` is the configured user count (``Preparing N``, else ``-c``).

What siege 4.0.7 counts (live captures): a 404 is a transaction ("hit")
but not a successful one; a 5xx is a failed transaction and no hit; a
refused or reset connection is a failed transaction with an ``[error]``
notice. ``Availability`` = hits / (hits + failed).

Verbose lines (``-v``; ``verbose = true`` in Debian's siegerc) go to the
``requests`` table, one row each in file order (``seq``): ``status``,
``latency_s`` (``secs``; a ``ms`` unit is converted too, though every
version checked prints secs), ``bytes``, ``method``, ``url``. Accepted forms:
``HTTP/1.1 200 0.06 secs: 395 bytes ==> GET /``, with a ``(C)`` cache mark,
a ``[timestamp]`` prefix, a `` 12) `` client id (``display-id``), and the
CSV form of ``csv = true`` (``HTTP/1.1,200,  0.06,    395,/,0,2024-...``,
whose last field, the local time siege printed the line at, goes to
``logged``; a file of these lines alone is detected as siege).
ANSI colours are removed by :func:`lbanalysis.text.normalize`.

A failed run is a row with ``error`` set: no transaction at all (refused
port: ``[error] socket: unable to connect sock.c:282: Connection refused``;
only 5xx answers; a hanging server), ``siege aborted due to excessive socket
failure``, ``[fatal]`` notices, the help text (printed when no URL is given),
a command with no output, or verbose lines without a summary. Notices of a
run that completed go to ``warnings``, as does the users-capped warning.
Other modes: ``-g`` (request and response heads, then a summary without
banner) and ``-D`` (``[debug]`` lines, heads, ``HTTP OK received``) are
read; ``-V`` and ``-C`` outputs are recognised but hold no run.

A file may hold several runs (each ``** SIEGE`` banner, or a repeated
summary label, starts one). A short free-text line between runs (a script's
``echo "Concurrency == 10"``) becomes the ``label`` of the next run. siege
JSON objects (``-j``) inside the text are read too (see
:mod:`lbanalysis.readers.siege.json`): one run per object, or merged into
the run whose notices precede it.

Known defects of real files: the summary can start in the middle of a
half-written verbose line (``HTTP/1.1 200    `` then ``Lifting the server
siege...``) with the rest of that line printed after the summary; such
fragments are not requests: they are counted in ``warnings`` and skipped,
every complete line is kept. docker compose prefixes (``siege  | ``) are
stripped by :func:`normalize`. A 3.0.5 summary seen in the wild lacks the
unit of ``Response time:``; the version default (secs) is used and noted in
``warnings``. ``The server is now under siege...`` may be followed on the
same line by a notice or by ``siege aborted ...``.

Versions checked: 4.0.7 (Debian 12, live captures), 4.0.1, 4.0.4, 3.0.5 and
2.x outputs (public files and issues), and the 2.x/3.x/4.0.x/4.1.x
sources of ``src/main.c``, ``src/data.c``, ``src/browser.c``.

>>> p = parse(Segment("** SIEGE 4.0.7\\n** Preparing 10 concurrent users for battle.\\n"
...                   "Transactions:  100 hits\\nData transferred:  1.00 MB\\nResponse time: 20.00 ms\\n"))
>>> r = p.runs[0]
>>> r["tool_version"], r["concurrency"], r["requests"], r["bytes_total"], r["latency_mean_s"]
('4.0.7', 10, 100, 1048576.0, 0.02)
"""

from __future__ import annotations

import re
from datetime import datetime

from ...errors import ParseError
from ...text import Segment, at_line_start, command_argv, getopt
from ...units import parse_duration
from ..base import (
    COMMAND_REFUSED,
    NO_ANSWER,
    NO_RESULT_SHOWN,
    Format,
    LineKind,
    Parsed,
    error_kind,
    printed_step,
    scan,
    to_float,
    to_int,
)
from .fields import OBJECT_START_RE, fields_from_json

MB = 1024.0 * 1024.0

# Summary label -> (column, kind). Kinds pick the unit table below.
SUMMARY: dict[str, tuple[str, str]] = {
    "transactions": ("requests", "count"),
    "availability": ("availability_pct", "pct"),
    "elapsed time": ("duration_s", "time"),
    "data transferred": ("bytes_total", "bytes"),
    "response time": ("latency_mean_s", "time"),
    "transaction rate": ("requests_per_s", "rate"),
    "throughput": ("bytes_per_s", "byterate"),
    "concurrency": ("concurrency_achieved", "float"),
    "successful transactions": ("requests_ok", "count"),
    "http ok received": ("http_ok", "count"),
    "failed transactions": ("failed", "count"),
    "longest transaction": ("latency_max_s", "time"),
    "shortest transaction": ("latency_min_s", "time"),
}
# unit as printed (lower case) -> factor to SI. "" = not printed.
UNITS: dict[str, dict[str, float | None]] = {
    "count": {"": 1.0, "hits": 1.0},
    "pct": {"": 1.0, "%": 1.0},
    "time": {"": None, "secs": 1.0, "sec": 1.0, "s": 1.0, "seconds": 1.0, "ms": 1e-3},
    "bytes": {"": MB, "mb": MB, "kb": 1024.0, "gb": MB * 1024.0, "bytes": 1.0, "b": 1.0},
    "rate": {"": 1.0, "trans/sec": 1.0, "trans/s": 1.0},
    "byterate": {"": MB, "mb/sec": MB, "mb/s": MB, "kb/sec": 1024.0, "bytes/sec": 1.0, "b/sec": 1.0},
    "float": {"": 1.0},
}
_MS_FROM = (4, 1, 7)  # first version whose text summary prints times in ms

_SUMMARY_RE = re.compile(
    r"^\s*(" + "|".join(re.escape(k) for k in SUMMARY) + r")\s*:\s*(\S+)[ \t]*(.*?)\s*$",
    re.IGNORECASE,
)
_BANNER_RE = re.compile(r"^\s*\*\*\s*SIEGE\s+(\d[\w.\-]*)", re.IGNORECASE)
_PREPARING_RE = re.compile(r"^\s*\*\*\s*Preparing\s+(\d+)\s+concurrent\s+users", re.IGNORECASE)
_UNDER_RE = re.compile(r"^\s*(?:The server is now under siege|Lifting the server siege)\.\.\.\s*(?:done\.?)?\s*")
_REQ_RE = re.compile(
    r"^\s*(?:\[[^\]]*\]\s*)?(?:(?P<client>\d+)\)\s+)?(HTTP/[\d.]+)\s+(\d{3})\s*(?:\(C\))?\s+(-?[\d.]+|-?nan|inf)\s+"
    r"(secs?|ms)\s*:\s+(\d+)\s+bytes\s+==>\s+([A-Z]+)\s+(.*?)\s*$"
)
_REQ_CSV_RE = re.compile(
    r"^\s*(?:[^,\n]*,)??(?:\s*(?P<client>\d+),)?(HTTP/[\d.]+),(\d{3}),\s*(-?[\d.]+),\s*(\d+),([^,]*),\d+,([^,]*)$"
)
# Pieces of a verbose line cut by the summary: a head ("HTTP/1.1 200    ") or a
# tail (" 0.00 secs:     273 bytes ==> GET  /x"). "HTTP/1.1 200 OK" (-g, -D) is neither.
_FRAGMENT_RE = re.compile(
    r"^\s*(?:\d+\)\s+)?HTTP/[\d.]+(?:\s+\d{3}(?:\s+[\d.]+(?:\s+secs?:?[^=]*)?)?)?\s*$|"
    r"[\d.]+\s+secs?:\s+\d+\s+bytes|bytes\s+==>"
)
# Free text that is no label: HTTP headers and request lines (-g, -D), config dumps (-C).
_NOT_LABEL_RE = re.compile(r"^\s*(?:[A-Za-z][\w-]*:\s|[A-Z]+ \S+ HTTP/|HTTP/|[\w ]+:\s{2,})")
_NOTICE_RE = re.compile(r"^\s*\[(error|alert|fatal|warning|info|debug)\]\s*(.*?)\s*$", re.IGNORECASE)
_ABORT_RE = re.compile(r"^\s*(siege aborted due to excessive socket failure)")
_USAGE_RE = re.compile(r"^\s*Usage: siege\b")
_OTHER_ERROR_RE = re.compile(
    r"^\s*(ERROR: .*|Unable to spawn additional threads.*|siege: (?:invalid|unrecognized) option.*|"
    r"siege: option .* requires an argument.*)$"
)
#: What an error says of the requests (the runs' ``error_kind``): siege's complaints about its options mean
#: it sent nothing; a refused, reset or timed-out connection, or an abort on socket failures, that no answer came.
ERROR_KINDS = (
    (re.compile(r"^siege: (?:invalid|unrecognized) option|^siege: option .* requires an argument"), COMMAND_REFUSED),
    (re.compile(r"siege aborted due to excessive socket failure|Connection refused|Connection reset|"
                r"Connection timed out|unable to connect|No route to host|Network is unreachable|"
                r"^no transaction completed", re.IGNORECASE), NO_ANSWER),
)  # fmt: skip
_WARNING_RE = re.compile(r"^\s*(WARNING: The number of users is capped at \d+\.?)")
_NOISE_RE = re.compile(
    r"^\s*(?:LOG FILE: |FILE: |You can disable this|the \.siegerc file|\S*siege\.?conf and changing|"
    r"\S*siegerc and changing|"
    r"the directive 'show-logfile'|can change the failure threshold|upgrade your libraries|to exceed \d+ users|"
    r"=+$|limit, search your|its value\. Make sure|\^C$|done\.?$|Copyright|This is free software|"
    r"There is NO warranty|FOR A PARTICULAR PURPOSE|SIEGE \d)",
    re.IGNORECASE,
)
# Cheap literal hints first (most texts are not siege), then the anchored patterns.
_DETECT_HINTS = ("siege", "SIEGE", "Siege", "Transaction", " secs: ", " ms: ", ",HTTP/", "HTTP/1.1,", "HTTP/1.0,")
_DETECT_RE = re.compile(
    r"^[ \t]*(?:\*\*[ \t]*S(?:IEGE|iege)[ \t]+\d|\*\*[ \t]*Preparing[ \t]+\d+[ \t]+concurrent users|"
    r"The server is now under siege|Lifting the server siege|Transactions:[ \t]+\d+[ \t]+hits|"
    r"Successful transactions:[ \t]*\d|Transaction rate:[ \t]+[\d.]+ trans/sec|"
    r"(?:\[[^\]\n]*\][ \t]*)?HTTP/[\d.]+[ \t]+\d{3}[ \t]*(?:\(C\))?[ \t]+[\d.]+[ \t]+(?:secs?|ms):|"
    r"Usage: siege |SIEGE \d+\.\d+\S*$|CURRENT\s+SIEGE\s+CONFIGURATION|"
    # a verbose line of the CSV form (csv = true), with its display-id: "4,HTTP/1.1,200,  0.36,  3372,/,0,2015-..."
    r"(?:[ \t]*\d+,)?HTTP/[\d.]+,\d{3},[ \t]*[\d.]+,[ \t]*\d+,[^,\n]*,\d+,\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[ \t]*$)",
    re.MULTILINE,
)
_DETECTED = at_line_start(_DETECT_RE)  # sought from line ends, not at every position
_URL_RE = re.compile(r"^(?:(https?)://)?([^/:\[\]\s]+|\[[^\]]+\])(?::(\d+))?(/\S*)?$", re.IGNORECASE)

# getopt string of siege 4.x: "VhvqCDNFpgl::ibr:t:f:d:c:m:H:R:A:T:j" (+ -E, -k in some builds).
_OPTS_WITH_ARG = set("rtfdcmHRATE")
_LONG = {
    "version": "V",
    "help": "h",
    "verbose": "v",
    "quiet": "q",
    "config": "C",
    "debug": "D",
    "get": "g",
    "print": "p",
    "concurrent": "c",
    "no-parser": "N",
    "no-follow": "F",
    "internet": "i",
    "benchmark": "b",
    "reps": "r",
    "time": "t",
    "delay": "d",
    "log": "l",
    "file": "f",
    "rc": "R",
    "mark": "m",
    "header": "H",
    "user-agent": "A",
    "content-type": "T",
    "json-output": "j",
}
_INFO_ONLY = set("VhC")  # version/help/config: no load test


def detect(text: str) -> bool:
    """True when text looks like siege output (banner, summary labels, verbose lines).

    >>> detect("Transactions:\\t\\t        3002 hits\\n")
    True
    >>> detect("Requests:  54133 hits\\nSuccessful requests:  54133 hits\\n")
    False
    """
    if not any(h in text for h in _DETECT_HINTS):
        return False
    return _DETECTED(text)


def siege_time(text: str) -> float | None:
    """Seconds from a siege ``-t`` value, as siege's ``parse_time()`` reads it.

    The modifier is S, M or H (any case); siege takes the leading digits and
    the first modifier letter after them, and a number without a modifier is
    **minutes** (``src/util.c``).

    >>> siege_time("5S"), siege_time("1M"), siege_time("1H"), siege_time("30sec"), siege_time("2")
    (5.0, 60.0, 3600.0, 30.0, 120.0)
    """
    m = re.match(r"^\s*(\d+)(.*)$", text)
    if not m:
        return None
    for ch in m.group(2).lower():
        if ch in "smh":
            return parse_duration(m.group(1) + ch)
    return float(m.group(1)) * 60.0


def _split_url(spec: str) -> dict:
    """URL, host, port, path and method from a siege URL argument (``URL [POST data]``)."""
    out: dict = {}
    parts = spec.split(None, 2)
    if not parts:
        return out
    url = parts[0]
    out["url"] = url
    out["method"] = (
        parts[1].upper()
        if len(parts) > 1 and parts[1].upper() in ("POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "GET")
        else "GET"
    )
    m = _URL_RE.match(url)
    if m:
        out["host"] = m.group(2)
        if m.group(3):
            out["port"] = int(m.group(3))
        else:
            out["port"] = 443 if (m.group(1) or "").lower() == "https" else 80
        out["path"] = m.group(4) or "/"
    return out


def _long_option(name: str) -> str | None:
    if name in _LONG:
        return _LONG[name]
    hits = [k for k in _LONG if k.startswith(name)]  # getopt_long accepts unique prefixes
    return _LONG[hits[0]] if len(hits) == 1 else None


def parse_command(command: str) -> dict:
    """Run fields from a siege command line (short, attached and long options).

    ``requests_planned`` is ``-r`` x concurrency; ``-t`` follows
    :func:`siege_time`; ``-m``/``--mark`` becomes ``label``. Keys starting
    with ``_`` are for the reader (``_info``: -V/-h/-C, no load test).

    >>> d = parse_command("siege -b -c 25 -r 10 --log=/tmp/s.log -m 'run A' http://h:8080/x")
    >>> d["concurrency"], d["repetitions"], d["requests_planned"], d["benchmark_mode"], d["label"], d["port"]
    (25, 10, 250, True, 'run A', 8080)
    >>> d = parse_command("siege --concurrent=5 --time=1M --internet --file=urls.txt -d 0.5")
    >>> d["concurrency"], d["time_limit_s"], d["internet_mode"], d["urls_file"], d["delay_s"]
    (5, 60.0, True, 'urls.txt', 0.5)
    >>> parse_command("siege -c50 -t60S -bq example.com")["host"]
    'example.com'
    """
    parsed, positional = getopt(command_argv(command), _OPTS_WITH_ARG, _long_option, optional_arg="l")
    opts = {k: v for k, v in parsed.items() if isinstance(v, str)}
    flags = {k for k, v in parsed.items() if v is True or k == "l"}  # -l FILE is a flag and an option
    out: dict = {}
    if "c" in opts:
        out["concurrency"] = to_int(opts["c"])
    if "r" in opts:
        if opts["r"].strip().lower() != "once":
            out["repetitions"] = to_int(opts["r"])
    if "t" in opts:
        out["time_limit_s"] = siege_time(opts["t"])
    if "d" in opts:
        out["delay_s"] = to_float(opts["d"])
        if out["delay_s"] is not None and "b" not in flags:  # -b: no delay
            # siege waits a random time between 0 and -d before each request: half of it on average
            out["think_time_s"] = out["delay_s"] / 2
            out["think_time_source"] = f"siege -d {opts['d']} (a random wait up to it before each request)"
    if "f" in opts:
        out["urls_file"] = opts["f"]
    if "m" in opts:
        out["label"] = opts["m"]
    out["benchmark_mode"] = "b" in flags
    out["internet_mode"] = "i" in flags
    if positional:
        out.update(_split_url(positional[-1]))
    elif "f" not in opts:
        out["method"] = "GET"
    if out.get("repetitions") is not None and out.get("concurrency") is not None:
        out["requests_planned"] = out["repetitions"] * out["concurrency"]
    if flags & _INFO_ONLY:
        out["_info"] = True
    return out


def _version_tuple(v: str | None) -> tuple[int, ...]:
    if not v:
        return ()
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


class _Run:
    """One run being read."""

    __slots__ = ("d", "errors", "fragments", "from_json", "keys", "line", "n_requests", "warnings")

    def __init__(self, line: int):
        self.d: dict = {"tool": "siege", "line": line}
        self.keys: set[str] = set()
        self.errors: dict[str, int] = {}
        self.warnings: list[str] = []
        self.fragments: list[int] = []
        self.from_json = False
        self.n_requests = 0
        self.line = line

    def empty(self) -> bool:
        return not (
            self.keys
            or self.n_requests
            or self.errors
            or self.from_json
            or self.d.get("error")
            or "tool_version" in self.d
            or "concurrency" in self.d
        )

    def has_result(self) -> bool:
        return bool(self.keys) or self.from_json


def _convert(label: str, value: str, unit: str, version: str | None, seg: Segment, n: int, raw: str, run: _Run):
    col, kind = SUMMARY[label]
    table = UNITS[kind]
    u = unit.strip().lower()
    if kind == "count":
        u = "" if u in table else u
    if u not in table:
        raise ParseError(
            f"unknown unit {unit!r} for siege's {label!r} (expected one of {', '.join(k for k in table if k)})",
            source=seg.source,
            line=seg.line + n - 1,
            text=raw,
        )
    factor = table[u]
    if factor is None:  # time without a unit: the version's default
        ms = bool(version) and _version_tuple(version) >= _MS_FROM
        factor = 1e-3 if ms else 1.0
        if label in ("response time", "elapsed time"):
            run.warnings.append(
                f"{label.capitalize()} printed without a unit; read as {'ms' if ms else 'secs'} "
                f"(siege {version or '?'} default)"
            )
    if kind == "count":
        return col, to_int(value)
    v = to_float(value)
    if col == "latency_mean_s" and v is not None and v == v:
        step = printed_step(value)  # siege prints the mean to 0.01 of its unit: the true one is within half
        if step is not None:
            run.d["latency_mean_step_s"] = step * factor
    return col, None if v is None else v * factor


def _starts_run(kind: str, cur: _Run, label: str | None = None) -> bool:
    """Whether a line of ``kind`` begins a new run rather than continuing ``cur``.

    The one place that decides where a run starts: a banner always; a summary
    label the run already has (another pasted summary); ``Preparing N
    concurrent users`` after a result; a JSON object after a result.

    >>> r = _Run(1); r.keys.add("transactions")
    >>> _starts_run("summary", r, "transactions"), _starts_run("summary", r, "availability")
    (True, False)
    """
    if kind == "banner":
        return True
    if kind == "summary":
        return label in cur.keys or (cur.from_json and not cur.keys)
    if kind == "preparing":
        return "concurrency" in cur.d or cur.has_result()
    if kind == "json":
        return cur.has_result()  # one run per object; notices before it stay with it
    return False


def _request_row(run: int, seq: int, m: re.Match) -> dict:
    """A requests-table row from a verbose line: ``HTTP/1.1 200 0.01 secs: 273 bytes ==> GET /x``."""
    lat = to_float(m.group(4))
    if lat is not None and m.group(5) == "ms":
        lat *= 1e-3
    row = {"run": run, "seq": seq, "status": int(m.group(3)), "latency_s": lat, "bytes": float(m.group(6)),
           "method": m.group(7), "url": m.group(8)}  # fmt: skip
    if m.group("client"):
        row["client"] = int(m.group("client"))
    return row


def _request_csv_row(run: int, seq: int, m: re.Match) -> dict:
    """A requests-table row from a siege log line of the CSV form (``HTTP/1.1,200,0.01,273,/x,1,...``).

    The last field is when siege printed the line (its local time, to the second): ``logged``.
    """
    row = {"run": run, "seq": seq, "status": int(m.group(3)), "latency_s": float(m.group(4)),
           "bytes": float(m.group(5)), "method": None, "url": m.group(6).strip()}  # fmt: skip
    if m.group("client"):
        row["client"] = int(m.group("client"))
    try:
        row["logged"] = datetime.strptime(m.group(7).strip(), "%Y-%m-%d %H:%M:%S")
    except ValueError:
        pass
    return row


class _Reader:
    """The runs of one segment, built line by line: one handler per line kind (see :data:`LINE_KINDS`).

    Handlers are called as ``handler(reader, n, m)`` (:func:`~lbanalysis.readers.base.scan`):
    they return False when the line is not their kind after all (the next
    kind is tried), or the number of the line to go on at when they read
    more than their own.
    """

    def __init__(self, seg: Segment, lines: list[str]) -> None:
        self.seg = seg
        self.lines = lines
        self.runs: list[_Run] = []
        self.cur = _Run(1)
        self.pending_label: str | None = None
        self.reqs: list[dict] = []  # requests table rows

    def start(self, n: int) -> None:
        """Close the current run (unless it is empty) and begin one at line ``n``."""
        if not self.cur.empty():
            self.runs.append(self.cur)
        self.cur = _Run(n)
        self.begin_if_new(n)

    def begin_if_new(self, n: int) -> None:
        """An empty current run begins at line ``n``, with the free-text label above it."""
        if self.cur.empty():
            self.cur.line = self.cur.d["line"] = n
            if self.pending_label:
                self.cur.d["label"] = self.pending_label
                self.pending_label = None

    def run_for(self, kind: str, n: int, label: str | None = None) -> _Run:
        """The run a line of ``kind`` belongs to: the current one, or one it starts."""
        if _starts_run(kind, self.cur, label):
            self.start(n)
        self.begin_if_new(n)
        return self.cur

    def under_siege(self, n: int, line: str) -> str:
        """``The server is now under siege...`` begins a run; what follows on the line is read on."""
        if not line.lstrip().startswith(("The server is now under siege", "Lifting the server siege")):
            return line
        um = _UNDER_RE.match(line)
        self.begin_if_new(n)
        return line[um.end() :] if um else ""

    def request(self, n: int, m: re.Match) -> None:
        r = self.run_for("request", n)
        self.reqs.append(_request_row(len(self.runs), r.n_requests, m))
        r.n_requests += 1

    def request_csv(self, n: int, m: re.Match) -> None:
        r = self.run_for("request", n)
        self.reqs.append(_request_csv_row(len(self.runs), r.n_requests, m))
        r.n_requests += 1

    def summary(self, n: int, m: re.Match) -> None:
        label = m.group(1).lower()
        r = self.run_for("summary", n, label)
        r.keys.add(label)
        raw = self.lines[n - 1]  # the line as printed, for an error's text
        col, val = _convert(label, m.group(2), m.group(3), r.d.get("tool_version"), self.seg, n, raw, r)
        r.d[col] = val

    def banner(self, n: int, m: re.Match) -> None:
        self.run_for("banner", n).d["tool_version"] = m.group(1)

    def preparing(self, n: int, m: re.Match) -> None:
        self.run_for("preparing", n).d["concurrency"] = int(m.group(1))

    def json_object(self, n: int, m: re.Match) -> int | bool:
        """An embedded ``-j`` JSON object, read to its closing brace (or the end of the text)."""
        j = n - 1
        buf = [m.string]  # the line as matched (after a leading 'under siege...')
        while "}" not in self.lines[j] and j + 1 < len(self.lines):
            j += 1
            buf.append(self.lines[j])
        fields = fields_from_json("\n".join(buf))
        if fields is None:
            return False
        r = self.run_for("json", n)
        for k, v in fields.items():
            r.d.setdefault(k, v)
        r.from_json = True
        return j + 2  # the line after the closing brace

    def notice(self, n: int, m: re.Match) -> None:
        r = self.run_for("notice", n)
        level, msg = m.group(1).lower(), m.group(2)
        if level == "fatal":
            r.d["error"] = msg
        elif level in ("warning", "info"):
            r.warnings.append(f"[{level}] {msg}")
        elif level != "debug":
            r.errors[msg] = r.errors.get(msg, 0) + 1

    def abort(self, n: int, m: re.Match) -> None:
        self.run_for("abort", n).d["error"] = m.group(1)

    def usage(self, n: int, m: re.Match) -> int:
        """siege's help text: the run's error; the help is skipped to the next banner or summary."""
        r = self.run_for("usage", n)
        r.d.setdefault("error", "usage error (siege printed its help)")
        r.d["error_kind"] = COMMAND_REFUSED
        while n < len(self.lines) and not _BANNER_RE.match(self.lines[n]) and not _SUMMARY_RE.match(self.lines[n]):
            n += 1
        return n + 1  # the banner or summary line that ends the help

    def other_error(self, n: int, m: re.Match) -> None:
        self.run_for("error", n).d.setdefault("error", m.group(1).strip())

    def warning(self, n: int, m: re.Match) -> None:
        self.cur.warnings.append(m.group(1))

    def fragment(self, n: int, m: re.Match) -> None:
        self.cur.fragments.append(n)

    def noise(self, n: int, m: re.Match) -> None:
        pass

    def free_text(self, n: int, line: str) -> None:
        """Free text: between runs it labels the next one (``echo "Concurrency == 10"``)."""
        cur = self.cur
        if (
            (cur.empty() or cur.has_result())
            and len(line.strip()) <= 80
            and re.search(r"[A-Za-z]", line)
            and not _NOT_LABEL_RE.match(line)
        ):
            self.pending_label = line.strip()

    def finished(self, cmd: dict, command: str | None) -> list[_Run]:
        if not self.cur.empty():
            self.runs.append(self.cur)
        if not self.runs and command and not cmd.get("_info") and cmd.get("url") != "URL":
            # (a "siege -g URL" line of siege's own help text is no command)
            r = _Run(1)
            r.d["error"] = "no output after the command"
            self.runs.append(r)
        return self.runs


#: The lines siege prints, in the order they are tried (first match wins; see :class:`LineKind`).
#: Verbose request lines come first: they are most of a verbose file.
LINE_KINDS: list[LineKind] = [
    LineKind("request", "HTTP/", _REQ_RE, _Reader.request),
    LineKind("request_csv", ",", _REQ_CSV_RE, _Reader.request_csv),
    LineKind("summary", ":", _SUMMARY_RE, _Reader.summary),
    LineKind("banner", "**", _BANNER_RE, _Reader.banner),
    LineKind("preparing", "**", _PREPARING_RE, _Reader.preparing),
    LineKind("json_object", "{", OBJECT_START_RE, _Reader.json_object),
    LineKind("notice", "[", _NOTICE_RE, _Reader.notice),
    LineKind("abort", "siege aborted", _ABORT_RE, _Reader.abort),
    LineKind("usage", "Usage: siege", _USAGE_RE, _Reader.usage),
    LineKind("other_error", "", _OTHER_ERROR_RE, _Reader.other_error),
    LineKind("warning", "WARNING: ", _WARNING_RE, _Reader.warning),
    LineKind("fragment", "", _FRAGMENT_RE, _Reader.fragment, search=True),
    LineKind("noise", "", _NOISE_RE, _Reader.noise),
]
#: Line kind -> pattern (the grammar is :data:`LINE_KINDS`).
LINES: dict[str, re.Pattern] = {k.name: k.pattern for k in LINE_KINDS}


def parse_segment(seg: Segment) -> Parsed:
    """Read every siege run in a segment: summaries, JSON objects, verbose lines, notices."""
    cmd = parse_command(seg.command) if seg.command else {}
    reader = _Reader(seg, seg.text.split("\n"))
    scan(seg.text, LINE_KINDS, reader, prepare=reader.under_siege, other=reader.free_text)
    return _finish(reader.finished(cmd, seg.command), cmd, seg, reader.reqs)


def _errors_text(errors: dict[str, int]) -> str:
    items = [f"{msg} ({k} times)" if k > 1 else msg for msg, k in errors.items()]
    if len(items) > 5:
        items = [*items[:5], f"and {len(items) - 5} more"]
    return "; ".join(items)


def _error_of(r: _Run, d: dict) -> None:
    """The run's error, from what it printed, and what it says of the requests (``error_kind``); socket errors
    of a completed run become warnings."""
    if d.get("error"):
        if r.errors:
            r.warnings.append(_errors_text(r.errors))
    elif r.has_result():
        if d.get("requests") == 0:
            d["error"] = _errors_text(r.errors) if r.errors else "no transaction completed"
            if not r.errors and d.get("failed"):
                d["error"] += f" ({d['failed']} failed)"
        elif r.errors:
            r.warnings.append(_errors_text(r.errors))
    elif r.errors:
        d["error"] = _errors_text(r.errors)
    elif r.n_requests:
        d["error"], d["error_kind"] = (
            f"no summary in the output ({r.n_requests} verbose request lines)",
            NO_RESULT_SHOWN,
        )
    else:
        d["error"], d["error_kind"] = "no result in the output", NO_RESULT_SHOWN
    if d.get("error") and not d.get("error_kind"):
        kind = error_kind(d["error"].split("; "), ERROR_KINDS)
        if kind:
            d["error_kind"] = kind


def _finish(runs: list[_Run], cmd: dict, seg: Segment, reqs: list[dict]) -> Parsed:
    out = Parsed()
    for r in runs:
        d = r.d
        for k, v in cmd.items():
            if not k.startswith("_"):
                d.setdefault(k, v)
        if cmd.get("label"):
            d["label"] = cmd["label"]  # -m/--mark names the run
        if d.get("repetitions") is not None and d.get("concurrency") is not None:
            d["requests_planned"] = d["repetitions"] * d["concurrency"]
        d["format"] = "siege-json" if r.from_json and not r.keys else "siege"
        if r.fragments:
            lines = ", ".join(str(seg.line + x - 1) for x in r.fragments[:5])
            r.warnings.append(f"skipped {len(r.fragments)} broken verbose line fragment(s) (line {lines})")
        _error_of(r, d)
        if r.warnings:
            d["warnings"] = "; ".join(r.warnings)
        out.runs.append(d)
    if reqs:
        out.tables["requests"] = reqs
    return out


def parse(seg: Segment) -> Parsed:
    """Read the siege runs of a segment (see the module docstring)."""
    return parse_segment(seg)


FORMATS = [
    Format(
        "siege",
        "siege",
        detect,
        parse,
        description="siege summary text (2.x-4.x, stderr), verbose request lines, notices, embedded -j JSON",
    )
]

__all__ = [
    "FORMATS",
    "LINES",
    "LINE_KINDS",
    "SUMMARY",
    "UNITS",
    "detect",
    "parse",
    "parse_command",
    "parse_segment",
    "siege_time",
]
