"""Every number a fixture prints is found in what lbanalysis reads from it (any table), so a lost figure fails here.

For each file of each fixture family, the numbers of its text are looked up
among the values of the Dataset read from it: every numeric cell of every
table, and the numbers inside its text cells (a command line, a URL, a status
code distribution, an error message). A printed number is found when some
value, after one of the documented unit conversions, rounds to it at the
printed precision:

* SI prefixes (10^±3k: ms, us, k, M, G; bit/s to Mbit/s),
* binary byte prefixes (1024^k: KB, MB, GB, as the schema documents for ab,
  wrk, iperf and siege),
* bytes to bits (x 8: iperf's ``MBytes/sec``),
* fractions to percent (x 100: wrk2's spectrum percentiles),
* minutes and hours (wrk's ``1.00m``).

Two small lists say what is not looked up, for the tools that printed the
file (so a folder mixing tools, ``pasted``, has the rules of each): ``NOT_FIGURES`` (dates, times,
addresses, versions, help and progress text: numbers that are no figure of a
run), and ``NOT_KEPT`` (figures the readers do not keep yet, each named; a
new reader change that drops a figure is not on it, so it fails).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import lbanalysis
from lbanalysis.readers.haproxy.stat import FIELDS as STAT_FIELDS
from lbanalysis.text import normalize

from .conftest import FIXTURES, corpus

_P = [10.0**k for k in range(-12, 13, 3)] + [1024.0**k for k in range(-4, 5) if k]
FACTORS = np.array(sorted({f * g for f in _P for g in (1.0, 8.0, 1 / 8)} | {100.0, 1 / 60, 1 / 3600}))
_NUM_RE = re.compile(r"(?<![A-Za-z0-9_.])(\d+(?:\.\d+)?(?:[eE][-+]?\d+(?![\w.]))?)")
_TEXT_NUM_RE = re.compile(r"\d+(?:\.\d+)?")

#: Numbers that are no figure of a run.
NOT_FIGURES = [
    r"\b\d{4}-\d\d-\d\d(?:T\d\d:\d\d:\d\d(?:\.\d+)?Z?\b|\b|(?=T))",  # dates (ISO 8601: with the time)
    r"^\s*Linux \S+ \d.*$|\"system_info\":[^,]*",  # uname -a of iperf3 -V: the host, not the run
    r"\b\d\d?:\d\d(?::\d\d(?:\.\d+)?)?\b",  # times
    r"\b(?:Start|End) time: \d{10}\b",  # Unix times a sweep's script echoes around each run (`$(date +%s)`)
    r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \w{3} \d\d \d\d:\d\d:\d\d [A-Z]{2,5} \d{4}\b",  # Java's Date (JMeter)
    r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),? +(?:\d+ +)?\w{3} +\d+ [\d:]+ +(?:\d{4}|GMT)?",  # ctime / HTTP dates
    r"\b\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}\b",  # HTTP dates
    r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2}\b",  # ctime dates
    r"(?<![\d.])\d{14}(?:\.\d+)?\b",  # iperf 2 -y C time stamps (not the decimals of a long fraction)
    r"\b\d+\.\d+\.\d+\.\d+\b",  # IPv4 addresses
    r"\b[\w-]+\.c:\d+",  # source file and line in siege's notices
    r"^\s*(?:Date|Server|Last-Modified|ETag|Content-\w+|Host|User-Agent|Accept[\w-]*|Connection): .*$",  # headers
    r"^\s*(?:GET|HEAD|POST|PUT) \S+ HTTP/[\d.]+\s*$|^\s*HTTP/[\d.]+ \d{3} [A-Z][\w ]*$",  # siege -g request/status
    r"\[debug\] .*$",  # siege -D
    r"HTTP/\d\.\d",  # the protocol version of a request line
    r"^\s*Completed \d+ requests\s*$",  # ab's progress
    r"^\s*Thread calibration: .*$",  # wrk2's per-thread calibration before the test
    r"^(\s*[\d.]+\s+[01]\.\d+\s+\d+)\s+(?:[\d.]+|inf)\s*$",  # wrk2 spectrum: 1/(1-Percentile) is the percentile
    r"#\[Buckets\s*=.*$",  # wrk2's HdrHistogram layout
    r"^\s*\[.\] \[\d{3}\] .*$",  # the gobench fork's -p echo of each response
    r"(?s:Usage(?: of \S+)?:\s.*)",  # usage and help texts: options, not figures
    r"\d(?:xx|XX)\b",  # status classes (2xx, Non-2xx or 3xx)
    r"(?:ApacheBench|iperf|SIEGE|HA-Proxy|HAProxy)[ ,]+(?:[Vv]ersion )?\d[\w.+-]*",  # versions
    r"\$Revision: \d+ \$|Copyright .*$|Licensed to .*$",
    r'"\d+(?:\.\d+)?"(?=\s*:)',  # a JSON key naming the percentile or status of the value after it
    r'"headers":\{[^{}]*\}',  # response headers echoed in vegeta's results (Server: Python/3.11.7)
    r"^\s*[\d.]+% in NaN\b.*$",  # a percentile with no value (oha, when no response came)
    r"^\s*running \(.*$|^\s*[\w-]+\s+(?:[✓✗] )?\[\s*\d+% \].*$",  # k6's progress lines
    r"\(\d+\.\d+%\) \d+ scenarios?|\S+ max duration \(incl\. graceful stop\)",  # k6's plan: options, not figures
    r"^\s*[✓✗] (?!')(?!.*\.{2,}:).*$",  # a k6 check's name (its counts are figures of checks)
    r'"(?:name|path|id|script)":\s*"(?:[^"\\]|\\.)*"|"[^"\n]*":\s*\{(?=\s*"name")',  # k6 JSON: names, ids, script
    r'"thresholds":\[[^\]]*\]',  # k6 --out json: the threshold expressions a metric was declared with (options)
    r"^[a-z_]+,\d{10}(?:\d{3}|\d{6}|\d{9})?(?=,)",  # k6 --out csv: the metric and its Unix time stamp
    r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\]",  # Locust's log time stamps
    r'^\s*File ".*", line \d+, in .*$',  # a Python traceback (a Locust script's exception)
    r'"(?:start_time|last_request_timestamp)":\s*[\d.]+',  # Unix time stamps of Locust's JSON
    r"^\s*//.*$",  # a comment of the source code an output was pasted into
    r"Waiting for possible .*message on port \d+",  # JMeter's shutdown port
    r"^\s*\d+ / \d+ +\d+\.\d\d%(?: \d+/s)?(?: [\dhms.]+)?\s*$",  # bombardier's progress bar (done / planned)
]
_NOT_FIGURES_RE = re.compile("|".join(f"(?:{p})" for p in NOT_FIGURES), re.M)

#: Figures printed but not kept yet, per family: what they are.
NOT_KEPT: dict[str, list[tuple[str, str]]] = {
    "iperf2": [
        (
            r"\((?:icwnd/mss/irtt|ct|sock|peer)[^)]*\)",
            "connect-line extras: initial cwnd/mss/RTT, connect time, socket",
        ),
        (r"with pid \d+(?: \(\d+ flows\))?", "the process id and flow count of the banner"),
        (r"(?:TCP window|UDP buffer|Read buffer|Write buffer) size: .*$", "socket buffer sizes of the banner"),
        (r"Sending \d+ byte datagrams, IPG target: .*$", "UDP datagram size and inter-packet gap target"),
        (r"^\[ CT\] final connect times.*$", "-e connect time statistics"),
        (r"after \d+ tries", "retries of the last datagram's ack"),
        (r"\s\d+/\d+(?=\s+(?:\d+\s+)?(?:-?\d+K/|\d+ pps|$))", "-e Write/Err counts"),
        (r"\s[\d.]+/[\d.]+/[\d.]+/[\d.]+ ms.*$", "-e UDP latency avg/min/max/stdev, pps, NetPwr"),
        (r"\d+ pps.*$", "-e UDP packets per second"),
        (r"(?<= us)\s+[\d.]+\s*$|\(\d+\)(?= us)", "-e NetPwr and RTT variance"),
        (
            r"^\[SUM\].*$(?=[\s\S]*(?:full-duplex|\(reverse\)|^\[ \*\d))",
            "a full-duplex [SUM] of both directions (not used)",
        ),
        (r"^\[SUM\] 0\.0+-\d+\.\d+ sec.*$", "a server's [SUM] total spanning tests (a one-stream test keeps its own)"),
        (r"\d+=\d+:\d+:.*$", "-e server read-size histogram"),
    ],
    "iperf3": [
        (
            r'"(?:snd_wnd|max_snd_wnd|pmtu|rttvar|tcp_mss_default|sndbuf_actual|rcvbuf_actual|target_bitrate|blksize'
            r"|socket|timesecs|seconds|cookie|sock_bufsize|tos|omit|reverse|bidir|fq_rate|interval|blocks"
            r'|system_info|version|time|congestion|bytes_to_send|blocks_to_send)":\s*[^,}\]]*',
            "JSON fields not read: socket and window sizes, MTU, RTT variance, buffer sizes, options, ids",
        ),
        (r'"accepted_connection":\s*\{[^}]*\}', "the client's control-connection port (JSON)"),
        (r'"sum_bidir_reverse":\s*\{[^}]*\}', "--bidir interval sums of a one-stream direction (its stream's figures)"),
        (
            r'"local_port":\d+,"remote_host":"[^"]*","remote_port":\d+',
            "ports of the connections of streams that printed no summary (a killed run)",
        ),
        (r"Accepted connection from.*?port \d+", "the client's control-connection port"),
    ],
    "bombardier": [
        (
            r"^\s*(?:Latency|\d+%) .*$(?=(?:\n.*){1,12}\n\s*1xx - 0, 2xx - 0, 3xx - 0, 4xx - 0, 5xx - 0\s*$)"
            r'|"req1xx":0,"req2xx":0,"req3xx":0,"req4xx":0,"req5xx":0,.*?"latency":\{[^{}]*(?:\{[^{}]*\}[^{}]*)?\}',
            "latencies when no response came: the times of failed attempts (as for hey)",
        ),
    ],
    "vegeta": [
        (
            r"^\s*\[[^\]\n]+\]\s+\d+\s+[\d.]+%.*$",
            "hist buckets: each bucket's own count and share (kept cumulated, at its upper bound, in percentiles)",
        ),
        (
            r"^\s*Latencies .*$(?=(?:\n.*){1,6}\n\s*Status Codes\s+\[code:count\]\s+0:\d+\s*$)"
            r'|"latencies":\{[^{}]*\}(?=.*"status_codes":\{"0":\d+\})',
            "latencies when no response came: the times of failed attempts (as for hey)",
        ),
        (r'"latencies":\{"total":\d+', "the sum of all latencies (JSON latencies.total: mean x requests)"),
    ],
    "k6": [
        (
            r"^(?:\{\"metric\":\"|)(?:iteration_duration|data_sent|data_received|iterations|checks|vus|vus_max"
            r"|group_duration|dropped_iterations)[,\"].*$",
            "--out json/csv samples of each iteration (durations, data, checks, VUs): the run keeps their sums",
        ),
        (
            r"^(?:\{\"metric\":\"|)http_req\w*[,\"](?=.*(?:,0,|\"status\":\"0\")).*$",
            "--out samples of requests with no response (status 0): counted in failed_network, not requests rows",
        ),
    ],
    "locust": [
        (
            r"^(?:[A-Z]+ +\S|\s+Aggregated\s).*\|.*$"
            r"(?=(?:(?!Starting Locust)[\s\S])*^Type\s+Name\s+# reqs)",
            "the statistics tables printed every 2 s while running (the last one is the run's)",
        ),
        (
            r'"(?:response_times|num_reqs_per_sec|num_fail_per_sec)":\s*\{[^{}]*\}',
            "--json per-name histograms and counts per second (merged: the run's percentiles and intervals)",
        ),
        (
            r"(?<=\(exit code \d\)\n)^\[$[\s\S]*?^\]$",
            "--json printed after the log, before the tables: the run is the tables' (the JSON's per-name totals)",
        ),
        (r"Starting web interface at \S+", "the web interface's address (not a figure of the run)"),
    ],
    "oha": [
        (
            r"^\s*Response time histogram \(.*\):\s*$(?:\n\s*[\d.]+(?: \w+)? \[\d+\]\s*\|.*$)*"
            r'|"(?:responseTimeHistogram(?:Successful|NotSuccessful)|firstByteHistogram)":\s*\{[^{}]*\}',
            "the histograms of --stats-success-breakdown and of the first byte (their percentiles are kept)",
        ),
    ],
    "taurus": [
        (r"^(?:\S+ )?INFO: Artifacts dir: .*$", "the artifacts directory (a path stamped with the start time)"),
        (r"^(?:\S+ )?INFO: Current: .*$", "a progress line: one second's counts (its users kept as concurrency)"),
        (r"\d+(?:\.\d+)?(?=% failures$)", "the failure share, kept as success_pct (100 less it)"),
    ],
    "gatling": [
        (
            r"^(?:> )?.+\(OK=\d+\s+KO=\d+\s*\)$(?![\s\S]*^-+ Global Information)",
            "the progress blocks' counts so far, before the Global Information (the last block's are kept as metrics)",
        ),
        (
            r"^\[#*-*\s*\]\s*\d+%$|^\s*waiting: .*$|^.*\d+s elapsed$",
            "progress: bar, users waiting/active/done, elapsed",
        ),
        (
            r"^(?:> )?.+\s\d+ \(\s*[\d.]+%\)$(?![\s\S]*^-+ Global Information)",
            "the errors of a progress block (the final table is kept)",
        ),
        (
            r"^(?:Reports generated, p|P)lease open the following file: .*$|^Reports generated in \d+s\.$"
            r"|^logs?: `[^`]*index\.html`$",
            "where and how fast the report was written (in notes: its path)",
        ),
        (
            r"^GROUP\t.*$",
            "simulation.log GROUP records: a group's start, end and cumulated time (its requests are rows)",
        ),
        (r"^\w{3} \d+, \d{4} \d+:\d+:\d+ [AP]M java\..*$", "a JVM warning's time stamp"),
    ],
    "httperf": [
        (r"\([\d.]+ ms/(?:conn|req)\b", "ms per connection and per request: the reciprocals of the rates kept"),
        (r"\*10\^6 bps", "the unit of Net I/O in bits (its figure is kept, in bytes)"),
        (r"--(?:send|recv)-buffer=\d+|--client=\d+/\d+", "options httperf echoes: socket buffer sizes, client number"),
        (r"^httperf: maximum number of open descriptors = \d+$", "-v: the client's descriptor limit"),
        (r"^httperf: httperf-\d[\w.]* compiled", "the version banner of --version"),
    ],
    "jmeter": [
        (r"^Tidying up \.\.\..*$", "the time the test ended (the run's length is the summariser's)"),
        (r"(?<= in) +[\d.,]+s(?= +=)", "the summariser's time, rounded (duration_s: samples / the rate printed)"),
        (r"\(\d+[.,]\d+%\)", "the summariser's error share (kept as its counts: failed / requests_attempted)"),
        (
            r"^\w+(?: \w+)* = .*$(?=(?:(?!Tidying up)[\s\S])*^\w+(?: \w+)* \+ )",
            "the totals so far printed between intervals (the last 'summary =' is the run)",
        ),
        (
            r"^\s+<(?:httpSample|sample) .*$",
            "the parts of a sample (a followed redirect's hops): its time and bytes include theirs",
        ),
    ],
    "crank": [
        (
            r'^\s*"(?:benchmarks/(?:build-time|published-size|start-time|private-memory|memory/swap|symbols-size)'
            r'|(?:runtime|kestrel|aspnet|system-net-http)-counter/[\w-]+|http/firstrequest|\w+Version)":.*$',
            "crank's other figures: build, start and first-request times, published size, private memory, .NET"
            " runtime and Kestrel counters, the .NET versions",
        ),
        (r'"(?:buildId|buildNumber)":\s*"[^"]*"|"arch":\s*"\w+"', "the stored document's build ids; the architecture"),
    ],
    "fortio": [
        (
            r'^\{"ts":.*$',
            "its log lines (stderr): each thread's calls and rate, the run's start (the result holds them)",
        ),
        (r"\(plus \d+ warmup\)", "the warm-up calls (one per thread, before the run; not counted in it)"),
        (r"\[gomax \d+\]|\d+->\d+ procs", "GOMAXPROCS: the cores the Go runtime may use"),
        (
            r": \d+ calls each \(total \d+\)|, \d+ calls each \(total \d+ \+ \d+\)|\(\d+ per thread \+ \d+\)",
            "the calls planned per thread (the calls planned are kept)",
        ),
        (r"running at (?:0|-1) queries per second", "a rate of 0 or -1: no rate (as fast as it can)"),
        (r"\(for perfect keepalive, would be \d+\)", "the sockets one per thread would make (the threads are kept)"),
        (r"\(\d+\.\d+ %\)", "each status code's share of the calls (its count is kept)"),
        (r"^\[\d+\]\s+\d+ socket used, .*$", "each thread's sockets and connection times (their sum is kept)"),
        (r"^IP addresses distribution:\n(?:.*: \d+\n?)*", "sockets per address (their sum is kept)"),
        (r"^Successfully wrote \d+ bytes of Json data to .*$", "the size of the -json file written"),
    ],
    "time": [
        (
            r"^\s*(?:Average (?:shared text|unshared data|stack|total|resident set) size|Major \(requiring I/O\) page"
            r" faults|Minor \(reclaiming a frame\) page faults|(?:Voluntary|Involuntary) context switches|Swaps"
            r"|File system (?:inputs|outputs)|Socket messages (?:sent|received)|Signals delivered|Page size \(bytes\)"
            r"|Exit status):.*$",
            "time -v: memory averages, page faults, context switches, I/O, signals, page size, exit status",
        ),
        (
            r"\(\d+avgtext\+\d+avgdata|^\d+inputs\+\d+outputs \(\d+major\+\d+minor\)pagefaults \d+swaps$",
            "GNU time's default line: text and data averages, I/O, page faults, swaps",
        ),
    ],
    "mpstat": [(r"^Linux \S+ \([^)]*\)\s+\S+\s+\S+", "sysstat's header: kernel, host and date (the cores are kept)")],
    "sar": [(r"^Linux \S+ \([^)]*\)\s+\S+\s+\S+", "sysstat's header: kernel, host and date (the cores are kept)")],
    "iostat": [(r"^Linux \S+ \([^)]*\)\s+\S+\s+\S+", "sysstat's header: kernel, host and date (the cores are kept)")],
    "pidstat": [(r"^Linux \S+ \([^)]*\)\s+\S+\s+\S+", "sysstat's header: kernel, host and date (the cores are kept)")],
    "dstat": [
        (r'^"(?:Dstat|dool) [^"]*"|^"Cmdline:",.*$', "the CSV's version and the command it ran"),
        (r'^(?:"?[A-Z][a-z]{2}-\d\d|\d\d-\d\d) \d\d:\d\d:\d\d"?', "the sample's time (printed without its year)"),
    ],
    "top": [
        (
            r"^top - .* up .*$|^Tasks: .*$|^(?:\w+ )?(?:Mem|Swap) ?:.*$",
            "top's summary: uptime, load average, tasks, memory",
        ),
    ],
    "haproxy": [
        (
            r"^[FBSL]\.\d+\.\d+\.\d+\.(?!(?:" + "|".join(STAT_FIELDS) + r")\.)\w+\.\d+:.*$",
            "show stat typed: fields not modelled",
        ),
        (r"^[FBSL]\.\d+\.\d+\.\d+\.\w+\.\d+:\w*:\w+:", "show stat typed: the object, position and type of a value"),
        (r"^\d+ \S+ \d+ \S+ .*$", "show servers state: fields beyond address, port, weight and state"),
    ],
}


def _stat_cells_not_modelled(text: str) -> str:
    """``show stat`` CSV rows with the cells of fields no column models blanked (2.x module counters after '-')."""
    out, header = [], None
    for line in text.split("\n"):
        if line.lstrip().startswith("# pxname,"):
            header = line.strip().lstrip("# ").split(",")
        elif header is not None and line.count(",") >= 3:
            cells = line.split(",")
            line = ",".join(c if i < len(header) and header[i] in STAT_FIELDS else "" for i, c in enumerate(cells))
        else:
            header = None
        out.append(line)
    return "\n".join(out)


def _json_fields_modelled(text: str) -> str:
    """``show stat json`` / ``show info json``: only the values of fields a column models (the rest: ids, positions)."""
    import json

    from lbanalysis.readers.haproxy.info import INFO

    stripped = text.strip()
    if not stripped.startswith("[") or '"field"' not in stripped:
        return text
    try:
        data = json.loads(stripped)
    except ValueError:
        return text
    objs = [o for obj in data for o in (obj if isinstance(obj, list) else [obj])]
    kept = [str(o["value"].get("value")) for o in objs if o.get("field", {}).get("name") in {*STAT_FIELDS, *INFO}]
    return "\n".join(kept)


#: fortio's JSON keys a column models (the rest: the options it echoes, ids, the error and connection histograms)
_FORTIO_KEPT = ("RequestedQPS", "RequestedDuration", "ActualQPS", "ActualDuration", "NumThreads", "Version",
                "StartTime", "Labels", "URL", "RetCodes", "SocketCount", "Exactly")  # fmt: skip
#: fortio's text: the histograms whose lines are not kept (their statistics, buckets and targets)
_FORTIO_OTHER_SECTIONS = ("Sleep times", "Error cases", "Connection time histogram", "Response Header Sizes")


def _fortio_json_modelled(text: str) -> str:
    """fortio's JSON result: only the values a column models (the duration histogram's statistics, buckets' ends and
    counts and percentiles; the sizes' sum and mean; the keys of ``_FORTIO_KEPT``)."""
    import json

    dec, docs, pos = json.JSONDecoder(), [], 0
    while (pos := len(text) - len(text[pos:].lstrip())) < len(text):
        doc, pos = dec.raw_decode(text, pos)
        docs.append(doc)
    kept = []
    for doc in docs:
        kept += [json.dumps(doc[k]) for k in _FORTIO_KEPT if k in doc]
        if all(int(c) < 0 for c in doc.get("RetCodes") or {}):
            continue  # no call got an answer: the times are those of failed calls (as for hey)
        h = doc.get("DurationHistogram") or {}
        kept += [str(h.get(k)) for k in ("Count", "Min", "Max", "Avg", "StdDev")]
        kept += [f"{b['End']} {b['Count']}" for b in h.get("Data") or []]
        kept += [f"{p['Percentile']} {p['Value']}" for p in h.get("Percentiles") or []]
        kept += [str((doc.get("Sizes") or {}).get(k)) for k in ("Sum", "Avg")]
    return "\n".join(kept)


