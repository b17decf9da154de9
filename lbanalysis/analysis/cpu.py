"""How busy each CPU was during each run: the evidence the verdict rules read, from the ``cpu`` table.

:func:`cpu_per_run` gives one row per run and per thing measured: a host's
CPU as a whole (``scope`` 'all'), its busiest core ('core'), or one process
('process': a load tool under ``time``, HAProxy's ``Idle_pct``, a pidstat
or top row). Only samples paired with one run count (``paired_by`` 'same
file', 'name stem' or 'time'; 'folder' samples name no run), and only
samples of an interval: a figure averaged since boot is none; a tool's own
average ('average') is used only where its interval samples are not read.

========================  =====================================================================
column                    what it holds
========================  =====================================================================
``source``, ``run``       the run (as the runs table keys it)
``host``, ``role``        the host (empty: unknown) and its role (client, load balancer, server)
``scope``                 'all', 'core' or 'process'
``core``                  for 'core': the id of the busiest core (the one of ``busy_max_pct``)
``command``, ``pid``      for 'process': the process
``tool``                  the monitor(s) the samples come from (``vmstat``, ``time``, ...)
``paired_by``             how the samples were paired (the weakest when several)
``samples``               samples read
``cores``                 the cores of the scope: the host's, 1 for a core, a process's limit
``busy_mean_pct``         mean busy share (0-100 of the scope; a process: ``cpu_pct / cores``)
``busy_max_pct``          the busiest sample's busy share
``cpu_pct_mean``          a process: mean CPU in percent of one core (200 = two cores)
``cpu_pct_max``           a process: the busiest sample's
``kernel_pct``            mean kernel share (system + irq + softirq) of the scope, where shown
``user_pct``              mean user share, where shown
``busy_max_at``           ``file:line`` of the busiest sample
``evidence``              every ``file:line`` read (``file:first-last`` for a run of lines)
========================  =====================================================================

A process's ``busy_mean_pct`` is empty where its core limit is not known
(``cpu_pct`` alone does not say whether 100 % is all it could use).

>>> import pandas as pd
>>> from lbanalysis import schema
>>> cpu = schema.conform([
...     {"source": "vm.txt", "line": 3, "run": 0, "run_source": "ab.txt", "paired_by": "name stem", "scope": "all",
...      "host": "lb", "role": "load balancer", "cores": 4.0, "busy_pct": 24.0, "system_pct": 20.0, "tool": "mpstat"},
...     {"source": "vm.txt", "line": 4, "run": 0, "run_source": "ab.txt", "paired_by": "name stem", "scope": "0",
...      "host": "lb", "role": "load balancer", "cores": 1.0, "busy_pct": 96.0, "system_pct": 80.0, "tool": "mpstat"},
...     {"source": "vm.txt", "line": 5, "run": 0, "run_source": "ab.txt", "paired_by": "name stem", "scope": "1",
...      "host": "lb", "role": "load balancer", "cores": 1.0, "busy_pct": 2.0, "tool": "mpstat"}], "cpu")
>>> t = cpu_per_run(cpu)
>>> t[["scope", "core", "busy_max_pct", "kernel_pct", "busy_max_at"]].to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
[{'scope': 'all', 'core': None, 'busy_max_pct': 24.0, 'kernel_pct': 20.0, 'busy_max_at': 'vm.txt:3'},
 {'scope': 'core', 'core': '0', 'busy_max_pct': 96.0, 'kernel_pct': 80.0, 'busy_max_at': 'vm.txt:4'}]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .. import schema

__all__ = ["COLUMNS", "PAIRED", "cpu_per_run", "evidence", "samples", "warnings_of"]

#: how a sample may be paired to count for its run, strongest first
PAIRED = ("same file", "name stem", "time")
#: the columns of :func:`cpu_per_run`, in order
COLUMNS = [
    "source",
    "run",
    "host",
    "role",
    "scope",
    "core",
    "command",
    "pid",
    "tool",
    "paired_by",
    "samples",
    "cores",
    "busy_mean_pct",
    "busy_max_pct",
    "cpu_pct_mean",
    "cpu_pct_max",
    "kernel_pct",
    "user_pct",
    "busy_max_at",
    "evidence",
]


def evidence(sources: pd.Series, lines: pd.Series) -> str:
    """``file:line`` of each sample, runs of lines of one file joined (``f:3-7``), files in order of appearance.

    >>> evidence(pd.Series(["a", "a", "a", "b"]), pd.Series([3, 4, 9, 1]))
    'a:3-4, a:9, b:1'
    """
    out: list[str] = []
    for src in pd.unique(sources):
        got = sorted(int(x) for x in lines[sources == src].dropna())
        if not got:
            out.append(str(src))
            continue
        lo = prev = got[0]
        for x in [*got[1:], None]:
            if x is not None and x == prev + 1:
                prev = x
                continue
            out.append(f"{src}:{lo}" if lo == prev else f"{src}:{lo}-{prev}")
            if x is not None:
                lo = prev = x
    return ", ".join(out)


def _kind(scope: pd.Series) -> pd.Series:
    """'all', 'process', or 'core' for a core id."""
    s = scope.astype("string").fillna("all")
    return s.where(s.isin(["all", "process"]), "core")


def warnings_of(cpu: pd.DataFrame) -> pd.Series:
    """Which samples are a tool's warning, not a measure: ``summary`` says so (Locust's "CPU usage above 90%": its
    ``cpu_pct`` is a lower bound).

    >>> warnings_of(pd.DataFrame({"summary": [None, "average", "Locust's warning"]})).tolist()
    [False, False, True]
    """
    if "summary" not in cpu:
        return pd.Series(False, index=cpu.index)
    return cpu["summary"].astype("string").str.contains("warn", case=False, regex=False).fillna(False).astype(bool)


def samples(cpu: pd.DataFrame) -> pd.DataFrame:
    """The samples that count for their run: the one filter of the CPU evidence (:func:`cpu_per_run` shows them,
    and the verdict rules read them through :func:`lbanalysis.analysis.resources.cpu_by_run`).

    Paired with one run (``run`` and ``run_source`` set; ``paired_by`` one of :data:`PAIRED`, or empty for
    samples paired by hand; 'folder' samples name no run), and of an interval: a figure averaged since boot is
    none, and a tool's own average ('average') counts only where no interval sample of the same run, host,
    scope and process is read. A tool's warning (:func:`warnings_of`) always counts.

    >>> cpu = pd.DataFrame({"run_source": "a", "run": [0, 0, 0, 0, None], "host": "h", "scope": "all",
    ...     "command": None, "paired_by": ["time", "time", "name stem", "folder", "folder"],
    ...     "summary": [None, "average", "since boot", None, None]})
    >>> samples(cpu).index.tolist()
    [0]
    """
    if not len(cpu) or "run" not in cpu or "run_source" not in cpu:
        return cpu.iloc[0:0]
    paired = _text(cpu, "paired_by", pd.NA)
    c = cpu[(cpu["run"].notna() & cpu["run_source"].notna() & (paired.isin(PAIRED) | paired.isna())).to_numpy(bool)]
    if "summary" not in c or c.empty:
        return c
    summary = c["summary"].astype("string").fillna("")
    keep = (summary != "since boot").to_numpy(bool)
    c, summary = c[keep], summary[keep]
    plain = (summary == "") | warnings_of(c)
    key = [_text(c, k, "") for k in ("run_source", "run", "host", "command")] + [_kind(_text(c, "scope", pd.NA))]
    has_interval = plain.groupby(key).transform("any")
    return c[(plain | ~has_interval).to_numpy(bool)]


def _text(cpu: pd.DataFrame, col: str, missing: object) -> pd.Series:
    """A column as strings (a column the frame lacks: ``missing``; missing values: ``missing``)."""
    if col not in cpu:
        return pd.Series(missing, index=cpu.index, dtype="string")
    s = cpu[col].astype("string")
    return s if missing is pd.NA else s.fillna(missing)


def _samples(cpu: pd.DataFrame) -> pd.DataFrame:
    """:func:`samples`, with each sample's ``kind`` of scope ('all', 'core', 'process')."""
    c = samples(cpu)
    return c.assign(kind=_kind(c["scope"])) if len(c) else c


