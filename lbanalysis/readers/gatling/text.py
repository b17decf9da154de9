"""Gatling's console output (2.x and 3.x): its progress blocks and the ``Global Information`` at the end.

::

    Simulation TwoRequests started...
    ...
    ---- Requests ------------------------------------------------------------------
    > Global                                                   (OK=30     KO=30    )
    > pages / index                                            (OK=30     KO=0     )
    ...
    Simulation TwoRequests completed in 5 seconds
    ...
    ---- Global Information --------------------------------------------------------
    > request count                                         60 (OK=30     KO=30    )
    > min response time                                      0 (OK=2      KO=0     )
    > max response time                                    426 (OK=426    KO=49    )
    > mean response time                                    20 (OK=34     KO=5     )
    > std deviation                                         71 (OK=97     KO=9     )
    > response time 50th percentile                          3 (OK=5      KO=2     )
    > mean requests/sec                                     10 (OK=5      KO=5     )
    ---- Response Time Distribution ------------------------------------------------
    > t < 800 ms                                            30 ( 50%)
    > 800 ms < t < 1200 ms                                   0 (  0%)
    > t > 1200 ms                                            0 (  0%)
    > failed                                                30 ( 50%)
    ---- Errors --------------------------------------------------------------------
    > status.find.in([200, 209], 304), found 404                         30 (100.0%)

==================================  ===============================================  ======
line                                column                                           unit
==================================  ===============================================  ======
``Simulation X started...``         ``label`` (the simulation)
``completed in N seconds``          ``duration_s``                                   s
``request count`` N (OK= KO=)       ``requests_attempted``, ``requests_ok``,
                                    ``failed`` (KO); ``failed_network``: the KO
                                    whose error says no answer came;
                                    ``requests`` = count - failed_network
``min`` / ``max`` / ``mean``        ``latency_min_s`` / ``_max_s`` / ``_mean_s``     ms
``std deviation``                   ``latency_stdev_s``                              ms
``response time Nth percentile``    percentiles (all requests)                       ms
``mean requests/sec``               ``requests_attempted_per_s``; ``requests_per_s``  1/s
                                    without the requests that got no answer
every figure's OK= and KO=          metrics (metric ``Global Information``, stat
                                    ``count OK``, ``mean KO``, ``p(95) OK`` ...)
``t < 800 ms`` ... ``failed``       metrics (``Response Time Distribution``: the
                                    count, and its share with unit %)
``---- Errors ----`` lines          ``warnings`` (message and count; a message
                                    wrapped at 80 columns is joined);
                                    ``non_2xx``: the KO whose status check found
                                    a status outside 2xx (``found 503``)
last ``> name (OK= KO=)`` block     metrics (metric the request, stat ``OK``, ``KO``)
==================================  ===============================================  ======

A ``-`` (no OK or no KO request) is left empty.

>>> text = ("---- Global Information ----\\n> request count   10 (OK=8      KO=2     )\\n"
...         "> mean response time   5 (OK=4      KO=9     )\\n> mean requests/sec   2.5 (OK=2      KO=0.5   )\\n")
>>> r = parse(Segment(text)).runs[0]
>>> r["requests_attempted"], r["requests_ok"], r["failed"], r["latency_mean_s"], r["requests_attempted_per_s"]
(10, 8, 2, 0.005, 2.5)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...schema import NO_ANSWER
from ...text import Segment
from ..base import Format, LineKind, Parsed, scan, to_float
from .shared import no_answer, non_2xx

__all__ = ["FORMATS", "GLOBAL", "LINE_KINDS", "detect", "parse"]

#: Global Information label -> (column, stat in the metrics table, factor to SI).
GLOBAL: dict[str, tuple[str, str, float]] = {
    "request count": ("requests_attempted", "count", 1.0),
    "min response time": ("latency_min_s", "min", 1e-3),
    "max response time": ("latency_max_s", "max", 1e-3),
    "mean response time": ("latency_mean_s", "mean", 1e-3),
    "std deviation": ("latency_stdev_s", "stddev", 1e-3),
    "mean requests/sec": ("requests_attempted_per_s", "rate", 1.0),
    # Gatling 3.11+: the same figures as a table (Total, OK, KO columns), units in the labels
    "min response time (ms)": ("latency_min_s", "min", 1e-3),
    "max response time (ms)": ("latency_max_s", "max", 1e-3),
    "mean response time (ms)": ("latency_mean_s", "mean", 1e-3),
    "response time std deviation (ms)": ("latency_stdev_s", "stddev", 1e-3),
    "mean throughput (rps)": ("requests_attempted_per_s", "rate", 1.0),
}
_UNITS = {"count": "", "rate": "1/s"}

_STARTED_RE = re.compile(r"^Simulation (\S+) started\.\.\.")
_COMPLETED_RE = re.compile(r"^Simulation (\S+) completed in (\d+) seconds?")
_SECTION_RE = re.compile(r"^---- (.+?) -{3,}(?:\|-+Total-+\|-+OK-+\|-+KO-+)?\s*$")
_GLOBAL_RE = re.compile(
    r"^(?:> )?(request count|min response time|max response time|mean response time|std deviation"
    r"|response time (\d+(?:\.\d+)?)(?:th|st|nd|rd) percentile|mean requests/sec)\s+(\S+) \(OK=(\S+)\s+KO=(\S+)\s*\)"
)
_DISTRIBUTION_RE = re.compile(
    r"^(?:> )?((?:OK: )?(?:\d+ ms <=? )?t [<>]=? \d+ ms|failed|KO)\s+(\d[\d,]*)\s+\(\s*(\d+(?:\.\d+)?)%\)"
)
# Gatling 3.11+: a figure as a table row, 'Total | OK | KO' (thousands separated by commas, '-': none)
_TABLE_RE = re.compile(
    r"^(?:> )?(request count|(?:min|max|mean) response time \(ms\)|response time std deviation \(ms\)"
    r"|response time (\d+(?:\.\d+)?)(?:th|st|nd|rd) percentile \(ms\)|mean throughput \(rps\))"
    r"\s*\|\s*(\S+) \|\s*(\S+) \|\s*(\S+)$"
)
_TABLE_COUNTS_RE = re.compile(r"^(?:> )?(.+?)\s*\|\s*(\d[\d,]*) \|\s*(\d[\d,]*) \|\s*(\d[\d,]*)$")
_COUNTS_RE = re.compile(r"^(?:> )?(.+?)\s+\(OK=(\d+)\s+KO=(\d+)\s*\)$")
_ERROR_RE = re.compile(r"^(?:> )?(.+?)\s+(\d[\d,]*)\s+\(\s*(\d+(?:[.,]\d+)?)%\)$")
_RULE_RE = re.compile(r"^={10,}$")
_ANY_RE = re.compile(r"^(?!>|---- |=+$|\[#|\s+waiting:|\d{4}-\d\d-\d\d )(.+)$")


@dataclass
class _Run:
    line: int
    d: dict = field(default_factory=dict)
    metrics: list[dict] = field(default_factory=list)
    percentiles: list[dict] = field(default_factory=list)
    counts: dict[str, tuple[int, int]] = field(default_factory=dict)
    errors: list[list] = field(default_factory=list)
    has_global: bool = False


@dataclass
class _Reader:
    runs: list[_Run] = field(default_factory=list)
    section: str = ""

    def run_for(self, kind: str, n: int) -> _Run:
        """The run this line belongs to, started here when :func:`_starts_run` says so."""
        if _starts_run(kind, self.runs[-1] if self.runs else None):
            self.runs.append(_Run(n))
        return self.runs[-1]


def _starts_run(kind: str, current: _Run | None) -> bool:
    """The one place that decides where a run starts: ``Simulation X started...``, or a Global Information
    when no run is open or the open one has its own already (a second block pasted).

    >>> _starts_run("started", _Run(1)), _starts_run("global", None), _starts_run("counts", _Run(1))
    (True, True, False)
    """
    return kind == "started" or current is None or (kind == "global" and current.has_global)


def _started(rd: _Reader, n: int, m: re.Match) -> None:
    rd.run_for("started", n).d["label"] = m.group(1)


def _completed(rd: _Reader, n: int, m: re.Match) -> None:
    run = rd.run_for("completed", n)
    run.d.setdefault("label", m.group(1))
    run.d["duration_s"] = float(m.group(2))


def _rule(rd: _Reader, n: int, m: re.Match) -> None:
    rd.section = ""  # a block's end


def _section(rd: _Reader, n: int, m: re.Match) -> None:
    rd.section = m.group(1)
    if rd.section == "Global Information":
        rd.run_for("global", n).has_global = True


def _number(text: str) -> float | None:
    """A figure as printed: ``-`` (none) is None; Gatling 3.11+ separates thousands with commas.

    >>> _number("1,404,879"), _number("7,420.7"), _number("-")
    (1404879.0, 7420.7, None)
    """
    return None if text == "-" else to_float(text.replace(",", ""))


def _global(rd: _Reader, n: int, m: re.Match) -> None:
    _figure(rd.run_for("figure", n), m.group(1), m.group(2), m.group(3), m.group(4), m.group(5))


def _table(rd: _Reader, n: int, m: re.Match) -> None:
    """A row of Gatling 3.11+'s Global Information table."""
    _figure(rd.run_for("figure", n), m.group(1), m.group(2), m.group(3), m.group(4), m.group(5))


