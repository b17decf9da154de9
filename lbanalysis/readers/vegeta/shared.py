"""What vegeta's readers share: Go durations, the command line, status codes, results summed up.

vegeta (tsenart/vegeta) is open loop: ``vegeta attack -rate=R -duration=D``
sends R requests per second whether or not the earlier ones were answered,
and writes one *result* per request (code 0 when no response came); every
report (:mod:`~lbanalysis.readers.vegeta.text`, :mod:`~lbanalysis.readers.vegeta.json`)
and every encoding of the results (:mod:`~lbanalysis.readers.vegeta.csv`,
NDJSON in :mod:`~lbanalysis.readers.vegeta.json`) counts results.

Counts, the same in every vegeta format:

=====================================  =========================================
vegeta                                 column
=====================================  =========================================
results (``Requests total``)           ``requests`` + ``failed_network``
results with code 0 (no response)      ``failed_network``
results with a status (responses)      ``requests``
status 2xx                             ``requests_ok``
responses outside 2xx                  ``non_2xx``
results outside 200-399 (vegeta's      ``failed``
own failures: ``Success`` is the rest)
``Status Codes``                       ``status_codes`` (``0: 5; 200: 5``, as printed)
``Error Set``                          ``error`` when no response came, else ``warnings``
=====================================  =========================================

``requests_per_s`` is responses per second over the whole test (attack +
wait): vegeta's own ``throughput`` (kept in ``requests_ok_per_s``) counts
only statuses 200-399, so the two are equal, and the printed figure is
taken, when every response was a success.

>>> go_duration("1m0.02130855s"), go_duration("284.757µs"), go_duration("0s"), go_duration("2m")
(60.02130855, 0.000284757, 0.0, 120.0)
>>> rate_per_s("50"), rate_per_s("1/100ms"), rate_per_s("600/1m"), rate_per_s("0"), rate_per_s("infinity")
(50.0, 10.0, 10.0, None, None)
"""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..base import NO_ANSWER, NO_RESULT_SHOWN, target, to_float

__all__ = [
    "GO_UNITS", "Results", "count_fields", "go_duration", "messages", "parse_command", "rate_per_s", "rates",
    "requests_frame", "summarize", "target",
]  # fmt: skip

# Go's time.Duration units (String() and ParseDuration) -> seconds
GO_UNITS: dict[str, float] = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0,
                              "h": 3600.0}  # fmt: skip
