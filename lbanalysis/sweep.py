"""Run a load tool over a list of loads, and keep the evidence the analysis needs beside the runs.

:func:`sweep` (``lbanalysis sweep TOOL URL --loads 1,2,4,8 ...``) runs the
installed tool once per load and repeat, in an order that spreads the
repeats over time (so drift shows as noise, not as a trend across loads),
and writes into one folder:

* one file per run, the tool's output exactly as it printed it (stdout and
  stderr together, as a terminal shows them) under a ``$ <command>`` line,
  the transcript form :func:`lbanalysis.read` knows;
* ``manifest.csv``: ``file``, ``tool``, ``load``, ``repeat``, ``timestamp``
  (start, UTC), ``end_time`` (UTC), ``exit_code``, ``note`` (why a run
  failed or was stopped; empty when it went well) and one column per
  ``--label key=value``; ``read()`` attaches these to the runs;
* with ``iperf=HOST[:PORT]``: ``iperf3-before.json`` and ``iperf3-after.json``
  (``iperf3 -c HOST -J``, the path's capacity, which explore matches to the
  runs by their target host);
* with ``haproxy_stats=SOCKET|URL``: ``haproxy/NNN-before.csv`` and
  ``haproxy/NNN-after.csv`` around run NNN (``show stat`` through the UNIX
  socket, or the stats page's ``;csv``), timed in the manifest, so that
  :func:`lbanalysis.analysis.balance.balance_per_run` pairs each run with
  its own two snapshots.

How each tool is driven (its load and bound options, what installs it,
what it reads on stdin and the command its output goes through: vegeta's
``echo 'GET url' | vegeta attack ... | vegeta report``) is data of the
registry (:class:`lbanalysis.registry.Drive`). The planning
below is pure: the order of the runs, the commands, the time estimate.
Nothing is started on the server side. Safe by default: a missing tool is
refused (naming what installs it), every run is bounded by requests or
duration and stopped at a timeout, a failed run is kept as printed and never
retried, and a sweep estimated longer than :data:`CONFIRM_ABOVE_S` needs
``yes=True``. Ctrl-C stops after the current run (a second one stops that
run too); the folder reads either way.

>>> plan = plan_runs([1, 2, 4], repeats=2, order="alternate")
>>> [(r.index, r.load, r.repeat) for r in plan]
[(1, 1, 1), (2, 2, 1), (3, 4, 1), (4, 4, 2), (5, 2, 2), (6, 1, 2)]
>>> from lbanalysis.registry import drive_of
>>> build_command(drive_of("ab"), "http://127.0.0.1:8080/", 4, requests=2000, extra=["-k"])
['ab', '-c', '4', '-n', '2000', '-k', 'http://127.0.0.1:8080/']
"""

from __future__ import annotations

import base64
import contextlib
import csv
import dataclasses
import functools
import io
import json
import math
import os
import random
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import pandas as pd

from . import registry
from .errors import LBAnalysisError
from .registry import Drive

__all__ = [
    "BOOKKEEPING",
    "CONFIRM_ABOVE_S",
    "MANIFEST_COLUMNS",
    "ORDERS",
    "PROCESS_COLUMNS",
    "PlannedRun",
    "SweepRefused",
    "SweepResult",
    "backend_urls",
    "build_command",
    "estimate_seconds",
    "explore_report",
    "haproxy_snapshot",
    "parse_duration",
    "parse_labels",
    "parse_loads",
    "parse_monitors",
    "plan_runs",
    "run_file",
    "run_sweep",
    "split_load",
    "sweep",
    "with_direct",
]

#: A sweep estimated longer than this (seconds) needs ``yes=True`` (``--yes``).
CONFIRM_ABOVE_S = 600.0
#: A run bounded by duration is stopped this long after its duration (seconds).
GRACE_S = 30.0
#: A run bounded by requests is stopped after this long (seconds), unless ``timeout`` says otherwise.
REQUESTS_TIMEOUT_S = 300.0
#: Seconds of each iperf3 measurement (before and after the sweep).
IPERF_SECONDS = 5
#: Seconds a run costs besides its own duration (starting the tool, snapshots), for the estimate.
RUN_OVERHEAD_S = 0.5
#: Columns of manifest.csv that keep the sweep's books (not labels that tell runs apart).
BOOKKEEPING = ("timestamp", "end_time", "exit_code", "note")
#: Columns of manifest.csv, before the ``--label`` columns.
MANIFEST_COLUMNS = ("file", "tool", "load", "repeat", "timestamp", "end_time", "exit_code", "note")
#: The folder of Locust's workers' logs in distributed mode (listed in the sweep's ``.lbignore``).
WORKERS = "workers"
#: Columns of manifest.csv with ``processes`` > 1: the test the processes make together (its first file's name
#: without ``-pK.txt``), how many processes it has, and which one a row is (1-based).
PROCESS_COLUMNS = ("test", "processes", "process")
#: Orders of the runs within each repeat (repeats always follow one another: repeat 1 of every load first).
ORDERS = {
    "shuffle": "loads shuffled anew in each repeat (seeded)",
    "alternate": "loads ascending in odd repeats, descending in even ones",
    "up": "loads ascending in every repeat",
}
_STOP_SIGNAL_WAIT_S = 5.0
_SENSE_EVERY_S = 0.25
_IPERF_PORT = 5201
_LABEL_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DURATION_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)?\s*$", re.IGNORECASE)
_SHORT_LOAD = {"concurrency": "c", "rate_target_per_s": "R"}


class SweepRefused(LBAnalysisError):
    """The sweep was not started: a tool is missing, a run would be unbounded, or ``yes`` is needed."""


@dataclass(frozen=True)
class PlannedRun:
    """One run of a sweep: its 1-based position, its load, and which repeat (1-based) it is."""

    index: int
    load: int
    repeat: int
    route: str = ""  # with a direct target: "lb" (the URL given) or "direct" (the backend); else ""


# ---------------------------------------------------------------- planning ---
def parse_loads(text: str | Iterable[int]) -> list[int]:
    """Loads from ``"1,2,4,8"`` (or a list): positive whole numbers, in the order given, without duplicates.

    >>> parse_loads("1, 2,4,8"), parse_loads([8, 4, 4])
    ([1, 2, 4, 8], [8, 4])
    >>> parse_loads("1,x")
    Traceback (most recent call last):
    ...
    lbanalysis.sweep.SweepRefused: loads must be positive whole numbers separated by commas, not '1,x'
    """
    items = [p.strip() for p in text.split(",")] if isinstance(text, str) else [str(v) for v in text]
    if not items or not all(re.fullmatch(r"\d+", p) and int(p) > 0 for p in items):
        raise SweepRefused(f"loads must be positive whole numbers separated by commas, not {text!r}")
    loads = [int(p) for p in items]
    return list(dict.fromkeys(loads))


def parse_duration(text: str | float | int) -> int:
    """Whole seconds from ``"10s"``, ``"2m"``, ``"1h"`` or a number of seconds (at least 1).

    >>> parse_duration("10s"), parse_duration("2m"), parse_duration(30)
    (10, 120, 30)
    >>> parse_duration("1.5s")
    Traceback (most recent call last):
    ...
    lbanalysis.sweep.SweepRefused: a run's duration is whole seconds (1 or more), not '1.5s': the tools count in seconds
    """
    m = _DURATION_RE.match(str(text))
    if not m:
        raise SweepRefused(f"not a duration: {text!r} (e.g. 10s, 2m)")
    factor = {"ms": 1e-3, "s": 1, "m": 60, "min": 60, "h": 3600}[(m.group(2) or "s").lower()]
    seconds = float(m.group(1)) * factor
    if seconds < 1 or seconds != int(seconds):
        raise SweepRefused(f"a run's duration is whole seconds (1 or more), not {text!r}: the tools count in seconds")
    return int(seconds)


