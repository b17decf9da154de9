"""The evidence on latency: the percentiles the tools printed, and the tail corrected for coordinated omission."""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from ...dask_engine import is_dask
from . import charts
from .render import Section
from .words import ABSENT, INTROS, file_names, plural, short_sources

_PERCENTILES = (50, 66, 75, 80, 90, 95, 98, 99, 100)  # the ones ab prints; wrk and hey print some of them


def percentile_table(percentiles: pd.DataFrame, runs: pd.DataFrame | None = None) -> pd.DataFrame:
    """Percentiles in ms, one row per run and one column per percentile ab prints (``p50 (ms)`` ... ``p100 (ms)``).

    >>> pct = pd.DataFrame({"source": "a.txt", "run": [0, 0], "percentile": [50.0, 99.0], "latency_s": [0.01, 0.2]})
    >>> percentile_table(pct).to_dict("records")
    [{'source': 'a.txt', 'run': 0, 'p50 (ms)': 10.0, 'p99 (ms)': 200.0}]
    """
    pct = percentiles[percentiles["percentile"].isin(_PERCENTILES)]
    ms = (pd.to_numeric(pct["latency_s"], errors="coerce") * 1e3).round(6)  # 0.103 s is 103 ms, not 103.00000000000001
    wide = pct.assign(ms=ms).pivot_table(index=["source", "run"], columns="percentile", values="ms", aggfunc="first")
    wide.columns = [f"p{c:g} (ms)" for c in wide.columns]
    wide = wide.reset_index()
    wide["source"] = short_sources(wide["source"].astype(str).tolist())
    wide.columns.name = None
    if runs is not None and len(runs):
        # each run's load: its clients, and the rate asked where a fixed-rate tool set one
        loads = [
            c
            for c in ("concurrency", "rate_target_per_s")
            if c in runs and pd.to_numeric(runs[c], errors="coerce").notna().any()
        ]
        extra = runs[["source", "run", *loads]].copy()
        extra["source"] = short_sources(runs["source"].astype(str).tolist())
        wide = wide.merge(extra, on=["source", "run"], how="left")
        for i, c in enumerate(loads):
            wide.insert(2 + i, c, wide.pop(c))
        if "rate_target_per_s" in wide:
            wide = wide.rename(columns={"rate_target_per_s": "rate asked (requests/s)"})
    return wide


def percentiles_section(ds: Any, group: str | None = None, output_dir: str | os.PathLike | None = None) -> Section:
    """Latency against percentile for the runs whose tool printed percentiles (ab, wrk --latency, hey, k6, ...)."""
    title = "Latency percentiles"
    pct = ds.percentiles
    if not len(pct):
        return Section.empty(title, ABSENT["percentiles"])
    s = Section(title, intro=INTROS["percentiles"])
    from ...analysis.latency import recorded_percentiles

    recorded = recorded_percentiles(pct)
    uncorrected = pct["kind"].astype("string").str.startswith("uncorrected").fillna(False).to_numpy(bool)
    if uncorrected.any():  # wrk2 -U: a second distribution of the same run
        n = len(pct[uncorrected][["source", "run"]].drop_duplicates())
        s.add(f"wrk2 also printed, for {plural(n, 'run')}, the latencies it measured without correcting for "
              "delayed starts; the chart and table show the corrected ones it records.")  # fmt: skip
    pct = recorded
    keys = pct[["source", "run"]].drop_duplicates()
    ms = pd.to_numeric(pct["latency_s"], errors="coerce") * 1e3
    pct = pct.assign(latency_ms=ms.where(ms > 0))  # a latency printed as 0 has no place on a log axis
    if (ms == 0).any():
        s.add("Latencies printed as 0 ms (under the tool's resolution) are in the table, not on the chart's log "
              "scale.")  # fmt: skip
    if len(keys) > charts.MAX_PCT_LINES:  # the runs with the highest 99th percentile: the tails worth a look
        top = pct[pct["percentile"] == pct.groupby(["source", "run"])["percentile"].transform("max")]
        worst = top.sort_values("latency_ms", ascending=False)[["source", "run"]].drop_duplicates()
        shown = worst.head(charts.MAX_PCT_LINES)
        pct = pct.merge(shown, on=["source", "run"])
        s.add(f"{len(keys)} runs have percentiles; the chart shows the {charts.MAX_PCT_LINES} with the slowest "
              "highest percentile, the table has them all.")  # fmt: skip
    sources = list(dict.fromkeys(ds.percentiles["source"].astype(str)))
    short = dict(zip(sources, file_names(sources), strict=True))
    pct = pct.assign(name=[f"{short[str(a)]}" + (f" (run {b})" if n > 1 else "") for a, b, n in
                           zip(pct["source"], pct["run"], pct.groupby("source")["run"].transform("nunique"),
                               strict=True)])  # fmt: skip
    s.add(charts.percentiles_chart(pct))
    s.add(percentile_table(recorded_percentiles(ds.percentiles, printed=True), ds.runs))
    if _closed_loop_sources(ds.runs, pct):
        from ...analysis.latency import CLOSED_LOOP_NOTE

        s.add(CLOSED_LOOP_NOTE)
    s.save(output_dir, "percentiles")
    return s


