"""ApacheBench (``ab``) summary output: ab 2.x and ab 1.3, whole or excerpted.

Format (ab 2.3; label order varies across versions and is not relied on)::

    This is ApacheBench, Version 2.3 <$Revision: 1903618 $>
    Benchmarking 127.0.0.1 (be patient)
    Server Software:        nginx/1.22.1
    Server Hostname:        127.0.0.1
    Server Port:            8080
    SSL/TLS Protocol:       TLSv1.2,ECDHE-RSA-AES256-GCM-SHA384,2048,256
    Server Temp Key:        X25519 253 bits
    TLS Server Name:        localhost
    Document Path:          /index.html
    Document Length:        14 bytes            (or: Variable)
    Concurrency Level:      10
    Time taken for tests:   0.214 seconds
    Complete requests:      1000
    Failed requests:        3
       (Connect: 0, Receive: 0, Length: 3, Exceptions: 0)
    Write errors:           0                   (ab 1.3: Broken pipe errors)
    Keep-Alive requests:    1000                (only with -k)
    Non-2xx responses:      1000                (only when > 0)
    Total transferred:      40000 bytes
    Total body sent:        2270000             (POST/PUT; older: Total POSTed)
    HTML transferred:       14000 bytes
    Requests per second:    4680.03 [#/sec] (mean)
    Time per request:       2.137 [ms] (mean)
    Time per request:       0.214 [ms] (mean, across all concurrent requests)
    Transfer rate:          182.81 [Kbytes/sec] received
                            1013.01 kb/s sent
                            2195.69 kb/s total
    Connection Times (ms)                       (ab 1.3: Connnection Times)
                  min  mean[+/-sd] median   max (with -S: min  avg  max)
    Connect:        0    0   0.0      0       0
    ...
    Percentage of the requests served within a certain time (ms)
      50%      1
     100%      6 (longest request)

Units: ab prints times in ms (converted to s) and ``Kbytes/sec`` with
1 Kbyte = 1024 bytes (converted to B/s). ``latency_min_s``/``latency_max_s``
come from the ``Total:`` row of Connection Times. Failed runs (``apr_socket_*``
errors, ``Test aborted after 10 failures``, usage errors) become rows with
``error`` set. A file may hold several results without banners (notes with
pasted outputs): a repeated label starts a new run. Versions checked: ab 2.3
(revisions 1796539 to 1934973, Debian 12's apache2-utils), ab 1.3 output.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection

from ...text import Segment, at_line_start, command_argv, getopt
from ..base import (
    COMMAND_REFUSED,
    NO_ANSWER,
    NO_RESULT_SHOWN,
    Format,
    LineKind,
    Parsed,
    Step,
    error_kind,
    error_row,
    scan,
    to_float,
    to_int,
)

# label -> (column, converter). Converters take the value text.
_MS = 1e-3
_KB = 1024.0


def _bytes(v: str) -> float | None:
    return to_float(v)


def _ms(v: str) -> float | None:
    x = to_float(v)
    return None if x is None else x * _MS


# A note written after a value in notes (`nginx  //Web服务器引擎`, `1000    # 并发数`): not part of it.
_VALUE_NOTE_RE = re.compile(r"\s+(?://|#).*$")


def _text(v: str) -> str:
    """A text value as ab printed it, without a note written after it.

    >>> _text("  nginx  //Web服务器引擎"), _text(" /42.html  //请求的文件路径"), _text(" /a//b ")
    ('nginx', '/42.html', '/a//b')
    """
    v = v.strip()
    return _VALUE_NOTE_RE.sub("", v) if "//" in v or "#" in v else v


LABELS: dict[str, tuple[str, object]] = {
    "server software": ("server_software", _text),
    "server hostname": ("server_hostname", _text),
    "server port": ("port", to_int),
    "tls server name": ("tls_server_name", _text),
    "server temp key": ("tls_temp_key", _text),
    "document path": ("path", _text),
    "concurrency level": ("concurrency", to_int),
    "time taken for tests": ("duration_s", to_float),
    "complete requests": ("requests", to_int),
    "failed requests": ("failed", to_int),
    "write errors": ("write_errors", to_int),
    "broken pipe errors": ("write_errors", to_int),
    "keep-alive requests": ("keepalive_requests", to_int),
    "non-2xx responses": ("non_2xx", to_int),
    "total transferred": ("bytes_total", _bytes),
    "total body sent": ("bytes_sent", _bytes),
    "total posted": ("bytes_sent", _bytes),
    "html transferred": ("bytes_html", _bytes),
    "requests per second": ("requests_per_s", to_float),
}
# Labels whose value needs more than a converter.
_SPECIAL = {"ssl/tls protocol", "document length", "time per request", "transfer rate"}

_BANNER_RE = re.compile(r"This is ApacheBench, Version\s+(\S+)(?:\s+<\$Revision:\s*(\S+)\s*\$>)?")
_BENCH_RE = re.compile(r"^Benchmarking (\S+)(?: \(be patient\))?\.*(.*)$")
# ab 2.2+ prints "(Connect: 0, Receive: 0, Length: 3, Exceptions: 0)"; ab 2.0.x has no Receive (left empty)
_FAILED_BREAKDOWN_RE = re.compile(
    r"^\s*\(Connect:\s*(\d+),\s*(?:Receive:\s*(\d+),\s*)?Length:\s*(\d+),\s*Exceptions:\s*(\d+)\)"
)
_RATE_CONT_RE = re.compile(r"^\s*([\d.]+)\s+kb/s\s+(sent|total)\s*$")
_ERROR_RE = re.compile(
    r"^\s*(apr_\w+(?:\(\))?: .*|Test aborted after \d+ failures.*|ab: .*|SSL .*failed.*|"
    r"Invalid (?:number|Concurrency|URL).*|\w.*: Name or service not known.*|"
    r"Cannot use concurrency level greater than total number of requests|"
    r"Server timed out.*|socket: .*|connect: .*)$"
)
#: What an error line says of the requests (the runs' ``error_kind``): ab's complaints about its own command
#: line mean it sent nothing; the others, that it tried and got no answer.
ERROR_KINDS = (
    (re.compile(r"^(?:ab: |Invalid (?:number|Concurrency|URL)|Cannot use concurrency)"), COMMAND_REFUSED),
    (re.compile(r"^(?:apr_|Test aborted|SSL |Server timed out|socket: |connect: |\w.*: Name or service not known)"),
     NO_ANSWER),
)  # fmt: skip
_TOTAL_OF_RE = re.compile(r"^Total of (\d+) requests completed")
_WARNING_RE = re.compile(r"^(WARNING: .*|\s+These results are probably not that reliable\.)$")

# Any of these labels marks ab output (used by detect()); so does ab's stderr alone (an APR error
# with its errno, ``Test aborted after 10 failures``) and ``-w``'s HTML table cell of a summary label.
_DETECT_RE = re.compile(
    r"^(?:This is ApacheBench, Version|ab: |Usage: ab |Requests per second:\s+[\d.]+ \[#/sec\]|Complete requests:\s+\d|"
    r"Time taken for tests:\s+[\d.]+ seconds|Percentage of the requests served within|"
    r"apr_\w+(?:\(\))?: [^\n]*\(\d+\)[ \t]*$|Test aborted after \d+ failures|"
    r"<tr[^>]*><th[^>]*>(?:Complete requests|Requests per second):</th>)",
    re.MULTILINE,
)
_DETECTED = at_line_start(_DETECT_RE)  # sought from line ends, not at every position
# ab -w: results as HTML table rows, one label and value per row; the banner in <p> with entities
_HTML_CELL_RE = re.compile(r"<t[hd][^>]*>(.*?)</t[hd]>")
_HTML_TAG_RE = re.compile(r"<[^>]*>")

_OPTS_WITH_ARG = set("ncstbBpuTvxyzCHAPXgemZfE")
_BREAKDOWN_COLS = ("failed_connect", "failed_receive", "failed_length", "failed_exceptions")
# Tables and blocks, matched at a line's start and spanning the lines they hold.
# Connection Times: the title (the misspelling of some 2.3 builds too), then its rows and header lines.
# Rows repeated possessively (`*+`): the same match, and no copy of the groups' marks at each row inside _PLAIN_RE.
_PHASES_BLOCK_RE = re.compile(
    r"Connn?ection Times \(ms\)[^\n]*(?:\n(?:(?:Connect|Processing|Waiting|Total):[ \t]+\S[^\n]*|[ \t]*(?:min|avg)[^\n]*))*+"
)
_PHASE_ROW_RE = re.compile(r"^(Connect|Processing|Waiting|Total):[ \t]+(\S[^\n]*)", re.MULTILINE)
_TOTAL_ROW_RE = re.compile(r"^(Total):[ \t]+(\S[^\n]*)", re.MULTILINE)
# The percentages: the title, then rows and blank lines.
_PCTS_BLOCK_RE = re.compile(
    r"Percentage of the requests served[^\n]*(?:\n(?:[ \t]*\d+(?:\.\d+)?%[ \t]+\d+(?:\.\d+)?[^\n]*|[ \t]*(?=\n|$)))*+"
)
_PCT_ROW_RE = re.compile(r"^[ \t]*(\d+(?:\.\d+)?)%[ \t]+(\d+(?:\.\d+)?)", re.MULTILINE)
# The usage text: every line up to the next banner.
_USAGE_BLOCK_RE = re.compile(r"Usage: ab [^\n]*(?:\n(?![^\n]*This is ApacheBench, Version\s+\S)[^\n]*)*")
# ab 2.x's header as it prints it, up to the Benchmarking line of a run that went ahead.
_HEADER_RE = re.compile(
    r"This is ApacheBench, Version[ \t]+(\S+)(?:[ \t]+<\$Revision:[ \t]*(\S+)[ \t]*\$>)?[^\n]*"
    r"\nCopyright 1996 Adam Twiss, Zeus Technology Ltd, http://www\.zeustech\.net/[ \t]*"
    r"\nLicensed to The Apache Software Foundation, http://www\.apache\.org/[ \t]*\n"
    r"\nBenchmarking (\S+) \(be patient\)(?:\.\.\.\.\.done)?[ \t]*(?=\n|$)"
)
_LABEL_RE = re.compile(r"([^:]*):(.*)")
_PROGRESS_RE = re.compile(r"(?:Completed|Finished) [^\n]*(?:\n(?:Completed|Finished) [^\n]*)*")
_BOILERPLATE_RE = re.compile(r"(?:Copyright |Licensed to |This is ApacheBench)")
# Labels as printed -> lower-case key (memo: ab prints a fixed set).
_KEYS: dict[str, str] = {}
# The results block exactly as ab 2.x prints it (ab.c output_results, in its
# order; optional lines optional): one line kind spanning the block, so that almost
# every real file is read in a few matches; anything else is read label by label. Possessive quantifiers
# (`*+`): a block cut off or changed fails at once, without trying every way to split its lines' spaces
# between label and value (a TLS output cut in its last line took 5 s to fail); the match is the same.
_RESULTS_RE = re.compile(
    r"""
    Server\ Software:[ \t]*+(?P<server_software>[^\n]*+)
    \nServer\ Hostname:[ \t]*+(?P<server_hostname>[^\n]*+)
    \nServer\ Port:[ \t]*+(?P<port>\d+)[ \t]*+
    (?:\nSSL/TLS\ Protocol:[ \t]*+(?P<tls>[^\n]*+))?
    (?:\nServer\ Temp\ Key:[ \t]*+(?P<tls_temp_key>[^\n]*+))?
    (?:\nTLS\ Server\ Name:[ \t]*+(?P<tls_server_name>[^\n]*+))?
    \n
    \nDocument\ Path:[ \t]*+(?P<path>[^\n]*+)
    \nDocument\ Length:[ \t]*+(?:(?P<doclen>\d+)\ bytes|(?P<variable>Variable))[ \t]*+
    \n
    \nConcurrency\ Level:[ \t]*+(?P<concurrency>\d+)[ \t]*+
    \nTime\ taken\ for\ tests:[ \t]*+(?P<duration_s>\d+\.\d+)\ seconds[ \t]*+
    \nComplete\ requests:[ \t]*+(?P<requests>\d+)[ \t]*+
    \nFailed\ requests:[ \t]*+(?P<failed>\d+)[ \t]*+
    (?:\n[ \t]+\(Connect:\ (?P<failed_connect>\d+),\ Receive:\ (?P<failed_receive>\d+),
        \ Length:\ (?P<failed_length>\d+),\ Exceptions:\ (?P<failed_exceptions>\d+)\)[ \t]*+)?
    (?:\nWrite\ errors:[ \t]*+(?P<write_errors>\d+)[ \t]*+)?
    (?:\nNon-2xx\ responses:[ \t]*+(?P<non_2xx>\d+)[ \t]*+)?
    (?:\nKeep-Alive\ requests:[ \t]*+(?P<keepalive_requests>\d+)[ \t]*+)?
    \nTotal\ transferred:[ \t]*+(?P<bytes_total>\d+)\ bytes[ \t]*+
    (?:\nTotal\ body\ sent:[ \t]*+(?P<bytes_sent>\d+)[ \t]*+)?
    \nHTML\ transferred:[ \t]*+(?P<bytes_html>\d+)\ bytes[ \t]*+
    (?:\nRequests\ per\ second:[ \t]*+(?P<requests_per_s>\d+\.\d+)\ \[\#/sec\]\ \(mean\)[ \t]*+
    \nTime\ per\ request:[ \t]*+(?P<latency>\d+\.\d+)\ \[ms\]\ \(mean\)[ \t]*+
    \nTime\ per\ request:[ \t]*+(?P<latency_all>\d+\.\d+)\ \[ms\]\ \(mean,\ across\ all\ concurrent\ requests\)[ \t]*+
    \nTransfer\ rate:[ \t]*+(?P<rate>\d+\.\d+)\ \[Kbytes/sec\]\ received[ \t]*+
    (?:\n[ \t]*+(?P<rate_sent>\d+\.\d+)\ kb/s\ sent[ \t]*+
    \n[ \t]*+(?P<rate_total>\d+\.\d+)\ kb/s\ total[ \t]*+)?)?
    (?=\n)
    """,
    re.VERBOSE,
)
# One clean ab 2.x output and nothing else (:attr:`Format.plain`): the banner, progress lines, the results
# block and the two tables, only as ab prints them, so that no command, report, quoting or other format
# can hide in the text; such a file is read with this format straight away (no detection, no splitting).
# Atomic groups and possessive quantifiers: a text that is not one (cut off, a line missing) fails at once.
_PLAIN_RE = re.compile(
    "".join(
        (
            r"(?>" + _HEADER_RE.pattern + r")",
            r"(?:\n(?:Completed|Finished) [^\n]*+)*+",
            r"\n++(?>(?x:" + _RESULTS_RE.pattern + r"))",
            r"\n++(?P<phases>(?>" + _PHASES_BLOCK_RE.pattern + r"))",
            r"\n++(?P<pcts>(?>" + _PCTS_BLOCK_RE.pattern + r"))\n*",
        )
    )
)
_RESULTS_INT = (
    "port", "concurrency", "requests", "failed", "failed_connect", "failed_receive", "failed_length",
    "failed_exceptions", "write_errors", "non_2xx", "keepalive_requests",
)  # fmt: skip
_RESULTS_FLOAT = ("duration_s", "bytes_total", "bytes_sent", "bytes_html", "requests_per_s")

# The labels of the results block (their run-splitting tags) and the group that shows an optional one.
_BLOCK_TAGS: tuple[tuple[str, str | None], ...] = (
    ("server software", None), ("server hostname", None), ("server port", None),
    ("ssl/tls protocol", "tls"), ("server temp key", "tls_temp_key"), ("tls server name", "tls_server_name"),
    ("document path", None), ("document length", None), ("concurrency level", None),
    ("time taken for tests", None), ("complete requests", None), ("failed requests", None),
    ("write errors", "write_errors"), ("non-2xx responses", "non_2xx"), ("keep-alive requests", "keepalive_requests"),
    ("total transferred", None), ("total body sent", "bytes_sent"), ("html transferred", None),
    ("requests per second", "requests_per_s"), ("time per request", "latency"),
    ("time per request all", "latency_all"), ("transfer rate", "rate"),
)  # fmt: skip
_BLOCK_ALWAYS = tuple(tag for tag, group in _BLOCK_TAGS if group is None)
_BLOCK_OPTIONAL = tuple((tag, group) for tag, group in _BLOCK_TAGS if group is not None)


_PCT_VALUES = {str(p): float(p) for p in (50, 66, 75, 80, 90, 95, 98, 99, 100)}


def _pct(text: str) -> float:
    """A percentage as float; ab's nine are looked up, not parsed.

    >>> _pct("66"), _pct("99.9")
    (66.0, 99.9)
    """
    v = _PCT_VALUES.get(text)
    return float(text) if v is None else v


_RESULTS_TEXT = ("tls_temp_key", "tls_server_name", "path")


def _spec(pattern: re.Pattern) -> tuple[tuple[tuple[str, int, type], ...], tuple[tuple[str, int], ...]]:
    """Where the results block's values sit in ``m.groups()`` of a pattern holding it: (column, index,
    int or float) of the numbers, (column, index) of the texts.

    >>> _spec(_RESULTS_RE)[0][:2]
    (('port', 2, <class 'int'>), ('concurrency', 9, <class 'int'>))
    """
    at = pattern.groupindex
    numbers = [(n, at[n] - 1, int) for n in _RESULTS_INT] + [(n, at[n] - 1, float) for n in _RESULTS_FLOAT]
    return tuple(numbers), tuple((n, at[n] - 1) for n in _RESULTS_TEXT)


_RESULTS_AT = _spec(_RESULTS_RE)
_PLAIN_AT = _spec(_PLAIN_RE)


def _fill_results(m: re.Match, r: _Run, at: tuple = _RESULTS_AT) -> None:
    """Store the values of a match of the results block in ``r`` (``at``: :func:`_spec` of its pattern)."""
    g = m.groups()
    d = r.d
    numbers, texts = at
    d["server_software"] = _text(m.group("server_software"))
    d["server_hostname"] = _text(m.group("server_hostname"))
    for name, i, conv in numbers:
        v = g[i]
        if v is not None:
            d[name] = conv(v)
    tls = m.group("tls")
    if tls is not None:
        _set(r, "ssl/tls protocol", "ssl/tls protocol", tls.strip())
    for name, i in texts:
        v = g[i]
        if v is not None:
            d[name] = _text(v)
    if m.group("variable") is not None:
        d["document_length_variable"] = True
    else:
        d["document_length_bytes"] = float(m.group("doclen"))
        d["document_length_variable"] = False
    latency = m.group("latency")
    if latency is not None:
        d["latency_mean_s"] = float(latency) * _MS
        d["latency_mean_all_s"] = float(m.group("latency_all")) * _MS
        d["bytes_per_s"] = float(m.group("rate")) * _KB
        sent = m.group("rate_sent")
        if sent is not None:
            d["bytes_sent_per_s"] = float(sent) * _KB
            d["bytes_per_s_total"] = float(m.group("rate_total")) * _KB


_PHASE_NAMES = {"Connect": "connect", "Processing": "processing", "Waiting": "waiting", "Total": "total"}


def detect(text: str) -> bool:
    """True when text looks like ab output (banner, or a summary label ab prints).

    >>> detect("Requests per second:    37.04 [#/sec] (mean)")
    True
    >>> detect("Transactions:  10 hits")
    False
    """
    return _DETECTED(text)


def parse_command(command: str) -> dict:
    """Run fields from an ab command line.

    ``-t`` implies 50000 planned requests unless ``-n`` is given; without
    ``-c``/``-n`` ab uses 1.

    >>> d = parse_command("ab -k -c 10 -n 1000000 http://tu-web-01/")
    >>> d["keepalive"], d["concurrency"], d["requests_planned"], d["url"], d["host"]
    (True, 10, 1000000, 'http://tu-web-01/', 'tu-web-01')
    >>> parse_command("ab -t 2 http://h:8080/x")["requests_planned"]
    50000
    """
    parsed, positional = getopt(command_argv(command), _OPTS_WITH_ARG)
    opts = {k: v for k, v in parsed.items() if isinstance(v, str)}
    flags = {k for k, v in parsed.items() if v is True}
    out: dict = {"keepalive": "k" in flags}
    out["concurrency"] = to_int(opts.get("c", "1"))
    if "t" in opts:
        out["time_limit_s"] = to_float(opts["t"])
    out["requests_planned"] = to_int(opts["n"]) if "n" in opts else (50000 if "t" in opts else 1)
    if "m" in opts:
        out["method"] = opts["m"].upper()
    elif "p" in opts:
        out["method"] = "POST"
    elif "u" in opts:
        out["method"] = "PUT"
    elif "i" in flags:
        out["method"] = "HEAD"
    else:
        out["method"] = "GET"
    if positional:
        url = positional[-1]
        out["url"] = url
        m = re.match(r"^(?:(https?)://)?([^/:\[\]]+|\[[^\]]+\])(?::(\d+))?(/.*)?$", url)
        if m:
            out["host"] = m.group(2)
            if m.group(3):
                out["port"] = int(m.group(3))
            elif m.group(1):
                out["port"] = 443 if m.group(1) == "https" else 80
            out["path"] = m.group(4) or "/"
    return out


def _phase_row(name: str, rest: str) -> dict:
    """One Connection Times row (ms) as seconds: 5 columns, or 3 with ``-S``."""
    n = rest.split()
    if len(n) == 5:  # min mean[+/-sd] median max
        return {
            "phase": _PHASE_NAMES[name],
            "min_s": float(n[0]) * _MS,
            "mean_s": float(n[1]) * _MS,
            "sd_s": float(n[2]) * _MS,
            "median_s": float(n[3]) * _MS,
            "max_s": float(n[4]) * _MS,
        }
    keys = ("min_s", "mean_s", "max_s") if len(n) == 3 else ("min_s", "mean_s", "sd_s", "median_s", "max_s")
    row: dict = {"phase": _PHASE_NAMES[name]}
    for k, v in zip(keys, n, strict=False):
        row[k] = float(v) * _MS
    return row


class _Run:
    """Accumulates one run while scanning lines."""

    def __init__(self, line: int):
        self.d: dict = {"tool": "ab", "line": line}
        self.keys: set[str] = set()
        self.phases: list[dict] = []
        self.pcts: list[dict] = []
        self.warnings: list[str] = []
        self.has_result = False
        self.kb = _KB  # bytes per "kb" of Transfer rate lines (ab 1.3 used 1000)
        self.benchmarking = ""  # the Benchmarking line: ab went ahead with a run (its result may never come)
        self.unread = False  # a line no kind reads came after it (a copy cut inside a line): not a run that ended

    def ended_after_benchmarking(self) -> bool:
        """Whether ab began this run and printed nothing after its Benchmarking line (with ``.....done`` there,
        ab finished its requests: the result was cut from this copy, not never printed)."""
        began = bool(self.benchmarking) and not self.benchmarking.endswith("done")
        return began and not (self.has_result or self.keys or self.unread)

    def empty(self) -> bool:
        return not (self.has_result or self.d.get("error") or self.keys or self.ended_after_benchmarking())


def _starts_run(kind: str, cur: _Run, tags: Collection[str] = ()) -> bool:
    """Whether a line of ``kind`` begins a new run rather than continuing ``cur``.

    The one place that decides where a run starts: ab's banner, or a label the
    run already has (another pasted result).

    >>> r = _Run(1); r.keys.add("concurrency level")
    >>> _starts_run("label", r, ["concurrency level"]), _starts_run("label", r, ["time taken for tests"])
    (True, False)
    """
    return kind == "banner" or not cur.keys.isdisjoint(tags)


class _Reader:
    """The runs of one text, read line by line: one handler per line kind (see ``LINE_KINDS``)."""

    def __init__(self, phases: bool = True, percentiles: bool = True) -> None:
        self.runs: list[_Run] = []
        self.cur = _Run(1)
        # the detail rows to build: the Total row of Connection Times is always read (latency min and max)
        self.phases, self.percentiles = phases, percentiles

    def new_run(self, n: int) -> None:
        """Close the current run and begin one at line ``n``.

        An error printed before a run that went ahead (``ab: illegal option -- Q``)
        is kept as the new run's warning rather than as a run of its own.
        """
        carried: list[str] = []
        cur = self.cur
        if not cur.empty():
            if not cur.has_result and "tool_version" not in cur.d and cur.d.get("error"):
                carried = [cur.d["error"], *cur.warnings]
            else:
                self.runs.append(cur)
        self.cur = _Run(n)
        self.cur.warnings.extend(carried)

    def unread(self, n: int, line: str) -> None:
        """A line no kind reads (the scan's ``other``)."""
        self.cur.unread = True

    def finished(self) -> list[_Run]:
        if not self.cur.empty():
            self.runs.append(self.cur)
        return self.runs


def _banner(rd: _Reader, n: int, m: re.Match) -> None:
    rd.new_run(n)
    rd.cur.d["tool_version"] = m.group(1)
    if m.group(2):
        rd.cur.d["tool_build"] = m.group(2)


def _header(rd: _Reader, n: int, m: re.Match) -> None:
    """The banner, copyright lines and Benchmarking line in one match (as those kinds read them one by one)."""
    _banner(rd, n, m)
    rd.cur.d.setdefault("host", m.group(3))
    rd.cur.benchmarking = m.group(0).rsplit("\n", 1)[-1].strip()


def _results(rd: _Reader, n: int, m: re.Match) -> Step:
    """ab 2.x's whole results block; False (read label by label) when the run already has one of its labels."""
    tags = [*_BLOCK_ALWAYS, *(tag for tag, group in _BLOCK_OPTIONAL if m.group(group) is not None)]
    if _starts_run("label", rd.cur, tags):
        return False
    rd.cur.keys.update(tags)
    rd.cur.has_result = True
    _fill_results(m, rd.cur)
    return None


def _phase_rows(block: str, every: bool) -> list[dict]:
    """The rows of a Connection Times block; ``every=False``: only the Total row (the run's latency min and max).

    >>> [r["phase"] for r in _phase_rows("Connection Times (ms)\\nConnect:  0 0 0.1 0 1\\nTotal:  1 2 0.3 2 5", False)]
    ['total']
    """
    if every:
        rows = _PHASE_ROW_RE.findall(block)
    else:  # the first row at a line's start: looked for with str.find (a third of the search's time)
        at = block.find("\nTotal:") + 1
        total = (_TOTAL_ROW_RE.match(block, at) or _TOTAL_ROW_RE.search(block, at)) if at else None
        rows = [total.groups()] if total else []
    return [_phase_row(name, rest) for name, rest in rows]


def _pct_rows(block: str) -> list[dict]:
    """The rows of a percentages block.

    >>> _pct_rows("Percentage of the requests served within a certain time (ms)\\n  50%      3\\n 100%      6")[1]
    {'percentile': 100.0, 'latency_s': 0.006}
    """
    return [{"percentile": _pct(p), "latency_s": float(v) * _MS} for p, v in _PCT_ROW_RE.findall(block)]


def _phase_table(rd: _Reader, n: int, m: re.Match) -> None:
    rd.cur.has_result = True
    rd.cur.phases.extend(_phase_rows(m.group(0), rd.phases))


def _pct_table(rd: _Reader, n: int, m: re.Match) -> None:
    rd.cur.has_result = True
    if rd.percentiles:
        rd.cur.pcts.extend(_pct_rows(m.group(0)))


def _ignored(rd: _Reader, n: int, m: re.Match) -> None:
    """Progress lines and the banner's copyright lines."""


def _label(rd: _Reader, n: int, m: re.Match) -> Step:
    label = m.group(1)
    key = _KEYS.get(label)
    if key is None:
        key = _KEYS[label] = label.strip().lower()
    if key not in LABELS and key not in _SPECIAL:
        return False
    val = m.group(2).strip()
    tag = key
    if key == "time per request":
        tag = "time per request all" if "across all" in val else "time per request"
    if _starts_run("label", rd.cur, (tag,)):
        rd.runs.append(rd.cur)
        rd.cur = _Run(n)
    rd.cur.keys.add(tag)
    rd.cur.has_result = True
    _set(rd.cur, key, tag, val)
    return None


def _breakdown(rd: _Reader, n: int, m: re.Match) -> None:
    for k, v in zip(_BREAKDOWN_COLS, m.groups(), strict=True):
        if v is not None:
            rd.cur.d[k] = int(v)


def _rate_continued(rd: _Reader, n: int, m: re.Match) -> None:
    col = "bytes_sent_per_s" if m.group(2) == "sent" else "bytes_per_s_total"
    rd.cur.d[col] = float(m.group(1)) * rd.cur.kb


def _usage(rd: _Reader, n: int, m: re.Match) -> None:
    """The usage text, up to the next banner (the block kind passes over it): ab refused its command line."""
    rd.cur.d.setdefault("error", "usage error")
    rd.cur.d["error_kind"] = COMMAND_REFUSED


def _error(rd: _Reader, n: int, m: re.Match) -> None:
    msg, d = m.string.strip(), rd.cur.d
    d["error"] = f"{d['error']}; {msg}" if d.get("error") and d["error"] != "usage error" else msg
    kind = error_kind([msg], ERROR_KINDS)
    if kind and d.get("error_kind") != COMMAND_REFUSED:  # a refused command line sent nothing, whatever follows
        d["error_kind"] = kind


def _total_of(rd: _Reader, n: int, m: re.Match) -> None:
    rd.cur.d["requests"] = int(m.group(1))


def _warning(rd: _Reader, n: int, m: re.Match) -> None:
    rd.cur.warnings.append(m.string.strip())


def _benchmarking(rd: _Reader, n: int, m: re.Match) -> None:
    rd.cur.d.setdefault("host", m.group(1))
    rd.cur.benchmarking = m.group(0).strip()
    rest = m.group(2).strip()
    if rest and rest != "done":
        rd.cur.d["error"] = rest  # "Benchmarking h (be patient)...apr_socket_recv: ..."
        rd.cur.d["error_kind"] = error_kind([rest], ERROR_KINDS)


#: The lines ab prints, in the order they are tried (first match wins; see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("header", "This is ApacheBench, Version", _HEADER_RE, _header, block=True),
    LineKind("banner", "This is ApacheBench", _BANNER_RE, _banner, search=True),
    LineKind("results", "Server Software:", _RESULTS_RE, _results, block=True),
    LineKind("phases", "ection Times (ms)", _PHASES_BLOCK_RE, _phase_table, block=True),
    LineKind("percentiles", "Percentage of the requests served", _PCTS_BLOCK_RE, _pct_table, block=True),
    LineKind("progress", "ed ", _PROGRESS_RE, _ignored, block=True),
    LineKind("copyright", "Copyright ", _BOILERPLATE_RE, _ignored),
    LineKind("licence", "Licensed to ", _BOILERPLATE_RE, _ignored),
    LineKind("label", ":", _LABEL_RE, _label),
    LineKind("boilerplate", "This is ApacheBench", _BOILERPLATE_RE, _ignored),
    LineKind("breakdown", "(Connect:", _FAILED_BREAKDOWN_RE, _breakdown),
    LineKind("rate_continued", "kb/s", _RATE_CONT_RE, _rate_continued),
    LineKind("usage", "Usage: ab ", _USAGE_BLOCK_RE, _usage, block=True),
    LineKind("error", "", _ERROR_RE, _error),
    LineKind("total_of", "Total of ", _TOTAL_OF_RE, _total_of),
    LineKind("warning", "", _WARNING_RE, _warning),
    LineKind("benchmarking", "Benchmarking ", _BENCH_RE, _benchmarking),
]


