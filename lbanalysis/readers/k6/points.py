"""k6 metric points: ``--out json`` (NDJSON) and ``--out csv`` → one requests row per HTTP request.

``--out json=FILE`` writes a ``Metric`` line for each metric on its first
use and a ``Point`` line for each sample::

    {"type":"Metric","data":{"name":"http_reqs","type":"counter",...},"metric":"http_reqs"}
    {"metric":"http_reqs","type":"Point","data":{"time":"2026-11-25T18:43:36.538202271Z","value":1,
     "tags":{"expected_response":"true","method":"GET","name":"http://…/flaky","scenario":"default",
             "status":"200","url":"http://…/flaky"}}}

``--out csv=FILE`` writes one line per sample::

    metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,
    scenario,service,status,subproto,tls_version,url,extra_tags,metadata
    http_reqs,1795632216,1.000000,,,,true,,GET,http://127.0.0.1:18701/flaky,HTTP/1.1,default,,200,,,…

k6 writes the samples of one request together: ``http_reqs`` first, then
its ``http_req_*`` trends and ``http_req_failed``, all stamped with the
time the request ended. A request is read from its ``http_reqs`` sample up
to the next one:

============================  =================  ===============================================
sample                        requests column    meaning
============================  =================  ===============================================
``http_req_duration``         ``latency_s``      sending + waiting + receiving (ms -> s)
``http_req_connecting``       ``connect_s``      TCP connect
``http_req_sending``          ``write_s``        writing the request
``http_req_waiting``          ``waiting_s``      time to the first byte
``http_req_receiving``        ``read_s``         reading the response
``http_req_blocked``          ``blocked_s``      waiting for a connection, connect and TLS included
``http_req_tls_handshaking``  ``tls_s``          the TLS handshake
(time) - blocked - dur.       ``start``,         when the request began (blocked = waiting for a
                              ``start_s``        connection, connect and TLS included)
``status`` tag                ``status``
``method``, ``url`` tags      ``method``, ``url``
============================  =================  ===============================================

A request with status 0 got no response (refused, reset, timed out): it is
not a requests row but counts in the run's ``failed_network``; ``failed``
is k6's ``http_req_failed`` (unexpected status or no response). The run row
also sums ``data_received``/``data_sent`` (``bytes_total``, ``bytes_sent``),
``iterations``, ``checks`` (passed, failed), and takes the most ``vus``
(``concurrency``) and ``vus_max``. k6's default CSV time is whole seconds
(truncated): start times, ``duration_s`` and rates then stay empty; the
``K6_CSV_TIME_FORMAT`` values ``unix_milli``, ``unix_micro``,
``unix_nano`` and ``rfc3339_nano`` keep them. The points do not say
which executor ran: a run of an arrival-rate executor (open loop) reads
as closed-loop unless ``rate_target_per_s`` is given (a manifest column).

>>> p = parse_csv(Segment(CSV_HEADER + "\\nhttp_reqs,1700000000000,1,,,,true,,GET,u,HTTP/1.1,default,,200,,,u,,\\n"
...   "http_req_duration,1700000000000,2.5,,,,true,,GET,u,HTTP/1.1,default,,200,,,u,,\\n"))
>>> p.runs[0]["requests"], p.tables["requests"][0]["latency_s"], p.tables["requests"][0]["status"]
(1, 0.0025, 200)
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

from ...errors import ParseError
from ...text import Segment
from ..base import NO_ANSWER, NO_RESULT_SHOWN, Format, Parsed

__all__ = ["CSV_HEADER", "FORMATS", "detect_csv", "detect_json", "parse_csv", "parse_json"]

CSV_HEADER = (
    "metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,"
    "scenario,service,status,subproto,tls_version,url,extra_tags,metadata"
)
# trend sample of a request -> requests column (k6 prints milliseconds)
TRENDS = {
    "http_req_duration": "latency_s",
    "http_req_connecting": "connect_s",
    "http_req_sending": "write_s",
    "http_req_waiting": "waiting_s",
    "http_req_receiving": "read_s",
    "http_req_blocked": "blocked_s",
    "http_req_tls_handshaking": "tls_s",
}
# CSV time digits -> seconds per unit (unix, unix_milli, unix_micro, unix_nano)
_UNIX_DIGITS = {10: 1.0, 13: 1e3, 16: 1e6, 19: 1e9}


class _Sample:
    """One sample: metric, time (seconds since the epoch, None if unreadable), value, tags, line."""

    __slots__ = ("line", "metric", "tags", "time", "value")

    def __init__(self, metric: str, time: float | None, value: float, tags: dict, line: int) -> None:
        self.metric, self.time, self.value, self.tags, self.line = metric, time, value, tags, line


def _iso_seconds(text: str) -> float | None:
    """Seconds since the epoch from k6's RFC 3339 times (nanoseconds kept to the microsecond).

    >>> _iso_seconds("2026-11-25T18:43:36.538202271Z")
    1795632216.538202
    """
    head, dot, frac = text.rstrip("Z").partition(".")
    zone = ""
    for sign in ("+", "-"):
        if sign in frac:
            frac, zone = frac.split(sign, 1)[0], sign + frac.split(sign, 1)[1]
    if "+" in head[10:] or "-" in head[10:]:  # a zone without fractional seconds
        zone = ""
    try:
        when = datetime.fromisoformat(head + (("." + frac[:6].ljust(6, "0")) if dot else "") + (zone or "+00:00"))
    except ValueError:
        return None
    return round(when.timestamp(), 6)


class _Tally:
    """The samples read so far: requests rows (a ``http_reqs`` sample starts one; its trends follow) and run totals."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.rows: list[dict] = []
        self.cur: dict | None = None
        self.totals = {"bytes_total": 0.0, "bytes_sent": 0.0, "iterations": 0, "checks_passed": 0, "checks_failed": 0}
        self.seen: set[str] = set()
        self.vus: list[float] = []
        self.vus_max: list[float] = []
        self.failed = 0

    def request(self, s: _Sample) -> None:
        self.cur = {"_time": s.time, "_line": s.line, "status": _status(s.tags.get("status"), self.source, s.line)}
        if s.tags.get("method"):
            self.cur["method"] = s.tags["method"]
        if s.tags.get("url") or s.tags.get("name"):
            self.cur["url"] = s.tags.get("url") or s.tags.get("name")
        self.rows.append(self.cur)

    def trend(self, s: _Sample) -> None:
        if self.cur is not None:
            self.cur[TRENDS[s.metric]] = s.value / 1e3

    def request_failed(self, s: _Sample) -> None:
        if self.cur is not None:
            self.failed += s.value != 0

    def received(self, s: _Sample) -> None:
        self.totals["bytes_total"] += s.value

    def sent(self, s: _Sample) -> None:
        self.totals["bytes_sent"] += s.value

    def iteration(self, s: _Sample) -> None:
        self.totals["iterations"] += round(s.value)

    def check(self, s: _Sample) -> None:
        self.totals["checks_passed" if s.value else "checks_failed"] += 1

    def vu(self, s: _Sample) -> None:
        self.vus.append(s.value)

    def vu_max(self, s: _Sample) -> None:
        self.vus_max.append(s.value)


