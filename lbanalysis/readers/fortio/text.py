"""What ``fortio load`` prints on the terminal (stdout; its log lines, JSON by default, on stderr)::

    Fortio 1.68.2 running at 200 queries per second, 2->2 procs, for 2s: http://127.0.0.1:18890/echo
    Starting at 200 qps with 4 thread(s) [gomax 2] for 2s : 100 calls each (total 400)
    Ended after 2.004145379s : 400 calls. qps=199.59
    Sleep times : count 396 avg 0.016392611 +/- 0.002676 min 0.006357413 max 0.019779016 sum 6.49147405
    Aggregated Function Time : count 400 avg 0.0018049428 +/- 0.002399 min 0.000108854 max 0.01224724 sum 0.72197
    # range, mid point, percentile, count
    >= 0.000108854 <= 0.001 , 0.000554427 , 65.25, 261
    > 0.001 <= 0.002 , 0.0015 , 70.25, 20
    # target 50% 0.000790923
    Error cases : no data
    Sockets used: 4 (for perfect keepalive, would be 4)
    Code 200 : 400 (100.0 %)
    Response Body/Total Sizes : count 400 avg 75 +/- 0 min 75 max 75 sum 30000
    All done 400 calls (plus 4 warmup) 1.805 ms avg, 199.6 qps

=====================================  ===========================================================  =====
line                                   column                                                       unit
=====================================  ===========================================================  =====
``Fortio V running at R queries…: U``  ``tool_version``, ``rate_target_per_s`` (R > 0), ``url``…      1/s
``Starting at R qps with T thread(s)`` ``concurrency``; ``for D`` ``time_limit_s``, ``exactly N``
                                       ``requests_planned``
``Ended after D : N calls. qps=Q``     ``duration_s``, ``requests_attempted_per_s`` (N / D: Q      s
                                       rounded; ``requests_per_s`` is the answers over D)
``Aggregated Function Time : …``       ``latency_mean_s``, ``_stdev_s``, ``_min_s``, ``_max_s``      s
its ``>= a <= b , mid , pct, count``   histogram table (``b``, ``count``)                           s
its ``# target P% V``                  percentiles table                                            s
``Sockets used: N``                    ``connections``
``Code C : N (P %)``                   the counts (:func:`~lbanalysis.readers.fortio.shared.count_fields`)
``Response Body/Total Sizes : …``      ``bytes_total`` (sum), ``bytes_per_request`` (avg)           B
``All done N calls … A ms avg, Q qps``  ``requests_attempted_per_s`` where no ``Ended after`` (-quiet)  1/s
``Aborting because of error …``        ``error`` (the run stops)
=====================================  ===========================================================  =====

:func:`lbanalysis.text.normalize` reads a block of lines starting with
``> `` or ``# `` as quoted and takes the prefix off: the bucket and target
lines read with it or without it. The histograms and percentiles of ``Sleep times``, ``Error cases`` and
``Connection time histogram`` and the per-thread socket lines are not kept;
the log lines (``{"ts": …}``, or ``Info``/``Warning`` lines with
``-logger-force-color``) are passed over. ``-quiet`` prints the result
without the histogram's buckets.

>>> p = parse(Segment("Starting at max qps with 2 thread(s) [gomax 2] for 1s\\n"
...                   "Ended after 1.00011416s : 23610 calls. qps=23607\\n"
...                   "Aggregated Function Time : count 23610 avg 8.4e-05 +/- 3.1e-05 min 3.2e-05 max 0.0021 sum 1.98\\n"
...                   "# target 50% 7.9e-05\\nCode 200 : 23610 (100.0 %)\\n"))
>>> r = p.runs[0]
>>> r["concurrency"], r["requests"], r["time_limit_s"], r["latency_mean_s"], p.tables["percentiles"]
(2, 23610, 1.0, 8.4e-05, [{'run': 0, 'percentile': 50.0, 'latency_s': 7.9e-05}])
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...text import Segment, at_line_start, command_argv
from ..base import NO_ANSWER, Format, LineKind, Parsed, Runs, error_row, scan, target
from .shared import count_fields, go_duration, requested_rate

__all__ = ["FORMATS", "LINE_KINDS", "detect", "parse", "parse_command"]

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
# "<name> : count N avg A +/- S min M max X sum T" (fortio's statistics of a histogram)
_STATS = (rf"count (?P<count>\d+) avg (?P<avg>{_NUM}) \+/- (?P<sd>{_NUM}) min (?P<min>{_NUM}) max (?P<max>{_NUM})"
          rf" sum (?P<sum>{_NUM})")  # fmt: skip


@dataclass
class _Run:
    line: int
    d: dict = field(default_factory=dict)
    codes: dict[str, int] = field(default_factory=dict)
    percentiles: list[dict] = field(default_factory=list)
    histogram: list[dict] = field(default_factory=list)
    section: str = ""  # the histogram the bucket and target lines below belong to


def _starts_run(kind: str, m: re.Match, cur: _Run | None) -> bool:
    """The one place that decides where a run starts: fortio's banner (``Fortio V running at``), or a
    ``Starting at`` / ``Ended after`` line where no run is open or the open one has ended (``All done``)."""
    if kind == "banner":
        return True
    if kind in ("starting", "ended"):
        return cur is None or "_done" in cur.d or (kind == "starting" and "concurrency" in cur.d)
    return False


def _new_reader() -> Runs[_Run]:
    return Runs(_Run, _starts_run)


def _banner(r: Runs[_Run], n: int, m: re.Match) -> None:
    run = r.run_for("banner", n, m)
    assert run is not None
    run.d["tool_version"] = m["version"]
    if (rate := requested_rate(m["rate"])) is not None:
        run.d["rate_target_per_s"] = rate
    run.d.update(target(m["url"]))


def _starting(r: Runs[_Run], n: int, m: re.Match) -> None:
    run = r.run_for("starting", n, m)
    assert run is not None
    run.d["concurrency"] = int(m["threads"])
    if (rate := requested_rate(m["rate"].replace("max", "0"))) is not None:
        run.d["rate_target_per_s"] = rate
    if m["exactly"]:
        run.d["requests_planned"] = int(m["exactly"])
    elif m["for"] and (t := go_duration(m["for"])) is not None:
        run.d["time_limit_s"] = t


def _ended(r: Runs[_Run], n: int, m: re.Match) -> None:
    run = r.run_for("ended", n, m)
    assert run is not None
    t = go_duration(m["duration"])
    if t is not None:
        run.d["duration_s"] = t
    # the calls over the time (the qps printed is that, to 5 digits)
    run.d["requests_attempted_per_s"] = int(m["calls"]) / t if t else float(m["qps"])


def _section(r: Runs[_Run], n: int, m: re.Match) -> None:
    """A histogram's statistics line: the call durations' (kept), or another's (sleep, errors, connections)."""
    run = r.run_for("section", n, m)
    if run is None:
        return
    run.section = m["name"]
    if m["name"] == "Aggregated Function Time" and m["count"]:
        run.d.update(_mean_s=float(m["avg"]), _stdev_s=float(m["sd"]), _min_s=float(m["min"]),
                     _max_s=float(m["max"]))  # fmt: skip
    if m["name"] == "Response Body/Total Sizes" and m["count"]:
        run.d.update(bytes_total=float(m["sum"]), _bytes_per_request=float(m["avg"]))