def _scan(text: str, phases: bool = True, percentiles: bool = True) -> list[_Run]:
    """The runs of a text (one result, several pasted, excerpts, errors, usage); the detail rows asked for."""
    rd = _Reader(phases, percentiles)
    runs = scan(text, LINE_KINDS, rd, other=rd.unread).finished()
    if any(r.has_result and "tool_version" not in r.d for r in runs):
        # results printed apart from their banners (several ab at once into one log: the banners first, then the
        # results): a banner with nothing after it is another run's, not a run that ended there
        runs = [r for r in runs if not (r.ended_after_benchmarking() and not r.d.get("error"))]
    return runs


def _set(r: _Run, key: str, tag: str, val: str) -> None:
    """Store one labelled value under its column(s)."""
    d = r.d
    if key in LABELS:
        col, conv = LABELS[key]
        d[col] = conv(val)  # type: ignore[operator]
    elif key == "ssl/tls protocol":
        parts = [p.strip() for p in val.split(",")]
        d["tls_protocol"] = parts[0] if parts else val
        if len(parts) > 1:
            d["tls_cipher"] = parts[1]
        if len(parts) > 2:
            d["tls_key_bits"] = to_int(parts[2])
        if len(parts) > 3:
            d["tls_cipher_bits"] = to_int(parts[3])
    elif key == "document length":
        if val.lower().startswith("variable"):
            d["document_length_variable"] = True
        else:
            d["document_length_bytes"] = to_float(val)
            d["document_length_variable"] = False
    elif tag == "time per request":
        d["latency_mean_s"] = _ms(val)
    elif tag == "time per request all":
        d["latency_mean_all_s"] = _ms(val)
    elif key == "transfer rate":
        # ab 2.x: "[Kbytes/sec]" = 1024 B/s; ab 1.3: "kb/s received" = bytes per ms = 1000 B/s
        r.kb = _KB if "[Kbytes/sec]" in val else 1000.0
        x = to_float(val)
        d["bytes_per_s"] = None if x is None else x * r.kb


