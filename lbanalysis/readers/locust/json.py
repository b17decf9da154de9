"""Locust's final statistics as JSON (``--json`` on stdout, ``--json-file FILE``).

One object per request name (no ``Aggregated`` entry; times in ms)::

    [{"name": "/flaky", "method": "GET", "start_time": 1795632305.26, "last_request_timestamp": 1795632306.93,
      "num_requests": 12, "num_none_requests": 0, "num_failures": 4, "total_response_time": 490.57,
      "max_response_time": 48.76, "min_response_time": 9.54, "total_content_length": 1520,
      "response_times": {"10": 1, "44": 1, ...}, "num_reqs_per_sec": {"1795632305": 6, ...},
      "num_fail_per_sec": {"1795632305": 2, ...}}, ...]

The run sums the names up as Locust's ``Aggregated`` row does: requests
over the time from the first start to the last request (``duration_s``),
the mean of every response time, and the percentiles Locust prints,
computed from the merged ``response_times`` histogram (rounded
milliseconds) the way Locust computes them. ``num_reqs_per_sec`` and
``num_fail_per_sec`` give the intervals table (``stream`` Aggregated, one
row a second). The JSON has no error messages: with failures, which of
them got no response is not known and ``requests`` stays empty (``failed``
and ``requests_ok`` are kept).

>>> p = parse(Segment('[{"name": "/", "method": "GET", "start_time": 10.0, "last_request_timestamp": 12.0, '
...   '"num_requests": 4, "num_failures": 0, "total_response_time": 8.0, "max_response_time": 3.0, '
...   '"min_response_time": 1.0, "total_content_length": 708, "response_times": {"1": 2, "3": 2}}]'))
>>> r = p.runs[0]
>>> r["requests"], r["duration_s"], r["latency_mean_s"], p.tables["percentiles"][0]
(4, 2.0, 0.002, {'run': 0, 'percentile': 50.0, 'latency_s': 0.003})
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime

from ...errors import ParseError
from ...text import Segment
from ..base import NO_RESULT_SHOWN, Format, Parsed
from ..fields import Field, documents, has_keys, si_unit, walk
from .text import counts, name_rows

__all__ = ["FORMATS", "PERCENTILES", "detect", "parse", "percentile"]

#: the percentiles Locust prints
PERCENTILES = (50.0, 66.0, 75.0, 80.0, 90.0, 95.0, 98.0, 99.0, 99.9, 99.99, 100.0)


def percentile(times: dict[float, int], total: int, percent: float) -> float:
    """Locust's percentile of a response-time histogram (bucket -> count), in the buckets' unit.

    >>> percentile({1: 2, 3: 2}, 4, 50.0), percentile({1: 2, 3: 1}, 3, 50.0)  # counted from the top, as Locust does
    (3, 1)
    """
    wanted = int(total * (percent / 100.0))
    done = 0
    for t in sorted(times, reverse=True):
        done += times[t]
        if total - done <= wanted:
            return t
    return 0


def _num(d: dict, key: str) -> float | None:
    v = d.get(key)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _histogram(entries: list[dict], key: str, source: str) -> Counter:
    out: Counter = Counter()
    for e in entries:
        h = e.get(key)
        if not isinstance(h, dict):
            continue
        for k, v in h.items():
            try:
                out[float(k)] += int(v)
            except (TypeError, ValueError):
                raise ParseError(f"not a count in {key}: {k!r}: {v!r}", source=source, line=1) from None
    return out


def _documents(seg: Segment) -> list[tuple[list[dict], int]]:
    """Every statistics array of a segment with its line (any layout, one after another)."""
    out = []
    for doc, n, _ in documents(seg, "Locust", starts="["):
        if not isinstance(doc, list) or not all(isinstance(e, dict) for e in doc):
            raise ParseError("expected a JSON array of Locust statistics objects", source=seg.source,
                             line=seg.line - 1 + n)  # fmt: skip
        out.append((doc, n))
    return out


def _values(doc: list[dict], key: str) -> list[float]:
    """A key's numbers over the request names."""
    return [v for e in doc if (v := _num(e, key)) is not None]


def _span(d: dict, doc: list[dict]) -> None:
    """Start time, and duration from the first start to the last request (and the rate over it)."""
    starts, ends = _values(doc, "start_time"), _values(doc, "last_request_timestamp")
    if starts and 0 < min(starts) < 1e11:
        d["timestamp"] = datetime.fromtimestamp(min(starts), UTC).replace(tzinfo=None)
    if starts and ends and max(ends) > min(starts):
        d["duration_s"] = max(ends) - min(starts)
        if "requests" in d:
            d["requests_per_s"] = d["requests"] / d["duration_s"]


