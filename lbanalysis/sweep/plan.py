"""A sweep's plan, before anything runs: its arguments parsed, the order of the runs, each run's command and file.

>>> plan = plan_runs([1, 2, 4], repeats=2, order="alternate")
>>> [(r.index, r.load, r.repeat) for r in plan]
[(1, 1, 1), (2, 2, 1), (3, 4, 1), (4, 4, 2), (5, 2, 2), (6, 1, 2)]
"""

from __future__ import annotations

import math
import os
import random
import re
import shlex
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import LBAnalysisError
from ..registry import Drive

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
#: iperf3's port when --iperf names none.
IPERF_PORT = 5201
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


def parse_loads(text: str | Iterable[int]) -> list[int]:
    """Loads from ``"1,2,4,8"`` (or a list): positive whole numbers, in the order given, without duplicates.

    >>> parse_loads("1, 2,4,8"), parse_loads([8, 4, 4])
    ([1, 2, 4, 8], [8, 4])
    >>> parse_loads("1,x")
    Traceback (most recent call last):
    ...
    lbanalysis.sweep.plan.SweepRefused: loads must be positive whole numbers separated by commas, not '1,x'
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
    lbanalysis.sweep.plan.SweepRefused: a run's duration is whole seconds (1 or more), not '1.5s': the tools count in seconds
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
    lbanalysis.sweep.plan.SweepRefused: label 'load' is a column the sweep writes itself; choose another name
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

    >>> from lbanalysis import registry
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


def seconds_text(s: float) -> str:
    """``95 s``, ``4 min 10 s``, ``1 h 5 min``.

    >>> seconds_text(95.2), seconds_text(250), seconds_text(3900)
    ('1 min 35 s', '4 min 10 s', '1 h 5 min')
    """
    s = round(s)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min" + (f" {s % 60} s" if s % 60 else "")
    return f"{s // 3600} h {s % 3600 // 60} min"


def check_url(url: str) -> str:
    """An http(s) URL with a host; an empty path becomes ``/`` (ab refuses a URL without one).

    >>> check_url("http://127.0.0.1:8080")
    'http://127.0.0.1:8080/'
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SweepRefused(f"not an http:// or https:// URL with a host: {url!r}")
    return url if parts.path else urllib.parse.urlunsplit(parts._replace(path="/"))


def host_port(text: str, default: int) -> tuple[str, int]:
    """``HOST[:PORT]`` (``[v6]:PORT`` too).

    >>> host_port("127.0.0.1", 5201), host_port("lb:5202", 5201), host_port("[::1]:7", 5201)
    (('127.0.0.1', 5201), ('lb', 5202), ('::1', 7))
    """
    m = re.match(r"^\[([^\]]+)\](?::(\d+))?$", text) or re.match(r"^([^:]+)(?::(\d+))?$", text)
    if not m:
        raise SweepRefused(f"--iperf wants HOST or HOST:PORT, not {text!r}")
    return m.group(1), int(m.group(2) or default)


def parse_monitors(items: Iterable[str] | Mapping[str, str] | None) -> dict[str, list[str]]:
    """``NAME=COMMAND`` monitors (``--monitor``) as name -> argv; a name is a host's or a role's (``lb``, ``web1``).

    >>> parse_monitors(["lb=ssh lb vmstat -t 1", "client=mpstat -P ALL 1"])
    {'lb': ['ssh', 'lb', 'vmstat', '-t', '1'], 'client': ['mpstat', '-P', 'ALL', '1']}
    >>> parse_monitors(["vmstat -t 1"])
    Traceback (most recent call last):
    ...
    lbanalysis.sweep.plan.SweepRefused: --monitor wants NAME=COMMAND (e.g. lb='ssh lb vmstat -t 1'), not 'vmstat -t 1'
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