def _fortio_not_modelled(text: str) -> str:
    """fortio: its JSON's values a column models; in its text, the lines of the histograms not kept (sleep, errors,
    connections, header sizes), the buckets' starts, midpoints and shares, the sizes' spread."""
    if text.lstrip().startswith("{") and '"RunType"' in text:
        return _fortio_json_modelled(text)
    out, section = [], ""
    codes = re.findall(r"^Code\s+(-?\d+) : ", text, re.M)
    others = _FORTIO_OTHER_SECTIONS
    if codes and all(int(c) < 0 for c in codes):  # no call got an answer: the times are the failed calls' (as hey's)
        others += ("Aggregated Function Time",)
        text = re.sub(r"\S+ ms avg, ", " ", text)
    for line in text.split("\n"):
        head = re.match(r"^([A-Z][\w /()]*?) : ", line)
        if head:
            section = head[1]
        if section.startswith(others) and (head or re.match(r"^(?:# )?(?:range|target)|^[>=\d]", line)):
            continue
        line = re.sub(r"^(Aggregated Function Time : .*) sum \S+$", r"\1", line)  # the time of all calls (count x avg)
        bucket = re.match(r"^(?:>=? |= )?\S+ <= (\S+) , \S+ , \S+, (\d+)\s*$", line)
        if bucket:
            line = f"{bucket[1]} {bucket[2]}"
        line = re.sub(r"^(Response Body/Total Sizes : count \d+ avg \S+) \+/- \S+ min \S+ max \S+", r"\1", line)
        out.append(line)
    return "\n".join(out)


