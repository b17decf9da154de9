"""What JMeter's results readers share: a sample's fields, and the run a list of samples makes.

A JTL file (CSV or XML) holds one sample per request (a sampler's result),
with these fields; the XML attributes are JMeter's own abbreviations:

==============  =====  =========================  ==================================================
CSV column      XML    requests column            unit / meaning
==============  =====  =========================  ==================================================
timeStamp       ts     ``start``, ``start_s``     ms since the epoch (or a date format), the start
elapsed         t      ``latency_s``              ms, the whole sample
label           lb     ``label``                  the sampler's name
responseCode    rc     ``status``                 0 for ``Non HTTP response code: …`` (no answer)
responseMessage rm     ``error`` (failed only)
threadName      tn     ``thread``
success         s      ``success``
failureMessage  (a)    ``error`` (first)          an assertion's failure message
bytes           by     ``bytes``                  B received, headers included
sentBytes       sby    ``bytes_sent``             B (JMeter 3.1+)
grpThreads      ng     ``group_threads``
allThreads      na     ``threads``
URL             (u)    ``url``
Latency         lt     ``first_byte_s``           ms, to the first byte, connect included
IdleTime        it     ``idle_s``                 ms
Connect         ct     ``connect_s``              ms (JMeter 2.13+)
==============  =====  =========================  ==================================================

The file is one run (as Locust's ``_stats.csv`` is): ``requests`` are the
samples that got an answer, ``failed_network`` those that got none (a
``Non HTTP response code``: refused, reset, timed out), ``requests_attempted``
all of them; ``failed`` and ``requests_ok`` count JMeter's ``success``;
``non_2xx`` the answers outside 2xx. Latencies are over the answers,
``duration_s`` spans the first start to the last end, ``concurrency`` is the
most threads active (``allThreads``). The figures of each label (``requests``,
``failures``, ``avg``, ``min``, ``max``, ``rate``, ``bytes`` in s, 1/s, B) are
rows of the metrics table (``metric`` = the label), as Locust's per-name rows.

>>> s = [{"start_ms": 1000.0, "latency_s": 0.01, "status": 200, "success": True, "label": "home"},
...      {"start_ms": 1005.0, "latency_s": 0.0, "status": 0, "success": False, "label": "home",
...       "error": "Non HTTP response message: Connection refused"}]
>>> r = summarize(s, {"status", "success", "start_ms"}).runs[0]
>>> r["requests"], r["failed_network"], r["failed"], r["requests_ok"], r["duration_s"]
(1, 1, 1, 1, 0.01)
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime

from ...errors import ParseError
from ..base import NO_ANSWER, NO_RESULT_SHOWN, Parsed
from ..locust.text import name_rows

__all__ = ["NO_HTTP", "error_of", "parse_time", "status_of", "summarize"]

#: what JMeter writes as the response code of a sample that got no answer
NO_HTTP = "Non HTTP response code"
# date formats of jmeter.save.saveservice.timestamp_format seen in the wild (local time, as printed)
_DATE_RE = re.compile(r"^(\d{4})[/-](\d\d)[/-](\d\d)[ T](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,6}))?$")


def parse_time(text: str, source: str, line: int) -> float:
    """Milliseconds since the epoch of a JTL time stamp: JMeter's default (ms) or a date format (as printed, UTC).

    >>> parse_time("1795790177074", "f", 1), parse_time("2026/11/27 14:36:17.074", "f", 1)
    (1795790177074.0, 1795790177074.0)
    """
    text = text.strip()
    if text.isdigit():
        if len(text) > 14:  # past the year 5000: no time stamp
            raise ParseError(f"not a JMeter time stamp: {text!r}", source=source, line=line, text=text[:40])
        return float(text)
    m = _DATE_RE.match(text)
    if m is None:
        raise ParseError(f"not a JMeter time stamp: {text!r}", source=source, line=line, text=text)
    y, mo, d, h, mi, s = (int(g) for g in m.groups()[:6])
    frac = (m.group(7) or "0").ljust(6, "0")
    when = datetime(y, mo, d, h, mi, s, int(frac), tzinfo=UTC)
    return when.timestamp() * 1e3


def status_of(code: str) -> int | None:
    """The HTTP status of a response code; 0 when JMeter got no answer; None for another code (not HTTP).

    >>> status_of("200"), status_of("Non HTTP response code: java.net.ConnectException"), status_of("")
    (200, 0, None)
    """
    code = code.strip()
    if code.isdigit():
        return int(code)
    if code.startswith(NO_HTTP):
        return 0
    return None


def error_of(code: str, message: str, failure: str = "") -> str:
    """A failed sample's error: its assertion's failure message, else its code and message (no answer: the
    exception and its message).

    >>> error_of("Non HTTP response code: java.net.ConnectException", "Non HTTP response message: Connection refused")
    'java.net.ConnectException: Connection refused'
    >>> error_of("404", "Not Found"), error_of("200", "OK", "Test failed: text expected to contain /x/")
    ('404 Not Found', 'Test failed: text expected to contain /x/')
    """
    if failure.strip():
        return failure.strip()
    if code.startswith(NO_HTTP):
        exc = code.split(":", 1)[1].strip() if ":" in code else code
        msg = message.split(":", 1)[1].strip() if message.startswith("Non HTTP response message") else message
        return f"{exc}: {msg}" if msg else exc
    return f"{code} {message}".strip()


def _counts(run: dict, samples: list[dict], answered: list[dict], have: set[str]) -> None:
    """Answered, unanswered, not 2xx, failed and good samples, from the fields the file holds."""
    if "status" in have:
        run["requests"] = len(answered)
        run["failed_network"] = len(samples) - len(answered)
        run["non_2xx"] = sum(1 for s in answered if s.get("status") is not None and not 200 <= s["status"] < 300)
    if "success" in have:
        run["failed"] = sum(1 for s in samples if not s["success"])
        run["requests_ok"] = len(samples) - run["failed"]


def _volumes(run: dict, samples: list[dict], answered: list[dict], have: set[str]) -> None:
    """Duration (first start to last end), rates and bytes."""
    span = _span(samples)
    if span:
        run["duration_s"] = span
        run["requests_attempted_per_s"] = len(samples) / span
        if "requests" in run:
            run["requests_per_s"] = run["requests"] / span
    if "bytes" in have:
        run["bytes_total"] = sum(s.get("bytes", 0.0) for s in answered)
        if span:
            run["bytes_per_s"] = run["bytes_total"] / span
    if "bytes_sent" in have:
        run["bytes_sent"] = sum(s.get("bytes_sent", 0.0) for s in samples)


def _failures(run: dict, samples: list[dict], answered: list[dict], have: set[str]) -> None:
    """The run's error (no sample, no response) or its warnings (the failed samples' reasons, counted)."""
    failures = Counter(_why(s) for s in samples if s.get("success") is False or s.get("status") == 0)
    reasons = "; ".join(f"{why} (x{n})" for why, n in failures.most_common())
    if not samples:
        run["error"], run["error_kind"] = "no sample in the results file", NO_RESULT_SHOWN
    elif "status" in have and not answered:
        run["error"], run["error_kind"] = f"no response: {reasons}", NO_ANSWER
    elif reasons:
        run["warnings"] = reasons


def _request_row(i: int, s: dict, first: dict) -> dict:
    """A sample as a requests row: its start as a time and in seconds from the first sample's."""
    row = {k: v for k, v in s.items() if k != "start_ms"}
    if "start_ms" in s:
        row["start"] = datetime.fromtimestamp(s["start_ms"] / 1e3, UTC).replace(tzinfo=None)
        row["start_s"] = (s["start_ms"] - first["start_ms"]) / 1e3
    row["seq"] = i
    return row