def parse_labels(items: Iterable[str] | Mapping[str, object] | None) -> dict[str, str]:
    """``key=value`` labels (``--label``) as a dict; keys are identifiers that are not manifest columns.

    >>> parse_labels(["setup=haproxy-2", "cpu=1"])
    {'setup': 'haproxy-2', 'cpu': '1'}
    >>> parse_labels(["load=3"])
    Traceback (most recent call last):
    ...
    lbanalysis.sweep.SweepRefused: label 'load' is a column the sweep writes itself; choose another name
    """
    if items is None:
        return {}
    pairs = list(items.items()) if isinstance(items, Mapping) else [str(i).partition("=")[::2] for i in items]
    out: dict[str, str] = {}
    for key, value in pairs:
        key = str(key).strip()
        if not _LABEL_RE.match(key):
            raise SweepRefused(f"a label is key=value with a key made of letters, digits and _, not {key!r}")
        if key in MANIFEST_COLUMNS:
            raise SweepRefused(f"label {key!r} is a column the sweep writes itself; choose another name")
        out[key] = str(value)
    return out


def plan_runs(loads: Sequence[int], repeats: int = 1, order: str = "shuffle", seed: int | None = 0) -> list[PlannedRun]:
    """The runs of a sweep in the order they run: repeat-major, each repeat over every load.

    Repeats follow one another (every load once, then every load again), so
    a repeat's runs are spread over the whole sweep; within a repeat the
    loads go in the ``order`` of :data:`ORDERS` (``shuffle``: a new order
    each repeat, from ``seed``, so a slow drift is not read as an effect of
    the load).

    >>> [r.load for r in plan_runs([1, 2, 4, 8], repeats=2, order="shuffle", seed=1)]
    [8, 1, 4, 2, 8, 2, 1, 4]
    >>> [(r.load, r.repeat) for r in plan_runs([2, 1], repeats=2, order="up")]
    [(1, 1), (2, 1), (1, 2), (2, 2)]
    """
    if order not in ORDERS:
        raise SweepRefused(f"unknown order {order!r}; choose one of: {', '.join(ORDERS)}")
    if repeats < 1:
        raise SweepRefused(f"repeat must be 1 or more, not {repeats}")
    rng = random.Random(seed)
    up = sorted(loads)
    runs: list[PlannedRun] = []
    for rep in range(1, repeats + 1):
        if order == "shuffle":
            these = list(up)
            rng.shuffle(these)
        elif order == "alternate" and rep % 2 == 0:
            these = up[::-1]
        else:
            these = up
        runs.extend(PlannedRun(len(runs) + 1, load, rep) for load in these)
    return runs


def _fill(templates: Sequence[str], values: Mapping[str, object]) -> list[str]:
    return [t.format(**values) for t in templates]


def _url_parts(url: str) -> dict[str, object]:
    """The host, port and path of a URL, for the tools that take them apart (httperf).

    >>> _url_parts("http://127.0.0.1:8080/a?b=1"), _url_parts("https://h/")["url_port"]
    ({'url_host': '127.0.0.1', 'url_port': 8080, 'url_path': '/a?b=1'}, 443)
    """
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return {"url_host": parts.hostname or "", "url_port": port or (443 if parts.scheme == "https" else 80),
            "url_path": path}  # fmt: skip


def build_command(
    drive: Drive,
    url: str,
    load: int,
    *,
    requests: int | None = None,
    seconds: int | None = None,
    extra: Sequence[str] = (),
    config: str | None = None,
    cores: int | None = None,
) -> list[str]:
    """The command of one run: the tool's fixed options, the load, the bound, ``extra``, then the URL.

    Exactly one of ``requests`` and ``seconds`` bounds the run. ``extra`` (the
    options after ``--``) comes after the sweep's own, so where a tool takes
    the last value of an option, the user's wins.

    >>> from lbanalysis.registry import drive_of
    >>> build_command(drive_of("siege"), "http://h/", 4, requests=100, config="siege.conf")
    ['siege', '-R', 'siege.conf', '-c', '4', '-r', '25', 'http://h/']
    >>> build_command(drive_of("wrk"), "http://h/", 8, seconds=5, cores=2)
    ['wrk', '-c', '8', '-t', '2', '-d', '5s', 'http://h/']
    >>> build_command(drive_of("gobench"), "http://h/", 2, seconds=3)
    ['gobench', '-c', '2', '-t', '3', '-u', 'http://h/']
    """
    if (requests is None) == (seconds is None):
        raise SweepRefused("a run is bounded by requests or by duration: give exactly one of them")
    values: dict[str, object] = {
        "load": load,
        "url": url,
        "config": config or drive.config_file,
        "threads": max(1, min(load, cores or os.cpu_count() or 1)),
        "requests": requests,
        "requests_per_load": math.ceil(requests / load) if requests is not None else None,
        "seconds": seconds,
        "load_seconds": load * seconds if seconds is not None else None,
        **_url_parts(url),
    }
    bound = drive.requests if requests is not None else drive.duration
    if not bound:
        how = "a number of requests: use a duration" if requests is not None else "a duration: use --requests"
        raise SweepRefused(f"{drive.executable} cannot be bounded by {how}")
    return [
        drive.executable,
        *_fill(drive.options, values),
        *_fill(drive.load, values),
        *_fill(bound, values),
        *extra,
        *_fill(drive.url, values),
    ]


def command_line(drive: Drive, argv: Sequence[str], url: str) -> str:
    """The line a run's output starts with (after ``$ ``): its command as a shell would run it, with what
    goes in on stdin and the command its output is piped into.

    >>> from lbanalysis.registry import drive_of
    >>> d = drive_of("vegeta")
    >>> command_line(d, build_command(d, "http://h/", 50, seconds=2), "http://h/")
    "echo 'GET http://h/' | vegeta attack -rate=50 -duration=2s | vegeta report"
    >>> command_line(drive_of("ab"), ["ab", "-c", "1", "-n", "5", "http://h/"], "http://h/")
    'ab -c 1 -n 5 http://h/'
    """
    line = shlex.join(argv)
    if drive.stdin:
        line = f"echo {shlex.quote(drive.stdin.format(url=url))} | {line}"
    if drive.then:
        line += f" | {shlex.join(drive.then)}"
    return line


def estimate_seconds(n_runs: int, *, seconds: int | None = None, iperf_seconds: int = 0) -> float | None:
    """The sweep's expected length in seconds, or None when the runs are bounded by requests (unknown pace).

    >>> estimate_seconds(8, seconds=10, iperf_seconds=5)
    94.0
    >>> estimate_seconds(8) is None
    True
    """
    if seconds is None:
        return None
    return n_runs * (seconds + RUN_OVERHEAD_S) + 2 * iperf_seconds


def run_file(run: PlannedRun, drive: Drive, process: int | None = None) -> str:
    """The file name of a run's output: position, tool, load and repeat (then ``-direct``, and ``-pK``: the
    K-th of a test's processes).

    >>> run_file(PlannedRun(3, 16, 2), registry.drive_of("ab")), run_file(PlannedRun(12, 500, 1), registry.drive_of("wrk2"))
    ('003-ab-c16-r2.txt', '012-wrk2-R500-r1.txt')
    >>> run_file(PlannedRun(4, 16, 2, "direct"), registry.drive_of("ab"), process=2)
    '004-ab-c16-r2-direct-p2.txt'
    """
    short = _SHORT_LOAD.get(drive.load_column, "load")
    route = "-direct" if run.route == "direct" else ""
    part = f"-p{process}" if process is not None else ""
    return f"{run.index:03d}-{drive.executable}-{short}{run.load}-r{run.repeat}{route}{part}.txt"


def with_direct(plan: Sequence[PlannedRun]) -> list[PlannedRun]:
    """The plan with each run followed by the same run straight to the backend (``--direct``), renumbered.

    >>> [(r.index, r.load, r.route) for r in with_direct(plan_runs([1, 2], order="up"))]
    [(1, 1, 'lb'), (2, 1, 'direct'), (3, 2, 'lb'), (4, 2, 'direct')]
    """
    out: list[PlannedRun] = []
    for run in plan:
        for route in ("lb", "direct"):
            out.append(PlannedRun(len(out) + 1, run.load, run.repeat, route))
    return out


def split_load(total: int, n: int) -> list[int]:
    """``total`` shared by ``n`` processes as evenly as whole numbers allow (the remainder to the first ones).

    >>> split_load(10, 3), split_load(8, 2)
    ([4, 3, 3], [4, 4])
    """
    q, r = divmod(int(total), n)
    return [q + (1 if i < r else 0) for i in range(n)]


