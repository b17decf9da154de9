"""oha's JSON summary (``--output-format json``; 0.x and early 1.x: ``-j`` / ``--json``) and per-request CSV.

The JSON (oha 1.16.0, abridged)::

    {"summary": {"successRate": 1.0, "total": 1.0023, "slowest": 0.0504, "fastest": 0.0011, "average": 0.0231,
                 "requestsPerSec": 199.54, "totalData": 35400, "sizePerRequest": 177, "sizePerSec": 35318.6},
     "responseTimeHistogram": {"0.0011": 1, …}, "latencyPercentiles": {"p10": 0.0104, …, "p99.99": 0.0504},
     "rps": {"mean": …, "stddev": …, "max": …, "min": …, "percentiles": {…}},
     "details": {"DNSDialup": {"average": …, "fastest": …, "slowest": …}, "DNSLookup": {…}, "firstByte": {…}},
     "statusCodeDistribution": {"200": 200}, "errorDistribution": {"connection error: …": 20}}

Every time in seconds, every size in bytes; the columns are those of the
text summary (:mod:`~lbanalysis.readers.oha.text`): ``successRate`` (a fraction)
into ``success_pct``, ``details`` into the phases table (``dns+dialup``,
``dns``, ``first byte``), ``latencyPercentiles`` into the percentiles table
(``firstBytePercentiles`` and the ``--stats-success-breakdown`` ones too, with
their ``kind``), ``responseTimeHistogram`` into the histogram table,
``requestsPerSec`` into ``requests_attempted_per_s``, the ``rps`` figures
(rates over short windows of response ends) into ``interval_requests_per_s_*``,
the counts from the two distributions. The first-byte and breakdown
histograms are not kept.

The CSV (``--output-format csv``): one line per response, in start order::

    request-start,DNS,DNS+dialup,Response-delay,request-duration,bytes,status
    0.000512,0.000001,0.000203,0.001321,0.001409,177,200

=====================  ==============================================  =====
CSV column             requests column                                 unit
=====================  ==============================================  =====
request-start          ``start_s`` (from the start of the test)        s
DNS                    ``dns_s``                                       s
DNS+dialup             ``connect_s`` (oha writes the dial time alone)  s
Response-delay         ``waiting_s`` (to the first byte)               s
request-duration       ``latency_s``                                   s
bytes                  ``bytes``                                       B
status                 ``status``
=====================  ==============================================  =====

Requests that failed are not written (as with hey's CSV).

>>> doc = ('{"summary": {"successRate": 1.0, "total": 2.0, "average": 0.01, "requestsPerSec": 100.0,'
...        ' "totalData": 35400}, "statusCodeDistribution": {"200": 200}, "errorDistribution": {}}')
>>> r = parse(Segment(doc)).runs[0]
>>> r["requests"], r["requests_per_s"], r["success_pct"], r["bytes_total"]
(200, 100.0, 100.0, 35400.0)
"""

from __future__ import annotations

import csv
import io
import re

from ...errors import ParseError
from ...text import Segment
from ..base import NO_ANSWER, NO_RESULT_SHOWN, Format, Parsed, error_row
from ..fields import Field, documents, first_char, has_keys, walk
from .text import count_fields, parse_command

__all__ = ["CSV_COLUMNS", "CSV_HEADER", "FORMATS", "detect", "detect_csv", "parse", "parse_csv"]

