"""vegeta ``report`` text: the default report, ``-type=hist[...]`` and ``-type=hdrplot``.

vegeta v12.13.0 prints (``vegeta report results.bin``)::

    Requests      [total, rate, throughput]         20, 21.05, 0.00
    Duration      [total, attack, wait]             950.74ms, 950.231ms, 509.244µs
    Latencies     [min, mean, 50, 90, 95, 99, max]  272.358µs, 405.329µs, 348.067µs, 584.347µs, …
    Bytes In      [total, mean]                     0, 0.00
    Bytes Out     [total, mean]                     0, 0.00
    Success       [ratio]                           0.00%
    Status Codes  [code:count]                      0:20
    Error Set:
    Get "http://127.0.0.1:18899/": dial tcp 0.0.0.0:0->127.0.0.1:18899: connect: connection refused

and ``vegeta report -type='hist[0,1ms,5ms]'``::

    Bucket         #   %       Histogram
    [0s,    1ms]   30  30.00%  ######################
    [1ms,   5ms]   0   0.00%
    [5ms,   +Inf]  70  70.00%  ####################################################

Each row names its fields in brackets, and the fields changed over the
years (``[total]``, ``[total, rate]``, ``[mean, 50, 95, 99, max]``,
``[min, mean, 50, 90, 95, 99, max]``): the reader maps every field by its
name (:data:`FIELDS`), so each layout reads the same way.

=============================  =====================================  ==============
row [field]                    column                                 unit
=============================  =====================================  ==============
Requests [total]               ``requests_attempted``: ``requests``   count
                               + ``failed_network`` (see ``shared``)
Requests [rate]                ``rate_sent_per_s``                    1/s
Requests [throughput]          ``requests_ok_per_s`` (200-399 only)   1/s
Duration [total, attack,       ``duration_s``, ``send_duration_s``,   Go durations
wait]                          ``wait_s``                             (``1m0.5s``)
Latencies [min, mean, max]     ``latency_min_s``, ``_mean_s``,        Go durations
                               ``_max_s``
Latencies [50, 90, 95, 99]     percentiles table                      Go durations
Bytes In [total, mean]         ``bytes_total``, ``bytes_per_request`` B (bodies)
Bytes Out [total, mean]        ``bytes_sent``,                        B (bodies)
                               ``bytes_sent_per_request``
Success [ratio]                ``success_pct``                        %
Status Codes [code:count]      ``status_codes``, counts               count
Error Set                      ``error`` / ``warnings``
hist ``[low, high] # %``       percentiles table: the share at or     Go durations
                               below each finite upper bound, with
                               its ``count``
hdrplot ``Value(ms)            percentiles table at full resolution   ms, fraction
Percentile TotalCount``        (``percentile`` × 100, ``count``)
=============================  =====================================  ==============

When no response came, the latencies are those of the failed attempts and
are not kept either (as for hey). The bytes are the bodies vegeta read, at
most ``-max-body`` of each. The rate asked for (``-rate``) and the time
limit (``-duration``) come from the command line (``echo 'GET url' | vegeta
attack -rate=50 -duration=2s | vegeta report``) into ``rate_target_per_s``
and ``time_limit_s``; ``-rate=0 -max-workers=N`` (no rate: N workers as
fast as they go) gives ``concurrency``.

>>> p = parse(Segment("Requests      [total, rate, throughput]  10, 11.15, 4.49\\n"
...                   "Duration      [total, attack, wait]      1.114s, 896.586ms, 217.377ms\\n"
...                   "Status Codes  [code:count]               0:5  200:5\\n"))
>>> r = p.runs[0]
>>> r["requests"], r["failed_network"], r["requests_ok"], r["requests_per_s"], r["send_duration_s"]
(5, 5, 5, 4.49, 0.896586)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...errors import ParseError
from ...text import Segment
from ..base import NO_RESULT_SHOWN, Format, LineKind, Parsed, error_row, scan, to_float, to_int
from . import shared

__all__ = ["FIELDS", "FORMATS", "LINES", "LINE_KINDS", "detect", "parse"]

# ------------------------------------------------------------ the format ---
# row -> field -> (column, kind); kind: "count", "number", "duration", "pct"; None: not kept
FIELDS: dict[str, dict[str, tuple[str, str] | None]] = {
    "Requests": {"total": ("_total", "count"), "rate": ("rate_sent_per_s", "number"),
                 "throughput": ("_throughput", "number")},
    "Duration": {"total": ("duration_s", "duration"), "attack": ("send_duration_s", "duration"),
                 "wait": ("wait_s", "duration")},
    "Latencies": {"min": ("latency_min_s", "duration"), "mean": ("latency_mean_s", "duration"),
                  "max": ("latency_max_s", "duration")},  # a number: that percentile
    "Bytes In": {"total": ("bytes_total", "number"), "mean": ("bytes_per_request", "number")},
    "Bytes Out": {"total": ("bytes_sent", "number"), "mean": ("bytes_sent_per_request", "number")},
    "Success": {"ratio": ("_success", "pct")},
}  # fmt: skip

_CODE_RE = re.compile(r"(\d+):(\d+)")


@dataclass
class _Run:
    """One report (or histogram) being read."""

    line: int
    d: dict = field(default_factory=dict)
    rows: set[str] = field(default_factory=set)
    codes: dict[int, int] | None = None
    percentiles: list[dict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    in_errors: bool = False
    hist_total: int = 0


@dataclass
class _Reader:
    """The reports of one segment, and the segment (for the file and line of a bad value)."""

    seg: Segment
    runs: list[_Run] = field(default_factory=list)
    before: list[str] = field(default_factory=list)  # an error set printed before any report (an excerpt)
    in_before: bool = False

    def where(self, n: int) -> tuple[str, int]:
        """The file and line of the segment's line ``n``."""
        return self.seg.source, self.seg.line - 1 + n

    def run_for(self, kind: str, n: int, m: re.Match) -> _Run | None:
        """The run a line of this kind belongs to, started here when :func:`_starts_run` says so (``None``
        before the first report: such lines belong to no run shown); a line a kind reads ends an error set."""
        if _starts_run(self.runs[-1] if self.runs else None, kind, m):
            self.runs.append(_Run(n))
        self.in_before = False
        if not self.runs:
            return None
        r = self.runs[-1]
        r.in_errors = False
        return r

    def end_errors(self, n: int, line: str) -> str:
        """A blank line or a code fence ends an error set (lines are prepared here: blank ones too)."""
        r = self.runs[-1] if self.runs else None
        if not line.strip() or line.lstrip().startswith(("```", "~~~")):
            self.in_before = False
            if r is not None:
                r.in_errors = False
        return line

    def error_line(self, n: int, line: str) -> None:
        """A line no kind reads: one of the error set's messages while it lasts."""
        r = self.runs[-1] if self.runs else None
        if r is not None and r.in_errors:
            r.errors.append(line.strip())
        elif r is None and self.in_before:
            self.before.append(line.strip())