def _seconds_text(s: float) -> str:
    """``95 s``, ``4 min 10 s``, ``1 h 5 min``.

    >>> _seconds_text(95.2), _seconds_text(250), _seconds_text(3900)
    ('1 min 35 s', '4 min 10 s', '1 h 5 min')
    """
    s = round(s)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min" + (f" {s % 60} s" if s % 60 else "")
    return f"{s // 3600} h {s % 3600 // 60} min"


def _check_url(url: str) -> str:
    """An http(s) URL with a host; an empty path becomes ``/`` (ab refuses a URL without one).

    >>> _check_url("http://127.0.0.1:8080")
    'http://127.0.0.1:8080/'
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SweepRefused(f"not an http:// or https:// URL with a host: {url!r}")
    return url if parts.path else urllib.parse.urlunsplit(parts._replace(path="/"))


def _host_port(text: str, default: int) -> tuple[str, int]:
    """``HOST[:PORT]`` (``[v6]:PORT`` too).

    >>> _host_port("127.0.0.1", 5201), _host_port("lb:5202", 5201), _host_port("[::1]:7", 5201)
    (('127.0.0.1', 5201), ('lb', 5202), ('::1', 7))
    """
    m = re.match(r"^\[([^\]]+)\](?::(\d+))?$", text) or re.match(r"^([^:]+)(?::(\d+))?$", text)
    if not m:
        raise SweepRefused(f"--iperf wants HOST or HOST:PORT, not {text!r}")
    return m.group(1), int(m.group(2) or default)


def _utc(t: float) -> str:
    """A time as naive UTC with microseconds (the form the runs table's ``timestamp`` holds)."""
    return datetime.fromtimestamp(t, UTC).replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")


# ---------------------------------------------------------------- evidence ---
def haproxy_snapshot(target: str, timeout: float = 5.0, command: str = "show stat") -> bytes:
    """HAProxy's ``show stat`` CSV: through the UNIX stats socket at ``target``, or from the stats page URL.

    ``command="show info"`` asks the socket for the process's own figures
    (``Idle_pct``, ``Run_queue``, ``CurrConns`` ...); a stats page has no
    such export (an :class:`OSError` says so).

    A URL gets ``;csv`` appended (the stats page's CSV export) unless it has
    it; ``user:password@`` in the URL is sent as basic authentication.
    """
    if target.startswith(("http://", "https://")):
        if command != "show stat":
            raise OSError(f"a stats page exports `show stat` only, not `{command}` (use the stats socket)")
        import urllib.request  # only here: http.client, email and ssl are a tenth of `import lbanalysis`

        parts = urllib.parse.urlsplit(target)
        url = target if ";csv" in target else target + ";csv"
        headers = {}
        if parts.username:
            netloc = parts.hostname + (f":{parts.port}" if parts.port else "")
            url = urllib.parse.urlunsplit(urllib.parse.urlsplit(url)._replace(netloc=netloc))
            cred = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
            headers["Authorization"] = "Basic " + base64.b64encode(cred.encode()).decode()
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout) as r:
            return r.read()
    chunks = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(target)
        s.sendall(command.encode() + b"\n")
        while chunk := s.recv(65536):
            chunks.append(chunk)
    data = b"".join(chunks)
    if not data.lstrip().startswith(b"Name:" if command == "show info" else b"# pxname"):
        raise OSError(f"no statistics from {target}: {data[:80]!r}")
    return data


# ---------------------------------------------------------------- running ---
@dataclass
class _Progress:
    """Runs done and time left: a tqdm bar when tqdm is installed and stderr is a terminal, else a line per run."""

    total: int
    estimate_per_run: float | None
    stream: TextIO
    after_s: float = 0.0  # what runs after the last run (iperf3 after the sweep)
    bar: Any = None
    started: float = field(default_factory=time.monotonic)
    done: int = 0

    @classmethod
    def start(
        cls, total: int, per_run: float | None, stream: TextIO, show: bool | None, after_s: float = 0.0
    ) -> _Progress:
        """A line per run, or a tqdm bar (``show``: None = on a terminal when tqdm is installed)."""
        p = cls(total, per_run, stream, after_s)
        tty = getattr(stream, "isatty", lambda: False)()
        if show is not False and (show or tty):
            try:
                from tqdm import tqdm
            except ImportError:
                return p
            p.bar = tqdm(total=total, unit="run", file=stream, dynamic_ncols=True, leave=True)
        return p

    def left(self) -> float | None:
        """Seconds left: the runs to go at the pace so far (or the estimate), plus what follows them."""
        elapsed = time.monotonic() - self.started
        per_run = elapsed / self.done if self.done else self.estimate_per_run
        return None if per_run is None else per_run * (self.total - self.done) + self.after_s

    def step(self, text: str) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=False)
            self.bar.update(1)
            return
        left = self.left()
        when = f", about {_seconds_text(left)} left" if left is not None and self.done < self.total else ""
        print(f"[{self.done}/{self.total}] {text}{when}", file=self.stream, flush=True)

    def write(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class _Stop:
    """Ctrl-C during a sweep: the first asks to stop after the current run, the second stops that run too."""

    def __init__(self) -> None:
        self.requested = 0
        self.children: list[_Child] = []  # the processes of the current run (several with --processes)
        self._old: Any = None

    def __enter__(self) -> _Stop:
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)

    def _handle(self, signum: int, frame: object) -> None:
        self.requested += 1
        if self.requested == 1:
            print(
                "\nlbanalysis: stopping after the current run (Ctrl-C again stops it now)", file=sys.stderr, flush=True
            )
        else:
            for child in self.children:
                child.signal(signal.SIGINT)


@dataclass
class _Child:
    """One process of a run: its output file, start, and (once reaped) exit status, end and resource use."""

    proc: subprocess.Popen
    fh: Any
    t0: float
    after: subprocess.Popen | None = None  # the command its output is piped into (vegeta report)
    code: int | None = None
    t1: float = 0.0
    usage: Any = None  # resource.struct_rusage from os.wait4
    note: str = ""
    sense: Any = None  # pid -> what to read of the process while it lives (its CPU limits), read again and again
    sensed: Any = None  # the last reading, taken while it was alive
    sensed_at: float = 0.0
    peak_rss: float | None = None  # its VmHWM, read as it runs (os.wait4's maxrss counts the sweep's, at the fork)

    def signal(self, sig: int) -> None:
        """Send ``sig`` if the process is not reaped yet (``os.kill``: Popen's own would reap it, losing its usage)."""
        if self.code is None:
            try:
                os.kill(self.proc.pid, sig)
            except ProcessLookupError:
                pass

    def _ended(self) -> bool:
        """True once the process has exited (reaped or not): ``waitid`` with ``WNOWAIT`` leaves it to reap."""
        return bool(os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT))

    def look(self) -> None:
        """Read ``sense`` of the living process (a reading of one that ended meanwhile is dropped: an ended
        process has left its cgroup)."""
        if self.sense is None or self.code is not None or self._ended():
            return
        reading = self.sense(self.proc.pid)
        if not self._ended():
            self.sensed, self.sensed_at = reading, time.monotonic()

    def reap(self) -> bool:
        """Reap the process if it ended (``os.wait4``: its exit status and resource use); True once reaped.

        Until then its ``sense`` is read every :data:`_SENSE_EVERY_S` seconds (a wrapper such as ``cgexec``
        may move it into its cgroup after it started)."""
        if self.code is None:
            if self.sense is not None:
                self.peak_rss = max(filter(None, (self.peak_rss, _peak_rss(self.proc.pid))), default=None)
                if time.monotonic() - self.sensed_at >= _SENSE_EVERY_S:
                    self.look()
            pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
            if not pid:
                return False
            self.t1 = time.time()
            self.code = self.proc.returncode = os.waitstatus_to_exitcode(status)
            self.usage = usage
        return True


def _peak_rss(pid: int) -> float | None:
    """A running process's peak resident memory in bytes (``VmHWM`` of ``/proc/PID/status``), else None."""
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"VmHWM:"):
                    return float(line.split()[1]) * 1024  # kB
    except OSError:
        pass
    return None


