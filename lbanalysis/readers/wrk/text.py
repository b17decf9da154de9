"""wrk 4.x and wrk2 text output.

wrk 4.1.0 (Debian 12) prints, with ``--latency``::

    Running 2s test @ http://127.0.0.1:18080/missing
      1 threads and 5 connections
      Thread Stats   Avg      Stdev     Max   +/- Stdev
        Latency    16.44ms   25.19ms 131.06ms   87.14%
        Req/Sec   704.75    522.90     1.77k    55.00%
      Latency Distribution
         50%    3.82ms
         99%  110.36ms
      1453 requests in 2.11s, 737.85KB read
      Non-2xx or 3xx responses: 1453
    Requests/sec:    689.02
    Transfer/sec:    349.90KB

=====================================  ==============================  ===================
line                                   column                          unit as printed
=====================================  ==============================  ===================
``Running 2s test @ URL``              ``time_limit_s``, ``url``       s, m, h
``N threads and M connections``        ``threads``, ``concurrency``    count (connections
                                                                       are the concurrency)
``Latency avg stdev max +/-``          ``latency_mean_s``,             us, ms, s, m
                                       ``latency_stdev_s``,
                                       ``latency_max_s``,
                                       ``latency_within_stdev_pct``
``Req/Sec avg stdev max +/-``          ``thread_requests_per_s_*``     k, M (decimal), %
``N% value`` (Latency Distribution)    percentiles table               us, ms, s
``N requests in T, B read``            ``requests``, ``duration_s``,   B, KB, MB, GB
                                       ``bytes_total``                 (binary: 1 KB = 1024 B)
``Socket errors: connect, read, …``    ``socket_errors_*``             count (0 when absent
                                                                       between the summary and
                                                                       ``Requests/sec``: wrk
                                                                       prints it only when
                                                                       non-zero)
``Non-2xx or 3xx responses: N``        ``non_2xx_3xx``                 count (status >= 400;
                                                                       0 when absent, as above)
``Requests/sec:``, ``Transfer/sec:``   ``requests_per_s``,             1/s, B/s (binary)
                                       ``bytes_per_s``
``unable to connect to H:P reason``    ``error``
=====================================  ==============================  ===================

A canonical wrk 4 run (these lines in this order, numbers as wrk prints them) is read in one match,
the ``run`` block kind of :data:`LINE_KINDS`; any other shape (wrk2's, a pasted or edited one) line by line.

wrk2 (giltene/wrk2, not packaged: shapes from its README and published
outputs) runs at a fixed rate (``-R``, into ``rate_target_per_s``), prints
``Thread calibration`` lines, ``Latency Distribution (HdrHistogram -
Recorded Latency)``, a ``Detailed Percentile spectrum`` (value in ms,
percentile as a fraction, total count: into the percentiles table at full
resolution, ``kind`` ``recorded``) closed by ``#[Mean = …, StdDeviation =
…]``, ``#[Max = …, Total count = …]`` and ``#[Buckets …]`` lines (into
``hdr_latency_*``), and with ``--u_latency`` the same for the
``Uncorrected Latency`` (``kind`` ``uncorrected``, ``hdr_uncorrected_*``). The 50 ... 100 % lines
wrk2 prints above a spectrum are kept beside it with ``kind`` ``recorded
printed`` (``uncorrected printed``): 99 %, 99.9 % ... are not ticks of the
spectrum, and one distribution per run is ``kind`` ``recorded`` (see
:func:`lbanalysis.analysis.latency.recorded_percentiles`). wrk2's latency is
corrected for coordinated omission (measured from when each request should
have been sent); wrk 4.x's is not.

Known defects: when no request completed wrk prints ``0.00us`` and
``-nan%`` (stored as NaN); with ``Connection: close`` every close counts as
a read error. ``requests`` counts responses, including error statuses.

>>> p = parse(Segment("Running 1s test @ http://h:81/x\\n  2 threads and 10 connections\\n"
...                   "  445 requests in 1.12s, 272.63KB read\\nRequests/sec:    396.33\\nTransfer/sec:    242.81KB\\n"))
>>> r = p.runs[0]
>>> r["concurrency"], r["threads"], r["requests"], r["bytes_total"], r["port"], r["path"]
(10, 2, 445, 279173.12, 81, '/x')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from ...text import Segment, command_argv, getopt
from ...units import BINARY, DECIMAL
from ..base import (
    NO_ANSWER,
    NO_RESULT_SHOWN,
    Format,
    LineKind,
    Parsed,
    error_row,
    hint_search,
    scan,
    target,
    to_float,
    to_int,
)

__all__ = [
    "FORMATS",
    "LINES",
    "LINE_KINDS",
    "detect",
    "parse",
    "parse_command",
    "read_one",
    "wrk_bytes",
    "wrk_rate",
    "wrk_time",
]

# ------------------------------------------------------------ the format ---
# unit -> (multiply, divide): dividing keeps printed decimals exact (16.44ms -> 0.01644 s)
_TIME_UNITS = {"us": (1.0, 1e6), "ms": (1.0, 1e3), "s": (1.0, 1.0), "m": (60.0, 1.0), "h": (3600.0, 1.0)}
_NUM = r"(-?[\d.]+|-?nan|inf)"


_WRK_TIME_RE = re.compile(r"\s*" + _NUM + r"\s*(us|ms|s|m|h)?\s*")


def wrk_time(text: str) -> float | None:
    """Seconds from wrk's time units (``us``, ``ms``, ``s``, ``m``, ``h``).

    >>> wrk_time("16.44ms"), wrk_time("2.05s"), wrk_time("1.00m"), wrk_time("0.00us")
    (0.01644, 2.05, 60.0, 0.0)
    """
    t = text.strip()
    cut = 2 if t.endswith(("us", "ms")) else 1 if t.endswith(("s", "m", "h")) else 0
    num = t[:-cut].rstrip() if cut else t
    if _plain_number(num):  # what the pattern reads, without it (wrk prints five times a run)
        unit, v = t[len(t) - cut :] if cut else "s", _plain_float(num)
    else:
        m = _WRK_TIME_RE.fullmatch(text)
        if not m:
            return None
        unit, v = m.group(2) or "s", to_float(m.group(1))
    if v is None:
        return None
    mul, div = _TIME_UNITS[unit]
    return v * mul / div


def _plain_float(num: str) -> float | None:
    """:func:`~lbanalysis.readers.base.to_float` of a :func:`_plain_number` (``1.2.3`` reads as its first number).

    >>> _plain_float("16.44"), _plain_float("1.2.3"), _plain_float(".")
    (16.44, 1.2, None)
    """
    try:
        return float(num)
    except ValueError:
        return to_float(num)


def _plain_number(num: str) -> bool:
    """Whether a text is ``-?[0-9.]+`` (ASCII digits and dots, maybe after one minus): a number as wrk prints it.

    >>> _plain_number("16.44"), _plain_number("-1"), _plain_number("-nan"), _plain_number(""), _plain_number("--1")
    (True, True, False, False, False)
    """
    digits = num[1:] if num.startswith("-") else num
    return bool(digits) and not digits.strip("0123456789.")


_WRK_RATE_RE = re.compile(r"\s*" + _NUM + r"\s*([kKMG]?)\s*")


def wrk_rate(text: str) -> float | None:
    """A count or rate with wrk's decimal suffixes (``k``, ``M``).

    >>> wrk_rate("1.18k"), wrk_rate("478.33"), wrk_rate("2.5M")
    (1180.0, 478.33, 2500000.0)
    """
    t = text.strip()
    suffix = t[-1:] if t.endswith(("k", "K", "M", "G")) else ""
    num = t[: len(t) - len(suffix)].rstrip()
    if not _plain_number(num):  # what the pattern reads, without it for the numbers wrk prints
        m = _WRK_RATE_RE.fullmatch(text)
        if not m:
            return None
        num, suffix = m.group(1), m.group(2)
        v = to_float(num)
    else:
        v = _plain_float(num)
    return None if v is None else v * DECIMAL[suffix.upper()]


_WRK_BYTES_RE = re.compile(r"\s*" + _NUM + r"\s*([KMGT]?)B\s*")


def wrk_bytes(text: str) -> float | None:
    """Bytes from wrk's binary units (``B``, ``KB``, ``MB``, ``GB``: 1 KB = 1024 B).

    >>> wrk_bytes("559.33KB"), wrk_bytes("0.00B"), wrk_bytes("376.50MB")
    (572753.92, 0.0, 394788864.0)
    """
    m = _WRK_BYTES_RE.fullmatch(text)
    if not m:
        return None
    v = to_float(m.group(1))
    return None if v is None else v * BINARY[m.group(2)]


@dataclass
class _Run:
    """One wrk run being read: where it starts, its row, percentile rows and which list they go to."""

    line: int
    first: str  # the line that starts it
    d: dict = field(default_factory=dict)
    percentiles: list[dict] = field(default_factory=list)
    kind: str | None = None  # the latency distribution being read ('recorded', 'uncorrected', None for wrk 4)
    spectrum: bool = False  # inside a Detailed Percentile spectrum
    spectra: frozenset[str] = frozenset()  # kinds that have a full spectrum (a new set when one is added)
    filled: bool = False  # every value of d is set (a block read them all): none to leave out of its row


#: counters wrk prints (after the ``N requests in`` line, before ``Requests/sec``) only when non-zero
_COUNTERS = ("socket_errors_connect", "socket_errors_read", "socket_errors_write", "socket_errors_timeout",
             "non_2xx_3xx")  # fmt: skip

_RUNNING_RE = re.compile(r"^\s*Running (\S+) test @ (\S+)")

# One canonical wrk 4 run, read in one match (the ``run`` block kind of :data:`LINE_KINDS`): every line as
# wrk prints it, in its order, spaces and tabs around it; each number as wrk prints it (digits, maybe a
# decimal part, a unit). Any other shape (wrk2's calibration lines and spectra, a line missing or out of
# place, a note between two lines, a number printed otherwise) does not match: the line kinds read it.
# Possessive (``*+``, ``++``): what a run of digits, blanks or a URL took is never given back, since the token after
# each cannot start with what it took (a unit, ``%``, a blank, a line's end): the same matches, a fifth faster.
_N = r"[0-9]++\.?+[0-9]*+"  # a number as wrk prints it (ASCII digits: what float() and int() read as the line kinds do)
_TIME = rf"({_N})(us|ms|s|m|h)"  # value, unit (:data:`_TIME_UNITS`)
_RATE = rf"({_N})([kKMG]?)"  # value, decimal suffix
_BYTES = rf"({_N})([KMGT]?)B"  # value, binary prefix
_PCT = rf"({_N}|-?nan)%"  # '-nan%' when nothing was measured
_EOL = r"[ \t]*+\n"
_BLOCK_RE = re.compile(
    rf"([ \t]*+Running {_TIME} test @ (\S++)){_EOL}"
    rf"[ \t]*+([0-9]++) threads and ([0-9]++) connections{_EOL}"
    rf"[ \t]*+Thread Stats[ \t]++Avg[ \t]++Stdev[ \t]++Max[ \t]++\+/- Stdev{_EOL}"
    rf"[ \t]*+Latency[ \t]++{_TIME}[ \t]++{_TIME}[ \t]++{_TIME}[ \t]++{_PCT}{_EOL}"
    rf"[ \t]*+Req/Sec[ \t]++{_RATE}[ \t]++{_RATE}[ \t]++{_RATE}[ \t]++{_PCT}{_EOL}"
    rf"(?:[ \t]*+Latency Distribution{_EOL}((?:[ \t]*+{_N}%[ \t]++{_N}(?:us|ms|s|m|h){_EOL})*+))?"
    rf"[ \t]*+([0-9]++) requests in {_TIME}, {_BYTES} read{_EOL}"
    rf"(?:[ \t]*+Socket errors: connect ([0-9]++), read ([0-9]++), write ([0-9]++), timeout ([0-9]++){_EOL})?"
    rf"(?:[ \t]*+Non-2xx or 3xx responses: ([0-9]++){_EOL})?"
    rf"[ \t]*+Requests/sec:[ \t]++{_RATE}{_EOL}"
    rf"[ \t]*+Transfer/sec:[ \t]++{_BYTES}[ \t]*+(?:\n|\Z)"
)
# one line of the block's Latency Distribution: percentile, value, unit
_BLOCK_PCT_RE = re.compile(rf"({_N})%[ \t]+{_TIME}")
_RATE_SUFFIX = {s: DECIMAL[s.upper()] for s in ("", "k", "K", "M", "G")}  # as :func:`wrk_rate` reads them
_NAN = float("nan")
_THREADS_RE = re.compile(r"^\s*(\d+) threads and (\d+) connections")
_REFUSED_LINE_RE = re.compile(r"^\s*unable to connect to (\S+) (.+?)\s*$")


@dataclass
class _Reader:
    """The runs of one segment; lines before the first run belong to none."""

    runs: list[_Run] = field(default_factory=list)
    awaits_threads: bool = False  # the current run began with a Running line and has no threads line yet

    def run_for(self, kind: str, n: int, m: re.Match) -> _Run | None:
        """The run a line of this kind belongs to, started here when :func:`_starts_run` says so."""
        if kind in _STARTERS and _starts_run(kind, self):  # the other kinds never start one
            self.runs.append(_Run(n, m.string))
        if kind in ("running", "threads"):
            self.awaits_threads = kind == "running"
        return self.runs[-1] if self.runs else None


#: The kinds of line that may start a run (:func:`_starts_run`).
_STARTERS = frozenset({"running", "threads", "refused"})


def _starts_run(kind: str, rd: _Reader) -> bool:
    """The one place that decides where a run starts: a ``Running`` line, a threads line outside a run
    begun by one that has none yet (an output pasted without its first line), or an ``unable to connect``
    line before any run.

    >>> rd = _Reader()
    >>> _starts_run("refused", rd), _starts_run("threads", rd), _starts_run("summary", rd)
    (True, True, False)
    >>> rd.awaits_threads = True
    >>> _starts_run("threads", rd), _starts_run("running", rd)
    (False, True)
    """
    if kind == "running":
        return True
    if kind == "threads":
        return not rd.awaits_threads
    return kind == "refused" and not rd.runs


def _seconds(value: str, unit: str) -> float:
    """:func:`wrk_time` of a time the block read as value and unit (the same float, without its checks).

    >>> _seconds("16.44", "ms"), _seconds("1", "m"), wrk_time("16.44ms")
    (0.01644, 60.0, 0.01644)
    """
    mul, div = _TIME_UNITS[unit]
    return float(value) * mul / div


def _run_block(rd: _Reader, n: int, m: re.Match) -> None:
    """A whole canonical wrk 4 run (:data:`_BLOCK_RE`): what its lines' handlers, one by one, would make of it
    (:func:`_block` of its groups).

    >>> text = ("Running 1m test @ http://h:81/\\n  2 threads and 10 connections\\n"
    ...   "  Thread Stats   Avg      Stdev     Max   +/- Stdev\\n    Latency    16.44ms   25.19ms 131.06ms   87.14%\\n"
    ...   "    Req/Sec   704.75    522.90     1.77k    55.00%\\n  Latency Distribution\\n     50%    3.82ms\\n"
    ...   "  1453 requests in 1.00m, 737.85KB read\\nRequests/sec:     24.21\\nTransfer/sec:     12.30KB\\n")
    >>> rd = _Reader()
    >>> _run_block(rd, 1, _BLOCK_RE.match(text))
    >>> r = rd.runs[0]
    >>> r.d["latency_mean_s"], r.d["thread_requests_per_s_max"], r.d["duration_s"], r.d["non_2xx_3xx"], r.percentiles
    (0.01644, 1770.0, 60.0, 0, [{'percentile': 50.0, 'latency_s': 0.00382, 'kind': None}])
    """
    rd.runs.append(_block(n, m.groups()))
    rd.awaits_threads = False


def _block(n: int, groups: tuple) -> _Run:
    """The run of the groups of a :data:`_BLOCK_RE` match, at line ``n``."""
    (first, limit, limit_unit, url, threads, conns,
     mean, mean_u, sd, sd_u, top, top_u, within,
     rmean, rmean_s, rsd, rsd_s, rtop, rtop_s, rwithin,
     dist, requests, dur, dur_u, read, read_u,
     connect, sock_read, write, timeout, non_2xx,
     rps, rps_s, transfer, transfer_u) = groups  # fmt: skip
    k, b, t = _RATE_SUFFIX, BINARY, _TIME_UNITS  # a time is float(value) * mul / div (:func:`_seconds`), inline
    done = within not in ("-nan", "nan")  # '0.00us ... -nan%': nothing was measured
    # printed only when non-zero, between the summary and Requests/sec (as :func:`_rps` says)
    errors = (0, 0, 0, 0) if connect is None else (int(connect), int(sock_read), int(write), int(timeout))
    where = _target_of(url)
    (lm, ld), (dm, dd) = t[limit_unit], t[dur_u]
    if done:
        (mm, md), (sm, sd_), (tm, td) = t[mean_u], t[sd_u], t[top_u]
        mean_s, sd_s, top_s, within_pct = (
            float(mean) * mm / md,
            float(sd) * sm / sd_,
            float(top) * tm / td,
            float(within),
        )
    else:
        mean_s = sd_s = top_s = None
        within_pct = _NAN
    d = {
        "time_limit_s": float(limit) * lm / ld,
        **where,  # url, host, port, path: one literal, its keys as the Running line's handler sets them
        "threads": int(threads),
        "concurrency": int(conns),
        "latency_mean_s": mean_s,
        "latency_stdev_s": sd_s,
        "latency_max_s": top_s,
        "latency_within_stdev_pct": within_pct,
        "thread_requests_per_s_mean": float(rmean) * k[rmean_s],
        "thread_requests_per_s_stdev": float(rsd) * k[rsd_s],
        "thread_requests_per_s_max": float(rtop) * k[rtop_s],
        "thread_requests_per_s_within_stdev_pct": _NAN if rwithin.endswith("n") else float(rwithin),
        "requests": int(requests),
        "duration_s": float(dur) * dm / dd,
        "bytes_total": float(read) * b[read_u],
        "socket_errors_connect": errors[0],
        "socket_errors_read": errors[1],
        "socket_errors_write": errors[2],
        "socket_errors_timeout": errors[3],
        "non_2xx_3xx": 0 if non_2xx is None else int(non_2xx),
        "requests_per_s": float(rps) * k[rps_s],
        "bytes_per_s": float(transfer) * b[transfer_u],
    }
    # as the Running line would start it (the threads line then belongs to it); a URL may not say host or port
    r = _Run(n, first, d)
    r.filled = done and where["host"] is not None and where["port"] is not None
    if dist:
        r.percentiles = [
            {"percentile": float(p), "latency_s": _seconds(v, u), "kind": None}
            for p, v, u in _BLOCK_PCT_RE.findall(dist)
        ]
    return r


def _running(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("running", n, m)
    if r is None:
        return
    r.d["time_limit_s"] = wrk_time(m.group(1))
    r.d.update(_target(m.group(2)))


def _threads(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("threads", n, m)
    if r is None:
        return
    r.d["threads"], r.d["concurrency"] = int(m.group(1)), int(m.group(2))


def _latency_stats(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("latency_stats", n, m)
    if r is None:
        return
    mean, sd, top = wrk_time(m.group(1)), wrk_time(m.group(2)), wrk_time(m.group(3))
    done = (r.d.get("requests") or 0) > 0 or m.group(4) not in ("-nan", "nan")
    r.d["latency_mean_s"] = mean if done else None  # '0.00us ... -nan%': nothing was measured
    r.d["latency_stdev_s"] = sd if done else None
    r.d["latency_max_s"] = top if done else None
    r.d["latency_within_stdev_pct"] = to_float(m.group(4))


def _reqsec_stats(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("reqsec_stats", n, m)
    if r is None:
        return
    r.d["thread_requests_per_s_mean"] = wrk_rate(m.group(1))
    r.d["thread_requests_per_s_stdev"] = wrk_rate(m.group(2))
    r.d["thread_requests_per_s_max"] = wrk_rate(m.group(3))
    r.d["thread_requests_per_s_within_stdev_pct"] = to_float(m.group(4))


def _distribution(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("distribution", n, m)
    if r is None:
        return
    uncorrected = m.group(1).startswith("Uncorrected") or "Uncorrected" in m.group(2)
    r.kind = "uncorrected" if uncorrected else ("recorded" if "HdrHistogram" in m.group(2) else None)
    r.spectrum = False


def _spectrum(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("spectrum", n, m)
    if r is None:
        return
    r.spectrum = True
    kind = r.kind or "recorded"
    r.spectra = r.spectra | {kind}
    # the spectrum is this distribution at full resolution; the lines printed above it stay, told apart
    for p in r.percentiles:
        if p.get("kind") == kind:
            p["kind"] = f"{kind} printed"


def _spectrum_row(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("spectrum_row", n, m)
    if r is None:
        return
    if not r.spectrum:
        return
    r.percentiles.append(
        {
            "percentile": float(m.group(2)) * 100.0,
            "latency_s": float(m.group(1)) / 1e3,  # wrk2 prints the spectrum in ms
            "kind": r.kind or "recorded",
            "count": int(m.group(3)),
        }
    )


def _hdr(r: _Run) -> str:
    """Column prefix of the HdrHistogram summary being read: recorded, or wrk2 -U's uncorrected one."""
    return "hdr_" if (r.kind or "recorded") == "recorded" else "hdr_uncorrected_"