def _label_metrics(samples: list[dict], have: set[str]) -> list[dict]:
    """Rows of the metrics table: each label's requests, failures, avg/min/max (s), rate (1/s), bytes (B)."""
    by_label: dict[str, list[dict]] = {}
    for s in samples:
        by_label.setdefault(s.get("label") or "", []).append(s)
    out: list[dict] = []
    for label, rows in by_label.items():
        lat = [r["latency_s"] for r in rows if "latency_s" in r]
        items: list[tuple[str, float | None, str]] = [("requests", len(rows), "")]
        if "success" in have:
            items.append(("failures", sum(1 for r in rows if not r["success"]), ""))
        if lat:
            items += [("avg", sum(lat) / len(lat), "s"), ("min", min(lat), "s"), ("max", max(lat), "s")]
        span = _span(rows)
        if span:
            items.append(("rate", len(rows) / span, "1/s"))
        if "bytes" in have:
            items.append(("bytes", sum(r.get("bytes", 0.0) for r in rows), "B"))
        out += name_rows(label, items)
    return out


def _span(samples: list[dict]) -> float | None:
    """Seconds from the first start to the last end, None without start times."""
    timed = [s for s in samples if "start_ms" in s]
    if not timed:
        return None
    first = min(s["start_ms"] for s in timed)
    last = max(s["start_ms"] + s.get("latency_s", 0.0) * 1e3 for s in timed)
    return (last - first) / 1e3


def _why(s: dict) -> str:
    """A failed sample's reason in a few words: its failure message, else its code and message."""
    return s.get("error") or f"status {s.get('status')}"


def summarize(samples: list[dict], have: set[str]) -> Parsed:
    """One run and its requests rows from the samples of a JTL file; ``have``: the fields the file holds.

    A sample is a dict of requests columns, plus ``start_ms`` (its start, ms since the epoch).
    """
    samples = sorted(samples, key=lambda s: s.get("start_ms", 0.0)) if "start_ms" in have else list(samples)
    answered = [s for s in samples if s.get("status") != 0] if "status" in have else samples
    run: dict = {"tool": "jmeter", "line": 1, "requests_attempted": len(samples)}
    _counts(run, samples, answered, have)
    lat = [s["latency_s"] for s in answered if "latency_s" in s]
    if lat:
        run.update(latency_mean_s=sum(lat) / len(lat), latency_min_s=min(lat), latency_max_s=max(lat))
    _volumes(run, samples, answered, have)
    threads = [s["threads"] for s in samples if s.get("threads") is not None]
    if threads:
        run["concurrency"] = max(threads)
    urls = {s["url"] for s in samples if s.get("url")}
    if len(urls) == 1:
        run["url"] = urls.pop()
    if "start_ms" in have and samples:
        run["timestamp"] = datetime.fromtimestamp(samples[0]["start_ms"] / 1e3, UTC).replace(tzinfo=None)
    _failures(run, samples, answered, have)
    rows = [_request_row(i, s, samples[0]) for i, s in enumerate(samples)]
    out = Parsed()
    out.add_run(run, requests=rows, metrics=_label_metrics(samples, have))
    return out
