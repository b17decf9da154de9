"""hey text output (rakyll/hey; Debian's 0.1.4).

hey prints a summary, a response-time histogram, a latency distribution, the
phases of a request, the status code distribution and, when requests
failed, an error distribution::

    Summary:
      Total:	0.9702 secs
      Slowest:	0.0752 secs
      Fastest:	0.0148 secs
      Average:	0.0469 secs
      Requests/sec:	206.1449

      Total data:	600 bytes
      Size/request:	3 bytes
    …
    Latency distribution:
      10% in 0.0433 secs
    Details (average, fastest, slowest):
      DNS+dialup:	0.0000 secs, 0.0148 secs, 0.0752 secs
      resp wait:	0.0030 secs, 0.0002 secs, 0.0512 secs
    Status code distribution:
      [200]	200 responses
    Error distribution:
      [20]	Get "http://127.0.0.1:18099/": dial tcp …: connect: connection refused

==============================  =========================================  =========
line                            column                                     unit
==============================  =========================================  =========
``Total``                       ``duration_s``                             secs
``Slowest`` / ``Fastest``       ``latency_max_s`` / ``latency_min_s``      secs
``Average``                     ``latency_mean_s``                         secs
``Requests/sec``                see below
``Total data``                  ``bytes_total``                            bytes
``Size/request``                ``bytes_per_request``                      bytes
``T [N] |■■■`` (histogram)      histogram table (``latency_s``: the        secs
                                bucket's upper edge, ``count``)
``N% in T secs``                percentiles table                          secs
``Details`` rows                phases table (``mean_s``, ``min_s``,       secs
                                ``max_s``; phase ``dns+dialup``, ``dns``,
                                ``req write``, ``resp wait``, ``resp read``)
``[code] N responses``          ``requests`` (their sum), ``non_2xx``,
                                ``requests_ok`` (2xx), ``status_codes``
``[N] message``                 ``failed`` (their sum); ``error`` when no
                                response came, else ``warnings``
==============================  =========================================  =========

hey's ``Requests/sec`` divides every result, errors included, by the total
time (kept in ``requests_attempted_per_s``); ``requests_per_s`` holds
responses per second (equal to hey's figure
when nothing failed), so a refused run is not a fast one. ``Total data`` is
response bodies only.

>>> p = parse(Segment("Summary:\\n  Total:\\t1.0 secs\\n  Average:\\t0.0100 secs\\n  Requests/sec:\\t100.0\\n"
...                   "Status code distribution:\\n  [200]\\t90 responses\\n  [503]\\t10 responses\\n"))
>>> r = p.runs[0]
>>> r["requests"], r["requests_ok"], r["non_2xx"], r["requests_per_s"], r["status_codes"]
(100, 90, 10, 100.0, '200: 90; 503: 10')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ...text import Segment, command_argv
from ..base import NO_ANSWER, Format, LineKind, Parsed, error_row, scan, to_float, to_int

__all__ = ["FORMATS", "LINES", "LINE_KINDS", "SUMMARY", "detect", "parse", "parse_command"]

# Summary label -> (column, kind)
SUMMARY: dict[str, str] = {
    "Total": "duration_s",
    "Slowest": "latency_max_s",
    "Fastest": "latency_min_s",
    "Average": "latency_mean_s",
    "Requests/sec": "_requests_per_s_printed",
    "Total data": "bytes_total",
    "Size/request": "bytes_per_request",
}
_PHASES = {"DNS+dialup": "dns+dialup", "DNS-lookup": "dns", "req write": "req write", "resp wait": "resp wait",
           "resp read": "resp read"}  # fmt: skip

_SECTION_RE = re.compile(
    r"^(Summary|Response time histogram|Latency distribution|Details|Status code distribution|Error distribution):"
)
_SUMMARY_RE = re.compile(r"^\s+(" + "|".join(re.escape(k) for k in SUMMARY) + r"):\s+(\S+)")
_PERCENTILE_RE = re.compile(r"^\s+(\d+(?:\.\d+)?)% in (\S+) secs")
_PHASE_RE = re.compile(r"^\s+(" + "|".join(re.escape(k) for k in _PHASES) + r"):\s+(\S+) secs, (\S+) secs, (\S+) secs")
_STATUS_RE = re.compile(r"^\s+\[(\d{3})\]\s+(\d+) responses")
_BUCKET_RE = re.compile(r"^\s+(\d+(?:\.\d+)?) \[(\d+)\]\s*\|")
_ERROR_RE = re.compile(r"^\s+\[(\d+)\]\s+(.+?)\s*$")


@dataclass
class _Run:
    line: int
    d: dict = field(default_factory=dict)
    percentiles: list[dict] = field(default_factory=list)
    phases: list[dict] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    histogram: list[dict] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)
    section: str = ""


@dataclass
class _Reader:
    """The runs of one segment; lines before the first ``Summary:`` belong to none."""

    runs: list[_Run] = field(default_factory=list)

    @property
    def cur(self) -> _Run | None:
        return self.runs[-1] if self.runs else None


def _starts_run(section: str) -> bool:
    """The one place that decides where a run starts: hey's ``Summary:`` heading.

    >>> _starts_run("Summary"), _starts_run("Details")
    (True, False)
    """
    return section == "Summary"


def _section(rd: _Reader, n: int, m: re.Match) -> None:
    if _starts_run(m.group(1)):
        rd.runs.append(_Run(n))
    if rd.cur is not None:
        rd.cur.section = m.group(1)


def _summary(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.cur
    if r is not None and r.section == "Summary":
        r.d[SUMMARY[m.group(1)]] = to_float(m.group(2))


def _percentile(rd: _Reader, n: int, m: re.Match) -> None:
    if rd.cur is not None:
        rd.cur.percentiles.append({"percentile": float(m.group(1)), "latency_s": to_float(m.group(2))})


def _phase(rd: _Reader, n: int, m: re.Match) -> None:
    mean, low, high = (to_float(m.group(i)) for i in (2, 3, 4))
    if rd.cur is None or (mean is not None and mean != mean):  # ' NaN secs': no request measured
        return
    rd.cur.phases.append({"phase": _PHASES[m.group(1)], "mean_s": mean, "min_s": low, "max_s": high})


def _status(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.cur
    if r is not None and r.section == "Status code distribution":
        r.statuses[int(m.group(1))] = int(m.group(2))


def _bucket(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.cur
    if r is not None and r.section == "Response time histogram":
        r.histogram.append({"latency_s": float(m.group(1)), "count": int(m.group(2))})


def _error(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.cur
    if r is not None and r.section == "Error distribution":
        r.errors.append((int(m.group(1)), m.group(2)))


#: The lines hey prints, in the order they are tried (first match wins; see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("section", ":", _SECTION_RE, _section),
    LineKind("summary", ":", _SUMMARY_RE, _summary),
    LineKind("percentile", "% in ", _PERCENTILE_RE, _percentile),
    LineKind("phase", " secs, ", _PHASE_RE, _phase),
    LineKind("status", "[", _STATUS_RE, _status),
    LineKind("bucket", "[", _BUCKET_RE, _bucket),
    LineKind("error", "[", _ERROR_RE, _error),
]
#: Line kind -> pattern (kept for code that reads it; the grammar is :data:`LINE_KINDS`).
LINES: dict[str, re.Pattern] = {k.name: k.pattern for k in LINE_KINDS}


_BOOL_FLAGS = {"disable-compression", "disable-keepalive", "disable-redirects", "h2"}


def _go_flags(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    """Go ``flag`` syntax: ``-name value``, ``-name=value``, boolean ``-name`` (hey's flags)."""
    opts: dict[str, str] = {}
    positional: list[str] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok.startswith("-") and len(tok) > 1:
            name, eq, val = tok.lstrip("-").partition("=")
            if eq or name in _BOOL_FLAGS:
                opts[name] = val
            elif i + 1 < len(argv):
                i += 1
                opts[name] = argv[i]
        else:
            positional.append(tok)
        i += 1
    return opts, positional


def parse_command(command: str) -> dict:
    """Run fields from a hey command line.

    >>> d = parse_command("hey -n 200 -c 10 -m POST -d 'x=1' http://127.0.0.1:8080/api")
    >>> d["requests_planned"], d["concurrency"], d["method"], d["port"], d["path"]
    (200, 10, 'POST', 8080, '/api')
    """
    opts, positional = _go_flags(command_argv(command))
    out: dict = {"method": str(opts.get("m", "GET")).upper()}
    if opts.get("disable-keepalive") in ("", "true"):
        out["keepalive"] = False
    if "n" in opts:
        out["requests_planned"] = to_int(opts["n"])
    if "c" in opts:
        out["concurrency"] = to_int(opts["c"])
    if "z" in opts:
        z = re.fullmatch(r"([\d.]+)(ms|s|m|h)", opts["z"])
        if z:
            out["time_limit_s"] = float(z.group(1)) * {"ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}[z.group(2)]
    url = next((p for p in positional if "://" in p), None)
    if url:
        parts = urlsplit(url)
        out.update(url=url, host=parts.hostname, path=parts.path or "/")
        try:
            out["port"] = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            pass
    return out


def _row(r: _Run) -> dict:
    d = {k: v for k, v in r.d.items() if not k.startswith("_")}
    responses = sum(r.statuses.values())
    failed = sum(n for n, _ in r.errors)
    d["requests"] = responses
    d["requests_ok"] = sum(n for code, n in r.statuses.items() if 200 <= code < 300)
    d["non_2xx"] = responses - d["requests_ok"]
    d["failed"] = failed
    d["status_codes"] = "; ".join(f"{code}: {n}" for code, n in sorted(r.statuses.items())) or None
    total = d.get("duration_s")
    d["requests_per_s"] = responses / total if total else r.d.get("_requests_per_s_printed")
    if r.d.get("_requests_per_s_printed") is not None:
        d["requests_attempted_per_s"] = r.d["_requests_per_s_printed"]  # hey's own figure, errors included
    if not failed and r.d.get("_requests_per_s_printed") is not None:
        d["requests_per_s"] = r.d["_requests_per_s_printed"]  # the same figure, as printed
    if total and d.get("bytes_total") is not None:
        d["bytes_per_s"] = d["bytes_total"] / total
    if responses == 0:
        for k in ("latency_mean_s", "latency_min_s", "latency_max_s"):
            d.pop(k, None)  # hey prints 0.0000 / NaN when nothing answered
    messages = "; ".join(f"{msg} (x{n})" for n, msg in r.errors)
    if r.errors and responses == 0:
        d["error"], d["error_kind"] = messages, NO_ANSWER
    elif r.errors:
        d["warnings"] = messages
    return d


def _details(r: _Run) -> dict[str, list[dict]]:
    return {"percentiles": r.percentiles, "phases": r.phases, "histogram": r.histogram}


def parse(seg: Segment) -> Parsed:
    """Read every hey summary in a segment (each starts with ``Summary:``)."""
    cmd = parse_command(seg.command) if seg.command else {}
    out = Parsed()
    for run in scan(seg.text, LINE_KINDS, _Reader()).runs:
        out.add_run({**cmd, **_row(run), "line": run.line}, **_details(run))
    if not out.runs and seg.command:
        out.add_run(error_row("hey", "no output after the command", **cmd))
    return out


_DETECT_RE = re.compile(r"^Summary:\n\s+Total:\s+\S+ secs\n\s+Slowest:", re.M)


def detect(text: str) -> bool:
    """True for hey's text summary.

    >>> detect("Summary:\\n  Total:\\t0.9702 secs\\n  Slowest:\\t0.0752 secs\\n")
    True
    """
    return "Summary:" in text and bool(_DETECT_RE.search(text))


FORMATS = [
    Format(
        "hey",
        "hey",
        detect,
        parse,
        description="hey text summary (histogram, latency distribution, details, status codes, errors)",
    )
]
