"""hey's per-request CSV (``hey -o csv``): one row per request into the requests table.

::

    response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset
    0.0018,0.0001,0.0000,0.0001,0.0015,0.0001,200,0.0009

Every time is in seconds; ``offset`` is when the request started, from the
start of the test. Requests that failed (no response) are not written by
hey, so the file holds responses only. The run row sums them up: requests,
2xx, non-2xx, mean/min/max latency and the span of the offsets.

=================  ==============================  =====
CSV column         requests column                 unit
=================  ==============================  =====
response-time      ``latency_s``                   s
DNS+dialup         ``connect_s``                   s
DNS                ``dns_s`` (part of DNS+dialup)  s
Request-write      ``write_s``                     s
Response-delay     ``waiting_s``                   s
Response-read      ``read_s``                      s
status-code        ``status``
offset             ``start_s``                     s
=================  ==============================  =====

>>> p = parse(Segment(HEADER + "\\n0.0018,0.0001,0.0000,0.0001,0.0015,0.0001,200,0.0009\\n"))
>>> p.runs[0]["requests"], p.tables["requests"][0]["latency_s"], p.tables["requests"][0]["status"]
(1, 0.0018, 200)
"""

from __future__ import annotations

import csv
import io

from ...errors import ParseError
from ...text import Segment
from ..base import NO_ANSWER, Format, Parsed
from ..fields import Field, convert

__all__ = ["COLUMNS", "FIELDS", "FORMATS", "HEADER", "detect", "parse"]

HEADER = "response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset"
# CSV header -> requests column, unit as written (every time in seconds); in the CSV's order
FIELDS = (
    Field("response-time", "latency_s", "s", kind="requests"),
    Field("DNS+dialup", "connect_s", "s", kind="requests"),
    Field("DNS", "dns_s", "s", kind="requests"),
    Field("Request-write", "write_s", "s", kind="requests"),
    Field("Response-delay", "waiting_s", "s", kind="requests"),
    Field("Response-read", "read_s", "s", kind="requests"),
    Field("status-code", "status", kind="requests", cast=int),
    Field("offset", "start_s", "s", kind="requests"),
)
# CSV column -> requests column (the table above, by header)
COLUMNS: dict[str, str | None] = {f.source: f.column for f in FIELDS}


def detect(text: str) -> bool:
    """True when the first line is hey's CSV header.

    >>> detect(HEADER + "\\n"), detect("a,b\\n")
    (True, False)
    """
    return text.lstrip("\ufeff").split("\n", 1)[0].strip() == HEADER


def _value(f: Field, raw: str, source: str, line: int) -> float | int:
    col = f.column
    try:
        return f.cast(raw) if f.cast else convert(float(raw), f.unit)
    except ValueError:
        raise ParseError(f"not a number in column {col!r}: {raw!r}", source=source, line=line, text=raw) from None


def parse(seg: Segment) -> Parsed:
    """Read a hey CSV: one run, one requests row per line (in start order)."""
    reader = csv.reader(io.StringIO(seg.text.lstrip("\ufeff")))
    next(reader, None)
    rows = []
    for n, fields in enumerate(reader, 2):
        if not fields or not any(f.strip() for f in fields):
            continue
        if len(fields) != len(FIELDS):
            raise ParseError(f"expected {len(FIELDS)} fields, found {len(fields)}", source=seg.source, line=n,
                             text=",".join(fields))  # fmt: skip
        row = {f.column: _value(f, raw.strip(), seg.source, n) for f, raw in zip(FIELDS, fields, strict=True)}
        rows.append(row)
    rows.sort(key=lambda r: r["start_s"])
    for i, r in enumerate(rows):
        r["seq"] = i
    lat = [r["latency_s"] for r in rows]
    ok = sum(1 for r in rows if 200 <= r["status"] < 300)
    run = {"tool": "hey", "requests": len(rows), "requests_ok": ok, "non_2xx": len(rows) - ok, "line": 1}
    if rows:
        span = max(r["start_s"] + r["latency_s"] for r in rows) - min(r["start_s"] for r in rows)
        run.update(latency_mean_s=sum(lat) / len(lat), latency_min_s=min(lat), latency_max_s=max(lat), duration_s=span)
    else:
        run["error"], run["error_kind"] = "no request in the CSV (hey writes responses only)", NO_ANSWER
    out = Parsed()
    out.add_run(run, requests=rows)
    return out


FORMATS = [Format("hey-csv", "hey", detect, parse, whole_file=True, description="hey -o csv per-request CSV")]
