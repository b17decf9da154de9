"""The page's charts: each a function of a section's frames that returns a matplotlib Figure drawn outside
pyplot's state (the section adds it; the notebook shows it once, through the Section). What one chart draws at
most is here too.

>>> fig, (ax,) = figure()
>>> type(fig).__name__, len(fig.axes)
('Figure', 1)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from ...analysis.series import as_floats
from .words import MODELS, file_names, words_of

MAX_LINES = 12  # runs drawn one line each in a chart
MAX_PCT_LINES = 6  # runs drawn in the percentile chart
MAX_CURVES = 8  # series drawn in one chart (a legend under it names each)
MAX_BARS = 30  # runs drawn as bars in the utilisation chart


def figure(ncols: int = 1, nrows: int = 1, width: float = 6.0, height: float = 4.0) -> tuple[Any, list[Any]]:
    """A figure outside pyplot's state (the notebook shows it once, through the Section)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel().tolist()
    return fig, axes


def plain_log_y(ax: Any) -> Any:
    """A log y axis labelled ``0.1``, ``10``, ``10,000`` (never ``1e-01``)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    def plain(v: float, _: Any = None) -> str:
        return f"{v:,.10g}" if v >= 1 else f"{v:.10g}"

    def minor(v: float, _: Any = None) -> str:  # 2 and 5 times a power of ten, where they are needed
        mantissa = round(v / 10 ** math.floor(math.log10(v)), 6) if v > 0 else 0
        return plain(v) if mantissa in (2.0, 5.0) else ""

    ax.yaxis.set_major_formatter(FuncFormatter(plain))
    lo, hi = ax.get_ylim()
    few = lo > 0 and hi / lo < 100  # under two decades: one or two labelled ticks only
    ax.yaxis.set_minor_formatter(FuncFormatter(minor) if few else NullFormatter())
    return ax


def _legend_under(fig: Any, ax: Any, ncols: Callable[[list[Any], list[str]], int]) -> None:
    """The axes' legend moved under the chart, not over its lines (``ncols`` of its handles and labels)."""
    handles, labels = ax.get_legend_handles_labels()
    if ax.get_legend() is not None:
        ax.get_legend().remove()
    if handles:
        fig.legend(handles, labels, loc="outside lower center", fontsize="small", frameon=False,
                   ncols=ncols(handles, labels))  # fmt: skip


# ------------------------------------------------------------------ scaling ---
def _throughput_of(ax: Any, g: pd.DataFrame, name: str, load: str, fit: Any, color: str) -> None:
    """One series' runs against load (hollow: left out of the curve) and its fitted curve, else its means."""
    from ... import plots

    xy = pd.DataFrame(
        {"x": pd.to_numeric(g[load], errors="coerce"), "y": pd.to_numeric(g["requests_per_s"], errors="coerce")}
    ).dropna()
    kept = g.loc[xy.index, "used"].to_numpy(bool)
    ax.plot(xy["x"][kept], xy["y"][kept], "o", color=color, label=name if kept.any() else None, alpha=0.8)
    if not kept.all():
        ax.plot(xy["x"][~kept], xy["y"][~kept], "o", mfc="none", color=color, alpha=0.8,
                label=None if kept.any() else name)  # fmt: skip
    if fit is not None:
        plots.scaling_fit(fit, points=False, color=color, label=None, ax=ax)
    else:
        means = xy.groupby("x")["y"].mean()
        ax.plot(means.index, means.to_numpy(), ":", color=color)


def _latency_of(ax: Any, g: pd.DataFrame, load: str, color: str) -> None:
    """One series' mean latency (ms) per load."""
    lat = pd.DataFrame(
        {"x": pd.to_numeric(g[load], errors="coerce"), "y": pd.to_numeric(g["latency_mean_s"], errors="coerce") * 1e3}
    ).dropna()
    if len(lat):
        means = lat.groupby("x")["y"].mean()
        ax.plot(means.index, means.to_numpy(), "o-", color=color)


