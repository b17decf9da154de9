"""The processes of a run: started in their own session, reaped with their resource use, stopped at a timeout.

Also the progress line (or bar) and Ctrl-C's two steps (:class:`Stop`).

>>> utc(0.0)
'1970-01-01 00:00:00.000000'
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from .plan import seconds_text

#: Seconds a process has to end after SIGINT (or SIGTERM) before it gets SIGKILL.
STOP_SIGNAL_WAIT_S = 5.0
#: Seconds between two readings of a running process's CPU limits.
_SENSE_EVERY_S = 0.25


def utc(t: float) -> str:
    """A time as naive UTC with microseconds (the form the runs table's ``timestamp`` holds)."""
    return datetime.fromtimestamp(t, UTC).replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")


@dataclass
class Progress:
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
    ) -> Progress:
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
        when = f", about {seconds_text(left)} left" if left is not None and self.done < self.total else ""
        print(f"[{self.done}/{self.total}] {text}{when}", file=self.stream, flush=True)

    def write(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class Stop:
    """Ctrl-C during a sweep: the first asks to stop after the current run, the second stops that run too."""

    def __init__(self) -> None:
        self.requested = 0
        self.children: list[Child] = []  # the processes of the current run (several with --processes)
        self._old: Any = None

    def __enter__(self) -> Stop:
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
class Child:
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

    def watch_memory(self) -> None:
        """Keep the highest peak resident memory read of the living process (``VmHWM``; an ended process,
        a zombie, shows none: a run that ends before its first reading has no peak)."""
        self.peak_rss = max(filter(None, (self.peak_rss, _peak_rss(self.proc.pid))), default=None)

    def reap(self) -> bool:
        """Reap the process if it ended (``os.wait4``: its exit status and resource use); True once reaped.

        Until then its ``sense`` is read every :data:`_SENSE_EVERY_S` seconds (a wrapper such as ``cgexec``
        may move it into its cgroup after it started)."""
        if self.code is None:
            if self.sense is not None:
                self.watch_memory()
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


def launch(
    argv: Sequence[str], exe: str, out: Path, cwd: Path, header: str | None, *, stdin: str = "",
    then: Sequence[str] = (), pin: int | None = None,
) -> Child:  # fmt: skip
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
    child = Child(proc, fh, t0)
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


def _poll(children: Sequence[Child], deadline: float | None) -> None:
    """Reap the children as they end, until all have or ``deadline`` (monotonic) passes."""
    delay = 0.001
    while not all([c.reap() for c in children]):
        if deadline is not None and time.monotonic() >= deadline:
            return
        time.sleep(delay)
        delay = min(2 * delay, 0.01)


def wait_all(children: Sequence[Child], timeout: float, stop: Stop) -> None:
    """Wait for a run's processes; past ``timeout`` each gets SIGINT (the tools print what they measured), then
    SIGKILL. Notes why a process failed or was stopped; closes the outputs."""
    stop.children = list(children)
    try:
        _poll(children, time.monotonic() + timeout)
        late = [c for c in children if c.code is None]
        for c in late:
            c.signal(signal.SIGINT)
            c.note = f"stopped after {timeout:g} s (timeout); output kept as printed"
        _poll(late, time.monotonic() + STOP_SIGNAL_WAIT_S)
        for c in late:
            c.signal(signal.SIGKILL)
        _poll(late, None)
    finally:
        stop.children = []
    for c in children:
        if c.after is not None:
            try:
                c.code = c.after.wait(timeout=STOP_SIGNAL_WAIT_S) or c.code
            except subprocess.TimeoutExpired:
                c.after.kill()
                c.code = c.after.wait() or c.code
            c.t1 = time.time()
        c.fh.close()
        if not c.note and stop.requested > 1:
            c.note = "stopped by Ctrl-C; output kept as printed"
        if not c.note and c.code != 0:
            c.note = f"exit status {c.code}; output kept as printed, not retried"


def execute(
    argv: list[str], exe: str, out: Path, cwd: Path, timeout: float, stop: Stop, header: str | None,
    *, stdin: str = "", then: Sequence[str] = (),
) -> tuple[int, str, float, float]:  # fmt: skip
    """Run one command to its end (see :func:`launch` and :func:`wait_all`); (exit code, note, start, end)."""
    child = launch(argv, exe, out, cwd, header, stdin=stdin, then=then)
    wait_all([child], timeout, stop)
    assert child.code is not None
    return child.code, child.note, child.t0, child.t1