def _launch(
    argv: Sequence[str], exe: str, out: Path, cwd: Path, header: str | None, *, stdin: str = "",
    then: Sequence[str] = (), pin: int | None = None,
) -> _Child:  # fmt: skip
    """Start one command, its stdout and stderr into ``out`` (under ``header``).

    The tool runs in its own session, so a Ctrl-C at the terminal reaches
    the sweep only (which lets the run finish). ``stdin`` is given to it on
    its standard input; with ``then`` (a command, its executable resolved)
    its output goes through that command, whose own output and exit status
    count (the tool's errors still go to ``out``). ``pin``: the one core it
    runs on (its affinity, set before it starts, so every thread has it).
    """
    fh = open(out, "wb")
    if header is not None:
        fh.write(header.encode())
        fh.flush()
    pin_to = (lambda: os.sched_setaffinity(0, {pin})) if pin is not None else None
    t0 = time.time()
    proc = subprocess.Popen(
        [exe, *argv[1:]], stdout=subprocess.PIPE if then else fh, stderr=fh if then else subprocess.STDOUT,
        stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, cwd=cwd, start_new_session=True, preexec_fn=pin_to,
    )  # fmt: skip
    child = _Child(proc, fh, t0)
    if then:  # the tool's output through the next command, as a shell pipe would
        child.after = subprocess.Popen(list(then), stdin=proc.stdout, stdout=fh, stderr=subprocess.STDOUT, cwd=cwd,
                                       start_new_session=True)  # fmt: skip
        assert proc.stdout is not None
        proc.stdout.close()  # the next command alone reads it: it sees the end when the tool stops
    if stdin:
        assert proc.stdin is not None
        proc.stdin.write(stdin.encode() + b"\n")
        proc.stdin.close()
    return child


def _poll(children: Sequence[_Child], deadline: float | None) -> None:
    """Reap the children as they end, until all have or ``deadline`` (monotonic) passes."""
    delay = 0.001
    while not all([c.reap() for c in children]):
        if deadline is not None and time.monotonic() >= deadline:
            return
        time.sleep(delay)
        delay = min(2 * delay, 0.01)


def _wait_all(children: Sequence[_Child], timeout: float, stop: _Stop) -> None:
    """Wait for a run's processes; past ``timeout`` each gets SIGINT (the tools print what they measured), then
    SIGKILL. Notes why a process failed or was stopped; closes the outputs."""
    stop.children = list(children)
    try:
        _poll(children, time.monotonic() + timeout)
        late = [c for c in children if c.code is None]
        for c in late:
            c.signal(signal.SIGINT)
            c.note = f"stopped after {timeout:g} s (timeout); output kept as printed"
        _poll(late, time.monotonic() + _STOP_SIGNAL_WAIT_S)
        for c in late:
            c.signal(signal.SIGKILL)
        _poll(late, None)
    finally:
        stop.children = []
    for c in children:
        if c.after is not None:
            try:
                c.code = c.after.wait(timeout=_STOP_SIGNAL_WAIT_S) or c.code
            except subprocess.TimeoutExpired:
                c.after.kill()
                c.code = c.after.wait() or c.code
            c.t1 = time.time()
        c.fh.close()
        if not c.note and stop.requested > 1:
            c.note = "stopped by Ctrl-C; output kept as printed"
        if not c.note and c.code != 0:
            c.note = f"exit status {c.code}; output kept as printed, not retried"


def _execute(
    argv: list[str], exe: str, out: Path, cwd: Path, timeout: float, stop: _Stop, header: str | None,
    *, stdin: str = "", then: Sequence[str] = (),
) -> tuple[int, str, float, float]:  # fmt: skip
    """Run one command to its end (see :func:`_launch` and :func:`_wait_all`); (exit code, note, start, end)."""
    child = _launch(argv, exe, out, cwd, header, stdin=stdin, then=then)
    _wait_all([child], timeout, stop)
    assert child.code is not None
    return child.code, child.note, child.t0, child.t1


@dataclass
class SweepResult:
    """What a sweep did: its folder, runs planned and run, failed runs, and whether it stopped early."""

    output: Path
    planned: int
    done: int = 0
    failed: int = 0
    stopped: str = ""


class _Manifest:
    """manifest.csv, one row per file, flushed as each file is done (an interrupted sweep leaves a whole one).

    ``columns``: the columns the sweep writes besides :data:`MANIFEST_COLUMNS` for this sweep (``route`` and
    ``group`` with a direct target, ``test``, ``processes`` and ``process`` with several processes).
    """

    def __init__(self, path: Path, labels: Mapping[str, str], columns: Sequence[str] = ()):
        self.labels = dict(labels)
        self.columns = (*MANIFEST_COLUMNS, *columns)
        self.fh = open(path, "w", newline="", encoding="utf-8")
        self.writer = csv.writer(self.fh)
        self.writer.writerow([*self.columns, *self.labels])
        self.fh.flush()

    def add(self, **row: object) -> None:
        values = {**{c: "" for c in self.columns}, **{k: ("" if v is None else v) for k, v in row.items()}}
        self.writer.writerow([*(values[c] for c in self.columns), *self.labels.values()])
        self.fh.flush()

    def close(self) -> None:
        self.fh.close()


def _refuse_missing(executable: str, install: str) -> str:
    path = shutil.which(executable)
    if path is None:
        raise SweepRefused(
            f"{executable} is not installed (not on PATH); to install it: {install or 'see its project'}"
        )
    return path


def parse_monitors(items: Iterable[str] | Mapping[str, str] | None) -> dict[str, list[str]]:
    """``NAME=COMMAND`` monitors (``--monitor``) as name -> argv; a name is a host's or a role's (``lb``, ``web1``).

    >>> parse_monitors(["lb=ssh lb vmstat -t 1", "client=mpstat -P ALL 1"])
    {'lb': ['ssh', 'lb', 'vmstat', '-t', '1'], 'client': ['mpstat', '-P', 'ALL', '1']}
    >>> parse_monitors(["vmstat -t 1"])
    Traceback (most recent call last):
    ...
    lbanalysis.sweep.SweepRefused: --monitor wants NAME=COMMAND (e.g. lb='ssh lb vmstat -t 1'), not 'vmstat -t 1'
    """
    if not items:
        return {}
    pairs = list(items.items()) if isinstance(items, Mapping) else [str(i).partition("=")[::2] for i in items]
    out: dict[str, list[str]] = {}
    for name, command in pairs:
        argv = shlex.split(str(command))
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", str(name)) or not argv:
            raise SweepRefused(
                f"--monitor wants NAME=COMMAND (e.g. lb='ssh lb vmstat -t 1'), not {f'{name}={command}'.strip('=')!r}"
            )
        if name in out:
            raise SweepRefused(f"--monitor {name}: given twice")
        out[str(name)] = argv
    return out


@dataclass(frozen=True)
class _Proc:
    """One process of a run: its output file, command, share of the load (None: a Locust worker), the core it
    is pinned to, the manifest's ``process`` (K of N; empty for a lone process or Locust's master) and the run
    file whose CPU it is."""

    file: str
    argv: list[str]
    load: int | None
    pin: int | None
    process: int | str
    run_file: str


