"""Tests: several load-generator processes that ran at once against one target are one test.

One load-generator process is often the bound (one ``ab`` is one core), so
people run several at once: two ``ab -c 25`` are one test of 50 connections,
not two runs at 25. A *test* is the runs that ran at the same time against
the same target, known from:

* **a declared** ``test`` **column** (contract name), from a manifest (``lbanalysis
  sweep --processes N`` writes one) or a path pattern ``{test}``: the runs with
  one value are one test. A value names a test within one folder (or one
  ``origin``, where the runs have that column): ``t1`` in two folders is two
  tests.
* **overlapping times**, for runs without a declared test: each run's window
  from its manifest's ``timestamp`` and ``end_time`` (the sweep writes them),
  else from its per-request log (first start, last end), else from the start
  time its output shows and its duration. Runs of one tool against one target
  whose windows overlap by at least half the shorter one are one test. Never
  from file names alone: four ``ab`` outputs appended to one log show no time,
  and each stays a run of its own (:func:`fold` says why).

A test's figures (:data:`SUMMED`, :data:`RATES`, :data:`WEIGHTED`): its load
is the sum of its processes' loads; requests, failures and bytes are summed;
requests/s is the sum of each process's own rate (with a note when their
durations differ by more than :data:`DURATION_SPREAD`); the mean latency is
weighted by requests; percentiles are merged only from per-request logs, or
from histograms whose bucket edges are the same in every run (fortio's:
registry ``Tool.fixed_buckets``; :func:`merged_percentiles`), never
averaged: printed percentiles of separate processes stay per process. The error share is computed from the summed
counters. ``spread`` compares the processes' rates per connection: one slow
process drags a test.

:func:`fold` turns the processes of each test into one row (what the study
judges); :func:`lbanalysis.analysis.tests_of` gives one row per test (the
study's ``tests``).

>>> runs = pd.DataFrame({"source": ["a.txt", "b.txt"], "run": [0, 0], "tool": "ab", "url": "http://h/",
...     "test": ["t1", "t1"], "concurrency": [25, 25], "requests": [1000, 1200], "failed": [0, 2],
...     "duration_s": [4.0, 4.1], "requests_per_s": [250.0, 292.7], "latency_mean_s": [0.1, 0.085]})
>>> one, processes = fold(runs)
>>> one[["test", "processes", "concurrency", "requests", "failed", "requests_per_s"]].to_dict("records")
[{'test': 't1', 'processes': 2, 'concurrency': 50, 'requests': 2200, 'failed': 2, 'requests_per_s': 542.7}]
>>> round(float(one["latency_mean_s"].iloc[0]), 4)  # weighted by requests
0.0918
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import registry
from ..units import end_times
from .series import as_floats

__all__ = [
    "DURATION_SPREAD",
    "MERGED_PERCENTILES",
    "RATES",
    "SPREAD_NOTE",
    "SUMMED",
    "WEIGHTED",
    "cpu_of_tests",
    "fold",
    "histogram_percentiles",
    "identify",
    "merged_percentiles",
    "per_test_percentiles",
    "series_notes",
    "table",
    "windows",
    "with_tests",
]

# ------------------------------------------------------------- the figures ---
#: Counts and loads of a test: the sum over its processes (empty when a process does not show it).
SUMMED: tuple[str, ...] = (
    "concurrency", "requests_planned", "threads", "rate_target_per_s", "requests", "requests_ok", "failed",
    "non_2xx", "non_2xx_3xx", "failed_network", "requests_attempted", "failed_connect", "failed_receive",
    "failed_length", "failed_exceptions", "write_errors", "keepalive_requests", "bytes_total", "bytes_html",
    "bytes_sent", "http_ok", "socket_errors_connect", "socket_errors_read", "socket_errors_write",
    "socket_errors_timeout", "iterations", "iterations_dropped", "concurrency_achieved",
)  # fmt: skip
#: Rates of a test: the sum of each process's own rate.
RATES: tuple[str, ...] = (
    "requests_per_s", "bytes_per_s", "bytes_sent_per_s", "bytes_per_s_total", "rate_sent_per_s",
)  # fmt: skip
#: Means of a test: weighted by each process's requests.
WEIGHTED: tuple[str, ...] = ("latency_mean_s", "latency_used_s", "_total_mean_s")
#: Extremes of a test: (column, how).
EXTREMES: tuple[tuple[str, str], ...] = (
    ("latency_min_s", "min"), ("latency_max_s", "max"), ("duration_s", "max"), ("latency_mean_step_s", "max"),
    ("latency_step_s", "max"), ("timestamp", "min"), ("end_time", "max"),
)  # fmt: skip
#: Text kept from every process, joined (each value once).
JOINED: tuple[str, ...] = ("error", "warnings")
#: Columns a test takes from its first process (where the run starts is the first process's file and line).
FIRST: tuple[str, ...] = ("source", "run", "line", "command")
#: Durations of a test's processes differing by more than this share of the longest: a note (the summed
#: rate counts each process over its own time).
DURATION_SPREAD = 0.10
#: Processes' rates per connection differing by more than this share of their mean: a note naming the slowest.
SPREAD_NOTE = 0.20
#: Percentiles merged from the processes' per-request logs (``latency_p50_s`` ...).
MERGED_PERCENTILES: tuple[float, ...] = (50.0, 90.0, 99.0)
#: Two windows are one test when they overlap by at least this share of the shorter one.
OVERLAP_SHARE = 0.5


def _target(runs: pd.DataFrame) -> pd.Series:
    """The full target of each run (URL without its scheme, else host:port/path), empty where unknown."""
    if "_target" in runs:
        return runs["_target"].astype("string").fillna("").astype(str)
    url = runs["url"].astype("string") if "url" in runs else pd.Series(pd.NA, index=runs.index, dtype="string")
    host = runs["host"].astype("string") if "host" in runs else pd.Series(pd.NA, index=runs.index, dtype="string")
    return url.str.replace(r"^https?://", "", regex=True).fillna(host).fillna("").astype(str)


def _scope(runs: pd.DataFrame) -> pd.Series:
    """Where a declared test value is unique: the ``origin`` column, else the file's folder.

    >>> _scope(pd.DataFrame({"source": ["x/2_ab/rep-1/ab-1.txt", "x/3_ab/rep-1/ab-1.txt"]})).tolist()
    ['x/2_ab/rep-1', 'x/3_ab/rep-1']
    """
    if "origin" in runs and runs["origin"].notna().any():
        return runs["origin"].astype("string").fillna("").astype(str)
    return runs["source"].astype(str).map(os.path.dirname) if "source" in runs else pd.Series("", index=runs.index)


def _times(runs: pd.DataFrame, col: str) -> pd.Series:
    """A column of times as naive datetimes in nanoseconds, the unit of the ends worked out from durations (text
    from a manifest parsed, to microseconds by pandas 3; a time beyond what nanoseconds hold, or anything else,
    empty).

    >>> _times(pd.DataFrame({"end_time": ["2026-01-01 10:00:04+01:00", "3000-01-01", "x"]}), "end_time").tolist()
    [Timestamp('2026-01-01 09:00:04'), NaT, NaT]
    """
    if col not in runs:
        return pd.Series(pd.NaT, index=runs.index, dtype="datetime64[ns]")
    s = runs[col]
    if not pd.api.types.is_datetime64_any_dtype(s):
        s = pd.to_datetime(s.astype("string"), errors="coerce", utc=True, format="mixed")
    if getattr(s.dt, "tz", None) is not None:
        s = s.dt.tz_localize(None)
    held = s.isna() | ((s >= pd.Timestamp.min) & (s <= pd.Timestamp.max))
    return s.where(held).astype("datetime64[ns]")


# ------------------------------------------------------------- identity ---
def windows(
    runs: pd.DataFrame,
    requests: pd.DataFrame | None = None,
    logged: dict[tuple[str, int], tuple[pd.Timestamp, pd.Timestamp]] | None = None,
) -> pd.DataFrame:
    """When each run ran: ``start``, ``end`` and ``window_basis`` (empty where nothing says).

    From the manifest's ``timestamp`` and ``end_time`` (the sweep writes
    them), else the run's per-request log (its first start and last end:
    ab ``-g`` logs starts to the second), else the start its output shows
    and its duration. ``logged``: the windows of the per-request logs by
    (source, run), when already known (a summary's own log under its key).

    >>> runs = pd.DataFrame({"source": ["a", "b"], "run": [0, 0], "timestamp": ["2026-01-01 10:00:00", None],
    ...                      "end_time": ["2026-01-01 10:00:04", None], "duration_s": [4.0, 3.0]})
    >>> windows(runs)["window_basis"].tolist()
    ['start and end times (manifest)', '']
    """
    start, end = _times(runs, "timestamp"), _times(runs, "end_time")
    basis = pd.Series("", index=runs.index, dtype=object)
    both = (start.notna() & end.notna() & (end >= start)).to_numpy(bool)
    basis[both] = "start and end times (manifest)"
    out_start = start.where(both)
    out_end = end.where(both)
    todo = ~both
    if logged is None and requests is not None and len(requests) and todo.any():
        logged = _logged_windows(requests)
    if logged and todo.any():
        keys = list(zip(runs["source"].astype(str), as_floats(runs, "run").fillna(-1).astype(int), strict=True))
        for pos in np.flatnonzero(todo):
            w = logged.get(keys[pos])
            if w is not None:
                i = runs.index[pos]
                out_start[i], out_end[i], basis[i] = w[0], w[1], "per-request log"
                todo[pos] = False
    dur = as_floats(runs, "duration_s")
    shown = todo & start.notna().to_numpy(bool) & dur.notna().to_numpy(bool)
    out_start[shown] = start[shown]
    out_end[shown] = end_times(start[shown], dur[shown])
    basis[shown] = "start time shown and duration"
    return pd.DataFrame({"start": out_start, "end": out_end, "window_basis": basis}, index=runs.index)


def _logged_windows(requests: pd.DataFrame) -> dict[tuple[str, int], tuple[pd.Timestamp, pd.Timestamp]]:
    """(source, run) -> first start and last end of its logged requests."""
    if not {"source", "run", "start"} <= set(requests.columns):
        return {}
    start = pd.to_datetime(requests["start"], errors="coerce")
    if getattr(start.dt, "tz", None) is not None:
        start = start.dt.tz_localize(None)
    end = end_times(start, as_floats(requests, "latency_s").fillna(0.0))
    frame = pd.DataFrame({"source": requests["source"].astype(str), "run": requests["run"].astype("Int64"),
                          "start": start, "end": end}).dropna(subset=["start", "end"])  # fmt: skip
    if not len(frame):
        return {}
    g = frame.groupby(["source", "run"], observed=True)
    first, last = g["start"].min(), g["end"].max()
    return {(str(s), int(r)): (first[(s, r)], last[(s, r)]) for s, r in first.index}


def identify(
    runs: pd.DataFrame,
    requests: pd.DataFrame | None = None,
    *,
    test: str | Sequence[str] = "test",
    logged: dict[tuple[str, int], tuple[pd.Timestamp, pd.Timestamp]] | None = None,
) -> pd.DataFrame:
    """Per run: ``test`` (the test it belongs to, empty for a run alone) and ``test_basis`` (how that is known).

    ``test``: the column (or columns) declaring tests. Runs that declare none
    are grouped by overlapping windows (:func:`windows`) among runs of one
    tool and target; a run shown twice (two formats of one tool with the
    same requests: a tool's twin outputs of one run) is not a second process. Only load
    tests (the registry's ``http-load`` tools) make tests: an iperf client
    and its server ran at once, and are one measurement, not two processes.

    >>> runs = pd.DataFrame({"source": ["d/a", "d/b", "d/c"], "run": 0, "tool": "ab", "url": "http://h/",
    ...     "requests": [100, 120, 90], "duration_s": [4.0, 4.2, 4.0],
    ...     "timestamp": ["2026-01-01 10:00:00", "2026-01-01 10:00:00.2", "2026-01-01 10:00:09"],
    ...     "end_time": ["2026-01-01 10:00:04", "2026-01-01 10:00:04.4", "2026-01-01 10:00:13"]})
    >>> identify(runs).values.tolist()
    [['at 2026-01-01 10:00:00', 'overlapping times: start and end times (manifest)'], \
['at 2026-01-01 10:00:00', 'overlapping times: start and end times (manifest)'], [nan, '']]
    """
    cols = [test] if isinstance(test, str) else list(test)
    out = pd.DataFrame({"test": pd.Series(np.nan, index=runs.index, dtype=object), "test_basis": ""},
                       index=runs.index)  # fmt: skip
    declared = pd.Series(False, index=runs.index)
    if all(c in runs for c in cols):
        values = runs[cols].astype("string")
        declared = values.notna().all(axis=1)
        if declared.any():
            name = (
                values[declared].astype(str).agg(" ".join, axis=1) if len(cols) > 1 else values.loc[declared, cols[0]]
            )
            scope = _scope(runs)[declared]
            several = pd.Series(name).groupby(name).transform(lambda v: scope[v.index].nunique() > 1).astype(bool)
            out.loc[declared, "test"] = name.where(~several, _qualified(scope, name)).astype(str)
            out.loc[declared, "test_basis"] = f"declared ({', '.join(cols)})"
    load = _load_tests(runs)
    out.loc[~load, ["test", "test_basis"]] = [np.nan, ""]
    rest = runs[~declared.to_numpy(bool) & load.to_numpy(bool)]
    if len(rest) >= 2:
        for name, idx, basis in _overlapping(rest, requests, logged):
            out.loc[idx, "test"] = name
            out.loc[idx, "test_basis"] = f"overlapping times: {basis}"
    return out


def _qualified(scope: pd.Series, name: pd.Series) -> pd.Series:
    """A test value named with its folder (from the folder all share), for a value that names tests in several.

    >>> _qualified(pd.Series(["x/2_ab/rep-1", "x/3_ab/t1"]), pd.Series(["rep-1", "t1"])).tolist()
    ['2_ab/rep-1', '3_ab/t1']
    >>> _qualified(pd.Series(["x/a", "x/b"]), pd.Series(["1", "1"])).tolist()
    ['a:1', 'b:1']
    """
    try:
        root = os.path.commonpath(list(scope.unique()))
    except ValueError:  # absolute and relative paths mixed
        root = ""
    rel = scope.map(lambda d: os.path.relpath(d, root) if root else d)
    last = rel.map(lambda d: os.path.basename(d))
    return rel.where(last == name, rel + ":" + name)


def _load_tests(runs: pd.DataFrame) -> pd.Series:
    """Whether each run is a load test (a tool of kind ``http-load``, or no tool named)."""
    from .. import registry

    if "tool" not in runs:
        return pd.Series(True, index=runs.index)
    names = set(registry.names())
    return runs["tool"].map(
        lambda t: not isinstance(t, str) or t not in names or registry.get_tool(t).kind == "http-load"
    )


def _overlapping(
    runs: pd.DataFrame, requests: pd.DataFrame | None, logged: dict | None = None
) -> list[tuple[str, list, str]]:
    """Groups of runs of one tool and target whose windows overlap (at least two runs each)."""
    target = _target(runs)
    tool = runs["tool"].astype("string").fillna("").astype(str) if "tool" in runs else pd.Series("", index=runs.index)
    key = tool + "\x00" + target
    key = key[(target != "").to_numpy(bool)]
    candidates = key[key.duplicated(keep=False)]
    if not len(candidates):
        return []
    sub = runs.loc[candidates.index]
    w = windows(sub, requests, logged)
    w = w[w["start"].notna() & w["end"].notna()]
    req, fmt = (
        as_floats(sub, "requests"),
        sub["format"].astype(str) if "format" in sub else pd.Series("", index=sub.index),
    )
    groups = []
    for _, idx in candidates[w.index].groupby(candidates[w.index]).groups.items():
        order = w.loc[idx].sort_values("start")
        clusters: list[list] = []
        for i, row in order.iterrows():
            last = clusters[-1] if clusters else None
            if last is not None and any(_overlap(w.loc[j], row) and not _same_run(req, fmt, i, j) for j in last):
                last.append(i)
            else:
                clusters.append([i])
        for c in clusters:
            if len(c) >= 2:
                bases = "; ".join(dict.fromkeys(w.loc[c, "window_basis"]))
                name = f"at {w.loc[c[0], 'start'].isoformat(sep=' ', timespec='seconds')}"
                groups.append((name, c, bases))
    return groups


def _overlap(a: pd.Series, b: pd.Series) -> bool:
    """Whether two windows overlap by at least :data:`OVERLAP_SHARE` of the shorter one."""
    shared = (min(a["end"], b["end"]) - max(a["start"], b["start"])).total_seconds()
    shorter = min((a["end"] - a["start"]).total_seconds(), (b["end"] - b["start"]).total_seconds())
    return shared > 0 and shared >= OVERLAP_SHARE * max(shorter, 1e-9)


def _same_run(req: pd.Series, fmt: pd.Series, i: Any, j: Any) -> bool:
    """One run shown twice (Locust's printed tables and its ``--csv`` files), not two processes: two formats
    of one tool with the same requests. Processes run at once print the same format."""
    return bool(fmt[i] != fmt[j] and req[i] == req[j])


# ----------------------------------------------------------------- folding ---
def _all_or_nothing(values: pd.Series, how: str) -> float:
    """The sum (or min, max) of a test's values, empty when any process does not show it."""
    if values.isna().any() or not len(values):
        return math.nan
    return float(getattr(values, how)())


def _same(values: pd.Series) -> Any:
    """The value every process shows, else empty."""
    kept = values.dropna()
    if len(kept) != len(values) or not len(kept):
        return None
    first = kept.iloc[0]
    return first if (kept.astype(str) == str(first)).all() else None


def _extreme(g: pd.DataFrame, c: str, how: str) -> Any:
    """The earliest or latest of a column of the processes (times: only when every process shows one)."""
    if c not in ("timestamp", "end_time"):
        return _all_or_nothing(as_floats(g, c), how)
    times = _times(g, c)
    found = (times.min() if how == "min" else times.max()) if times.notna().all() else None
    return str(found) if c == "end_time" and found is not None else found


def _folded_value(g: pd.DataFrame, c: str) -> Any:
    """A test's value of one column from its processes': the first, a sum, the texts joined, an extreme, or the
    value they share (else none)."""
    if c in FIRST:
        return g[c].iloc[0]
    if c in SUMMED or c in RATES:
        return _all_or_nothing(as_floats(g, c), "sum")
    if c in JOINED:
        texts = [str(v) for v in g[c] if isinstance(v, str) and v.strip()]
        return "; ".join(dict.fromkeys(texts)) if texts else g[c].iloc[0]
    if c in dict(EXTREMES):
        return _extreme(g, c, dict(EXTREMES)[c])
    return _same(g[c])


def _weighted(g: pd.DataFrame, c: str) -> float:
    """A mean of the processes weighted by their requests (NaN unless every process shows both)."""
    v, req = as_floats(g, c), as_floats(g, "requests")
    ok = v.notna() & req.notna() & (req > 0)
    return float((v[ok] * req[ok]).sum() / req[ok].sum()) if ok.all() and ok.any() else math.nan


def _fold_one(g: pd.DataFrame, name: str, basis: str) -> tuple[dict[str, Any], list[str]]:
    """One test's row from its processes' rows, and its notes."""
    row: dict[str, Any] = {c: _folded_value(g, c) for c in g.columns if c not in WEIGHTED}
    row.update({c: _weighted(g, c) for c in WEIGHTED if c in g})
    if "latency_mean_all_s" in g and row.get("requests_per_s", math.nan) > 0:
        row["latency_mean_all_s"] = 1.0 / row["requests_per_s"]  # time per request across all connections
    row["test"], row["test_basis"], row["processes"], row["_folded"] = name, basis, len(g), True
    if "process" in g:
        row["process"] = None
    notes = _notes(g, name)
    row["test_note"] = "; ".join(notes)
    return row, notes


def _per_connection(g: pd.DataFrame) -> pd.Series:
    """Each process's rate per connection (its rate where it shows no concurrency)."""
    rate, conc = as_floats(g, "requests_per_s"), as_floats(g, "concurrency")
    return (rate / conc.where(conc > 0)).fillna(rate)


def _notes(g: pd.DataFrame, name: str) -> list[str]:
    """What to say of one test: durations that differ, one process slower than the others."""
    notes = []
    said = as_floats(g, "processes").max()
    if said > len(g):  # an interrupted sweep: fewer outputs than its manifest's count
        notes.append(f"test {name}: {len(g)} of its {said:g} processes read (the others left no output)")
    dur = as_floats(g, "duration_s").dropna()
    if len(dur) >= 2 and dur.max() > 0 and (dur.max() - dur.min()) / dur.max() > DURATION_SPREAD:
        notes.append(
            f"test {name}: its {len(g)} processes ran {dur.min():g} to {dur.max():g} s (more than "
            f"{DURATION_SPREAD:.0%} apart): its requests/s sums each process's own rate over its own time"
        )
    per = _per_connection(g).dropna()
    if len(per) >= 2 and per.mean() > 0 and (per.max() - per.min()) / per.mean() > SPREAD_NOTE:
        slow = g.loc[per.idxmin()]
        notes.append(
            f"test {name}: its slowest process ({os.path.basename(str(slow.get('source')))}) gave "
            f"{(1 - per.min() / per.max()):.0%} less per connection than its fastest: one slow process drags a test"
        )
    return notes


def _untimed(runs: pd.DataFrame, ident: pd.DataFrame, logged: dict, apart: Sequence[str] = ()) -> pd.Series:
    """A note for the runs of one file, against one target at one load and setup (``apart``: the design's setup
    columns, such as the heading each ran under), that show no command and no time.

    Several alike outputs of one tool in one file without a command line
    before each are what processes started in the background into one log
    print (``ab ... >> log &`` four times); nothing in them says whether
    they ran at once, so each stays a run of its own. (Outputs at several
    loads are a sweep run one after the other: no note.)
    """
    out = pd.Series("", index=runs.index, dtype=object)
    if not len(runs) or "source" not in runs:
        return out
    w = windows(runs, logged=logged)
    command = runs["command"].astype("string").fillna("") if "command" in runs else pd.Series("", index=runs.index)
    alone = ident["test"].isna() & w["start"].isna() & (command == "") & _load_tests(runs)
    key = [runs["source"].astype(str), _target(runs), as_floats(runs, "concurrency").fillna(-1),
           as_floats(runs, "rate_target_per_s").fillna(-1)]  # fmt: skip
    key += [runs[c].astype("string").fillna("") for c in apart if c in runs]
    for (src, *_), idx in runs[alone.to_numpy(bool)].groupby(key).groups.items():
        if len(idx) >= 2:
            out[idx] = (
                f"{os.path.basename(src)}: its {len(idx)} runs show neither a command line nor a start or end time, "
                "so whether they ran at the same time (processes started in the background into one log) cannot "
                "be told: each is judged as a run of its own"
            )
    return out


def fold(
    runs: pd.DataFrame,
    requests: pd.DataFrame | None = None,
    *,
    test: str | Sequence[str] = "test",
    apart: Sequence[str] = (),
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The runs with each test's processes folded into one row, and the processes.

    A test row keeps the index label, file and line of its first process and
    adds ``test``, ``test_basis``, ``processes`` and ``test_note``; a run in
    no test stays as it is (``processes`` 1). A frame ``fold`` returned is
    folded already (its ``_folded`` column): it comes back as it is. A run that is another run's own
    log (``twin_of``, set by the study) is never a process; it then points
    at its test's row. Processes of one declared test that differ in tool or
    target are not summed: they stay runs of their own, and ``test_note``
    says so. ``apart``: columns of setups (the design's) whose runs are never alike.

    The processes frame: every folded run, with ``test``, ``test_row`` (the
    index label of its test's row), ``process`` (1-based, in the order of
    their start, else their files), its rate per connection and ``spread``
    (the test's rates per connection, (max - min) / mean).
    """
    if "_folded" in runs:  # folded already (a study of a frame fold returned): as it is
        return runs.copy(), runs.iloc[0:0].assign(test_row=None, process=None)
    twin = runs["twin_of"] if "twin_of" in runs else pd.Series(pd.NA, index=runs.index, dtype=object)
    is_log = twin.notna().to_numpy(bool)
    logged = _summary_windows(runs, twin, is_log, requests)
    ident = identify(runs[~is_log], requests, test=test, logged=logged)
    out = runs.copy()
    out["test"] = ident["test"].reindex(runs.index)
    out["test_basis"] = ident["test_basis"].reindex(runs.index).fillna("")
    declared_n = as_floats(out, "processes")  # a manifest's count (the sweep writes test, processes, process)
    out["processes"] = declared_n.where(declared_n.notna(), 1).astype(int)
    out["test_note"] = _untimed(runs[~is_log], ident, logged, apart).reindex(runs.index).fillna("")
    out["_folded"] = False
    rows, drop, members = [], [], []
    starts = windows(runs[~is_log], logged=logged)["start"] if len(ident) and ident["test"].notna().any() else None
    for name, idx in out.loc[~is_log].dropna(subset=["test"]).groupby("test", sort=False).groups.items():
        g = _in_order(out.loc[idx], starts)
        mixed = [c for c, v in (("tool", g.get("tool")), ("target", _target(g))) if v is not None and v.nunique() > 1]
        if mixed:
            out.loc[idx, "test_note"] = f"test {name}: its runs differ in {' and '.join(mixed)}: not summed"
            continue
        row, _ = _fold_one(g, str(name), str(g["test_basis"].iloc[0]))
        rows.append((g.index[0], row))
        drop.extend(g.index[1:])
        members.append(_members(g))
    processes = pd.concat(members) if members else out.iloc[0:0].assign(test_row=None, process=None)
    folded = _written(out, rows).drop(index=drop)
    if is_log.any() and len(processes):
        folded = _logs_to_tests(folded, processes)
    return _typed(folded, runs), processes


def _summary_windows(
    runs: pd.DataFrame, twin: pd.Series, is_log: np.ndarray, requests: pd.DataFrame | None
) -> dict[tuple[str, int], Any] | None:
    """The windows of the runs' per-request logs (:func:`_logged_windows`), each also a window of the summary
    the log belongs to (``twin_of``)."""
    if not is_log.any() or requests is None or not len(requests):
        return None
    logged = _logged_windows(requests)
    for i in runs.index[is_log] if logged else []:  # a summary's window from its own log
        w = logged.get((str(runs.at[i, "source"]), int(runs.at[i, "run"])))
        j = twin[i]
        if w is not None and j in runs.index:
            logged[(str(runs.at[j, "source"]), int(runs.at[j, "run"]))] = w
    return logged


def _in_order(g: pd.DataFrame, starts: pd.Series | None) -> pd.DataFrame:
    """The processes of a test in the order of their start (then their files), where starts are known."""
    if starts is None:
        return g
    return g.assign(_s=starts.reindex(g.index)).sort_values(["_s", "source"], kind="stable").drop(columns="_s")


def _members(g: pd.DataFrame) -> pd.DataFrame:
    """The processes of one test, with ``test_row`` (its first process's label), ``process`` (1-based),
    ``rate_per_connection`` and the test's ``spread`` of it."""
    per = _per_connection(g)
    spread = float((per.max() - per.min()) / per.mean()) if per.notna().sum() >= 2 and per.mean() > 0 else math.nan
    declared = as_floats(g, "process")
    order = declared.where(declared.notna(), pd.Series(range(1, len(g) + 1), index=g.index))
    return g.assign(test_row=g.index[0], process=order.astype(int), rate_per_connection=per, spread=spread)


def _written(out: pd.DataFrame, rows: list[tuple[Any, dict[str, Any]]]) -> pd.DataFrame:
    """``out`` with each test's row written over its first process's (new columns added)."""
    for head, row in rows:
        for c, v in row.items():
            if c not in out:
                out[c] = None
            out.at[head, c] = v
    return out


def _logs_to_tests(folded: pd.DataFrame, processes: pd.DataFrame) -> pd.DataFrame:
    """A process's own log now points at its test's row (``twin_of``); ``_log_of`` keeps the process it is of."""
    where = dict(zip(processes.index, processes["test_row"], strict=True))
    logs = folded.index[folded["twin_of"].notna().to_numpy(bool)]
    folded["_log_of"] = folded["twin_of"]  # the process whose log it is (merged_percentiles)
    for i in logs:
        folded.at[i, "twin_of"] = where.get(folded.at[i, "twin_of"], folded.at[i, "twin_of"])
    return folded


def _typed(folded: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """The folded frame with the runs' own dtypes back (a test row was written value by value)."""
    for c in runs.columns:
        if c in folded and folded[c].dtype != runs[c].dtype:
            try:
                folded[c] = folded[c].astype(runs[c].dtype)
            except (TypeError, ValueError):
                pass
    folded["processes"] = folded["processes"].astype("Int64")
    return folded


def series_notes(runs: pd.DataFrame) -> list[str]:
    """What a series' verdict says of its tests: how many were several processes, and each test's own notes.

    >>> runs = pd.DataFrame({"processes": [1, 2, 4], "test_note": ["", "", "test t3: ..."]})
    >>> for note in series_notes(runs):
    ...     print(note)
    2 of its 3 runs are tests of several processes at once, each judged as one run (requests/s the sum of its \
processes' own rates, mean latency weighted by requests)
    test t3: ...
    """
    if "processes" not in runs:
        return []
    several = int((as_floats(runs, "processes") > 1).sum())
    notes = (
        [f"{several} of its {len(runs)} runs are tests of several processes at once, each judged as one run "
         "(requests/s the sum of its processes' own rates, mean latency weighted by requests)"]
        if several else []
    )  # fmt: skip
    if "test_note" in runs:
        notes += [n for n in dict.fromkeys(runs["test_note"]) if isinstance(n, str) and n]
    return notes


# ------------------------------------------------------------- per test ---
def histogram_percentiles(histogram: pd.DataFrame, percents: Sequence[float] = MERGED_PERCENTILES) -> np.ndarray:
    """Percentiles of the requests a histogram counts (``latency_s``: each bucket's upper edge, ``count``; the rows
    of several processes added up edge by edge): the upper edge of the bucket each percentile falls in, exact to
    the bucket.

    >>> h = pd.DataFrame({"latency_s": [0.001, 0.002, 0.001, 0.004], "count": [30, 40, 20, 10]})
    >>> histogram_percentiles(h, [50, 90, 99]).tolist()
    [0.001, 0.002, 0.004]
    """
    counts = histogram.groupby("latency_s")["count"].sum().sort_index()
    cum = counts.cumsum().to_numpy(float)
    at = np.searchsorted(cum, np.asarray(percents, float) / 100.0 * cum[-1], side="left")
    return counts.index.to_numpy(float)[np.minimum(at, len(cum) - 1)]


def _merged_histograms(
    out: pd.DataFrame, processes: pd.DataFrame, histogram: pd.DataFrame | None, names: list[str]
) -> None:
    """Fill the tests not merged yet from their processes' histograms, where every process has one and its tool's
    buckets have fixed edges (``Tool.fixed_buckets``): their counts add up bucket by bucket."""
    if histogram is None or not len(histogram) or "tool" not in processes:
        return
    fixed = {t.name for t in registry.TOOLS if t.fixed_buckets}
    key = list(zip(histogram["source"].astype(str), histogram["run"].astype(int), strict=True))
    for name, g in processes.groupby("test", sort=False):
        if out.loc[name, names].notna().any() or not set(g["tool"].astype(str)) <= fixed:
            continue
        mine = {(str(s), int(r)) for s, r in zip(g["source"], g["run"], strict=True)}
        rows = histogram[[k in mine for k in key]]
        if {(str(s), int(r)) for s, r in zip(rows["source"], rows["run"], strict=True)} != mine:
            continue
        out.loc[name, names] = histogram_percentiles(rows)
        out.loc[name, "percentiles_basis"] = (
            f"merged from {len(g)} histograms ({int(rows['count'].sum()):,} requests; exact to their buckets)"
        )


def merged_percentiles(
    processes: pd.DataFrame,
    requests: pd.DataFrame | None,
    logs: pd.DataFrame | None = None,
    histogram: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Per test: ``latency_p50_s`` ... from its processes' per-request logs together, and their basis.

    Only when every process of the test has a per-request log (its own rows
    in ``requests``, or the rows of its log file: ``logs`` maps a log's
    ``source`` and ``run`` to the process it belongs to, ``_log_of``), or
    else a histogram whose buckets have the same edges in every run
    (``histogram``, of a tool with ``Tool.fixed_buckets``: fortio).
    Otherwise empty: the percentiles each process printed stay per process
    (a percentile of a test cannot be made from those of its parts).
    """
    names = [f"latency_p{q:g}_s" for q in MERGED_PERCENTILES]
    tests = list(dict.fromkeys(processes["test"])) if len(processes) else []
    out = pd.DataFrame(np.nan, index=pd.Index(tests, name="test"), columns=names)
    out["percentiles_basis"] = "printed per process only (not merged)"
    if requests is None or not len(requests) or not len(processes) or "latency_s" not in requests:
        if len(processes):
            _merged_histograms(out, processes, histogram, names)
        return out
    key = {(str(s), int(r)): i for i, s, r in zip(processes.index, processes["source"], processes["run"], strict=True)}
    if logs is not None and len(logs):
        for s, r, t in zip(logs["source"], logs["run"], logs["_log_of"], strict=True):
            if t in processes.index:
                key[(str(s), int(r))] = t
    lat = requests[["source", "run", "latency_s"]].dropna(subset=["latency_s"])
    owner = [key.get((str(s), int(r))) for s, r in zip(lat["source"], lat["run"], strict=True)]
    lat = lat.assign(_p=owner).dropna(subset=["_p"])
    for name, g in processes.groupby("test", sort=False):
        mine = lat[lat["_p"].isin(g.index)]
        if set(mine["_p"]) != set(g.index):
            continue
        values = mine["latency_s"].to_numpy(float)
        out.loc[name, names] = np.percentile(values, MERGED_PERCENTILES)
        out.loc[name, "percentiles_basis"] = f"merged from {len(g)} per-request logs ({len(values):,} requests)"
    _merged_histograms(out, processes, histogram, names)
    return out


#: The columns of :func:`tests_of`, in order.
TEST_COLUMNS = (
    "test", "test_basis", "processes", "series", "tool", "target", "load", "requests", "errors", "attempts",
    "error_share", "duration_s", "duration_spread", "requests_per_s", "bytes_per_s", "latency_mean_s",
    *[f"latency_p{q:g}_s" for q in MERGED_PERCENTILES], "percentiles_basis", "spread", "slowest", "sources",
    "note",
)  # fmt: skip


def table(
    folded: pd.DataFrame,
    processes: pd.DataFrame,
    requests: pd.DataFrame | None = None,
    load: str = "concurrency",
    histogram: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per test (:data:`TEST_COLUMNS`) from the folded runs (with their error shares) and processes
    (``histogram``: the processes' latency histograms, merged where their buckets allow)."""
    if "test" not in folded:
        return pd.DataFrame(columns=list(TEST_COLUMNS))
    rows = folded[folded["test"].notna().to_numpy(bool)]
    if "twin_of" in rows:
        rows = rows[rows["twin_of"].isna().to_numpy(bool)]
    if not len(rows):
        return pd.DataFrame(columns=list(TEST_COLUMNS))
    logs = folded[folded["_log_of"].notna().to_numpy(bool)] if "_log_of" in folded else None
    pct = merged_percentiles(processes, requests, logs, histogram)
    out = []
    for i, r in rows.iterrows():
        mine = processes[processes["test_row"] == i] if len(processes) else processes
        dur = as_floats(mine, "duration_s") if len(mine) else as_floats(rows.loc[[i]], "duration_s")
        per = _per_connection(mine) if len(mine) else pd.Series(dtype=float)
        name = r["test"]
        out.append(
            {
                "test": name, "test_basis": r.get("test_basis"), "processes": int(r.get("processes") or 1),
                "series": r.get("series"), "tool": r.get("tool"), "target": _target(rows.loc[[i]]).iloc[0],
                "load": as_floats(rows.loc[[i]], load).iloc[0], "requests": as_floats(rows.loc[[i]], "requests").iloc[0],
                "errors": as_floats(rows.loc[[i]], "errors").iloc[0], "attempts": as_floats(rows.loc[[i]], "attempts").iloc[0],
                "error_share": as_floats(rows.loc[[i]], "error_share").iloc[0],
                "duration_s": as_floats(rows.loc[[i]], "duration_s").iloc[0],
                "duration_spread": float((dur.max() - dur.min()) / dur.max()) if len(dur) >= 2 and dur.max() > 0
                else math.nan,
                "requests_per_s": as_floats(rows.loc[[i]], "requests_per_s").iloc[0],
                "bytes_per_s": as_floats(rows.loc[[i]], "bytes_per_s").iloc[0],
                "latency_mean_s": as_floats(rows.loc[[i]], "latency_mean_s").iloc[0],
                **(pct.loc[name].to_dict() if name in pct.index else {"percentiles_basis": "one process"}),
                "spread": mine["spread"].iloc[0] if len(mine) else math.nan,
                "slowest": os.path.basename(str(mine.loc[per.idxmin(), "source"])) if per.notna().sum() >= 2 else "",
                "sources": ", ".join(os.path.basename(str(s)) for s in (mine["source"] if len(mine) else [r["source"]])),
                "note": r.get("test_note") or "",
            }
        )  # fmt: skip
    frame = pd.DataFrame(out, columns=list(TEST_COLUMNS)).astype({"requests": "Int64"})  # a count
    return frame.sort_values(["series", "load", "test"], kind="stable", na_position="last").reset_index(drop=True)


# ----------------------------------------------------------- for reports ---
def with_tests(runs: pd.DataFrame, st: Any) -> pd.DataFrame:
    """``runs`` (as read) with the processes of each test replaced by the test's row, as the study ``st`` judged it.

    What ``lbanalysis summary`` lists: one line per test of several processes
    run at once, each other run as it is; the test's line stands where its
    first process was.
    """
    processes = getattr(st, "processes", None)
    if processes is None or not len(processes) or not len(runs):
        return runs
    processes = processes[processes.duplicated("test_row", keep=False).to_numpy(bool)]  # tests of one: as read
    head_of = {(str(s), int(r)): h for s, r, h in zip(processes["source"], processes["run"], processes["test_row"],
                                                      strict=True)}  # fmt: skip
    rows, seen = [], set()
    for i, (s, r) in enumerate(
        zip(runs["source"].astype(str), as_floats(runs, "run").fillna(-1).astype(int), strict=True)
    ):
        head = head_of.get((s, r))
        if head is None:
            rows.append(runs.iloc[[i]])
        elif head not in seen:
            seen.add(head)
            test_row = st.runs.loc[[head]]
            rows.append(test_row[[c for c in test_row.columns if c in runs.columns or c in ("test", "processes")]])
    return pd.concat(rows, ignore_index=True) if rows else runs


def per_test_percentiles(st: Any, percentiles: pd.DataFrame | None) -> pd.DataFrame | None:
    """The percentiles table as the study's tests show it: a test of several processes has the percentiles merged
    from their per-request logs (under its row's source and run), else none; one process keeps what it printed.

    What the processes printed stays in ``percentiles`` as read: a percentile of a test is never one process's.
    """
    processes = getattr(st, "processes", None)
    tests = getattr(st, "tests", None)
    if percentiles is None or processes is None or not len(processes):
        return percentiles
    several = processes[processes["test"].isin(set(processes["test"][processes.duplicated("test", keep=False)]))]
    if not len(several):
        return percentiles
    drop = set(zip(several["source"].astype(str), several["run"].astype(int), strict=True))
    key = list(
        zip(percentiles["source"].astype(str), as_floats(percentiles, "run").fillna(-1).astype(int), strict=True)
    )
    kept = percentiles[[k not in drop for k in key]]
    merged = []
    if tests is not None and len(tests):
        heads = st.runs.loc[list(dict.fromkeys(several["test_row"]))]
        for _, head in heads.iterrows():
            row = tests[tests["test"] == head["test"]]
            for q in MERGED_PERCENTILES:
                v = row[f"latency_p{q:g}_s"].iloc[0] if len(row) else math.nan
                if pd.notna(v):
                    merged.append({"source": head["source"], "run": head["run"], "percentile": q, "latency_s": v})
    if not merged:
        return kept
    return pd.concat([kept.astype({"source": str}), pd.DataFrame(merged)], ignore_index=True)


def cpu_of_tests(cpu: pd.DataFrame | None, processes: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame | None:
    """The CPU samples with those of a test's processes paired with the test's row (its first process's file
    and run), so that a test's CPU evidence holds every process's (the busiest one bounds it).

    >>> cpu = pd.DataFrame({"run_source": ["d/a", "d/b", "d/c"], "run": [0, 0, 0], "busy_pct": [40.0, 99.0, 5.0]})
    >>> runs = pd.DataFrame({"source": ["d/a"], "run": [0]}, index=[7])
    >>> processes = pd.DataFrame({"source": ["d/a", "d/b"], "run": [0, 0], "test_row": [7, 7]})
    >>> cpu_of_tests(cpu, processes, runs)["run_source"].tolist()
    ['d/a', 'd/a', 'd/c']
    """
    if cpu is None or not len(cpu) or not len(processes) or not {"run_source", "run"} <= set(cpu.columns):
        return cpu
    heads = runs.loc[processes["test_row"]]
    to = {(str(s), int(r)): (str(hs), int(hr)) for s, r, hs, hr in zip(
        processes["source"], processes["run"], heads["source"], heads["run"], strict=True)}  # fmt: skip
    keys = [
        to.get((str(s), int(r))) if pd.notna(s) and pd.notna(r) else None
        for s, r in zip(cpu["run_source"], cpu["run"], strict=True)
    ]
    if not any(keys):
        return cpu
    out = cpu.copy()
    moved = np.array([k is not None for k in keys])
    out["run_source"] = out["run_source"].astype(object)
    out.loc[moved, "run_source"] = [k[0] for k in keys if k is not None]
    out.loc[moved, "run"] = [k[1] for k in keys if k is not None]
    return out
