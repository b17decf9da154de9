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

import itertools

import numpy as np
import pandas as pd

from ..units import end_times

__all__ = ["balance", "balance_each", "balance_per_run", "diff_snapshots", "jain_index"]

_COUNTERS = (
    "sessions_total", "lbtot", "bytes_in", "bytes_out", "hrsp_1xx", "hrsp_2xx", "hrsp_3xx", "hrsp_4xx", "hrsp_5xx",
    "hrsp_other", "errors_request", "errors_connect", "errors_response", "denied_request", "denied_response",
    "retries", "redispatches",
)  # fmt: skip


#: The columns of :func:`balance`'s result, in order (those the statistics hold).
_KEEP = (
    "proxy", "server", "weight", "requests", "counted_by", "share", "weight_share", "share_ratio", "jain",
    "max_min", "queue_max", "queue_time_s", "sessions_max", "sessions_limit", "limit_reached", "errors",
    "retries", "redispatches", "hrsp_5xx", "status", "note",
)  # fmt: skip
#: The columns of a ``servers`` table :func:`balance` reads: the others (a hundred of HAProxy's fields) are left
#: behind before any copy, a grouping or a difference of snapshots.
USED = tuple(dict.fromkeys(("proxy", "server", "type", *_KEEP, *_COUNTERS)))


def used_columns(servers: pd.DataFrame) -> pd.DataFrame:
    """The columns of ``servers`` that :func:`balance` reads (:data:`USED`), in their order: the same balance
    from a narrower frame.

    >>> servers = pd.DataFrame({"proxy": ["app"], "server": ["s1"], "pid": [1], "sessions_total": [5]})
    >>> list(used_columns(servers))
    ['proxy', 'server', 'sessions_total']
    """
    return servers[[c for c in servers.columns if c in USED]]


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


_NO_SERVERS = "no server rows in these statistics (frontends and backends only?)"
_NO_COUNTER = "neither stot nor lbtot in these statistics"
_NO_BACKEND = "no backend named in these statistics (pxname)"
_COUNTER_OF = {"stot": "sessions_total", "lbtot": "lbtot"}


def _backend_figures(requests: np.ndarray, weight: np.ndarray) -> tuple[float, float, float, float, str]:
    """One backend's total requests and weights, Jain's index and busiest over least busy per weight, and why
    there is no fairness figure (empty when there is one).

    >>> _backend_figures(np.array([100.0, 300.0]), np.array([1.0, 1.0]))
    (400.0, 2.0, 0.8, 3.0, '')
    >>> _backend_figures(np.array([5.0]), np.array([1.0]))[4]
    'one server: nothing to balance'
    """
    total, wtotal = float(np.nansum(requests)), float(np.nansum(weight))  # as pandas sums: NaN left out
    with np.errstate(divide="ignore", invalid="ignore"):
        per_weight = np.where(weight > 0, requests / weight, np.nan)
    note = ""
    if len(requests) < 2:
        note = "one server: nothing to balance"
    elif total <= 0:
        note = "no requests in these statistics"
    elif np.isnan(per_weight).all():
        note = "no weights: fairness not computed"
    if note:
        return total, wtotal, np.nan, np.nan, note
    low, high = np.nanmin(per_weight), np.nanmax(per_weight)
    return total, wtotal, jain_index(per_weight), float(high / low) if low > 0 else np.nan, note


def _requests(data: pd.DataFrame, snapshot: np.ndarray, n: int, by: str) -> tuple[pd.Series, np.ndarray]:
    """The requests each server row was given, from the counter ``by`` names, or the other one in a snapshot
    where it is missing (``snapshot``: each row's snapshot number, of ``n``); and the counter of each snapshot
    ("" where neither is there)."""
    order = [by, "lbtot" if by == "stot" else "stot"]  # the other one when the asked one is missing
    values = {
        name: pd.to_numeric(data[_COUNTER_OF[name]], errors="coerce") for name in order if _COUNTER_OF[name] in data
    }
    counted = np.full(n, "", dtype=object)
    for name, v in reversed(values.items()):  # the asked one last: it wins where both are there
        has = np.bincount(snapshot, weights=v.notna().to_numpy(bool), minlength=n) > 0
        counted[has] = name
    picked = [name for name in order if name in values and (counted == name).any()]
    if len(picked) < 2:
        requests = values[picked[0]] if picked else pd.Series(np.nan, index=data.index)
    else:  # some snapshots hold only the other counter
        requests = values[by].where(counted[snapshot] == by, values[picked[1]])
    return requests, counted


def _snapshots(data: pd.DataFrame, snapshot: list[str]) -> tuple[np.ndarray, list[tuple]]:
    """Each row's snapshot number (-1: a row of no snapshot, a key missing) and each snapshot's key, in order."""
    if not snapshot:
        return np.zeros(len(data), dtype=int), [()]
    by_snapshot = data.groupby(snapshot, sort=True, observed=True)
    named = [k if isinstance(k, tuple) else (k,) for k in by_snapshot.size().index]
    return by_snapshot.ngroup().fillna(-1).to_numpy(int), named


