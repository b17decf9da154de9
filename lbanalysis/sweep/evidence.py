"""The evidence beside the runs: manifest.csv, HAProxy's statistics, iperf3's path capacity, the monitors.

>>> stat = "# pxname,svname,addr,status\\nbe,web1,10.0.0.5:8080,UP\\n"
>>> backend_urls(stat, "http://lb/")
[('be/web1', 'http://10.0.0.5:8080/')]
"""

from __future__ import annotations

import base64
import contextlib
import csv
import io
import json
import os
import shlex
import signal
import socket
import subprocess
import time
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from .plan import GRACE_S, MANIFEST_COLUMNS, PlannedRun
from .processes import STOP_SIGNAL_WAIT_S, Progress, Stop, execute, utc
from .settings import Settings


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


class Manifest:
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


@dataclass
class Monitor:
    """A ``--monitor`` command running beside one run, its output into monitor/NAME/NNN.txt."""

    name: str
    command: str
    file: str
    proc: subprocess.Popen
    fh: Any
    t0: float

    @classmethod
    def start(cls, name: str, argv: Sequence[str], out: Path, run: PlannedRun) -> Monitor:
        """Start the command (in its own session, stdout and stderr into its file)."""
        file = f"monitor/{name}/{run.index:03d}.txt"
        fh = open(out / file, "wb")
        t0 = time.time()
        proc = subprocess.Popen(list(argv), stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=out,
                                start_new_session=True)  # fmt: skip
        return cls(name, shlex.join([os.path.basename(argv[0]), *argv[1:]]), file, proc, fh, t0)

    def stop(self, manifest: Manifest, run: PlannedRun, bar: Progress, common: Mapping[str, object]) -> None:
        """Stop it (SIGTERM to its session, then SIGKILL) and add its file to the manifest; an early end is said."""
        ended = self.proc.poll()
        if ended is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=STOP_SIGNAL_WAIT_S)
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
            timestamp=utc(self.t0), end_time=utc(t1), exit_code="" if ended is None else ended, note=note, **common,
        )  # fmt: skip


def snapshot_haproxy(
    target: str, out: Path, run: PlannedRun, when: str, manifest: Manifest, bar: Progress,
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
            timestamp=utc(t),
            note=f"{when} run {run.index:03d}",
            **(common or {}),
        )


def measure_iperf(s: Settings, when: str, manifest: Manifest, stop: Stop, stream: TextIO) -> str:
    """iperf3 -c HOST -p PORT -J into iperf3-<when>.json; why it failed (and said), or ``""``."""
    assert s.iperf is not None
    exe, host, port = s.iperf
    argv = ["iperf3", "-c", host, "-p", str(port), "-J", "-t", str(s.iperf_seconds)]
    name = f"iperf3-{when}.json"
    print(f"lbanalysis: measuring the path to {host}:{port} ({shlex.join(argv)}) {when} the sweep", file=stream)
    code, note, _, t1 = execute(argv, exe, s.out / name, s.out, s.iperf_seconds + GRACE_S, stop, None)
    error = _iperf_error(s.out / name)
    if error and not note:  # iperf3 -J may exit 0 with {"error": ...}
        note = f"iperf3: {error}"
    # iperf3's JSON shows its own start time: the manifest leaves `timestamp` to it (no conflict)
    manifest.add(
        file=name, tool="iperf3", end_time=utc(t1), exit_code=code, note=note or f"path capacity {when} the sweep"
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