def _target(d: dict) -> None:
    """Host and URL from what ab printed (Server Hostname, Port, Document Path, TLS)."""
    if d.get("server_hostname"):
        d.setdefault("host", d["server_hostname"])
    if "url" not in d and d.get("host") and d.get("path"):
        scheme = "https" if d.get("tls_protocol") else "http"
        default = 443 if scheme == "https" else 80
        port = d.get("port")
        hostport = d["host"] if port in (None, default) else f"{d['host']}:{port}"
        d["url"] = f"{scheme}://{hostport}{d['path']}"


def _counts(d: dict) -> None:
    """Keep-alive, non-2xx, the failure breakdown and requests_ok where ab's silence means zero."""
    full = "requests" in d and "requests_per_s" in d
    if "keepalive" not in d and full:
        d["keepalive"] = "keepalive_requests" in d
    if d.get("keepalive_requests") is not None and d.get("keepalive") is None:
        d["keepalive"] = True
    if full and "failed" in d and "non_2xx" not in d and d.get("tool_version", "2") >= "2":
        d["non_2xx"] = 0  # ab 2.x prints the line only when non-zero
    if full and d.get("failed") == 0:
        for k in ("failed_connect", "failed_receive", "failed_length", "failed_exceptions"):
            d.setdefault(k, 0)
    if full and "failed" in d and "requests" in d and not (d["failed"] and d.get("non_2xx")):
        # with both failures and non-2xx, ab cannot tell how many are the same request
        # (an error page of another length is both): requests_ok stays empty
        d.setdefault("requests_ok", d["requests"] - d["failed"] - (d.get("non_2xx") or 0))