def _closed_loop_sources(runs: pd.DataFrame, frame: pd.DataFrame) -> bool:
    """Whether any run of ``frame`` (by source, run) is a closed-loop run."""
    from ...analysis.latency import is_closed_loop

    if not len(runs) or "tool" not in runs:
        return False
    keys = frame[["source", "run"]].drop_duplicates().astype({"source": str})
    cols = [c for c in ["tool", "rate_target_per_s"] if c in runs]
    meta = runs[["source", "run", *cols]].astype({"source": str}).merge(keys, on=["source", "run"])
    rates = meta["rate_target_per_s"] if "rate_target_per_s" in meta else [None] * len(meta)
    return any(is_closed_loop(t, r) for t, r in zip(meta["tool"], rates, strict=True))


def tail_table(tail: pd.DataFrame) -> pd.DataFrame:
    """The corrected-tail table for people: ms, short sources, the note last.

    >>> t = pd.DataFrame({"source": ["/x/a.tsv"], "run": [0], "requests": [10], "expected_interval_s": [0.002],
    ...                   "p99_s": [0.004], "p99_corrected_s": [0.5], "slow_requests": [1], "note": ["n"]})
    >>> tail_table(t).to_dict("records")
    [{'source': 'a.tsv', 'run': 0, 'requests': 10, 'expected interval (ms)': 2.0, 'p99 (ms)': 4.0, \
'p99 corrected (ms)': 500.0, 'slow requests': 1, 'note': 'n'}]
    """
    out = pd.DataFrame({"source": file_names(tail["source"].astype(str).tolist()), "run": tail["run"]})
    for col in [c for c in ["tool", "concurrency", "requests"] if c in tail]:
        out[col] = tail[col].to_numpy()
    out["expected interval (ms)"] = tail["expected_interval_s"].to_numpy() * 1e3
    for col in [c for c in tail.columns if c.startswith("p") and c.endswith("_s")]:
        label = col.removesuffix("_s").replace("_corrected", " corrected").replace("_", ".")
        out[f"{label} (ms)"] = tail[col].to_numpy() * 1e3
    for col, label in [("slow_requests", "slow requests"), ("stalls", "stalls"), ("stalled_s", "stalled (s)")]:
        if col in tail:
            out[label] = tail[col].to_numpy()
    out["note"] = tail["note"].to_numpy()
    return out


