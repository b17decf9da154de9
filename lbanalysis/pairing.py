"""Which run each CPU sample belongs to, and what its host or process was in the test.

:func:`pair_cpu` fills the ``run``, ``run_source``, ``paired_by``, ``host``
and ``role`` columns of the ``cpu`` table (:data:`lbanalysis.schema.CPU`);
:func:`lbanalysis.read` applies it. A sample is paired, in this order, by:

1. **same file**: printed after the run's output in the run's file
   (``time -v``'s report; the reader says which run), or a manifest row
   naming the run's file (its ``cpu_pct`` columns: :func:`manifest_cpu`);
2. **name stem**: a file in the run's folder named after the run's file
   once the monitor's and the tools' words are taken out
   (``vmstat_c08_r1.txt``, ``haproxy-info_ab_c08_r1_before.txt`` ↔
   ``ab_c08_r1.txt``), or the sweep's ``monitor/NAME/NNN.txt`` ↔ its run
   ``NNN-…`` in the folder above;
3. **time**: the sample's time inside the run's window (its ``timestamp``
   to its ``end_time``, or ``timestamp`` + ``duration_s``) in the same
   folder (or the folder above ``monitor/``);
4. **folder**: a run in the same folder, but no one run: ``run`` stays
   empty and ``paired_by`` says 'folder'.

A sample averaged since the host booted (``summary`` 'since boot') is no
sample of any run: it is left unpaired. Times are compared as printed
(the monitors and the sweep's manifest both print the host's clock:
naive, UTC on the sweep's side).

A sample's ``host`` comes from its file (sysstat's header, dool's CSV,
HAProxy's ``node``), else the sweep's monitor name; its ``role`` from
the host's name (:data:`HOST_ROLES`) or, for a process, its command
(:data:`PROCESS_ROLES`; a load tool of the registry is the client).

>>> role_of_host("tu-lb-01"), role_of_host("web2"), role_of_host("loadgen-a"), role_of_host("vm")
('load balancer', 'server', 'client', '')
>>> role_of_command("/usr/sbin/haproxy -f /etc/haproxy.cfg"), role_of_command("taskset -c 0 hey -c 8 http://h/")
('load balancer', 'client')
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import registry
from .text import WRAPPERS
from .units import end_times

__all__ = [
    "HOST_ROLES",
    "MONITOR_WORDS",
    "PROCESS_ROLES",
    "cpu_columns",
    "cpu_of_columns",
    "manifest_cpu",
    "pair_cpu",
    "pattern_cpu",
    "role_of_command",
    "role_of_host",
    "stem_words",
]

#: words of a host or monitor name -> its role (the name's words: split at anything not a letter)
HOST_ROLES: dict[str, tuple[str, ...]] = {
    "load balancer": ("lb", "haproxy", "balancer", "loadbalancer", "proxy", "nginxlb"),
    "server": ("web", "backend", "server", "node", "app", "www", "srv", "apache", "nginx", "upstream"),
    "client": ("client", "loadgen", "injector", "generator", "bench", "driver", "tester"),
}
#: a process's executable -> its role (besides the registry's load tools: the client)
PROCESS_ROLES: dict[str, tuple[str, ...]] = {
    "load balancer": ("haproxy", "envoy", "traefik", "pen", "balance"),
    "server": ("nginx", "apache", "apache2", "httpd", "lighttpd", "caddy", "php-fpm", "gunicorn", "uwsgi", "node"),
}
#: words a monitor file's name adds to its run's name (left out when the two are compared)
MONITOR_WORDS = frozenset(
    "vmstat mpstat sar iostat pidstat dstat dool top time haproxy info show stat stats cpu before after during "
    "monitor mon host txt log out csv".split()
)

_WRAPPED_RE = re.compile(r"^(?:(?:" + "|".join(WRAPPERS.values()) + r")\s+)*")


def role_of_host(name: str | None) -> str:
    """The role a host or monitor name says (:data:`HOST_ROLES`), else ''."""
    words = set(re.split(r"[^a-z]+", str(name or "").lower()))
    return next((role for role, known in HOST_ROLES.items() if words & set(known)), "")


def role_of_command(command: str | None) -> str:
    """The role of a process from its command's executable: a registry load tool is the client, else
    :data:`PROCESS_ROLES`, else ''."""
    rest = _WRAPPED_RE.sub("", str(command or "").strip(), count=1)
    exe = rest.split(None, 1)[0] if rest.split() else ""
    tool = registry.tool_of_executable(exe) if exe else None
    if tool is not None and registry.get_tool(tool).kind == "http-load":
        return "client"
    base = exe.replace("\\", "/").rsplit("/", 1)[-1].split(":", 1)[0]
    return next((role for role, known in PROCESS_ROLES.items() if base in known), "")


def _tool_words() -> frozenset[str]:
    return frozenset(w.lower() for t in registry.TOOLS for w in (t.name, *t.executables))


def stem_words(name: str, *, tools: bool = False) -> tuple[str, ...]:
    """A file name's words without its extension, the monitors' and (unless ``tools``) the tools' words: what
    names its run. With ``tools``, a monitor named after one tool's run (``vmstat_ab_c16_r1.txt``) tells it
    from another tool's run at the same load in the folder (``hey_c16_r1.txt``).

    >>> stem_words("haproxy-info_ab_c08_r1_before.txt"), stem_words("vmstat_c08_r1.txt"), stem_words("ab_c08_r1.txt")
    (('c08', 'r1'), ('c08', 'r1'), ('c08', 'r1'))
    >>> stem_words("vmstat_ab_c16_r1.txt", tools=True), stem_words("hey_c16_r1.txt", tools=True)
    (('ab', 'c16', 'r1'), ('hey', 'c16', 'r1'))
    """
    stem = name.rsplit(".", 1)[0] if "." in name else name
    drop = MONITOR_WORDS if tools else MONITOR_WORDS | _tool_words()
    return tuple(w for w in re.split(r"[-_.\s]+", stem.lower()) if w and w not in drop)


def _monitor(source: str) -> tuple[str, str, str] | None:
    """(sweep folder, monitor name, run number) of a sweep's ``monitor/NAME/NNN.txt``, else None.

    >>> _monitor("out/monitor/lb/003.txt"), _monitor("out/vmstat.txt")
    (('out', 'lb', '003'), None)
    """
    p = Path(source)
    m = re.fullmatch(r"(\d+)(?:[-_.].*)?", p.stem)
    if m is None or len(p.parts) < 3 or p.parts[-3] != "monitor":
        return None
    return str(p.parent.parent.parent), p.parent.name, m[1]


def _windows(runs: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Each run's start and end (NaT where unknown): ``timestamp`` to ``end_time``, or ``timestamp`` + ``duration_s``."""
    start = pd.to_datetime(runs["timestamp"], errors="coerce") if "timestamp" in runs else pd.Series(pd.NaT, runs.index)
    start = start.astype("datetime64[ns]")
    end = pd.Series(pd.NaT, index=runs.index, dtype="datetime64[ns]")
    if "end_time" in runs:
        end = pd.to_datetime(runs["end_time"].astype("string"), errors="coerce").astype("datetime64[ns]")
    if "duration_s" in runs:
        by_duration = end_times(start, runs["duration_s"])
        end = by_duration if "end_time" not in runs else end.where(end.notna(), by_duration)
    return start, end