def _run_row(r: _Run, cmd: dict) -> dict:
    """A scanned result as a runs row: the command's fields, derived counts, latency range, warnings."""
    d = r.d
    for k, v in cmd.items():
        d.setdefault(k, v)
    _counts(d)
    _target(d)
    total = next((p for p in r.phases if p["phase"] == "total"), None)
    if total:
        d.setdefault("latency_min_s", total.get("min_s"))
        d.setdefault("latency_max_s", total.get("max_s"))
    if r.warnings:
        d["warnings"] = "; ".join(r.warnings)
    if not d.get("error") and r.ended_after_benchmarking():
        d["error"] = no_result(r.benchmarking)  # ab began the run and never finished it: a failed run, kind unknown
    elif not r.has_result and not d.get("error"):
        d["error"], d["error_kind"] = no_result(""), NO_RESULT_SHOWN
    return d


def no_result(benchmarking: str) -> str:
    """Why a run has no figures: its output ends after ab's ``Benchmarking`` line (ab started, then printed
    nothing more: killed, or its error went to a stream not kept), or shows no result at all.

    >>> no_result("Benchmarking 10.0.0.14 (be patient)")
    "the output ends after 'Benchmarking 10.0.0.14 (be patient)': ab printed no result, its error was not captured"
    >>> no_result("")
    'no result in the output'
    """
    if not benchmarking:
        return "no result in the output"
    return f"the output ends after {benchmarking!r}: ab printed no result, its error was not captured"