def _hdr_mean(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("hdr_mean", n, m)
    if r is None:
        return
    r.d[_hdr(r) + "latency_mean_s"] = float(m.group(1)) / 1e3
    r.d[_hdr(r) + "latency_stdev_s"] = float(m.group(2)) / 1e3


def _hdr_max(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("hdr_max", n, m)
    if r is None:
        return
    r.d[_hdr(r) + "latency_max_s"] = float(m.group(1)) / 1e3
    r.d[_hdr(r) + "count"] = int(m.group(2))
    r.spectrum = False


def _percentile(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("percentile", n, m)
    if r is None:
        return
    if r.spectrum:
        return
    kind = f"{r.kind or 'recorded'} printed" if (r.kind or "recorded") in r.spectra else r.kind
    r.percentiles.append({"percentile": float(m.group(1)), "latency_s": wrk_time(m.group(2)), "kind": kind})


def _summary(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("summary", n, m)
    if r is None:
        return
    r.d["requests"], r.d["duration_s"], r.d["bytes_total"] = (
        int(m.group(1)),
        wrk_time(m.group(2)),
        wrk_bytes(m.group(3)),
    )
    r.spectrum = False


def _socket_errors(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("socket_errors", n, m)
    if r is None:
        return
    for i, name in enumerate(("connect", "read", "write", "timeout"), 1):
        r.d[f"socket_errors_{name}"] = int(m.group(i))


def _non_2xx(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("non_2xx", n, m)
    if r is None:
        return
    r.d["non_2xx_3xx"] = int(m.group(1))


def _rps(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("rps", n, m)
    if r is None:
        return
    r.d["requests_per_s"] = wrk_rate(m.group(1))
    if "requests" in r.d:  # between the summary and this line wrk prints these counters only when non-zero
        for name in _COUNTERS:
            r.d.setdefault(name, 0)


def _transfer(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("transfer", n, m)
    if r is None:
        return
    r.d["bytes_per_s"] = wrk_bytes(m.group(1).removesuffix("/s"))


def _refused(rd: _Reader, n: int, m: re.Match) -> None:
    r = rd.run_for("refused", n, m)
    if r is None:
        return
    r.d["error"], r.d["error_kind"] = f"unable to connect to {m.group(1)}: {m.group(2)}", NO_ANSWER
    host, _, port = m.group(1).rpartition(":")
    if host and port.isdigit():
        r.d.setdefault("host", host.strip("[]"))
        r.d.setdefault("port", int(port))


#: The lines wrk and wrk2 print, in the order they are tried (first match wins; see :class:`LineKind`).
LINE_KINDS: list[LineKind] = [
    LineKind("run", "Running ", _BLOCK_RE, _run_block, block=True),  # a whole canonical wrk 4 run at once
    LineKind("running", "Running ", _RUNNING_RE, _running),
    LineKind("threads", " threads and ", _THREADS_RE, _threads),
    LineKind("latency_stats", "Latency", re.compile(r"^\s*Latency\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)%\s*$"), _latency_stats),
    LineKind("reqsec_stats", "Req/Sec", re.compile(r"^\s*Req/Sec\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)%\s*$"), _reqsec_stats),
    LineKind("distribution", "Latency", re.compile(r"^\s*(Latency Distribution|Uncorrected Latency)\b(.*)$"), _distribution),
    LineKind("spectrum", "Detailed Percentile spectrum", re.compile(r"^\s*Detailed Percentile spectrum"), _spectrum),
    LineKind("spectrum_row", ".", re.compile(r"^\s*([\d.]+)\s+([01]\.\d+)\s+(\d+)\s+(?:[\d.]+|inf)\s*$"), _spectrum_row),
    LineKind("hdr_mean", "#[Mean", re.compile(r"^\s*#\[Mean\s*=\s*([\d.]+),\s*StdDeviation\s*=\s*([\d.]+)\]"), _hdr_mean),
    LineKind("hdr_max", "#[Max", re.compile(r"^\s*#\[Max\s*=\s*([\d.]+),\s*Total count\s*=\s*(\d+)\]"), _hdr_max),
    LineKind("percentile", "%", re.compile(r"^\s*([\d.]+)%\s+(\S+)\s*$"), _percentile),
    LineKind("summary", " requests in ", re.compile(r"^\s*(\d+) requests in (\S+), (\S+) read"), _summary),
    LineKind("socket_errors", "Socket errors: connect ",
             re.compile(r"^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)"), _socket_errors),
    LineKind("non_2xx", "Non-2xx or 3xx responses: ", re.compile(r"^\s*Non-2xx or 3xx responses: (\d+)"), _non_2xx),
    LineKind("rps", "Requests/sec:", re.compile(r"^\s*Requests/sec:\s+(\S+)"), _rps),
    LineKind("transfer", "Transfer/sec:", re.compile(r"^\s*Transfer/sec:\s+(\S+)"), _transfer),
    LineKind("refused", "unable to connect to ", _REFUSED_LINE_RE, _refused),
]  # fmt: skip
#: Line kind -> pattern (kept for code that reads it; the grammar is :data:`LINE_KINDS`).
LINES: dict[str, re.Pattern] = {k.name: k.pattern for k in LINE_KINDS}


# ----------------------------------------------------------------- reader ---
def _target(url: str) -> dict:
    """Run fields of a target URL (a dict of its own: the caller may add to it)."""
    return dict(_target_of(url))


@lru_cache(maxsize=1024)
def _target_of(url: str) -> dict:
    """:func:`_target`, once per URL (a sweep's log names one target for every run; never handed out): the shared
    :func:`~lbanalysis.readers.base.target`, with ``port`` None, not left out, when the URL's is not a number (as
    wrk's rows have always had it: an ``unable to connect`` line after it fills only a port that is absent)."""
    t = target(url)
    return {"url": t["url"], "host": t["host"], "port": t.get("port"), "path": t["path"]}


def parse_command(command: str) -> dict:
    """Run fields from a wrk or wrk2 command line.

    >>> d = parse_command("wrk -t2 -c100 -d30s -R2000 --latency http://127.0.0.1:8080/index.html")
    >>> d["threads"], d["concurrency"], d["time_limit_s"], d["rate_target_per_s"], d["path"]
    (2, 100, 30.0, 2000.0, '/index.html')
    """
    return dict(_parse_command(command))  # a dict of its own (of plain values): the caller may add to it


@lru_cache(maxsize=1024)
def _parse_command(command: str) -> dict:
    """:func:`parse_command`, once per command (a sweep's log repeats its command for every run)."""
    long = {
        "threads": "t", "connections": "c", "duration": "d", "rate": "R", "timeout": "T", "header": "H",
        "script": "s", "latency": "L", "u_latency": "U",
    }  # fmt: skip
    opts, positional = getopt(command_argv(command), "tcdRTHs", long)
    out: dict = {"method": "GET"}
    if isinstance(opts.get("t"), str):
        out["threads"] = to_int(opts["t"])
    connections = wrk_rate(opts["c"]) if isinstance(opts.get("c"), str) else None
    if connections is not None:
        out["concurrency"] = int(connections)
    if isinstance(opts.get("d"), str):
        out["time_limit_s"] = wrk_time(opts["d"])
    if isinstance(opts.get("R"), str):
        out["rate_target_per_s"] = wrk_rate(opts["R"])
    url = next((p for p in positional if "://" in p), None)
    if url:
        out.update(_target(url))
    return out


# wrk's options and URL without the program name, on the line above a run (notes that keep only the flags)
_FLAGS_RE = re.compile(r"^\s*(?:-{1,2}[A-Za-z][\w-]*(?:[ =][^\s-]\S*)?\s+)+(https?://\S+)\s*$")


def _flags_above(text_lines: list[str], start: int, first: str) -> tuple[int, str] | None:
    """(line, flags) when the line above a run's Running line holds wrk's options and the run's URL.

    >>> _flags_above(["-t1 -c64 -R2000 --latency http://h:81", "Running 1m test @ http://h:81"], 2,
    ...              "Running 1m test @ http://h:81")
    (1, '-t1 -c64 -R2000 --latency http://h:81')
    """
    running = _RUNNING_RE.match(first)
    if running is None or start < 2:
        return None
    m = _FLAGS_RE.match(text_lines[start - 2])
    if m is None or m.group(1) != running.group(2):
        return None
    return start - 1, text_lines[start - 2].strip()


@lru_cache(maxsize=1024)
def _given(command: str) -> dict:
    """What a command says of its runs, the fields it leaves empty left out (read, never changed: once per
    command)."""
    return _present(_parse_command(command))


def _present(d: dict) -> dict:
    """The items of ``d`` that hold a value (None left out).

    >>> _present({"threads": 2, "path": None})
    {'threads': 2}
    """
    return {k: v for k, v in d.items() if v is not None}


def parse(seg: Segment, runs: list[tuple[tuple, int, int]] | None = None) -> Parsed:
    """Read every wrk/wrk2 run in a segment (one output, or several after each other). ``runs``: every canonical
    run of the segment as a sweep's cut matched it (groups, start, end), read without the scan when no other
    line is one the scan reads (:func:`_swept`)."""
    text_lines = None if seg.command else seg.text.split("\n")  # for the flags above a run, when no command
    rd = _swept(seg.text, runs) if runs else None
    out = _parsed((rd or scan(seg.text, LINE_KINDS, _Reader())).runs, seg, text_lines)
    if not out.runs and seg.command:
        cmd = _parse_command(seg.command)  # read, never changed: the row is a dict of its own
        out.add_run(error_row("wrk", "no output after the command", **cmd))
    return out


def _swept(text: str, runs: list[tuple[tuple, int, int]]) -> _Reader | None:
    """What the scan reads of a text whose canonical runs (:data:`_BLOCK_RE`) stand at ``runs`` (groups, start,
    end, in order), when no other line of it holds a hint of :data:`LINE_KINDS` (the scan passes over such lines
    to the next run's ``Running`` line, where the block is matched first); else None.

    >>> run = ("Running 1m test @ http://h:81/\\n  2 threads and 10 connections\\n"
    ...   "  Thread Stats   Avg      Stdev     Max   +/- Stdev\\n    Latency    16.44ms   25.19ms 131.06ms   87.14%\\n"
    ...   "    Req/Sec   704.75    522.90     1.77k    55.00%\\n"
    ...   "  1453 requests in 1.00m, 737.85KB read\\nRequests/sec:     24.21\\nTransfer/sec:     12.30KB\\n")
    >>> text = "podnum=1\\n" + run + "podnum=2\\n" + run
    >>> ms = list(_BLOCK_RE.finditer(text))
    >>> [r.line for r in _swept(text, [(m.groups(), m.start(), m.end()) for m in ms]).runs]
    [2, 11]
    >>> _swept(text + "Requests/sec: 5\\n", [(m.groups(), m.start(), m.end()) for m in ms]) is None
    True
    """
    rd = _Reader()
    line, pos = 1, 0
    for groups, start, end in runs:
        if _HINT_SEARCH(text[pos:start]) is not None:  # type: ignore[misc]
            return None
        line += text.count("\n", pos, start)
        rd.runs.append(_block(line, groups))
        line += text.count("\n", start, end)
        pos = end
    return None if _HINT_SEARCH(text, pos) is not None else rd  # type: ignore[misc]


def _parsed(runs: list[_Run], seg: Segment, text_lines: list[str] | None) -> Parsed:
    """The runs read in a segment as rows: what the command (or the flags above a run, ``text_lines`` given when
    no command) says, then what the output says over it."""
    given = _given(seg.command) if seg.command else {}
    out = Parsed()
    for r in runs:
        start = r.line
        flags = None if text_lines is None else _flags_above(text_lines, start, r.first)
        row = {**(_present(_parse_command(flags[1])) if flags else given), **(r.d if r.filled else _present(r.d))}
        row["line"] = start
        if flags:
            row["line"], row["command"] = flags
        if "requests" not in row and "error" not in row:
            row["error"], row["error_kind"] = "no result: the output stops before wrk's summary", NO_RESULT_SHOWN
        elif row.get("requests") == 0 and "error" not in row:
            row["error"], row["error_kind"] = "no response: every request timed out or none was answered", NO_ANSWER
        out.add_run(row, percentiles=r.percentiles)
    return out


_HINT_SEARCH = hint_search(LINE_KINDS)


def read_one(seg: Segment, run: tuple[tuple, int, int] | None = None) -> Parsed | None:
    """The run of a segment after a wrk command that is one canonical wrk 4 run (:data:`_BLOCK_RE`) and no other
    line :data:`LINE_KINDS` reads, as :func:`parse` reads it, without the line scan (:attr:`Format.read_one`);
    else None. ``run``: the block matched already in the segment's text (a sweep's cut), as its groups, start and
    end: it is not matched again.

    The scan passes over the lines before the first on which a kind's hint stands; there the block is matched
    first; after it the scan looks for the next hint and, finding none, ends: so does this.

    >>> text = ("Running 1m test @ http://h:81/\\n  2 threads and 10 connections\\n"
    ...   "  Thread Stats   Avg      Stdev     Max   +/- Stdev\\n    Latency    16.44ms   25.19ms 131.06ms   87.14%\\n"
    ...   "    Req/Sec   704.75    522.90     1.77k    55.00%\\n"
    ...   "  1453 requests in 1.00m, 737.85KB read\\nRequests/sec:     24.21\\nTransfer/sec:     12.30KB\\nEnd time: 1\\n")
    >>> seg = Segment(text, command="wrk -t2 -c10 -d1m http://h:81/", tool="wrk")
    >>> read_one(seg).runs == parse(seg).runs, read_one(Segment(text + "Requests/sec: 5\\n", command=seg.command))
    (True, None)
    >>> m = _BLOCK_RE.match(text)
    >>> read_one(seg, (m.groups(), m.start(), m.end())).runs == parse(seg).runs
    True
    """
    text = seg.text
    first = _HINT_SEARCH(text) if seg.command else None  # type: ignore[misc]
    if first is None:
        return None
    start = text.rfind("\n", 0, first.start()) + 1
    if run is None:
        m = _BLOCK_RE.match(text, start)
        if m is None:
            return None
        groups, end = m.groups(), m.end()
    elif run[1] != start:  # a hint on a line before the block: the scan reads from there
        return None
    else:
        groups, _, end = run
    if _HINT_SEARCH(text, end) is not None:  # type: ignore[misc]
        return None
    return _parsed([_block(text.count("\n", 0, start) + 1, groups)], seg, None)


_REFUSED_RE = re.compile(r"^unable to connect to [^\s:]+:\d+ \S")
# sought from its first word (a pattern starting with ^\s* is tried at every position of the text), then checked to
# stand after blanks alone: what ^\s* before it reads
_DETECT_RE = re.compile(r"Running \S+ test @ \S+\n\s*\d+ threads and \d+ connections")
# pasted from the threads line on: that line, then the Thread Stats table's header
_DETECT_THREADS_RE = re.compile(r"^\s*\d+ threads and \d+ connections\s*\n\s*Thread Stats\s+Avg\s", re.M)


def _after_blanks(text: str, at: int) -> bool:
    """Whether only white space stands before ``at`` on its line.

    >>> _after_blanks("x\\n  Running", 4), _after_blanks("x Running", 2)
    (True, False)
    """
    start = text.rfind("\n", 0, at) + 1
    return start == at or text[start:at].isspace()


def detect(text: str) -> bool:
    """True for wrk output: a ``Running … test @`` line followed by wrk's thread line, or
    the threads line followed by the ``Thread Stats`` header (an output pasted without its first line).

    >>> detect("Running 2s test @ http://127.0.0.1:18080/\\n  2 threads and 10 connections\\n")
    True
    >>> detect("  2 threads and 10 connections\\n  Thread Stats   Avg      Stdev     Max   +/- Stdev\\n")
    True
    >>> detect("Running tests...\\n")
    False
    """
    if "connections" in text:  # both shapes show it (one search first: every text a sweep's log may be is asked)
        if "test @" in text and any(_after_blanks(text, m.start()) for m in _DETECT_RE.finditer(text)):
            return True
        if _DETECT_THREADS_RE.search(text):
            return True
    # the first line that is not blank, from its start (found without splitting the text: it is asked of every text
    # a sweep's log may be, :attr:`Format.sweep`)
    at = len(text) - len(text.lstrip())
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    first = text[start : len(text) if end < 0 else end]
    return bool(_REFUSED_RE.match(first))  # wrk's own wording for a run that could not start


FORMATS = [
    Format(
        "wrk",
        "wrk",
        detect,
        parse,
        description="wrk 4.x and wrk2 text output (Thread Stats, --latency, spectrum)",
        read_one=read_one,
        sweep=_BLOCK_RE,
    )
]
