"""k6 end-of-test summary (text): the v1 ``TOTAL RESULTS`` layout and the classic one.

k6 1.x prints (``k6 run``, default ``--summary-mode compact``)::

         scenarios: (100.00%) 1 scenario, 3 max VUs, 32s max duration (incl. graceful stop):
                  * default: 3 looping VUs for 2s (gracefulStop: 30s)
      █ THRESHOLDS
        http_req_duration
        ✓ 'p(95)<500' p(95)=79.99ms
      █ TOTAL RESULTS
        checks_total.......: 93      45.443333/s
        checks_succeeded...: 100.00% 93 out of 93
        checks_failed......: 0.00%   0 out of 93
        HTTP
        http_req_duration..............: avg=65.57ms min=20.99ms med=64.21ms max=84.01ms p(90)=73.04ms p(95)=79.99ms
        http_req_failed................: 0.00%  0 out of 93
        http_reqs......................: 93     45.443333/s
        ...
        NETWORK
        data_received..................: 29 kB  14 kB/s

k6 before 1.0 (and ``--summary-mode legacy``) prints one block of the same
metric lines, thresholds as ``✓``/``✗`` before a metric's name, and (before
0.5x) rates as ``100.00% ✓ 1500 ✗ 0``. ``--summary-mode full`` adds a
section per scenario and group: the run's columns come from ``TOTAL
RESULTS``, and the sections' metrics go to the metrics table named as k6
names their submetrics (``http_req_duration{scenario:arrivals}``).

===================================  ===========================================  ==================
line                                 column                                       unit as printed
===================================  ===========================================  ==================
``scenarios: … N max VUs``           ``concurrency`` (VUs at most)
``* name: …`` scenario lines         ``scenarios``, ``time_limit_s`` (longest),   s, m, h
                                     ``rate_target_per_s`` (arrival-rate
                                     executors: iterations/s, summed),
                                     ``ramped`` (a stage executor, ``Up to …``)
``http_reqs``                        ``requests`` (minus the requests that got    count, 1/s
                                     no response), ``requests_per_s``,
                                     ``duration_s`` = count / rate
``http_req_failed``                  ``failed`` (k6's failed requests: an         count
                                     unexpected status or no response),
                                     ``requests_ok`` = http_reqs - failed
``level=warning msg="Request         ``failed_network`` (one line per request
Failed"`` log lines                  without a response)
``http_req_duration``                ``latency_mean_s``/``min``/``max``;          ns, µs, ms, s, m, h
                                     ``med`` and ``p(N)`` in the percentiles
                                     table
``http_req_blocked`` … ``receiving``  phases table (``mean_s``, ``min_s``,
                                     ``median_s``, ``max_s``)
``data_received`` / ``data_sent``    ``bytes_total``, ``bytes_per_s`` /           B, kB, MB, GB
                                     ``bytes_sent``, ``bytes_sent_per_s``         (decimal: 1 kB = 1000 B)
``checks_succeeded`` / ``_failed``   ``checks_passed``, ``checks_failed``         count
(classic: ``checks``)
``iterations``, ``dropped_iterations``  ``iterations``, ``iterations_dropped``     count, 1/s
                                     (``iterations_per_s``: the rate)
``iteration_duration``               ``iteration_mean_s`` (its avg: the script's  ns, µs, ms, s, m, h
                                     sleeps included)
``vus_max``                          ``vus_max``                                  count
thresholds                           ``thresholds`` ('metric expr: ok|failed'),
                                     ``thresholds_failed``
every metric line (also               metrics table: one row per figure            s, B, B/s, 1/s, %
``iteration_duration``, submetrics)  (``metric``, ``stat``, ``value``, ``unit``)
===================================  ===========================================  ==================

``requests`` are responses received, as for every tool: k6's ``http_reqs``
also counts requests that got no response (status 0, a ``Request Failed``
warning each in k6's log). k6 writes the banner and the summary to stdout,
its log and the progress lines before the summary to stderr: where the
output holds stderr, the warnings are counted; where it holds stdout only
and some requests failed, a run that received no byte had no response at
all, and otherwise which failures had a response is not shown
(``requests`` empty). The printed figures are rounded (three or four
digits): ``latency_*``, the percentiles and the byte counts hold them as
printed. k6 runs are closed-loop (a VU sends its next request when the
previous one came back) except under an arrival-rate executor, whose runs
carry ``rate_target_per_s``.

>>> p = parse(Segment("  █ TOTAL RESULTS\\n    http_req_duration...: avg=2ms min=1ms med=2ms max=4ms p(90)=3ms p(95)=3.5ms\\n"
...                   "    http_req_failed.....: 0.00% 0 out of 10\\n    http_reqs...........: 10  5/s\\n"))
>>> r = p.runs[0]
>>> r["requests"], r["duration_s"], r["latency_mean_s"], [x["percentile"] for x in p.tables["percentiles"]]
(10, 2.0, 0.002, [50.0, 90.0, 95.0])
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...registry import get_tool
from ...text import Segment, command_argv
from ..base import (
    COMMAND_REFUSED,
    NO_ANSWER,
    NO_RESULT_SHOWN,
    Format,
    LineKind,
    Parsed,
    Runs,
    error_row,
    scan,
    to_float,
    to_int,
)

__all__ = ["FORMATS", "LINES", "LINE_KINDS", "PHASES", "detect", "k6_bytes", "k6_time", "parse", "parse_command"]

# ------------------------------------------------------------ the format ---
_TIME_UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_EXPONENTS = {"ns": -9, "µs": -6, "us": -6, "μs": -6, "ms": -3}
_TIME_PART = re.compile(r"([\d.]+)(ns|µs|μs|us|ms|s|m|h)")
_BYTE_UNITS = {"B": 1.0, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}

#: trend metrics of a request's phases -> phase name in the phases table
PHASES = {
    "http_req_blocked": "blocked",
    "http_req_connecting": "connecting",
    "http_req_tls_handshaking": "tls_handshaking",
    "http_req_sending": "sending",
    "http_req_waiting": "waiting",
    "http_req_receiving": "receiving",
}


def k6_time(text: str) -> float | None:
    """Seconds from k6's durations (``661ns``, ``318.35µs``, ``65.57ms``, ``2s``, ``1m0s``, ``1h2m3s``).

    >>> k6_time("65.57ms"), k6_time("318.35µs"), k6_time("1m30.5s"), k6_time("0s"), k6_time("x")
    (0.06557, 0.00031835, 90.5, 0.0, None)
    """
    text = text.strip()
    parts = _TIME_PART.findall(text)
    if not parts or "".join(a + b for a, b in parts) != text:
        return None
    total = 0.0
    for num, unit in parts:
        if to_float(num) is None:
            return None
        exp = _EXPONENTS.get(unit)
        total += float(f"{num}e{exp}") if exp else float(num) * _TIME_UNITS[unit]  # '65.57e-3': rounded once
    return total


def k6_bytes(text: str) -> float | None:
    """Bytes from k6's decimal data units (``29 kB``, ``3.9 MB``, ``0 B``; 1 kB = 1000 B).

    >>> k6_bytes("29 kB"), k6_bytes("3.9 MB"), k6_bytes("0 B"), k6_bytes("14 kB/s")
    (29000.0, 3900000.0, 0.0, 14000.0)
    """
    m = re.fullmatch(r"\s*([\d.]+)\s*([kKMGT]?B)(?:/s)?\s*", text)
    if not m:
        return None
    v = to_float(m.group(1))
    return None if v is None else v * _BYTE_UNITS[m.group(2)]


_ARRIVAL = re.compile(r"^(?:Up to )?([\d.]+) iterations/s for (\S+)")
_FOR = re.compile(r"\bfor (\d[\w.]*)(?: over| \(|$)")


@dataclass
class _Run:
    """One k6 summary being read."""

    d: dict = field(default_factory=dict)
    metrics: dict[str, str] = field(default_factory=dict)  # metric name -> its figures as printed
    marks: dict[str, str] = field(default_factory=dict)  # classic layout: metric -> ✓/✗
    thresholds: list[str] = field(default_factory=list)
    threshold_metric: str = ""
    scenarios: list[str] = field(default_factory=list)
    section: str = ""  # '' (classic block or banner), THRESHOLDS, TOTAL RESULTS, SCENARIO, GROUP
    section_tag: str = ""  # the tag of a SCENARIO or GROUP section ('scenario:arrivals'), as k6 names submetrics
    section_metrics: dict[str, str] = field(default_factory=dict)  # their metrics, tagged: 'vus{scenario:a}'
    threshold_figures: list[tuple[str, str, str]] = field(default_factory=list)  # metric, stat, value as printed
    check: str = ""  # the name of the check line above (its share line follows when some failed)
    check_rows: list[dict] = field(default_factory=list)
    log_seen: bool = False  # the output holds k6's stderr (log, progress): Request Failed lines can be counted
    no_response: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    running_s: float | None = None
    last_metric: str = ""
    line: int = 0  # the line of the segment it starts on


_OPENING = ("THRESHOLDS", "TOTAL RESULTS")
_SCENARIOS_RE = re.compile(r"^\s*scenarios: \([\d.]+%\) (\d+) scenarios?, (\d+) max VUs")
_SECTION_RE = re.compile(r"^\s*(?:█|↳)\s+(THRESHOLDS|TOTAL RESULTS|SCENARIO|GROUP)\b(?::\s*(.*?))?\s*$")
# '(?:\s+|$)': a metric line printed with nothing after its colon but spaces, right-stripped
_METRIC_RE = re.compile(r"^\s*(?:([✓✗])\s+)?([A-Za-z_][\w]*(?:\{[^}]*\})?|\{[^}]*\})\s*\.{2,}:(?:\s+|$)(.*?)\s*$")
_LOG_ERROR_RE = re.compile(r'(?:level=error msg="(.*?)"|ERRO\[\d+\] (.*?)\s*$)')


def _reader() -> Runs[_Run]:
    """The runs of one segment (:class:`~lbanalysis.readers.base.Runs`), started where :func:`_starts_run` says."""
    return Runs(lambda n: _Run(line=n), _starts_run)


def _starts_run(kind: str, m: re.Match, r: _Run | None) -> bool:
    """A new run starts at k6's banner line, at its first summary line (a section, a metric or the
    scenarios line), or at a summary's opening section when the run being read has one already.

    >>> sec = _SECTION_RE.match("  █ TOTAL RESULTS")
    >>> _starts_run("section", sec, None), _starts_run("section", sec, _Run()), _starts_run("check", sec, None)
    (True, False, False)
    >>> _starts_run("section", sec, _Run(metrics={"http_reqs": "3"}, section="TOTAL RESULTS"))
    True
    """
    if kind == "execution":
        return True
    if r is None:
        return kind in ("section", "metric", "scenarios")
    return kind == "section" and bool(r.metrics) and m.group(1) in _OPENING and r.section not in ("", "THRESHOLDS")


def _execution(rd: Runs[_Run], n: int, m: re.Match) -> None:
    rd.run_for("execution", n, m)  # the banner is on stdout: it says nothing of whether k6's log (stderr) is here


def _scenarios(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("scenarios", n, m)
    if r is None:
        return
    r.d["concurrency"] = int(m.group(2))


def _scenario(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("scenario", n, m)
    if r is None:
        return
    r.scenarios.append(f"{m.group(1)}: {m.group(2)}")


def _section(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("section", n, m)
    if r is None:
        return
    r.section = m.group(1).strip()
    r.section_tag = f"{'scenario:' if r.section == 'SCENARIO' else 'group:::'}{(m.group(2) or '').strip()}"


def _threshold(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("threshold", n, m)
    if r is None:
        return
    if r.section == "THRESHOLDS":
        r.thresholds.append(f"{r.threshold_metric} {m.group(2)}: {'ok' if m.group(1) == '✓' else 'failed'}")
        r.threshold_figures.append((r.threshold_metric, m.group(3), m.group(4)))


def _threshold_name(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("threshold_name", n, m)
    if r is None:
        return
    if r.section != "THRESHOLDS":
        return
    name = m.group(1)
    if name.startswith("{"):  # a submetric under the metric above: '{endpoint:health}'
        base = r.threshold_metric.split("{", 1)[0]
        r.threshold_metric = base + "{" + name.strip("{} ") + "}"
    else:
        r.threshold_metric = name


def _metric(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("metric", n, m)
    if r is None:
        return
    if r.section not in ("", "TOTAL RESULTS", "SCENARIO", "GROUP"):
        return
    name = m.group(2)
    if name.startswith("{"):  # submetric line under the metric above
        name = r.last_metric + "{" + name.strip("{} ") + "}"
    else:
        r.last_metric = name
    if r.section in ("SCENARIO", "GROUP"):  # --summary-mode full: the metrics of one scenario or group
        tagged = name[:-1] + "," + r.section_tag + "}" if name.endswith("}") else name + "{" + r.section_tag + "}"
        r.section_metrics.setdefault(tagged, m.group(3))
        return
    r.metrics.setdefault(name, m.group(3))
    if m.group(1):
        r.marks[name] = m.group(1)


def _check(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("check", n, m)
    if r is None:
        return
    r.check = m.group(1)


def _check_share(rd: Runs[_Run], n: int, m: re.Match) -> None:
    """``↳ 66% — ✓ 8 / ✗ 4`` under a check that failed some: as ``checks{check:name}`` rows."""
    r = rd.run_for("check_share", n, m)
    if r is None:
        return
    metric = f"checks{{check:{r.check}}}"
    r.check_rows += [{"metric": metric, "stat": stat, "value": float(m.group(i)), "unit": unit}
                     for i, stat, unit in ((1, "rate", "%"), (2, "passes", ""), (3, "fails", ""))]  # fmt: skip


def _request_failed(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("request_failed", n, m)
    if r is None:
        return
    r.no_response.append(m.group(1).replace('\\"', '"'))
    r.log_seen = True


def _log_error(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("log_error", n, m)
    if r is None:
        return
    r.errors.append((m.group(1) or m.group(2) or "").replace('\\"', '"'))
    r.log_seen = True


def _log_line(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("log_line", n, m)
    if r is not None:
        r.log_seen = True


def _running(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("running", n, m)
    if r is None:
        return
    r.running_s = k6_time(m.group(1))
    if not r.metrics and not r.section:
        r.log_seen = True  # progress before the summary goes to stderr (the last line, after it, to stdout)


#: The lines k6 prints, in the order they are tried (first match wins; see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("execution", "execution: ", re.compile(r"^\s*execution: \S+"), _execution),
    LineKind("scenarios", " max VUs", _SCENARIOS_RE, _scenarios),
    LineKind("scenario", "* ", re.compile(r"^\s*\* ([\w.-]+): (.+?)\s*$"), _scenario),
    LineKind("section", "", _SECTION_RE, _section),
    LineKind("threshold", " '", re.compile(r"^\s*([✓✗]) '(.+)' (\S+)=(\S+)\s*$"), _threshold),
    LineKind("metric", "..:", _METRIC_RE, _metric),
    LineKind("check", "", re.compile(r"^\s*[✓✗] ([^'].*?)\s*$"), _check),
    LineKind("check_share", "% — ✓ ", re.compile(r"^\s*↳\s+(\d+(?:\.\d+)?)% — ✓ (\d+) / ✗ (\d+)\s*$"), _check_share),
    LineKind("threshold_name", "", re.compile(r"^\s*([A-Za-z_]\w*(?:\{[^}]*\})?|\{[^}]*\})\s*$"), _threshold_name),
    LineKind("request_failed", "Request Failed", re.compile(
        r'(?:level=warning msg="Request Failed"|WARN\[\d+\] Request Failed)\s+error="(.*)"'), _request_failed, search=True),
    LineKind("log_error", "", _LOG_ERROR_RE, _log_error, search=True),
    LineKind("log_line", "", re.compile(r'^time="[^"]*" level=\w+ msg=|^(?:INFO|WARN|ERRO|DEBU)\[\d+\] '), _log_line),
    # 'running (…), ' as printed; its trailing space is gone from the right-stripped line when nothing follows
    LineKind("running", "running (", re.compile(r"^\s*running \(((?:\d+m)?[\d.]+s)\),(?: |$)"), _running),
]  # fmt: skip
#: Line kind -> pattern (kept for code that reads it; the grammar is :data:`LINE_KINDS`).
LINES: dict[str, re.Pattern] = {k.name: k.pattern for k in LINE_KINDS}


# ------------------------------------------------------------ the figures ---
def _count_rate(text: str) -> tuple[float | None, float | None]:
    """``93     45.443333/s`` -> (93, 45.443333)."""
    m = re.match(r"([\d.]+)\s+([\d.]+)/s", text)
    return (to_float(m.group(1)), to_float(m.group(2))) if m else (to_float(text), None)


def _rate_counts(text: str) -> tuple[int | None, int | None]:
    """A rate metric's (true, total): ``0.00%  0 out of 93`` or the classic ``0.00% ✓ 0 ✗ 93``."""
    m = re.search(r"(\d+) out of (\d+)", text)
    if m:
        return int(m.group(1)), int(m.group(2))
    m = re.search(r"✓\s*(\d+)\s+✗\s*(\d+)", text)
    if m:
        return int(m.group(1)), int(m.group(1)) + int(m.group(2))
    return None, None


