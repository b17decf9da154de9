"""fortio's JSON result (``fortio load -json FILE``, ``-json -`` on stdout, ``-a``: saved under its labels; also
what its web UI and REST API save)::

    {"RunType": "HTTP", "Labels": "127.0.0.1:18890/echo , vm", "StartTime": "2026-12-02T01:09:13.19Z",
     "RequestedQPS": "200", "RequestedDuration": "2s", "ActualQPS": 199.586, "ActualDuration": 2004145379,
     "NumThreads": 4, "Version": "1.68.2",
     "DurationHistogram": {"Count": 400, "Min": 0.000108854, "Max": 0.01224724, "Sum": 0.722, "Avg": 0.0018,
       "StdDev": 0.0024, "Data": [{"Start": 0.000108854, "End": 0.001, "Percent": 65.25, "Count": 261}, …],
       "Percentiles": [{"Percentile": 50, "Value": 0.00079}, …]},
     "ErrorsDurationHistogram": {…}, "Exactly": 0, "RetCodes": {"200": 400}, "Sizes": {"Count": 400, "Sum": 30000,
     "Avg": 75, …}, "HeaderSizes": {…}, "URL": "http://127.0.0.1:18890/echo", "SocketCount": 4, "AbortOn": 0, …}

======================================  ==========================================================  =====
key                                     column                                                      unit
======================================  ==========================================================  =====
RequestedQPS                            ``rate_target_per_s`` (a number; ``max``: none)             1/s
RequestedDuration, Exactly              ``time_limit_s`` (a Go duration), ``requests_planned``      s
ActualQPS                               ``requests_attempted_per_s``; ``requests_per_s`` when every 1/s
                                        call got an answer (else answers / ``duration_s``)
ActualDuration                          ``duration_s``                                              ns
NumThreads, SocketCount                 ``concurrency``, ``connections``
RetCodes                                the counts (:func:`~lbanalysis.readers.fortio.shared.count_fields`),
                                        ``status_codes``
DurationHistogram Avg, StdDev, Min, Max ``latency_mean_s``, ``latency_stdev_s``, ``_min_s``, ``_max_s`` s
DurationHistogram Percentiles           percentiles table                                           s
DurationHistogram Data                  histogram table: each bucket's ``End`` and ``Count``         s
Sizes Sum, Avg                          ``bytes_total``, ``bytes_per_request`` (headers and body);  B
                                        ``bytes_per_s`` = Sum / ``duration_s``
StartTime, URL, Labels, Version         ``timestamp``, ``url``…, ``label``, ``tool_version``
======================================  ==========================================================  =====

fortio's buckets have fixed edges (``-r``, 1 ms by default, then wider):
the histograms of several processes of one test add up bucket by bucket,
so their percentiles merge exactly. The times of calls that got no answer
are in the histogram too: when none got one, the latencies are not kept (as
for hey). ``HeaderSizes``, ``ErrorsDurationHistogram``, ``ConnectionStats``,
``IPCountMap`` and the options echoed (``Jitter``, ``Uniform``, ``Payload``…)
are not kept.

>>> doc = ('{"RunType": "HTTP", "RequestedQPS": "max", "ActualQPS": 50.0, "ActualDuration": 2000000000,'
...        ' "NumThreads": 2, "RetCodes": {"200": 100}, "DurationHistogram": {"Count": 100, "Avg": 0.04,'
...        ' "Data": [{"Start": 0.01, "End": 0.05, "Percent": 100, "Count": 100}], "Percentiles": null}}')
>>> p = parse(Segment(doc))
>>> r = p.runs[0]
>>> r["requests"], r["requests_per_s"], r["duration_s"], r["concurrency"], "rate_target_per_s" in r
(100, 50.0, 2.0, 2, False)
>>> p.tables["histogram"]
[{'run': 0, 'latency_s': 0.05, 'count': 100}]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...errors import ParseError
from ...text import Segment
from ..base import NO_ANSWER, Format, Parsed, target
from ..fields import Field, documents, has_keys, walk
from .shared import count_fields, go_duration, requested_rate

__all__ = ["FIELDS", "FORMATS", "KEYS", "detect", "parse"]

#: The keys of a result, in whatever order and layout they are written.
KEYS = ("RunType", "ActualQPS", "DurationHistogram")
_LOG_KEYS = frozenset(("ts", "level", "msg"))

# key path -> column, unit as written; "answered": kept only when some call got an answer
FIELDS = (
    Field("ActualDuration", "duration_s", "ns"),
    Field("ActualQPS", "requests_attempted_per_s", "req/s"),
    Field("NumThreads", "concurrency", cast=round),
    Field("SocketCount", "connections", cast=round),
    Field("Exactly", "requests_planned", cast=round),
    Field("Sizes.Sum", "bytes_total", "B"),
    Field("Sizes.Avg", "bytes_per_request", "B", kind="answered"),
    Field("DurationHistogram.Avg", "latency_mean_s", "s", kind="answered"),
    Field("DurationHistogram.StdDev", "latency_stdev_s", "s", kind="answered"),
    Field("DurationHistogram.Min", "latency_min_s", "s", kind="answered"),
    Field("DurationHistogram.Max", "latency_max_s", "s", kind="answered"),
)


def detect(text: str) -> bool:
    """True for fortio's JSON result (any layout).

    >>> detect('{"RunType": "HTTP", "ActualQPS": 1.0, "DurationHistogram": {}}'), detect('{"RunType": "HTTP"}')
    (True, False)
    """
    return has_keys(text, KEYS)


def _texts(doc: dict) -> dict:
    """The run's words: when, what, which version, its labels, the rate and time asked for."""
    d: dict = {}
    if isinstance(doc.get("URL"), str) and doc["URL"]:
        d.update(target(doc["URL"]))
    if isinstance(doc.get("Labels"), str) and doc["Labels"].strip():
        d["label"] = doc["Labels"].strip()
    if isinstance(doc.get("Version"), str) and doc["Version"]:
        d["tool_version"] = doc["Version"]
    if isinstance(doc.get("StartTime"), str) and not doc["StartTime"].startswith("0001-"):
        d["timestamp"] = _utc(doc["StartTime"])
    rate = doc.get("RequestedQPS")
    if (r := requested_rate(str(rate))) is not None:
        d["rate_target_per_s"] = r
    if isinstance(doc.get("RequestedDuration"), str) and (t := go_duration(doc["RequestedDuration"])) is not None:
        d["time_limit_s"] = t
    return d