def _info_lines_not_modelled(text: str) -> str:
    """``show info`` text (from its ``Name: HAProxy`` line to the next empty line): fields beyond the six kept."""
    from lbanalysis.readers.haproxy.info import INFO

    out, inside = [], False
    for line in text.split("\n"):
        inside = (inside and bool(line.strip())) or line.startswith("Name: HAProxy")
        out.append("" if inside and line.split(":", 1)[0] not in INFO else line)
    return "\n".join(out)


def _haproxy_not_modelled(text: str) -> str:
    """Show info fields beyond the six, and show stat fields no column models (module counters, positions, ids)."""
    return _json_fields_modelled(_info_lines_not_modelled(_stat_cells_not_modelled(text)))


def _columns_not_kept(
    header: re.Pattern, kept: set[str], names_from: int = 0, summary: str | None = None
) -> Callable[[str], str]:
    """A transformation blanking the cells of a table's columns no cpu column keeps: the table's header line
    matches ``header`` (its names from word ``names_from`` on), the rows under it until an empty line, and the
    rows starting with ``summary`` after it (pidstat stopped by a signal prints its ``Average:`` rows after an
    empty line, under no header of their own)."""

    def blank(text: str) -> str:
        out, names, last = [], None, None
        for line in text.split("\n"):
            if header.match(line):
                names = last = line.split()[names_from:]
                out.append(line)
                continue
            if names is None and last is not None and summary and line.startswith(summary):
                names = last
            if names is not None and line.strip():
                cells = line.split(None, len(names) - 1 + names_from)
                head, cells = cells[:names_from], cells[names_from:]
                if len(cells) == len(names):
                    line = " ".join(head + [c if n in kept else "" for n, c in zip(names, cells, strict=True)])
            elif not line.strip():
                names = None
            out.append(line)
        return "\n".join(out)

    return blank


