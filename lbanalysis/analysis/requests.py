"""Aggregations of the requests table that give the same numbers on pandas and on Dask.

Each function takes the requests table as ``lbanalysis.read(..., table="requests")``
returns it, a pandas DataFrame or (``engine="dask"``) a Dask DataFrame, and
returns a pandas DataFrame:

* :func:`latency_percentiles`: per run, exact nearest-rank percentiles of
  ``latency_s``. On Dask the rows are first shuffled by ``source`` so that
  each file's requests meet in one partition (a run never spans files), then
  the same pandas code runs there: exact, with one run's latencies in
  memory at a time (8 bytes a request).
* :func:`per_second`: per run and time bin, requests, errors (status 400 or
  more, or no status where the log has one) and latency mean and max: sums
  and counts, a tree reduction on Dask.
* :func:`run_summary`: per run, requests, first start, span and latency
  mean/min/max, to join to the runs table on (``source``, ``run``).

>>> import pandas as pd
>>> req = pd.DataFrame({"source": "a", "run": 0, "start_s": [0.1, 0.5, 1.2, 1.9],
...                     "latency_s": [0.01, 0.02, 0.03, 0.5], "status": pd.array([200, 200, 503, 200], "Int64")})
>>> per_second(req)[["second", "requests", "errors", "latency_max_s"]].values.tolist()
[[0.0, 2, 0, 0.02], [1.0, 2, 1, 0.5]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..dask_engine import is_dask

__all__ = ["latency_percentiles", "per_second", "run_summary"]

_KEYS = ["source", "run"]


def _pct_of(frame: pd.DataFrame, percentiles: Sequence[float]) -> pd.DataFrame:
    """Nearest-rank percentiles of ``latency_s`` per run of a pandas frame."""
    rows = []
    for (source, run), g in frame.groupby(_KEYS, observed=True, sort=True):
        lat = g["latency_s"].to_numpy(dtype=float, na_value=np.nan)
        lat = lat[np.isfinite(lat)]
        if not len(lat):
            continue
        for p in percentiles:
            rows.append({"source": str(source), "run": int(run), "percentile": float(p),
                         "latency_s": float(np.percentile(lat, p, method="inverted_cdf")), "requests": len(lat)})  # fmt: skip
    return pd.DataFrame(rows, columns=["source", "run", "percentile", "latency_s", "requests"])


def latency_percentiles(requests: Any, percentiles: Sequence[float] = (50.0, 90.0, 99.0, 99.9)) -> pd.DataFrame:
    """Exact nearest-rank latency percentiles per run (pandas or Dask requests table).

    >>> req = pd.DataFrame({"source": "a", "run": 0, "latency_s": [0.001 * i for i in range(1, 101)]})
    >>> latency_percentiles(req, [50, 99])["latency_s"].round(3).tolist()
    [0.05, 0.099]
    """
    ps = [float(p) for p in percentiles]
    if not is_dask(requests):
        return _pct_of(requests, ps)
    cols = requests[[*_KEYS, "latency_s"]]
    meta = _pct_of(pd.DataFrame({"source": pd.Series(dtype=str), "run": pd.Series(dtype="Int64"),
                                 "latency_s": pd.Series(dtype=float)}), ps)  # fmt: skip
    out = cols.shuffle("source").map_partitions(_pct_of, ps, meta=meta).compute()
    return out.sort_values([*_KEYS, "percentile"]).reset_index(drop=True)


def _bins(frame: pd.DataFrame, freq_s: float) -> pd.DataFrame:
    """Per row: its bin, whether it is an error, its latency (the columns the reductions need)."""
    status = frame["status"] if "status" in frame else pd.Series(pd.NA, index=frame.index, dtype="Int64")
    error = (status.fillna(0) >= 400).astype("int64")
    return pd.DataFrame(
        {
            "source": frame["source"].astype(str),
            "run": frame["run"].astype("int64"),
            "second": np.floor(frame["start_s"].astype(float) / freq_s) * freq_s,
            "n": 1,
            "off_second": (frame["start_s"].astype(float) % 1 != 0).astype("int64"),
            "errors": error,
            "with_status": status.notna().astype("int64"),
            "lat_sum": frame["latency_s"].astype(float).fillna(0.0),
            "lat_n": frame["latency_s"].notna().astype("int64"),
            "lat_max": frame["latency_s"].astype(float),
        }
    )


def per_second(requests: Any, freq_s: float = 1.0) -> pd.DataFrame:
    """Requests, errors and latency per run and ``freq_s`` bin of ``start_s`` (pandas or Dask).

    ``errors`` counts statuses of 400 or more; it is empty where the log has no status (ab ``-g``).
    ``fractional_starts`` counts the requests that did not start on a whole
    second: 0 throughout for a log whose clock is the second (ab ``-g``).
    """
    keys = [*_KEYS, "second"]
    agg = {"n": "sum", "errors": "sum", "with_status": "sum", "lat_sum": "sum", "lat_n": "sum", "lat_max": "max",
           "off_second": "sum"}  # fmt: skip
    if is_dask(requests):
        meta = _bins(requests._meta, freq_s)
        t = requests.map_partitions(_bins, freq_s, meta=meta).groupby(keys).agg(agg).compute()
    else:
        t = _bins(requests, freq_s).groupby(keys).agg(agg)
    t = t.reset_index().sort_values(keys).reset_index(drop=True)
    out = pd.DataFrame(
        {
            "source": t["source"],
            "run": t["run"].astype("Int64"),
            "second": t["second"],
            "requests": t["n"].astype("int64"),
            "errors": t["errors"].astype("Int64").where(t["with_status"] > 0),
            "latency_mean_s": t["lat_sum"] / t["lat_n"].where(t["lat_n"] > 0),
            "latency_max_s": t["lat_max"],
            "fractional_starts": t["off_second"].astype("int64"),
        }
    )
    return out


def _summary_parts(frame: pd.DataFrame) -> pd.DataFrame:
    start = frame["start"] if "start" in frame else pd.Series(pd.NaT, index=frame.index, dtype="datetime64[ns]")
    return pd.DataFrame(
        {
            "source": frame["source"].astype(str),
            "run": frame["run"].astype("int64"),
            "n": 1,
            "lat_sum": frame["latency_s"].astype(float).fillna(0.0),
            "lat_n": frame["latency_s"].notna().astype("int64"),
            "lat_min": frame["latency_s"].astype(float),
            "lat_max": frame["latency_s"].astype(float),
            "first": start.astype("datetime64[ns]"),
            "t0": frame["start_s"].astype(float),
            "t1": frame["start_s"].astype(float),
        }
    )


def run_summary(requests: Any) -> pd.DataFrame:
    """Per run: requests, first start, span of start times, latency mean/min/max (pandas or Dask).

    >>> req = pd.DataFrame({"source": "a", "run": 0, "start_s": [0.0, 2.0], "latency_s": [0.1, 0.3]})
    >>> run_summary(req)[["requests", "span_s", "latency_mean_s", "latency_max_s"]].values.tolist()
    [[2.0, 2.0, 0.2, 0.3]]
    """
    agg = {"n": "sum", "lat_sum": "sum", "lat_n": "sum", "lat_min": "min", "lat_max": "max", "first": "min",
           "t0": "min", "t1": "max"}  # fmt: skip
    if is_dask(requests):
        meta = _summary_parts(requests._meta)
        t = requests.map_partitions(_summary_parts, meta=meta).groupby(_KEYS).agg(agg).compute()
    else:
        t = _summary_parts(requests).groupby(_KEYS).agg(agg)
    t = t.reset_index().sort_values(_KEYS).reset_index(drop=True)
    return pd.DataFrame(
        {
            "source": t["source"],
            "run": t["run"].astype("Int64"),
            "requests": t["n"].astype("int64"),
            "first_start": t["first"],
            "span_s": t["t1"] - t["t0"],
            "latency_mean_s": t["lat_sum"] / t["lat_n"].where(t["lat_n"] > 0),
            "latency_min_s": t["lat_min"],
            "latency_max_s": t["lat_max"],
        }
    )