def _figure(run: _Run, label: str, pct: str | None, total: str, ok: str, ko: str) -> None:
    """One figure of the Global Information (total, OK, KO as printed) into the run, its metrics, percentiles."""
    column, stat, factor = GLOBAL.get(label, ("", f"p({pct})", 1e-3))
    unit = _UNITS.get(stat, "s")
    for value, suffix in ((total, ""), (ok, " OK"), (ko, " KO")):
        v = _number(value)
        if v is None:
            continue
        v *= factor
        run.metrics.append({"metric": "Global Information", "stat": stat + suffix, "value": v, "unit": unit})
        if suffix:
            continue
        if pct:
            run.percentiles.append({"percentile": float(pct), "latency_s": v})
        else:
            run.d[column] = round(v) if stat == "count" else v
            if stat == "count":  # a count of none ('-': Gatling 3.11+ prints it for no KO) is 0
                run.d["requests_ok"] = round(_number(ok) or 0) if ok == "-" or _number(ok) is not None else None
                run.d["failed"] = round(_number(ko) or 0) if ko == "-" or _number(ko) is not None else None


def _distribution(rd: _Reader, n: int, m: re.Match) -> None:
    run = rd.run_for("figure", n)
    name = " ".join(m.group(1).split())
    count = float(m.group(2).replace(",", ""))
    run.metrics.append({"metric": "Response Time Distribution", "stat": name, "value": count, "unit": ""})
    run.metrics.append({"metric": "Response Time Distribution", "stat": f"{name} %", "value": float(m.group(3)),
                        "unit": "%"})  # fmt: skip