def _times(d: dict, doc: list[dict], reqs: int, source: str) -> list[dict]:
    """Mean, min and max response times (ms as written) and the percentiles of the merged histogram."""
    d["latency_mean_s"] = sum(_num(e, "total_response_time") or 0.0 for e in doc) / reqs / 1e3
    lows, highs = _values(doc, "min_response_time"), _values(doc, "max_response_time")
    if lows:
        d["latency_min_s"] = min(lows) / 1e3
    if highs:
        d["latency_max_s"] = max(highs) / 1e3
    hist = _histogram(doc, "response_times", source)
    n = sum(hist.values())
    return [{"percentile": p, "latency_s": percentile(hist, n, p) / 1e3} for p in PERCENTILES] if hist else []


def _intervals(doc: list[dict], source: str) -> list[dict]:
    """``num_reqs_per_sec`` and ``num_fail_per_sec`` summed over names: one Aggregated row a second."""
    per_s, fail_s = _histogram(doc, "num_reqs_per_sec", source), _histogram(doc, "num_fail_per_sec", source)
    if not per_s:
        return []
    first = min(per_s)
    return [{"stream": "Aggregated", "start_s": t - first, "end_s": t - first + 1.0, "requests_per_s": float(per_s[t]),
             "failures_per_s": float(fail_s.get(t, 0))} for t in sorted(per_s)]  # fmt: skip


def parse(seg: Segment) -> Parsed:
    """Read Locust's JSON statistics: one run per array (several when appended), the names summed up."""
    out = Parsed()
    for doc, n in _documents(seg):
        _run(out, doc, n, seg.source)
    return out


def _run(out: Parsed, doc: list[dict], line: int, source: str) -> None:
    """One statistics array as a run of ``out``: the names summed up."""
    reqs = sum(round(_num(e, "num_requests") or 0) for e in doc)
    fails = sum(round(_num(e, "num_failures") or 0) for e in doc)
    d: dict = {"tool": "locust", "line": line}
    counts(d, reqs, fails, None)
    _span(d, doc)
    percentiles = []
    if reqs and d.get("requests") != 0:  # (unknown when some failed: the times are known all the same)
        percentiles = _times(d, doc, reqs, source)
    if any("total_content_length" in e for e in doc):
        d["bytes_total"] = size = sum(_num(e, "total_content_length") or 0.0 for e in doc)
        if reqs:
            d["bytes_per_request"] = size / reqs
    intervals = _intervals(doc, source)
    if reqs == 0:
        d["error"], d["error_kind"] = "no request was made", NO_RESULT_SHOWN
    out.add_run(d, percentiles=percentiles, intervals=intervals, metrics=[r for e in doc for r in _name_metrics(e)])


# One request name's figures: key -> stat of the metrics table, unit as written (times in ms)
NAME_FIELDS = (
    Field("num_requests", "requests", "", kind="metrics"),
    Field("num_failures", "failures", "", kind="metrics"),
    Field("num_none_requests", "none_requests", "", kind="metrics"),
    Field("total_response_time", "total_time", "ms", kind="metrics"),
    Field("min_response_time", "min", "ms", kind="metrics"),
    Field("max_response_time", "max", "ms", kind="metrics"),
    Field("total_content_length", "size_total", "B", kind="metrics"),
)


def _name_metrics(e: dict) -> list[dict]:
    """One request name's figures as metrics rows (``GET /slow``: requests, failures, min, max …)."""
    values = walk(e, NAME_FIELDS)
    items = [(f.column, values[f.column], si_unit(f.unit)) for f in NAME_FIELDS if f.column in values]
    return name_rows(f"{e.get('method') or ''} {e.get('name') or ''}".strip(), items)


_DETECT_RE = re.compile(r'^\s*\[\s*\{\s*"name"\s*:')
#: The keys of a request name's statistics, in whatever order and layout they are written.
KEYS = ("name", "num_requests", "response_times")


def detect(text: str) -> bool:
    """True for Locust's JSON statistics (an array of objects with ``num_requests`` and ``response_times``).

    >>> detect('[{"name": "/", "method": "GET", "num_requests": 1, "response_times": {}}]'), detect("[]")
    (True, False)
    >>> detect('[\\r\\n  {\\r\\n    "method": "GET",\\r\\n    "name": "/",\\r\\n    "num_requests": 1,\\r\\n    "response_times": {}')
    True
    """
    head = text[:4000]
    if _DETECT_RE.match(head):
        return '"num_requests"' in head and '"response_times"' in head
    return has_keys(text, KEYS, opener="[{")


FORMATS = [
    Format(
        "locust-json",
        "locust",
        detect,
        parse,
        whole_file=True,
        json=True,
        json_words=("num_requests",),  # one of KEYS, which detect asks for
        description="Locust --json / --json-file statistics",
    )
]
