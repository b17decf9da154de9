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

__all__ = ["COLUMNS", "FORMATS", "HEADER", "detect", "parse"]

HEADER = "response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset"
# CSV column -> requests column (None: not kept)
COLUMNS: dict[str, str | None] = {
    "response-time": "latency_s",
    "DNS+dialup": "connect_s",
    "DNS": "dns_s",
    "Request-write": "write_s",
    "Response-delay": "waiting_s",
    "Response-read": "read_s",
    "status-code": "status",
    "offset": "start_s",
}


def detect(text: str) -> bool:
    """True when the first line is hey's CSV header.

    >>> detect(HEADER + "\\n"), detect("a,b\\n")
    (True, False)
    """
    return text.lstrip("\ufeff").split("\n", 1)[0].strip() == HEADER


def _value(col: str, raw: str, source: str, line: int) -> float | int:
    try:
        return int(raw) if col == "status" else float(raw)
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
        if len(fields) != len(COLUMNS):
            raise ParseError(f"expected {len(COLUMNS)} fields, found {len(fields)}", source=seg.source, line=n,
                             text=",".join(fields))  # fmt: skip
        row = {col: _value(col, raw.strip(), seg.source, n) for (name, col), raw in zip(COLUMNS.items(), fields,
               strict=True) if col is not None}  # fmt: skip
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