# metric -> what its sample adds (the metric kinds, as a text reader's line kinds)
METRICS = {
    "http_reqs": _Tally.request,
    **dict.fromkeys(TRENDS, _Tally.trend),
    "http_req_failed": _Tally.request_failed,
    "data_received": _Tally.received,
    "data_sent": _Tally.sent,
    "iterations": _Tally.iteration,
    "checks": _Tally.check,
    "vus": _Tally.vu,
    "vus_max": _Tally.vu_max,
}
# totals -> the metric whose samples they sum (kept only when the points hold it)
_TOTALS = (("bytes_total", "data_received"), ("bytes_sent", "data_sent"), ("iterations", "iterations"))


def _order(answered: list[dict], fine: bool) -> None:
    """Start times (the sample's time less its blocked and duration), start_s, and the rows in start order."""
    if fine:
        for r in answered:
            began = r["_time"] - r.get("blocked_s", 0.0) - r.get("latency_s", 0.0)
            r["start"] = datetime.fromtimestamp(began, UTC).replace(tzinfo=None)
            r["_began"] = began
    if fine and answered:
        first = min(r["_began"] for r in answered)
        for r in answered:
            r["start_s"] = r["_began"] - first
        answered.sort(key=lambda r: (r["_began"], r["_line"]))
    for i, r in enumerate(answered):
        r["seq"] = i