def _value(kind: str, text: str, where: tuple[str, int]) -> float | int | None:
    v: float | int | None
    if kind == "duration":
        v = shared.go_duration(text)
    elif kind == "count":
        v = to_int(text) if re.fullmatch(r"\d+", text) else None
    else:
        v = to_float(text.rstrip("%")) if re.fullmatch(r"[-+]?[\d.]+%?|NaN|[+-]?Inf", text) else None
    if v is None:
        raise ParseError(f"not a vegeta value: {text!r}", source=where[0], line=where[1], text=text)
    return v


def _row(rd: _Reader, n: int, m: re.Match) -> None:
    r, where = rd.run_for("row", n, m), rd.where(n)
    if r is None:
        return
    name, labels = m.group(1), [x.strip() for x in m.group(2).split(",")]
    values = [v for v in re.split(r"[,\s]+", m.group(3)) if v]
    if len(values) != len(labels):
        raise ParseError(f"{name}: {len(labels)} fields named, {len(values)} values", source=where[0],
                         line=where[1], text=m.group(0))  # fmt: skip
    r.rows.add(name)
    for label, raw in zip(labels, values, strict=True):
        if name == "Latencies" and re.fullmatch(r"\d+(?:\.\d+)?", label):
            r.percentiles.append({"percentile": float(label), "latency_s": _value("duration", raw, where)})
            continue
        spec = FIELDS[name].get(label)
        if spec is not None:
            r.d[spec[0]] = _value(spec[1], raw, where)


