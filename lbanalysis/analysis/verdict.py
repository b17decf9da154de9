"""What bounded each series, with the numbers behind it.

For each series (:mod:`lbanalysis.analysis.series`) one verdict, checked in
this order, each with a sentence that names its figures and thresholds
(all parameters of :func:`verdicts`):

``errors``
    failures or non-2xx answers above ``error_share`` of the attempts at
    some load: the figures past that point measure error pages, not service.
``capacity mismatch``
    the runs carried more bits than the capacity matched to their path
    (utilisation above 100 %): a run cannot use more than its link, so the
    capacity belongs to another path or was measured otherwise. Both figures
    are given; no network verdict is drawn from it.
``network``
    bits on the wire at or above ``network_threshold`` of the path's
    capacity (iperf runs to the same host, or capacities you give per host).
``load generator``
    a closed-loop tool kept fewer requests in flight than asked: throughput
    × latency (Little's law) below ``generator_share`` of the concurrency.
``server saturation``
    past the knee, throughput grew by at most ``flat_gain`` while mean
    latency grew by at least ``latency_growth``, with Little's law holding
    (throughput × latency within ``little_tolerance`` of the concurrency).
``unknown``
    none of these, with the reason (one load only, throughput still
    growing, no latency).

>>> import pandas as pd
>>> runs = pd.DataFrame({"tool": "ab", "host": "h", "concurrency": [10, 20, 40, 80],
...                      "requests_per_s": [1000.0, 1900, 2000, 2010],
...                      "latency_mean_s": [0.010, 0.0105, 0.020, 0.0398],
...                      "requests": 1000, "failed": 0, "non_2xx": 0})
>>> v = verdicts(runs)
>>> v.loc[0, "verdict"]
'server saturation'
>>> print(v.loc[0, "evidence"])
past concurrency 40, throughput changed +0% (at most +10%) while mean latency rose +99% (at least +20%); Little's law holds at concurrency 80: throughput × latency = 80.0 requests in flight for 80 asked
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import registry
from .latency import is_closed_loop
from .little import ZERO_LATENCY
from .series import MIN_LOADS, assign_series

__all__ = ["THRESHOLDS", "VERDICTS", "thresholds_text", "verdicts"]

#: The thresholds of :func:`verdicts` and their defaults.
THRESHOLDS: dict[str, float] = {
    "error_share": 0.01,
    "network_threshold": 0.8,
    "flat_gain": 0.05,
    "latency_growth": 0.2,
    "little_tolerance": 0.2,
    "generator_share": 0.8,
}


def thresholds_text(**given: float) -> str:
    """The thresholds in words, from the values used (defaults: :data:`THRESHOLDS`).

    >>> thresholds_text(network_threshold=0.9)[:60]
    "errors above 1% of attempts; network at 90% of the path's ca"
    """
    t = {**THRESHOLDS, **{k: v for k, v in given.items() if v is not None}}
    return (
        f"errors above {t['error_share'] * 100:g}% of attempts; network at {t['network_threshold'] * 100:g}% of the "
        f"path's capacity; server saturation when throughput stays within {2 * t['flat_gain'] * 100:g}% past the knee "
        f"while latency rises {t['latency_growth'] * 100:g}% or more and Little's law holds within "
        f"{t['little_tolerance'] * 100:g}%; load generator below {t['generator_share'] * 100:g}% of the asked "
        "concurrency in flight"
    )


VERDICTS = ("errors", "capacity mismatch", "network", "load generator", "server saturation", "unknown")


def _num(df: pd.DataFrame, col: str) -> pd.Series:
    return pd.to_numeric(df[col], errors="coerce").astype(float) if col in df else pd.Series(np.nan, index=df.index)


def _pct(x: float) -> str:
    return f"{x * 100:+.0f}%"


def _flag(g: pd.DataFrame, col: str) -> pd.Series:
    """A boolean column as plain bools (missing: False)."""
    return g[col].astype("boolean").fillna(False).astype(bool) if col in g else pd.Series(False, index=g.index)


def _per_load(g: pd.DataFrame, load: str) -> pd.DataFrame:
    """Mean throughput, latency, error share and wire rate per load, ascending."""
    attempts = _num(g, "requests").fillna(0) + _num(g, "failed_network").fillna(0)
    # what did not succeed: attempts minus the successful requests where the tool counts them; else the
    # largest of its failure counts (tools count failures differently; summing them would count some twice)
    worst_count = pd.concat([_num(g, c) for c in ("failed", "non_2xx", "failed_network")], axis=1).max(axis=1)
    bad = (attempts - _num(g, "requests_ok")).where(_num(g, "requests_ok").notna(), worst_count).fillna(0)
    frame = pd.DataFrame(
        {
            "load": _num(g, load),
            "x": _num(g, "requests_per_s"),
            "r": _num(g, "latency_mean_s"),
            "bad": bad.clip(lower=0),
            "attempts": attempts.where(attempts > 0),
            "wire": _num(g, "wire_bits_per_s"),
            "cap": _num(g, "capacity_bits_per_s"),
            "delay": _num(g, "delay_s").where(~_flag(g, "benchmark_mode"), 0.0),  # siege -b: no delay
            "rate": _num(g, "rate_target_per_s"),  # wrk2 -R: a fixed rate, open loop
            "step": _num(g, "latency_mean_step_s"),  # the step the mean latency was printed to
        }
    ).dropna(subset=["load"])
    out = frame.groupby("load").agg(
        x=("x", "mean"), r=("r", "mean"), bad=("bad", "sum"), attempts=("attempts", "sum"), wire=("wire", "max"),
        cap=("cap", "max"), delay=("delay", "max"), rate=("rate", "mean"), step=("step", "max"),
    )  # fmt: skip
    out["share"] = out["bad"] / out["attempts"].where(out["attempts"] > 0)
    return out.sort_index()


def _capacity_for(runs: pd.DataFrame, capacity: Any) -> pd.Series:
    """Each run's path capacity in bit/s: one number, a mapping by host, or iperf paths (link_capacity)."""
    from ..capacity import capacity as parse

    if capacity is None:
        if "capacity" in runs:  # a manifest or pattern column: each run's own path capacity
            return (
                runs["capacity"]
                .map(lambda v: parse(v) if isinstance(v, (str, int, float)) and pd.notna(v) else math.nan)
                .astype(float)
            )
        return pd.Series(np.nan, index=runs.index)
    if isinstance(capacity, pd.DataFrame):  # link_capacity(): match the HTTP target to the receiving host
        col = "remote_host" if "remote_host" in capacity else None
        if col is None or "host" not in runs:
            return pd.Series(np.nan, index=runs.index)
        caps = capacity.dropna(subset=[col]).groupby(col)["capacity_bits_per_s"].min()
        return runs["host"].map(caps).astype(float)
    if isinstance(capacity, Mapping):
        caps = {str(k): parse(v) for k, v in capacity.items()}
        host = runs["host"].astype("string") if "host" in runs else pd.Series(pd.NA, index=runs.index)
        return host.map(lambda h: caps.get(str(h), math.nan) if pd.notna(h) else math.nan).astype(float)
    return pd.Series(parse(capacity), index=runs.index, dtype=float)