def pair_cpu(data: Any, runs: pd.DataFrame | None = None) -> pd.DataFrame:
    """The ``cpu`` table with each sample's run, how it was paired, its host and role (see the module's text).

    ``data``: a :class:`~lbanalysis.Dataset` (its ``cpu`` and ``runs``), or a ``cpu`` table with ``runs``.

    ``runs`` is the runs table read with it (``source``, ``run``, ``tool``, and where
    known ``timestamp``, ``end_time``, ``duration_s``); only the runs of load and network
    tests are paired with (a HAProxy snapshot is evidence beside a run, not a run).

    >>> from lbanalysis import schema
    >>> runs = pd.DataFrame({"source": ["d/ab_c08_r1.txt", "d/ab_c16_r1.txt"], "run": [0, 0], "tool": ["ab", "ab"]})
    >>> cpu = schema.conform([{"source": "d/vmstat_c16_r1.txt", "line": 3, "scope": "all", "busy_pct": 90.0},
    ...                       {"source": "d/mpstat.txt", "line": 4, "scope": "all", "host": "web-1"}], "cpu")
    >>> pair_cpu(cpu, runs)[["run", "run_source", "paired_by", "role"]].to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
    [{'run': 0, 'run_source': 'd/ab_c16_r1.txt', 'paired_by': 'name stem', 'role': None},
     {'run': None, 'run_source': None, 'paired_by': 'folder', 'role': 'server'}]
    """
    cpu = data.cpu if runs is None else data
    runs = data.runs if runs is None else runs
    if cpu.empty:
        return cpu
    cpu = cpu.copy()
    p = _Pairing(cpu)
    tests = runs["tool"].isin(registry.names(kind="http-load") + registry.names(kind="network")) if len(runs) else None
    runs = runs[[c for c in _CANDIDATE_COLUMNS if c in runs]]  # a wide runs table's rows are not copied whole
    cand = _Candidates(runs[tests.to_numpy(bool)] if tests is not None else runs)  # tests, not snapshots
    for src, idx in pd.Series(range(len(cpu))).groupby(p.source.to_numpy()).groups.items():
        p.pair_file(str(src), list(idx), cand)
    cpu["run"] = pd.array(p.run, dtype="Int64")
    cpu["run_source"] = pd.array(p.run_source, dtype="string")
    cpu["paired_by"] = pd.array(p.paired, dtype="string")
    cpu["host"] = pd.array(p.host, dtype="string")
    cpu["role"] = pd.array(_roles(cpu, p.host, p.monitor), dtype="string")
    return cpu


