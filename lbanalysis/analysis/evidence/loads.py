"""The curve of a series: one row per load, as the rules read it (:class:`~lbanalysis.analysis.rules.Evidence`).

>>> import pandas as pd
>>> g = pd.DataFrame({"concurrency": [1, 1, 2], "requests_per_s": [100.0, 110, 190], "latency_used_s": 0.01})
>>> per_load(g, "concurrency")[["runs", "x", "spread"]].round(3).values.tolist()
[[2.0, 105.0, 0.095], [1.0, 190.0, 0.0]]
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..series import as_floats

__all__ = [
    "LOAD_WORDS",
    "NO_LOADS",
    "loads_in",
    "per_load",
    "per_load_by",
    "run_loads",
    "sent",
    "series_load",
    "series_loads",
]

#: How a sentence names a load other than the one asked for (:func:`series_load`).
LOAD_WORDS = {"rate_target_per_s": "rate"}

#: The columns of :func:`per_load`, for a series with no load.
NO_LOADS = pd.DataFrame(
    columns=[
        "runs",
        "x",
        "r",
        "step",
        "util",
        "used_bits",
        "cap",
        "rate",
        "sent",
        "unconnected",
        "delay",
        "spread",
        "think",
        "iter_rate",
        "iter_s",
        "ramped",
    ],
    dtype=float,
)


def series_load(runs: pd.DataFrame, load: str = "concurrency") -> str:
    """The column a series' load is read from: ``load``, or for open-loop runs that show none, the rate asked.

    vegeta (and k6's arrival-rate executors) set a rate, not a number of
    clients: their series vary ``rate_target_per_s``.

    >>> series_load(pd.DataFrame({"concurrency": [None, None], "rate_target_per_s": [100.0, 200.0]}))
    'rate_target_per_s'
    >>> series_load(pd.DataFrame({"concurrency": [4, 8], "rate_target_per_s": [100.0, 200.0]}))
    'concurrency'
    >>> series_load(pd.DataFrame({"concurrency": [10, 10], "rate_target_per_s": [100.0, 200.0]}))
    'rate_target_per_s'

    A series that sets a rate and varies it more than its clients (wrk2's ``-R`` over fixed
    connections, k6's arrival rate over pre-allocated users) varies the rate.
    """
    rate, own = as_floats(runs, "rate_target_per_s"), as_floats(runs, load)
    counts = (len(runs), int(rate.notna().sum()), int(own.notna().sum()), rate.nunique(), own.nunique())
    return _load_column(load, load in runs, *counts)


def _load_column(load: str, has_load: bool, runs: int, rates: int, owns: int, rate_values: int, own_values: int) -> str:
    """The rule of :func:`series_load` on counts of a series' runs: how many, how many show the rate asked and
    ``load``, and how many distinct values of each."""
    concurrency = load == "concurrency"
    if concurrency and runs and rates == runs and rate_values > own_values:
        return "rate_target_per_s"
    if has_load and owns:
        return load
    return "rate_target_per_s" if concurrency and rates else load


def series_loads(runs: pd.DataFrame, load: str, by: str) -> dict[Any, str]:
    """:func:`series_load` of each group of ``runs`` sharing a value of the column ``by``, in one pass (a group
    absent: ``load``).

    >>> runs = pd.DataFrame({"s": ["a", "a", "b"], "concurrency": [10, 10, 4], "rate_target_per_s": [1.0, 2, None]})
    >>> series_loads(runs, "concurrency", "s")
    {'a': 'rate_target_per_s', 'b': 'concurrency'}
    """
    if not len(runs):
        return {}
    rate, own = as_floats(runs, "rate_target_per_s"), as_floats(runs, load)
    by_group = pd.DataFrame({"rate": rate, "own": own}).groupby(runs[by].to_numpy(), sort=False)
    n, known, distinct = by_group.size(), by_group.count(), by_group.nunique()
    counts = zip(n, known["rate"], known["own"], distinct["rate"], distinct["own"], strict=True)
    return {k: _load_column(load, load in runs, *c) for k, c in zip(n.index, counts, strict=True)}


def run_loads(runs: pd.DataFrame, load: str, by: str) -> tuple[dict[Any, str], pd.Series]:
    """The load column of each group of ``runs`` sharing a value of the column ``by`` (:func:`series_loads`), and
    each run's load read from its group's column.

    >>> runs = pd.DataFrame({"s": ["a", "a", "b"], "concurrency": [10, 10, 4], "rate_target_per_s": [1.0, 2, None]})
    >>> run_loads(runs, "concurrency", "s")[1].tolist()
    [1.0, 2.0, 4.0]
    """
    cols = series_loads(runs, load, by)
    return cols, loads_in(runs, cols, load, by)


def loads_in(runs: pd.DataFrame, cols: dict[Any, str], load: str, by: str) -> pd.Series:
    """Each run's load, read from the column ``cols`` names for its group (of the column ``by``; else ``load``)."""
    by_rate = runs[by].map(lambda k: cols.get(k, load) == "rate_target_per_s").to_numpy(bool)
    return as_floats(runs, load).where(~by_rate, as_floats(runs, "rate_target_per_s")).rename(None)


def sent(g: pd.DataFrame) -> pd.Series:
    """The rate each run says it sent: printed (vegeta), else the rate asked less the iterations the tool
    dropped, having no client free to start them (k6's arrival-rate executors).

    >>> sent(pd.DataFrame({"rate_target_per_s": [50.0], "iterations": [73], "iterations_dropped": [77]})).tolist()
    [24.333333333333332]
    """
    printed, rate = as_floats(g, "rate_sent_per_s"), as_floats(g, "rate_target_per_s")
    started, dropped = as_floats(g, "iterations"), as_floats(g, "iterations_dropped")
    return printed.fillna(rate * started / (started + dropped))


def _delay(g: pd.DataFrame) -> pd.Series:
    """The think time each run asked for (none in a benchmark mode that leaves it out)."""
    if "benchmark_mode" not in g:
        return as_floats(g, "delay_s")
    return as_floats(g, "delay_s").where(~g["benchmark_mode"].astype("boolean").fillna(False).to_numpy(bool), 0.0)


def _think(g: pd.DataFrame) -> pd.Series:
    """The mean wait each run asked its clients to make between requests (none in siege's benchmark mode)."""
    if "benchmark_mode" not in g:
        return as_floats(g, "think_time_s")
    bench = g["benchmark_mode"].astype("boolean").fillna(False).to_numpy(bool)
    return as_floats(g, "think_time_s").where(~bench, 0.0)


def _figures(g: pd.DataFrame, load: pd.Series) -> pd.DataFrame:
    """The figures :func:`per_load` reads of each run (``load``: the run's load; runs without one left out)."""
    return pd.DataFrame(
        {
            "load": load,
            "x": as_floats(g, "requests_per_s"),
            "r": as_floats(g, "latency_used_s"),
            "step": as_floats(g, "latency_step_s"),
            "util": as_floats(g, "utilisation"),
            "used_bits": as_floats(g, "used_bits_per_s"),
            "cap": as_floats(g, "capacity_bits_per_s"),
            "rate": as_floats(g, "rate_target_per_s"),
            "sent": sent(g),
            "unconnected": as_floats(g, "socket_errors_connect"),
            "delay": _delay(g),
            "think": _think(g),
            "iter_rate": as_floats(g, "iterations_per_s"),
            "iter_s": as_floats(g, "iteration_mean_s"),
            "ramped": as_floats(g, "ramped"),
        }
    ).dropna(subset=["load"])


def _curves(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The columns of :data:`NO_LOADS` per group of the figures ``frame`` (:func:`_figures`) by ``keys``."""
    by = frame.groupby(keys)
    means = by[["x", "r", "rate", "sent", "unconnected", "think", "iter_rate", "iter_s"]].mean()
    maxes = by[["step", "util", "used_bits", "cap", "delay", "ramped"]].max()
    spread = ((by["x"].max() - by["x"].min()) / means["x"].where(means["x"] > 0)).rename("spread")
    return pd.concat([by.size().rename("runs"), means, maxes, spread], axis=1)[list(NO_LOADS.columns)]


def _at_top_util(frame: pd.DataFrame, out: pd.DataFrame, group: str | None) -> None:
    """Where a utilisation is known, ``used_bits`` and ``cap`` of the curve ``out`` (of the figures ``frame``, per
    load or per ``group`` and load) set to those of the run of highest utilisation (of each group), in place."""
    util = frame["util"].dropna()
    if not len(util):
        return
    if group is None:
        at = frame.loc[[util.idxmax()]]
        where: list[Any] = at["load"].tolist()
    else:
        at = frame.loc[util.groupby(frame.loc[util.index, group], sort=False).idxmax().to_numpy()]
        where = list(zip(at[group], at["load"], strict=True))
    out.loc[where, ["used_bits", "cap"]] = at[["used_bits", "cap"]].to_numpy()


def per_load(g: pd.DataFrame, load: str) -> pd.DataFrame:
    """One row per load of the runs ``g`` (index: the load, ascending), the columns of :data:`NO_LOADS`: means of
    rates and latencies, maxima of steps, utilisation and think time, and the run-to-run ``spread`` of the rate;
    means of the wait asked (``think``), of the iterations per second and of an iteration's duration; ``ramped``
    (1: some run's load rose or fell during it).
    Where a utilisation is known, ``used_bits`` and ``cap`` are those of the run of highest utilisation."""
    frame = _figures(g, as_floats(g, load))
    out = _curves(frame, ["load"])
    _at_top_util(frame, out, None)
    return out.sort_index()


def per_load_by(g: pd.DataFrame, load: pd.Series, by: str) -> dict[Any, pd.DataFrame]:
    """:func:`per_load` of each group of the runs ``g`` sharing a value of the column ``by`` (``load``: each run's
    load), in one pass (a group with no run of a known load: the table of no row).

    >>> g = pd.DataFrame({"s": ["a", "a", "b"], "concurrency": [1, 1, 2], "requests_per_s": [100.0, 110, 190]})
    >>> {k: v["x"].tolist() for k, v in per_load_by(g, as_floats(g, "concurrency"), "s").items()}
    {'a': [105.0], 'b': [190.0]}
    """
    frame = _figures(g, load).assign(_by=g[by])
    out = _curves(frame, ["_by", "load"])
    none = _curves(frame.iloc[:0], ["load"]).sort_index()
    _at_top_util(frame, out, "_by")
    found = {k: part.droplevel(0) for k, part in out.groupby(level=0, sort=False)}
    return {k: found.get(k, none) for k in g[by].unique()}
