"""Which resource a run used up: the CPU figures beside each run, per role, as the verdict rules read them.

From the ``cpu`` table (:data:`lbanalysis.schema.CPU`: one row per sample,
paired with its run by ``run_source`` and ``run``), :func:`cpu_by_run`
gives one row per run of the runs table, each figure a share (0-1) of
the CPU that could be used, averaged over the run's samples, with the
file and line it comes from:

======================  ======================================================
column                  meaning
======================  ======================================================
``client_busy``         the load tool's process: its CPU over the cores it could
                        use (its threads, a taskset, a cgroup quota)
``client_cpu_pct``      the load tool's process in percent of one core (its limit may be unknown)
``client_host_busy``    the client host's CPU, every core
``client_warned_pct``   the CPU (percent of one core) above which the load tool warned its own CPU was
                        (Locust's "CPU usage above 90%": a lower bound, not a measure)
``lb_busy``             the load balancer's CPU as busy as its busiest part: one
                        core, its process over its cores, or the host's total
                        over the cores HAProxy could use (``nbproc`` ×
                        ``nbthread`` columns of the runs, where known)
``lb_cores_busy``       cores' worth of CPU the load balancer's host used
``lb_idle``             HAProxy's own ``Idle_pct`` (0-1), its lowest sample
``server_busy``         the server host's CPU, every core (or its process)
``server_kernel``       the kernel's part of it (system + softirq)
======================  ======================================================

and ``client_at``, ``client_warned_at``, ``lb_at``, ``lb_idle_at``, ``server_at``: the file:line of
each figure. The samples read are those :func:`lbanalysis.analysis.cpu.samples` keeps (the ones
:func:`lbanalysis.analysis.cpu.cpu_per_run` shows). A sample whose role is empty counts as the client's when it is a
process running the run's own tool, as the load balancer's when HAProxy printed
it; other unnamed samples say nothing of a role and are left out. Where the runs declare the cores a role's
process could use (:data:`DECLARED_CORES`: ``client_cores`` for a load tool under a CPU quota, ``lb_cores``,
``server_cores``), a process's ``cpu_pct`` is taken over those.

>>> import pandas as pd
>>> from lbanalysis import schema
>>> runs = pd.DataFrame({"source": ["ab_c8.txt"], "run": [0], "tool": ["ab"]})
>>> cpu = schema.conform(pd.DataFrame({"source": ["ab_c8.txt", "vmstat_c8.txt"], "line": [30, 4],
...     "run": [0, 0], "run_source": ["ab_c8.txt"] * 2, "scope": ["process", "all"], "role": ["", "server"],
...     "command": ["ab -k -c 8 http://h/", None], "cpu_pct": [19.0, None], "cores": [0.2, 2.0],
...     "busy_pct": [95.0, 40.0], "system_pct": [None, 30.0], "softirq_pct": [None, 5.0]}), "cpu")
>>> cpu_by_run(cpu, runs).loc[0, ["client_busy", "client_at", "server_busy", "server_kernel"]].tolist()
[0.95, 'ab_c8.txt:30', 0.4, 0.35]
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import pandas as pd

from .. import registry
from .cpu import samples, warnings_of

__all__ = ["COLUMNS", "DECLARED_CORES", "LB_PROGRAMS", "cpu_by_run", "per_load", "per_load_by", "samples_by_run"]

#: The figures :func:`cpu_by_run` gives per run (shares 0-1) and where each is read (``*_at``).
COLUMNS: tuple[str, ...] = (
    "client_busy", "client_at", "client_cpu_pct", "client_host_busy", "client_host_at", "client_warned_pct",
    "client_warned_at", "lb_busy", "lb_at", "lb_cores_busy", "lb_idle", "lb_idle_at", "server_busy", "server_kernel",
    "server_at",
)  # fmt: skip
#: Programs whose samples are the load balancer's when the file names no role.
LB_PROGRAMS: tuple[str, ...] = ("haproxy",)
#: Runs columns (a manifest) declaring the cores a role's process could use (a CPU quota, a taskset), per role.
DECLARED_CORES: dict[str, str] = {"client": "client_cores", "load balancer": "lb_cores", "server": "server_cores"}
#: Runs columns saying how many processes and threads HAProxy ran (a manifest, HAProxy's show info).
_LB_PARALLEL: tuple[str, ...] = ("nbproc", "nbthread")


def _where(rows: pd.DataFrame) -> str:
    """The file:line of a sample (the file named from its folder and name)."""
    src, line = rows["source"].iloc[0], rows["line"].iloc[0]
    name = os.path.join(os.path.basename(os.path.dirname(str(src))), os.path.basename(str(src)))
    return f"{name.lstrip('/')}:{int(line)}" if pd.notna(line) else name.lstrip("/")


def _share(rows: pd.DataFrame) -> pd.Series:
    """Each sample's busy share (0-1): ``busy_pct``, else a process's ``cpu_pct`` over its ``cores``."""
    busy = pd.to_numeric(rows["busy_pct"], errors="coerce").astype(float)
    proc = pd.to_numeric(rows["cpu_pct"], errors="coerce").astype(float) / pd.to_numeric(
        rows["cores"], errors="coerce"
    ).astype(float)
    return busy.fillna(proc) / 100


def _roles(cpu: pd.DataFrame, tool: pd.Series) -> pd.Series:
    """The role of each sample: the file's, else the client's for a process running the run's tool, else the
    load balancer's for a HAProxy process or HAProxy's own figures; else empty."""
    role = cpu["role"].astype("string").fillna("")
    command = cpu["command"].astype("string").fillna("").str.lower()
    program = command.str.extract(r"^\s*(?:\S*/)?(\S+)", expand=False).fillna("")
    mine = (role == "") & (cpu["scope"].astype("string") == "process")
    role = role.mask(mine & (program == tool.fillna("__none__").to_numpy()), "client")
    lb = (role == "") & (program.isin(LB_PROGRAMS) | cpu["tool"].astype("string").isin(LB_PROGRAMS).fillna(False))
    return role.mask(lb, "load balancer")


def cpu_by_run(cpu: pd.DataFrame | None, runs: pd.DataFrame) -> pd.DataFrame:
    """One row per run (the runs' index): the CPU figures of :data:`COLUMNS`, empty where no sample says.

    Samples are averaged per host (or process) and scope over the run, then the busiest is taken.
    """
    out = pd.DataFrame({c: (np.nan if not c.endswith("_at") else "") for c in COLUMNS}, index=runs.index)
    paired = samples_by_run(cpu, runs)
    if not len(paired):
        return out
    tool = runs["tool"].astype("string").to_numpy()[paired["_pos"]] if "tool" in runs else np.full(len(paired), "")
    spins = (
        paired["_role"].eq("client").to_numpy(bool)
        & paired["scope"].astype("string").eq("process").fillna(False).to_numpy(bool)
        & pd.Series(tool).isin(list(registry.cpu_spinners())).to_numpy(bool)
    )
    paired = _narrow(_declared(paired[~spins], runs))  # a tool that spins (httperf) shows no client bound by its CPU
    parallel = _lb_parallel(runs)
    cols = {c: out[c].to_numpy(dtype=object) for c in COLUMNS}
    for p, g in paired.groupby("_pos", sort=False):
        for name, value in _figures(g, parallel[p]).items():
            cols[name][p] = value
    return pd.DataFrame(
        {c: pd.to_numeric(pd.Series(v), errors="coerce").to_numpy() if not c.endswith("_at") else v
         for c, v in cols.items()}, index=runs.index)  # fmt: skip


def samples_by_run(cpu: pd.DataFrame | None, runs: pd.DataFrame) -> pd.DataFrame:
    """The samples :func:`cpu_by_run` reads (:func:`lbanalysis.analysis.cpu.samples`, of the runs given), each with
    ``_pos`` (its run's position in ``runs``), ``_role`` and ``_share`` (its busy share, 0-1; a tool's warning: none,
    its ``cpu_pct`` is a lower bound).

    >>> from lbanalysis import schema
    >>> cpu = schema.conform(pd.DataFrame({"source": ["v.txt", "v.txt"], "line": [3, 4], "run": [0, 0],
    ...     "run_source": ["ab.txt"] * 2, "scope": ["all"] * 2, "role": ["server"] * 2, "busy_pct": [50.0, 70.0],
    ...     "summary": ["since boot", None]}), "cpu")
    >>> samples_by_run(cpu, pd.DataFrame({"source": ["ab.txt"], "run": [0]}))[["line", "_pos", "_share"]].values.tolist()
    [[4, 0, 0.7]]
    """
    none = pd.DataFrame(columns=[*(cpu.columns if cpu is not None else []), "_pos", "_role", "_share"])
    if cpu is None or not len(cpu) or "source" not in runs or "run" not in runs:
        return none
    paired = samples(cpu)
    if not len(paired):
        return none
    key = pd.Series(range(len(runs)), index=pd.MultiIndex.from_arrays(
        [runs["source"].astype(str).to_numpy(), pd.to_numeric(runs["run"], errors="coerce").fillna(-1).astype(int)]))  # fmt: skip
    key = key[~key.index.duplicated()]
    pos = key.reindex(pd.MultiIndex.from_arrays([paired["run_source"].astype(str).to_numpy(),
                                                 paired["run"].astype(int).to_numpy()])).to_numpy()  # fmt: skip
    paired = paired.assign(_pos=pos)
    paired = paired[paired["_pos"].notna()]
    if not len(paired):
        return none
    paired = paired.assign(_pos=paired["_pos"].astype(int))
    tool = runs["tool"].astype("string").to_numpy()[paired["_pos"]] if "tool" in runs else np.full(len(paired), "")
    share = _share(paired).where(~warnings_of(paired))
    return paired.assign(_role=_roles(paired, pd.Series(tool, index=paired.index, dtype="string")).to_numpy(),
                         _share=share.to_numpy())  # fmt: skip


#: The samples' columns the figures read, texts and numbers: the per-run loop keeps these only, in two blocks (every
#: filter of a run's samples then copies two arrays, not the thirty-odd of the cpu table: 10× less per run).
_TEXTS: tuple[str, ...] = ("source", "host", "scope", "command", "tool", "summary", "_role")
_NUMBERS: tuple[str, ...] = ("line", "_share", "cores", "cpu_pct", "idle_pct", "system_pct", "softirq_pct")


def _narrow(paired: pd.DataFrame) -> pd.DataFrame:
    """The columns the figures read (:data:`_TEXTS`, :data:`_NUMBERS`, ``_pos``): texts as ``str`` (``""`` where
    empty, as every figure reads an empty one), numbers as floats.

    >>> _narrow(pd.DataFrame({"scope": pd.array(["all", None], dtype="string"), "_pos": [0, 1]}))["scope"].tolist()
    ['all', '']
    """
    n = len(paired)
    texts = {c: paired[c].astype("string").fillna("").to_numpy(object) if c in paired else np.full(n, "", object)
             for c in _TEXTS}  # fmt: skip
    numbers = {c: pd.to_numeric(paired[c], errors="coerce").to_numpy(float) if c in paired else np.full(n, np.nan)
               for c in _NUMBERS}  # fmt: skip
    return pd.DataFrame({**texts, **numbers, "_pos": paired["_pos"].to_numpy()}, index=paired.index)


def _declared(paired: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """A process's share over the cores its role could use as the runs declare them (:data:`DECLARED_CORES`: a
    manifest's ``client_cores`` for a load tool under a CPU quota), where its samples print ``cpu_pct``. A process
    of no known role (a backend run by an interpreter) is the one role behind the client whose cores the run
    declares, when it declares one only."""
    share = paired["_share"].to_numpy(float).copy()
    role = paired["_role"].to_numpy(object).copy()
    process = (paired["scope"].astype("string") == "process").fillna(False).to_numpy(bool)
    process &= ~warnings_of(paired).to_numpy(bool)  # a tool's warning is a bound, not a share
    cpu_pct = pd.to_numeric(paired["cpu_pct"], errors="coerce").to_numpy(float)
    pos = paired["_pos"].to_numpy(int)
    declared = {r: pd.to_numeric(runs[c], errors="coerce").to_numpy(float)[pos] for r, c in DECLARED_CORES.items()
                if c in runs}  # fmt: skip
    behind = [r for r in declared if r != "client"]
    unnamed = process & (role == "")
    for r in behind:
        others = [declared[o] > 0 for o in behind if o != r]
        only = (declared[r] > 0) & ~np.logical_or.reduce(others) if others else declared[r] > 0
        role[unnamed & only] = r
    for r, cores in declared.items():
        mine = process & (role == r) & (cores > 0) & ~np.isnan(cpu_pct)
        share[mine] = cpu_pct[mine] / 100 / cores[mine]
    return paired.assign(_share=share, _role=role)


def _lb_parallel(runs: pd.DataFrame) -> np.ndarray:
    """Per run: the processes × threads HAProxy ran, where the runs say (NaN: not known)."""
    n = pd.Series(np.nan, index=runs.index)
    for c in _LB_PARALLEL:
        if c in runs:
            v = pd.to_numeric(runs[c], errors="coerce")
            n = n.fillna(1.0) * v.fillna(1.0) if v.notna().any() else n
    return n.to_numpy(float)


def _groups(g: pd.DataFrame, role: str, scope: str | None) -> list[tuple[float, pd.DataFrame]]:
    """The mean share of each (host, scope, process) of a role over the run, busiest first (``g``: samples as
    :func:`_narrow` gives them)."""
    keep = (g["_role"].to_numpy(object) == role) & g["_share"].notna().to_numpy(bool)
    scopes = g["scope"].to_numpy(object)
    if scope in ("process", "all"):
        keep &= scopes == scope
    elif scope == "core":
        keep &= (scopes != "all") & (scopes != "process")
    if not keep.any():
        return []
    mine = g[keep]
    found = [(float(s["_share"].mean()), s) for _, s in mine.groupby(["host", "scope", "command"], sort=False)]
    return sorted(found, key=lambda x: -x[0])


def _warned(rows: pd.DataFrame) -> dict[str, object]:
    """The load tool's own warning that its CPU was used up (its threshold, percent of one core, and where)."""
    pct = pd.to_numeric(rows["cpu_pct"], errors="coerce")
    if not pct.notna().any():
        return {}
    return {"client_warned_pct": float(pct.max()), "client_warned_at": _where(rows[pct.notna()])}


def _client_figures(g: pd.DataFrame) -> dict[str, object]:
    """The client's figures of one run's samples: its process, its host, its CPU in percent of one core, and the
    load tool's own warning (a bound, apart from the measures)."""
    f: dict[str, object] = {}
    for name, scope in (("client", "process"), ("client_host", "all")):
        top = _groups(g, "client", scope)
        if top:
            f[f"{name}_busy"], f[f"{name}_at"] = top[0][0], _where(top[0][1])
    mine = g[(g["_role"].to_numpy(object) == "client") & (g["scope"].to_numpy(object) == "process")]
    warned = warnings_of(mine).to_numpy(bool)
    f.update(_warned(mine[warned]))
    mine = mine[~warned]
    pct = pd.to_numeric(mine["cpu_pct"], errors="coerce")
    if pct.notna().any():
        f["client_cpu_pct"] = float(pct.mean())
        f.setdefault("client_at", _where(mine[pct.notna()]))
    return f


def _lb_figures(g: pd.DataFrame, parallel: float) -> dict[str, object]:
    """The load balancer's figures of one run's samples: its busiest core, process or host (over the cores HAProxy
    could use), the cores its host used, HAProxy's lowest ``Idle_pct``."""
    f: dict[str, object] = {}
    lb: list[tuple[float, pd.DataFrame]] = []
    lb += _groups(g, "load balancer", "core")
    own = g[np.isin(g["tool"].to_numpy(object), LB_PROGRAMS)]
    lb += [x for x in _groups(g.drop(index=own.index), "load balancer", "process")]
    for share, rows in _groups(g, "load balancer", "all"):
        cores = pd.to_numeric(rows["cores"], errors="coerce").max()
        if pd.notna(cores) and cores > 0:
            f["lb_cores_busy"] = max(float(f.get("lb_cores_busy", 0.0)), share * cores)  # type: ignore[arg-type]
            usable = min(parallel, cores) if pd.notna(parallel) else cores
            lb.append((share * cores / usable, rows))
        else:
            lb.append((share, rows))
    if lb:
        best = max(lb, key=lambda x: x[0])
        f["lb_busy"], f["lb_at"] = best[0], _where(best[1])
    idle = pd.to_numeric(own["idle_pct"], errors="coerce") if len(own) else pd.Series(dtype=float)
    if idle.notna().any():
        at = idle.idxmin()
        f["lb_idle"], f["lb_idle_at"] = float(idle[at]) / 100, _where(own.loc[[at]])
    return f


def _server_figures(g: pd.DataFrame) -> dict[str, object]:
    """The server's figures of one run's samples: its host (else its process) and the kernel's share."""
    server = _groups(g, "server", "all") or _groups(g, "server", "process")
    if not server:
        return {}
    share, rows = server[0]
    kernel = sum(pd.to_numeric(rows[c], errors="coerce").fillna(0.0) for c in ("system_pct", "softirq_pct"))
    has = rows[["system_pct", "softirq_pct"]].notna().any(axis=1)
    return {"server_busy": share, "server_at": _where(rows),
            "server_kernel": float(kernel[has].mean()) / 100 if has.any() else math.nan}  # fmt: skip


def _figures(g: pd.DataFrame, parallel: float) -> dict[str, object]:
    """The figures of one run's samples (see :data:`COLUMNS`)."""
    return {**_client_figures(g), **_lb_figures(g, parallel), **_server_figures(g)}


def _grouped(frame: pd.DataFrame, columns: pd.Index, keys: list[str]) -> pd.DataFrame:
    """The figures ``columns`` of ``frame`` per group of ``keys``: the mean of the numbers, the first place."""
    numbers = [c for c in columns if not c.endswith("_at")]
    places = [c for c in columns if c.endswith("_at")]
    by = frame.groupby(keys)
    means = by[numbers].mean()
    first = by[places].agg(lambda s: next((x for x in s if isinstance(x, str) and x), ""))
    return pd.concat([means, first], axis=1)


def per_load(by_run: pd.DataFrame, load: pd.Series) -> pd.DataFrame:
    """The figures per load (index: the load, ascending): the mean over its runs, the place of the first.

    >>> runs = pd.DataFrame({"client_busy": [0.9, 1.0, 0.2], "client_at": ["a:1", "b:1", "c:1"]})
    >>> per_load(runs, pd.Series([8, 8, 1])).to_dict("index")[8]["client_busy"]
    0.95
    """
    frame = by_run.assign(_load=pd.to_numeric(load, errors="coerce").to_numpy()).dropna(subset=["_load"])
    return _grouped(frame, by_run.columns, ["_load"]).sort_index().rename_axis(None)


def per_load_by(by_run: pd.DataFrame, load: pd.Series, keys: pd.Series) -> dict[Any, pd.DataFrame]:
    """:func:`per_load` of each group of the runs ``by_run`` sharing a value of ``keys``, in one pass (a group with
    no run of a known load: the table of no row).

    >>> runs = pd.DataFrame({"client_busy": [0.9, 1.0, 0.2], "client_at": ["a:1", "b:1", "c:1"]})
    >>> per_load_by(runs, pd.Series([8, 8, 1]), pd.Series(["s", "s", "t"]))["s"].to_dict("index")[8]["client_busy"]
    0.95
    """
    frame = by_run.assign(_by=keys.to_numpy(), _load=pd.to_numeric(load, errors="coerce").to_numpy())
    out = _grouped(frame.dropna(subset=["_load"]), by_run.columns, ["_by", "_load"])
    none = _grouped(frame.iloc[:0], by_run.columns, ["_load"]).sort_index().rename_axis(None)
    found = {k: part.droplevel(0).rename_axis(None) for k, part in out.groupby(level=0, sort=False)}
    return {k: found.get(k, none) for k in keys.unique()}
