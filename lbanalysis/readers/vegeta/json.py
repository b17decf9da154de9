"""vegeta JSON: ``vegeta report -type=json`` and the NDJSON results of ``vegeta encode --to json``.

The report (one object per line; ``report -every`` writes one per interval)::

    {"latencies":{"total":8106588,"mean":405329,"50th":348067,"90th":584347,"95th":635718,"99th":681121,
     "max":681121,"min":272358},"bytes_in":{"total":0,"mean":0},"bytes_out":{"total":0,"mean":0},
     "earliest":"2026-11-25T18:42:10.355506503Z","latest":"…","end":"…","duration":950230593,"wait":509244,
     "requests":20,"rate":21.047522724834014,"throughput":0,"success":0,"status_codes":{"0":20},
     "errors":["Get \\"http://127.0.0.1:18899/\\": dial tcp …: connect: connection refused"]}

=======================================  ===========================================  ==========
key                                      column                                       unit
=======================================  ===========================================  ==========
latencies mean, min, max                 ``latency_mean_s``, ``_min_s``, ``_max_s``   ns
latencies 50th, 90th, 95th, 99th         percentiles table                            ns
bytes_in total, mean; bytes_out total    ``bytes_total``, ``bytes_per_request``,      B
                                         ``bytes_sent``
duration (sending only), wait            ``send_duration_s``, ``wait_s``;             ns
                                         ``duration_s`` is their sum
requests, status_codes, success, errors  the counts of :mod:`~lbanalysis.readers.vegeta.shared`, ``success_pct``
rate, throughput                         ``rate_sent_per_s``, ``requests_ok_per_s``   1/s
earliest                                 ``timestamp``                                RFC 3339
=======================================  ===========================================  ==========

The results (one object per line, keys ``attack, seq, code, timestamp,
latency, bytes_out, bytes_in, error, body, method, url, headers``) read as
:mod:`~lbanalysis.readers.vegeta.csv` reads the CSV: one run, one requests
row per result.

>>> doc = ('{"latencies":{"mean":922029,"50th":343563,"max":49292037,"min":76355},"duration":1955773784,'
...        '"wait":334982,"requests":200,"rate":102.26,"throughput":102.24,"success":1,"status_codes":{"200":200}}')
>>> r = parse(Segment(doc)).runs[0]
>>> r["requests"], r["requests_per_s"], r["duration_s"], r["latency_mean_s"], r["success_pct"]
(200, 102.24, 1.956108766, 0.000922029, 100.0)
"""

from __future__ import annotations

import re

import pandas as pd

from ...errors import ParseError
from ...text import Segment, split_transcript
from ..base import NO_RESULT_SHOWN, Format, Parsed, error_row
from ..fields import Field, documents, first_char, has_keys, walk
from . import shared

__all__ = ["FORMATS", "LATENCIES", "detect", "detect_results", "parse", "parse_results"]

# latencies key -> column, or a percentile
LATENCIES: dict[str, str | float] = {"mean": "latency_mean_s", "min": "latency_min_s", "max": "latency_max_s",
                                     "50th": 50.0, "90th": 90.0, "95th": 95.0, "99th": 99.0}  # fmt: skip
_REPORT_RE = re.compile(r'^\s*\{\s*"latencies"\s*:\s*\{|"status_codes"\s*:\s*\{[^{}]*\}\s*,\s*"errors"\s*:')
_REPORT_LINE_RE = re.compile(r'^[ \t]*\{\s*"latencies"\s*:\s*\{[^\n]*"requests"\s*:', re.MULTILINE)
_RESULT_RE = re.compile(r'^\s*\{[^\n]*"code"\s*:\s*\d+[^\n]*"timestamp"\s*:\s*"[^\n]*"latency"\s*:\s*\d+')


#: The keys that name a report and a result, in whatever order and layout they are written.
REPORT_KEYS = ("latencies", "requests", "status_codes")
RESULT_KEYS = ("code", "timestamp", "latency")


def detect(text: str) -> bool:
    """True for vegeta's JSON report (any layout: ``jq .`` of it too), alone or as a line of a log that shows no
    command.

    >>> detect('{"latencies":{"total":1,"mean":1},"requests":1}'), detect('{"a": 1}')
    (True, False)
    >>> detect('{\\n  "bytes_in": {},\\n  "latencies": {},\\n  "requests": 1,\\n  "status_codes": {}\\n}')
    True
    >>> detect('level=info msg="rolled out"\\n{"latencies":{"mean":1},"requests":1}')
    True
    """
    if first_char(text) == "{":
        if text.find('"latencies"', 0, 1 << 16) < 0 and text.find('"status_codes"', 0, 1 << 16) < 0:
            return False  # what the pattern and the keys need, looked for first (most documents are not vegeta's)
        return _REPORT_RE.search(text, 0, 1 << 16) is not None or has_keys(text, REPORT_KEYS)
    # A log around the report (a workflow step's lines); a transcript with commands is split first.
    return (
        '"latencies"' in text
        and _REPORT_LINE_RE.search(text, 0, 1 << 16) is not None
        and all(s.command is None for s in split_transcript(text))
    )


def detect_results(text: str) -> bool:
    """True for vegeta's results as JSON (``vegeta encode --to json``: one object a line, or any other layout).

    >>> detect_results('{"attack":"","seq":0,"code":200,"timestamp":"2026-11-25T18:42:06Z","latency":11852068}')
    True
    >>> detect_results('{\\r\\n  "code": 200,\\r\\n  "latency": 1,\\r\\n  "timestamp": "2026-11-25T18:42:06Z"\\r\\n}')
    True
    """
    if first_char(text) != "{" or '"latency"' not in text or '"timestamp"' not in text:
        return False  # what the pattern and the keys hold, looked for first (most documents are not vegeta's)
    return _RESULT_RE.match(text) is not None or has_keys(text, RESULT_KEYS, within=4096)