def _trend(text: str) -> dict[str, float]:
    """``avg=65.57ms min=… p(95)=…`` -> {'avg': 0.06557, …} in seconds (unreadable values left out)."""
    out = {}
    for key, value in re.findall(r"([\w()._]+)=(\S+)", text):
        v = k6_time(value)
        if v is not None:
            out[key] = v
    return out


def _percentile_of(key: str) -> float | None:
    """``med`` -> 50, ``p(99.9)`` -> 99.9, others None."""
    if key == "med":
        return 50.0
    m = re.fullmatch(r"p\(([\d.]+)\)", key)
    return float(m.group(1)) if m else None


def _latency(d: dict, text: str) -> list[dict]:
    t = _trend(text)
    for key, col in (("avg", "latency_mean_s"), ("min", "latency_min_s"), ("max", "latency_max_s")):
        if key in t:
            d[col] = t[key]
    rows = [{"percentile": p, "latency_s": v} for k, v in t.items() if (p := _percentile_of(k)) is not None]
    return sorted(rows, key=lambda x: x["percentile"])


def _figure(text: str) -> tuple[float | None, str]:
    """One printed figure and its unit: a k6 duration (s), data (B, B/s), a rate (1/s) or a plain number.

    >>> _figure("65.57ms"), _figure("14 kB/s"), _figure("45.443333/s"), _figure("3")
    ((0.06557, 's'), (14000.0, 'B/s'), (45.443333, '1/s'), (3.0, ''))
    """
    if (t := k6_time(text)) is not None:
        return t, "s"
    if (b := k6_bytes(text)) is not None:
        return b, "B/s" if text.strip().endswith("/s") else "B"
    if text.endswith("/s"):
        return to_float(text[:-2]), "1/s"
    return to_float(text), ""