@dataclass(frozen=True)
class _Settings:
    """A sweep's arguments, checked: what each run needs."""

    drive: Drive
    exe: str
    url: str
    plan: list[PlannedRun]
    loads: list[int]
    out: Path
    requests: int | None
    seconds: int | None
    extra: tuple[str, ...]
    labels: dict[str, str]
    limit: float
    iperf: tuple[str, str, int] | None  # (iperf3 executable, host, port)
    iperf_seconds: int
    haproxy_stats: str | None
    estimate: float | None
    then: tuple[str, ...] = ()  # the command the tool's output is piped into, its executable resolved
    direct: str | None = None  # the backend's URL (--direct), "auto" until show stat names it
    monitors: dict[str, list[str]] = field(default_factory=dict)  # name -> argv, its executable resolved
    processes: int = 1
    pins: tuple[int | None, ...] = (None,)  # the core each process runs on, or None (not pinned)
    master: tuple[str, int] | None = None  # Locust's distributed mode: the master's address (bind host, port)
    workers_elsewhere: bool = False  # Locust's workers are started on other machines, not here

    def url_of(self, run: PlannedRun) -> str:
        """The target of a run: the backend for a direct one, else the URL given."""
        return self.direct if run.route == "direct" and self.direct else self.url

    def procs(self, run: PlannedRun) -> list[_Proc]:
        """The processes of one run of the plan: one, or N with the load (and requests) shared between them;
        for Locust, a master with the whole load and N workers (none here when they run elsewhere)."""
        n = self.processes
        if self.master is not None:
            host, port = self.master
            opts = ["--master", "--expect-workers", str(n), "--expect-workers-max-wait", f"{self.limit:.0f}",
                    "--master-bind-host", host, "--master-bind-port", str(port)]  # fmt: skip
            name = run_file(run, self.drive)
            argv = build_command(
                self.drive, self.url_of(run), run.load, seconds=self.seconds, extra=[*opts, *self.extra]
            )
            master = _Proc(name, argv, run.load, None, "", name)
            worker = [self.drive.executable, "-f", self.drive.config_file, "--worker", "--master-host", host,
                      "--master-port", str(port)]  # fmt: skip
            workers = [
                _Proc(f"{WORKERS}/{run.index:03d}-w{k + 1}.txt", worker, None, self.pins[k], k + 1, name)
                for k in range(0 if self.workers_elsewhere else n)
            ]
            return [master, *workers]
        loads = split_load(run.load, n)
        requests = split_load(self.requests, n) if self.requests is not None else [None] * n
        out = []
        for k in range(n):
            name = run_file(run, self.drive, k + 1 if n > 1 else None)
            argv = build_command(self.drive, self.url_of(run), loads[k], extra=self.extra, requests=requests[k],
                                 seconds=self.seconds, cores=1 if self.pins[k] is not None else None)  # fmt: skip
            out.append(_Proc(name, argv, loads[k], self.pins[k], k + 1 if n > 1 else "", name))
        return out

    def command(self, run: PlannedRun) -> list[str]:
        """The command of one run of the plan (its first process)."""
        return self.procs(run)[0].argv

    def columns(self) -> tuple[str, ...]:
        """The manifest columns this sweep writes besides :data:`MANIFEST_COLUMNS`."""
        return (("route", "group") if self.direct else ()) + (PROCESS_COLUMNS if self.processes > 1 else ())