def _tail_sentences(tail: pd.DataFrame) -> list[str]:
    """The run whose corrected tail is furthest above the printed one, and the runs whose corrected tail is below."""
    from ...formatting import fmt

    out = []
    worst = tail.loc[(tail["p99_corrected_s"] / tail["p99_s"].where(tail["p99_s"] > 0)).fillna(1).idxmax()]
    if worst["p99_corrected_s"] > worst["p99_s"]:
        out.append(
            f"Largest gap: `{short_sources([str(worst['source'])])[0]}` printed a 99th percentile of "
            f"{fmt(worst['p99_s'], 's')}; corrected for the requests its stalls kept from being sent, "
            f"{fmt(worst['p99_corrected_s'], 's')}."
        )
    lower = tail[tail["p99_corrected_s"] < tail["p99_s"]]
    if len(lower):
        names = ", ".join(f"`{n}`" for n in short_sources(lower["source"].astype(str).tolist())[:3])
        out.append(
            f"{plural(len(lower), 'run')} ({names}{', ...' if len(lower) > 3 else ''}) "
            f"{'has' if len(lower) == 1 else 'have'} a corrected 99th percentile "
            "below the printed one: the correction adds the requests a stall kept from being sent, each with a "
            "latency below the stalled request's; where slow requests are many, these added ones outnumber the "
            "printed tail and pull the high percentiles down. Both tails are shown, with the number of slow "
            "requests beside them."
        )
    return out


def _tail_curves(requests: Any, shown: pd.DataFrame, on_dask: bool) -> pd.DataFrame:
    """The printed and corrected percentiles of the ``shown`` runs' per-request logs, named by file."""
    from ...analysis.latency import corrected_percentiles

    keys = shown[["source", "run"]].astype({"source": str})
    if on_dask:  # only the shown runs' two columns come to the client
        wanted = set(keys["source"])
        requests = requests[requests["source"].astype(str).isin(list(wanted))][["source", "run", "latency_s"]].compute()
    req = requests.astype({"source": str}).merge(keys, on=["source", "run"])
    curves = corrected_percentiles(req, (50, 90, 99, 99.9))
    curves["name"] = file_names(curves["source"].astype(str).tolist())
    return curves


def tail_section(ds: Any, output_dir: str | os.PathLike | None = None) -> Section:
    """Raw against coordinated-omission-corrected tail, per closed-loop run with a per-request log."""
    from ...analysis.latency import latency_tail

    title = "Tail latency, corrected for coordinated omission"
    on_dask = is_dask(ds.requests)
    if not on_dask and not len(ds.requests):
        return Section.empty(title, ABSENT["tail"])
    tail = _dask_tail(ds.requests, ds.runs) if on_dask else latency_tail(ds.requests, ds.runs)
    if not len(tail):
        return Section.empty(title, ABSENT["tail"])
    s = Section(title, intro=INTROS["tail"])  # (the closed-loop note stands in the percentiles section)
    for line in _tail_sentences(tail):
        s.add(line)
    shown = tail.head(charts.MAX_LINES // 2)
    curves = _tail_curves(ds.requests, shown, on_dask)
    if len(tail) > len(shown):
        s.add(f"{len(tail)} runs have per-request logs; the chart shows the first {len(shown)}.")
    s.add(charts.tail_chart(curves, len(shown)))
    s.add(tail_table(tail))
    s.save(output_dir, "latency_tail")
    return s


def _dask_tail(requests: Any, runs: pd.DataFrame) -> pd.DataFrame:
    """:func:`lbanalysis.analysis.latency.latency_tail` of a Dask requests table: each file's rows on one worker."""
    import dask

    from ...analysis.latency import latency_tail

    cols = requests[["source", "run", "start_s", "latency_s"]].assign(source=requests["source"].astype(str))
    parts = cols.shuffle("source").to_delayed()
    tails = dask.compute(*[dask.delayed(latency_tail)(p, runs) for p in parts])
    tails = [t for t in tails if len(t)]
    return pd.concat(tails, ignore_index=True) if tails else latency_tail(cols._meta)
