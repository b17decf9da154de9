"""Running a sweep: the runs in turn (:func:`run_sweep`), each with its processes, snapshots, monitors and CPU."""

from __future__ import annotations

import dataclasses
import functools
import os
import random
import re
import shlex
import socket
import sys
import time
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from .evidence import Manifest, Monitor, backend_urls, haproxy_snapshot, measure_iperf, snapshot_haproxy
from .plan import (
    CONFIRM_ABOVE_S,
    IPERF_SECONDS,
    WORKERS,
    PlannedRun,
    SweepRefused,
    check_url,
    command_line,
    run_file,
    seconds_text,
)
from .processes import STOP_SIGNAL_WAIT_S, Child, Progress, Stop, launch, utc, wait_all
from .settings import Proc, Settings, announce, check_settings


@dataclass
class SweepResult:
    """What a sweep did: its folder, runs planned and run, failed runs, and whether it stopped early."""

    output: Path
    planned: int
    done: int = 0
    failed: int = 0
    stopped: str = ""


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
    s = check_settings(
        tool, url, loads, output, repeat, requests, duration, extra, labels, iperf, iperf_seconds, haproxy_stats,
        order, seed, timeout, direct=direct, monitors=monitors, processes=processes,
        workers_elsewhere=workers_elsewhere,
    )  # fmt: skip
    if s.direct == "auto":  # asked even for a dry run: the commands name the backend
        s = _auto_direct(s, stream)
    announce(s, order, seed, stream)
    if dry_run:
        for run in s.plan:
            for p in s.procs(run):
                print(f"{p.file}: {_line(s, run, p)}", file=stream)
        return SweepResult(s.out, len(s.plan), stopped="dry run: nothing was run")
    if s.estimate is not None and s.estimate > CONFIRM_ABOVE_S and not yes:
        raise SweepRefused(
            f"the sweep would take about {seconds_text(s.estimate)}, more than {seconds_text(CONFIRM_ABOVE_S)}: "
            "pass --yes (yes=True) to run it"
        )
    if s.haproxy_stats:  # one snapshot now: a wrong socket or URL is refused before any run
        try:
            haproxy_snapshot(s.haproxy_stats)
        except OSError as e:
            raise SweepRefused(f"no HAProxy statistics from {s.haproxy_stats}: {e}") from None
    _prepare(s)
    result = SweepResult(s.out, len(s.plan))
    manifest = Manifest(s.out / "manifest.csv", s.labels, s.columns())
    try:
        with Stop() as stop:
            if s.iperf is not None:
                failed = measure_iperf(s, "before", manifest, stop, stream)
                if failed:
                    result.stopped = _no_path(s, failed)
                    return result
            _run_plan(s, result, manifest, stop, yes, progress, stream)
            if s.iperf is not None and not stop.requested:  # Ctrl-C: stop now, the `before` stays
                measure_iperf(s, "after", manifest, stop, stream)
    finally:
        manifest.close()
    return result


def _prepare(s: Settings) -> None:
    """The sweep's folder and its sub-folders, the tool's config file, and what is not to be read (.lbignore)."""
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


def _no_path(s: Settings, failed: str) -> str:
    """Why nothing ran when iperf3 could not measure the path before the sweep."""
    assert s.iperf is not None
    return (
        f"nothing run: iperf3 could not measure the path ({failed}); is `iperf3 -s` listening on "
        f"{s.iperf[1]}:{s.iperf[2]}? (or leave out --iperf)"
    )


def _auto_direct(s: Settings, stream: TextIO) -> Settings:
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
    return dataclasses.replace(s, direct=check_url(url))


def _run_plan(
    s: Settings, result: SweepResult, manifest: Manifest, stop: Stop, yes: bool, progress: bool | None,
    stream: TextIO,
) -> None:  # fmt: skip
    """Each run in turn, with its snapshots; stops early on Ctrl-C, or when the pace says ``yes`` is needed."""
    n = len(s.plan)
    per_run = (s.estimate - 2 * s.iperf_seconds) / n if s.estimate else None
    bar = Progress.start(n, per_run, stream, progress, after_s=s.iperf_seconds)
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
                    f"at this pace the sweep would take about {seconds_text(projected)}, more than "
                    f"{seconds_text(CONFIRM_ABOVE_S)}: stopped after {result.done} of {n} runs; "
                    "pass --yes (yes=True) to run it whole"
                )
                return
    finally:
        bar.close()
    if stop.requested and result.done < n:
        result.stopped = f"interrupted: {result.done} of {n} runs done"