#: The runs' columns the pairing reads (:class:`_Candidates`, :func:`_windows`)
_CANDIDATE_COLUMNS = ("source", "run", "tool", "timestamp", "end_time", "duration_s")


def _objects(s: pd.Series, dtype: str) -> np.ndarray:
    """A column as an object array, missing values None."""
    return s.astype(dtype).to_numpy(dtype=object, na_value=None)


class _Candidates:
    """The runs samples may be paired with: their file, folder, name, name stem and time window.

    Plain arrays and a folder index: pairing a file looks at the runs of its folder only, so that a
    read pairs in time that grows with the folder, not with its square (issue #39).
    """

    def __init__(self, runs: pd.DataFrame) -> None:
        self.runs = runs
        source = runs["source"].astype(str).to_numpy(dtype=object) if len(runs) else np.array([], dtype=object)
        self.source = source
        self.run = runs["run"].to_numpy(dtype=object) if len(runs) else np.array([], dtype=object)
        self.names = [os.path.basename(s) for s in source]
        folders = [os.path.dirname(s) for s in source]
        self._in: dict[str, np.ndarray] = {}
        for k, d in enumerate(folders):
            self._in.setdefault(d, []).append(k)  # type: ignore[arg-type]
        self._in = {d: np.asarray(ks, dtype=np.intp) for d, ks in self._in.items()}
        start, end = _windows(runs) if len(runs) else (pd.Series([], dtype="datetime64[ns]"),) * 2
        self.start, self.end = start.to_numpy(), end.to_numpy()
        self.timed = ~(np.isnat(self.start) | np.isnat(self.end))
        self._stems: dict[int, tuple[str, ...]] = {}

    def folder(self, d: str) -> np.ndarray:
        """The indices of the runs in the folder ``d``, ascending."""
        return self._in.get(d, np.array([], dtype=np.intp))

    def stem(self, k: int) -> tuple[str, ...]:
        """The name stem of run ``k`` (:func:`stem_words`), computed once."""
        if k not in self._stems:
            self._stems[k] = stem_words(self.names[k])
        return self._stems[k]

    def by_name(self, src: str, here: np.ndarray, mon: tuple[str, str, str] | None) -> np.ndarray:
        """The runs of the folder (``here``: their indices) whose name goes with the file ``src``: the sweep's
        run number of a monitor, else the same name stem (several tools' runs at that load: the one the file's
        name names)."""
        if mon:  # the sweep's run files begin with their number
            return np.array([k for k in here if self.names[k].startswith(f"{mon[2]}-")], dtype=np.intp)
        words = stem_words(os.path.basename(src))
        found = np.array([k for k in here if words and self.stem(k) == words], dtype=np.intp)
        if len(found) > 1:
            named = stem_words(os.path.basename(src), tools=True)
            found = np.array([k for k in found if stem_words(self.names[k], tools=True) == named], dtype=np.intp)
        return found

    def by_time(self, t: Any, timed: np.ndarray) -> int | None:
        """The one run of ``timed`` whose window holds the time ``t`` (half a second of slack at its end)."""
        if not pd.notna(t) or not len(timed):
            return None
        t64 = np.datetime64(pd.Timestamp(t).as_unit("ns").asm8)
        slack = np.timedelta64(500, "ms")
        inside = timed[(self.start[timed] < t64) & (t64 <= self.end[timed] + slack)]
        return int(inside[0]) if len(inside) == 1 else None


