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
import csv
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
    "PlannedRun",
    "SweepRefused",
    "SweepResult",
    "build_command",
    "estimate_seconds",
    "explore_report",
    "haproxy_snapshot",
    "parse_duration",
    "parse_labels",
    "parse_loads",
    "plan_runs",
    "run_file",
    "run_sweep",
    "sweep",
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
#: Orders of the runs within each repeat (repeats always follow one another: repeat 1 of every load first).
ORDERS = {
    "shuffle": "loads shuffled anew in each repeat (seeded)",
    "alternate": "loads ascending in odd repeats, descending in even ones",
    "up": "loads ascending in every repeat",
}
_STOP_SIGNAL_WAIT_S = 5.0
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


def run_file(run: PlannedRun, drive: Drive) -> str:
    """The file name of a run's output: position, tool, load and repeat.

    >>> run_file(PlannedRun(3, 16, 2), registry.drive_of("ab")), run_file(PlannedRun(12, 500, 1), registry.drive_of("wrk2"))
    ('003-ab-c16-r2.txt', '012-wrk2-R500-r1.txt')
    """
    short = _SHORT_LOAD.get(drive.load_column, "load")
    return f"{run.index:03d}-{drive.executable}-{short}{run.load}-r{run.repeat}.txt"


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
def haproxy_snapshot(target: str, timeout: float = 5.0) -> bytes:
    """HAProxy's ``show stat`` CSV: through the UNIX stats socket at ``target``, or from the stats page URL.

    A URL gets ``;csv`` appended (the stats page's CSV export) unless it has
    it; ``user:password@`` in the URL is sent as basic authentication.
    """
    if target.startswith(("http://", "https://")):
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
        s.sendall(b"show stat\n")
        while chunk := s.recv(65536):
            chunks.append(chunk)
    data = b"".join(chunks)
    if not data.lstrip().startswith(b"# pxname"):
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
        self.proc: subprocess.Popen | None = None
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
        elif self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)