def _idle_clients(delay_s: float, unseen_think_time: str) -> str:
    """Why clients were idle: the think time the command set, else a client that could not keep up.

    >>> _idle_clients(0.5, ""), _idle_clients(float("nan"), "a delay set elsewhere")
    ('the clients waited 0.5 s between requests, as the command asked (think time)', 'the client did not keep its connections busy, or a delay set elsewhere')
    """
    if pd.notna(delay_s) and delay_s > 0:
        return f"the clients waited {delay_s:g} s between requests, as the command asked (think time)"
    cause = "the client did not keep its connections busy"
    return f"{cause}, or {unseen_think_time}" if unseen_think_time and not pd.notna(delay_s) else cause


def _one(name: str, g: pd.DataFrame, load: str, **thresholds: float) -> dict:
    """The verdict of one series, with notes on what it could not check (a latency printed as 0, an open loop)."""
    out = _judge(name, g, load, **thresholds)
    notes = out.pop("_notes", [])
    if notes:
        out["evidence"] = "; ".join([out["evidence"], *notes])
    return out


def _judge(
    name: str, g: pd.DataFrame, load: str, *, error_share: float, network_threshold: float, flat_gain: float,
    latency_growth: float, little_tolerance: float, generator_share: float,
) -> dict:  # fmt: skip
    """The verdict of one series."""
    t = _per_load(g, load)
    row: dict = {"series": name, "runs": len(g), "loads": len(t)}
    if not len(t):
        return {**row, "verdict": "unknown", "evidence": f"no {load} in these runs"}
    top = t.index.max()
    row.update({f"top {load}": top, "requests_per_s": t.loc[top, "x"], "latency_mean_s": t.loc[top, "r"]})
    worst = t["share"].idxmax() if t["share"].notna().any() else None
    if worst is not None and t.loc[worst, "share"] > error_share:
        share = t.loc[worst, "share"]
        return {**row, "verdict": "errors", "error_share": share,
                "evidence": f"at {load} {worst:g}, {share * 100:.1f}% of the attempts failed or were not 2xx "
                            f"(threshold {error_share * 100:g}%)"}  # fmt: skip
    util = (t["wire"] / t["cap"]).max()
    if pd.notna(util):
        at = (t["wire"] / t["cap"]).idxmax()
        wire, cap = t.loc[at, "wire"], t.loc[at, "cap"]
        row["utilisation"] = util
        from .network import format_bits_per_s

        figures = f"{format_bits_per_s(wire)} on the wire at {load} {at:g} against {format_bits_per_s(cap)} measured for its path"
        if util > 1.0:
            return {**row, "verdict": "capacity mismatch",
                    "evidence": f"{figures} ({util * 100:.0f}%): a run cannot use more than its link, so this "
                                "capacity belongs to another path or was measured otherwise; no network verdict"}  # fmt: skip
        if util >= network_threshold:
            return {**row, "verdict": "network",
                    "evidence": f"{figures} ({util * 100:.0f}%, threshold {network_threshold * 100:g}%)"}  # fmt: skip
    tool = str(g["tool"].iloc[0]) if "tool" in g else ""
    in_flight = t.loc[top, "x"] * t.loc[top, "r"]
    ratio = in_flight / top if top > 0 else math.nan
    notes = row.setdefault("_notes", [])
    step = t.loc[top, "step"]
    if t.loc[top, "r"] == 0 and not step > 0:  # e.g. siege's "Response time: 0.00 secs": below what it prints
        in_flight = ratio = math.nan
        notes.append(ZERO_LATENCY)
    row["little_ratio"] = ratio
    closed = is_closed_loop(tool, t.loc[top, "rate"])
    low = t.loc[top, "x"] * max(t.loc[top, "r"] - step / 2, 0.0)  # the mean as printed is within half a step
    high = t.loc[top, "x"] * (t.loc[top, "r"] + step / 2)
    if closed and step > 0 and low < generator_share * top <= high:
        return {**row, "verdict": "unknown",
                "evidence": f"at {load} {top:g}, throughput × latency = {in_flight:.1f} requests in flight, but with "
                            f"the mean latency printed to {step * 1e3:g} ms anything from {low:.1f} to {high:.1f}: "
                            f"too coarse to tell whether the {top:g} clients were busy (threshold "
                            f"{generator_share * 100:g}%)"}  # fmt: skip
    if not closed and pd.notna(t.loc[top, "rate"]):
        rate, got = t.loc[top, "rate"], t.loc[top, "x"]
        notes.append(f"at {load} {top:g} the tool was asked for a fixed {rate:g} requests/s (open loop) and "
                     f"gave {got:,.0f} ({got / rate * 100:.0f}%): connections idle between requests are no "
                     "sign of a client that could not keep up")  # fmt: skip
    if closed and pd.notna(ratio) and ratio < generator_share:
        info = registry.get_tool(tool)
        spread = f" ({low:.1f} to {high:.1f} with the mean latency printed to {step * 1e3:g} ms)" if step > 0 else ""
        return {**row, "verdict": "load generator",
                "evidence": f"at {load} {top:g}, throughput × latency = {in_flight:.1f} requests in flight{spread}, "
                            f"{ratio * 100:.0f}% of the {top:g} asked (below {generator_share * 100:g}%): "
                            + _idle_clients(t.loc[top, "delay"], info.unseen_think_time)}  # fmt: skip
    if len(t) < MIN_LOADS["knee"]:
        return {**row, "verdict": "unknown",
                "evidence": f"{len(t)} load(s) only: a bound needs at least {MIN_LOADS['knee']} to show"}  # fmt: skip
    if t["r"].isna().all():
        return {**row, "verdict": "unknown", "evidence": "no latency in these outputs: saturation cannot be told"}
    best = t["x"].idxmax()
    knee = t.index[t["x"] >= (1 - flat_gain) * t["x"].max()].min()  # the smallest load within flat_gain of the best
    if knee >= top:
        gain = t.loc[top, "x"] / t["x"].iloc[-2] - 1 if len(t) > 1 else math.nan
        return {**row, "verdict": "unknown",
                "evidence": f"throughput still grows at the highest {load} ({_pct(gain)} from {t.index[-2]:g} to "
                            f"{top:g}): no bound reached in these runs"}  # fmt: skip
    gain = t.loc[top, "x"] / t.loc[knee, "x"] - 1
    growth = t.loc[top, "r"] / t.loc[knee, "r"] - 1 if t.loc[knee, "r"] > 0 else math.nan
    little_ok = pd.notna(ratio) and abs(ratio - 1) <= little_tolerance
    if abs(gain) <= 2 * flat_gain and pd.notna(growth) and growth >= latency_growth and little_ok:
        return {**row, "verdict": "server saturation", "knee": knee,
                "evidence": f"past {load} {knee:g}, throughput changed {_pct(gain)} (at most {_pct(2 * flat_gain)}) "
                            f"while mean latency rose {_pct(growth)} (at least {_pct(latency_growth)}); Little's law "
                            f"holds at {load} {top:g}: throughput × latency = {in_flight:.1f} requests in flight for "
                            f"{top:g} asked"}  # fmt: skip
    why = [f"throughput past {load} {knee:g} changed {_pct(gain)}"]
    if pd.notna(growth):
        why.append(f"latency {_pct(growth)}")
    if not little_ok and pd.notna(ratio):
        why.append(f"throughput × latency = {in_flight:.1f} for {top:g} asked (Little's law off by more than "
                   f"{little_tolerance * 100:g}%)")  # fmt: skip
    return {**row, "verdict": "unknown", "knee": knee, "best load": best,
            "evidence": "; ".join(why) + ": not the pattern of a saturated server"}  # fmt: skip