def _pins(n: int) -> tuple[int | None, ...]:
    """The core each of ``n`` processes is pinned to: distinct cores of this process's affinity, when it has ``n``
    or more; else none is pinned."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (OSError, AttributeError):
        return (None,) * n
    return tuple(cpus[:n]) if n > 1 and len(cpus) >= n else (None,) * n


def _settings(
    tool: str, url: str, loads: str | Sequence[int], output: str | os.PathLike, repeat: int, requests: int | None,
    duration: str | int | None, extra: Sequence[str], labels: Iterable[str] | Mapping[str, object] | None,
    iperf: str | None, iperf_seconds: int, haproxy_stats: str | None, order: str, seed: int, timeout: float | None,
    *, direct: str | None = None, monitors: Iterable[str] | Mapping[str, str] | None = None, processes: int = 1,
    workers_elsewhere: str | None = None,
) -> _Settings:  # fmt: skip
    """Check every argument and the tools before anything runs (:class:`SweepRefused` says what is wrong)."""
    try:
        drive = registry.drive_of(tool)
    except ValueError as e:
        raise SweepRefused(str(e)) from None
    load_list = parse_loads(loads)
    if (requests is None) == (duration is None):
        raise SweepRefused("bound every run: give --requests N or --duration (e.g. 10s), one of them")
    seconds = parse_duration(duration) if duration is not None else None
    processes = int(processes)
    if processes < 1:
        raise SweepRefused(f"--processes must be 1 or more, not {processes}")
    distributed = drive.executable == "locust" and processes > 1
    if workers_elsewhere and not distributed:
        raise SweepRefused("--workers-elsewhere is for Locust's distributed mode: locust with --processes 2 or more")
    if processes > 1 and min(load_list) < processes:
        raise SweepRefused(
            f"--processes {processes} shares each load between {processes} processes: every load must be "
            f"{processes} or more, not {min(load_list)}"
        )
    if requests is not None:
        requests = int(requests)
        if requests < 1:
            raise SweepRefused(f"--requests must be 1 or more, not {requests}")
        if drive.load_column == "concurrency" and requests < max(load_list):
            raise SweepRefused(
                f"--requests {requests} is below the largest load ({max(load_list)}): each client needs a request"
            )
    plan = plan_runs(load_list, repeat, order, seed)
    url = _check_url(url)
    build_command(drive, url, load_list[0], requests=requests, seconds=seconds, extra=extra)  # refuses a bad bound
    exe = _refuse_missing(drive.executable, drive.install)
    then = (_refuse_missing(drive.then[0], drive.install), *drive.then[1:]) if drive.then else ()
    iperf_at = None
    if iperf:
        iperf_at = (_refuse_missing("iperf3", "Debian package iperf3"), *_host_port(iperf, _IPERF_PORT))
        if int(iperf_seconds) < 1:
            raise SweepRefused(f"iperf3 measures for 1 second or more, not {iperf_seconds}")
    if haproxy_stats and not haproxy_stats.startswith(("http://", "https://")) and not os.path.exists(haproxy_stats):
        raise SweepRefused(f"{haproxy_stats}: no such HAProxy stats socket (--haproxy-stats SOCKET|URL)")
    if direct == "auto" and not haproxy_stats:
        raise SweepRefused("--direct auto takes the backend from HAProxy's statistics: give --haproxy-stats too")
    if direct and direct != "auto":
        direct = _check_url(direct)
    if direct:
        plan = with_direct(plan)
    watch = {}
    for name, argv in parse_monitors(monitors).items():
        watch[name] = [_refuse_missing(argv[0], f"the command of --monitor {name}"), *argv[1:]]
    labelled = parse_labels(labels)
    taken = [k for k in labelled if k in ("route", "group", *PROCESS_COLUMNS)]
    if taken:
        raise SweepRefused(f"label {taken[0]!r} is a column the sweep writes itself; choose another name")
    out = Path(output)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise SweepRefused(f"{out}: exists and is not an empty folder; a sweep writes into a new one")
    limit = float(timeout) if timeout else (seconds + GRACE_S if seconds is not None else REQUESTS_TIMEOUT_S)
    measured = int(iperf_seconds) if iperf else 0
    master = (workers_elsewhere or "127.0.0.1", _free_port(workers_elsewhere or "127.0.0.1")) if distributed else None
    return _Settings(
        drive, exe, url, plan, load_list, out, requests, seconds, tuple(extra), labelled, limit,
        iperf_at, measured, haproxy_stats, estimate_seconds(len(plan), seconds=seconds, iperf_seconds=measured),
        then, direct, watch, processes, _pins(processes), master, bool(workers_elsewhere),
    )  # fmt: skip


def _free_port(host: str) -> int:
    """A TCP port of ``host`` (an address of this machine) that nothing listens on, chosen by the kernel."""
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
            sock.bind((host, 0))
            return sock.getsockname()[1]
    except OSError as e:
        raise SweepRefused(f"Locust's master cannot listen on {host} ({e}): give an address of this machine") from None


def _announce(s: _Settings, order: str, seed: int, stream: TextIO) -> None:
    """The plan and its estimated length, printed before anything runs."""
    bound = f"{s.requests} requests" if s.requests is not None else f"{s.seconds} s"
    per_load = len(s.plan) // len(s.loads) // (2 if s.direct else 1)
    what = (
        f"{len(s.plan)} runs of {s.drive.executable} ({len(s.loads)} loads x {per_load} "
        f"repeat(s)" + (" x 2 routes (through the load balancer, then direct)" if s.direct else "")
        + (f" x {s.processes} processes at once" if s.processes > 1 and s.master is None else "")
        + (f", Locust's master and {s.processes} workers" if s.master is not None else "")
        + f", {bound} each, order {order}" + (f", seed {seed}" if order == "shuffle" else "") + ")"
    )  # fmt: skip
    if s.estimate is not None:
        length = f"about {_seconds_text(s.estimate)}"
    else:
        length = (
            f"length depends on the server's pace (each run stopped after {_seconds_text(s.limit)} at most); "
            "the time left shows after the first run"
        )
    print(f"lbanalysis: {what}: {length}", file=stream, flush=True)
    pinned = [p for p in s.pins if p is not None]
    if s.master is not None:
        host, port = s.master
        if s.workers_elsewhere:
            print(
                f"lbanalysis: Locust's master listens on {host}:{port} for {s.processes} workers at each run; on the "
                f"other machines, start: while locust -f - --worker --master-host {host} --master-port {port}; "
                "do sleep 1; done",
                file=stream,
                flush=True,
            )
        else:
            how = f"each on its own core ({', '.join(map(str, pinned))})" if pinned else "not pinned"
            print(f"lbanalysis: Locust's master and {s.processes} workers on this machine, {how}", file=stream)
    elif s.processes > 1:
        how = (
            f"each on its own core ({', '.join(map(str, pinned))})"
            if pinned
            else "not pinned: fewer cores than processes"
        )
        print(f"lbanalysis: {s.processes} processes per run, {how}", file=stream, flush=True)


def backend_urls(stat_csv: bytes | str, url: str) -> list[tuple[str, str]]:
    """The servers of HAProxy's ``show stat`` (their ``addr``) as URLs of ``url``'s scheme and path:
    (proxy/server, URL), in the order listed.

    >>> stat = "# pxname,svname,addr,status\\nfe,FRONTEND,,OPEN\\nbe,web1,10.0.0.5:8080,UP\\nbe,BACKEND,,UP\\n"
    >>> backend_urls(stat, "https://lb/index.html?x=1")
    [('be/web1', 'https://10.0.0.5:8080/index.html?x=1')]
    """
    text = stat_csv.decode("utf-8", "replace") if isinstance(stat_csv, bytes) else stat_csv
    rows = csv.DictReader(io.StringIO(text.lstrip("# ")))
    parts = urllib.parse.urlsplit(url)
    out = []
    for row in rows:
        addr = (row.get("addr") or "").strip()
        if row.get("svname") in ("FRONTEND", "BACKEND") or not addr:
            continue
        out.append((f"{row.get('pxname')}/{row.get('svname')}", urllib.parse.urlunsplit(parts._replace(netloc=addr))))
    return out


def run_sweep(
    tool: str,
    url: str,
    loads: str | Sequence[int],
    *,
    output: str | os.PathLike,
    repeat: int = 1,
    requests: int | None = None,
    duration: str | int | None = None,
    extra: Sequence[str] = (),
    labels: Iterable[str] | Mapping[str, object] | None = None,
    iperf: str | None = None,
    iperf_seconds: int = IPERF_SECONDS,
    haproxy_stats: str | None = None,
    order: str = "shuffle",
    seed: int | None = None,
    timeout: float | None = None,
    yes: bool = False,
    progress: bool | None = None,
    stream: TextIO | None = None,
    dry_run: bool = False,
    direct: str | None = None,
    monitors: Iterable[str] | Mapping[str, str] | None = None,
    processes: int = 1,
    workers_elsewhere: str | None = None,
) -> SweepResult:
    """Run the sweep (see :func:`sweep`) and say what it did, without reading the folder back.

    ``dry_run`` prints each run's file and command and runs nothing.
    """
    stream = stream or sys.stderr
    if seed is None:
        seed = random.SystemRandom().randrange(10**6)
    s = _settings(
        tool, url, loads, output, repeat, requests, duration, extra, labels, iperf, iperf_seconds, haproxy_stats,
        order, seed, timeout, direct=direct, monitors=monitors, processes=processes,
        workers_elsewhere=workers_elsewhere,
    )  # fmt: skip
    if s.direct == "auto":  # asked even for a dry run: the commands name the backend
        s = _auto_direct(s, stream)
    _announce(s, order, seed, stream)
    if dry_run:
        for run in s.plan:
            for p in s.procs(run):
                line = command_line(s.drive, p.argv, s.url_of(run)) if p.load is not None else shlex.join(p.argv)
                print(f"{p.file}: {line}", file=stream)
        return SweepResult(s.out, len(s.plan), stopped="dry run: nothing was run")
    if s.estimate is not None and s.estimate > CONFIRM_ABOVE_S and not yes:
        raise SweepRefused(
            f"the sweep would take about {_seconds_text(s.estimate)}, more than {_seconds_text(CONFIRM_ABOVE_S)}: "
            "pass --yes (yes=True) to run it"
        )
    if s.haproxy_stats:  # one snapshot now: a wrong socket or URL is refused before any run
        try:
            haproxy_snapshot(s.haproxy_stats)
        except OSError as e:
            raise SweepRefused(f"no HAProxy statistics from {s.haproxy_stats}: {e}") from None
    s.out.mkdir(parents=True, exist_ok=True)
    if s.drive.config_file:
        (s.out / s.drive.config_file).write_text(s.drive.config_text, encoding="utf-8")
    if s.haproxy_stats:
        (s.out / "haproxy").mkdir(exist_ok=True)
    (s.out / "cpu").mkdir(exist_ok=True)
    for name in s.monitors:
        (s.out / "monitor" / name).mkdir(parents=True, exist_ok=True)
    if s.master is not None and not s.workers_elsewhere:  # what Locust's workers print is no test: not read
        (s.out / WORKERS).mkdir()
        (s.out / ".lbignore").write_text(f"# Locust's workers' logs (the master prints the test)\n{WORKERS}/*\n")
    result = SweepResult(s.out, len(s.plan))
    manifest = _Manifest(s.out / "manifest.csv", s.labels, s.columns())
    try:
        with _Stop() as stop:
            if s.iperf is not None:
                failed = _iperf(s, "before", manifest, stop, stream)
                if failed:
                    result.stopped = (
                        f"nothing run: iperf3 could not measure the path ({failed}); is `iperf3 -s` listening on "
                        f"{s.iperf[1]}:{s.iperf[2]}? (or leave out --iperf)"
                    )
                    return result
            _run_plan(s, result, manifest, stop, yes, progress, stream)
            if s.iperf is not None and not stop.requested:  # Ctrl-C: stop now, the `before` stays
                _iperf(s, "after", manifest, stop, stream)
    finally:
        manifest.close()
    return result


def _auto_direct(s: _Settings, stream: TextIO) -> _Settings:
    """``--direct auto``: the first server HAProxy's ``show stat`` lists with an address, said; refused if none."""
    assert s.haproxy_stats
    try:
        servers = backend_urls(haproxy_snapshot(s.haproxy_stats), s.url)
    except OSError as e:
        raise SweepRefused(f"no HAProxy statistics from {s.haproxy_stats}: {e}") from None
    if not servers:
        raise SweepRefused("--direct auto: HAProxy's statistics list no server with an address (addr); give its URL")
    name, url = servers[0]
    others = f" (of {len(servers)} servers: give --direct URL for another)" if len(servers) > 1 else ""
    print(f"lbanalysis: direct runs to {name} at {url}{others}", file=stream, flush=True)
    return dataclasses.replace(s, direct=_check_url(url))


def _run_plan(
    s: _Settings, result: SweepResult, manifest: _Manifest, stop: _Stop, yes: bool, progress: bool | None,
    stream: TextIO,
) -> None:  # fmt: skip
    """Each run in turn, with its snapshots; stops early on Ctrl-C, or when the pace says ``yes`` is needed."""
    n = len(s.plan)
    per_run = (s.estimate - 2 * s.iperf_seconds) / n if s.estimate else None
    bar = _Progress.start(n, per_run, stream, progress, after_s=s.iperf_seconds)
    t_start = time.monotonic()
    try:
        for run in s.plan:
            if stop.requested:  # Ctrl-C before this run started (during a measurement or a snapshot)
                break
            notes, took = _one_run(s, run, manifest, stop, bar)
            result.done += 1
            result.failed += bool(notes)
            bar.step(f"{run_file(run, s.drive)}: " + (notes[0].split(";")[0] if notes else f"{took:.1f} s"))
            projected = (time.monotonic() - t_start) * n / result.done + 2 * s.iperf_seconds
            if (
                s.estimate is None
                and projected > CONFIRM_ABOVE_S
                and not yes
                and result.done < n
                and not stop.requested
            ):
                result.stopped = (
                    f"at this pace the sweep would take about {_seconds_text(projected)}, more than "
                    f"{_seconds_text(CONFIRM_ABOVE_S)}: stopped after {result.done} of {n} runs; "
                    "pass --yes (yes=True) to run it whole"
                )
                return
    finally:
        bar.close()
    if stop.requested and result.done < n:
        result.stopped = f"interrupted: {result.done} of {n} runs done"