def _bucket(r: Runs[_Run], n: int, m: re.Match) -> None:
    run = r.run_for("bucket", n, m)
    if run is not None and run.section == "Aggregated Function Time":
        run.histogram.append({"latency_s": float(m["end"]), "count": int(m["count"])})


def _target(r: Runs[_Run], n: int, m: re.Match) -> None:
    run = r.run_for("target", n, m)
    if run is not None and run.section == "Aggregated Function Time":
        run.percentiles.append({"percentile": float(m["pct"]), "latency_s": float(m["value"])})


def _sockets(r: Runs[_Run], n: int, m: re.Match) -> None:
    if (run := r.run_for("sockets", n, m)) is not None:
        run.d["connections"] = int(m[1])


def _code(r: Runs[_Run], n: int, m: re.Match) -> None:
    if (run := r.run_for("code", n, m)) is not None:
        run.codes[m["code"]] = int(m["count"])


def _done(r: Runs[_Run], n: int, m: re.Match) -> None:
    if (run := r.run_for("done", n, m)) is not None:
        run.d.update(_done=True, _qps=float(m["qps"]), _avg_ms=float(m["avg"]))


def _abort(r: Runs[_Run], n: int, m: re.Match) -> None:
    run = r.run_for("abort", n, m)
    if run is not None:
        run.d["error"] = m[0].strip()


LINE_KINDS = [
    LineKind("banner", "Fortio ", re.compile(
        r"^Fortio (?P<version>\S+) running at (?P<rate>\S+) queries per second, .*?: (?P<url>\S+)\s*$"), _banner),
    LineKind("starting", "Starting at", re.compile(
        r"^Starting at (?P<rate>\S+) qps with (?P<threads>\d+) thread\(s\)(?: \[gomax \d+\])?"
        r"(?:(?: for exactly| : exactly) (?P<exactly>\d+)| for (?P<for>[\w.]+))?"), _starting),
    LineKind("ended", "Ended after", re.compile(
        r"^Ended after (?P<duration>\S+) : (?P<calls>\d+) calls\. qps=(?P<qps>" + _NUM + ")"), _ended),
    LineKind("section", " : ", re.compile(
        r"^(?P<name>Sleep times|Aggregated Function Time|Error cases|Connection time histogram \(s\)"
        r"|Response Header Sizes|Response Body/Total Sizes) : (?:no data|" + _STATS + ")"), _section),
    LineKind("bucket", "<=", re.compile(
        rf"^(?:>=? |= )?(?P<start>{_NUM}) <= (?P<end>{_NUM}) , {_NUM} , {_NUM}, (?P<count>\d+)\s*$"), _bucket),
    LineKind("target", "target ", re.compile(rf"^(?:# )?target (?P<pct>{_NUM})% (?P<value>{_NUM})\s*$"), _target),
    LineKind("sockets", "Sockets used", re.compile(r"^Sockets used: (\d+)"), _sockets),
    LineKind("code", "Code", re.compile(r"^Code\s+(?P<code>-?\w+) : (?P<count>\d+) \("), _code),
    LineKind("done", "All done", re.compile(
        rf"^All done \d+ calls \(plus \d+ warmup\) (?P<avg>{_NUM}) ms avg, (?P<qps>{_NUM}) qps"), _done),
    LineKind("abort", "Aborting", re.compile(r"^Aborting because .*$"), _abort),
]  # fmt: skip