_GO_PART_RE = re.compile(r"([-+]?(?:\d+\.?\d*|\.\d+))(ns|us|µs|μs|ms|s|m|h)")
_GO_DURATION_RE = re.compile(r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+|[-+]?0")


def go_duration(text: str) -> float | None:
    """Seconds from a Go duration as ``time.Duration.String()`` prints it (``1h2m3.5s``, ``850ns``, ``0s``).

    Dividing by the unit's reciprocal keeps printed decimals exact (``16.44ms`` -> 0.01644).

    >>> go_duration("16.44ms"), go_duration("1h0m0s"), go_duration("x") is None
    (0.01644, 3600.0, True)
    """
    s = text.strip()
    if not _GO_DURATION_RE.fullmatch(s):
        return None
    if s.lstrip("+-") == "0":
        return 0.0
    total = 0.0
    for num, unit in _GO_PART_RE.findall(s):
        f = GO_UNITS[unit]
        total += float(num) / round(1 / f) if f < 1 else float(num) * f
    return total


def rate_per_s(text: str) -> float | None:
    """Requests per second from vegeta's ``-rate`` (``50``, ``50/1s``, ``1/100ms``); 0 or infinity: None.

    >>> rate_per_s("50/s"), rate_per_s("100/2s")
    (50.0, 50.0)
    """
    freq, _, per = text.strip().partition("/")
    n = to_float(freq) if re.fullmatch(r"\d+(?:\.\d+)?", freq) else None
    if not n:
        return None
    per = per or "1s"
    seconds = go_duration("1" + per if per in GO_UNITS else per)
    return n / seconds if seconds else None


_BOOL_FLAGS = {"keepalive", "http2", "h2c", "insecure", "lazy", "chunked", "session-tickets", "every", "version"}
_TARGET_RE = re.compile(r"""\b(GET|POST|PUT|DELETE|HEAD|PATCH|OPTIONS)\s+(https?://[^\s"'\\]+)""")


def _flags(argv: list[str]) -> dict[str, str]:
    """Go ``flag`` options of one command: ``-name=value``, ``-name value``, ``--name``, booleans."""
    opts: dict[str, str] = {}
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok.startswith("-") and len(tok) > 1:
            name, eq, val = tok.lstrip("-").partition("=")
            if eq or name in _BOOL_FLAGS:
                opts[name] = val if eq else "true"
            elif i + 1 < len(argv):
                i += 1
                opts[name] = argv[i]
        i += 1
    return opts


def parse_command(command: str) -> dict:
    """Run fields from a shell line that runs vegeta (``echo 'GET url' | vegeta attack ... | vegeta report``).

    >>> d = parse_command("echo 'GET http://127.0.0.1:18882/' | vegeta attack -rate=200 -duration=2s | vegeta report")
    >>> d["rate_target_per_s"], d["time_limit_s"], d["method"], d["port"]
    (200.0, 2.0, 'GET', 18882)
    >>> parse_command("vegeta report -type=json results.bin")
    {}
    >>> parse_command("vegeta attack -rate=0 -max-workers=64 -duration=5s -targets=t.txt")["concurrency"]
    64
    """
    out: dict = {}
    t = _TARGET_RE.search(command)
    if t:
        out.update(method=t.group(1), **target(t.group(2)))
    for part in re.split(r"\|(?!\|)", command):
        try:
            argv = shlex.split(part)
        except ValueError:
            argv = part.split()
        while argv and argv[0] in ("sudo", "time", "nohup", "command", "exec"):
            argv = argv[1:]
        if not argv or not argv[0].rsplit("/", 1)[-1].startswith("vegeta") or "attack" not in argv:
            continue
        opts = _flags(argv[argv.index("attack") + 1 :])
        if "rate" in opts:
            out["rate_target_per_s"] = rate_per_s(opts["rate"])
            if out["rate_target_per_s"] is None and "max-workers" in opts:  # -rate=0: as fast as the workers go
                out["concurrency"] = int(opts["max-workers"]) if opts["max-workers"].isdecimal() else None
        if "duration" in opts:
            out["time_limit_s"] = go_duration(opts["duration"]) or None  # 0: until stopped
        if opts.get("keepalive") == "false":
            out["keepalive"] = False
    return {k: v for k, v in out.items() if v is not None}


def count_fields(
    total: int | None, codes: dict[int, int] | None, success: float | None = None, success_step: float = 0.0
) -> dict:
    """The count columns from vegeta's result total, status codes (code 0: no response) and success ratio.

    The total is ``requests_attempted`` (answered or not). Without status codes, the success ratio gives the failures when it was
    printed finely enough (``success_step``: 0.0001 for ``55.42%``) to name
    one count.

    >>> count_fields(10, {0: 5, 200: 4, 404: 1})
    {'requests': 5, 'failed_network': 5, 'requests_ok': 4, 'non_2xx': 1, 'failed': 6, 'status_codes': '0: 5; 200: 4; 404: 1', 'requests_attempted': 10}
    >>> count_fields(6000, None, 1.0, 0.0001), count_fields(1200, None, 0.5542, 0.0001), count_fields(60000, None, 1.0, 0.0001)
    ({'requests': 6000, 'failed_network': 0, 'failed': 0, 'requests_attempted': 6000}, {'failed': 535, 'requests_attempted': 1200}, {'requests_attempted': 60000})
    """
    d = _counts(total, codes, success, success_step)
    if total is not None or codes:
        d["requests_attempted"] = sum(codes.values()) if total is None else total
    return d


def _counts(total: int | None, codes: dict[int, int] | None, success: float | None, success_step: float) -> dict:
    if not codes:
        if total is None or success is None:
            return {}
        low, high = total * (success - success_step / 2), total * (success + success_step / 2)
        ok = round(total * success)
        if not low - 1e-9 <= ok <= high + 1e-9 or (high - low >= 1 - 1e-9 and success_step):
            return {}  # the printed ratio fits more than one count
        return {"requests": total, "failed_network": 0, "failed": total - ok} if ok == total else {"failed": total - ok}
    total = sum(codes.values()) if total is None else total
    answered = total - codes.get(0, 0)
    ok = sum(n for c, n in codes.items() if 200 <= c < 300)
    good = sum(n for c, n in codes.items() if 200 <= c < 400)
    return {
        "requests": answered,
        "failed_network": codes.get(0, 0),
        "requests_ok": ok,
        "non_2xx": answered - ok,
        "failed": total - good,
        "status_codes": "; ".join(f"{c}: {n}" for c, n in sorted(codes.items())),
    }


def rates(d: dict, printed_throughput: float | None) -> None:
    """``requests_per_s`` (responses over the whole test) from the counts and durations of a row, in place.

    >>> d = {"requests": 100, "failed": 0, "duration_s": 1.969}
    >>> rates(d, 50.78); d["requests_per_s"]
    50.78
    """
    answered, duration = d.get("requests"), d.get("duration_s")
    every_answer_good = answered is not None and d.get("failed") == d.get("failed_network", 0)
    if every_answer_good and printed_throughput is not None:
        d["requests_per_s"] = printed_throughput
    elif answered is not None and duration:
        d["requests_per_s"] = answered / duration
    elif answered == 0:
        d["requests_per_s"] = 0.0


def messages(d: dict, errors: list[str]) -> None:
    """vegeta's error set: the run's ``error`` when no response came, else its ``warnings``; in place."""
    if not errors:
        return
    text = "; ".join(errors)
    if d.get("requests") == 0:
        d["error"], d["error_kind"] = text, NO_ANSWER
    else:
        d["warnings"] = text


@dataclass
class Results:
    """Per-request results as columns: start (ns since the epoch), latency (s), status, bytes in and out, error…"""

    ns: list[int] = field(default_factory=list)
    latency_s: list[float] = field(default_factory=list)
    status: list[int] = field(default_factory=list)
    bytes_in: list[int] = field(default_factory=list)
    bytes_out: list[int] = field(default_factory=list)
    error: list[str | None] = field(default_factory=list)
    method: list[str | None] = field(default_factory=list)
    url: list[str | None] = field(default_factory=list)
    attack: list[str | None] = field(default_factory=list)

    def add(self, ns: int, latency_s: float, status: int, bytes_in: int, bytes_out: int, error: str | None = None,
            method: str | None = None, url: str | None = None, attack: str | None = None) -> None:  # fmt: skip
        """Append one result."""
        self.ns.append(ns)
        self.latency_s.append(latency_s)
        self.status.append(status)
        self.bytes_in.append(bytes_in)
        self.bytes_out.append(bytes_out)
        self.error.append(error or None)
        self.method.append(method or None)
        self.url.append(url or None)
        self.attack.append(attack or None)

    def __len__(self) -> int:
        return len(self.ns)


def _one(values: list[str | None]) -> str | None:
    """The value every result shares, else None."""
    first = values[0] if values else None
    return first if first is not None and all(v == first for v in values) else None


def summarize(res: Results) -> dict:
    """A run row from per-request results, the way vegeta's report sums them up (its ``Metrics``).

    >>> res = Results()
    >>> res.add(0, 0.5, 200, 10, 0, url="http://h:81/x"); res.add(10**9, 1.0, 0, 0, 0, "refused", url="http://h:81/x")
    >>> r = summarize(res)
    >>> r["requests"], r["failed_network"], r["duration_s"], r["send_duration_s"], r["latency_mean_s"], r["warnings"]
    (1, 1, 2.0, 1.0, 0.75, 'refused')
    >>> r["port"], r["path"]
    (81, '/x')
    """
    if not len(res):
        return {"error": "no result in the file", "error_kind": NO_RESULT_SHOWN}
    status = np.asarray(res.status, dtype=np.int64)
    values, counts = np.unique(status, return_counts=True)
    codes = {int(c): int(n) for c, n in zip(values, counts, strict=True)}
    d = count_fields(len(res), codes)
    ns = np.asarray(res.ns, dtype=np.int64)
    lat = np.asarray(res.latency_s, dtype=float)
    earliest, latest = int(ns.min()), int(ns.max())
    timed = np.isfinite(lat) & (np.abs(lat) < 1e9)  # a latency of 30 years or none is no end time
    end = int((ns[timed] + np.round(lat[timed] * 1e9).astype(np.int64)).max()) if timed.any() else None
    send = (latest - earliest) / 1e9
    wait = (end - latest) / 1e9 if end is not None else math.nan
    good = int(((status >= 200) & (status < 400)).sum())
    bytes_in = float(np.sum(np.asarray(res.bytes_in, dtype=float)))
    d.update(
        timestamp=pd.Timestamp(earliest, unit="ns"),
        duration_s=send + wait,
        send_duration_s=send,
        wait_s=wait,
        latency_mean_s=float(lat.mean()),
        latency_min_s=float(lat.min()),
        latency_max_s=float(lat.max()),
        bytes_total=bytes_in,
        bytes_per_request=bytes_in / len(res),
        bytes_sent=float(np.sum(np.asarray(res.bytes_out, dtype=float))),
        success_pct=100.0 * good / len(res),
    )
    if send > 0:
        d["rate_sent_per_s"] = len(res) / send
        d["requests_ok_per_s"] = good / (send + wait)
    rates(d, d.get("requests_ok_per_s"))
    if d["requests"] == 0:  # the times of attempts that got no answer (kept in the requests table)
        for k in ("bytes_per_request", "latency_mean_s", "latency_min_s", "latency_max_s"):
            d.pop(k, None)
    messages(d, list(dict.fromkeys(e for e in res.error if e)))
    url, method, attack = _one(res.url), _one(res.method), _one(res.attack)
    if url:
        d.update(target(url))
    if method:
        d["method"] = method
    if attack:
        d["label"] = attack
    return d


def requests_frame(res: Results, run: int = 0) -> pd.DataFrame:
    """The requests table of one run, in start order: ``seq``, ``start`` (UTC), ``start_s``, and the results.

    >>> res = Results()
    >>> res.add(2 * 10**9, 0.1, 200, 177, 0); res.add(10**9, 0.2, 0, 0, 0, "refused")
    >>> f = requests_frame(res)
    >>> f["start_s"].tolist(), f["status"].tolist(), f["error"].iloc[0]
    ([0.0, 1.0], [0, 200], 'refused')
    """
    ns = np.asarray(res.ns, dtype=np.int64)
    order = np.argsort(ns, kind="stable")
    ns = ns[order]
    cols: dict = {
        "run": run,
        "seq": np.arange(len(ns)),
        "start": pd.to_datetime(ns, unit="ns"),
        "start_s": (ns - (ns[0] if len(ns) else 0)) / 1e9,
        "latency_s": np.asarray(res.latency_s, dtype=float)[order],
        "status": np.asarray(res.status, dtype=np.int64)[order],
        "bytes": np.asarray(res.bytes_in, dtype=float)[order],
    }
    for name in ("method", "url", "error"):
        values = np.asarray(getattr(res, name), dtype=object)[order]
        if any(v is not None for v in values):
            cols[name] = values
    return pd.DataFrame(cols)
