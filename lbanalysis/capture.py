"""What a sweep measures of the CPU around each run: this host's cores, and the load tool's own process.

Linux only (``/proc`` and ``/sys/fs/cgroup``); elsewhere each measure is
left out, never guessed.

* :func:`proc_stat` reads ``/proc/stat``'s ``cpu`` lines (jiffies per core);
  :func:`host_rows` turns two readings into one row per core and one for
  all (``user`` includes ``nice``; ``irq`` counts as system; ``softirq``,
  ``iowait`` and ``steal`` apart; busy = 100 - idle - iowait).
* :func:`process_row` is the load tool's row from ``os.wait4``'s resource
  use: user and system seconds, peak RSS (as seen while it ran: ``VmHWM``),
  and the cores it could use, the
  smallest of the tool's threads (registry :attr:`~lbanalysis.registry.Drive.cores`),
  its CPU affinity (``taskset``) and its cgroup's CPU quota
  (:func:`cgroup_cpu_limit`: ``cpu.cfs_quota_us``/``cpu.cfs_period_us`` in
  cgroup v1, ``cpu.max`` in v2, the smallest along the path up).
* :func:`write_csv` writes them in the columns of
  :data:`lbanalysis.readers.cpu.capture_csv.COLUMNS`, which read into ``Dataset.cpu``.

>>> before = {"all": [100, 0, 50, 800, 50, 0, 0, 0], "0": [100, 0, 50, 800, 50, 0, 0, 0]}
>>> after = {"all": [400, 0, 150, 1100, 50, 0, 100, 0], "0": [400, 0, 150, 1100, 50, 0, 100, 0]}
>>> [(r["scope"], r["user_pct"], r["system_pct"], r["softirq_pct"], r["busy_pct"]) for r in host_rows(before, after)]
[('all', 37.5, 12.5, 12.5, 62.5), ('0', 37.5, 12.5, 12.5, 62.5)]
"""

from __future__ import annotations

import csv
import os
import resource
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from .readers.cpu.capture_csv import COLUMNS

__all__ = ["CGROUP_ROOT", "cgroup_cpu_limit", "cpu_limit", "host_rows", "proc_stat", "process_row", "write_csv"]

#: Where the cgroup hierarchies are mounted.
CGROUP_ROOT = Path("/sys/fs/cgroup")
# /proc/stat's cpu fields, in order: user nice system idle iowait irq softirq steal (guest is inside user)
_USER, _NICE, _SYSTEM, _IDLE, _IOWAIT, _IRQ, _SOFTIRQ, _STEAL = range(8)


def proc_stat(path: str | os.PathLike = "/proc/stat") -> dict[str, list[int]]:
    """``/proc/stat``'s CPU counters: ``all`` and each core id -> the first eight fields (jiffies); {} when absent.

    >>> stat = proc_stat()
    >>> "all" in stat and len(stat["all"]) == 8 if stat else True
    True
    """
    try:
        text = Path(path).read_text()
    except OSError:
        return {}
    out: dict[str, list[int]] = {}
    for line in text.splitlines():
        if not line.startswith("cpu"):
            continue
        name, *fields = line.split()
        values = [int(v) for v in fields[:8]] + [0] * max(0, 8 - len(fields))
        out["all" if name == "cpu" else name[3:]] = values
    return out


def _pct(part: float, total: float) -> float | None:
    return round(100.0 * part / total, 3) if total > 0 else None


def host_rows(before: Mapping[str, Sequence[int]], after: Mapping[str, Sequence[int]]) -> list[dict]:
    """One row per scope (``all`` first, then each core) from two ``/proc/stat`` readings.

    A scope that ticked no jiffy between the readings (a run shorter than a
    tick) gets no percentages.
    """
    rows = []
    cores = sum(1 for k in after if k != "all")
    for scope in ["all", *sorted((k for k in after if k != "all"), key=int)]:
        if scope not in before:
            continue
        d = [a - b for a, b in zip(after[scope], before[scope], strict=True)]
        total = float(sum(d))
        if total <= 0:
            continue
        idle, iowait = d[_IDLE], d[_IOWAIT]
        rows.append(
            {
                "scope": scope,
                "cores": float(cores if scope == "all" else 1),
                "user_pct": _pct(d[_USER] + d[_NICE], total),
                "system_pct": _pct(d[_SYSTEM] + d[_IRQ], total),
                "iowait_pct": _pct(iowait, total),
                "steal_pct": _pct(d[_STEAL], total),
                "softirq_pct": _pct(d[_SOFTIRQ], total),
                "idle_pct": _pct(idle, total),
                "busy_pct": _pct(total - idle - iowait, total),
                "tool": "proc-stat",
            }
        )
    return rows