def _one_run(
    s: _Settings, run: PlannedRun, manifest: _Manifest, stop: _Stop, bar: _Progress
) -> tuple[list[str], float]:
    """One run of the plan (its processes at once), with the snapshots, the monitors and the CPU around it;
    the notes of its failed processes, and its length in seconds."""
    from . import capture

    url = s.url_of(run)
    common: dict[str, object] = {}
    if s.direct:
        common.update(route=run.route, group=urllib.parse.urlsplit(s.url).netloc)
    if s.processes > 1:
        common.update(test=run_file(run, s.drive)[:-4], processes=s.processes)
    if s.haproxy_stats:
        _snapshot(s.haproxy_stats, s.out, run, "before", manifest, bar, common)
    watching = [_Monitor.start(name, argv, s.out, run) for name, argv in s.monitors.items()]
    procs = s.procs(run)
    if s.workers_elsewhere:
        assert s.master is not None
        bar.write(f"lbanalysis: run {run.index:03d}: Locust's master waits for {s.processes} workers at "
                  f"{s.master[0]}:{s.master[1]} (at most {s.limit:.0f} s)")  # fmt: skip
    before, t_before = capture.proc_stat(), time.time()
    children = []
    for p in procs:
        line = command_line(s.drive, p.argv, url) if p.load is not None else shlex.join(p.argv)
        stdin = s.drive.stdin.format(url=url) if p.load is not None else ""
        then = s.then if p.load is not None else ()
        c = _launch(p.argv, s.exe, s.out / p.file, s.out, f"$ {line}\n", stdin=stdin, then=then, pin=p.pin)
        c.sense = functools.partial(capture.cpu_limit, s.drive.executable, _tool_cores(s, run, p))
        c.look()  # at once: a short run may end before the next process starts
        children.append(c)
    if s.master is not None:  # the workers quit when the master does: the master's end is the run's
        _wait_all(children[:1], s.limit * (2 if s.workers_elsewhere else 1), stop)
        _wait_all(children[1:], _STOP_SIGNAL_WAIT_S * 2, stop)
    else:
        _wait_all(children, s.limit, stop)
    after, t_after = capture.proc_stat(), time.time()
    for m in watching:
        m.stop(manifest, run, bar, common)
    rows = []
    own = {k: v for k, v in common.items() if k != "test"}  # Locust's master: its output is the whole test
    for p, c in zip(procs, children, strict=True):
        note = c.note or ("" if p.load is not None else f"Locust worker {p.process} of run {run.index:03d}")
        manifest.add(
            file=p.file, tool=s.drive.executable, load=p.load, repeat=run.repeat,
            timestamp="" if s.drive.prints_start and p.load is not None else _utc(c.t0),
            end_time=_utc(c.t1), exit_code=c.code, note=note, **(own if p.load is not None and s.master else common),
            **({"process": p.process} if p.process else {}),
        )  # fmt: skip
        if c.usage is not None:
            cores, how = c.sensed or _inherited(s, run, p)
            line = command_line(s.drive, p.argv, url) if p.load is not None else shlex.join(p.argv)
            row = capture.process_row(
                c.usage, c.t1 - c.t0, command=line, pid=c.proc.pid, cores=cores, cores_by=how, max_rss_bytes=c.peak_rss
            )
            rows.append(
                {**row, "time": _utc(c.t1), "run_source": f"../{p.run_file}", "run": 0, "paired_by": "name stem"}
            )
    runs = {p.run_file for p in procs}
    own = {"run_source": f"../{runs.pop()}", "run": 0, "paired_by": "name stem"} if len(runs) == 1 else {}
    rows += [{**r, "time": _utc(t_after), "interval_s": round(t_after - t_before, 6), **own}
             for r in capture.host_rows(before, after)]  # fmt: skip
    cpu_file = f"cpu/{run.index:03d}.csv"
    capture.write_csv(s.out / cpu_file, rows, host=socket.gethostname(), role="client")
    manifest.add(
        file=cpu_file, tool="sweep", load=run.load, repeat=run.repeat, timestamp=_utc(t_before),
        end_time=_utc(t_after), note=f"CPU of run {run.index:03d}: the load tool's processes, this host's cores",
        **common,
    )  # fmt: skip
    if s.haproxy_stats:
        _snapshot(s.haproxy_stats, s.out, run, "after", manifest, bar, common)
    notes = [c.note for c in children if c.note]
    return notes, max(c.t1 for c in children) - min(c.t0 for c in children)


def _inherited(s: _Settings, run: PlannedRun, p: _Proc) -> tuple[float, str]:
    """The CPU limits of a process that ended before it could be read: those it inherited from the sweep (its
    cgroup and affinity, or the core it was pinned to), said so."""
    from . import capture

    cores, how = capture.cpu_limit(s.drive.executable, _tool_cores(s, run, p), os.getpid())
    if p.pin is not None:
        cores, how = min(cores, 1.0), re.sub(r"affinity: [^;]*", f"affinity: 1 ({p.pin})", how)
    return cores, how + " (the sweep's: it ended before it was read)"


def _tool_cores(s: _Settings, run: PlannedRun, p: _Proc) -> float:
    """The cores a process of a run can keep busy by the tool's own design (registry ``Drive.cores``)."""
    pinned = p.pin is not None
    try:
        cpus = 1 if pinned else len(os.sched_getaffinity(0))
    except (OSError, AttributeError):
        cpus = os.cpu_count() or 1
    threads = max(1, min(p.load or 1, 1 if pinned else (os.cpu_count() or 1)))
    return float(s.drive.cores.format(threads=threads, cpus=cpus))


@dataclass
class _Monitor:
    """A ``--monitor`` command running beside one run, its output into monitor/NAME/NNN.txt."""

    name: str
    command: str
    file: str
    proc: subprocess.Popen
    fh: Any
    t0: float

    @classmethod
    def start(cls, name: str, argv: Sequence[str], out: Path, run: PlannedRun) -> _Monitor:
        """Start the command (in its own session, stdout and stderr into its file)."""
        file = f"monitor/{name}/{run.index:03d}.txt"
        fh = open(out / file, "wb")
        t0 = time.time()
        proc = subprocess.Popen(list(argv), stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=out,
                                start_new_session=True)  # fmt: skip
        return cls(name, shlex.join([os.path.basename(argv[0]), *argv[1:]]), file, proc, fh, t0)

    def stop(self, manifest: _Manifest, run: PlannedRun, bar: _Progress, common: Mapping[str, object]) -> None:
        """Stop it (SIGTERM to its session, then SIGKILL) and add its file to the manifest; an early end is said."""
        ended = self.proc.poll()
        if ended is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=_STOP_SIGNAL_WAIT_S)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        t1 = time.time()
        self.fh.close()
        note = f"monitor {self.name} during run {run.index:03d}: {self.command}"
        if ended is not None:
            note += f"; it ended before the run did (exit status {ended})"
            bar.write(f"lbanalysis: warning: run {run.index:03d}: monitor {self.name} ended early "
                      f"(exit status {ended}); see {self.file}")  # fmt: skip
        manifest.add(
            file=self.file, tool=os.path.basename(self.command.split()[0]), load=run.load, repeat=run.repeat,
            timestamp=_utc(self.t0), end_time=_utc(t1), exit_code="" if ended is None else ended, note=note, **common,
        )  # fmt: skip


def _snapshot(
    target: str, out: Path, run: PlannedRun, when: str, manifest: _Manifest, bar: _Progress,
    common: Mapping[str, object] | None = None,
) -> None:  # fmt: skip
    """``show stat`` into haproxy/NNN-<when>.csv (and, through a socket, ``show info`` into
    haproxy/NNN-<when>-info.txt), timed in the manifest; a failure is said, not hidden."""
    commands = [("show stat", f"haproxy/{run.index:03d}-{when}.csv")]
    if not target.startswith(("http://", "https://")):
        commands.append(("show info", f"haproxy/{run.index:03d}-{when}-info.txt"))
    for command, name in commands:
        try:
            data = haproxy_snapshot(target, command=command)
        except OSError as e:
            bar.write(f"lbanalysis: warning: run {run.index:03d}: no HAProxy `{command}` {when} the run ({e})")
            continue
        t = time.time()  # the counters in hand: before the run's start, after its end
        (out / name).write_bytes(data)
        manifest.add(
            file=name,
            tool="haproxy",
            load=run.load,
            repeat=run.repeat,
            timestamp=_utc(t),
            note=f"{when} run {run.index:03d}",
            **(common or {}),
        )