def metric_rows(name: str, text: str) -> list[dict]:
    """The rows of the metrics table for one printed metric line: each figure, its stat and unit.

    >>> [(r["stat"], r["value"], r["unit"]) for r in metric_rows("data_sent", "8.4 kB  4.1 kB/s")]
    [('count', 8400.0, 'B'), ('rate', 4100.0, 'B/s')]
    >>> [(r["stat"], r["value"]) for r in metric_rows("checks_succeeded", "100.00% 93 out of 93")]
    [('rate', 100.0), ('passes', 93.0), ('total', 93.0)]
    >>> [(r["stat"], r["value"]) for r in metric_rows("vus", "3      min=3         max=3")]
    [('value', 3.0), ('min', 3.0), ('max', 3.0)]
    """
    rows: list[tuple[str, float | None, str]] = []
    head = re.sub(r"[\w()._]+=\S+", " ", text).strip()
    rate = re.fullmatch(r"([\d.]+)%\s*(?:(\d+) out of (\d+)|✓\s*(\d+)\s+✗\s*(\d+))?", head)
    if rate:
        rows.append(("rate", to_float(rate.group(1)), "%"))
        names = ("passes", "total") if rate.group(2) else ("passes", "fails")
        for stat, raw in zip(names, [g for g in rate.groups()[1:] if g is not None], strict=False):
            rows.append((stat, to_float(raw), ""))
    elif head:
        parts = re.findall(r"[\d.]+(?:\s*[kKMGT]?B)?(?:/s)?(?:[a-zµμ]+)?", head)
        for stat, raw in zip(("count", "rate") if len(parts) > 1 else ("value",), parts, strict=False):
            rows.append((stat, *_figure(raw)))
    for key, raw in re.findall(r"([\w()._]+)=(\S+)", text):
        rows.append((key, *_figure(raw)))
    return [{"metric": name, "stat": s, "value": v, "unit": u} for s, v, u in rows if v is not None]