def _utc(text: str) -> pd.Timestamp:
    """A time as fortio writes it (RFC 3339 to the nanosecond, Go's ``time.Time``), as a naive UTC time. One in UTC
    (``Z``) of a year nanoseconds hold is read by NumPy, at half pandas' cost (NumPy wraps a year beyond them round
    without a word); another by pandas.

    >>> _utc("2020-05-23T09:20:11.561276127Z"), _utc("2026-12-02T03:09:13.19+02:00")
    (Timestamp('2020-05-23 09:20:11.561276127'), Timestamp('2026-12-02 01:09:13.190000'))
    >>> _utc("3000-01-01T00:00:00Z")
    Timestamp('3000-01-01 00:00:00')
    """
    if text.endswith("Z") and "+" not in text and "1678" <= text[:4] <= "2261" and text[4:5] == "-":
        try:
            return pd.Timestamp(np.datetime64(text[:-1], "ns"))
        except ValueError:  # not a time NumPy reads: pandas says what it makes of it
            pass
    return pd.Timestamp(text).tz_convert(None)


_NUMBER = frozenset({int, float})


def _histogram(h: object) -> tuple[list[dict], list[dict]]:
    """The histogram rows (each bucket's upper edge and count) and the percentile rows of a duration histogram."""
    h = h if isinstance(h, dict) else {}
    # a JSON number is an int or a float (a bool is neither here: what number() says, without a call per value)
    buckets = [{"latency_s": float(b["End"]), "count": round(b["Count"])} for b in h.get("Data") or []
               if type(b) is dict and type(b.get("End")) in _NUMBER and type(b.get("Count")) in _NUMBER]  # fmt: skip
    pct = [{"percentile": float(p["Percentile"]), "latency_s": float(p["Value"])} for p in h.get("Percentiles") or []
           if type(p) is dict and type(p.get("Percentile")) in _NUMBER and type(p.get("Value")) in _NUMBER]  # fmt: skip
    return buckets, pct


def _result(doc: dict, seg: Segment, line: int) -> tuple[dict, list[dict], list[dict]]:
    """One result's run row, percentiles and histogram."""
    codes = doc.get("RetCodes") if isinstance(doc.get("RetCodes"), dict) else {}
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in codes.values()):
        raise ParseError(f"RetCodes: not a count: {codes!r}"[:200], source=seg.source, line=line)
    d = {**_texts(doc), **walk(doc, FIELDS, "runs"), **count_fields(codes)}
    if not d.get("requests_planned"):  # Exactly 0: a time bound (-t), no number of calls
        d.pop("requests_planned", None)
    if d.get("duration_s") and "bytes_total" in d:
        d["bytes_per_s"] = d["bytes_total"] / d["duration_s"]
    if d["failed_network"] == 0 and "requests_attempted_per_s" in d:
        d["requests_per_s"] = d["requests_attempted_per_s"]
    elif d.get("duration_s"):
        d["requests_per_s"] = d["requests"] / d["duration_s"]
    if not codes:
        d["error"], d["error_kind"] = "no call made (RetCodes empty)", NO_ANSWER
        return {k: v for k, v in d.items() if v is not None}, [], []
    if d["requests"] == 0:  # the times of calls that got no answer
        d["error"], d["error_kind"] = "no call got an answer (every status -1: socket errors)", NO_ANSWER
        return {k: v for k, v in d.items() if v is not None}, [], []
    buckets, pct = _histogram(doc.get("DurationHistogram"))
    d.update(walk(doc, FIELDS, "answered"))
    return {k: v for k, v in d.items() if v is not None}, pct, buckets


def parse(seg: Segment) -> Parsed:
    """Read every fortio JSON result of a segment (any layout; several, one after another, each a run)."""
    out = Parsed()
    for doc, n, _ in documents(seg, "fortio"):
        if isinstance(doc, dict) and _LOG_KEYS <= doc.keys():
            continue  # a line of fortio's log (stderr beside -json -): what the result holds, as it ran
        if not isinstance(doc, dict) or "RunType" not in doc:
            raise ParseError("expected a fortio JSON result (an object with RunType)", source=seg.source,
                             line=seg.line - 1 + n)  # fmt: skip
        d, pct, hist = _result(doc, seg, seg.line - 1 + n)
        out.add_run({"tool": "fortio", **d, "line": n}, percentiles=pct, histogram=hist)
    if not out.runs:
        raise ParseError("no fortio JSON result", source=seg.source, line=seg.line)
    return out


FORMATS = [
    Format("fortio-json", "fortio", detect, parse, whole_file=True, json=True, json_words=KEYS[:1],
           description="fortio load -json result"),
]  # fmt: skip
