"""Taurus (``bzt``) final stats: what its ``final-stats`` reporter logs when a test ends.

Taurus runs another tool (its *executor*: JMeter, Gatling, Locust, ab…),
reads that tool's results and logs its own summary of them; the summary
does not name the executor, so its runs are Taurus's (``tool`` taurus).
Taurus 1.16 (``bzt/modules/reporting.py``, ``FinalStatus``) logs::

    21:20:29 INFO: Test duration: 0:01:32
    21:20:29 INFO: Samples count: 4404, 0.00% failures
    21:20:29 INFO: Average times: total 0.388, latency 0.345, connect 0.000
    21:20:29 INFO: Percentiles:
    +---------------+---------------+
    | Percentile, % | Resp. Time, s |
    +---------------+---------------+
    |           0.0 |         0.074 |
    |          95.0 |         0.778 |
    |         100.0 |         1.015 |
    +---------------+---------------+
    21:20:29 INFO: Request label stats:
    +-------+--------+---------+--------+-------+
    | label | status |    succ | avg_rt | error |
    +-------+--------+---------+--------+-------+
    | home  |   OK   | 100.00% |  0.388 |       |
    +-------+--------+---------+--------+-------+

(on a terminal the tables are drawn with ``│ ─ ┌``); before the tables (the
documented example) each percentile had its line, ``Percentile  95.0%: 1.946``.
Two final-stats reporters in a config log the same stats twice: read once,
the run says so in ``warnings``.

==============================  ================================================  =====
line                            column                                            unit
==============================  ================================================  =====
``Test duration: H:MM:SS``      ``duration_s`` (Taurus's whole test, its tools'   s
                                start included: no rate is derived from it)
``Samples count: N, P%          ``requests_attempted``; ``success_pct`` = 100 - P;
failures``                      ``failed`` = N × P / 100 where that count is the
                                only one P rounds to (N < 10,000); with no
                                failure, ``requests`` and ``requests_ok`` = N
``Average times: total``        ``latency_mean_s``; phases table: ``first byte``  s
``latency`` ``connect``         (JMeter's latency), ``connect`` (``mean_s``)
percentiles (lines or table)    percentiles table; 0 and 100: ``latency_min_s``,  s
                                ``latency_max_s``
``Request label stats`` rows    metrics table (metric the label, stat ``succ``
                                (%) and ``avg_rt`` (s)); a label's errors in
                                ``warnings``
``Current: N vu …`` (progress)  ``concurrency``: the most users of a second
``Taurus CLI Tool vX``          ``tool_version``
==============================  ================================================  =====

>>> r = parse(Segment("Samples count: 367, 8.17% failures\\nAverage times: total 0.385, latency 0.115, "
...                   "connect 0.000\\n")).runs[0]
>>> r["requests_attempted"], r["failed"], r["success_pct"], r["latency_mean_s"]
(367, 30, 91.83, 0.385)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...text import Segment
from ..base import Format, LineKind, Parsed, scan, to_float

__all__ = ["FORMATS", "LINE_KINDS", "detect", "parse"]

#: The time and level Taurus's console log puts before each line (``21:20:29 INFO: ``; bzt.log's
#: ``[2024-01-02 21:20:29,123 INFO bzt.modules.reporting] ``).
_LOG_RE = re.compile(r"^(?:(?:\d\d:\d\d:\d\d )?(?:INFO|WARNING): |\[\d{4}-\d\d-\d\d [\d:,]+ [A-Z]+ [\w.]+\] )")
_DURATION_RE = re.compile(r"^Test duration: (?:(\d+) days?, )?(\d+):(\d\d):(\d\d)$")
_SAMPLES_RE = re.compile(r"^Samples count: (\d+), (\d+(?:\.\d+)?)% failures$")
_AVERAGES_RE = re.compile(r"^Average times: total (\d+\.\d+), latency (\d+\.\d+), connect (\d+\.\d+)$")
_PERCENTILE_RE = re.compile(r"^Percentile +(\d+(?:\.\d+)?)%: (\d+\.\d+)$")
_TABLE_TITLE_RE = re.compile(r"^(Percentiles|Request label stats):$")
_ROW_RE = re.compile(r"^[|│](.*)[|│]$")  # a table row (AsciiTable |, SingleTable │); rules are not rows


@dataclass
class _Reader:
    runs: list[dict] = field(default_factory=list)
    table: str = ""
    percentiles: list[list[dict]] = field(default_factory=list)
    phases: list[list[dict]] = field(default_factory=list)
    metrics: list[list[dict]] = field(default_factory=list)
    errors: list[list[str]] = field(default_factory=list)
    before: dict = field(default_factory=dict)  # what the log shows before the stats: version, users

    def run(self, kind: str, n: int) -> dict:
        """The run a line belongs to: a new one where :func:`_starts_run` says so."""
        if _starts_run(kind, self.runs[-1] if self.runs else None):
            self.runs.append({"tool": "taurus", "line": n, **self.before})
            for part in (self.percentiles, self.phases, self.metrics, self.errors):
                part.append([])
        return self.runs[-1]


def _starts_run(kind: str, current: dict | None) -> bool:
    """The one place deciding where a run starts: the first summary line, or one the open run already has.

    >>> _starts_run("duration", None), _starts_run("samples", {"duration_s": 92.0}), _starts_run("duration", {"a": 1})
    (True, False, False)
    """
    if current is None:
        return True
    key = {"duration": "duration_s", "samples": "requests_attempted", "averages": "latency_mean_s"}.get(kind)
    return key is not None and key in current


def _version(rd: _Reader, n: int, m: re.Match) -> None:
    rd.before = {"tool_version": m.group(1)}


def _current(rd: _Reader, n: int, m: re.Match) -> None:
    """A progress line: the users running that second (the most of them is the run's concurrency)."""
    rd.before["concurrency"] = max(int(m.group(1)), rd.before.get("concurrency", 0))


def _duration(rd: _Reader, n: int, m: re.Match) -> None:
    days, h, mi, s = (int(g) if g else 0 for g in m.groups())
    rd.run("duration", n)["duration_s"] = float(((days * 24 + h) * 60 + mi) * 60 + s)


def _samples(rd: _Reader, n: int, m: re.Match) -> None:
    d = rd.run("samples", n)
    count, pct = int(m.group(1)), float(m.group(2))
    d["requests_attempted"], d["success_pct"] = count, round(100.0 - pct, 2)
    if count < 10_000:  # P is printed to 0.01 %: one count only rounds to it
        d["failed"] = round(count * pct / 100.0)
    if pct == 0:
        d["failed"], d["requests"], d["requests_ok"] = 0, count, count


def _averages(rd: _Reader, n: int, m: re.Match) -> None:
    d = rd.run("averages", n)
    d["latency_mean_s"] = float(m.group(1))
    rd.phases[-1][:] = [{"phase": "first byte", "mean_s": float(m.group(2))},
                        {"phase": "connect", "mean_s": float(m.group(3))}]  # fmt: skip


def _percentile(rd: _Reader, n: int, m: re.Match) -> None:
    _add_percentile(rd, rd.run("percentile", n), float(m.group(1)), float(m.group(2)))


def _add_percentile(rd: _Reader, d: dict, p: float, v: float) -> None:
    rd.percentiles[-1].append({"percentile": p, "latency_s": v})
    if p == 0:
        d["latency_min_s"] = v
    elif p == 100:
        d["latency_max_s"] = v


def _title(rd: _Reader, n: int, m: re.Match) -> None:
    rd.run("table", n)
    rd.table = m.group(1)


def _row(rd: _Reader, n: int, m: re.Match) -> bool | None:
    """A row of the table last titled (its header row is passed over)."""
    if not rd.table or not rd.runs:
        return False
    cells = [c.strip() for c in re.split(r"[|│]", m.group(1))]
    if rd.table == "Percentiles" and len(cells) == 2 and (p := to_float(cells[0])) is not None:
        if (v := to_float(cells[1])) is not None:
            _add_percentile(rd, rd.runs[-1], p, v)
    elif rd.table == "Request label stats" and len(cells) >= 4 and cells[1] in ("OK", "FAIL"):
        succ, avg = to_float(cells[2].rstrip("%")), to_float(cells[3])
        for stat, value, unit in (("succ", succ, "%"), ("avg_rt", avg, "s")):
            if value is not None:
                rd.metrics[-1].append({"metric": cells[0], "stat": stat, "value": value, "unit": unit})
        if len(cells) > 4 and cells[4]:
            rd.errors[-1].append(f"{cells[0]}: {cells[4]}")
    return None


def _rule(rd: _Reader, n: int, m: re.Match) -> None:
    """A table's rule (``+----+``, ``└────┘``): nothing to read."""


#: The lines Taurus's final stats hold, in the order they are tried (see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("version", "Taurus CLI Tool v", re.compile(r"^Taurus CLI Tool v(\S+)$"), _version),
    LineKind("current", "Current: ", re.compile(r"^Current: (\d+) vu\s"), _current),
    LineKind("duration", "Test duration: ", _DURATION_RE, _duration),
    LineKind("samples", "Samples count: ", _SAMPLES_RE, _samples),
    LineKind("averages", "Average times: ", _AVERAGES_RE, _averages),
    LineKind("percentile", "Percentile ", _PERCENTILE_RE, _percentile),
    LineKind("title", ":", _TABLE_TITLE_RE, _title),
    LineKind("row", "", _ROW_RE, _row),
    LineKind("rule", "", re.compile(r"^[+┌├└][-─┬┼┴+┐┤┘]+$"), _rule),
]