def from_html(text: str) -> str:
    """ab ``-w`` output (HTML tables) as ab prints it without ``-w``, line for line.

    Its ``kb/s received`` is the same figure as ``[Kbytes/sec] received``
    (bytes / 1024 / seconds: 40900 bytes at 7947.23 requests/s of 100 print
    3174.24), not ab 1.3's bytes per millisecond of the same words.

    >>> print(from_html(" This is ApacheBench, Version 2.3 <i>&lt;$Revision$&gt;</i><br>\\n"
    ...   "<tr ><th colspan=2 bgcolor=white>Complete requests:</th><td colspan=2 bgcolor=white>100</td></tr>"))
    This is ApacheBench, Version 2.3 <$Revision$>
    Complete requests:    100
    """
    out = []
    for line in text.split("\n"):
        cells = _HTML_CELL_RE.findall(line)
        if cells:
            line = "    ".join(html.unescape(c).strip() for c in cells).strip().replace(" kb/s ", " [Kbytes/sec] ")
        elif "<" in line or "&" in line:
            line = html.unescape(_HTML_TAG_RE.sub("", line)).strip()
        out.append(line)
    return "\n".join(out)


_ENDS_IN_NUMBER_RE = re.compile(r"\d\.?[ \t]*\Z")


def cut_line(text: str) -> str | None:
    """The last line of an ab output that ends inside it, where a number may be cut; else None.

    ab ends every line it prints with a newline. A full output (its banner
    shown) whose text stops after a number with no newline was cut there:
    ``Requests per second:    46`` may have been 4638.30. An excerpt without
    the banner (a line pasted in notes) is not judged.

    >>> cut_line("This is ApacheBench, Version 2.3\\nComplete requests:      10")
    'Complete requests:      10'
    >>> cut_line("This is ApacheBench, Version 2.3\\nComplete requests:      10\\n") is None
    True
    >>> cut_line("Requests per second:    37.04") is None
    True
    """
    if not text or text.endswith("\n") or not _ENDS_IN_NUMBER_RE.search(text):
        return None
    if "This is ApacheBench" not in text:
        return None
    return text.rsplit("\n", 1)[-1]


