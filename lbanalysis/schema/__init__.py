"""The one place that defines every table, column, dtype and unit.

Every reader returns plain Python values under the names defined here, and
:func:`conform` turns them into a frame with these dtypes and this column
order. SI units throughout: seconds, bytes, bits, per second. Percentages
carry a ``_pct`` suffix and stay in percent (0-100) as the tools print them.

Tables
------
runs
    one row per tool run (the key is ``source`` + ``run``).
percentiles, phases, requests, intervals, servers, streams
    long-form detail tables; each row carries ``source`` and ``run`` so it
    joins to ``runs`` (``servers``: one row per proxy and server of an
    HAProxy statistics snapshot; ``streams``: the final summary of each
    stream of an iperf ``-P`` test; ``histogram``: hey's response time
    histogram; ``metrics``: every figure of k6's metric lines and of Locust's
    rows per request name, one per row).

Example
-------
>>> from lbanalysis.schema import RUNS, conform
>>> RUNS["requests_per_s"].unit
'1/s'
>>> df = conform([{"source": "a.txt", "run": 0, "tool": "ab", "requests": 10}], "runs")
>>> df.loc[0, "requests"], str(df["requests"].dtype)
(10, 'Int64')
"""

from __future__ import annotations

from .columns import COMMAND_REFUSED, ERROR_KINDS, KEY, NO_ANSWER, NO_RESULT_SHOWN, Column, columns_of
from .cpu import CPU, CPU_SCOPES, PAIRED_BY, ROLES
from .detail import HISTOGRAM, INTERVALS, METRICS, PERCENTILES, PHASES, REQUESTS, SERVERS, STREAMS
from .frames import (
    TABLES,
    absent_columns,
    categorical,
    conform,
    describe,
    empty,
    markdown,
    missing_array,
    missing_in_all,
)
from .runs import RUNS

__all__ = [
    "COMMAND_REFUSED",
    "CPU",
    "CPU_SCOPES",
    "ERROR_KINDS",
    "HISTOGRAM",
    "INTERVALS",
    "KEY",
    "METRICS",
    "NO_ANSWER",
    "NO_RESULT_SHOWN",
    "PAIRED_BY",
    "PERCENTILES",
    "PHASES",
    "REQUESTS",
    "ROLES",
    "RUNS",
    "SERVERS",
    "STREAMS",
    "TABLES",
    "Column",
    "absent_columns",
    "categorical",
    "columns_of",
    "conform",
    "describe",
    "empty",
    "markdown",
    "missing_array",
    "missing_in_all",
]
