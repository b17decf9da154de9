"""Load-balancer queue evidence: what HAProxy's statistics in a series' folder show of a server-side queue.

>>> import pandas as pd
>>> servers = snapshots(pd.DataFrame({"source": ["x/stat.csv"], "proxy": ["be"], "server": ["BACKEND"],
...                                   "queue_max": [29], "sessions_max": [33], "sessions_limit": [410]}))
>>> Queues(servers).of(pd.DataFrame({"source": ["x/ab.txt"]}))
'load-balancer statistics show a server-side queue: be/BACKEND queued up to 29'
"""

from __future__ import annotations

import os

import pandas as pd

from ...capacity import within
from ..series import as_floats

__all__ = ["Queues", "server_side", "snapshots"]

#: Load-balancer statistics rows that are not a server or a backend (no queue of their own).
NOT_QUEUES = ("FRONTEND",)
#: The columns of the snapshots :func:`server_side` reads.
SNAPSHOT_COLUMNS = ("source", "proxy", "server", "queue_max", "sessions_max", "sessions_limit")


def snapshots(servers: pd.DataFrame | None) -> pd.DataFrame | None:
    """The columns of load-balancer snapshots :func:`server_side` reads, with each snapshot's folder, once."""
    if servers is None or not len(servers) or "source" not in servers:
        return servers
    narrow = servers[[c for c in SNAPSHOT_COLUMNS if c in servers]]
    return narrow.assign(_dir=servers["source"].astype(str).map(os.path.dirname))


def _rows(g: pd.DataFrame, servers: pd.DataFrame) -> pd.DataFrame:
    """The snapshot rows of a server or backend in the series' folder or a folder above it."""
    folders = {os.path.dirname(str(x)) for x in g["source"]}
    cols = [c for c in SNAPSHOT_COLUMNS if c in servers]
    dirs = servers["_dir"] if "_dir" in servers else servers["source"].astype(str).map(os.path.dirname)
    inside = {d for d in dirs.unique() if any(within(f, d) for f in folders)}  # each snapshot folder asked once
    if not inside:  # most series: no statistics in their folders
        return servers.iloc[:0][cols]
    rows = servers.loc[dirs.isin(inside).to_numpy(bool), cols]
    if "server" in rows:
        rows = rows[~rows["server"].astype("string").isin(NOT_QUEUES).fillna(False).to_numpy(bool)]
    return rows


def server_side(g: pd.DataFrame, servers: pd.DataFrame | None) -> str:
    """What load-balancer snapshots in the series' folder (or a folder above it) show of a server-side queue.

    >>> servers = pd.DataFrame({"source": ["x/stat.csv"] * 2, "proxy": ["be", "be"], "server": ["app", "BACKEND"],
    ...                         "queue_max": [0, 29], "sessions_max": [4, 33], "sessions_limit": [4, 410]})
    >>> server_side(pd.DataFrame({"source": ["x/ab.txt"]}), servers)
    'load-balancer statistics show a server-side queue: be/BACKEND queued up to 29, be/app reached its limit of 4 sessions'
    """
    if servers is None or not len(servers) or "source" not in g or "source" not in servers:
        return ""
    rows = _rows(g, servers)
    if not len(rows):
        return ""
    said = []
    qmax, smax, slim = as_floats(rows, "queue_max"), as_floats(rows, "sessions_max"), as_floats(rows, "sessions_limit")
    names = rows["proxy"].astype(str) + "/" + rows["server"].astype(str) if "proxy" in rows else rows.index.astype(str)
    for name, q in qmax.groupby(names).max().items():
        if q > 0:
            said.append(f"{name} queued up to {q:,.0f}")
    full = (slim > 0) & (smax >= slim)
    for name in dict.fromkeys(names[full.to_numpy(bool)]):
        limit = slim[(names == name).to_numpy(bool)].max()
        said.append(f"{name} reached its limit of {limit:,.0f} sessions")
    return "load-balancer statistics show a server-side queue: " + ", ".join(said) if said else ""


class Queues:
    """:func:`server_side` per series, asked once per set of folders (series of one folder share it)."""

    def __init__(self, servers: pd.DataFrame | None) -> None:
        self.servers = servers
        self.seen: dict[frozenset[str], str] = {}

    def of(self, g: pd.DataFrame) -> str:
        """What the snapshots say of the series ``g``'s queue (empty: nothing)."""
        if self.servers is None or "source" not in g:
            return server_side(g, self.servers)
        key = frozenset(os.path.dirname(str(x)) for x in g["source"])
        if key not in self.seen:
            self.seen[key] = server_side(g, self.servers)
        return self.seen[key]