def _busy(g: pd.DataFrame) -> pd.Series:
    """Each sample's busy share of its scope (a process: cpu_pct / cores where the limit is known)."""
    busy = g["busy_pct"].astype(float)
    if (g["kind"] == "process").any():
        limit = g["cores"].astype(float)
        busy = busy.fillna(g["cpu_pct"].astype(float) / limit.where(limit > 0))
    return busy


def _row(g: pd.DataFrame, kind: str, first: pd.Series) -> dict[str, Any]:
    busy = _busy(g)
    at = busy.idxmax() if busy.notna().any() else None
    kernel_parts = g[["system_pct", "irq_pct", "softirq_pct"]].astype(float)
    kernel = kernel_parts.sum(axis=1, min_count=1).where(g["system_pct"].notna())
    paired = [p for p in PAIRED if p in set(g["paired_by"])]
    row = {
        "source": first["run_source"],
        "run": first["run"],
        "host": first["host"],
        "role": g["role"].dropna().iloc[0] if g["role"].notna().any() else pd.NA,
        "scope": kind,
        "core": g.at[at, "scope"] if kind == "core" and at is not None else pd.NA,
        "command": first["command"] if kind == "process" else pd.NA,
        "pid": first["pid"] if kind == "process" else pd.NA,
        "tool": ", ".join(pd.unique(g["tool"].dropna().astype(str))),
        "paired_by": paired[-1] if paired else pd.NA,
        "samples": len(g),
        "cores": 1.0 if kind == "core" else g["cores"].astype(float).max(),
        "busy_mean_pct": busy.mean(),
        "busy_max_pct": busy.max(),
        "cpu_pct_mean": g["cpu_pct"].astype(float).mean() if kind == "process" else np.nan,
        "cpu_pct_max": g["cpu_pct"].astype(float).max() if kind == "process" else np.nan,
        "kernel_pct": kernel.mean(),
        "user_pct": g["user_pct"].astype(float).mean(),
        "busy_max_at": f"{g.at[at, 'source']}:{g.at[at, 'line']}" if at is not None else pd.NA,
        "evidence": evidence(g["source"].astype(str), g["line"]),
    }
    return row


