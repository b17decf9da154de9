"""A sweep's arguments checked against each other and the machine (:func:`check_settings`), and announced.

Nothing runs here: a missing tool, an unbounded run, a taken label or a
folder that is not new is refused (:class:`~lbanalysis.sweep.plan.SweepRefused`).
"""

from __future__ import annotations

import os
import random
import shutil
import socket
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from .. import registry
from ..registry import Drive
from .plan import (
    GRACE_S,
    IPERF_PORT,
    PROCESS_COLUMNS,
    REQUESTS_TIMEOUT_S,
    WORKERS,
    PlannedRun,
    SweepRefused,
    build_command,
    check_url,
    estimate_seconds,
    host_port,
    parse_duration,
    parse_labels,
    parse_loads,
    parse_monitors,
    plan_runs,
    run_file,
    seconds_text,
    split_load,
    with_direct,
)


def _refuse_missing(executable: str, install: str) -> str:
    path = shutil.which(executable)
    if path is None:
        raise SweepRefused(
            f"{executable} is not installed (not on PATH); to install it: {install or 'see its project'}"
        )
    return path


@dataclass(frozen=True)
class Proc:
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
class Settings:
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

    def procs(self, run: PlannedRun) -> list[Proc]:
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
            master = Proc(name, argv, run.load, None, "", name)
            worker = [self.drive.executable, "-f", self.drive.config_file, "--worker", "--master-host", host,
                      "--master-port", str(port)]  # fmt: skip
            workers = [
                Proc(f"{WORKERS}/{run.index:03d}-w{k + 1}.txt", worker, None, self.pins[k], k + 1, name)
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
            out.append(Proc(name, argv, loads[k], self.pins[k], k + 1 if n > 1 else "", name))
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


def check_settings(
    tool: str, url: str, loads: str | Sequence[int], output: str | os.PathLike, repeat: int, requests: int | None,
    duration: str | int | None, extra: Sequence[str], labels: Iterable[str] | Mapping[str, object] | None,
    iperf: str | None, iperf_seconds: int, haproxy_stats: str | None, order: str, seed: int, timeout: float | None,
    *, direct: str | None = None, monitors: Iterable[str] | Mapping[str, str] | None = None, processes: int = 1,
    workers_elsewhere: str | None = None,
) -> Settings:  # fmt: skip
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
    distributed = _check_processes(drive, load_list, processes, workers_elsewhere)
    requests = _check_requests(drive, load_list, requests)
    plan = plan_runs(load_list, repeat, order, seed)
    url = check_url(url)
    build_command(drive, url, load_list[0], requests=requests, seconds=seconds, extra=extra)  # refuses a bad bound
    exe = _refuse_missing(drive.executable, drive.install)
    then = (_refuse_missing(drive.then[0], drive.install), *drive.then[1:]) if drive.then else ()
    iperf_at = _check_iperf(iperf, iperf_seconds)
    direct = _check_direct(direct, haproxy_stats)
    if direct:
        plan = with_direct(plan)
    watch = {name: [_refuse_missing(argv[0], f"the command of --monitor {name}"), *argv[1:]]
             for name, argv in parse_monitors(monitors).items()}  # fmt: skip
    labelled = _check_labels(labels)
    out = _new_folder(output)
    limit = float(timeout) if timeout else (seconds + GRACE_S if seconds is not None else REQUESTS_TIMEOUT_S)
    measured = int(iperf_seconds) if iperf else 0
    master = (workers_elsewhere or "127.0.0.1", _free_port(workers_elsewhere or "127.0.0.1")) if distributed else None
    return Settings(
        drive, exe, url, plan, load_list, out, requests, seconds, tuple(extra), labelled, limit,
        iperf_at, measured, haproxy_stats, estimate_seconds(len(plan), seconds=seconds, iperf_seconds=measured),
        then, direct, watch, processes, _pins(processes), master, bool(workers_elsewhere),
    )  # fmt: skip


def _check_processes(drive: Drive, loads: Sequence[int], processes: int, workers_elsewhere: str | None) -> bool:
    """Refuse a number of processes the loads cannot be shared by; True for Locust's distributed mode.

    >>> from lbanalysis.registry import drive_of
    >>> _check_processes(drive_of("ab"), [2, 4], 2, None), _check_processes(drive_of("locust"), [2], 2, None)
    (False, True)
    """
    if processes < 1:
        raise SweepRefused(f"--processes must be 1 or more, not {processes}")
    distributed = drive.executable == "locust" and processes > 1
    if workers_elsewhere and not distributed:
        raise SweepRefused("--workers-elsewhere is for Locust's distributed mode: locust with --processes 2 or more")
    if processes > 1 and min(loads) < processes:
        raise SweepRefused(
            f"--processes {processes} shares each load between {processes} processes: every load must be "
            f"{processes} or more, not {min(loads)}"
        )
    return distributed


def _check_requests(drive: Drive, loads: Sequence[int], requests: int | None) -> int | None:
    """The requests per run as a whole number: 1 or more, and (for a concurrency) one per client at least.

    >>> from lbanalysis.registry import drive_of
    >>> _check_requests(drive_of("ab"), [1, 8], "100"), _check_requests(drive_of("ab"), [1, 8], None)
    (100, None)
    """
    if requests is None:
        return None
    requests = int(requests)
    if requests < 1:
        raise SweepRefused(f"--requests must be 1 or more, not {requests}")
    if drive.load_column == "concurrency" and requests < max(loads):
        raise SweepRefused(
            f"--requests {requests} is below the largest load ({max(loads)}): each client needs a request"
        )
    return requests


def _check_iperf(iperf: str | None, iperf_seconds: int) -> tuple[str, str, int] | None:
    """``--iperf HOST[:PORT]`` as (iperf3's executable, host, port), or None without it."""
    if not iperf:
        return None
    at = (_refuse_missing("iperf3", "Debian package iperf3"), *host_port(iperf, IPERF_PORT))
    if int(iperf_seconds) < 1:
        raise SweepRefused(f"iperf3 measures for 1 second or more, not {iperf_seconds}")
    return at


def _check_direct(direct: str | None, haproxy_stats: str | None) -> str | None:
    """``--direct``: a backend's URL, ``"auto"`` (with ``--haproxy-stats``) or None; the stats socket must exist.

    >>> _check_direct("http://10.0.0.5:8080", None), _check_direct(None, None)
    ('http://10.0.0.5:8080/', None)
    """
    if haproxy_stats and not haproxy_stats.startswith(("http://", "https://")) and not os.path.exists(haproxy_stats):
        raise SweepRefused(f"{haproxy_stats}: no such HAProxy stats socket (--haproxy-stats SOCKET|URL)")
    if direct == "auto" and not haproxy_stats:
        raise SweepRefused("--direct auto takes the backend from HAProxy's statistics: give --haproxy-stats too")
    return check_url(direct) if direct and direct != "auto" else direct


def _check_labels(labels: Iterable[str] | Mapping[str, object] | None) -> dict[str, str]:
    """``--label`` pairs, none of them named as a column the sweep writes itself.

    >>> _check_labels(["setup=2-servers"])
    {'setup': '2-servers'}
    """
    labelled = parse_labels(labels)
    taken = [k for k in labelled if k in ("route", "group", *PROCESS_COLUMNS)]
    if taken:
        raise SweepRefused(f"label {taken[0]!r} is a column the sweep writes itself; choose another name")
    return labelled


def _new_folder(output: str | os.PathLike) -> Path:
    """The sweep's folder: new, or empty."""
    out = Path(output)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise SweepRefused(f"{out}: exists and is not an empty folder; a sweep writes into a new one")
    return out


def ephemeral_range() -> tuple[int, int]:
    """The kernel's range of ports for connections' own ends (Linux's ``ip_local_port_range``, else its default).

    >>> lo, hi = ephemeral_range(); 1024 <= lo < hi <= 65535
    True
    """
    try:
        lo, hi = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
        return lo, hi
    except (OSError, ValueError):
        return 32768, 60999


def listening_ports() -> range:
    """Ports for a server to listen on that no connection is given: from 10,000 (below, the well-known and
    registered ports of common services) to the ephemeral range, else above it.

    A port found free in the ephemeral range, closed and bound by a server a moment later, can be taken in
    between by a connection's own end: a load test opens them by the thousand.

    >>> lo, hi = ephemeral_range(); not any(lo <= p <= hi for p in (listening_ports()[0], listening_ports()[-1]))
    True
    """
    lo, hi = ephemeral_range()
    return range(10_000, lo) if lo - 10_000 >= 2_000 else range(hi + 1, 65536)


def free_ports(host: str, n: int = 1, ports: range | None = None, tries: int = 50) -> list[int]:
    """``n`` distinct TCP ports of ``host`` (an address of this machine) that nothing is bound to: of ``ports``
    (:func:`listening_ports` by default), tried at random, else ones the kernel picks. ``OSError`` when even
    the kernel's cannot be bound (an address of another machine).

    >>> a, b = free_ports("127.0.0.1", 2); a != b and a in listening_ports()
    True
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    pool = listening_ports() if ports is None else ports
    found: list[int] = []
    for port in [*random.sample(pool, min(tries, len(pool))), *[0] * n]:
        try:
            with socket.socket(family) as sock:
                sock.bind((host, port))
                got = sock.getsockname()[1]
        except OSError:
            if port == 0:
                raise
            continue
        if got not in found:
            found.append(got)
        if len(found) == n:
            return found
    raise OSError(f"fewer than {n} free ports of {host}")


def _free_port(host: str) -> int:
    """A port for Locust's master on ``host`` (:func:`free_ports`)."""
    try:
        return free_ports(host)[0]
    except OSError as e:
        raise SweepRefused(f"Locust's master cannot listen on {host} ({e}): give an address of this machine") from None


def announce(s: Settings, order: str, seed: int, stream: TextIO) -> None:
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
        length = f"about {seconds_text(s.estimate)}"
    else:
        length = (
            f"length depends on the server's pace (each run stopped after {seconds_text(s.limit)} at most); "
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