def _prepare(n: int, line: str) -> str:
    """A line without the time and level of Taurus's log."""
    return _LOG_RE.sub("", line, count=1) if "INFO" in line or "WARNING" in line else line


def parse(seg: Segment) -> Parsed:
    """Read each final stats block of a segment (one per ``bzt`` run)."""
    rd = _Reader()
    scan(seg.text, LINE_KINDS, rd, prepare=_prepare)
    out = Parsed()
    last: tuple | None = None
    for d, pcts, phases, metrics, errors in zip(rd.runs, rd.percentiles, rd.phases, rd.metrics, rd.errors,
                                                 strict=True):  # fmt: skip
        if errors:
            d["warnings"] = "; ".join(errors)
        same = ({k: v for k, v in d.items() if k != "line"}, pcts, phases, metrics)
        if same == last:  # two final-stats reporters log the same stats twice: one run
            kept = out.runs[-1]
            note = f"the same final stats logged again at line {d['line']} (two final-stats reporters): read once"
            kept["warnings"] = f"{kept['warnings']}; {note}" if kept.get("warnings") else note
            continue
        last = same
        out.add_run(d, percentiles=pcts, phases=phases, metrics=metrics)
    return out


_DETECT_RE = re.compile(
    r"^(?:(?:\d\d:\d\d:\d\d )?INFO: |\[[^]]*\] )?Samples count: \d+, \d+(?:\.\d+)?% failures\s*$", re.M
)


def detect(text: str) -> bool:
    """True for Taurus's final stats.

    >>> detect("18:04:24 INFO: Samples count: 367, 8.17% failures\\n"), detect("Samples: 3\\n")
    (True, False)
    """
    return "Samples count: " in text and bool(_DETECT_RE.search(text))


FORMATS = [
    Format(
        "taurus",
        "taurus",
        detect,
        parse,
        description="Taurus (bzt) final stats: samples and failures, average times, percentiles, label stats",
    )
]