_top_columns_not_kept = _columns_not_kept(re.compile(r"^\s*PID\s+USER\s"), {"PID", "%CPU", "COMMAND"})


def _user_beside_nice(text: str) -> str:
    """sysstat's ``%usr``/``%user`` (and top's ``us``) where ``%nice`` (``ni``) is not 0: kept as ``user_pct`` -
    ``nice_pct`` (user_pct counts nice, as vmstat's ``us`` does), so the printed cell is no value of its own."""
    out, names = [], None
    for line in text.split("\n"):
        cells = line.split()
        top = re.match(r"^(%?Cpu\S*\s*:\s*)([\d.]+)(\s*%?\s*us\b)(?=.*?\b([\d.]+)\s*%?\s*ni\b)", line)
        if top and float(top[4]):  # top's us beside a ni that is not 0
            line = top[1] + top[3] + line[top.end() :]
        if "%nice" in cells:
            names = cells[1:] if cells[0] == "avg-cpu:" else cells
        elif names is not None and len(cells) == len(names):
            user = next((i for i, n in enumerate(names) if n in ("%usr", "%user")), None)
            nice = names.index("%nice")
            if user is not None and re.fullmatch(r"[\d.]+", cells[nice]) and float(cells[nice]):
                cells[user] = ""
                line = " ".join(cells)
        out.append(line)
    return "\n".join(out)


