"""Published tables into the runs schema: figures an article printed, not tool output.

Some articles publish their results as a table or as a printed list instead
of the tool's output. This module reads such figures, as they were copied
from the text (``data/raw/<slug>/``), into the same tidy ``runs`` frame that
:func:`lbanalysis.read` builds from tool output, so the analysis layer does
not care where a number came from.

:func:`read_table`
    A delimited table driven by a *column map* (printed column → runs
    column and printed unit). It reads decimal commas (``0,09``), fills down
    grouping columns printed once per group, converts units to the schema's
    SI units (``MO/sec`` → B/s), labels the rows of each group
    (``row_kinds``: runs and printed means) and turns side-by-side *blocks*
    of columns (one server | two servers) into long form with a column
    saying which block a row came from. :class:`TableSpec` bundles these
    arguments (the article notebooks keep their own specs).
    (:mod:`lbanalysis.tables.layout`)
:func:`as_printed`
    The inverse: a tidy table back in the printed layout and units
    (:mod:`lbanalysis.tables.printed`, with :func:`check_printed_means`).
:func:`check_printed_means`
    Whether a table's printed mean rows are the means of its runs, to the
    printed precision, next to the recomputed means.
:func:`read_figures`
    A nested list printed by a notebook (a Python literal such as
    ``[['setup', [['mode', [1.0, 2.0]], ...]], ...]``) into a tidy frame.
:func:`check_figures`
    Whether those figures equal the values read from the raw files
    (:mod:`lbanalysis.tables.figures`, with :func:`read_figures`).

Column map
----------
Keys are the table's column names (its header row); values name the runs
column, alone or with the unit as printed::

    {"flux": "concurrency", "req": "requests", "moy": ("latency_mean_s", "(sec)"),
     "vol": ("bytes_per_s", "MO/sec")}

Units are looked up in :data:`UNITS` (brackets and spaces around the unit
are ignored) and must give the unit :mod:`lbanalysis.schema` declares for the
column, e.g. ``MO/sec`` gives B/s for ``bytes_per_s``; a column given
without a unit is taken as printed in the schema's unit already. Byte prefixes follow
the tools' conventions (:mod:`lbanalysis.units`): siege's ``MB/sec`` (and the
French ``Mo``/``MO``, the same figure translated) is 2^20 bytes per second;
ab's ``Kbytes/sec`` is 1024 bytes per second.

Example: the first lines of article 003's table (semicolons, decimal commas,
client count printed once per group of three rows, two halves):

>>> import io
>>> text = ("flux;req;moy;mini;maxi;vol;req_2;moy_2;mini_2;maxi_2;vol_2\\n"
...         "10;9585;0,09;0,02;0,35;4,12;14825;0,06;0,01;1,52;6,36\\n"
...         ";9637;0,09;0,02;0,34;4,12;15754;0,06;0,01;1,07;6,71\\n"
...         ";9611;0,09;0,02;0,35;4,12;15290;0,06;0,01;1,30;6,54\\n")
>>> half = lambda sfx: {f"req{sfx}": ("requests", "nombre"), f"moy{sfx}": ("latency_mean_s", "(sec)"),
...                     f"vol{sfx}": ("bytes_per_s", "MO/sec")}
>>> spec = TableSpec(columns={"flux": ("concurrency", "nombre")}, blocks={1: half(""), 2: half("_2")},
...                  block_column="servers", sep=";", decimal=",", fill_down=("flux",),
...                  row_kinds=("run", "run", "mean"))
>>> t = spec.read(io.StringIO(text))
>>> t[["servers", "concurrency", "requests", "latency_mean_s", "row_kind"]].head(3)
   servers  concurrency  requests  latency_mean_s row_kind
0        1           10      9585            0.09      run
1        1           10      9637            0.09      run
2        1           10      9611            0.09     mean
>>> t.loc[0, "bytes_per_s"] / 2**20, t.loc[3, "servers"], t.loc[3, "requests"]
(4.12, 2, 14825)
"""

from __future__ import annotations

from typing import Any

from .figures import check_figures, read_figures
from .layout import UNITS, ColumnTarget, MappedColumn, TableSpec, column_map, read_table
from .printed import as_printed, check_printed_means

__all__ = [
    "UNITS",
    "ColumnTarget",
    "MappedColumn",
    "TableSpec",
    "as_printed",
    "check_figures",
    "check_printed_means",
    "column_map",
    "read_figures",
    "read_table",
]


def __getattr__(name: str) -> Any:
    # Article 003's table spec moved to the articles package (deprecated here).
    if name == "HAPROXY_APACHE_SIEGE":
        import warnings

        warnings.warn(
            "lbanalysis.tables.HAPROXY_APACHE_SIEGE moved to articles.haproxy_apache_siege.TABLE "
            "(the article code lives in the project's articles package)",
            DeprecationWarning,
            stacklevel=2,
        )
        from articles.haproxy_apache_siege import TABLE

        return TABLE
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