def parse(seg: Segment) -> Parsed:
    """Read every ab result in a segment (one run, several pasted ones, or an excerpt).

    A full output cut inside its last line (:func:`cut_line`) is read without
    that line, and its run says so in ``warnings``: a number cut short is
    left empty, not read as a smaller one.
    """
    cmd = parse_command(seg.command) if seg.command else {}
    want = {"phases": seg.wants("phases"), "percentiles": seg.wants("percentiles")}
    text = from_html(seg.text) if "</th>" in seg.text else seg.text
    cut = cut_line(text)
    if cut is not None:
        text = text[: len(text) - len(cut)]
    runs = _scan(text, want["phases"], want["percentiles"])
    if not runs and seg.command:
        runs.append(_Run(1))
        runs[0].d["error"] = "no output after the command"
    if cut is not None and runs:
        runs[-1].warnings.append(
            f"the output ends inside its last line ({cut.strip()!r}, no newline after it): that line was not "
            "read, its number may be cut short"
        )
    return _parsed(runs, cmd, want)


def read_plain(m: re.Match, seg: Segment) -> Parsed:
    """One clean ab 2.x output from its :data:`_PLAIN_RE` match (:attr:`Format.read_plain`): the run
    :func:`parse` reads in it, without scanning it again.

    The match holds every value: the banner's groups, the results block's and
    the two tables' text. A text the line scan would read otherwise (a second
    banner inside a value, ``-w``'s HTML cells) is left to :func:`parse`.

    >>> from pathlib import Path
    >>> import lbanalysis
    >>> text = (Path(lbanalysis.__file__).parents[1] / "tests/fixtures/ab/ab_c10.txt").read_text()
    >>> read_plain(_PLAIN_RE.fullmatch(text), Segment(text)).runs == parse(Segment(text)).runs
    True
    """
    text = seg.text
    if text.find("This is ApacheBench", 1) >= 0 or "</th>" in text or cut_line(text) is not None:
        return parse(seg)
    want = {"phases": seg.wants("phases"), "percentiles": seg.wants("percentiles")}
    r = _Run(1)
    d = r.d
    d["tool_version"] = m.group(1)
    if m.group(2):
        d["tool_build"] = m.group(2)
    d["host"] = m.group(3)
    r.has_result = True
    _fill_results(m, r, _PLAIN_AT)
    r.phases = _phase_rows(m.group("phases"), want["phases"])
    if want["percentiles"]:
        r.pcts = _pct_rows(m.group("pcts"))
    return _parsed([r], parse_command(seg.command) if seg.command else {}, want)


def _parsed(runs: list[_Run], cmd: dict, want: dict[str, bool]) -> Parsed:
    """The scanned runs as runs rows (with the command's fields) and the detail rows asked for."""
    out = Parsed()
    for i, r in enumerate(runs):
        out.runs.append(_run_row(r, cmd))
        for table, rows in (("phases", r.phases), ("percentiles", r.pcts)):
            if rows and want[table]:
                for p in rows:  # the scanner's own fresh dicts
                    p["run"] = i
                out.tables.setdefault(table, []).extend(rows)
    return out


FORMATS = [
    Format(
        "ab",
        "ab",
        detect,
        parse,
        plain=_PLAIN_RE,
        read_plain=read_plain,
        description="ApacheBench summary (ab 2.3, 2.2, 2.0.x, 1.3), whole, several pasted, or excerpts; -w HTML tables; stderr alone",
    )
]

__all__ = ["FORMATS", "detect", "error_row", "from_html", "parse", "parse_command", "read_plain"]
