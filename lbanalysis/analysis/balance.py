"""Did the load balancer spread the load? Shares, fairness and queueing per backend.

From the ``servers`` table of HAProxy statistics (one snapshot, or the
difference of two taken before and after a run), :func:`balance` gives one
row per server of each backend:

* ``requests``: what the server was given: ``stot`` (its sessions; one per
  request without keep-alive) by default, or ``lbtot`` (times the balancing
  algorithm chose it: requests handed out from a queue are not counted
  there, so with ``maxconn`` queues it undercounts) with ``by="lbtot"``;
* ``share`` and ``weight_share``: its part of the backend's requests and of
  the backend's weights; ``share_ratio`` = share / weight_share (1 is what
  the weights ask for);
* per backend: ``jain`` (Jain's fairness index of the per-weight loads,
  1 = perfectly as weighted, 1/n = all on one server) and ``max_min``
  (largest over smallest per-weight load);
* queueing and limits: ``queue_max``, ``queue_time_s``, ``limit_reached``
  (``sessions_max`` reached ``sessions_limit``, the server's maxconn);
* errors: connection and response errors, retries, redispatches, 5xx.

A backend with fewer than two servers, or without requests, gets no
fairness figures and says why in ``note``.

>>> import pandas as pd
>>> servers = pd.DataFrame({"proxy": ["app"] * 3, "server": ["s1", "s2", "s3"], "type": "server",
...                         "weight": [1.0, 2.0, 3.0], "sessions_total": [100, 200, 300]})
>>> b = balance(servers)
>>> b["share_ratio"].round(3).tolist(), float(b["jain"].iloc[0])
([1.0, 1.0, 1.0], 1.0)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..units import end_times

__all__ = ["balance", "balance_per_run", "diff_snapshots", "jain_index"]

_COUNTERS = (
    "sessions_total", "lbtot", "bytes_in", "bytes_out", "hrsp_1xx", "hrsp_2xx", "hrsp_3xx", "hrsp_4xx", "hrsp_5xx",
    "hrsp_other", "errors_request", "errors_connect", "errors_response", "denied_request", "denied_response",
    "retries", "redispatches",
)  # fmt: skip


def jain_index(x: np.ndarray | list[float]) -> float:
    """Jain's fairness index: (Σx)² / (n·Σx²); 1 when all equal, 1/n when one takes all.

    >>> jain_index([1, 1, 1, 1]), jain_index([4, 0, 0, 0])
    (1.0, 0.25)
    """
    a = np.asarray(x, dtype=float)
    a = a[np.isfinite(a)]
    if a.size == 0 or not (a**2).sum():
        return float("nan")
    return float(a.sum() ** 2 / (a.size * (a**2).sum()))


def diff_snapshots(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """What happened between two snapshots: counters of ``after`` minus ``before``, per proxy and server.

    Gauges (current sessions, queue, weight, status, limits, maxima, times)
    are taken from ``after``. A server missing from ``before`` counts from 0.
    A counter that went down (HAProxy restarted, or counters cleared) is a
    ``ValueError``: the difference would be meaningless.

    >>> b = pd.DataFrame({"proxy": ["app"], "server": ["s1"], "lbtot": [10], "weight": [1.0]})
    >>> a = pd.DataFrame({"proxy": ["app"], "server": ["s1"], "lbtot": [25], "weight": [1.0]})
    >>> int(diff_snapshots(b, a).loc[0, "lbtot"])
    15
    """
    key = ["proxy", "server"]
    prev = before.set_index(key)
    out = after.set_index(key).copy()
    for col in _COUNTERS:
        if col not in out.columns:
            continue
        old = pd.to_numeric(prev[col], errors="coerce") if col in prev.columns else None
        new = pd.to_numeric(out[col], errors="coerce")
        base = old.reindex(out.index).fillna(0) if old is not None else 0
        delta = new - base
        if (delta < 0).any():
            where = ", ".join(f"{p}/{s}" for p, s in delta[delta < 0].index)
            raise ValueError(f"counter {col!r} went down between the snapshots ({where}): restarted or cleared?")
        out[col] = delta
    return out.reset_index()


def _per_backend(rows: pd.DataFrame) -> pd.DataFrame:
    rows = rows.copy()
    requests = rows["requests"].astype(float)
    weight = rows["weight"].astype(float)
    total, wtotal = requests.sum(), weight.sum()
    rows["share"] = requests / total if total > 0 else np.nan
    rows["weight_share"] = weight / wtotal if wtotal > 0 else np.nan
    rows["share_ratio"] = rows["share"] / rows["weight_share"]
    per_weight = (requests / weight).where(weight > 0)
    note = ""
    if len(rows) < 2:
        note = "one server: nothing to balance"
    elif total <= 0:
        note = "no requests in these statistics"
    elif per_weight.isna().all():
        note = "no weights: fairness not computed"
    jain = jain_index(per_weight.to_numpy()) if not note else np.nan
    low, high = per_weight.min(), per_weight.max()
    rows["jain"] = jain
    rows["max_min"] = high / low if not note and low > 0 else np.nan
    rows["note"] = note
    return rows


def balance(servers: pd.DataFrame, before: pd.DataFrame | None = None, *, by: str = "stot") -> pd.DataFrame:
    """Per backend and server: share of requests against share of weight, fairness, queueing, errors.

    ``servers`` is the ``servers`` table of one snapshot (``read(...,
    table="servers")`` of a ``show stat`` file); with ``before`` (an earlier
    snapshot) the counters are the run's own (:func:`diff_snapshots`).
    """
    data = diff_snapshots(before, servers) if before is not None else servers.copy()
    if "type" in data.columns:
        data = data[data["type"].astype("string").fillna("server").eq("server")]
    if data.empty:
        raise ValueError("no server rows in these statistics (frontends and backends only?)")
    if by not in ("stot", "lbtot"):
        raise ValueError(f"by must be 'stot' or 'lbtot', not {by!r}")
    counters = {"stot": "sessions_total", "lbtot": "lbtot"}
    order = [by, "lbtot" if by == "stot" else "stot"]  # the other one when the asked one is missing
    for name in order:
        col = counters[name]
        values = pd.to_numeric(data[col], errors="coerce") if col in data else None
        if values is not None and values.notna().any():
            data["requests"], data["counted_by"] = values, name
            break
    else:
        raise ValueError("neither stot nor lbtot in these statistics")
    data["weight"] = pd.to_numeric(data.get("weight", np.nan), errors="coerce")
    frames = [_per_backend(rows) for _, rows in data.groupby("proxy", sort=True)]
    out = pd.concat(frames, ignore_index=True)
    nan = pd.Series(np.nan, index=out.index)
    limit = pd.to_numeric(out["sessions_limit"], errors="coerce") if "sessions_limit" in out else nan
    top = pd.to_numeric(out["sessions_max"], errors="coerce") if "sessions_max" in out else nan
    out["limit_reached"] = (top >= limit) & limit.notna() & (limit > 0)
    out["errors"] = sum(
        pd.to_numeric(out[c], errors="coerce").fillna(0) for c in ("errors_connect", "errors_response") if c in out
    )
    keep = [
        "proxy", "server", "weight", "requests", "counted_by", "share", "weight_share", "share_ratio", "jain",
        "max_min", "queue_max", "queue_time_s", "sessions_max", "sessions_limit", "limit_reached", "errors",
        "retries", "redispatches", "hrsp_5xx", "status", "note",
    ]  # fmt: skip
    return out[[c for c in keep if c in out.columns]]


def pair_by_time(r: pd.Series, stats: pd.DataFrame) -> tuple[pd.Series, pd.Series] | None:
    """The last timed snapshot at or before a run's start and the first at or after its end."""
    if pd.isna(r.get("timestamp")):
        return None
    timed = stats.dropna(subset=["timestamp"]).sort_values("timestamp")
    start = pd.Timestamp(r["timestamp"])
    end = end_times(pd.Series([start]), float(r["duration_s"]) if pd.notna(r.get("duration_s")) else 0.0).iat[0]
    if pd.isna(end):
        return None
    before = timed[timed["timestamp"] <= start]
    after = timed[timed["timestamp"] >= end]
    return None if before.empty or after.empty else (before.iloc[-1], after.iloc[0])