def _per_backend(out: pd.DataFrame, group: np.ndarray) -> pd.DataFrame:
    """``out`` (ordered by backend: ``group``, each backend's number) with each backend's shares, fairness and
    why it has none (:func:`_backend_figures`)."""
    req, weight = out["requests"].to_numpy(float, na_value=np.nan), out["weight"].to_numpy(float, na_value=np.nan)
    cols = {name: np.full(len(out), np.nan) for name in ("share", "weight_share", "jain", "max_min")}
    note = np.full(len(out), "", dtype=object)
    starts = np.r_[0, np.flatnonzero(np.diff(group)) + 1, len(out)] if len(out) else np.array([0])
    for a, b in itertools.pairwise(starts):
        total, wtotal, jain, max_min, why_not = _backend_figures(req[a:b], weight[a:b])
        if total > 0:
            cols["share"][a:b] = req[a:b] / total
        if wtotal > 0:
            cols["weight_share"][a:b] = weight[a:b] / wtotal
        cols["jain"][a:b], cols["max_min"][a:b], note[a:b] = jain, max_min, why_not
    return out.assign(share=cols["share"], weight_share=cols["weight_share"],
                      share_ratio=cols["share"] / cols["weight_share"], jain=cols["jain"], max_min=cols["max_min"],
                      note=note)  # fmt: skip


def _limits_and_errors(out: pd.DataFrame) -> pd.DataFrame:
    """``out`` with each server's ``limit_reached`` (its most sessions at its maxconn) and ``errors``."""
    nan = pd.Series(np.nan, index=out.index)
    limit = pd.to_numeric(out["sessions_limit"], errors="coerce") if "sessions_limit" in out else nan
    top = pd.to_numeric(out["sessions_max"], errors="coerce") if "sessions_max" in out else nan
    out["limit_reached"] = (top >= limit) & limit.notna() & (limit > 0)
    out["errors"] = sum(
        pd.to_numeric(out[c], errors="coerce").fillna(0) for c in ("errors_connect", "errors_response") if c in out
    )
    return out


def _balanced(servers: pd.DataFrame, snapshot: list[str], by: str) -> tuple[pd.DataFrame, dict[tuple, str]]:
    """:func:`balance` of each snapshot of ``servers`` (its rows of one value of the ``snapshot`` columns; all of
    them when there are none), in one pass: the rows ordered by snapshot, then backend, each snapshot's rows in
    their order; and why a snapshot could not be balanced, by its key."""
    if by not in _COUNTER_OF:
        raise ValueError(f"by must be 'stot' or 'lbtot', not {by!r}")
    data = used_columns(servers).assign(**{c: servers[c] for c in snapshot})
    snaps, named = _snapshots(data, snapshot)
    is_server = (data["type"].astype("string").fillna("server").eq("server").to_numpy(bool) if "type" in data
                 else np.ones(len(data), dtype=bool)) & (snaps >= 0)  # fmt: skip
    has_servers = np.bincount(snaps[is_server], minlength=len(named)) > 0
    data, snaps = data[is_server], snaps[is_server]
    requests, counted = _requests(data, snaps, len(named), by)
    data = data.assign(requests=requests, counted_by=counted[snaps],
                       weight=pd.to_numeric(data["weight"], errors="coerce") if "weight" in data else np.nan)  # fmt: skip
    kept = counted[snaps] != ""  # the rows of a snapshot that has a counter
    data, snaps = data.iloc[np.flatnonzero(kept)], snaps[kept]
    group = data.groupby([*snapshot, "proxy"], sort=True, observed=True).ngroup().fillna(-1).to_numpy(int)
    named_backend = np.bincount(snaps[group >= 0], minlength=len(named)) > 0  # -1: a row of no backend named
    why = {key: _NO_SERVERS if not has_servers[i] else _NO_COUNTER if not counted[i] else _NO_BACKEND
           for i, key in enumerate(named) if not named_backend[i]}  # fmt: skip
    keep = np.argsort(np.where(group >= 0, group, np.iinfo(np.int64).max), kind="stable")[: int((group >= 0).sum())]
    out = _limits_and_errors(_per_backend(data.iloc[keep].reset_index(drop=True), group[keep]))
    return out[[*snapshot, *(c for c in _KEEP if c in out.columns)]], why


def balance(servers: pd.DataFrame, before: pd.DataFrame | None = None, *, by: str = "stot") -> pd.DataFrame:
    """Per backend and server: share of requests against share of weight, fairness, queueing, errors.

    ``servers`` is the ``servers`` table of one snapshot (``read(...,
    table="servers")`` of a ``show stat`` file); with ``before`` (an earlier
    snapshot) the counters are the run's own (:func:`diff_snapshots`).
    A snapshot with no server rows, or with neither counter, is a ``ValueError``.
    """
    data = diff_snapshots(used_columns(before), used_columns(servers)) if before is not None else servers
    out, why = _balanced(data, [], by)
    if why:
        raise ValueError(why[()])
    return out


def balance_each(
    servers: pd.DataFrame, *, by: str = "stot", snapshot: tuple[str, ...] = ("source", "run")
) -> tuple[pd.DataFrame, dict[tuple, str]]:
    """:func:`balance` of every snapshot in ``servers`` at once: a snapshot is the rows of one value of the
    ``snapshot`` columns (a file and its run, as read). The rows are ordered by snapshot, then backend; the
    ``snapshot`` columns come first. Snapshots that cannot be balanced (no server rows, neither counter, no
    backend named) are left out, and said in the second value (their key, as a tuple: why).

    Each snapshot's rows are what :func:`balance` gives for it alone; hundreds of
    snapshots take one pass, not hundreds of pandas frames.

    >>> snap = pd.DataFrame({"proxy": "app", "server": ["a", "b"], "type": "server", "weight": 1.0})
    >>> servers = pd.concat([snap.assign(source="s0.csv", run=0, sessions_total=[10, 30]),
    ...                      snap.assign(source="s1.csv", run=0, type="frontend", sessions_total=[5, 5])])
    >>> out, why = balance_each(servers)
    >>> out[["source", "server", "share"]].values.tolist(), why
    ([['s0.csv', 'a', 0.25], ['s0.csv', 'b', 0.75]], {('s1.csv', 0): 'no server rows in these statistics (frontends and backends only?)'})
    """
    return _balanced(servers, list(snapshot), by)


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