def _read_number(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _limit_at(folder: Path) -> float | None:
    """The CPU quota (cores) set in one cgroup folder: v1 cfs quota/period, or v2 ``cpu.max``; None when unset."""
    quota, period = _read_number(folder / "cpu.cfs_quota_us"), _read_number(folder / "cpu.cfs_period_us")
    if quota is not None and period is not None:
        q, p = int(quota), int(period)
        return q / p if q > 0 and p > 0 else None
    limit = _read_number(folder / "cpu.max")
    if limit:
        q_text, _, p_text = limit.partition(" ")
        if q_text != "max" and p_text:
            return int(q_text) / int(p_text)
    return None


def cgroup_cpu_limit(pid: int | str = "self", root: str | os.PathLike = CGROUP_ROOT) -> tuple[float, str] | None:
    """The CPU quota of a process's cgroup, in cores, and the cgroup that sets it (the smallest up the path).

    Reads ``/proc/PID/cgroup``: the ``cpu`` controller's line (cgroup v1,
    mounted at ``ROOT/cpu`` or ``ROOT/cpu,cpuacct``), else the unified
    ``0::`` line (v2, at ``ROOT`` or ``ROOT/unified``). None when no quota
    applies or nothing can be read.

    >>> cgroup_cpu_limit(pid=0) is None  # no such process
    True
    """
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return None
    root = Path(root)
    places: list[tuple[Path, str]] = []
    for line in lines:
        hid, controllers, path = [*line.split(":", 2), "", ""][:3]
        if "cpu" in controllers.split(","):
            places += [(root / controllers, path), (root / "cpu", path)]
        elif hid == "0" and controllers == "":
            places += [(root / "unified", path), (root, path)]
    best: tuple[float, str] | None = None
    for mount, path in places:
        if not mount.is_dir():
            continue
        parts = [p for p in path.split("/") if p]
        for depth in range(len(parts), -1, -1):
            limit = _limit_at(mount.joinpath(*parts[:depth]))
            if limit is not None and (best is None or limit < best[0]):
                best = (limit, "/" + "/".join(parts[:depth]))
        if best is not None:
            return best
    return best


def _span(cpus: Iterable[int]) -> str:
    """Core ids as taskset lists them: ``0-3,6``.

    >>> _span([0, 1, 2, 3, 6]), _span([1])
    ('0-3,6', '1')
    """
    ids = sorted(cpus)
    out, start = [], None
    for i, c in enumerate(ids):
        if start is None:
            start = c
        if i + 1 == len(ids) or ids[i + 1] != c + 1:
            out.append(str(start) if start == c else f"{start}-{c}")
            start = None
    return ",".join(out)


def cpu_limit(tool: str, tool_cores: float, pid: int) -> tuple[float, str]:
    """The cores a process could use: the smallest of the tool's own, its affinity and its cgroup quota; and how.

    >>> cores, how = cpu_limit("ab", 1, os.getpid())
    >>> cores <= 1 and how.startswith("ab: 1")
    True
    """
    found = [(float(tool_cores), f"{tool}: {tool_cores:g}")]
    try:
        cpus = os.sched_getaffinity(pid)
        found.append((float(len(cpus)), f"affinity: {len(cpus)} ({_span(cpus)})"))
    except (OSError, AttributeError):
        pass
    quota = cgroup_cpu_limit(pid)
    if quota is not None:
        found.append((quota[0], f"cgroup {quota[1]}: {quota[0]:g}"))
    return min(c for c, _ in found), "; ".join(how for _, how in found)


def process_row(
    usage: resource.struct_rusage,
    wall_s: float,
    *,
    command: str,
    pid: int,
    cores: float | None,
    cores_by: str,
    max_rss_bytes: float | None = None,
) -> dict:
    """The load tool's row from its resource use (``os.wait4``): CPU seconds, busy share of its cores.

    ``max_rss_bytes`` is its peak resident memory as seen while it ran
    (``VmHWM``): ``os.wait4``'s ``ru_maxrss`` is no measure of a tool
    started from Python, since Linux keeps in it the memory of the process
    it was forked from (the sweep's own, at the ``exec``).

    >>> u = resource.struct_rusage((1.5, 0.5) + (0,) * 14)
    >>> r = process_row(u, 4.0, command="ab -c 1 http://h/", pid=7, cores=1.0, cores_by="ab: 1")
    >>> r["cpu_pct"], r["busy_pct"], r["scope"]
    (50.0, 50.0, 'process')
    """
    cpu_s = usage.ru_utime + usage.ru_stime
    cpu_pct = round(100.0 * cpu_s / wall_s, 3) if wall_s > 0 else None
    return {
        "scope": "process",
        "cores": cores,
        "cores_by": cores_by,
        "interval_s": round(wall_s, 6),
        "busy_pct": round(cpu_pct / cores, 3) if cpu_pct is not None and cores else None,
        "command": command,
        "pid": pid,
        "cpu_pct": cpu_pct,
        "user_s": round(usage.ru_utime, 6),
        "system_s": round(usage.ru_stime, 6),
        "wall_s": round(wall_s, 6),
        "max_rss_bytes": max_rss_bytes,
        "tool": "sweep",
    }


def write_csv(path: str | os.PathLike, rows: Iterable[Mapping[str, object]], **common: object) -> None:
    """The rows (each with ``common`` values added) as a cpu CSV in :data:`COLUMNS` order."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        for row in rows:
            values = {**common, **row}
            w.writerow(["" if values.get(c) is None else values[c] for c in COLUMNS])