def _objects(seg: Segment) -> list[tuple[dict, int]]:
    """Every JSON object of a segment with its line (any layout, one after another; plain text passed over)."""
    out = []
    for obj, n, _ in documents(seg, "vegeta"):
        if not isinstance(obj, dict):
            raise ParseError("expected a vegeta JSON object", source=seg.source, line=seg.line - 1 + n)
        out.append((obj, n))
    return out


def _num(d: dict, key: str) -> float | None:
    v = d.get(key)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


# The report's figures (key path -> column, unit as written: vegeta writes times in ns). "answered": kept
# only when some request got a response (else they are the failed attempts'); "late": set after the counts.
FIELDS = (
    Field("latencies.mean", "latency_mean_s", "ns", kind="answered"),
    Field("latencies.min", "latency_min_s", "ns", kind="answered"),
    Field("latencies.max", "latency_max_s", "ns", kind="answered"),
    Field("bytes_in.total", "bytes_total", "B"),
    Field("bytes_in.mean", "bytes_per_request", "B", kind="answered"),
    Field("bytes_out.total", "bytes_sent", "B"),
    Field("bytes_out.mean", "bytes_sent_per_request", "B"),
    Field("duration", "send_duration_s", "ns"),
    Field("wait", "wait_s", "ns"),
    Field("success", "success_pct", "fraction", kind="late"),
    Field("rate", "rate_sent_per_s", "req/s", kind="late"),
    Field("throughput", "requests_ok_per_s", "req/s", kind="late"),
)
# latencies key -> percentile (ns as written)
PERCENTILES = {key: p for key, p in LATENCIES.items() if isinstance(p, float)}


def _report(obj: dict) -> tuple[dict, list[dict]]:
    """A run row and its percentiles from one report object."""
    d = walk(obj, FIELDS, "runs")
    send, wait = _num(obj, "duration"), _num(obj, "wait")
    if send is not None:
        d["duration_s"] = (send + (wait or 0.0)) / 1e9
    codes_obj = obj.get("status_codes") if isinstance(obj.get("status_codes"), dict) else {}
    codes = {int(k): int(v) for k, v in codes_obj.items() if str(k).isdigit() and isinstance(v, int)}
    total = obj.get("requests") if isinstance(obj.get("requests"), int) else None
    d.update(shared.count_fields(total, codes, _num(obj, "success")))
    d.update(walk(obj, FIELDS, "late"))
    shared.rates(d, _num(obj, "throughput"))
    if isinstance(obj.get("earliest"), str) and not obj["earliest"].startswith("0001-"):
        d["timestamp"] = pd.Timestamp(obj["earliest"]).tz_convert(None)
    pct = []
    if d.get("requests") != 0:  # else the times of attempts that got no answer
        d.update(walk(obj, FIELDS, "answered"))
        lat = obj.get("latencies") if isinstance(obj.get("latencies"), dict) else {}
        pct = [
            {"percentile": p, "latency_s": v / 1e9}
            for key, p in PERCENTILES.items()
            if (v := _num(lat, key)) is not None
        ]
    shared.messages(d, [e for e in obj.get("errors") or [] if isinstance(e, str)])
    return d, pct


def parse(seg: Segment) -> Parsed:
    """Read every vegeta JSON report in a segment (one per line)."""
    cmd = shared.parse_command(seg.command) if seg.command else {}
    out = Parsed()
    for obj, n in _objects(seg):
        d, pct = _report(obj)
        out.add_run({"tool": "vegeta", **cmd, **d, "line": n}, percentiles=pct)
    if not out.runs:
        out.add_run(error_row("vegeta", "no vegeta report in the JSON", NO_RESULT_SHOWN, **cmd))
    return out


def _text(obj: dict, key: str) -> str | None:
    v = obj.get(key)
    return v if isinstance(v, str) and v else None


def _count(obj: dict, key: str) -> int:
    v = obj.get(key, 0)
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise ValueError(f"{key} is not a count: {v!r}")
    return v


def parse_results(seg: Segment) -> Parsed:
    """Read vegeta's NDJSON results: one run, one requests row per result."""
    res = shared.Results()
    for obj, n in _objects(seg):
        try:
            ns = pd.Timestamp(obj["timestamp"]).value
            res.add(ns, _count(obj, "latency") / 1e9, _count(obj, "code"), _count(obj, "bytes_in"),
                    _count(obj, "bytes_out"), _text(obj, "error"), _text(obj, "method"), _text(obj, "url"),
                    _text(obj, "attack"))  # fmt: skip
        except (KeyError, TypeError, ValueError) as e:
            raise ParseError(f"not a vegeta result ({type(e).__name__}: {e})", source=seg.source,
                             line=seg.line - 1 + n) from None  # fmt: skip
    out = Parsed([{"tool": "vegeta", "line": 1, **shared.summarize(res)}])
    if len(res) and seg.wants("requests"):
        out.tables["requests"] = shared.requests_frame(res)
    return out


FORMATS = [
    Format("vegeta-json", "vegeta", detect, parse, whole_file=True, json=True,
           json_words=("latencies", "status_codes"), description="vegeta report -type=json"),
    Format("vegeta-results-json", "vegeta", detect_results, parse_results, whole_file=True, json=True,
           json_words=("timestamp",), description="vegeta encode --to json results (NDJSON)"),
]  # fmt: skip