#: Transformations of a family's text before the check (fields no column models, by name).
NOT_KEPT_FIELDS = {
    "haproxy": _haproxy_not_modelled,
    "fortio": _fortio_not_modelled,
    "mpstat": _user_beside_nice,
    "sar": _user_beside_nice,
    "iostat": _user_beside_nice,
    "top": lambda text: _user_beside_nice(_top_columns_not_kept(text)),
    # vmstat's memory, swap, block I/O and blocked processes; pidstat's UID, %guest, %wait and last core;
    # top's priority, nice, memory, state and CPU time columns
    "vmstat": _columns_not_kept(re.compile(r"^\s*r\s+b\s+swpd\s"), {"r", "in", "cs", "us", "sy", "id", "wa", "st"}),
    "pidstat": _columns_not_kept(
        re.compile(r"^(?:\d\d:\d\d:\d\d(?: [AP]M)?|Average:)\s+UID\s+PID\s"),
        {"PID", "%usr", "%system", "%CPU", "Command"},
        1,
        "Average:",
    ),
}

_SKIP_SUFFIXES = (".md", ".in", ".sh", ".py", ".html", ".json.gz")


def _files(family: str) -> list[Path]:
    return sorted(p for p in (FIXTURES / family).rglob("*") if p.is_file() and not p.name.endswith(_SKIP_SUFFIXES))


