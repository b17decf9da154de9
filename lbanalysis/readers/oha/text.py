"""oha text summary (hatoo/oha; the layout of 1.x, and 0.x's where it differs).

oha 1.16.0 prints (``--no-tui``, or whenever stdout is not a terminal)::

    Summary:
      Success rate:	100.00%
      Total:	1.0023 sec
      Slowest:	0.0504 sec
      Fastest:	0.0011 sec
      Average:	0.0231 sec
      Requests/sec:	199.5406

      Total data:	34.57 KiB
      Size/request:	177 B
      Size/sec:	34.49 KiB

    Response time histogram:
      0.001 sec [1]  |■
      …
    Response time distribution:
      10.00% in 0.0104 sec
      99.99% in 0.0504 sec

    Details (average, fastest, slowest):
      DNS+dialup:	0.0012 sec, 0.0008 sec, 0.0019 sec
      DNS-lookup:	0.0000 sec, 0.0000 sec, 0.0001 sec

    Status code distribution:
      [200] 200 responses

    Error distribution:
      [20] connection error: Connection refused (os error 111)

It looks like hey's (:mod:`~lbanalysis.readers.hey.text`): oha's starts with
``Success rate`` and says ``Response time distribution``, hey's starts with
``Total`` and says ``Latency distribution``.

=================================  ===========================================  ==========================
line                               column                                       unit as printed
=================================  ===========================================  ==========================
``Success rate``                   ``success_pct`` (0.x: a fraction, 1.x: %)    %
``Total``                          ``duration_s``                               ns, us, ms, sec(s), min, hr
``Slowest`` / ``Fastest`` /        ``latency_max_s`` / ``latency_min_s`` /      the same
``Average``                        ``latency_mean_s``
``Requests/sec``                   ``requests_attempted_per_s``; see below
``Total data``, ``Size/request``,  ``bytes_total``, ``bytes_per_request``,      B, KiB, MiB… (binary)
``Size/sec``                       ``bytes_per_s``
``N% in T`` (0.x: under             percentiles table (the 2xx-only and          the same
``Latency distribution``)          4xx+5xx-only ones of
                                   ``--stats-success-breakdown``: ``kind``
                                   '2xx only', '4xx + 5xx only')
``T [N] |■■`` (histogram)          histogram table (the breakdown's not kept)   the same (0.x: sec)
``Details`` rows                   phases table (``dns+dialup``, ``dns``)       the same
``[code] N responses``             ``requests`` (their sum), ``requests_ok``
                                   (2xx), ``non_2xx``, ``status_codes``
``[N] message``                    ``failed`` = ``failed_network`` (their sum,
                                   less ``aborted due to deadline``);
                                   ``error`` when no response came, else
                                   ``warnings``
=================================  ===========================================  ==========================

oha counts as a success every request that got a response, whatever its
status; its latencies and bytes are of those. ``aborted due to deadline``
errors are the requests still running when ``-z`` ran out: not failures
(oha's success rate leaves them out too), but kept in ``warnings``. oha's
``Requests/sec`` divides every request, errors and aborted ones included,
by the total time; ``requests_per_s`` holds responses per second (equal to
oha's figure when nothing failed or was aborted).

>>> p = parse(Segment("Summary:\\n  Success rate:\\t100.00%\\n  Total:\\t1.0023 sec\\n  Average:\\t0.0231 sec\\n"
...                   "  Requests/sec:\\t199.5406\\n\\nStatus code distribution:\\n  [200] 200 responses\\n"))
>>> r = p.runs[0]
>>> r["requests"], r["requests_per_s"], r["duration_s"], r["latency_mean_s"], r["success_pct"]
(200, 199.5406, 1.0023, 0.0231, 100.0)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ...text import Segment, command_argv
from ...units import BINARY
from ..base import NO_RESULT_SHOWN, Format, LineKind, Parsed, Runs, error_row, scan, to_float, to_int

__all__ = [
    "DEADLINE",
    "FORMATS",
    "LINES",
    "LINE_KINDS",
    "SUMMARY",
    "TIME_UNITS",
    "count_fields",
    "detect",
    "parse",
    "parse_command",
]

# oha's time scales as printed -> seconds
TIME_UNITS: dict[str, float] = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "sec": 1.0, "secs": 1.0, "10 sec": 10.0,
                                "min": 60.0, "10 min": 600.0, "hr": 3600.0}  # fmt: skip
_UNIT = r"(ns|us|ms|secs?|10 sec|min|10 min|hr)"
DEADLINE = "aborted due to deadline"

# Summary label -> column (kind: time, bytes, number)
SUMMARY: dict[str, tuple[str, str]] = {
    "Success rate": ("_success", "number"),
    "Total": ("duration_s", "time"),
    "Slowest": ("latency_max_s", "time"),
    "Fastest": ("latency_min_s", "time"),
    "Average": ("latency_mean_s", "time"),
    "Requests/sec": ("_requests_per_s_printed", "number"),
    "Total data": ("bytes_total", "bytes"),
    "Size/request": ("bytes_per_request", "bytes"),
    "Size/sec": ("bytes_per_s", "bytes"),
}
_PHASES = {"DNS+dialup": "dns+dialup", "DNS-lookup": "dns"}


def _time(num: str, unit: str) -> float | None:
    v = to_float(num)
    return None if v is None or v != v else v * TIME_UNITS[unit]


def _bytes(text: str) -> float | None:
    """Bytes from oha's binary units (``177 B``, ``34.57 KiB``, ``1.2 MiB``); ``NaN``: None.

    >>> _bytes("34.57 KiB"), _bytes("177 B"), _bytes("NaN") is None
    (35399.68, 177.0, True)
    """
    m = re.fullmatch(r"([\d.]+)\s*([KMGT]?)i?B", text.strip())
    return float(m.group(1)) * BINARY[m.group(2)] if m else None


@dataclass
class _Run:
    line: int
    d: dict = field(default_factory=dict)
    percentiles: list[dict] = field(default_factory=list)
    phases: list[dict] = field(default_factory=list)
    histogram: list[dict] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    errors: list[tuple[int, str]] = field(default_factory=list)
    section: str = ""
    sections: set[str] = field(default_factory=set)
    breakdown: str | None = None  # "2xx only", "4xx + 5xx only": a distribution of some answers only


def _reader() -> Runs[_Run]:
    """The runs of one segment (:class:`~lbanalysis.readers.base.Runs`), started where :func:`_starts_run` says."""
    return Runs(_Run, _starts_run)


def _starts_run(kind: str, m: re.Match | None = None, cur: _Run | None = None) -> bool:
    """The one place that decides where a run starts: a ``Summary:`` line alone.

    >>> _starts_run("start"), _starts_run("section")
    (True, False)
    """
    return kind == "start"


def _start(rd: Runs[_Run], n: int, m: re.Match) -> bool:
    """A ``Summary:`` line starts a run; the section kind then reads it (False: try the next kind)."""
    rd.run_for("start", n, m)
    return False


def _section(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("section", n, m)
    if r is None:
        return
    r.section, r.breakdown = m.group(1), m.group(2)
    r.sections.add(r.section)


def _summary(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("summary", n, m)
    if r is None:
        return
    if r.section != "Summary":
        return
    col, kind = SUMMARY[m.group(1)]
    raw = m.group(2)
    if kind == "time":
        t = re.fullmatch(r"(\S+) " + _UNIT, raw)
        r.d[col] = _time(t.group(1), t.group(2)) if t else None
    elif kind == "bytes":
        r.d[col] = _bytes(raw)
    elif col == "_success":
        v = to_float(raw.rstrip("%"))
        r.d["success_pct"] = None if v is None or v != v else v if raw.endswith("%") else v * 100.0
    else:
        r.d[col] = to_float(raw)


def _percentile(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("percentile", n, m)
    if r is None:
        return
    p = {"percentile": float(m.group(1)), "latency_s": _time(m.group(2), m.group(3))}
    r.percentiles.append(p if r.breakdown is None else {**p, "kind": r.breakdown})


def _bar(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("bar", n, m)
    if r is None:
        return
    if r.section == "Response time histogram" and r.breakdown is None:  # 0.x: seconds, no unit
        r.histogram.append({"latency_s": _time(m.group(1), m.group(2) or "sec"), "count": int(m.group(3))})


def _phase(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("phase", n, m)
    if r is None:
        return
    mean, low, high = (_time(m.group(i), m.group(i + 1)) for i in (2, 4, 6))
    if mean is not None:
        r.phases.append({"phase": _PHASES[m.group(1)], "mean_s": mean, "min_s": low, "max_s": high})


def _status(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("status", n, m)
    if r is None:
        return
    if r.section == "Status code distribution":
        r.statuses[int(m.group(1))] = r.statuses.get(int(m.group(1)), 0) + int(m.group(2))


def _error(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("error", n, m)
    if r is None:
        return
    if r.section == "Error distribution":
        r.errors.append((int(m.group(1)), m.group(2)))


#: The lines oha prints, in the order they are tried (first match wins; see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("start", "Summary:", re.compile(r"^\s*Summary:$"), _start),
    LineKind("section", ":", re.compile(
        r"^\s*(Summary|Response time histogram|Response time distribution|Latency distribution|Details|"
        r"Status code distribution|"
        r"Error distribution)(?: \(([^)]*)\))?[^:\n]*:\s*$"
    ), _section),
    LineKind("summary", ":", re.compile(r"^\s*(" + "|".join(re.escape(k) for k in SUMMARY) + r"):\s+(.+?)\s*$"), _summary),
    LineKind("percentile", "% in ", re.compile(r"^\s*(\d+(?:\.\d+)?)% in (\S+) " + _UNIT + r"\s*$"), _percentile),
    LineKind("bar", "|", re.compile(r"^\s*(\d+(?:\.\d+)?)(?: " + _UNIT + r")? \[(\d+)\]\s*\|"), _bar),
    LineKind("phase", "DNS", re.compile(
        r"^\s*(" + "|".join(re.escape(k) for k in _PHASES) + r"):\s+(\S+) " + _UNIT + r", (\S+) " + _UNIT
        + r", (\S+) " + _UNIT + r"\s*$"
    ), _phase),
    LineKind("status", " responses", re.compile(r"^\s*\[(\d{3})\]\s+(\d+) responses\s*$"), _status),
    LineKind("error", "[", re.compile(r"^\s*\[(\d+)\]\s+(.+?)\s*$"), _error),
]  # fmt: skip
#: Line kind -> pattern (kept for code that reads it; the grammar is :data:`LINE_KINDS`).
LINES: dict[str, re.Pattern] = {k.name: k.pattern for k in LINE_KINDS}


# ----------------------------------------------------------------- reader ---
def count_fields(statuses: dict[int, int], errors: list[tuple[int, str]]) -> dict:
    """The count columns from oha's status code and error distributions.

    >>> count_fields({200: 90, 503: 10}, [(3, "timeout"), (2, "aborted due to deadline")])
    {'requests': 100, 'requests_ok': 90, 'non_2xx': 10, 'status_codes': '200: 90; 503: 10', 'failed': 3, 'failed_network': 3, 'warnings': 'timeout (x3); aborted due to deadline (x2)'}
    """
    answered = sum(statuses.values())
    ok = sum(n for code, n in statuses.items() if 200 <= code < 300)
    failed = sum(n for n, msg in errors if msg != DEADLINE)
    d: dict = {"requests": answered, "requests_ok": ok, "non_2xx": answered - ok,
               "status_codes": "; ".join(f"{c}: {n}" for c, n in sorted(statuses.items())) or None,
               "failed": failed, "failed_network": failed}  # fmt: skip
    if errors:
        d["error" if answered == 0 else "warnings"] = "; ".join(f"{msg} (x{n})" for n, msg in errors)
    return {k: v for k, v in d.items() if v is not None}


def _row(r: _Run) -> dict:
    d = {k: v for k, v in r.d.items() if not k.startswith("_") and v is not None}
    if "Status code distribution" not in r.sections:
        d["error"] = "no result: the output stops before oha's status code distribution"
        d["error_kind"] = NO_RESULT_SHOWN
        return d
    d.update(count_fields(r.statuses, r.errors))
    success = d.get("success_pct")
    if not r.errors and success is not None and success < 100.0:  # cut short before its error distribution
        d.pop("failed"), d.pop("failed_network")
        d["warnings"] = "oha's success rate says some requests failed; the output stops before its error distribution"
    printed, total = r.d.get("_requests_per_s_printed"), d.get("duration_s")
    if printed is not None and printed == printed:
        d["requests_attempted_per_s"] = printed
    if not r.errors and printed is not None:
        d["requests_per_s"] = printed  # every request answered: oha's own figure
    elif total:
        d["requests_per_s"] = d["requests"] / total
    if d["requests"] == 0:  # oha prints NaN or 0 for the times of no response
        for k in ("latency_mean_s", "latency_min_s", "latency_max_s", "bytes_per_request"):
            d.pop(k, None)
        r.percentiles, r.phases, r.histogram = [], [], []
    return d


_VALUED = set("nczqmdDHAaTxptou")  # the short options that take a value


def parse_command(command: str) -> dict:
    """Run fields from an oha command line.

    >>> d = parse_command("oha -n 200 -c 10 -m POST --no-tui http://127.0.0.1:18881/x")
    >>> d["requests_planned"], d["concurrency"], d["method"], d["path"]
    (200, 10, 'POST', '/x')
    >>> parse_command("oha -z 2s -q 100 http://h/")["time_limit_s"], parse_command("oha -n 10k http://h/")["requests_planned"]
    (2.0, 10000)
    """
    opts, url = _options(command)
    out: dict = {"method": opts.get("m", "GET").upper()}
    n = re.fullmatch(r"(\d+)([kKmM]?)", opts.get("n", ""))
    if n:
        out["requests_planned"] = int(n.group(1)) * {"": 1, "k": 1000, "m": 1_000_000}[n.group(2).lower()]
    if "c" in opts:
        out["concurrency"] = to_int(opts["c"])
    if "z" in opts:
        z = re.fullmatch(r"([\d.]+)(ms|s|m|h)", opts["z"])
        if z:
            out["time_limit_s"] = float(z.group(1)) * {"ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}[z.group(2)]
        out.pop("requests_planned", None)
    if "q" in opts:
        out["rate_target_per_s"] = to_float(opts["q"])
    if "disable-keepalive" in opts:
        out["keepalive"] = False
    if url:
        out.update(_target(url))
    return {k: v for k, v in out.items() if v is not None}


def _options(command: str) -> tuple[dict[str, str], str | None]:
    """An oha command's options (long names without ``--``, short letters) and its first URL.

    >>> _options("oha -n200 -c 10 --output-format json --no-tui http://h/")
    ({'n': '200', 'c': '10', 'output-format': 'json', 'no-tui': ''}, 'http://h/')
    """
    argv = ["oha", *command_argv(command)]  # the tool's arguments after its name, as the loop below counts them
    opts: dict[str, str] = {}
    url = None
    i = 1
    while i < len(argv):
        tok = argv[i]
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        if tok.startswith("--"):
            name, eq, val = tok[2:].partition("=")
            if not eq and nxt is not None and not nxt.startswith("-") and "://" not in nxt:  # --output-format json
                val, i = nxt, i + 1
            opts[name] = val
        elif tok.startswith("-") and len(tok) > 1:
            i += _short(opts, tok, nxt)
        elif "://" in tok and url is None:
            url = tok
        i += 1
    return opts, url


def _short(opts: dict[str, str], tok: str, nxt: str | None) -> int:
    """A short option into ``opts``; how many arguments after it it took (its value, when apart)."""
    if tok[1] not in _VALUED:
        opts[tok[1]] = ""
    elif len(tok) > 2:
        opts[tok[1]] = tok[2:].lstrip("=")
    elif nxt is not None:
        opts[tok[1]] = nxt
        return 1
    return 0


def _target(url: str) -> dict:
    """URL, host, path and port of a target URL (an impossible port left out)."""
    parts = urlsplit(url)
    out = {"url": url, "host": parts.hostname, "path": parts.path or "/"}
    try:
        out["port"] = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        pass
    return out


def parse(seg: Segment) -> Parsed:
    """Read every oha summary in a segment (each starts with ``Summary:``)."""
    cmd = parse_command(seg.command) if seg.command else {}
    out = Parsed()
    runs = scan(seg.text, LINE_KINDS, _reader()).runs
    for r in runs:
        out.add_run({**cmd, **_row(r), "line": r.line}, percentiles=r.percentiles, phases=r.phases,
                    histogram=r.histogram)  # fmt: skip
    if not runs and seg.command:
        out.add_run(error_row("oha", "no output after the command", **cmd))
    return out


_DETECT_RE = re.compile(r"^\s*Summary:\n\s+Success rate:\s|^\s*Response time distribution:\s*$", re.M)


def detect(text: str) -> bool:
    """True for oha's text summary (``Success rate`` first, or ``Response time distribution``).

    >>> detect("Summary:\\n  Success rate:\\t100.00%\\n  Total:\\t1.0023 sec\\n")
    True
    >>> detect("Summary:\\n  Total:\\t0.9702 secs\\n  Slowest:\\t0.0752 secs\\n")
    False
    """
    return "Summary:" in text and _DETECT_RE.search(text) is not None


FORMATS = [Format("oha", "oha", detect, parse, description="oha text summary (distribution, details, status codes)")]