def _totals(run: dict, t: _Tally) -> None:
    """Bytes, iterations, checks and virtual users, where the points hold them."""
    for key, metric in _TOTALS:
        if metric in t.seen:
            run[key] = t.totals[key]
    if "checks" in t.seen:
        run["checks_passed"], run["checks_failed"] = t.totals["checks_passed"], t.totals["checks_failed"]
    if t.vus:
        run["concurrency"] = round(max(t.vus))
    if t.vus_max:
        run["vus_max"] = round(max(t.vus_max))


def _timing(run: dict, answered: list[dict], fine: bool) -> None:
    """Latency summary, and duration and rate when the times are fine enough."""
    lat = [r["latency_s"] for r in answered if "latency_s" in r]
    if lat:
        run.update(latency_mean_s=sum(lat) / len(lat), latency_min_s=min(lat), latency_max_s=max(lat))
    if fine and answered:
        end = max(r["_time"] for r in answered)
        run["duration_s"] = end - min(r["_began"] for r in answered)
        if run["duration_s"] > 0:
            run["requests_per_s"] = len(answered) / run["duration_s"]


def _requests(samples: Iterable[_Sample], source: str, coarse: bool) -> Parsed:
    """Group the samples into requests and sum the run up."""
    t = _Tally(source)
    for s in samples:
        t.seen.add(s.metric)
        add = METRICS.get(s.metric)
        if add is not None:
            add(t, s)
    rows = t.rows
    answered = [r for r in rows if r["status"]]
    fine = not coarse and all(r["_time"] is not None for r in rows)
    _order(answered, fine)
    run: dict = {"tool": "k6", "line": 1, "requests": len(answered), "failed": t.failed,
                 "failed_network": len(rows) - len(answered)}  # fmt: skip
    if "http_req_failed" in t.seen:
        run["requests_ok"] = len(rows) - t.failed
    run["non_2xx"] = sum(1 for r in answered if not 200 <= r["status"] < 300)
    _timing(run, answered, fine)
    _totals(run, t)
    if not rows:
        run["error"], run["error_kind"] = "no HTTP request in the metric points", NO_RESULT_SHOWN
    elif not answered:
        run["error"], run["error_kind"] = f"no response: all {len(rows)} requests got none (status 0)", NO_ANSWER
    out = Parsed()
    out.add_run(run, requests=[{k: v for k, v in r.items() if not k.startswith("_")} for r in answered])
    return out


def _status(text: object, source: str, line: int) -> int:
    if text in (None, ""):
        return 0
    try:
        return int(str(text))
    except ValueError:
        raise ParseError(f"not a status code: {text!r}", source=source, line=line, text=str(text)) from None


# ------------------------------------------------------------------ CSV ---
def detect_csv(text: str) -> bool:
    """True when the first line is k6's CSV header (``metric_name,timestamp,metric_value,…``).

    >>> detect_csv(CSV_HEADER + "\\n"), detect_csv("metric_name,value\\n")
    (True, False)
    """
    return text.lstrip("\ufeff").startswith("metric_name,timestamp,metric_value,")


def _csv_time(text: str, source: str, line: int) -> tuple[float | None, bool]:
    """(seconds since the epoch, whole seconds only?) of a CSV timestamp."""
    text = text.strip()
    if text.isdigit() and len(text) in _UNIX_DIGITS:
        scale = _UNIX_DIGITS[len(text)]
        return int(text) / scale, scale == 1.0
    if "T" in text:
        return _iso_seconds(text), False
    raise ParseError(f"not a k6 timestamp: {text!r}", source=source, line=line, text=text)