def _pool(ds: lbanalysis.Dataset) -> tuple[np.ndarray, list[str]]:
    """Every numeric value of every table, and every text cell (whose numbers count as found)."""
    values, texts = [], []
    for df in ds.tables.values():
        if not len(df):  # most tables of one file are empty: no value to pool (and no pandas call per column)
            continue
        kinds = [t.kind for t in df.dtypes]  # boolean columns (kind b) hold no figure
        cells = df.to_numpy(dtype=object)  # one array of the table's cells (a run's 190 columns: one call)
        numbers = [j for j, k in enumerate(kinds) if k in "iuf"]  # Int64 and Float64 too
        if numbers:
            a = cells[:, numbers].ravel()
            values.append(a[~pd.isna(a)].astype(float))
        for j in (j for j, k in enumerate(kinds) if k == "M"):  # times: as epoch seconds (ab -g's seconds column)
            values.append(df.iloc[:, j].dropna().astype("int64").to_numpy(float) / 1e9)
        other = [j for j, k in enumerate(kinds) if k not in "iufbM"]
        if other:
            a = cells[:, other].ravel()
            texts.extend({str(x) for x in a[~pd.isna(a)]})
    for t in texts:
        values.append(np.array([float(x) for x in _TEXT_NUM_RE.findall(t)]))
    return (np.unique(np.abs(np.concatenate(values))) if values else np.array([])), texts


