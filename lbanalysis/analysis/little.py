"""Little's law: concurrency = throughput × response time.

Two uses:

* a per-run check, :func:`littles_law`: the concurrency the server actually
  saw, ``concurrency_little = requests_per_s × latency_mean_s``, against the
  configured clients (``concurrency``). When it is well below, the clients
  were not all busy: think time (``siege -d``), a load generator that could
  not keep up, connection errors, or a short run dominated by ramp-up.
* sizing, :func:`required_connections`: to serve ``rate`` requests/s that
  each take ``service_time`` seconds, ``rate × time`` requests are in flight,
  so ``maxconn`` must be at least that (100 req/s × 3 s = 300).

Note that ab computes its "Time per request (mean)" as
``concurrency × time taken / requests``, so for ab runs the ratio is 1 by
construction; the check tells something for siege (whose response time is
measured per transaction) and gobench.

>>> import pandas as pd
>>> runs = pd.DataFrame({"concurrency": [10, 100], "requests_per_s": [100.0, 120.0], "latency_mean_s": [0.1, 0.25]})
>>> littles_law(runs)[["concurrency_little", "concurrency_ratio", "concurrency_low"]]
   concurrency_little  concurrency_ratio  concurrency_low
0                10.0                1.0            False
1                30.0                0.3             True
"""

from __future__ import annotations

import math
from typing import Any, overload

import numpy as np
import pandas as pd

__all__ = ["OPEN_LOOP", "ZERO_LATENCY", "closed_loop_rate", "littles_law", "required_connections"]

#: Why a fixed-rate run's clients are not judged by Little's law.
OPEN_LOOP = "a fixed request rate was asked (open loop): clients idle between requests by design"
#: Why Little's law is not applied to a run whose mean latency was printed as 0.
ZERO_LATENCY = "mean latency printed as 0 (below the tool's printed resolution): requests in flight cannot be computed"


def _num(df: pd.DataFrame, col: str) -> pd.Series:
    if col not in df.columns:
        return pd.Series(np.nan, index=df.index, dtype=float)
    return pd.to_numeric(df[col], errors="coerce").astype("Float64").astype(float)


def _why_low(row: pd.Series, threshold: float) -> str:
    ratio, conf = row["concurrency_ratio"], row["_conf"]
    text = f"only {row['concurrency_little']:.3g} of {conf:g} clients busy on average ({ratio:.0%} < {threshold:.0%})"
    causes = []
    if math.isfinite(row["_busy"]) and row["_busy"] > 0:
        causes.append(f"the iterations kept {row['_busy']:,.0f} users busy (iterations/s × iteration duration): the "
                      "rest of each iteration is the script's wait")  # fmt: skip
    elif row["_think"] > 0:
        causes.append(f"think time between requests (a wait of {row['_think']:g} s on average asked)")
    elif row["_delay"] > 0:
        causes.append(f"think time between requests (delay {row['_delay']:g} s)")
    if row["_failed"] > 0:
        causes.append(f"{row['_failed']:g} failed requests")
    if not causes:
        causes.append("the load generator could not keep its clients busy (client-side bottleneck or ramp-up)")
    return f"{text}: {'; '.join(causes)}"


def littles_law(
    runs: pd.DataFrame,
    *,
    threshold: float = 0.8,
    concurrency: str = "concurrency",
    throughput: str = "requests_per_s",
    latency: str = "latency_mean_s",
) -> pd.DataFrame:
    """Check each run against Little's law; returns a copy of ``runs`` with added columns.

    ``concurrency_little``
        ``throughput × latency``: requests in flight on average.
    ``concurrency_ratio``
        ``concurrency_little / concurrency`` (configured clients).
    ``concurrency_low``
        ``ratio < threshold`` (default 0.8): the configured clients were not
        all busy. Missing figures give NA, not a flag.
    ``concurrency_reason``
        why, in words (the users the iterations kept busy, from
        ``iterations_per_s`` × ``iteration_mean_s``; think time from
        ``think_time_s`` or ``delay_s``; failures; otherwise the load
        generator); a ratio above ``1 / threshold`` is reported too
        (latency and rate measured differently), without the flag. A mean
        latency printed as 0 is no figure: NA, and :data:`ZERO_LATENCY`; a
        fixed-rate run (``rate_target_per_s``, wrk2 ``-R``) is not flagged:
        :data:`OPEN_LOOP`.

    >>> import pandas as pd
    >>> runs = pd.DataFrame({"concurrency": [50], "requests_per_s": [100.0], "latency_mean_s": [0.2],
    ...                      "delay_s": [0.3]})
    >>> print(littles_law(runs).loc[0, "concurrency_reason"])
    only 20 of 50 clients busy on average (40% < 80%): think time between requests (delay 0.3 s)
    """
    out = runs.copy()
    conf = _num(runs, concurrency)
    lat = _num(runs, latency)
    zero = lat == 0  # printed as 0 (siege's "0.00 secs"): below the tool's resolution, not a figure
    little = _num(runs, throughput) * lat.where(~zero)
    ratio = little / conf.where(conf > 0)
    open_loop = _num(runs, "rate_target_per_s").notna()  # wrk2 -R: clients idle by design between requests
    out["concurrency_little"] = little
    out["concurrency_ratio"] = ratio
    out["concurrency_low"] = pd.array(
        [bool(r < threshold) if math.isfinite(r) and not o else pd.NA for r, o in zip(ratio, open_loop, strict=True)],
        "boolean",
    )
    work = pd.DataFrame(
        {
            "concurrency_little": little,
            "concurrency_ratio": ratio,
            "_conf": conf,
            "_delay": _num(runs, "delay_s").fillna(0.0),
            "_think": _num(runs, "think_time_s").fillna(0.0),
            "_busy": _num(runs, "iterations_per_s") * _num(runs, "iteration_mean_s"),
            "_failed": _num(runs, "failed").fillna(0.0),
        }
    )
    reasons = []
    for (_, row), low in zip(work.iterrows(), out["concurrency_low"], strict=True):
        if zero.loc[row.name]:
            reasons.append(ZERO_LATENCY)
        elif open_loop.loc[row.name]:
            reasons.append(OPEN_LOOP)
        elif low is not pd.NA and bool(low):
            reasons.append(_why_low(row, threshold))
        elif math.isfinite(row["concurrency_ratio"]) and row["concurrency_ratio"] > 1 / threshold:
            reasons.append(
                f"{row['concurrency_little']:.3g} in flight for {row['_conf']:g} clients: "
                "latency and throughput seem to be measured differently"
            )
        else:
            reasons.append("")
    out["concurrency_reason"] = pd.array(reasons, dtype="string")
    return out


