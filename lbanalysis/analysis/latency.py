"""Honest latency: stalls and the tail that closed-loop tools do not see.

ab, siege, gobench, wrk and hey are *closed-loop* load generators: each
connection sends its next request only when the previous answer has come
back. When the server stalls, every connection waits and the tool stops
sending, so a stall of one second is recorded once per connection instead of
once for every request a steady stream of users would have sent in that
second. The tool's own percentiles then understate the tail: this is
*coordinated omission* (Gil Tene, "How NOT to Measure Latency", 2013–2015;
the correction below is HdrHistogram's ``recordValueWithExpectedInterval``,
the one wrk2 applies).

Where a run's per-request log exists (ab ``-g``, hey ``-o csv``, siege
``-v``), this module

* finds **stalls** in the start times: gaps during which no request started
  although the tool keeps ``concurrency`` requests in flight
  (:func:`stalls`); a start time logged to the second (ab ``-g``) only shows
  stalls of two seconds or more, and siege's verbose lines have no start
  times at all: :func:`stalls` says so instead of finding none;
* gives a **corrected tail** beside the raw one (:func:`corrected_percentiles`):
  every request that took ``L`` longer than the expected interval ``E``
  between a connection's requests also stands for the requests that would
  have been sent during its wait, with latencies ``L - E``, ``L - 2E``, ...
  down to ``E``. ``E`` defaults to the run's median latency (in a closed loop
  a connection sends one request per latency; the median is not inflated by
  the stalls themselves); pass ``expected_interval_s`` when you know better.
  Where most latencies are logged as zero (siege prints 0.00 s for anything
  under 5 ms), one step of the log's clock stands in for ``E`` and the
  corrected tail is a lower bound.

Percentiles here are nearest-rank ("the smallest latency at or above which
``p`` % of the requests lie"), raw and corrected alike, as HdrHistogram
reports them.

>>> import pandas as pd
>>> req = pd.DataFrame({"source": "a", "run": 0,
...                     "latency_s": [0.001] * 98 + [0.5, 0.5]})
>>> t = corrected_percentiles(req, percentiles=[99])
>>> t[["latency_s", "corrected_latency_s", "synthetic"]].to_dict("records")
[{'latency_s': 0.5, 'corrected_latency_s': 0.495, 'synthetic': 998}]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from .. import registry

__all__ = [
    "CLOSED_LOOP_NOTE",
    "DEFAULT_PERCENTILES",
    "STALL_FACTOR",
    "corrected_percentiles",
    "is_closed_loop",
    "latency_tail",
    "recorded_percentiles",
    "stalls",
]

#: Percentiles reported by default.
DEFAULT_PERCENTILES: tuple[float, ...] = (50.0, 90.0, 99.0, 99.9)
#: A gap in start times (or a request) longer than this many expected intervals is a stall.
STALL_FACTOR = 10.0
#: What a reader of a percentile table of closed-loop runs should know.
CLOSED_LOOP_NOTE = (
    "These tools are closed-loop: under a stall they stop sending, so the percentiles they print "
    "understate the tail (coordinated omission). Where per-request logs exist, the corrected tail "
    "(HdrHistogram's expected-interval correction) is shown beside the raw one."
)
_KEYS = ["source", "run"]


def recorded_percentiles(percentiles: pd.DataFrame, printed: bool = False) -> pd.DataFrame:
    """The percentiles each run's tool gives as its latency, one distribution per run.

    wrk2 ``-U`` prints the latencies it measured without correcting for
    delayed starts beside the recorded ones (``kind`` 'uncorrected'), and
    above a Detailed Percentile spectrum the 50 ... 100 % lines of the same
    distribution (``kind`` 'recorded printed'); a figure per run (a p99)
    must come from one distribution only: the rows of ``kind`` empty or
    'recorded'. ``printed=True`` adds, for the percentiles the spectrum has
    no tick for (99 %, 99.9 % ...), the value wrk2 printed.

    >>> pct = pd.DataFrame({"source": "w", "run": 0, "percentile": [99.0, 99.0, 98.4375, 99.0],
    ...                     "latency_s": [0.008, 0.011, 0.0109, 0.0111],
    ...                     "kind": ["uncorrected", "recorded printed", "recorded", "uncorrected printed"]})
    >>> recorded_percentiles(pct)["latency_s"].tolist()
    [0.0109]
    >>> recorded_percentiles(pct, printed=True)["latency_s"].tolist()
    [0.011, 0.0109]
    """
    if "kind" not in percentiles.columns or not len(percentiles):
        return percentiles
    kind = percentiles["kind"].astype("string")
    keep = (kind.isna() | kind.eq("recorded")).to_numpy(bool)
    if printed:
        extra = kind.eq("recorded printed").fillna(False).to_numpy(bool)
        if extra.any():
            have = set(
                zip(
                    percentiles["source"].astype(str)[keep],
                    percentiles["run"][keep],
                    percentiles["percentile"][keep],
                    strict=True,
                )
            )
            key = zip(percentiles["source"].astype(str), percentiles["run"], percentiles["percentile"], strict=True)
            keep = keep | (extra & [k not in have for k in key])
    return percentiles[keep]


def is_closed_loop(tool: object, rate_target_per_s: object = None) -> bool:
    """Whether a run of ``tool`` was closed-loop (see the registry's ``closed_loop``).

    A wrk2 run with a fixed rate (``rate_target_per_s``) is open-loop.

    >>> is_closed_loop("ab"), is_closed_loop("wrk", 2000.0), is_closed_loop("iperf3")
    (True, False, False)
    """
    if not isinstance(tool, str) or tool not in registry.names():
        return False
    if rate_target_per_s is not None and not pd.isna(rate_target_per_s):
        return False
    return registry.get_tool(tool).closed_loop


def _expected_interval(latency: np.ndarray, given: float | None) -> float:
    """The expected interval between a connection's requests: given, or the median latency.

    A median of zero (latencies logged in steps coarser than most requests
    take, siege's 0.01 s) falls back to the smallest logged latency above
    zero, one step of that clock: the correction is then a lower bound.
    """
    if given is not None:
        return float(given)
    if not len(latency):
        return math.nan
    median = float(np.median(latency))
    if median > 0:
        return median
    positive = latency[latency > 0]
    return float(positive.min()) if len(positive) else 0.0


def _counts(latency: np.ndarray, interval: float) -> np.ndarray:
    """Values each request stands for: itself plus floor(L/E) - 1 synthetic ones (HdrHistogram)."""
    if not interval > 0:
        return np.ones(len(latency), dtype=np.int64)
    extra = np.floor(latency / interval * (1 + 1e-12)).astype(np.int64) - 1
    return 1 + np.maximum(extra, 0)


def _at_most(latency: np.ndarray, counts: np.ndarray, interval: float, x: float) -> int:
    """How many recorded values (real and synthetic) are <= x."""
    real = latency <= x
    if not interval > 0:
        return int(real.sum())
    k_synth = counts - 1  # synthetic values L - kE, k = 1..K
    k_min = np.maximum(np.ceil((latency - x) / interval - 1e-9), 1)
    synth = np.clip(k_synth - k_min + 1, 0, None)
    return int(real.sum() + synth.sum())


def _largest_at_most(latency: np.ndarray, counts: np.ndarray, interval: float, x: float) -> float:
    """The largest recorded value (real or synthetic) that is <= x."""
    best = latency[latency <= x].max(initial=-math.inf)
    if interval > 0:
        k = np.maximum(np.ceil((latency - x) / interval - 1e-9), 1)
        ok = (k <= counts - 1) & (latency > x)
        if ok.any():
            best = max(best, float((latency[ok] - k[ok] * interval).max()))
    return float(best)


def _corrected_quantile(latency: np.ndarray, counts: np.ndarray, interval: float, p: float) -> float:
    """Nearest-rank percentile ``p`` of the corrected values, found by bisection then snapped."""
    total = int(counts.sum())
    rank = max(1, math.ceil(p / 100.0 * total - 1e-9))
    lo, hi = 0.0, float(latency.max())
    if _at_most(latency, counts, interval, lo) >= rank:
        return _largest_at_most(latency, counts, interval, lo)
    for _ in range(80):
        mid = (lo + hi) / 2
        if _at_most(latency, counts, interval, mid) >= rank:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-12 * max(hi, 1e-9):
            break
    return _largest_at_most(latency, counts, interval, hi)


def _nearest_rank(latency: np.ndarray, p: float) -> float:
    """Nearest-rank percentile of the raw values."""
    return float(np.percentile(latency, p, method="inverted_cdf"))


def _runs_of(requests: pd.DataFrame) -> Iterable[tuple[tuple, pd.DataFrame]]:
    """(source, run) groups of a requests frame, in order."""
    missing = [c for c in [*_KEYS, "latency_s"] if c not in requests.columns]
    if missing:
        raise ValueError(f"the requests frame has no {', '.join(missing)} column (read it with table='requests')")
    return requests.groupby(_KEYS, observed=True, sort=True, dropna=False)


def corrected_percentiles(
    requests: pd.DataFrame,
    percentiles: Sequence[float] = DEFAULT_PERCENTILES,
    *,
    expected_interval_s: float | None = None,
) -> pd.DataFrame:
    """Raw and coordinated-omission-corrected latency percentiles per run.

    One row per (source, run, percentile): ``latency_s`` (raw, nearest rank),
    ``corrected_latency_s``, the ``expected_interval_s`` used, the run's
    ``requests`` and the ``synthetic`` values the correction added. A run
    whose expected interval is zero (every latency below the timer's
    resolution) is left uncorrected (corrected = raw, 0 synthetic).

    >>> req = pd.DataFrame({"source": "a", "run": 0, "latency_s": [0.002, 0.002, 0.002, 0.010]})
    >>> corrected_percentiles(req, [75, 100])[["percentile", "latency_s", "corrected_latency_s"]].values.tolist()
    [[75.0, 0.002, 0.006], [100.0, 0.01, 0.01]]

    (0.010 s against an expected 0.002 s also stands for 0.008, 0.006, 0.004
    and 0.002 s: eight values, of which the 75th percentile is 0.006 s.)
    """
    rows = []
    for (source, run), g in _runs_of(requests):
        lat = g["latency_s"].to_numpy(dtype=float, na_value=np.nan)
        lat = lat[np.isfinite(lat) & (lat >= 0)]
        if not len(lat):
            continue
        interval = _expected_interval(lat, expected_interval_s)
        counts = _counts(lat, interval)
        for p in percentiles:
            rows.append(
                {
                    "source": source,
                    "run": run,
                    "percentile": float(p),
                    "latency_s": _nearest_rank(lat, p),
                    "corrected_latency_s": _corrected_quantile(lat, counts, interval, p),
                    "expected_interval_s": interval,
                    "requests": len(lat),
                    "synthetic": int(counts.sum()) - len(lat),
                }
            )
    cols = ["source", "run", "percentile", "latency_s", "corrected_latency_s", "expected_interval_s", "requests"]
    out = pd.DataFrame(rows, columns=[*cols, "synthetic"])
    return out.astype({"run": "Int64", "requests": "Int64", "synthetic": "Int64"})


def _resolution(starts: np.ndarray) -> float:
    """The clock step of logged start times: the smallest positive difference (1.0 for ab -g)."""
    steps = np.diff(np.unique(starts))
    steps = steps[steps > 0]
    return float(steps.min()) if len(steps) else math.nan


def stalls(
    requests: pd.DataFrame,
    *,
    expected_interval_s: float | None = None,
    factor: float = STALL_FACTOR,
) -> pd.DataFrame:
    """Gaps in a run's start times during which no request started.

    A gap counts when it is longer than ``factor`` expected intervals (the
    median latency unless given) and longer than two steps of the log's
    clock (ab ``-g`` logs starts to the second, so it shows only stalls of
    two seconds or more). One row per stall: source, run, ``start_s`` and
    ``end_s`` (relative to the run's first request), ``duration_s``.

    >>> req = pd.DataFrame({"source": "a", "run": 0, "latency_s": 0.001,
    ...                     "start_s": [0.0, 0.001, 0.002, 0.5, 0.501]})
    >>> stalls(req)[["start_s", "end_s", "duration_s"]].values.tolist()
    [[0.002, 0.5, 0.498]]
    """
    rows = []
    if "start_s" in requests.columns:
        for (source, run), g in _runs_of(requests):
            starts = np.sort(g["start_s"].to_numpy(dtype=float, na_value=np.nan))
            starts = starts[np.isfinite(starts)]
            lat = g["latency_s"].to_numpy(dtype=float, na_value=np.nan)
            lat = lat[np.isfinite(lat)]
            if len(starts) < 2 or not len(lat):
                continue
            threshold = max(factor * _expected_interval(lat, expected_interval_s), 2 * _resolution(starts))
            gaps = np.diff(starts)
            for i in np.flatnonzero(gaps > threshold):
                rows.append(
                    {
                        "source": source,
                        "run": run,
                        "start_s": float(starts[i]),
                        "end_s": float(starts[i + 1]),
                        "duration_s": round(float(gaps[i]), 9),
                    }
                )
    out = pd.DataFrame(rows, columns=["source", "run", "start_s", "end_s", "duration_s"])
    return out.astype({"run": "Int64"})


def _tail_row(g: pd.DataFrame, percentiles: Sequence[float], interval_given: float | None, factor: float) -> dict:
    """One run's row of :func:`latency_tail`."""
    lat = g["latency_s"].to_numpy(dtype=float, na_value=np.nan)
    lat = lat[np.isfinite(lat) & (lat >= 0)]
    interval = _expected_interval(lat, interval_given)
    counts = _counts(lat, interval)
    row: dict = {"requests": len(lat), "expected_interval_s": interval}
    for p in percentiles:
        name = f"p{p:g}".replace(".", "_")
        row[f"{name}_s"] = _nearest_rank(lat, p)
        row[f"{name}_corrected_s"] = _corrected_quantile(lat, counts, interval, p)
    row["slow_requests"] = int((lat > factor * interval).sum()) if interval > 0 else 0
    row["interval_is_clock_step"] = bool(interval > 0 and interval_given is None and np.median(lat) == 0)
    starts = g["start_s"].to_numpy(dtype=float, na_value=np.nan) if "start_s" in g else np.array([])
    starts = starts[np.isfinite(starts)]
    row["start_resolution_s"] = _resolution(starts) if len(starts) > 1 else math.nan
    row["stalls"] = pd.NA
    row["stalled_s"] = math.nan
    if len(starts) > 1:
        found = stalls(g, expected_interval_s=interval, factor=factor)
        row["stalls"] = len(found)
        row["stalled_s"] = float(found["duration_s"].sum())
    row["note"] = _note(row, factor)
    return row


def _note(row: dict, factor: float) -> str:
    """A sentence on what the start times can and cannot show for one run."""
    if not row["expected_interval_s"] > 0:
        return "latencies below the timer's resolution: no correction possible"
    slow = row["slow_requests"]
    if pd.isna(row["stalls"]):
        seen = "no start times logged: stalls cannot be located"
    elif row["start_resolution_s"] >= 1.0 - 1e-9:
        res = row["start_resolution_s"]
        seen = f"start times logged to {res:g} s: only stalls of {2 * res:g} s or more show in them"
    else:
        seen = f"{row['stalls']} gap(s) in start times longer than {factor:g} expected intervals"
    step = ""
    if row["interval_is_clock_step"]:
        step = f"; most latencies logged as 0: expected interval taken as the log's step, {row['expected_interval_s']:g} s (correction is a lower bound)"
    return f"{slow} request(s) took over {factor:g}x the expected interval; {seen}{step}"


def latency_tail(
    requests: pd.DataFrame,
    runs: pd.DataFrame | None = None,
    percentiles: Sequence[float] = (99.0, 99.9),
    *,
    expected_interval_s: float | None = None,
    factor: float = STALL_FACTOR,
) -> pd.DataFrame:
    """One row per run: raw and corrected tail, stalls found, and what the log can show.

    Columns: source, run, ``requests``, ``expected_interval_s``, for each
    percentile ``p99_s`` and ``p99_corrected_s`` (``p99_9_s`` for 99.9),
    ``slow_requests`` (latency over ``factor`` expected intervals),
    ``start_resolution_s``, ``stalls`` and ``stalled_s`` (gaps in start times;
    empty where none are logged), ``note``. With ``runs`` (the runs frame),
    only closed-loop runs are kept and ``tool`` and ``concurrency`` join in:
    an open-loop run (wrk2 ``-R``) needs no correction.

    >>> req = pd.DataFrame({"source": "a", "run": 0, "latency_s": [0.001] * 98 + [0.5, 0.5]})
    >>> tail = latency_tail(req)
    >>> tail.loc[0, "p99_s"], tail.loc[0, "p99_corrected_s"], int(tail.loc[0, "slow_requests"])
    (0.5, 0.495, 2)
    """
    rows = []
    for (source, run), g in _runs_of(requests):
        if g["latency_s"].notna().any():
            rows.append({"source": source, "run": run, **_tail_row(g, percentiles, expected_interval_s, factor)})
    out = pd.DataFrame(rows)
    if not len(out):
        return pd.DataFrame(columns=[*_KEYS, "requests", "expected_interval_s", "note"])
    out = out.astype({"run": "Int64", "requests": "Int64", "slow_requests": "Int64", "stalls": "Int64"})
    if runs is not None and len(runs):
        cols = [c for c in ["tool", "concurrency", "rate_target_per_s"] if c in runs.columns]
        meta = runs[[*_KEYS, *cols]].drop_duplicates(_KEYS).astype({"source": str})
        out = out.astype({"source": str}).merge(meta, on=_KEYS, how="left")
        rate = out["rate_target_per_s"] if "rate_target_per_s" in out else pd.Series(None, index=out.index)
        keep = [is_closed_loop(t, r) for t, r in zip(out.get("tool", pd.Series(index=out.index)), rate, strict=True)]
        out = out[keep].drop(columns=[c for c in ["rate_target_per_s"] if c in out.columns])
        front = [*_KEYS, *[c for c in ["tool", "concurrency"] if c in out.columns]]
        out = out[[*front, *[c for c in out.columns if c not in front]]].reset_index(drop=True)
    return out