def _phases(metrics: dict[str, str]) -> list[dict]:
    rows = []
    for name, phase in PHASES.items():
        if name in metrics:
            t = _trend(metrics[name])
            row = {"phase": phase, "mean_s": t.get("avg"), "min_s": t.get("min"), "median_s": t.get("med"),
                   "max_s": t.get("max")}  # fmt: skip
            rows.append({k: v for k, v in row.items() if v is not None})
    return rows


def _scenario_fields(d: dict, scenarios: list[str]) -> None:
    """Time limit (the longest scenario) and the arrival rate of open-loop executors."""
    limits = [k6_time(m.group(1)) for s in scenarios if (m := _FOR.search(s.split(": ", 1)[1]))]
    limits = [x for x in limits if x is not None]
    if limits:
        d["time_limit_s"] = max(limits)
    rates = [float(m.group(1)) for s in scenarios if (m := _ARRIVAL.match(s.split(": ", 1)[1]))]
    if rates:
        d["rate_target_per_s"] = sum(rates)
    if scenarios:
        d["scenarios"] = "; ".join(scenarios)
        d["ramped"] = any(s.split(": ", 1)[1].startswith("Up to ") for s in scenarios)


def _checks(d: dict, metrics: dict[str, str]) -> None:
    if "checks_succeeded" in metrics:
        d["checks_passed"] = _rate_counts(metrics["checks_succeeded"])[0]
        d["checks_failed"] = _rate_counts(metrics.get("checks_failed", ""))[0]
    elif "checks" in metrics:
        passed, total = _rate_counts(metrics["checks"])
        if passed is not None and total is not None:
            d["checks_passed"], d["checks_failed"] = passed, total - passed


