"""bombardier text output (codesenberg/bombardier; the plain-text template of v1.2.6).

With ``-l`` (latency distribution) and the default ``-p i,p,r``::

    Bombarding http://127.0.0.1:18899/ with 20 request(s) using 2 connection(s)
     20 / 20  100.00% 98/s 0s                          (the progress bar: CR-separated redraws)
    Done!
    Statistics        Avg      Stdev        Max
      Reqs/sec      3592.16       0.00    3592.16
      Latency      513.55us     1.44ms     5.32ms
      Latency Distribution
         50%    15.00us
         99%     5.32ms
      HTTP codes:
        1xx - 0, 2xx - 0, 3xx - 0, 4xx - 0, 5xx - 0
        others - 20
      Errors:
        dial tcp 127.0.0.1:18899: connect: connection refused - 20
      Throughput:       0.00/s

================================  ==========================================  ===================
line                              column                                      unit as printed
================================  ==========================================  ===================
``Bombarding URL with N           ``url``, ``requests_planned`` (or           Go duration
request(s) | for D using C        ``time_limit_s``), ``concurrency``
connection(s)``
``Reqs/sec avg stdev max``        ``interval_requests_per_s_mean``,           1/s
                                  ``_stdev``, ``_max``; see below
``Latency avg stdev max``         ``latency_mean_s``, ``latency_stdev_s``,    us, ms, s, m, h
                                  ``latency_max_s``
``N% value``                      percentiles table (a fork's second          us, ms, s, m, h
                                  ``Latency Distribution (2xx)`` is not kept)
``1xx - a, 2xx - b, …``,          ``requests`` (the sum of the classes),
``others - n``                    ``requests_ok`` (2xx), ``non_2xx``,
                                  ``status_codes`` (``2xx: 2000``),
                                  ``failed`` = ``failed_network`` = others
``Errors:`` ``message - count``   ``error`` when no response came, else
                                  ``warnings`` (``message (xN)``)
``Throughput:``                   ``bytes_per_s_total`` (read + written)      KB, MB… (1 KB = 1024 B)
================================  ==========================================  ===================

bombardier prints no request count and no duration. Its ``Reqs/sec`` is
the mean, stdev and max of the rates it samples every 10 ms (errors
included), not requests over the test's time: short runs overstate it. The
text gives no better figure, so ``requests_per_s`` is that mean (times the
share of answered requests when some failed); the JSON result
(:mod:`~lbanalysis.readers.bombardier.json`) has the time taken and gives
responses over it. Its latencies include the requests that failed; when no
response came they are not kept (as for hey). ``-r`` (a rate cap) goes to
``rate_target_per_s``.

>>> p = parse(Segment("Statistics        Avg      Stdev        Max\\n  Reqs/sec       114.47      98.24     403.44\\n"
...                   "  Latency       45.21ms     6.87ms    53.05ms\\n  HTTP codes:\\n"
...                   "    1xx - 0, 2xx - 200, 3xx - 0, 4xx - 0, 5xx - 0\\n    others - 0\\n  Throughput:    40.74KB/s\\n"))
>>> r = p.runs[0]
>>> r["requests"], r["requests_per_s"], r["latency_mean_s"], r["bytes_per_s_total"]
(200, 114.47, 0.04521, 41717.76)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...text import Segment, command_argv
from ..base import NO_RESULT_SHOWN, Format, LineKind, Parsed, Runs, error_row, scan, target, to_float, to_int
from ..wrk.text import wrk_bytes, wrk_time

__all__ = [
    "CLASSES",
    "FORMATS",
    "LINES",
    "LINE_KINDS",
    "count_fields",
    "detect",
    "parse",
    "parse_command",
    "target",
    "throughput",
]

CLASSES = ("1xx", "2xx", "3xx", "4xx", "5xx")


def throughput(text: str) -> float | None:
    """Bytes per second from bombardier's ``Throughput`` (binary units; none below 1 KB).

    >>> throughput("40.74KB/s"), throughput("421.85/s"), throughput("8.43MB/s")
    (41717.76, 421.85, 8839495.68)
    """
    s = text.strip().removesuffix("/s")
    return wrk_bytes(s) if s.endswith("B") else to_float(s) if re.fullmatch(r"[\d.]+", s) else None


@dataclass
class _Run:
    line: int
    d: dict = field(default_factory=dict)
    percentiles: list[dict] = field(default_factory=list)
    classes: dict[str, int] | None = None
    others: int | None = None
    errors: list[tuple[str, int]] = field(default_factory=list)
    in_errors: bool = False
    other_distribution: bool = False  # a fork's second distribution, of the 2xx answers only
    has_stats: bool = False


def _reader() -> Runs[_Run]:
    """The runs of one segment (:class:`~lbanalysis.readers.base.Runs`), started where :func:`_starts_run` says."""
    return Runs(_Run, _starts_run)


def _starts_run(kind: str, m: re.Match | None, r: _Run | None) -> bool:
    """The one place that decides where a run starts: the intro line, or a ``Statistics`` header (unless it
    follows its run's intro).

    >>> [_starts_run(k, None, r) for k, r in (("statistics", None), ("statistics", _Run(1)), ("intro", _Run(1)))]
    [True, False, True]
    """
    return kind == "intro" or (kind == "statistics" and (r is None or r.has_stats))


def _intro(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("intro", n, m)
    if r is None:
        return
    r.d.update(target(m.group(1)), concurrency=int(m.group(4)))
    if m.group(2):
        r.d["requests_planned"] = int(m.group(2))
    else:
        r.d["time_limit_s"] = _go_seconds(m.group(3))


def _statistics(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("statistics", n, m)
    if r is None:
        return
    r.has_stats = True


def _reqs(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("reqs", n, m)
    if r is None:
        return
    for i, name in enumerate(("mean", "stdev", "max"), 1):
        r.d[f"interval_requests_per_s_{name}"] = to_float(m.group(i))


def _latency(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("latency", n, m)
    if r is None:
        return
    r.d["latency_mean_s"], r.d["latency_stdev_s"], r.d["latency_max_s"] = (wrk_time(m.group(i)) for i in (1, 2, 3))


def _distribution(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("distribution", n, m)
    if r is None:
        return
    r.other_distribution = m.group(1) not in (None, "Total")


def _percentile(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("percentile", n, m)
    if r is None:
        return
    if not r.other_distribution:
        r.percentiles.append({"percentile": float(m.group(1)), "latency_s": wrk_time(m.group(2))})


def _codes(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("codes", n, m)
    if r is None:
        return
    r.classes = {c: int(m.group(i)) for i, c in enumerate(CLASSES, 1)}


def _others(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("others", n, m)
    if r is None:
        return
    r.others = int(m.group(1))


def _errors(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("errors", n, m)
    if r is None:
        return
    r.in_errors = True


def _throughput(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("throughput", n, m)
    if r is None:
        return
    r.d["bytes_per_s_total"] = throughput(m.group(1))
    r.in_errors = False


def _error_line(rd: Runs[_Run], n: int, m: re.Match) -> None:
    r = rd.run_for("error_line", n, m)
    if r is None:
        return
    if r.in_errors:
        r.errors.append((m.group(1), int(m.group(2))))


#: The lines bombardier prints, in the order they are tried (first match wins; see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("intro", "Bombarding ", re.compile(r"^Bombarding (\S+) (?:with (\d+) requests?(?:\(s\))?|for (\S+)) using (\d+) connections?"), _intro),
    LineKind("statistics", "Statistics", re.compile(r"^\s*Statistics\s+Avg\s+Stdev\s+Max\s*$"), _statistics),
    LineKind("reqs", "Reqs/sec", re.compile(r"^\s*Reqs/sec\s+(\S+)\s+(\S+)\s+(\S+)\s*$"), _reqs),
    LineKind("latency", "Latency", re.compile(r"^\s*Latency\s+(\S+)\s+(\S+)\s+(\S+)\s*$"), _latency),
    LineKind("distribution", "Latency Distribution", re.compile(r"^\s*Latency Distribution(?: \((\w+)\))?\s*$"), _distribution),
    LineKind("percentile", "%", re.compile(r"^\s*(\d+(?:\.\d+)?)%\s+(\S+)\s*$"), _percentile),
    LineKind("codes", "1xx - ", re.compile(r"^\s*1xx - (\d+), 2xx - (\d+), 3xx - (\d+), 4xx - (\d+), 5xx - (\d+)\s*$"), _codes),
    LineKind("others", "others - ", re.compile(r"^\s*others - (\d+)\s*$"), _others),
    LineKind("errors", "Errors:", re.compile(r"^\s*Errors:\s*$"), _errors),
    LineKind("throughput", "Throughput:", re.compile(r"^\s*Throughput:\s+(\S+)\s*$"), _throughput),
    LineKind("error_line", " - ", re.compile(r"^\s*(\S.*?) - (\d+)\s*$"), _error_line),
]  # fmt: skip
#: Line kind -> pattern (kept for code that reads it; the grammar is :data:`LINE_KINDS`).
LINES: dict[str, re.Pattern] = {k.name: k.pattern for k in LINE_KINDS}


# ----------------------------------------------------------------- reader ---
def _go_seconds(text: str) -> float | None:
    """Seconds from a Go duration as bombardier echoes ``-d`` (``10s``, ``1m0s``, ``1h0m0s``, ``500ms``).

    >>> _go_seconds("1m30s"), _go_seconds("500ms"), _go_seconds("10s")
    (90.0, 0.5, 10.0)
    """
    parts = re.findall(r"([\d.]+)(h|ms|us|µs|ns|m|s)", text)
    if not parts or "".join(a + b for a, b in parts) != text.strip():
        return None
    return sum(wrk_time(num + ("us" if unit == "µs" else unit)) or 0.0 if unit != "ns" else float(num) / 1e9
               for num, unit in parts)  # fmt: skip


# bombardier's options that take a value (kingpin: -c 10, -c10, --connections=10)
_VALUED = {"c": "connections", "t": "timeout", "m": "method", "b": "body", "f": "body-file", "H": "header",
           "n": "requests", "d": "duration", "r": "rate", "p": "print", "o": "format"}  # fmt: skip


def parse_command(command: str) -> dict:
    """Run fields from a bombardier command line.

    >>> d = parse_command("bombardier -c 20 -d 2s -l -r 100 -m POST http://127.0.0.1:18882/x")
    >>> d["concurrency"], d["time_limit_s"], d["rate_target_per_s"], d["method"], d["path"]
    (20, 2.0, 100.0, 'POST', '/x')
    """
    argv = ["bombardier", *command_argv(command)]  # the tool's arguments after its name, as the loop below counts them
    opts: dict[str, str] = {}
    url = None
    i = 1
    while i < len(argv):
        tok = argv[i]
        if tok.startswith("--"):
            name, eq, val = tok[2:].partition("=")
            if name in _VALUED.values() and not eq and i + 1 < len(argv):
                i += 1
                val = argv[i]
            opts[name] = val
        elif tok.startswith("-") and len(tok) > 1:
            short = tok[1]
            if short in _VALUED:
                val = tok[2:].lstrip("=") if len(tok) > 2 else (argv[i + 1] if i + 1 < len(argv) else "")
                i += 0 if len(tok) > 2 else 1
                opts[_VALUED[short]] = val
            else:
                opts[{"a": "disableKeepAlives"}.get(short, short)] = ""
        elif "://" in tok or url is None:
            url = tok
        i += 1
    out: dict = {"method": opts.get("method", "GET").upper()}
    if "connections" in opts:
        out["concurrency"] = to_int(opts["connections"])
    if "requests" in opts:
        out["requests_planned"] = to_int(opts["requests"])
    if "duration" in opts and "requests" not in opts:
        out["time_limit_s"] = _go_seconds(opts["duration"])
    if "rate" in opts:
        out["rate_target_per_s"] = to_float(opts["rate"])
    if "disableKeepAlives" in opts:
        out["keepalive"] = False
    if url and "://" in url:
        out.update(target(url))
    return {k: v for k, v in out.items() if v is not None}


def count_fields(classes: dict[str, int] | None, others: int | None, errors: list[tuple[str, int]]) -> dict:
    """The count columns from bombardier's status classes, ``others`` and errors.

    >>> count_fields({"1xx": 0, "2xx": 95, "3xx": 0, "4xx": 0, "5xx": 5}, 2, [("timeout", 2)])
    {'requests': 100, 'requests_ok': 95, 'non_2xx': 5, 'status_codes': '2xx: 95; 5xx: 5', 'failed': 2, 'failed_network': 2, 'warnings': 'timeout (x2)'}
    """
    d: dict = {}
    if classes is not None:
        answered = sum(classes.values())
        d.update(requests=answered, requests_ok=classes["2xx"], non_2xx=answered - classes["2xx"],
                 status_codes="; ".join(f"{c}: {n}" for c, n in classes.items() if n) or None)  # fmt: skip
    if others is not None:
        d["failed"] = d["failed_network"] = others
    if errors:
        d["error" if d.get("requests") == 0 else "warnings"] = "; ".join(f"{msg} (x{n})" for msg, n in errors)
    return {k: v for k, v in d.items() if v is not None}


def _row(r: _Run) -> dict:
    d = {**r.d, **count_fields(r.classes, r.others, r.errors)}
    mean, answered, others = d.get("interval_requests_per_s_mean"), d.get("requests"), d.get("failed") or 0
    if mean is not None and answered is not None:
        d["requests_per_s"] = mean * answered / (answered + others) if answered + others else 0.0
    if answered == 0:  # the times of attempts that got no answer
        for k in ("latency_mean_s", "latency_stdev_s", "latency_max_s"):
            d.pop(k, None)
        r.percentiles = []
    return {k: v for k, v in d.items() if v is not None}


def parse(seg: Segment) -> Parsed:
    """Read every bombardier result in a segment."""
    cmd = parse_command(seg.command) if seg.command else {}
    runs = scan(seg.text, LINE_KINDS, _reader()).runs
    out = Parsed()
    for r in runs:
        row = {**cmd, **_row(r), "line": r.line}
        if not r.has_stats and "error" not in row:
            row["error"], row["error_kind"] = (
                "no result: the output stops before bombardier's statistics",
                NO_RESULT_SHOWN,
            )
        elif r.classes is None and "error" not in row:
            row["error"], row["error_kind"] = (
                "no result: the output stops before bombardier's HTTP codes",
                NO_RESULT_SHOWN,
            )
        out.add_run(row, percentiles=r.percentiles)
    if not runs and seg.command:
        out.add_run(error_row("bombardier", "no output after the command", **cmd))
    return out


_DETECT_RE = re.compile(
    r"^(?:\s*Statistics\s+Avg\s+Stdev\s+Max\s*\n\s*Reqs/sec\s|Bombarding \S+ (?:with \d+ requests?(?:\(s\))?|for \S+) using)",
    re.M,
)


def detect(text: str) -> bool:
    """True for bombardier's text output (its statistics header, or its intro line).

    >>> detect("Statistics        Avg      Stdev        Max\\n  Reqs/sec       114.47      98.24     403.44\\n")
    True
    >>> detect("  Thread Stats   Avg      Stdev     Max   +/- Stdev\\n")
    False
    """
    return ("Statistics" in text or "Bombarding" in text) and _DETECT_RE.search(text) is not None


FORMATS = [Format("bombardier", "bombardier", detect, parse, description="bombardier text result (-l, -p i,p,r)")]