def parse_command(command: str) -> dict:
    """Run fields from a ``fortio load`` command line (Go flags: ``-qps 200``, ``-qps=200``, ``--qps 200``).

    >>> d = parse_command("fortio load -qps 200 -c 4 -t 2s -json out.json http://127.0.0.1:18890/echo")
    >>> d["rate_target_per_s"], d["concurrency"], d["time_limit_s"], d["port"]
    (200.0, 4, 2.0, 18890)
    """
    argv = command_argv(command)
    opts: dict[str, str] = {}
    url = None
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok.startswith("-") and len(tok) > 1:
            name, eq, value = tok.lstrip("-").partition("=")
            if not eq and i + 1 < len(argv) and not argv[i + 1].startswith("-") and "://" not in argv[i + 1]:
                value, i = argv[i + 1], i + 1
            opts[name] = value
        elif "://" in tok:
            url = tok
        i += 1
    out: dict = {}
    if (rate := requested_rate(opts.get("qps", ""))) is not None:
        out["rate_target_per_s"] = rate
    if opts.get("c", "").isdigit():
        out["concurrency"] = int(opts["c"])
    if opts.get("n", "").isdigit() and int(opts["n"]) > 0:
        out["requests_planned"] = int(opts["n"])
    elif (t := go_duration(opts.get("t", ""))) is not None:
        out["time_limit_s"] = t
    if url:
        out.update(target(url))
    return out


def _row(run: _Run) -> dict:
    d = {k: v for k, v in run.d.items() if not k.startswith("_")}
    if run.codes:
        d.update({k: v for k, v in count_fields(run.codes).items() if v is not None})
        total = d.get("duration_s")
        if "_qps" in run.d:  # -quiet prints no "Ended after": the rate of "All done" (to 0.1/s)
            d.setdefault("requests_attempted_per_s", run.d["_qps"])
        if total:
            d["requests_per_s"] = d["requests"] / total
            if "bytes_total" in d:
                d["bytes_per_s"] = d["bytes_total"] / total
        elif d["failed_network"] == 0 and "requests_attempted_per_s" in d:
            d["requests_per_s"] = d["requests_attempted_per_s"]
    answered = d.get("requests", 0) > 0
    if answered:
        for key in ("mean_s", "stdev_s", "min_s", "max_s"):
            if f"_{key}" in run.d:
                d[f"latency_{key}"] = run.d[f"_{key}"]
        if "_bytes_per_request" in run.d:
            d["bytes_per_request"] = run.d["_bytes_per_request"]
    elif "error" not in d:
        d["error"] = "no call got an answer" if run.codes else "no result: the output stops before fortio's counts"
        d["error_kind"] = NO_ANSWER if run.codes else "no result shown"
    if not answered:
        run.percentiles, run.histogram = [], []
    return d


def parse(seg: Segment) -> Parsed:
    """Read every ``fortio load`` result of a segment."""
    cmd = parse_command(seg.command) if seg.command else {}
    out = Parsed()
    for run in scan(seg.text, LINE_KINDS, _new_reader()).runs:
        row = _row(run)
        out.add_run({"tool": "fortio", **cmd, **row, "line": run.line}, percentiles=run.percentiles,
                    histogram=run.histogram)  # fmt: skip
    if not out.runs and seg.command:
        out.add_run(error_row("fortio", "no output after the command", **cmd))
    return out


_DETECT_RE = re.compile(r"^(?:Fortio \S+ running at |Starting at \S+ qps with \d+ thread|All done \d+ calls)", re.M)
_DETECTED = at_line_start(_DETECT_RE)  # sought from line ends, not at every position


def detect(text: str) -> bool:
    """True for what ``fortio load`` prints.

    >>> detect("Fortio 1.68.2 running at 100 queries per second, 2->2 procs, for 1s: http://h/\\n"), detect("x")
    (True, False)
    """
    return ("Fortio " in text or "qps" in text) and _DETECTED(text)


FORMATS = [Format("fortio", "fortio", detect, parse, description="fortio load: what it prints on the terminal")]