def _thresholds(d: dict, r: _Run) -> None:
    items = r.thresholds or [f"{name}: {'ok' if mark == '✓' else 'failed'}" for name, mark in r.marks.items()]
    if items:
        d["thresholds"] = "; ".join(sorted(items))
        d["thresholds_failed"] = sum(1 for t in items if t.endswith(": failed"))


def _requests(d: dict, r: _Run, metrics: dict[str, str]) -> None:
    """requests (responses), failed, failed_network, requests_ok, duration and rate from http_reqs."""
    count, rate = _count_rate(metrics.get("http_reqs", ""))
    if count is None:
        return
    sent = round(count)
    failed = _rate_counts(metrics.get("http_req_failed", ""))[0]
    if failed is not None:
        d["failed"] = failed
        d["requests_ok"] = sent - failed
    if r.no_response or r.log_seen or failed == 0:
        no_answer: int | None = len(r.no_response)
    elif d.get("bytes_total") == 0:
        no_answer = sent  # not one byte came back
    else:
        no_answer = None  # stdout only: which failures had a response is not shown
    if no_answer is not None:
        d["failed_network"] = no_answer
        d["requests"] = sent - no_answer
    if rate:
        d["duration_s"] = count / rate
        if no_answer == 0:
            d["requests_per_s"] = rate
        elif "requests" in d:
            d["requests_per_s"] = d["requests"] / d["duration_s"]
    elif r.running_s:
        d["duration_s"] = r.running_s