def _one_run(s: Settings, run: PlannedRun, manifest: Manifest, stop: Stop, bar: Progress) -> tuple[list[str], float]:
    """One run of the plan (its processes at once), with the snapshots, the monitors and the CPU around it;
    the notes of its failed processes, and its length in seconds."""
    from .. import capture

    common = _common_columns(s, run)
    if s.haproxy_stats:
        snapshot_haproxy(s.haproxy_stats, s.out, run, "before", manifest, bar, common)
    watching = [Monitor.start(name, argv, s.out, run) for name, argv in s.monitors.items()]
    procs = s.procs(run)
    if s.workers_elsewhere:
        assert s.master is not None
        bar.write(f"lbanalysis: run {run.index:03d}: Locust's master waits for {s.processes} workers at "
                  f"{s.master[0]}:{s.master[1]} (at most {s.limit:.0f} s)")  # fmt: skip
    before, t_before = capture.proc_stat(), time.time()
    children = [_start(s, run, p) for p in procs]
    _wait_run(s, children, stop)
    after, t_after = capture.proc_stat(), time.time()
    for m in watching:
        m.stop(manifest, run, bar, common)
    rows = [row for p, c in zip(procs, children, strict=True) for row in _record(s, run, p, c, manifest, common)]
    runs = {p.run_file for p in procs}
    own = {"run_source": f"../{runs.pop()}", "run": 0, "paired_by": "name stem"} if len(runs) == 1 else {}
    rows += [{**r, "time": utc(t_after), "interval_s": round(t_after - t_before, 6), **own}
             for r in capture.host_rows(before, after)]  # fmt: skip
    cpu_file = f"cpu/{run.index:03d}.csv"
    capture.write_csv(s.out / cpu_file, rows, host=socket.gethostname(), role="client")
    manifest.add(
        file=cpu_file, tool="sweep", load=run.load, repeat=run.repeat, timestamp=utc(t_before),
        end_time=utc(t_after), note=f"CPU of run {run.index:03d}: the load tool's processes, this host's cores",
        **common,
    )  # fmt: skip
    if s.haproxy_stats:
        snapshot_haproxy(s.haproxy_stats, s.out, run, "after", manifest, bar, common)
    notes = [c.note for c in children if c.note]
    return notes, max(c.t1 for c in children) - min(c.t0 for c in children)


#: One run of a plan with its snapshots, monitors and CPU (what a search runs one at a time).
one_run = _one_run


def _common_columns(s: Settings, run: PlannedRun) -> dict[str, object]:
    """The manifest columns every file of a run shares: ``route`` and ``group`` (direct), ``test`` and
    ``processes`` (several processes)."""
    common: dict[str, object] = {}
    if s.direct:
        common.update(route=run.route, group=urllib.parse.urlsplit(s.url).netloc)
    if s.processes > 1:
        common.update(test=run_file(run, s.drive)[:-4], processes=s.processes)
    return common


def _line(s: Settings, run: PlannedRun, p: Proc) -> str:
    """The command line a process's output starts with (a Locust worker's as it is)."""
    return command_line(s.drive, p.argv, s.url_of(run)) if p.load is not None else shlex.join(p.argv)


def _start(s: Settings, run: PlannedRun, p: Proc) -> Child:
    """Start one process of a run, its memory and CPU limits read at once (a short run may end before the next
    starts)."""
    from .. import capture

    url = s.url_of(run)
    stdin = s.drive.stdin.format(url=url) if p.load is not None else ""
    then = s.then if p.load is not None else ()
    c = launch(p.argv, s.exe, s.out / p.file, s.out, f"$ {_line(s, run, p)}\n", stdin=stdin, then=then, pin=p.pin)
    c.sense = functools.partial(capture.cpu_limit, s.drive.executable, _tool_cores(s, run, p))
    c.watch_memory()
    c.look()
    return c


def _wait_run(s: Settings, children: Sequence[Child], stop: Stop) -> None:
    """Wait for a run's processes; Locust's workers quit when the master does: the master's end is the run's."""
    if s.master is not None:
        wait_all(children[:1], s.limit * (2 if s.workers_elsewhere else 1), stop)
        wait_all(children[1:], STOP_SIGNAL_WAIT_S * 2, stop)
    else:
        wait_all(children, s.limit, stop)


def _record(
    s: Settings, run: PlannedRun, p: Proc, c: Child, manifest: Manifest, common: Mapping[str, object]
) -> list[dict[str, Any]]:
    """A process's manifest row, and its CPU row (its resource use, the cores it could use) if it was reaped."""
    from .. import capture

    own = {k: v for k, v in common.items() if k != "test"}  # Locust's master: its output is the whole test
    note = c.note or ("" if p.load is not None else f"Locust worker {p.process} of run {run.index:03d}")
    manifest.add(
        file=p.file, tool=s.drive.executable, load=p.load, repeat=run.repeat,
        timestamp="" if s.drive.prints_start and p.load is not None else utc(c.t0),
        end_time=utc(c.t1), exit_code=c.code, note=note, **(own if p.load is not None and s.master else common),
        **({"process": p.process} if p.process else {}),
    )  # fmt: skip
    if c.usage is None:
        return []
    cores, how = c.sensed or _inherited(s, run, p)
    row = capture.process_row(
        c.usage, c.t1 - c.t0, command=_line(s, run, p), pid=c.proc.pid, cores=cores, cores_by=how,
        max_rss_bytes=c.peak_rss,
    )  # fmt: skip
    return [{**row, "time": utc(c.t1), "run_source": f"../{p.run_file}", "run": 0, "paired_by": "name stem"}]


def _inherited(s: Settings, run: PlannedRun, p: Proc) -> tuple[float, str]:
    """The CPU limits of a process that ended before it could be read: those it inherited from the sweep (its
    cgroup and affinity, or the core it was pinned to), said so."""
    from .. import capture

    cores, how = capture.cpu_limit(s.drive.executable, _tool_cores(s, run, p), os.getpid())
    if p.pin is not None:
        cores, how = min(cores, 1.0), re.sub(r"affinity: [^;]*", f"affinity: 1 ({p.pin})", how)
    return cores, how + " (the sweep's: it ended before it was read)"


def _tool_cores(s: Settings, run: PlannedRun, p: Proc) -> float:
    """The cores a process of a run can keep busy by the tool's own design (registry ``Drive.cores``)."""
    pinned = p.pin is not None
    try:
        cpus = 1 if pinned else len(os.sched_getaffinity(0))
    except (OSError, AttributeError):
        cpus = os.cpu_count() or 1
    threads = max(1, min(p.load or 1, 1 if pinned else (os.cpu_count() or 1)))
    return float(s.drive.cores.format(threads=threads, cpus=cpus))