def _found(x: float, step: float, values: np.ndarray) -> bool:
    """Whether some value (sorted, absolute) times some factor rounds to ``x`` printed to ``step``."""
    if x == 0 or not len(values):
        return x == 0
    tol = step / 2 * 1.0001 + abs(x) * 1e-9
    lo, hi = (x - tol) / FACTORS, (x + tol) / FACTORS
    i = np.minimum(np.searchsorted(values, lo), len(values) - 1)
    return bool(np.any((values[i] >= lo) & (values[i] <= hi)))


#: The fixture family whose lists hold a tool's output (a tool's name otherwise).
FAMILY_OF_TOOL = {"iperf": "iperf2"}


def _families(family: str, ds: lbanalysis.Dataset) -> list[str]:
    """The family of the folder, and of each tool that printed the file (a folder of mixed tools: ``pasted``;
    a CPU monitor's report after a tool's output: ``time``)."""
    tools = sorted(
        {str(t) for t in pd.unique(ds.runs["tool"].dropna())} | {str(t) for t in pd.unique(ds.cpu["tool"].dropna())}
    )
    return list(dict.fromkeys([family, *(FAMILY_OF_TOOL.get(t, t) for t in tools)]))


def lost_numbers(path: Path, family: str) -> list[str] | None:
    """The numbers of ``path`` not found in its Dataset (None: not a tool output lbanalysis reads)."""
    ds = lbanalysis.read(path, table="all", errors="skip")
    if len(ds.skipped) or not (len(ds.runs) or len(ds.cpu)):  # a CPU monitor's file has samples, no runs
        return None
    values, texts = _pool(ds)
    text = normalize(path.read_text(errors="replace"))
    families = _families(family, ds)
    for fam in families:
        if fam in NOT_KEPT_FIELDS:
            text = NOT_KEPT_FIELDS[fam](text)
    for fam in families:
        for pattern, _ in NOT_KEPT.get(fam, []):
            text = re.sub(pattern, " ", text, flags=re.M)
    text = _NOT_FIGURES_RE.sub(" ", text)
    for t in sorted(set(texts), key=len, reverse=True):
        if len(t) >= 4:
            text = text.replace(t, " ")  # a command line, a URL, a message kept as it is
    lost = []
    for n, line in enumerate(text.split("\n"), 1):
        for m in _NUM_RE.finditer(line):
            tok = m.group(1)
            mantissa, _, exp = tok.lower().partition("e")
            step = 10.0 ** (int(exp or 0) - len(mantissa.partition(".")[2]))
            if not _found(float(tok), step, values):
                lost.append(f"{path.name}:{n}: {tok} in {line.strip()[:90]!r}")
    return lost