def _metrics(r: _Run) -> list[dict]:
    every = {**r.metrics, **r.section_metrics}
    rows = [row for name, text in every.items() for row in metric_rows(name, text)]
    have = {(row["metric"], row["stat"]) for row in rows}
    for name, stat, raw in r.threshold_figures:  # a figure the THRESHOLDS section alone prints (p(99))
        if (name, stat) not in have:
            have.add((name, stat))
            rows += [{**x, "stat": stat} for x in metric_rows(name, raw)[:1]]
    return rows + r.check_rows


def _row(r: _Run) -> tuple[dict, list[dict], list[dict]]:
    d: dict = {"tool": "k6", **r.d}
    m = r.metrics
    for name, col, per_s in (("data_received", "bytes_total", "bytes_per_s"),
                             ("data_sent", "bytes_sent", "bytes_sent_per_s")):  # fmt: skip
        if name in m:
            parts = re.match(r"([\d.]+\s*\S*B)\s+([\d.]+\s*\S*B/s)", m[name])
            if parts:
                d[col], d[per_s] = k6_bytes(parts.group(1)), k6_bytes(parts.group(2))
    _requests(d, r, m)
    percentiles = _latency(d, m["http_req_duration"]) if "http_req_duration" in m else []
    _checks(d, m)
    for name, col in (("iterations", "iterations"), ("dropped_iterations", "iterations_dropped")):
        if name in m and (v := _count_rate(m[name])[0]) is not None:
            d[col] = round(v)
    if "iterations" in m and (per_s := _count_rate(m["iterations"])[1]) is not None:
        d["iterations_per_s"] = per_s
    if "iteration_duration" in m and "avg" in (it := _trend(m["iteration_duration"])):
        d["iteration_mean_s"] = it["avg"]
    if "vus_max" in m and (v := re.search(r"max=(\d+)", m["vus_max"])):
        d["vus_max"] = int(v.group(1))
    if "concurrency" not in d and "vus" in m and (v := re.search(r"max=(\d+)", m["vus"])):
        d["concurrency"] = int(v.group(1))
    _scenario_fields(d, r.scenarios)
    _thresholds(d, r)
    if d.get("requests") == 0:
        why = r.no_response[0] if r.no_response else "every request failed without a response"
        d["error"] = f"no response: {why}" + (f" (x{len(r.no_response)})" if len(r.no_response) > 1 else "")
        d["error_kind"] = NO_ANSWER
        for k in ("latency_mean_s", "latency_min_s", "latency_max_s"):
            d.pop(k, None)  # k6 prints 0s when nothing was measured
        return d, [], []
    if not m and not r.thresholds:
        if r.errors:  # k6 refused its script or options before it began
            d["error"], d["error_kind"] = f"no result: {r.errors[0]}", COMMAND_REFUSED
        elif r.running_s is not None:
            d["error"] = "no summary printed (handleSummary() or --no-summary replaces it)"
            d["error_kind"] = NO_RESULT_SHOWN
        else:
            d["error"], d["error_kind"] = "no result: the output stops before k6's summary", NO_RESULT_SHOWN
    return d, percentiles, _phases(m)