def _execute(
    argv: list[str], exe: str, out: Path, cwd: Path, timeout: float, stop: _Stop, header: str | None,
    *, stdin: str = "", then: Sequence[str] = (),
) -> tuple[int, str, float, float]:  # fmt: skip
    """Run one command, its stdout and stderr into ``out`` (under ``header``); (exit code, note, start, end).

    The tool runs in its own session, so a Ctrl-C at the terminal reaches
    the sweep only (which lets the run finish); past ``timeout`` it gets
    SIGINT (the tools print what they measured), then SIGKILL. ``stdin`` is
    given to it on its standard input; with ``then`` (a command, its
    executable resolved) its output goes through that command, whose own
    output and exit status count (the tool's errors still go to ``out``).
    """
    note = ""
    with open(out, "wb") as fh:
        if header is not None:
            fh.write(header.encode())
            fh.flush()
        t0 = time.time()
        proc = subprocess.Popen(
            [exe, *argv[1:]], stdout=subprocess.PIPE if then else fh, stderr=fh if then else subprocess.STDOUT,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, cwd=cwd, start_new_session=True,
        )  # fmt: skip
        after = None
        if then:  # the tool's output through the next command, as a shell pipe would
            after = subprocess.Popen(list(then), stdin=proc.stdout, stdout=fh, stderr=subprocess.STDOUT, cwd=cwd,
                                     start_new_session=True)  # fmt: skip
            assert proc.stdout is not None
            proc.stdout.close()  # the next command alone reads it: it sees the end when the tool stops
        if stdin:
            assert proc.stdin is not None
            proc.stdin.write(stdin.encode() + b"\n")
            proc.stdin.close()
        stop.proc = proc
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGINT)
            try:
                code = proc.wait(timeout=_STOP_SIGNAL_WAIT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                code = proc.wait()
            note = f"stopped after {timeout:g} s (timeout); output kept as printed"
        finally:
            stop.proc = None
        if after is not None:
            try:
                code = after.wait(timeout=_STOP_SIGNAL_WAIT_S) or code
            except subprocess.TimeoutExpired:
                after.kill()
                code = after.wait() or code
        t1 = time.time()
    if not note and stop.requested > 1:
        note = "stopped by Ctrl-C; output kept as printed"
    if not note and code != 0:
        note = f"exit status {code}; output kept as printed, not retried"
    return code, note, t0, t1


@dataclass
class SweepResult:
    """What a sweep did: its folder, runs planned and run, failed runs, and whether it stopped early."""

    output: Path
    planned: int
    done: int = 0
    failed: int = 0
    stopped: str = ""


class _Manifest:
    """manifest.csv, one row per file, flushed as each file is done (an interrupted sweep leaves a whole one)."""

    def __init__(self, path: Path, labels: Mapping[str, str]):
        self.labels = dict(labels)
        self.fh = open(path, "w", newline="", encoding="utf-8")
        self.writer = csv.writer(self.fh)
        self.writer.writerow([*MANIFEST_COLUMNS, *self.labels])
        self.fh.flush()

    def add(self, **row: object) -> None:
        values = {**{c: "" for c in MANIFEST_COLUMNS}, **{k: ("" if v is None else v) for k, v in row.items()}}
        self.writer.writerow([*(values[c] for c in MANIFEST_COLUMNS), *self.labels.values()])
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

    def command(self, run: PlannedRun) -> list[str]:
        """The command of one run of the plan."""
        b = {"requests": self.requests, "seconds": self.seconds}
        return build_command(self.drive, self.url, run.load, extra=self.extra, **b)


def _settings(
    tool: str, url: str, loads: str | Sequence[int], output: str | os.PathLike, repeat: int, requests: int | None,
    duration: str | int | None, extra: Sequence[str], labels: Iterable[str] | Mapping[str, object] | None,
    iperf: str | None, iperf_seconds: int, haproxy_stats: str | None, order: str, seed: int, timeout: float | None,
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
    out = Path(output)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise SweepRefused(f"{out}: exists and is not an empty folder; a sweep writes into a new one")
    limit = float(timeout) if timeout else (seconds + GRACE_S if seconds is not None else REQUESTS_TIMEOUT_S)
    measured = int(iperf_seconds) if iperf else 0
    return _Settings(
        drive, exe, url, plan, load_list, out, requests, seconds, tuple(extra), parse_labels(labels), limit,
        iperf_at, measured, haproxy_stats, estimate_seconds(len(plan), seconds=seconds, iperf_seconds=measured),
        then,
    )  # fmt: skip


def _announce(s: _Settings, order: str, seed: int, stream: TextIO) -> None:
    """The plan and its estimated length, printed before anything runs."""
    bound = f"{s.requests} requests" if s.requests is not None else f"{s.seconds} s"
    what = (
        f"{len(s.plan)} runs of {s.drive.executable} ({len(s.loads)} loads x {len(s.plan) // len(s.loads)} "
        f"repeat(s), {bound} each, order {order}" + (f", seed {seed}" if order == "shuffle" else "") + ")"
    )
    if s.estimate is not None:
        length = f"about {_seconds_text(s.estimate)}"
    else:
        length = (
            f"length depends on the server's pace (each run stopped after {_seconds_text(s.limit)} at most); "
            "the time left shows after the first run"
        )
    print(f"lbanalysis: {what}: {length}", file=stream, flush=True)


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
) -> SweepResult:
    """Run the sweep (see :func:`sweep`) and say what it did, without reading the folder back.

    ``dry_run`` prints each run's file and command and runs nothing.
    """
    stream = stream or sys.stderr
    if seed is None:
        seed = random.SystemRandom().randrange(10**6)
    s = _settings(
        tool, url, loads, output, repeat, requests, duration, extra, labels, iperf, iperf_seconds, haproxy_stats,
        order, seed, timeout,
    )  # fmt: skip
    _announce(s, order, seed, stream)
    if dry_run:
        for run in s.plan:
            print(f"{run_file(run, s.drive)}: {command_line(s.drive, s.command(run), s.url)}", file=stream)
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
    result = SweepResult(s.out, len(s.plan))
    manifest = _Manifest(s.out / "manifest.csv", s.labels)
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
            argv = s.command(run)
            name = run_file(run, s.drive)
            if s.haproxy_stats:
                _snapshot(s.haproxy_stats, s.out, run, "before", manifest, bar)
            code, note, t0, t1 = _execute(
                argv, s.exe, s.out / name, s.out, s.limit, stop, f"$ {command_line(s.drive, argv, s.url)}\n",
                stdin=s.drive.stdin.format(url=s.url), then=s.then,
            )  # fmt: skip
            manifest.add(
                file=name, tool=s.drive.executable, load=run.load, repeat=run.repeat, timestamp=_utc(t0),
                end_time=_utc(t1), exit_code=code, note=note,
            )  # fmt: skip
            if s.haproxy_stats:
                _snapshot(s.haproxy_stats, s.out, run, "after", manifest, bar)
            result.done += 1
            result.failed += bool(note)
            bar.step(f"{name}: " + (note.split(";")[0] if note else f"{t1 - t0:.1f} s"))
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


def _snapshot(target: str, out: Path, run: PlannedRun, when: str, manifest: _Manifest, bar: _Progress) -> None:
    """One ``show stat`` snapshot into haproxy/NNN-<when>.csv, timed in the manifest (a failure is said, not hidden)."""
    name = f"haproxy/{run.index:03d}-{when}.csv"
    try:
        data = haproxy_snapshot(target)
    except OSError as e:
        bar.write(f"lbanalysis: warning: run {run.index:03d}: no HAProxy statistics {when} the run ({e})")
        return
    t = time.time()  # the counters in hand: before the run's start, after its end
    (out / name).write_bytes(data)
    manifest.add(
        file=name,
        tool="haproxy",
        load=run.load,
        repeat=run.repeat,
        timestamp=_utc(t),
        note=f"{when} run {run.index:03d}",
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
        seed=seed, timeout=timeout, yes=yes, progress=progress,
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
