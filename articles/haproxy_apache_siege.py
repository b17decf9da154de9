"""Article 003 (haproxy-apache-siege): the layout of its published results table.

The French blog post prints its siege results as a table with decimal
commas, one server and two servers side by side; :data:`TABLE` says how to
read ``data/raw/haproxy-apache-siege/results.csv`` with
:class:`lbanalysis.tables.TableSpec` (from :mod:`lbanalysis.tables.layout`, which imports no article).

>>> TABLE.block_column, TABLE.decimal
('servers', ',')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from lbanalysis.tables.layout import ColumnTarget, TableSpec

__all__ = ["CLIENT_LINK", "FRAMING", "HEADERS", "SERVER_LINKS", "TABLE", "VALUE_COLUMNS", "link_loads", "repeated_runs"]


def _half(suffix: str) -> dict[str, ColumnTarget]:
    return {
        f"req{suffix}": ("requests", "nombre"),
        f"moy{suffix}": ("latency_mean_s", "(sec)"),
        f"mini{suffix}": ("latency_min_s", "(sec)"),
        f"maxi{suffix}": ("latency_max_s", "(sec)"),
        f"vol{suffix}": ("bytes_per_s", "MO/sec"),
    }


def _headers() -> dict[str, str]:
    words = {"req": "transactions", "moy": "mean (s)", "mini": "shortest (s)", "maxi": "longest (s)", "vol": "MO/s"}
    out = {"line": "line", "flux": "clients"}
    for suffix, servers in (("", "one server"), ("_2", "two servers")):
        out.update({f"{k}{suffix}": f"{servers}: {v}" for k, v in words.items()})
    return out


#: The printed table's French column names in words (``moy_2`` -> "two servers: mean (s)").
HEADERS: dict[str, str] = _headers()

TABLE = TableSpec(
    columns={"flux": ("concurrency", "nombre")},
    blocks={1: _half(""), 2: _half("_2")},
    block_column="servers",
    sep=";",
    decimal=",",
    fill_down=("flux",),
    row_kinds=("run", "run", "mean"),
    constants={"format": "table"},
)
"""Article 003's results table (``data/raw/haproxy-apache-siege/results.csv``).

``flux`` is the number of simultaneous siege clients, printed on the first
row of each group of three; the "Apache + Haproxy" half (``req`` … ``vol``)
is one server, the "Apache (2 serveurs)+ Haproxy" half (``req_2`` …
``vol_2``) two. ``Req.`` is a count of transactions (not a rate), ``Moy.``,
``mini``, ``Maxi`` the mean, shortest and longest response times in
seconds, ``Vol`` siege's throughput in MO/sec (= MB/sec, 2^20 B/s). The
third row of every group is the mean of the first two (``row_kind``
``"mean"``), not a third run (see the folder's SOURCE.md).
"""


#: The name the notebooks used before the move.
HAPROXY_APACHE_SIEGE = TABLE


# ------------------------------------------------ repeated rows, link loads ---
#: The measured columns of a run: two runs that agree on all of them are one run printed twice.
VALUE_COLUMNS: tuple[str, ...] = ("requests", "latency_mean_s", "latency_min_s", "latency_max_s", "bytes_per_s")

#: The iperf paths (iperf-links.csv): the injector's link carries every response; each Apache
#: server's responses cross one of the two haproxy ↔ server links (which one is not stated).
CLIENT_LINK = "injecteur-haproxy"
SERVER_LINKS: tuple[str, ...] = ("haproxy-serveur_rapide", "haproxy-serveur_lent")

#: Wire bytes per payload byte for full 1448-byte TCP segments on Ethernet (1538 / 1448).
FRAMING = 1538 / 1448


def repeated_runs(runs: pd.DataFrame, values: Sequence[str] = VALUE_COLUMNS, by: str = "concurrency") -> pd.Series:
    """For each run, the ``by`` level of an earlier run (at another level) it repeats field for field, else NA.

    The article's 140-client group (two servers) prints as its second run the
    120-client group's second run, digit for digit: a copy, not a measurement.

    >>> runs = pd.DataFrame({"concurrency": [120, 120, 140, 140], "requests": [13870, 14174, 14473, 14174],
    ...                      "bytes_per_s": [5.43, 5.50, 5.58, 5.50]})
    >>> repeated_runs(runs, values=["requests", "bytes_per_s"]).tolist()
    [<NA>, <NA>, <NA>, 120]
    """
    cols = list(values)
    seen: dict[tuple, Any] = {}
    out = []
    for level, key in zip(runs[by], map(tuple, runs[cols].to_numpy().tolist()), strict=True):
        first = seen.setdefault(key, level)
        out.append(first if first != level else pd.NA)
    return pd.Series(out, index=runs.index, name="repeats", dtype="Int64")


def link_loads(
    runs: pd.DataFrame, capacity: Mapping[str, float], *, share: float, threshold: float, limit: float
) -> pd.DataFrame:
    """Load of every iperf path per number of servers and client level, with its uncertainty.

    For each (``servers``, ``concurrency``) and path: ``utilisation`` is
    the mean payload rate of the runs carried by the path over its iperf
    capacity (a payload rate too). ``low`` / ``high`` bound it: the slowest
    and fastest run, payload only vs payload plus Ethernet/TCP framing
    (:data:`FRAMING`), and, on a server link, the unknown placement of the
    servers: with two servers one link carries ``share`` of the responses
    (the busier server) or ``1 - share``; with one server, all of them or
    none (nominal: all). ``status``: ``below`` (``high`` < ``threshold``),
    ``at the limit`` (``low`` ≥ ``limit``), else ``near the limit``.

    >>> runs = pd.DataFrame({"servers": [2, 2], "concurrency": [10, 10], "bytes_per_s": [6.36 * 2**20, 6.71 * 2**20]})
    >>> cap = {CLIENT_LINK: 94e6, SERVER_LINKS[0]: 160e6, SERVER_LINKS[1]: 100e6}
    >>> t = link_loads(runs, cap, share=0.57, threshold=0.5, limit=0.9)
    >>> t[["path", "utilisation", "low", "high", "status"]].round(2).values.tolist()[0]
    ['injecteur-haproxy', 0.58, 0.57, 0.64, 'near the limit']
    """
    rows = []
    for (servers, level), group in runs.groupby(["servers", "concurrency"], sort=True):
        bits = group["bytes_per_s"].astype(float).to_numpy() * 8
        for path, cap in capacity.items():
            if path == CLIENT_LINK:
                nominal, lo_share, hi_share = 1.0, 1.0, 1.0
            elif servers == 1:
                nominal, lo_share, hi_share = 1.0, 0.0, 1.0
            else:
                nominal, lo_share, hi_share = 0.5, min(share, 1 - share), max(share, 1 - share)
            rows.append({
                "servers": servers, "concurrency": level, "path": path, "capacity_bits_per_s": cap,
                "runs": len(bits), "payload_bits_per_s": bits.mean() * nominal,
                "utilisation": bits.mean() * nominal / cap,
                "low": bits.min() * lo_share / cap, "high": bits.max() * hi_share * FRAMING / cap,
            })  # fmt: skip
    out = pd.DataFrame(rows)
    out["status"] = np.select(
        [out["high"] < threshold, out["low"] >= limit], ["below", "at the limit"], default="near the limit"
    )
    return out
