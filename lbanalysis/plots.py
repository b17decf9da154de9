"""Charts over the tidy tables, seaborn-style.

Every helper takes long-form data and column names as keywords, draws on
``ax`` (the current Axes when not given) and returns it; none creates a
figure, so a notebook arranges its own subplots.

==========================  =================================================
helper                      draws
==========================  =================================================
``throughput_vs_load``      runs as points, per hue; a fitted curve, its band
                            and the peak (``fit="usl"``) or the per-load means
``latency_vs_load``         runs as points and the per-load mean line
``latency_percentiles``     latency against percentile, one line per run
``throughput_bars``         mean per configuration, one marker per run
``utilisation``             link utilisation per run, threshold and 100% lines
``scaling_fit``             one :class:`~lbanalysis.analysis.fits.ScalingFit`
``plain_ticks``             plain tick labels with thousands separators
==========================  =================================================

>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import matplotlib.pyplot as plt, pandas as pd
>>> runs = pd.DataFrame({"concurrency": [1, 2, 4, 8], "requests_per_s": [10.0, 19.0, 35.0, 60.0]})
>>> fig, ax = plt.subplots()
>>> ax = throughput_vs_load(runs, ax=ax)
>>> ax.lines[0].get_xydata().tolist()
[[1.0, 10.0], [2.0, 19.0], [4.0, 35.0], [8.0, 60.0]]
>>> plt.close(fig)
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.ticker import LogFormatter, PercentFormatter

from .drawing import plain_ticks, scaling_fit, thousands_ticks, tick_label
from .formatting import header

__all__ = [
    "corrected_tail",
    "latency_percentiles",
    "latency_vs_load",
    "plain_ticks",
    "plot_rates",
    "rate_kept",
    "scaling_fit",
    "throughput_bars",
    "throughput_vs_load",
    "utilisation",
]


def _num(s: pd.Series) -> pd.Series:
    return pd.to_numeric(s, errors="coerce").astype("Float64").astype(float)


def _groups(data: pd.DataFrame, hue: str | None) -> Iterator[tuple[int, Any, pd.DataFrame]]:
    """(colour index, label, rows) per hue level, in sorted order; one group when hue is None."""
    if hue is None:
        yield 0, None, data
        return
    for i, (key, rows) in enumerate(data.groupby(hue, sort=True, dropna=False)):
        yield i, key, rows


def _xy(rows: pd.DataFrame, x: str, y: str) -> pd.DataFrame:
    xy = pd.DataFrame({"x": _num(rows[x]), "y": _num(rows[y])}).dropna()
    return xy.sort_values("x", kind="stable")


def _finish(ax: Axes, x: str, y: str, hue: str | None) -> Axes:
    ax.set_xlabel(header(x))
    ax.set_ylabel(header(y))
    thousands_ticks(ax)
    if hue is not None and ax.get_legend_handles_labels()[0]:
        ax.legend(title=header(hue))
    return ax


def _log_y(ax: Axes) -> None:
    """A log y axis labelled in plain numbers (``6``, ``200``), not ``6×10⁰``; minor ticks labelled
    only where the axis spans less than about two decades (matplotlib's own rule)."""
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(LogFormatter())
    ax.yaxis.set_minor_formatter(LogFormatter(labelOnlyBase=False, minor_thresholds=(2, 0.5)))


def throughput_vs_load(
    runs: pd.DataFrame,
    *,
    x: str = "concurrency",
    y: str = "requests_per_s",
    hue: str | None = None,
    fit: str | None = None,
    band: bool = True,
    peak: bool = True,
    ax: Axes | None = None,
) -> Axes:
    """Throughput against load: every run as a point, per ``hue`` level.

    With ``fit=`` (``"usl"``, ``"amdahl"``, ``"linear"``) each group's fitted
    curve is drawn with its confidence band (``band``) and the USL peak
    (``peak``); a group that cannot be fitted is drawn without a curve and a
    warning says why. Without ``fit`` a line joins the per-load means.
    Per group the lines are: the points, then the curve (or means line),
    then the peak marker if any.
    """
    from lbanalysis.analysis.fits import fit_scaling
    from lbanalysis.errors import FitError

    ax = ax or plt.gca()
    for i, key, rows in _groups(runs, hue):
        color, label = f"C{i % 10}", None if key is None else str(key)
        xy = _xy(rows, x, y)
        ax.plot(xy["x"], xy["y"], "o", color=color, label=label, alpha=0.8)
        if fit is None:
            means = xy.groupby("x")["y"].mean()
            ax.plot(means.index, means.to_numpy(), "-", color=color)
            continue
        try:
            result = fit_scaling(rows, x=x, y=y, model=fit)
        except FitError as e:
            warnings.warn(f"throughput_vs_load: no {fit} curve for {label or 'the runs'}: {e}", stacklevel=2)
            continue
        scaling_fit(result, band=band, points=False, peak=peak, color=color, label=None, ax=ax)
    return _finish(ax, x, y, hue)


# --------------------------------------------------------------- latency ---
def latency_vs_load(
    runs: pd.DataFrame,
    *,
    x: str = "concurrency",
    y: str = "latency_mean_s",
    hue: str | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Latency against load: runs as points and a line through the per-load means.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, pandas as pd
    >>> runs = pd.DataFrame({"concurrency": [10, 10, 20], "latency_mean_s": [0.1, 0.3, 0.4]})
    >>> fig, ax = plt.subplots()
    >>> latency_vs_load(runs, ax=ax).lines[1].get_xydata().tolist()
    [[10.0, 0.2], [20.0, 0.4]]
    >>> plt.close(fig)
    """
    ax = ax or plt.gca()
    for i, key, rows in _groups(runs, hue):
        color = f"C{i % 10}"
        xy = _xy(rows, x, y)
        ax.plot(xy["x"], xy["y"], "o", color=color, alpha=0.6, label=None if key is None else str(key))
        means = xy.groupby("x")["y"].mean()
        ax.plot(means.index, means.to_numpy(), "-", color=color)
    return _finish(ax, x, y, hue)


def rate_kept(
    runs: pd.DataFrame,
    *,
    x: str = "rate_target_per_s",
    y: str = "requests_per_s",
    hue: str | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Open loop: the answers' rate against the rate asked, every run a point, a line through the means per
    ``hue`` level, and the diagonal where the answers keep up with the rate (``ax.lines[0]``).

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, pandas as pd
    >>> runs = pd.DataFrame({"rate_target_per_s": [100, 200, 400], "requests_per_s": [100, 199, 230]})
    >>> fig, ax = plt.subplots()
    >>> ax = rate_kept(runs, ax=ax)
    >>> ax.lines[0].get_label(), ax.lines[2].get_xydata()[-1].tolist()
    ('answers as fast as asked', [400.0, 230.0])
    >>> plt.close(fig)
    """
    ax = ax or plt.gca()
    top = float(np.nanmax(_num(runs[x]))) if len(runs) else 1.0
    ax.plot([0, top], [0, top], "--", color="0.5", linewidth=1, label="answers as fast as asked")
    for i, key, rows in _groups(runs, hue):
        color = f"C{i % 10}"
        xy = _xy(rows, x, y)
        ax.plot(xy["x"], xy["y"], "o", color=color, alpha=0.6, label=None if key is None else str(key))
        means = xy.groupby("x")["y"].mean()
        ax.plot(means.index, means.to_numpy(), "-", color=color)
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    _finish(ax, x, y, None)
    ax.legend(title=header(hue) if hue else None)
    return ax


def latency_percentiles(
    percentiles: pd.DataFrame,
    *,
    x: str = "percentile",
    y: str = "latency_s",
    hue: str | None = "run",
    logy: bool = False,
    ax: Axes | None = None,
) -> Axes:
    """Latency against percentile (0-100), one line per ``hue`` level.

    ``hue="run"`` with several sources draws one line per (source, run).

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, pandas as pd
    >>> pct = pd.DataFrame({"source": "a.txt", "run": [0, 0, 1, 1], "percentile": [50, 99, 50, 99],
    ...                     "latency_s": [0.01, 0.05, 0.02, 0.09]})
    >>> fig, ax = plt.subplots()
    >>> [line.get_xydata()[:, 1].tolist() for line in latency_percentiles(pct, ax=ax).lines]
    [[0.01, 0.05], [0.02, 0.09]]
    >>> plt.close(fig)
    """
    ax = ax or plt.gca()
    data = percentiles
    if hue == "run" and "source" in data.columns and data["source"].nunique() > 1:
        data = data.assign(run=data["source"].astype(str) + ":" + data["run"].astype(str))
    for i, key, rows in _groups(data, hue):
        xy = _xy(rows, x, y)
        ax.plot(xy["x"], xy["y"], "-", marker=".", color=f"C{i % 10}", label=None if key is None else str(key))
    if logy:
        _log_y(ax)
    return _finish(ax, f"{x} (%)" if x == "percentile" else x, y, hue)


def corrected_tail(
    tail: pd.DataFrame,
    *,
    label: str = "source",
    ax: Axes | None = None,
) -> Axes:
    """Raw (solid) and coordinated-omission-corrected (dashed) latency against percentile.

    ``tail`` is :func:`lbanalysis.analysis.latency.corrected_percentiles` output;
    one colour per run, labelled by ``label`` (and the run where a source has
    several). The x axis counts nines (90, 99, 99.9 equally spaced), where tails live.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, pandas as pd
    >>> t = pd.DataFrame({"source": "a", "run": 0, "percentile": [50.0, 99.0],
    ...                   "latency_s": [0.002, 0.004], "corrected_latency_s": [0.002, 0.5]})
    >>> fig, ax = plt.subplots()
    >>> [line.get_xydata()[:, 1].tolist() for line in corrected_tail(t, ax=ax).lines]
    [[2.0, 4.0], [2.0, 500.0]]
    >>> plt.close(fig)
    """
    ax = ax or plt.gca()
    several = tail.groupby("source", observed=True)["run"].nunique().gt(1)
    for i, ((source, run), rows) in enumerate(tail.groupby(["source", "run"], observed=True, sort=False)):
        rows = rows.sort_values("percentile")
        nines = -np.log10(1 - rows["percentile"].clip(upper=99.999) / 100)
        name = str(rows[label].iloc[0]) if label in rows else str(source)
        name = f"{name}:{run}" if several.get(source, False) else name
        color = f"C{i % 10}"
        rows = rows.assign(  # a latency logged as 0 has no place on a log axis
            latency_s=rows["latency_s"].where(rows["latency_s"] > 0),
            corrected_latency_s=rows["corrected_latency_s"].where(rows["corrected_latency_s"] > 0),
        )
        ax.plot(nines, rows["latency_s"] * 1e3, "-", marker=".", color=color, label=f"{name} (as printed)")
        ax.plot(nines, rows["corrected_latency_s"] * 1e3, "--", marker=".", color=color, label=f"{name} (corrected)")
    ticks = sorted(set(tail["percentile"]))
    ax.set_xticks([-np.log10(1 - min(p, 99.999) / 100) for p in ticks], [f"{p:g}" for p in ticks])
    ax.set_xlabel("percentile (%)")
    ax.set_ylabel("latency (ms)")
    _log_y(ax)
    ax.legend(fontsize="small")
    return ax


# ------------------------------------------------------------ throughput ---
def throughput_bars(
    runs: pd.DataFrame,
    *,
    x: str = "setup",
    y: str = "requests_per_s",
    order: list[Any] | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Mean ``y`` per configuration ``x`` as bars, with one marker per run.

    Bars are in ``order`` (default: sorted values of ``x``); the markers of
    all runs are one line (``ax.lines[0]``) at the bars' positions.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, pandas as pd
    >>> runs = pd.DataFrame({"setup": ["a", "a", "b"], "requests_per_s": [10.0, 14.0, 30.0]})
    >>> fig, ax = plt.subplots()
    >>> [p.get_height() for p in throughput_bars(runs, ax=ax).patches]
    [12.0, 30.0]
    >>> plt.close(fig)
    """
    ax = ax or plt.gca()
    data = pd.DataFrame({"x": runs[x], "y": _num(runs[y])}).dropna()
    levels = order if order is not None else sorted(data["x"].unique(), key=lambda v: (str(type(v)), v))
    pos = {level: i for i, level in enumerate(levels)}
    data = data[data["x"].isin(pos)]
    means = data.groupby("x")["y"].mean().reindex(levels)
    ax.bar(range(len(levels)), means.to_numpy(), color="C0", alpha=0.6, label="mean")
    ax.plot(data["x"].map(pos).to_numpy(float), data["y"].to_numpy(), "o", color="black", markersize=4, label="runs")
    ax.set_xticks(range(len(levels)), [str(v) for v in levels])
    ax.set_xlabel(header(x))
    ax.set_ylabel(header(y))
    thousands_ticks(ax, "y")
    return ax


# ------------------------------------------------------------ network ---
def utilisation(
    runs: pd.DataFrame,
    *,
    x: str | None = None,
    threshold: float = 0.8,
    ax: Axes | None = None,
) -> Axes:
    """Link utilisation per run (from ``network_utilisation``) with the threshold drawn.

    One bar per run (height = ``utilisation``; red when ``network_bound``),
    labelled by column ``x`` (default ``source:run`` or the index). Lines:
    ``ax.lines[0]`` the threshold, ``ax.lines[1]`` the link capacity (100%).

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, pandas as pd
    >>> util = pd.DataFrame({"label": ["r1", "r2"], "utilisation": [0.5, 0.9], "network_bound": [False, True]})
    >>> fig, ax = plt.subplots()
    >>> ax = utilisation(util, x="label", ax=ax)
    >>> [p.get_height() for p in ax.patches], list(ax.lines[0].get_ydata())
    ([0.5, 0.9], [0.8, 0.8])
    >>> plt.close(fig)
    """
    ax = ax or plt.gca()
    if "utilisation" not in runs.columns:
        raise ValueError("no 'utilisation' column: pass the frame network_utilisation() returns")
    util = _num(runs["utilisation"]).to_numpy()
    if x is not None:
        labels = runs[x].astype(str).tolist()
    elif {"source", "run"} <= set(runs.columns):
        labels = (runs["source"].astype(str) + ":" + runs["run"].astype(str)).tolist()
    else:
        labels = [str(i) for i in runs.index]
    bound = runs["network_bound"].astype("boolean").fillna(False).to_numpy(bool) if "network_bound" in runs else None
    colors = ["C3" if b else "C0" for b in (bound if bound is not None else [False] * len(util))]
    ax.bar(range(len(util)), np.nan_to_num(util), color=colors)
    ax.axhline(threshold, color="C3", linestyle="--", label=f"threshold {threshold:.0%}")
    ax.axhline(1.0, color="black", linewidth=1, label="link capacity")
    ax.set_xticks(
        range(len(util)), labels, rotation=45 if len(util) > 6 else 0, ha="right" if len(util) > 6 else "center"
    )
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel(x or "run")
    ax.set_ylabel("link utilisation")
    ax.legend()
    return ax


def plot_rates(
    rates: pd.DataFrame,
    *,
    measured: pd.DataFrame | None = None,
    label: str = "label",
    value: str = "value",
    measured_label: str = "label",
    measured_value: str = "requests_per_s",
    ax: Any = None,
) -> Any:
    """Reference rates (``label``, ``value``) as horizontal bars on a log scale; measured rates as marked vertical lines.

    Bars are drawn top to bottom in the order of ``rates`` (``ax.patches``);
    each measured rate adds one dashed vertical line (``ax.lines``, in the
    order of ``measured``) labelled in the legend.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> m = pd.DataFrame({"label": ["000 HAProxy"], "requests_per_s": [29331.99]})
    >>> rates = pd.DataFrame({"label": [f"rate {i}" for i in range(8)], "value": [10.0 ** i for i in range(8)]})
    >>> ax = plot_rates(rates, measured=m, ax=ax)
    >>> len(ax.patches), ax.get_xscale(), float(ax.lines[0].get_xdata()[0])
    (8, 'log', 29331.99)
    >>> plt.close(fig)
    """
    import matplotlib.pyplot as plt

    ax = ax or plt.gca()
    pos = np.arange(len(rates))[::-1]
    ax.barh(pos, rates[value].to_numpy(float), color="C0", alpha=0.7)
    ax.set_yticks(pos, rates[label].astype(str).tolist())
    ax.set_xscale("log")
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.xaxis.set_major_formatter(FuncFormatter(tick_label))  # 1,000 and 100,000, not 10³ and 10⁵
    ax.xaxis.set_minor_formatter(NullFormatter())
    for i, (_, row) in enumerate(measured.iterrows() if measured is not None else []):
        ax.axvline(float(row[measured_value]), color=f"C{(i + 1) % 10}", linestyle="--", label=str(row[measured_label]))
    if measured is not None and len(measured):
        ax.legend(fontsize="small", loc="lower right")
    ax.set_xlabel("rate per second (log scale)" if value == "value" else f"{header(value)} (log scale)")
    return ax