def scaling_chart(http: pd.DataFrame, shown: Sequence[Any], fits: dict, load: str, model: str) -> Any:
    """Throughput (points, and the ``model`` curve where it fits) and mean latency against load, per series
    ``shown`` of the study's runs ``http``; one legend under both charts, named by series."""
    from ... import plots

    fig, (ax1, ax2) = figure(ncols=2, height=4.0 + 0.22 * ((len(shown) + 1) // 2))
    for i, name in enumerate(shown):
        g = http[http["series"] == name]
        color = f"C{i % 10}"
        _throughput_of(ax1, g, str(name), load, fits.get(name), color)
        _latency_of(ax2, g, load, color)
    words = words_of(load)
    ax1.set_xlabel(words)
    ax1.set_ylabel("requests per second")
    ax1.set_title(f"Throughput ({MODELS.get(model, model)} curve only where it fits)")
    ax2.set_xlabel(words)
    ax2.set_ylabel("mean latency (ms)")
    ax2.set_title("Mean latency")
    for ax in (ax1, ax2):
        plots.plain_ticks(ax)
    if shown:  # one legend under both charts, named by series
        fig.legend(*ax1.get_legend_handles_labels(), loc="outside lower center", ncols=2 if len(shown) > 1 else 1,
                   fontsize="small", frameon=False)  # fmt: skip
    return fig


def open_loop_chart(runs: pd.DataFrame, col: str) -> Any:
    """The answers' rate and the mean latency against the rate asked (``col``), per fixed-rate series."""
    from ... import plots

    fig, (left, right) = figure(ncols=2, width=5.5)
    hue = "series" if runs["series"].nunique() > 1 else None
    plots.rate_kept(runs, x=col, hue=hue, ax=left)
    left.set_title("Answers against the rate asked")
    plots.latency_vs_load(runs.assign(_lat_ms=as_floats(runs, "latency_used_s") * 1e3), x=col, y="_lat_ms", hue=hue,
                          ax=right)  # fmt: skip
    right.set_ylabel("mean latency (ms)")
    right.set_title("Mean latency")
    if right.get_legend() is not None:
        right.get_legend().remove()
    return fig


def series_chart(table: pd.DataFrame, col: str, i: int) -> Any:
    """One series' mean throughput and latency by load (``col``) from its table by load, in colour ``C<i>``."""
    from ... import plots
    from ...formatting import header

    fig, (ax1, ax2) = figure(ncols=2, width=7.0, height=2.6)
    xlabel = header(col)  # the load with its unit: "rate asked (requests/s)", "concurrency"
    ax1.plot(table[col], table["requests_per_s"], "o-", color=f"C{i % 10}", label="mean requests/s")
    ax1.set(xlabel=xlabel, ylabel="requests per second")
    plots.plain_ticks(ax1)
    ax1.legend(fontsize="small")
    if table["latency_mean_s"].notna().any():
        ax2.plot(table[col], table["latency_mean_s"] * 1e3, "o-", color=f"C{i % 10}", label="mean latency")
        ax2.set(xlabel=xlabel, ylabel="mean latency (ms)")
        plots.plain_ticks(ax2)
        ax2.legend(fontsize="small")
    else:
        ax2.set_axis_off()
        ax2.text(0.5, 0.5, "no latency in these outputs", ha="center", va="center", transform=ax2.transAxes)
    return fig


# ------------------------------------------------------------------ latency ---
def percentiles_chart(pct: pd.DataFrame) -> Any:
    """Latency (``latency_ms``) by percentile on a log axis, one line per run (``name``)."""
    from ... import plots

    fig, (ax,) = figure(width=7, height=4.0 + 0.2 * pct["name"].nunique())
    plots.latency_percentiles(pct, y="latency_ms", hue="name", logy=True, ax=ax)
    ax.set(ylabel="latency (ms)", title="Latency by percentile")
    plain_log_y(ax)
    _legend_under(fig, ax, lambda handles, _: 2 if len(handles) > 3 else 1)
    return fig


def tail_chart(curves: pd.DataFrame, n_runs: int) -> Any:
    """The printed and the corrected tail of ``n_runs`` runs (:func:`~lbanalysis.analysis.latency.corrected_percentiles`)."""
    from ... import plots

    fig, (ax,) = figure(width=7, height=4.0 + 0.2 * n_runs)
    plots.corrected_tail(curves, label="name", ax=ax)
    ax.set_title("Printed and corrected tail")
    plain_log_y(ax)
    _legend_under(fig, ax, lambda _, labels: 2 if max(len(t) for t in labels) < 45 else 1)
    return fig


# --------------------------------------------------------------- time series ---
def timeseries_chart(ts: pd.DataFrame, freq: str) -> Any:
    """Requests per second (hollow: a bin the run covers in part) and mean latency over time, one line per run
    (named by its file)."""
    from ... import plots

    keys = ts[["source", "run"]].drop_duplicates()
    names = file_names(keys["source"].astype(str).tolist())
    several = keys.groupby("source")["run"].transform("nunique").to_numpy() > 1
    labels = {(src, run): f"{n} (run {run})" if many else n
              for (src, run), n, many in zip(zip(keys["source"], keys["run"], strict=True), names, several,
                                             strict=True)}  # fmt: skip
    fig, (ax1, ax2) = figure(ncols=2)
    for i, ((src, run), rows) in enumerate(ts.groupby(["source", "run"], sort=False)):
        label, color = labels[(src, run)], f"C{i % 10}"
        full, part = rows[~rows["partial"]], rows[rows["partial"]]
        ax1.plot(full["t_s"], full["requests_per_s"], "-o", color=color, label=label, markersize=3)
        ax1.plot(part["t_s"], part["requests_per_s"], "o", color=color, markerfacecolor="none", markersize=4)
        ax2.plot(rows["t_s"], rows["latency_mean_s"] * 1e3, "-o", color=color, markersize=3)
    ax1.set(xlabel="time since first request (s)", ylabel=f"requests per second (bins of {freq})")
    ax2.set(xlabel="time since first request (s)", ylabel="mean latency (ms)")
    ax1.set_title("Throughput over time")
    ax2.set_title("Mean latency over time")
    for ax in (ax1, ax2):
        plots.plain_ticks(ax)
    fig.legend(*ax1.get_legend_handles_labels(), loc="outside lower center", fontsize="small", frameon=False,
               ncols=2 if len(keys) > 2 else 1)  # fmt: skip
    return fig


# ------------------------------------------------------------------ network ---
def utilisation_chart(table: pd.DataFrame, threshold: float) -> Any:
    """The share of its path's capacity each run used (the first :data:`MAX_BARS` rows of the network table,
    labelled by ``label``), against the ``threshold``."""
    from ... import plots

    fig, (ax,) = figure(width=max(6.0, min(14.0, 0.4 * min(len(table), MAX_BARS))))
    first = table.head(MAX_BARS)
    labelled = first.assign(utilisation=first["utilisation (%)"] / 100,
                            network_bound=(first["bound by"] == "network").to_numpy())  # fmt: skip
    plots.utilisation(labelled, x="label", threshold=threshold, ax=ax)
    ax.set_title("Share of each run's path capacity used")
    ax.set_xlabel("")
    ax.tick_params(axis="x", labelrotation=30)
    for tick in ax.get_xticklabels():
        tick.set_horizontalalignment("right")
    return fig


# ------------------------------------------------------------------ compare ---
def compare_chart(http: pd.DataFrame, group: str, y: str, n_levels: int) -> Any:
    """Mean ``y`` per value of ``group`` as bars."""
    from ... import plots

    fig, (ax,) = figure(width=max(5.0, 1.2 * n_levels))
    plots.throughput_bars(http, x=group, y=y, ax=ax)
    return fig


# ------------------------------------------------------------------ design ---
def along_chart(runs: pd.DataFrame, axis: str, shown: Sequence[Any]) -> Any:
    """Throughput against a scale factor (servers, pods) at one load: each series' runs as points and its
    means joined, the series ``shown`` of the study's runs (``axis``: the factor's column)."""
    from ... import plots

    fig, (ax,) = figure(height=4.0 + 0.22 * ((len(shown) + 1) // 2))
    data = runs[runs["series"].isin(list(shown)) & runs["used"].astype(bool)]
    data = data.assign(_along=pd.to_numeric(data[axis], errors="coerce"))
    plots.throughput_vs_load(data, x="_along", hue="series", ax=ax)
    ax.set_xlabel(axis)
    ax.set_title(f"Throughput against {axis}, at one load")
    if ax.get_legend() is not None:
        ax.get_legend().remove()
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=2 if len(shown) > 1 else 1,
               fontsize="small", frameon=False)  # fmt: skip
    return fig
