"""The evidence over time: requests per second and latency per bin, from per-request logs."""

from __future__ import annotations

import math
import os
from typing import Any

import pandas as pd

from ...dask_engine import is_dask
from ...errors import LBAnalysisError
from . import charts
from .render import Section
from .words import ABSENT, INTROS, file_names


def per_request_timeseries(requests: pd.DataFrame, freq: str = "1s") -> pd.DataFrame:
    """Requests per second and latency over time, per run, from per-request logs.

    Requests are counted in bins of ``freq`` by their start (``start_s``,
    else ``start``) relative to the run's first request. Columns: ``source``,
    ``run``, ``t_s`` (bin start), ``requests``, ``requests_per_s``,
    ``latency_mean_s``, ``latency_p50_s``, ``latency_max_s``, ``partial``:
    the run covers the bin only in part, so its rate is not comparable (its
    last bin; its first too when starts are logged to the second, as ab
    ``-g`` does).

    >>> req = pd.DataFrame({"source": "a", "run": 0, "start_s": [0.0, 0.4, 1.2, 1.5, 1.9],
    ...                     "latency_s": [0.1, 0.3, 0.2, 0.2, 0.5]})
    >>> ts = per_request_timeseries(req, freq="1s")
    >>> ts[["t_s", "requests", "requests_per_s", "latency_mean_s", "partial"]].values.tolist()
    [[0.0, 2, 2.0, 0.2, False], [1.0, 3, 3.0, 0.3, True]]
    """
    cols = ["source", "run", "t_s", "requests", "requests_per_s", "latency_mean_s", "latency_p50_s", "latency_max_s",
            "partial"]  # fmt: skip
    step = pd.to_timedelta(freq).total_seconds()
    if step <= 0:
        raise LBAnalysisError(f"freq must be a positive duration such as '1s', not {freq!r}")
    if not len(requests):
        return pd.DataFrame(columns=cols)
    req = requests.copy()
    t = pd.to_numeric(req["start_s"], errors="coerce") if "start_s" in req else pd.Series(math.nan, index=req.index)
    if t.isna().all() and "start" in req:
        start = pd.to_datetime(req["start"], errors="coerce")
        t = (start - start.groupby([req["source"], req["run"]]).transform("min")).dt.total_seconds()
    req["_t"] = t.astype(float)
    req = req.dropna(subset=["_t"])
    req["_t"] = req["_t"] - req.groupby(["source", "run"])["_t"].transform("min")
    req["t_s"] = (req["_t"] // step) * step
    lat = pd.to_numeric(req.get("latency_s"), errors="coerce") if "latency_s" in req else None
    req["_lat"] = lat if lat is not None else math.nan
    g = req.groupby(["source", "run", "t_s"], sort=True)["_lat"]
    out = pd.DataFrame(
        {
            "requests": g.size(),
            "latency_mean_s": g.mean(),
            "latency_p50_s": g.median(),
            "latency_max_s": g.max(),
        }
    ).reset_index()
    out["requests_per_s"] = out["requests"] / step
    out["requests"] = out["requests"].astype(int)
    out["partial"] = _partial_bins(out, (req["_t"] % 1 == 0).groupby([req["source"], req["run"]], observed=True).all())
    return out[cols]


#: Under the chart: why some points are hollow.
PARTIAL_BINS = (
    "Hollow points are bins the run covers only in part (it ended within its last bin, and, where start times "
    "are logged to the second, began somewhere in its first): their rate is not comparable, so the rates below "
    "are of full bins only."
)


def _per_run_table(ts: pd.DataFrame, freq: str) -> pd.DataFrame:
    """Each run's length, requests, full bins, highest and lowest rate of a full bin, and slowest request."""
    full = ts[~ts["partial"]]
    per_run = ts.groupby(["source", "run"], sort=False).agg(
        seconds=("t_s", lambda v: v.max() + pd.to_timedelta(freq).total_seconds()),
        requests=("requests", "sum"),
        full_bins=("partial", lambda v: int((~v).sum())),
        latency_max_ms=("latency_max_s", lambda v: v.max() * 1e3),
    )
    rates = full.groupby(["source", "run"], sort=False)["requests_per_s"].agg(["max", "min"])
    per_run["peak_req_per_s"] = rates["max"].reindex(per_run.index)
    per_run["min_req_per_s"] = rates["min"].reindex(per_run.index)
    per_run = per_run[["seconds", "requests", "full_bins", "peak_req_per_s", "min_req_per_s", "latency_max_ms"]]
    per_run = per_run.reset_index()
    per_run["source"] = file_names(per_run["source"].astype(str).tolist())
    return per_run


def timeseries_section(
    ds: Any, freq: str = "1s", output_dir: str | os.PathLike | None = None, max_runs: int = charts.MAX_LINES
) -> Section:
    """Requests per second and latency over time for runs with per-request logs."""
    title = "Per-request time series"
    on_dask = is_dask(ds.requests)
    ts = _dask_timeseries(ds.requests, freq) if on_dask else None
    if (ts is not None and not len(ts)) or (ts is None and not len(ds.requests)):
        return Section.empty(title, ABSENT["requests"])
    if ts is None:
        ts = per_request_timeseries(ds.requests, freq=freq)
    if not len(ts):  # requests without start times (siege -v)
        return Section.empty(title, ABSENT["start times"])
    s = Section(title, intro=INTROS["timeseries"])
    if on_dask:
        s.add("Per-request logs read and aggregated on Dask (a folder larger than memory).")
    keys = ts[["source", "run"]].drop_duplicates()
    if not on_dask:
        logged = ds.requests[["source", "run"]].drop_duplicates()
        if len(logged) > len(keys):
            s.add(f"{len(logged) - len(keys)} of the {len(logged)} runs with per-request logs log no start times "
                  "(siege -v logs none): they are not drawn.")  # fmt: skip
    if len(keys) > max_runs:
        s.add(f"{len(keys)} runs have per-request logs; the charts show the first {max_runs}.")
        ts = ts.merge(keys.head(max_runs), on=["source", "run"])
    bins = ts.groupby(["source", "run"], sort=False)["t_s"].transform("nunique")
    if (bins >= 2).any():
        s.add(PARTIAL_BINS)
        s.add(charts.timeseries_chart(ts[(bins >= 2).to_numpy(bool)], freq))
    else:
        who = "The run" if len(keys) == 1 else f"Each of the {len(keys)} runs"
        s.add(f"{who} with start times lasted under two bins of {freq}: nothing to draw over time; the table gives "
              "each run's length and counts.")  # fmt: skip
    s.add(_per_run_table(ts, freq))
    s.save(output_dir, "timeseries")
    return s


def _dask_timeseries(requests: Any, freq: str) -> pd.DataFrame:
    """:func:`per_request_timeseries` of a Dask requests table, by Dask's reductions (no per-bin median)."""
    from ...analysis.requests import per_second

    step = pd.to_timedelta(freq).total_seconds()
    ps = per_second(requests, freq_s=step)
    first = ps.groupby(["source", "run"])["second"].transform("min")
    to_second = ps.groupby(["source", "run"])["fractional_starts"].sum() == 0  # from the same pass over the logs
    ts = pd.DataFrame(
        {
            "source": ps["source"],
            "run": ps["run"],
            "t_s": ps["second"] - first,
            "requests": ps["requests"].astype(int),
            "requests_per_s": ps["requests"] / step,
            "latency_mean_s": ps["latency_mean_s"],
            "latency_p50_s": math.nan,
            "latency_max_s": ps["latency_max_s"],
        }
    )
    ts["partial"] = _partial_bins(ts, to_second)
    return ts


def _partial_bins(ts: pd.DataFrame, to_second: pd.Series) -> pd.Series:
    """Which bins a run covers only in part: its last (it ended within it), and its first when
    its start times are logged to the second (``to_second``, by source and run: it began somewhere in it).

    >>> ts = pd.DataFrame({"source": "a", "run": 0, "t_s": [0.0, 1.0, 2.0]})
    >>> by_run = lambda v: pd.Series([v], index=pd.MultiIndex.from_tuples([("a", 0)]))
    >>> _partial_bins(ts, by_run(True)).tolist(), _partial_bins(ts, by_run(False)).tolist()
    ([True, False, True], [False, False, True])
    """
    last = ts["t_s"] == ts.groupby(["source", "run"], observed=True)["t_s"].transform("max")
    whole = {(str(s), int(r)): bool(v) for (s, r), v in to_second.items()}
    logged_to_second = [whole.get((str(s), int(r)), False) for s, r in zip(ts["source"], ts["run"], strict=True)]
    return (last | ((ts["t_s"] == 0) & pd.Series(logged_to_second, index=ts.index))).astype(bool)