# The run's figures (key path -> column, unit as written: oha writes seconds and bytes). "answered": kept only
# when some request got a response (else they are the failed attempts').
FIELDS = (
    Field("summary.total", "duration_s", "s"),
    Field("summary.slowest", "latency_max_s", "s", kind="answered"),
    Field("summary.fastest", "latency_min_s", "s", kind="answered"),
    Field("summary.average", "latency_mean_s", "s", kind="answered"),
    Field("summary.totalData", "bytes_total", "B"),
    Field("summary.sizePerRequest", "bytes_per_request", "B", kind="answered"),
    Field("summary.sizePerSec", "bytes_per_s", "B/s"),
    Field("summary.successRate", "success_pct", "fraction"),
    Field("rps.mean", "interval_requests_per_s_mean", "req/s", kind="rps"),
    Field("rps.stddev", "interval_requests_per_s_stdev", "req/s", kind="rps"),
    Field("rps.max", "interval_requests_per_s_max", "req/s", kind="rps"),
    Field("rps.min", "interval_requests_per_s_min", "req/s", kind="rps"),
)
DETAILS = {"DNSDialup": "dns+dialup", "DNSLookup": "dns", "firstByte": "first byte"}
# percentile objects -> their kind in the percentiles table (None: the latency)
PERCENTILES = {
    "latencyPercentiles": None,
    "firstBytePercentiles": "first byte",
    "latencyPercentilesSuccessful": "2xx only",
    "latencyPercentilesNotSuccessful": "4xx + 5xx only",
}
CSV_HEADER = "request-start,DNS,DNS+dialup,Response-delay,request-duration,bytes,status"
CSV_COLUMNS: dict[str, str | None] = {"request-start": "start_s", "DNS": "dns_s", "DNS+dialup": "connect_s",
                                      "Response-delay": "waiting_s", "request-duration": "latency_s",
                                      "bytes": "bytes", "status": "status"}  # fmt: skip
_HINT_RE = re.compile(r'"summary"\s*:\s*\{\s*"successRate"\s*:')


#: The keys of oha's summary, in whatever order and layout they are written.
KEYS = ("summary", "successRate", "statusCodeDistribution")


def detect(text: str) -> bool:
    """True for oha's JSON summary.

    >>> detect('{\\n  "summary": {\\n    "successRate": 1.0,'), detect('{"summary": {"x": 1}}')
    (True, False)
    >>> detect('{"details": {}, "statusCodeDistribution": {}, "summary": {"average": 0.1, "successRate": 1.0}}')
    True
    """
    if first_char(text) != "{" or text.find('"summary"', 0, 1 << 16) < 0:
        return False  # what the hint and the keys hold, looked for first (most documents are not oha's)
    return _HINT_RE.search(text, 0, 4096) is not None or has_keys(text, KEYS)


def _num(d: object, key: str) -> float | None:
    v = d.get(key) if isinstance(d, dict) else None
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _percentiles(doc: dict) -> list[dict]:
    """The rows of every percentile object (``"p99.9": 0.05``) of a document, each with its kind."""
    out = []
    for name, kind in PERCENTILES.items():
        obj = doc.get(name) if isinstance(doc.get(name), dict) else {}
        out += [{"percentile": float(k[1:]), "latency_s": float(v), **({"kind": kind} if kind else {})}
                for k, v in obj.items()
                if re.fullmatch(r"p\d+(?:\.\d+)?", k) and isinstance(v, (int, float)) and v == v]  # fmt: skip
    return out


def _rps(doc: dict) -> dict:
    """``interval_requests_per_s_*`` from the ``rps`` object (rates over short windows)."""
    rps = doc.get("rps") if isinstance(doc.get("rps"), dict) else {}
    d = walk(doc, FIELDS, "rps")
    pct = rps.get("percentiles") if isinstance(rps.get("percentiles"), dict) else {}
    for k, v in pct.items():
        if re.fullmatch(r"p\d+(?:\.\d+)?", k) and _num(pct, k) is not None:
            d[f"interval_requests_per_s_{k.replace('.', '_')}"] = v
    return d


