"""Locust's ``--csv PREFIX`` files: ``_stats.csv``, ``_stats_history.csv``, ``_failures.csv``, ``_exceptions.csv``.

``PREFIX_stats.csv`` (one row per request name, then ``Aggregated``; times in ms)::

    Type,Name,Request Count,Failure Count,Median Response Time,Average Response Time,Min Response Time,
    Max Response Time,Average Content Size,Requests/s,Failures/s,50%,66%,75%,80%,90%,95%,98%,99%,99.9%,99.99%,100%
    ,Aggregated,1473,0,1,5.1239,0.4401,119.6346,177.0,739.8403,0.0,1,4,7,8,12,15,22,42,110,120,120

``PREFIX_stats_history.csv`` (a row a second: users, the current rates and
percentiles, the totals so far; with ``--csv-full-history`` a row per name too)::

    Timestamp,User Count,Type,Name,Requests/s,Failures/s,50%,…,100%,Total Request Count,Total Failure Count,
    Total Median Response Time,Total Average Response Time,Total Min Response Time,Total Max Response Time,
    Total Average Content Size

``PREFIX_failures.csv``: ``Method,Name,Error,Occurrences[,First Seen,Last Seen]``;
``PREFIX_exceptions.csv``: ``Count,Message,Traceback,Nodes``.

The four files are one test. ``_stats.csv`` is its run (the ``Aggregated``
row; the percentiles are whole milliseconds), completed from the files
beside it when they are there: the failures tell the requests that got no
response (counted by Locust in ``Request Count``; ``requests`` are
responses, see :func:`lbanalysis.readers.locust.text.error_kind`), the
exceptions give ``exceptions``, the history gives the intervals table (one
row a second: ``users``, ``requests_per_s``, ``failures_per_s``; ``stream``
is ``Aggregated`` or the request name). ``Average Content Size`` is
``bytes_per_request`` (response bodies), ``bytes_total`` is it times the
requests; ``Requests/s`` covers every request, failures included, from the
first to the last (``duration_s`` = count / rate). Read alone, the history
is a run of its own (the last totals; users at most as ``concurrency``),
and the failures and exceptions files are listed as not runs (they belong
to the run of their ``_stats.csv``).

Locust rewrites the files every few seconds and once more at the end;
``_stats.csv`` may still lag the printed final table by up to a second of
requests.

>>> p = parse_stats(Segment(STATS_HEADER + "\\n,Aggregated,10,0,1,2.0,0.5,4.0,177.0,5.0,0.0,1,1,2,2,3,3,4,4,4,4,4\\n"))
>>> r = p.runs[0]
>>> r["requests"], r["duration_s"], r["latency_mean_s"], r["bytes_total"]
(10, 2.0, 0.002, 1770.0)
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Callable

from ...errors import ParseError
from ...text import Segment
from ..base import NO_ANSWER, NO_RESULT_SHOWN, Format, Parsed
from ..fields import Field, convert, si_unit
from .text import counts, name_rows

__all__ = ["FORMATS", "HISTORY_HEADER", "STATS_HEADER", "parse_stats"]

STATS_HEADER = (
    "Type,Name,Request Count,Failure Count,Median Response Time,Average Response Time,Min Response Time,"
    "Max Response Time,Average Content Size,Requests/s,Failures/s,50%,66%,75%,80%,90%,95%,98%,99%,99.9%,99.99%,100%"
)
HISTORY_HEADER = "Timestamp,User Count,Type,Name,Requests/s,Failures/s,"
FAILURES_HEADER = "Method,Name,Error,Occurrences"
EXCEPTIONS_HEADER = "Count,Message,Traceback,Nodes"
_PERCENT = re.compile(r"^([\d.]+)%$")


def _rows(seg: Segment) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """Header and (line, row) pairs; a row with another number of fields is a ParseError."""
    reader = csv.reader(io.StringIO(seg.text.lstrip("\ufeff")))
    header = next(reader, [])
    rows = []
    line = 1
    for fields in reader:
        line = reader.line_num
        if not fields or not any(f.strip() for f in fields):
            continue
        if len(fields) != len(header):
            raise ParseError(f"expected {len(header)} fields, found {len(fields)}", source=seg.source, line=line,
                             text=",".join(fields)[:200])  # fmt: skip
        rows.append((line, dict(zip(header, fields, strict=True))))
    return header, rows


def _num(row: dict[str, str], col: str, seg: Segment, line: int) -> float | None:
    v = row.get(col, "").strip()
    if v in ("", "N/A"):
        return None
    try:
        return float(v)
    except ValueError:
        raise ParseError(f"not a number in column {col!r}: {v!r}", source=seg.source, line=line, text=v) from None


def _count(row: dict[str, str], col: str, seg: Segment, line: int) -> int | None:
    v = _num(row, col, seg, line)
    if v is None or v != v or abs(v) >= 2**63:
        return None
    return round(v)


def _aggregated(rows: list[tuple[int, dict[str, str]]]) -> tuple[int, dict[str, str]] | None:
    found = [(n, r) for n, r in rows if r.get("Name") in ("Aggregated", "Total")]
    return found[-1] if found else None


def _percentiles(header: list[str], row: dict[str, str], seg: Segment, line: int) -> list[dict]:
    out = []
    for col in header:
        m = _PERCENT.match(col)
        if m and (v := _num(row, col, seg, line)) is not None:
            out.append({"percentile": float(m.group(1)), "latency_s": v / 1e3})
    return out


def _sibling(source: str, suffix: str) -> str | None:
    """``PREFIX<suffix>`` beside a ``PREFIX_stats.csv`` or ``PREFIX_stats_history.csv`` on disk, else None."""
    m = re.match(r"^(.*)_stats(?:_history)?\.csv$", source)
    if not m:
        return None
    path = m.group(1) + suffix
    return path if os.path.isfile(path) else None


def _read_sibling(path: str, parse: Callable[[Segment], list]) -> list:
    with open(path, encoding="utf-8", errors="replace") as fh:
        return parse(Segment(fh.read(), path, 1))


def _failures(seg: Segment) -> list[tuple[int, str]]:
    _header, rows = _rows(seg)
    return [(_count(r, "Occurrences", seg, n) or 0, r.get("Error", "")) for n, r in rows]


def _exceptions(seg: Segment) -> list[int]:
    _header, rows = _rows(seg)
    return [_count(r, "Count", seg, n) or 0 for n, r in rows]


def _history_intervals(seg: Segment) -> tuple[list[dict], list[tuple[int, dict[str, str]]]]:
    _header, rows = _rows(seg)
    if not rows:
        return [], rows
    first = _num(rows[0][1], "Timestamp", seg, rows[0][0]) or 0.0
    out = []
    for n, r in rows:
        ts = _num(r, "Timestamp", seg, n)
        name = r.get("Name", "")
        stream = name if name in ("Aggregated", "Total") else f"{r.get('Type', '')} {name}".strip()
        row = {"stream": stream, "start_s": None if ts is None else ts - first, "users": _count(r, "User Count", seg, n),
               "requests_per_s": _num(r, "Requests/s", seg, n), "failures_per_s": _num(r, "Failures/s", seg, n)}  # fmt: skip
        out.append({k: v for k, v in row.items() if v is not None})
    return out, rows


def _siblings(seg: Segment, d: dict, reqs: int, fails: int) -> list[dict]:
    """Failures, exceptions and history beside the file: the counts into ``d``, the intervals returned."""
    failures = _sibling(seg.source, "_failures.csv")
    errors = _read_sibling(failures, _failures) if failures else None
    counts(d, reqs, fails, errors if errors is not None or fails == 0 else None)
    if errors:
        d["warnings"] = "; ".join(f"{e} (x{n})" for n, e in errors)
    exceptions = _sibling(seg.source, "_exceptions.csv")
    if exceptions and (n := sum(_read_sibling(exceptions, _exceptions))):
        d["exceptions"] = n
    history = _sibling(seg.source, "_stats_history.csv")
    if history and history != seg.source:
        return _read_sibling(history, lambda s: _history_intervals(s)[0])
    return []


# _stats.csv column -> stat of the metrics table, unit as written (times in ms); the percent columns give p(50) … in s
NAME_FIELDS = (
    Field("Request Count", "requests", "", kind="metrics"),
    Field("Failure Count", "failures", "", kind="metrics"),
    Field("Median Response Time", "med", "ms", kind="metrics"),
    Field("Average Response Time", "avg", "ms", kind="metrics"),
    Field("Min Response Time", "min", "ms", kind="metrics"),
    Field("Max Response Time", "max", "ms", kind="metrics"),
    Field("Average Content Size", "size", "B", kind="metrics"),
    Field("Requests/s", "rate", "req/s", kind="metrics"),
    Field("Failures/s", "failures_rate", "req/s", kind="metrics"),
)


def _name_metrics(header: list[str], rows: list[tuple[int, dict[str, str]]], seg: Segment) -> list[dict]:
    """The rows per request name and ``Aggregated`` as metrics rows (``GET /flaky``, ``avg``, …)."""
    out: list[dict] = []
    for n, r in rows:
        items = [(f.column, convert(v, f.unit), si_unit(f.unit)) for f in NAME_FIELDS
                 if (v := _num(r, f.source, seg, n)) is not None]  # fmt: skip
        items += [(f"p({float(m.group(1)):g})", v / 1e3, "s") for col in header
                  if (m := _PERCENT.match(col)) and (v := _num(r, col, seg, n)) is not None]  # fmt: skip
        out += name_rows(f"{r.get('Type', '')} {r.get('Name', '')}".strip(), items)
    return out


def parse_stats(seg: Segment) -> Parsed:
    """Read ``_stats.csv``: the Aggregated row as the run, its percentiles, the history beside it."""
    header, rows = _rows(seg)
    agg = _aggregated(rows)
    out = Parsed()
    if agg is None:
        raise ParseError("Locust stats CSV without an Aggregated row", source=seg.source, line=1)
    n, r = agg
    reqs, fails = _count(r, "Request Count", seg, n) or 0, _count(r, "Failure Count", seg, n) or 0
    d: dict = {"tool": "locust", "line": n}
    intervals = _siblings(seg, d, reqs, fails)
    size, rate = _num(r, "Average Content Size", seg, n), _num(r, "Requests/s", seg, n)
    if d.get("requests"):
        for col, key in (("Average Response Time", "latency_mean_s"), ("Min Response Time", "latency_min_s"),
                         ("Max Response Time", "latency_max_s")):  # fmt: skip
            if (v := _num(r, col, seg, n)) is not None:
                d[key] = v / 1e3
    if size is not None:
        d["bytes_per_request"], d["bytes_total"] = size, size * reqs
    if rate:
        d["duration_s"] = reqs / rate
        if "requests" in d:
            d["requests_per_s"] = rate if d["requests"] == reqs else d["requests"] / d["duration_s"]
        if "bytes_total" in d:
            d["bytes_per_s"] = d["bytes_total"] / d["duration_s"]
    users = [iv["users"] for iv in intervals if "users" in iv]
    if users:
        d["concurrency"] = max(users)
    if reqs == 0:
        d["error"], d["error_kind"] = "no request was made", NO_RESULT_SHOWN
    elif d.get("requests") == 0:
        d["error"] = "no response: " + d.pop("warnings", "every request failed without a response")
        d["error_kind"] = NO_ANSWER
    pct = _percentiles(header, r, seg, n) if d.get("requests") else []
    out.add_run(d, percentiles=pct, intervals=intervals if seg.wants("intervals") else [],
                metrics=_name_metrics(header, rows, seg))  # fmt: skip
    return out


def parse_history(seg: Segment) -> Parsed:
    """Read ``_stats_history.csv``: a not-run when its ``_stats.csv`` is beside it, else a run of its own."""
    out = Parsed()
    stats = _sibling(seg.source, "_stats.csv")
    intervals, rows = _history_intervals(seg)
    if stats:
        out.not_runs.append(
            {"line": 1, "tool": "locust", "command": None, "kind": f"history of {os.path.basename(stats)}"}
        )
        return out
    agg = [(n, r) for n, r in rows if r.get("Name") in ("Aggregated", "Total")]
    if not agg:
        raise ParseError("Locust stats history CSV without an Aggregated row", source=seg.source, line=1)
    n, r = agg[-1]
    reqs = _count(r, "Total Request Count", seg, n) or 0
    fails = _count(r, "Total Failure Count", seg, n) or 0
    d: dict = {"tool": "locust", "line": n}
    counts(d, reqs, fails, None)
    if d.get("requests"):
        for col, key in (("Total Average Response Time", "latency_mean_s"), ("Total Min Response Time",
                         "latency_min_s"), ("Total Max Response Time", "latency_max_s")):  # fmt: skip
            if (v := _num(r, col, seg, n)) is not None:
                d[key] = v / 1e3
    if (size := _num(r, "Total Average Content Size", seg, n)) is not None:
        d["bytes_per_request"], d["bytes_total"] = size, size * reqs
    users = [iv["users"] for iv in intervals if "users" in iv]
    if users:
        d["concurrency"] = max(users)
    if reqs == 0:
        d["error"], d["error_kind"] = "no request was made", NO_RESULT_SHOWN
    out.add_run(d, intervals=intervals)
    return out


def _part_of_run(what: str) -> Callable[[Segment], Parsed]:
    def parse(seg: Segment) -> Parsed:
        _rows(seg)  # a broken file is still an error
        out = Parsed()
        out.not_runs.append(
            {"line": 1, "tool": "locust", "command": None, "kind": f"Locust {what} (part of a --csv run)"}
        )
        return out

    parse.__doc__ = f"Check a Locust {what} CSV and list it as part of its run (not a run)."
    return parse


def _starts(header: str) -> Callable[[str], bool]:
    def detect(text: str) -> bool:
        return text.lstrip("\ufeff").startswith(header)

    detect.__doc__ = f"True when the file starts with ``{header}``."
    return detect


FORMATS = [
    Format("locust-stats-csv", "locust", _starts("Type,Name,Request Count,Failure Count,"), parse_stats,
           whole_file=True, description="Locust --csv PREFIX_stats.csv (with the files beside it)"),
    Format("locust-history-csv", "locust", _starts(HISTORY_HEADER), parse_history, whole_file=True,
           description="Locust --csv PREFIX_stats_history.csv"),
    Format("locust-failures-csv", "locust", _starts(FAILURES_HEADER), _part_of_run("failures"), whole_file=True,
           description="Locust --csv PREFIX_failures.csv (read with its _stats.csv)"),
    Format("locust-exceptions-csv", "locust", _starts(EXCEPTIONS_HEADER), _part_of_run("exceptions"),
           whole_file=True, description="Locust --csv PREFIX_exceptions.csv (read with its _stats.csv)"),
]  # fmt: skip