def _counts(rd: _Reader, n: int, m: re.Match) -> bool | None:
    """A request's OK and KO counts in a progress block (``(OK=5 KO=0)``; 3.11+: ``| total | OK | KO``)."""
    if rd.section != "Requests":
        return False
    run = rd.run_for("counts", n)
    if m.group(1) != "Global":
        ok, ko = m.groups()[-2:]
        run.counts[m.group(1)] = (int(ok.replace(",", "")), int(ko.replace(",", "")))
    return None


def _error(rd: _Reader, n: int, m: re.Match) -> bool | None:
    if rd.section != "Errors":
        return False
    run = rd.run_for("error", n)
    if not run.has_global:
        return None  # an error table of a progress block: the final one is the run's
    run.errors.append([m.group(1), int(m.group(2).replace(",", ""))])
    return None


def _continued(rd: _Reader, n: int, m: re.Match) -> bool | None:
    """A line of an error message wrapped at 80 columns (the count stands on the first line)."""
    if rd.section != "Errors" or not rd.runs or not rd.runs[-1].errors:
        return False
    rd.runs[-1].errors[-1][0] += m.group(1).strip()
    return None


#: The lines Gatling prints, in the order they are tried (first match wins; see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("started", "Simulation ", _STARTED_RE, _started),
    LineKind("completed", " completed in ", _COMPLETED_RE, _completed),
    LineKind("section", "---- ", _SECTION_RE, _section),
    LineKind("rule", "====", _RULE_RE, _rule),
    LineKind("figure", "(OK=", _GLOBAL_RE, _global),
    LineKind("table", " |", _TABLE_RE, _table),
    LineKind("table_counts", " |", _TABLE_COUNTS_RE, _counts),
    LineKind("distribution", "%)", _DISTRIBUTION_RE, _distribution),
    LineKind("counts", "(OK=", _COUNTS_RE, _counts),
    LineKind("error", "%)", _ERROR_RE, _error),
    LineKind("continued", "", _ANY_RE, _continued),
]