def verdicts(
    runs: pd.DataFrame,
    *,
    load: str = "concurrency",
    by: str | Sequence[str] | None = None,
    capacity: Any = None,
    error_share: float = 0.01,
    network_threshold: float = 0.8,
    flat_gain: float = 0.05,
    latency_growth: float = 0.2,
    little_tolerance: float = 0.2,
    generator_share: float = 0.8,
) -> pd.DataFrame:
    """One verdict per series of HTTP load-test runs, with its evidence (see the module text).

    ``capacity``: a number or string for every path (``"1 Gbit/s"``), a
    mapping from target host to capacity, or :func:`lbanalysis.capacity.link_capacity`
    output (each HTTP target matched to the iperf paths that end at that
    host; never a capacity pooled across paths). Without it, a ``capacity``
    column of the runs (from a manifest) gives each run its path's capacity. Columns: ``series``,
    ``runs``, ``loads``, ``verdict`` (one of :data:`VERDICTS`),
    ``evidence``, and the figures used.
    """
    from .network import wire_bits_per_s

    names = assign_series(runs, by)
    data = runs.assign(series=names).dropna(subset=["series"])
    if not len(data):
        return pd.DataFrame(columns=["series", "runs", "loads", "verdict", "evidence"])
    data = data.assign(capacity_bits_per_s=_capacity_for(data, capacity).to_numpy())
    if data["capacity_bits_per_s"].notna().any():
        data = data.assign(wire_bits_per_s=wire_bits_per_s(data)["wire_bits_per_s"].to_numpy())
    rows = [
        _one(
            str(name),
            g,
            load,
            error_share=error_share,
            network_threshold=network_threshold,
            flat_gain=flat_gain,
            latency_growth=latency_growth,
            little_tolerance=little_tolerance,
            generator_share=generator_share,
        )
        for name, g in data.groupby("series", sort=True)
    ]
    out = pd.DataFrame(rows)
    front = ["series", "runs", "loads", "verdict", "evidence"]
    return out[[*front, *[c for c in out.columns if c not in front]]]