def pair_in_transcript(r: pd.Series, stats: pd.DataFrame) -> tuple[pd.Series, pd.Series] | None:
    """The snapshots printed just before and just after a run in the same transcript."""
    same = stats[stats["source"].astype(str) == str(r["source"])].sort_values("run")
    before = same[same["run"] < r["run"]]
    after = same[same["run"] > r["run"]]
    return None if before.empty or after.empty else (before.iloc[-1], after.iloc[0])


def balance_per_run(runs: pd.DataFrame, servers: pd.DataFrame, *, by: str = "stot") -> pd.DataFrame:
    """:func:`balance` for each load-test run, from the snapshots taken just before and just after it.

    A snapshot is the ``servers`` rows of one HAProxy statistics output. In
    a terminal transcript holding ``show stat`` before and after a test
    (``echo "show stat" | socat ...``, the test, ``show stat`` again), the
    snapshots around the run in the transcript are used. Otherwise a
    snapshot's time is the ``timestamp`` of its row in ``runs`` (HAProxy
    does not print it: give it in a ``manifest.csv``, or it is unknown), and
    a run of another tool is matched to the last snapshot at or before its
    start (``timestamp``) and the first at or after its end (start +
    ``duration_s``). The rows get the run's ``source`` and ``run`` as
    ``run_source`` and ``run_run``. Runs without a snapshot on each side are
    left out (the result simply has no rows for them).

    >>> t0 = pd.Timestamp("2026-11-24 15:00:00")
    >>> runs = pd.DataFrame({"source": ["s0.csv", "ab.txt", "s1.csv"], "run": [0, 0, 0],
    ...                      "tool": ["haproxy", "ab", "haproxy"],
    ...                      "timestamp": [t0, t0 + pd.Timedelta("10s"), t0 + pd.Timedelta("60s")],
    ...                      "duration_s": [None, 30.0, None]})
    >>> snap = pd.DataFrame({"proxy": "app", "server": ["a", "b"], "type": "server", "weight": 1.0})
    >>> servers = pd.concat([snap.assign(source="s0.csv", run=0, sessions_total=[10, 10]),
    ...                      snap.assign(source="s1.csv", run=0, sessions_total=[60, 40])])
    >>> b = balance_per_run(runs, servers)
    >>> b[["run_source", "server", "requests"]].values.tolist()
    [['ab.txt', 'a', 50], ['ab.txt', 'b', 30]]
    """
    if "timestamp" not in runs:
        runs = runs.assign(timestamp=pd.NaT)
    snapshots = servers[["source", "run"]].drop_duplicates().astype({"source": str})
    stats = runs[runs["tool"] == "haproxy"][["source", "run", "timestamp"]].astype({"source": str})
    stats = stats.merge(snapshots, on=["source", "run"])  # show info has no servers rows
    tests = runs[runs["tool"] != "haproxy"]
    pick = servers.assign(_src=servers["source"].astype(str))
    frames = []
    for _, r in tests.iterrows():
        pair = pair_in_transcript(r, stats) or pair_by_time(r, stats)
        if pair is None:
            continue
        b, a = pair
        snap_b = pick[(pick["_src"] == str(b["source"])) & (pick["run"] == b["run"])].drop(columns="_src")
        snap_a = pick[(pick["_src"] == str(a["source"])) & (pick["run"] == a["run"])].drop(columns="_src")
        result = balance(snap_a, before=snap_b, by=by)
        result.insert(0, "run_run", r["run"])
        result.insert(0, "run_source", r["source"])
        frames.append(result)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["run_source", "run_run"])