def _csv_samples(seg: Segment, coarse: list[bool]) -> Iterator[_Sample]:
    reader = csv.reader(io.StringIO(seg.text.lstrip("\ufeff")))
    header = next(reader, [])
    col = {name: i for i, name in enumerate(header)}
    for need in ("metric_name", "timestamp", "metric_value"):
        if need not in col:
            raise ParseError(f"k6 CSV without a {need!r} column", source=seg.source, line=1)
    tag_cols = [c for c in ("method", "name", "status", "url", "scenario", "expected_response") if c in col]
    for n, fields in enumerate(reader, 2):
        if not fields or not any(f.strip() for f in fields):
            continue
        if len(fields) != len(header):
            raise ParseError(f"expected {len(header)} fields, found {len(fields)}", source=seg.source, line=n,
                             text=",".join(fields)[:200])  # fmt: skip
        when, whole = _csv_time(fields[col["timestamp"]], seg.source, n)
        coarse[0] = coarse[0] or whole
        try:
            value = float(fields[col["metric_value"]])
        except ValueError:
            raise ParseError(f"not a number: {fields[col['metric_value']]!r}", source=seg.source, line=n) from None
        yield _Sample(fields[col["metric_name"]], when, value, {c: fields[col[c]] for c in tag_cols}, n)


def parse_csv(seg: Segment) -> Parsed:
    """Read a k6 ``--out csv`` file: one run, a requests row per request that got a response."""
    coarse = [False]
    samples = list(_csv_samples(seg, coarse))
    return _requests(samples, seg.source, coarse[0])


# ------------------------------------------------------------------ JSON ---
def detect_json(text: str) -> bool:
    """True for k6's ``--out json`` lines (``{"type":"Metric"…`` or ``{"metric":…,"type":"Point"…``).

    >>> detect_json('{"type":"Metric","data":{"name":"http_reqs","type":"counter"},"metric":"http_reqs"}\\n')
    True
    >>> detect_json('{"type":"Point","data":{"time":"2026-11-25T18:43:36Z","value":1,"tags":{}},"metric":"vus"}\\n')
    True
    """
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    starts = ('{"type":"Metric","data":{"name":', '{"type":"Point","data":{"time":', '{"metric":')  # k6 1.x; 0.x
    return first.startswith(starts) and ('"type":"Point"' in first or '"type":"Metric"' in first)


def _json_samples(seg: Segment) -> Iterator[_Sample]:
    for n, line in enumerate(seg.text.lstrip("\ufeff").split("\n"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            raise ParseError(f"broken k6 JSON line: {e}", source=seg.source, line=n, text=line[:200]) from None
        if not isinstance(obj, dict) or obj.get("type") != "Point":
            continue
        data = obj.get("data")
        if not isinstance(data, dict) or not isinstance(obj.get("metric"), str):
            raise ParseError("a k6 Point without its metric or data", source=seg.source, line=n, text=line[:200])
        value = data.get("value")
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ParseError(f"not a number: {value!r}", source=seg.source, line=n, text=line[:200])
        tags = data.get("tags") if isinstance(data.get("tags"), dict) else {}
        when = _iso_seconds(data["time"]) if isinstance(data.get("time"), str) else None
        yield _Sample(obj["metric"], when, float(value), tags, n)


def parse_json(seg: Segment) -> Parsed:
    """Read a k6 ``--out json`` file: one run, a requests row per request that got a response."""
    return _requests(list(_json_samples(seg)), seg.source, False)


FORMATS = [
    Format("k6-csv", "k6", detect_csv, parse_csv, whole_file=True, description="k6 --out csv metric samples"),
    Format("k6-json", "k6", detect_json, parse_json, whole_file=True, json=True,
           json_words=("type", "metric"),  # the first key of the first line
           description="k6 --out json metric points"),
]  # fmt: skip