def _iperf(s: _Settings, when: str, manifest: _Manifest, stop: _Stop, stream: TextIO) -> str:
    """iperf3 -c HOST -p PORT -J into iperf3-<when>.json; why it failed (and said), or ``""``."""
    assert s.iperf is not None
    exe, host, port = s.iperf
    argv = ["iperf3", "-c", host, "-p", str(port), "-J", "-t", str(s.iperf_seconds)]
    name = f"iperf3-{when}.json"
    print(f"lbanalysis: measuring the path to {host}:{port} ({shlex.join(argv)}) {when} the sweep", file=stream)
    code, note, _, t1 = _execute(argv, exe, s.out / name, s.out, s.iperf_seconds + GRACE_S, stop, None)
    error = _iperf_error(s.out / name)
    if error and not note:  # iperf3 -J may exit 0 with {"error": ...}
        note = f"iperf3: {error}"
    # iperf3's JSON shows its own start time: the manifest leaves `timestamp` to it (no conflict)
    manifest.add(
        file=name, tool="iperf3", end_time=_utc(t1), exit_code=code, note=note or f"path capacity {when} the sweep"
    )
    failed = error or (f"exit status {code}" if code else "")
    if failed:
        print(f"lbanalysis: warning: iperf3 {when} the sweep failed ({failed}); see {s.out / name}", file=stream)
    return failed


def _iperf_error(path: Path) -> str:
    """The ``error`` iperf3 -J wrote (it may exit 0 with one), or ``""``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return "no JSON output"
    return str(data.get("error") or "") if isinstance(data, dict) else "no JSON output"


def too_short(runs: pd.DataFrame) -> str:
    """A warning when the sweep's runs are too short or too small for the analysis to judge, else "".

    The thresholds are the verdict rules' own (:data:`lbanalysis.analysis.rules.RUN_GUARDS`): a run under
    ``min_duration_s`` or with fewer than ``min_requests`` attempts is left out of curves and verdicts.

    >>> print(too_short(pd.DataFrame({"tool": ["ab"] * 2, "duration_s": [0.3, 0.4], "requests": [2000, 2000]})))
    2 of 2 runs are too short for a verdict (under 1 s or fewer than 100 requests): the analysis leaves them out of curves; sweep with --duration 2s or more requests
    """
    from .analysis.rules import THRESHOLDS

    if runs.empty or "duration_s" not in runs:
        return ""
    http = runs[runs["tool"].map(lambda x: registry.get_tool(str(x)).kind == "http-load" if x in registry.names()
                                 else False).astype(bool)] if "tool" in runs else runs  # fmt: skip
    dur = pd.to_numeric(http["duration_s"], errors="coerce")
    n = pd.to_numeric(http["requests"], errors="coerce") if "requests" in http else pd.Series(float("nan"), http.index)
    short = (dur < THRESHOLDS["min_duration_s"]) | (n < THRESHOLDS["min_requests"])
    if not short.any():
        return ""
    return (
        f"{int(short.sum())} of {len(http)} runs are too short for a verdict (under {THRESHOLDS['min_duration_s']:g} s "
        f"or fewer than {THRESHOLDS['min_requests']:g} requests): the analysis leaves them out of curves; "
        "sweep with --duration 2s or more requests"
    )


def sweep(
    tool: str,
    url: str,
    loads: str | Sequence[int],
    *,
    output: str | os.PathLike,
    repeat: int = 1,
    requests: int | None = None,
    duration: str | int | None = None,
    extra: Sequence[str] = (),
    labels: Iterable[str] | Mapping[str, object] | None = None,
    iperf: str | None = None,
    iperf_seconds: int = IPERF_SECONDS,
    haproxy_stats: str | None = None,
    order: str = "shuffle",
    seed: int | None = None,
    timeout: float | None = None,
    yes: bool = False,
    explore: bool | str | os.PathLike = False,
    progress: bool | None = None,
    direct: str | None = None,
    monitors: Iterable[str] | Mapping[str, str] | None = None,
    processes: int = 1,
    workers_elsewhere: str | None = None,
) -> Any:
    """Run ``tool`` against ``url`` at each load, ``repeat`` times, into ``output``; return the folder read back.

    Parameters
    ----------
    tool
        An executable the registry knows how to drive: ab, siege, gobench,
        wrk, wrk2, hey, k6, locust, vegeta, oha, bombardier
        (:func:`lbanalysis.registry.drives`).
    url
        The target; nothing is started on the server side.
    loads
        ``"1,2,4,8"`` or a list: concurrency (wrk2 and vegeta: the rate asked, requests/s).
    requests, duration
        What bounds each run, exactly one: a number of requests (all clients
        together) or a duration (``"10s"``).
    extra
        More options for the tool (``-k``, ``-H 'Accept: ...'``), after the sweep's own.
    labels
        ``key=value`` pairs (or a dict) written as manifest columns of every file.
    iperf, iperf_seconds, haproxy_stats
        The evidence beside the runs (see the module docstring): ``HOST[:PORT]``
        of an ``iperf3 -s`` and how long each measurement lasts; a HAProxy
        stats socket path or stats page URL.
    order, seed
        Order of the loads within each repeat (:data:`ORDERS`); the shuffle's seed.
    direct
        A backend's URL (or ``"auto"``: the first server with an address in
        HAProxy's ``show stat``, with ``haproxy_stats``): each run is
        followed by the same run straight to it, the manifest's ``route``
        saying ``lb`` or ``direct`` and ``group`` the load balancer's
        address, so that both are one folder and two series.
    monitors
        ``NAME=COMMAND`` items (or a dict): each command runs beside every
        run, its output kept as ``monitor/NAME/NNN.txt`` (NAME is the host
        the CPU readers give its samples).
    processes
        Run N copies of the tool at once, the load (and requests) shared
        between them, each pinned to its own core when there are enough:
        one output and manifest row per process, the manifest's ``test``
        naming the test they make together. Locust runs in its distributed
        mode instead: a master (``--master --expect-workers N``, the whole
        load) and N workers on this machine.
    workers_elsewhere
        Locust's workers run on other machines: the master listens on this
        address (of this machine) and waits for them at each run (at most
        ``timeout``); the command to start them is printed.
    timeout
        Seconds after which a run is stopped (default: its duration + 30 s, or 300 s).
    yes
        Run a sweep estimated longer than :data:`CONFIRM_ABOVE_S`.
    explore
        Build the explore report from the folder when done (True: in
        ``reports/explore-<folder>``; or a folder to write it in).

    Returns
    -------
    Dataset
        ``lbanalysis.read(output, table="all")``. A Ctrl-C stops after the
        current run; the runs done are in the folder and in the Dataset.
    """
    from .reader import read

    result = run_sweep(
        tool, url, loads, output=output, repeat=repeat, requests=requests, duration=duration, extra=extra,
        labels=labels, iperf=iperf, iperf_seconds=iperf_seconds, haproxy_stats=haproxy_stats, order=order,
        seed=seed, timeout=timeout, yes=yes, progress=progress, direct=direct, monitors=monitors,
        processes=processes, workers_elsewhere=workers_elsewhere,
    )  # fmt: skip
    if result.stopped:
        print(f"lbanalysis: {result.stopped}", file=sys.stderr)
    ds = read(result.output, table="all", errors="warn")
    warning = too_short(ds.runs)
    if warning:
        print(f"lbanalysis: {warning}", file=sys.stderr)
    if explore and result.done:
        explore_report(result.output, None if explore is True else explore)
    return ds


def explore_report(folder: str | os.PathLike, output: str | os.PathLike | None = None) -> Path:
    """Build the explore report of a sweep's folder (as ``lbanalysis explore FOLDER``); the HTML's path."""
    from . import report

    folder = Path(folder).resolve()
    out = Path(output) if output else Path("reports") / f"explore-{folder.name}"
    return report.run_notebook(report.EXPLORE_NOTEBOOK, {"logs": str(folder)}, out, True, name="explore")
