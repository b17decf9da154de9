"""Saturation: the load past which throughput stops growing.

Two methods, both over every run (repeated runs at a load are the noise):

``"plateau"`` (default)
    Mean throughput per load; the knee is the first load (in increasing
    order) whose mean is *not below the best mean by more than the noise*:
    ``mean_i >= max_mean - margin_i`` with
    ``margin_i = max(t(1-alpha) * sqrt(s_i²/n_i + s_max²/n_max), rel_tol * max_mean)``.
    ``s`` are per-load standard deviations of repeated runs (the pooled one
    for loads run once); without any repeats only ``rel_tol`` applies.
``"piecewise"``
    A continuous two-segment (hinge) line, ``a + b·min(x, k) + c·max(x-k, 0)``,
    fitted by least squares for each measured load ``k``; the knee is the
    ``k`` with the smallest residual sum of squares.

Either way the result is *saturated* when loads beyond the knee were
measured and throughput grew by less than ``rel_tol`` over them; a knee at
the highest load means "still growing: no saturation measured".

>>> import pandas as pd
>>> runs = pd.DataFrame({"concurrency": [1, 2, 4, 8, 16, 32] * 2,
...                      "requests_per_s": [100, 200, 390, 600, 610, 605, 102, 198, 395, 598, 606, 611]})
>>> knee = find_knee(runs)
>>> knee.x, knee.saturated, round(knee.plateau)
(8.0, True, 605)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import special

from lbanalysis.errors import FitError

__all__ = ["Knee", "find_knee", "peak_bracket"]


@dataclass
class Knee:
    """Where throughput stops growing (see :func:`find_knee`).

    ``x`` the knee load; ``y`` mean throughput there; ``plateau`` mean
    throughput of the runs at loads >= knee; ``max_y``/``x_max`` the best
    mean and its load; ``saturated`` whether a plateau (or decline) beyond
    the knee was measured; ``latency``/``latency_last`` mean latency at the
    knee and at the highest load, ``latency_rising`` whether latency keeps
    rising past the knee (``None`` without latency or without loads past the
    knee); ``reason`` the finding in words.
    """

    x: float
    y: float
    method: str
    plateau: float
    max_y: float
    x_max: float
    saturated: bool
    n_loads: int
    latency: float = math.nan
    latency_last: float = math.nan
    latency_rising: bool | None = None
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_series(self) -> pd.Series:
        return pd.Series(self.to_dict(), dtype=object)


def _per_load(data: pd.DataFrame, x: str, y: str) -> pd.DataFrame:
    return data.groupby(x)[y].agg(["mean", "std", "count"]).sort_index()


def _margins(table: pd.DataFrame, imax: Any, alpha: float, rel_tol: float) -> pd.Series:
    """How far below the best mean a load may be and still count as 'on the plateau'."""
    reps = table[table["count"] > 1]
    dof = int((reps["count"] - 1).sum())
    tol = rel_tol * table.loc[imax, "mean"]
    if dof == 0:
        return pd.Series(tol, index=table.index)
    pooled = math.sqrt(float(((reps["count"] - 1) * reps["std"] ** 2).sum()) / dof)
    sd = table["std"].where(table["count"] > 1, pooled)
    se = np.sqrt(sd**2 / table["count"] + sd[imax] ** 2 / table.loc[imax, "count"])
    return np.maximum(special.stdtrit(dof, 1 - alpha) * se, tol)


def _knee_plateau(table: pd.DataFrame, alpha: float, rel_tol: float) -> float:
    imax = table["mean"].idxmax()
    margin = _margins(table, imax, alpha, rel_tol)
    on = table["mean"] >= table.loc[imax, "mean"] - margin
    return float(on[on].index[0])


def _knee_piecewise(data: pd.DataFrame, x: str, y: str) -> float:
    xs, ys = data[x].to_numpy(float), data[y].to_numpy(float)
    best, best_k = math.inf, None
    for k in np.unique(xs)[1:-1]:
        design = np.column_stack([np.ones_like(xs), np.minimum(xs, k), np.maximum(xs - k, 0.0)])
        coef, *_ = np.linalg.lstsq(design, ys, rcond=None)
        rss = float(((design @ coef - ys) ** 2).sum())
        if best_k is None or rss < best * (1 - 1e-12):
            best, best_k = rss, float(k)
    return float(np.max(xs)) if best_k is None else best_k


def _numeric(s: pd.Series) -> pd.Series:
    return pd.to_numeric(s, errors="coerce").astype("Float64").astype(float)


def _latency_trend(data: pd.DataFrame, x: str, latency: str, knee: float) -> tuple[float, float, bool | None]:
    lat = data.dropna(subset=[latency]).groupby(x)[latency].mean().sort_index()
    if lat.empty or knee not in lat.index:
        return math.nan, math.nan, None
    past = lat[lat.index >= knee]
    if len(past) < 2:
        return float(lat[knee]), float(lat.iloc[-1]), None
    slope = np.polyfit(past.index.to_numpy(float), past.to_numpy(float), 1)[0]
    return float(lat[knee]), float(past.iloc[-1]), bool(slope > 0)


def _reason(k: Knee, x: str) -> str:
    if not k.saturated:
        return f"throughput still growing at the highest {x} measured ({k.x:g}): no saturation seen"
    text = (
        f"throughput stops growing at {x}={k.x:g} ({k.y:.4g}/s; best {k.max_y:.4g}/s at {k.x_max:g}); "
        f"plateau {k.plateau:.4g}/s"
    )
    if k.latency_rising is not None:
        trend = "keeps rising" if k.latency_rising else "does not rise"
        text += f"; latency {trend} ({k.latency:.3g} s → {k.latency_last:.3g} s)"
    return text


def _find_one(
    runs: pd.DataFrame, x: str, y: str, latency: str | None, method: str, alpha: float, rel_tol: float
) -> Knee:
    for col in (x, y) + ((latency,) if latency else ()):
        if col not in runs.columns:
            raise FitError(f"no column {col!r}; the frame has: {', '.join(map(str, runs.columns))}")
    cols = {x: _numeric(runs[x]), y: _numeric(runs[y])}
    if latency:
        cols[latency] = _numeric(runs[latency])
    data = pd.DataFrame(cols).dropna(subset=[x, y])
    table = _per_load(data, x, y)
    if len(table) < 3:
        raise FitError(f"finding a knee needs runs at 3 or more distinct {x!r}; got {len(table)}")
    if method == "plateau":
        kx = _knee_plateau(table, alpha, rel_tol)
    elif method == "piecewise":
        kx = _knee_piecewise(data, x, y)
    else:
        raise ValueError(f"unknown method {method!r}; known methods: plateau, piecewise")
    past = data[data[x] >= kx]
    ky = float(table.loc[kx, "mean"])
    top = float(table.index.max())
    grows = float(table.loc[table.index >= kx, "mean"].max()) - ky
    saturated = bool(kx < top and (method == "plateau" or grows < rel_tol * max(ky, 1e-300)))
    if not saturated and kx < top:  # piecewise bend but still growing past it: no knee measured
        kx, ky, past = top, float(table.loc[top, "mean"]), data[data[x] >= top]
    k = Knee(
        x=kx,
        y=ky,
        method=method,
        plateau=float(past[y].mean()),
        max_y=float(table["mean"].max()),
        x_max=float(table["mean"].idxmax()),
        saturated=saturated,
        n_loads=len(table),
    )
    if latency:
        k.latency, k.latency_last, k.latency_rising = _latency_trend(data, x, latency, kx)
    k.reason = _reason(k, x)
    return k


def find_knee(
    runs: pd.DataFrame,
    x: str = "concurrency",
    y: str = "requests_per_s",
    latency: str | None = None,
    by: str | Sequence[str] | None = None,
    *,
    method: Literal["plateau", "piecewise"] = "plateau",
    alpha: float = 0.05,
    rel_tol: float = 0.05,
    errors: Literal["raise", "coerce"] = "raise",
) -> Knee | pd.DataFrame:
    """The load past which throughput ``y`` stops growing with load ``x``.

    Returns a :class:`Knee`; with ``by=`` a frame with one row per group
    (the :class:`Knee` fields as columns). ``latency`` (e.g.
    ``"latency_mean_s"``) adds whether latency keeps rising past the knee.
    ``alpha`` is the one-sided level of "significantly below the best mean",
    ``rel_tol`` the share of the best mean treated as no real gain. Fewer
    than 3 distinct loads raise :class:`~lbanalysis.errors.FitError`
    (``errors="coerce"`` with ``by=`` puts the message in ``reason``).

    >>> import pandas as pd
    >>> runs = pd.DataFrame({"servers": ["one"] * 4 + ["two"] * 4, "concurrency": [10, 20, 40, 80] * 2,
    ...                      "requests_per_s": [90, 160, 161, 159, 95, 185, 330, 335],
    ...                      "latency_mean_s": [0.11, 0.125, 0.25, 0.5, 0.1, 0.11, 0.12, 0.24]})
    >>> cols = ["x", "plateau", "saturated", "latency_rising"]
    >>> find_knee(runs, latency="latency_mean_s", by="servers")[cols]  # doctest: +NORMALIZE_WHITESPACE
                x  plateau  saturated  latency_rising
    servers
    one      20.0    160.0       True            True
    two      40.0    332.5       True            True
    """
    if by is None:
        return _find_one(runs, x, y, latency, method, alpha, rel_tol)
    by_cols = [by] if isinstance(by, str) else list(by)
    rows, keys = [], []
    for key, group in runs.groupby(by_cols if len(by_cols) > 1 else by_cols[0], sort=True, dropna=False):
        try:
            rows.append(_find_one(group, x, y, latency, method, alpha, rel_tol).to_dict())
        except FitError as e:
            if errors == "raise":
                raise
            rows.append({"x": math.nan, "saturated": False, "method": method, "reason": str(e)})
        keys.append(key)
    index = pd.MultiIndex.from_tuples(keys, names=by_cols) if len(by_cols) > 1 else pd.Index(keys, name=by_cols[0])
    return pd.DataFrame(rows, index=index, columns=list(Knee.__dataclass_fields__))


def peak_bracket(runs: pd.DataFrame, *, x: str = "concurrency", y: str = "requests_per_s") -> pd.Series:
    """The load with the best mean ``y`` and the measured loads on either side of it.

    Without a model, measurements say only this much about where throughput
    peaks: at ``x_best`` or between ``x_below`` and ``x_above`` (NaN when the
    best is at the edge of the measured range, where the peak may lie
    beyond).

    >>> runs = pd.DataFrame({"concurrency": [10, 20, 30, 150], "requests_per_s": [12570.77, 19419.05, 20272.52, 17088.43]})
    >>> peak_bracket(runs).to_dict()
    {'x_best': 30.0, 'y_best': 20272.52, 'x_below': 20.0, 'x_above': 150.0, 'loads': 4}
    """
    data = pd.DataFrame(
        {x: pd.to_numeric(runs[x], errors="coerce").astype(float), y: pd.to_numeric(runs[y], errors="coerce")}
    ).dropna()
    if data.empty:
        raise ValueError(f"no run has numbers in both {x!r} and {y!r}")
    means = data.groupby(x)[y].mean().astype(float).sort_index()
    loads = means.index.to_numpy()
    i = int(np.argmax(means.to_numpy()))
    return pd.Series(
        {
            "x_best": float(loads[i]),
            "y_best": float(means.iloc[i]),
            "x_below": float(loads[i - 1]) if i > 0 else math.nan,
            "x_above": float(loads[i + 1]) if i + 1 < len(loads) else math.nan,
            "loads": len(loads),
        },
        dtype=object,
    )