@overload
def required_connections(rate_per_s: float, service_time_s: float, headroom: float = ...) -> int: ...
@overload
def required_connections(rate_per_s: pd.DataFrame, service_time_s: None = ..., headroom: float = ...) -> pd.Series: ...
@overload
def required_connections(rate_per_s: pd.Series, service_time_s: Any, headroom: float = ...) -> pd.Series: ...


def required_connections(
    rate_per_s: Any,
    service_time_s: Any = None,
    headroom: float = 1.0,
    *,
    rate: str = "requests_per_s",
    time: str = "latency_mean_s",
) -> int | pd.Series:
    """Connections needed in flight: ``ceil(rate × service time × headroom)``.

    Numbers give an ``int``. A frame (as ``rate_per_s``) uses its ``rate``
    and ``time`` columns and gives a Series ``required_connections``; Series
    work element-wise. ``headroom`` multiplies (1.2 = 20% spare).

    >>> required_connections(100, 3)
    300
    >>> required_connections(100, 3, headroom=1.2)
    360
    >>> import pandas as pd
    >>> required_connections(pd.DataFrame({"requests_per_s": [50.0, 8.0], "latency_mean_s": [3.0, 0.5]})).tolist()
    [150, 4]
    """
    if isinstance(rate_per_s, pd.DataFrame):
        frame = rate_per_s
        r, t = _num(frame, rate), _num(frame, time)
        if service_time_s is not None:
            t = service_time_s if not isinstance(service_time_s, str) else _num(frame, service_time_s)
    else:
        r, t = rate_per_s, service_time_s
        if t is None:
            raise TypeError("required_connections needs a service time (or a frame with rate and time columns)")
    need = r * t * headroom
    if isinstance(need, pd.Series):
        # round first so that 100 * 3 * 1.2 = 360.00000000000006 does not become 361
        return np.ceil(need.astype(float).round(9)).astype("Int64").rename("required_connections")
    if isinstance(need, np.ndarray):
        return np.ceil(np.round(need, 9)).astype(int)
    return math.ceil(round(float(need), 9))


def closed_loop_rate(slots: Any, service_time_s: Any, duration_s: Any) -> Any:
    """Completed requests per second when ``slots`` connections each serve back-to-back requests.

    Little's law bounds the rate at ``slots / service_time_s``. A test that
    stops after ``duration_s`` counts only the requests that completed
    before the deadline: each slot completes ``ceil(duration / service) - 1``
    requests (the last one ends at or after the deadline as soon as there is
    any overhead), so the measured rate is
    ``slots × (ceil(duration / service) - 1) / duration``. With a 3 s backend
    and a 30 s test that is 9 requests per slot, 90% of the bound.

    Numbers give a float; arrays and Series work element-wise.

    >>> closed_loop_rate(20, 3.0, 30.0)
    6.0
    >>> round(20 / 3.0, 3)  # the Little's-law bound
    6.667
    >>> closed_loop_rate(pd.Series([40, 100]), 3.0, 30.0).tolist()
    [12.0, 30.0]
    >>> closed_loop_rate(10, 4.0, 30.0)  # 7 full requests and a cut-off eighth
    2.3333333333333335
    """
    ratio = np.asarray(duration_s, dtype=float) / np.asarray(service_time_s, dtype=float)
    per_slot = np.maximum(np.ceil(np.round(ratio, 9)) - 1.0, 0.0)
    rate = slots * per_slot / duration_s
    if isinstance(rate, np.ndarray) and rate.ndim == 0:
        return float(rate)
    if isinstance(rate, (np.floating, np.integer)):
        return float(rate)
    return rate