FAMILIES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name != "capture")
#: Families captured on this project's machines and kept in ../shared/corpus (read in place).
CAPTURED = {"lab-gobench": ("lab", "gobench")}


@pytest.mark.parametrize("family", FAMILIES + sorted(CAPTURED))
def test_every_printed_number_is_in_the_dataset(family):
    if family in CAPTURED:
        folder = corpus(*CAPTURED[family])
        paths = sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.endswith(_SKIP_SUFFIXES))
        family = CAPTURED[family][-1]
    else:
        paths = _files(family)
    lost: list[str] = []
    read = 0
    for path in paths:
        found = lost_numbers(path, family)
        if found is not None:
            read += 1
            lost.extend(found)
    assert read, f"no file of {family} was read"
    assert not lost, f"{len(lost)} printed number(s) not in the Dataset:\n" + "\n".join(lost[:40])


def test_a_lost_figure_fails(tmp_path):
    """The check itself: a figure no column keeps is reported."""
    path = tmp_path / "wrk.txt"
    path.write_text(
        "Running 1s test @ http://h:81/x\n  2 threads and 10 connections\n"
        "  445 requests in 1.12s, 272.63KB read\n  Mystery figure: 987.65\n"
        "Requests/sec:    396.33\nTransfer/sec:    242.81KB\n"
    )
    assert [x.split(": ", 1)[1].split(" in ")[0] for x in lost_numbers(path, "wrk")] == ["987.65"]