_OPTIONS = {"-u": "concurrency", "--vus": "concurrency", "-d": "time_limit_s", "--duration": "time_limit_s"}


def parse_command(command: str) -> dict:
    """Run fields from a ``k6 run`` command line (what the output shows wins).

    >>> parse_command("k6 run --vus 10 --duration 30s script.js"), parse_command("k6 run -u=5 -d 1m30s s.js")
    ({'concurrency': 10, 'time_limit_s': 30.0}, {'concurrency': 5, 'time_limit_s': 90.0})
    """
    argv = command_argv(command)
    out: dict = {}
    for i, tok in enumerate(argv):
        key, eq, val = tok.partition("=")
        if key in _OPTIONS and (eq or i + 1 < len(argv)):
            val = val if eq else argv[i + 1]
            col = _OPTIONS[key]
            v = to_int(val) if col == "concurrency" else k6_time(val)
            if v is not None:
                out[col] = v
    return out


def parse(seg: Segment) -> Parsed:
    """Read every k6 summary in a segment."""
    cmd = parse_command(seg.command) if seg.command else {}
    out = Parsed()
    for run in scan(seg.text, LINE_KINDS, _reader()).runs:
        row, pct, phases = _row(run)
        out.add_run({**cmd, **row, "line": run.line}, percentiles=pct, phases=phases, metrics=_metrics(run))
    if not out.runs and seg.command:
        errors = [m.group(1) or m.group(2) for line in seg.text.split("\n") if (m := _LOG_ERROR_RE.search(line))]
        if errors:
            out.add_run(error_row("k6", f"no result: {errors[0]}", COMMAND_REFUSED, **cmd))
        elif set(command_argv(seg.command)) & set(get_tool("k6").info_options):
            out.add_run(error_row("k6", "no output after the command", **cmd))  # help or version: set aside as such
        else:  # nothing k6 printed follows (an example line of a help text, a note): not a run
            kind = "bare command (no k6 output)"
            out.not_runs.append({"line": seg.line - 1, "tool": "k6", "command": seg.command, "kind": kind})
    return out


_DETECT_RE = re.compile(
    r"^\s*(?:[✓✗]\s+)?(?:http_reqs|iterations|vus_max|checks_total|data_received)\.{2,}: \S"
    r"|^\s*█ TOTAL RESULTS|^\s*scenarios: \([\d.]+%\) \d+ scenarios?, \d+ max VUs",
    re.M,
)


def detect(text: str) -> bool:
    """True for a k6 summary (a k6 metric line, ``█ TOTAL RESULTS``, or k6's scenarios line).

    >>> detect("    http_reqs......................: 93     45.443333/s\\n"), detect("Requests: 5\\n")
    (True, False)
    """
    return ("..:" in text or "█" in text or "max VUs" in text) and bool(_DETECT_RE.search(text))


FORMATS = [
    Format("k6", "k6", detect, parse, description="k6 end-of-test summary (v1 TOTAL RESULTS and the classic layout)")
]