def _histogram(doc: dict) -> list[dict]:
    """``responseTimeHistogram``: its bucket marks (seconds) and counts."""
    obj = doc.get("responseTimeHistogram") if isinstance(doc.get("responseTimeHistogram"), dict) else {}
    return [{"latency_s": float(k), "count": v} for k, v in obj.items()
            if re.fullmatch(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", k) and isinstance(v, int)]  # fmt: skip


def _document(doc: dict) -> tuple[dict, list[dict], list[dict], list[dict]]:
    summary = doc.get("summary") if isinstance(doc.get("summary"), dict) else {}
    d = walk(doc, FIELDS, "runs")
    codes = doc.get("statusCodeDistribution") if isinstance(doc.get("statusCodeDistribution"), dict) else {}
    statuses = {int(k): v for k, v in codes.items() if str(k).isdigit() and isinstance(v, int)}
    errs = doc.get("errorDistribution") if isinstance(doc.get("errorDistribution"), dict) else {}
    errors = [(v, k) for k, v in errs.items() if isinstance(v, int)]
    d.update(count_fields(statuses, errors))
    printed, total = _num(summary, "requestsPerSec"), d.get("duration_s")
    if not errors and printed is not None:
        d["requests_per_s"] = printed
    elif total:
        d["requests_per_s"] = d["requests"] / total
    if printed is not None:
        d["requests_attempted_per_s"] = printed
    d.update(_rps(doc))
    pct, hist = _percentiles(doc), _histogram(doc)
    details = doc.get("details") if isinstance(doc.get("details"), dict) else {}
    phases = []
    for key, phase in DETAILS.items():
        t = details.get(key)
        if _num(t, "average") is not None:
            phases.append({"phase": phase, "mean_s": _num(t, "average"), "min_s": _num(t, "fastest"),
                           "max_s": _num(t, "slowest")})  # fmt: skip
    if d["requests"] == 0:
        return d, [], [], []
    return {**d, **walk(doc, FIELDS, "answered")}, pct, phases, hist


def parse(seg: Segment) -> Parsed:
    """Read oha's JSON summary (any layout; several, one after the other, each a run)."""
    cmd = parse_command(seg.command) if seg.command else {}
    out = Parsed()
    for doc, n, _ in documents(seg, "oha"):
        if not isinstance(doc, dict):
            raise ParseError("expected an oha JSON object", source=seg.source, line=seg.line - 1 + n)
        d, pct, phases, hist = _document(doc)
        out.add_run({"tool": "oha", **cmd, **d, "line": n}, percentiles=pct, phases=phases, histogram=hist)
    if not out.runs:
        out.add_run(error_row("oha", "no oha summary in the JSON", NO_RESULT_SHOWN, **cmd))
    return out


def detect_csv(text: str) -> bool:
    """True when the first line is oha's CSV header.

    >>> detect_csv(CSV_HEADER + "\\n"), detect_csv("response-time,DNS+dialup\\n")
    (True, False)
    """
    return text.lstrip("\ufeff").split("\n", 1)[0].strip() == CSV_HEADER


def parse_csv(seg: Segment) -> Parsed:
    """Read oha's per-request CSV: one run, one requests row per response."""
    rows = []
    for n, fields in enumerate(csv.reader(io.StringIO(seg.text.lstrip("\ufeff"))), 1):
        if n == 1 or not fields or not any(f.strip() for f in fields):
            continue
        if len(fields) != len(CSV_COLUMNS):
            raise ParseError(f"expected {len(CSV_COLUMNS)} fields, found {len(fields)}", source=seg.source,
                             line=seg.line - 1 + n, text=",".join(fields))  # fmt: skip
        row: dict = {}
        for (name, col), raw in zip(CSV_COLUMNS.items(), fields, strict=True):
            if col is None:
                continue
            try:
                row[col] = int(raw) if col in ("status", "bytes") else float(raw)
            except ValueError:
                raise ParseError(f"not a number in column {name!r}: {raw!r}", source=seg.source,
                                 line=seg.line - 1 + n, text=",".join(fields)) from None  # fmt: skip
        rows.append(row)
    rows.sort(key=lambda r: r["start_s"])
    for i, r in enumerate(rows):
        r["seq"] = i
    run: dict = {"tool": "oha", "line": 1, "requests": len(rows)}
    if rows:
        lat = [r["latency_s"] for r in rows]
        ok = sum(1 for r in rows if 200 <= r["status"] < 300)
        run.update(requests_ok=ok, non_2xx=len(rows) - ok, latency_mean_s=sum(lat) / len(lat),
                   latency_min_s=min(lat), latency_max_s=max(lat), bytes_total=float(sum(r["bytes"] for r in rows)),
                   duration_s=max(r["start_s"] + r["latency_s"] for r in rows) - min(r["start_s"] for r in rows))  # fmt: skip
    else:
        run["error"], run["error_kind"] = "no request in the CSV (oha writes responses only)", NO_ANSWER
    out = Parsed()
    out.add_run(run, requests=rows if seg.wants("requests") else [])
    return out


FORMATS = [
    Format(
        "oha-json",
        "oha",
        detect,
        parse,
        whole_file=True,
        json=True,
        json_words=("summary",),  # what detect looks for first
        description="oha --output-format json (or -j) summary",
    ),
    Format("oha-csv", "oha", detect_csv, parse_csv, whole_file=True, description="oha --output-format csv per request"),
]