class _Pairing:
    """Each sample's run, the run's file, how it was paired, its host and monitor, as they are found."""

    def __init__(self, cpu: pd.DataFrame) -> None:
        self.source = cpu["source"].astype(str)
        self.run = _objects(cpu["run"], "Int64")
        self.run_source = _objects(cpu["run_source"], "string")
        self.paired = _objects(cpu["paired_by"], "string")
        self.host = _objects(cpu["host"], "string")
        self.monitor: list[str | None] = [None] * len(cpu)  # the sweep's monitor name of each sample, where it has one
        self.since_boot = (cpu["summary"].astype("string") == "since boot").fillna(False).to_numpy(bool)
        self.times = pd.to_datetime(cpu["time"], errors="coerce")
        same = pd.notna(cpu["run"]).to_numpy(bool) & pd.isna(cpu["run_source"]).to_numpy(bool)
        for i in np.flatnonzero(same):  # the reader said which run of the file: 'same file'
            self.run_source[i], self.paired[i] = self.source.iat[i], "same file"

    def pair_file(self, src: str, idx: list[int], cand: _Candidates) -> None:
        """Pair the samples ``idx`` of the file ``src``: by name (same file or name stem), else by time, else
        the folder."""
        todo = [i for i in idx if self.paired[i] is None and not self.since_boot[i]]
        mon = _monitor(src)
        if mon:
            for i in idx:
                self.host[i] = self.host[i] or mon[1]
                self.monitor[i] = mon[1]
        if not todo:
            return
        here = cand.folder(mon[0] if mon else os.path.dirname(src))
        found = cand.by_name(src, here, mon)
        if len(found) == 1:
            k = found[0]
            how = "same file" if cand.source[k] == src else "name stem"  # a monitor's output after the run's own
            for i in todo:
                self.run[i], self.run_source[i], self.paired[i] = int(cand.run[k]), cand.source[k], how
            return
        timed = here[cand.timed[here]]
        for i in todo:
            k = cand.by_time(self.times.iat[i], timed)
            if k is not None:
                self.run[i], self.run_source[i], self.paired[i] = int(cand.run[k]), cand.source[k], "time"
            elif len(here):
                self.paired[i] = "folder"


