"""Cross-series evidence: for each series, the other series against the same target and workload, and for a
series through a load balancer the direct series to its backend.

A series is *direct* when a :data:`ROUTE_COLUMNS` column marks it ``direct``,
or when the load balancer's statistics in its folder list its address as a
server; *routed* when such a column names another route.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pandas as pd

from ...capacity import within
from ..series import as_floats
from .loads import run_loads

__all__ = ["ROUTE_COLUMNS", "backends", "peers"]

#: Runs columns (a manifest, the sweep's) that say a run went through the load balancer or straight to a
#: backend: the value ``direct`` marks the direct runs; any other value, through the load balancer.
ROUTE_COLUMNS: tuple[str, ...] = ("via", "route")

Peers = dict[Any, tuple[pd.DataFrame | None, dict[str, Any] | None]]


def backends(servers: pd.DataFrame | None) -> dict[str, set[str]]:
    """Per folder of load-balancer statistics, the ``address:port`` of each server they list.

    >>> servers = pd.DataFrame({"source": ["x/stat.csv"] * 2, "server": ["app", "BACKEND"],
    ...                         "address": ["127.0.0.1", None], "port": [8080, None]})
    >>> backends(servers)
    {'x': {'127.0.0.1:8080'}}
    """
    if servers is None or not len(servers) or not {"address", "port", "source"} <= set(servers):
        return {}
    rows = servers[servers["address"].notna() & servers["port"].notna()]
    out: dict[str, set[str]] = {}
    for src, a, p in zip(rows["source"].astype(str), rows["address"].astype(str), rows["port"], strict=True):
        out.setdefault(os.path.dirname(src), set()).add(f"{a}:{int(p)}")
    return out


def _route(g: pd.DataFrame) -> str:
    """The route a :data:`ROUTE_COLUMNS` column gives the series (lower case; empty: none)."""
    return next((str(g[c].dropna().iloc[0]).strip().lower() for c in ROUTE_COLUMNS
                 if c in g and g[c].notna().any()), "")  # fmt: skip


def _listed(g: pd.DataFrame, first: pd.Series, listed_by: dict[str, set[str]]) -> bool:
    """Whether load-balancer statistics in the series' folder (or above) list its host:port as a server."""
    hostport = f"{first.get('host')}:{first.get('port')}" if pd.notna(first.get("host")) else ""
    folders = {os.path.dirname(str(v)) for v in g["source"]} if "source" in g else set()
    return any(hostport in ips for d, ips in listed_by.items() if any(within(f, d) for f in folders))


def _throughputs(narrow: pd.DataFrame, load0: str) -> dict[Any, pd.DataFrame]:
    """Per series with used runs of a known load, the requests/s of those runs per load: mean, max and min."""
    used = narrow[narrow["used"].to_numpy(bool)]
    if not len(used):
        return {}
    x = as_floats(used, "requests_per_s").groupby([used["series"], run_loads(used, load0, "series")[1]])
    return {k: part.droplevel(0) for k, part in x.agg(["mean", "max", "min"]).groupby(level=0, sort=False)}


def _peer_row(name: Any, g: pd.DataFrame, x: pd.DataFrame, listed_by: dict[str, set[str]]) -> dict[str, Any] | None:
    """What the cross-series rules compare of one series (``x``: its requests/s per load, :func:`_throughputs`): its
    key, its best rate and spread, its route."""
    if not x["mean"].notna().any():
        return None
    first = g.iloc[0]
    target = str(first.get("_target") or "").rstrip("/")
    route = _route(g)
    keep = g["keepalive"].dropna() if "keepalive" in g else pd.Series(dtype=object)
    method = first.get("method")
    return {
        "series": name, "tool": str(first.get("tool") or ""), "origin": str(first.get("_origin") or ""),
        "target": target, "rest": target.split("/", 1)[1] if "/" in target else "",
        "method": str(method or "GET") if pd.notna(method) else "GET",
        "keepalive": bool(keep.iloc[0]) if len(keep) else None,
        "best": float(x["mean"].max()), "spread": float(((x["max"] - x["min"]) / x["mean"]).max()),
        "direct": route == "direct" or (not route and _listed(g, first, listed_by)),
        "routed": bool(route) and route != "direct",
        "by_load": x["mean"],
    }  # fmt: skip


def _alike(table: pd.DataFrame, same: np.ndarray, r: Any) -> pd.DataFrame | None:
    """The series (rows ``same`` of the peers' ``table``) against the same target with the same keep-alive (where
    both say)."""
    target = table["target"].to_numpy()
    alike = same & (target == r.target) & (target != "")
    if r.keepalive is not None:
        alike &= np.array([k is None or k == r.keepalive for k in table["keepalive"].tolist()], dtype=bool)
    return table.loc[alike, ["series", "tool", "best", "spread"]] if alike.any() else None


def _direct(table: pd.DataFrame, same: np.ndarray, r: Any) -> dict[str, Any] | None:
    """For a series not direct itself, the best direct series (rows ``same`` of the peers' ``table``) of the same
    tool to the same path."""
    if r.direct or not r.target:
        return None
    cand = same & table["direct"].to_numpy(bool) & (table["tool"].to_numpy() == r.tool)
    cand &= table["rest"].to_numpy() == r.rest
    if not cand.any():
        return None
    best = table[cand].sort_values("best").iloc[-1]
    return {"series": best["series"], "best": best["best"], "by_load": best["by_load"]}


def peers(narrow: pd.DataFrame, load0: str, servers: pd.DataFrame | None) -> Peers:
    """For each series, the other series of the same origin against the same target and workload (their tool,
    best throughput and run-to-run spread), and for a series through a load balancer the direct series to its
    backend (marked ``direct`` in a :data:`ROUTE_COLUMNS` column, or whose address the load balancer's
    statistics in its folder list as a server)."""
    listed_by = backends(servers)
    x = _throughputs(narrow, load0)
    measured = narrow[narrow["series"].isin(list(x)).to_numpy(bool)]  # the other series are no one's peers
    rows = [_peer_row(name, g, x[name], listed_by) for name, g in measured.groupby("series", sort=True)]
    rows = [r for r in rows if r is not None]
    if not rows:
        return {}
    table = pd.DataFrame(rows)
    out: Peers = {}
    origin, series, method = (table[c].to_numpy() for c in ("origin", "series", "method"))
    for r in table.itertuples():
        same = (origin == r.origin) & (series != r.series) & (method == r.method)
        out[r.series] = (_alike(table, same, r), _direct(table, same, r))
    return out