def cpu_per_run(data: Any) -> pd.DataFrame:
    """One row per run and per host CPU, busiest core or process measured during it (see the module's text).

    ``data`` is a :class:`~lbanalysis.Dataset` or its ``cpu`` table.
    """
    cpu = data.cpu if hasattr(data, "cpu") else data
    cpu = schema.conform(cpu, "cpu") if not cpu.empty else cpu
    c = _samples(cpu) if not cpu.empty else cpu
    if c.empty:
        return pd.DataFrame({k: pd.Series(dtype="object") for k in COLUMNS})
    rows: list[dict[str, Any]] = []
    host = c["host"].astype("string").fillna("")
    for (_, _, _, kind), g in c.groupby([c["run_source"].astype(str), c["run"], host, c["kind"]], sort=False):
        if kind == "process":
            who = g["command"].astype("string").fillna("") + "/" + g["pid"].astype("string").fillna("")
            for _, p in g.groupby(who, sort=False):
                rows.append(_row(p, kind, p.iloc[0]))
        elif kind == "core":  # the busiest core of the host in this run
            busiest = g.groupby(g["scope"].astype(str))["busy_pct"].max().idxmax()
            rows.append(_row(g[g["scope"].astype(str) == busiest], kind, g.iloc[0]))
        else:
            rows.append(_row(g, kind, g.iloc[0]))
    out = pd.DataFrame(rows, columns=COLUMNS)
    for col in ("host", "role", "scope", "core", "command", "tool", "paired_by", "busy_max_at", "evidence", "source"):
        out[col] = out[col].astype("string")
    out["run"] = out["run"].astype("Int64")
    out["pid"] = out["pid"].astype("Int64")
    out["samples"] = out["samples"].astype("Int64")
    return out