def _roles(cpu: pd.DataFrame, host: np.ndarray, monitor: list[str | None]) -> np.ndarray:
    """Each sample's role: the file's, else a process's command's, else its host's or monitor's name's."""
    role = _objects(cpu["role"], "string")
    command = _objects(cpu["command"], "string")
    scope = _objects(cpu["scope"], "string")
    for i in range(len(cpu)):
        if not role[i]:
            guess = role_of_command(command[i]) if scope[i] == "process" else ""
            role[i] = guess or role_of_host(host[i]) or role_of_host(monitor[i]) or None  # --monitor lb=... on any host
    return role


_MANIFEST_CPU_RE = re.compile(
    r"^(?:(?P<prefix>[a-z]+)_)?cpu(?:_(?P<part>user|system|iowait|steal|softirq|idle|busy))?_pct$"
)
_PARTS = {None: "busy_pct", "busy": "busy_pct", "user": "user_pct", "system": "system_pct", "iowait": "iowait_pct",
          "steal": "steal_pct", "softirq": "softirq_pct", "idle": "idle_pct"}  # fmt: skip


def manifest_cpu(runs: pd.DataFrame, manifests: Sequence[pd.DataFrame]) -> list[dict]:
    """Rows of the ``cpu`` table from manifest columns: ``cpu_pct`` (busy), ``cpu_system_pct`` … of the host in
    the row's ``host`` column, and ``PREFIX_cpu_pct`` of a host named by its prefix (``lb_cpu_pct``,
    ``web_cpu_pct``: a role of :data:`HOST_ROLES`); cores from ``vcpu``/``vcpus``/``cores`` (``lb_vcpu``).

    ``runs`` needs ``source``, ``run`` and ``_abs`` (the file's resolved path); each row names its manifest
    (``source``, the manifest's ``attrs["source"]``) and line, and its run (paired by 'same file': the row
    names the run's file).

    >>> m = pd.DataFrame({"file": ["t.txt"], "host": ["tu-lb-01"], "cpu_pct": ["93"], "cpu_system_pct": ["88"],
    ...                   "web_cpu_pct": ["40"], "lb_vcpu": ["1"], "_dir": ["/x"]})
    >>> runs = pd.DataFrame({"source": ["t.txt"], "run": [0], "_abs": ["/x/t.txt"]})
    >>> [(r["host"], r["role"], r["busy_pct"], r.get("system_pct"), r.get("cores")) for r in manifest_cpu(runs, [m])]
    [('tu-lb-01', 'load balancer', 93.0, 88.0, 1.0), (None, 'server', 40.0, None, None)]
    """
    out: list[dict] = []
    for m in manifests:
        if not cpu_columns(m.columns) or "_abs" not in runs:
            continue
        source = m.attrs.get("source") or str(Path(str(m["_dir"].iat[0])) / "manifest.csv")
        resolved = runs["_abs"].astype(str)
        for pos, (_, row) in enumerate(m.iterrows()):
            pat = str(Path(row["_dir"]) / str(row["file"])).replace("\\", "/")
            hits = np.flatnonzero(resolved.map(lambda s, pat=pat: s == pat).to_numpy(bool))
            targets = [(int(runs["run"].iat[k]), str(runs["source"].iat[k])) for k in hits] or [(None, None)]
            for base in cpu_of_columns(row.to_dict(), "manifest"):
                for r, src in targets:
                    out.append({**base, "source": source, "line": pos + 2, "run": r, "run_source": src,
                                "paired_by": "same file" if r is not None else None})  # fmt: skip
    return out


