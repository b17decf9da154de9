"""Article 003 (haproxy-apache-siege): the layout of its published results table.

The French blog post prints its siege results as a table with decimal
commas, one server and two servers side by side; :data:`TABLE` says how to
read ``data/raw/haproxy-apache-siege/results.csv`` with
:class:`lbanalysis.tables.TableSpec`.

>>> TABLE.block_column, TABLE.decimal
('servers', ',')
"""

from __future__ import annotations

from lbanalysis.tables import ColumnTarget, TableSpec

__all__ = ["TABLE"]


def _half(suffix: str) -> dict[str, ColumnTarget]:
    return {
        f"req{suffix}": ("requests", "nombre"),
        f"moy{suffix}": ("latency_mean_s", "(sec)"),
        f"mini{suffix}": ("latency_min_s", "(sec)"),
        f"maxi{suffix}": ("latency_max_s", "(sec)"),
        f"vol{suffix}": ("bytes_per_s", "MO/sec"),
    }


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