def _row(r: _Run) -> dict:
    d = {"tool": "gatling", **r.d}
    errors = {msg: count for msg, count in r.errors}
    lost = sum(c for msg, c in errors.items() if no_answer(msg))
    attempted = d.get("requests_attempted")
    if attempted is not None:
        d["failed_network"] = lost
        if errors or d.get("failed") == 0:  # the Errors table shows the KO's messages (none: no KO)
            d["non_2xx"] = non_2xx(errors)
        d["requests"] = attempted - lost
        rate = d.get("requests_attempted_per_s")
        if rate is not None and attempted:
            d["requests_per_s"] = rate * d["requests"] / attempted
    if errors:
        text = "; ".join(f"{msg} (x{c})" for msg, c in errors.items())
        if attempted is not None and lost >= attempted:
            d["error"], d["error_kind"] = text, NO_ANSWER
            for k in ("latency_min_s", "latency_max_s", "latency_mean_s", "latency_stdev_s"):
                d.pop(k, None)  # the times of attempts that got no answer
        else:
            d["warnings"] = text
    return d


def parse(seg: Segment) -> Parsed:
    """Read every Gatling run in a segment (its Global Information, progress blocks and errors)."""
    out = Parsed()
    for run in scan(seg.text, LINE_KINDS, _Reader()).runs:
        if not run.has_global and "duration_s" not in run.d:
            continue  # progress only: the run was cut off before its end
        metrics = run.metrics + [
            {"metric": name, "stat": kind, "value": float(v), "unit": ""}
            for name, (ok, ko) in run.counts.items()
            for kind, v in (("OK", ok), ("KO", ko))
        ]
        percentiles = run.percentiles if not _row(run).get("error") else []
        out.add_run({**_row(run), "line": run.line}, metrics=metrics, percentiles=percentiles)
    return out


_DETECT_RE = re.compile(
    r"^(?:---- Global Information -+(?:\|-+Total-+\|-+OK-+\|-+KO-+)?|Simulation \S+ started\.\.\.)\s*$", re.M
)


def detect(text: str) -> bool:
    """True for Gatling's console output.

    >>> detect("Simulation OneRequest started...\\n"), detect("Summary:\\n")
    (True, False)
    """
    return ("Global Information" in text or "Simulation " in text) and bool(_DETECT_RE.search(text))


FORMATS = [
    Format(
        "gatling",
        "gatling",
        detect,
        parse,
        description="Gatling console (Global Information: counts OK/KO, times, percentiles, rate; distribution; errors)",
    )
]