def pattern_cpu(runs: pd.DataFrame, fields: Sequence[str]) -> list[dict]:
    """Rows of the ``cpu`` table from path-pattern fields (``read(pattern="{host}/cpu{cpu_pct}/{run}")``): the
    same columns as a manifest's (:func:`cpu_of_columns`), each row of the run whose path held them (its file,
    no line: the figure is in its name; paired by 'same file').

    >>> runs = pd.DataFrame({"source": ["lb-1/c8.txt"], "run": [0], "host": ["lb-1"], "cpu_pct": [87.0]})
    >>> [(r["source"], r["host"], r["role"], r["busy_pct"], r["tool"]) for r in pattern_cpu(runs, ["host", "cpu_pct"])]
    [('lb-1/c8.txt', 'lb-1', 'load balancer', 87.0, 'path')]
    """
    if not cpu_columns(fields):
        return []
    out = []
    for _, row in runs[[c for c in ("source", "run", *fields) if c in runs]].iterrows():
        values = {k: row[k] for k in fields if k in row}
        for base in cpu_of_columns(values, "path"):
            out.append({**base, "source": row["source"], "run": int(row["run"]), "run_source": row["source"],
                        "paired_by": "same file"})  # fmt: skip
    return out


def cpu_columns(columns: Sequence[str]) -> dict[str, re.Match]:
    """The columns that are CPU figures (``cpu_pct``, ``cpu_system_pct``, ``lb_cpu_pct`` …) and their parts.

    >>> sorted(cpu_columns(["file", "cpu_pct", "web_cpu_pct", "other_cpu_pct", "cpu_local_pct"]))
    ['cpu_pct', 'web_cpu_pct']
    """
    found = {c: _MANIFEST_CPU_RE.match(str(c)) for c in columns}
    return {c: x for c, x in found.items() if x and (x["prefix"] is None or role_of_host(x["prefix"]))}


def cpu_of_columns(values: dict, tool: str) -> list[dict]:
    """The cpu rows (scope 'all') one record of columns gives: one per host, the unprefixed figures of its
    ``host`` value, the prefixed ones (``lb_cpu_pct``) of the role their prefix names; cores from
    ``vcpu``/``vcpus``/``cores``/``cpus`` (``lb_vcpu``).

    >>> cpu_of_columns({"host": "web-1", "cpu_pct": "51", "vcpus": "2"}, "manifest")[0]["cores"]
    2.0
    """
    by_prefix: dict[str | None, dict] = {}
    for c, x in cpu_columns(list(values)).items():
        value = pd.to_numeric(pd.Series([values[c]]), errors="coerce").iat[0]
        if pd.notna(value):
            by_prefix.setdefault(x["prefix"], {})[_PARTS[x["part"]]] = float(value)
    out = []
    for prefix, figures in by_prefix.items():
        host = values.get("host") if prefix is None else None
        host = None if host is None or pd.isna(host) else str(host)
        role = role_of_host(prefix) if prefix else role_of_host(host)
        keys = [f"{prefix}_{n}" for n in _CORES] if prefix else [*_CORES, *(f"{p}_{n}" for p in HOST_ROLES_PREFIXES.get(role, ()) for n in _CORES)]  # fmt: skip
        cores = next((float(v) for k in keys if k in values
                      and pd.notna(v := pd.to_numeric(pd.Series([values[k]]), errors="coerce").iat[0])), None)  # fmt: skip
        row = {"tool": tool, "scope": "all", "host": host, "role": role or None, "cores": cores, **figures}
        if "idle_pct" in figures and "busy_pct" not in figures:
            row["busy_pct"] = 100.0 - figures["idle_pct"]
        out.append(row)
    return out


#: the columns that give a host's cores (``vcpu``, or ``lb_vcpu`` for the load balancer's)
_CORES = ("vcpu", "vcpus", "cores", "cpus")


#: the prefixes of manifest columns that name each role's host (``lb_vcpu`` is the load balancer's cores)
HOST_ROLES_PREFIXES: dict[str, tuple[str, ...]] = {role: words for role, words in HOST_ROLES.items()}