def _status_codes(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("status_codes", n, m)
    if r is None:
        return
    r.rows.add("Status Codes")
    r.codes = {int(c): int(k) for c, k in _CODE_RE.findall(m.group(1))}


def _error_set(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("error_set", n, m)
    if r is None:
        rd.in_before = True
        return
    r.in_errors = True


def _hist_header(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("hist_header", n, m)
    if r is None:
        return
    r.rows.add("Bucket")


def _bucket(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("bucket", n, m)
    if r is None:
        return
    r.hist_total += int(m.group(3))
    high = m.group(2).strip()
    if high == "+Inf":
        return
    r.percentiles.append({"latency_s": _value("duration", high, rd.where(n)), "count": r.hist_total})


def _hdrplot_header(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("hdrplot_header", n, m)
    if r is None:
        return
    r.rows.add("HdrPlot")


def _hdrplot_row(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("hdrplot_row", n, m)
    if r is not None and "HdrPlot" in r.rows:
        r.percentiles.append({"percentile": float(m.group(2)) * 100.0, "latency_s": float(m.group(1)) / 1e3,
                              "count": int(m.group(3))})  # fmt: skip


#: The lines vegeta prints, in the order they are tried (first match wins; see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("row", "[", re.compile(r"^\s*(" + "|".join(FIELDS) + r")\s+\[([^\]]*)\]\s+(\S.*?)\s*$"), _row),
    LineKind("status_codes", "Status Codes", re.compile(r"^\s*Status Codes\s+\[code:count\]\s*(.*?)\s*$"), _status_codes),
    LineKind("error_set", "Error Set:", re.compile(r"^\s*Error Set:\s*$"), _error_set),
    LineKind("hist_header", "Histogram", re.compile(r"^\s*Bucket\s+#\s+%\s+Histogram\s*$"), _hist_header),
    LineKind("bucket", "%", re.compile(r"^\s*\[([^,\]]+),\s*([^\]]+?)\]\s+(\d+)\s+([\d.]+)%"), _bucket),
    LineKind("hdrplot_header", "Value(ms)", re.compile(r"^\s*Value\(ms\)\s+Percentile\s+TotalCount\s+1/\(1-Percentile\)\s*$"), _hdrplot_header),
    LineKind("hdrplot_row", ".", re.compile(r"^\s*(\d+(?:\.\d+)?)\s+([01]\.\d+)\s+(\d+)\s+\S+\s*$"), _hdrplot_row),
]  # fmt: skip
#: Line kind -> pattern (kept for code that reads it; the grammar is :data:`LINE_KINDS`).
LINES: dict[str, re.Pattern] = {k.name: k.pattern for k in LINE_KINDS}


# ----------------------------------------------------------------- reader ---
def _starts_run(r: _Run | None, kind: str, m: re.Match) -> bool:
    """The one place that decides where a run starts: a ``Requests`` row or a histogram header, or a row
    the current run already has (the first of the next report)."""
    if r is None or kind in ("hist_header", "hdrplot_header"):
        return kind in ("row", "status_codes", "hist_header", "hdrplot_header")
    if kind == "hdrplot_row":
        return False
    name = m.group(1) if kind == "row" else "Status Codes" if kind == "status_codes" else None
    return name == "Requests" or name in r.rows


def _row_of(r: _Run) -> dict:
    d = {k: v for k, v in r.d.items() if not k.startswith("_")}
    if "HdrPlot" in r.rows:
        return d
    if "Bucket" in r.rows:
        total = r.hist_total
        for p in r.percentiles:
            p["percentile"] = 100.0 * p["count"] / total if total else None
        return d
    success = r.d.get("_success")
    d.update(shared.count_fields(r.d.get("_total"), r.codes, None if success is None else success / 100.0, 1e-4))
    if success is not None:
        d["success_pct"] = success
    if r.d.get("_throughput") is not None:
        d["requests_ok_per_s"] = r.d["_throughput"]
    shared.rates(d, r.d.get("_throughput"))
    if d.get("requests") == 0:  # the times and means of attempts that got no answer
        for k in ("bytes_per_request", "latency_mean_s", "latency_min_s", "latency_max_s"):
            d.pop(k, None)
        r.percentiles = []
    shared.messages(d, r.errors)
    return d


def parse(seg: Segment) -> Parsed:
    """Read every vegeta report and histogram in a segment."""
    cmd = shared.parse_command(seg.command) if seg.command else {}
    out = Parsed()
    rd = _Reader(seg)
    runs = scan(seg.text, LINE_KINDS, rd, prepare=rd.end_errors, other=rd.error_line).runs
    for r in runs:
        out.add_run({**cmd, **_row_of(r), "line": r.line}, percentiles=r.percentiles)
    if not runs and rd.before:  # only an error set: the attack's requests got no answer worth a report
        out.add_run(
            error_row(
                "vegeta",
                "no report, only its error set: " + "; ".join(dict.fromkeys(rd.before)),
                NO_RESULT_SHOWN,
                **cmd,
            )
        )
    elif not runs and seg.command:
        out.add_run(error_row("vegeta", "no output after the command", **cmd))
    return out


_DETECT_RE = re.compile(
    r"^\s*(?:(?:Requests|Duration|Latencies)\s+\[(?:total|min|mean)\b[^\]\n]*\]\s+\d|Bucket\s+#\s+%\s+Histogram\s*$"
    r"|Value\(ms\)\s+Percentile\s+TotalCount\s)",
    re.M,
)


def detect(text: str) -> bool:
    """True for a vegeta text report or histogram.

    >>> detect("Requests      [total, rate]            6000, 200.03\\n"), detect("Requests/sec: 5\\n")
    (True, False)
    """
    return ("[" in text or "Value(ms)" in text) and _DETECT_RE.search(text) is not None


FORMATS = [
    Format("vegeta", "vegeta", detect, parse, description="vegeta report text (every layout), -type=hist and hdrplot")
]
