"""The conclusion (one line per series: verdict, best rate, p99 there, errors) and the verdicts behind it."""

from __future__ import annotations

import math
import os
from typing import Any

import pandas as pd

from ...analysis.series import as_floats
from .render import OPEN_ROWS, Collapsed, Section
from .study import http_runs, own_loads, study_of
from .words import ABSENT, INTROS, few, plural, words_of

#: The order verdicts are listed in, the most telling first.
_VERDICT_ORDER = ("errors", "capacity mismatch", "network", "load generator", "server saturation", "no bound reached",
                  "cannot tell")  # fmt: skip


def conclusion_section(
    ds: Any,
    link_capacity: str | float | None = None,
    iperf: str | os.PathLike | None = None,
    threshold: float = 0.8,
    load: str = "concurrency",
    group: str | None = None,
) -> Section:
    """The answer first: the verdict counts and one line per series (:func:`conclusion_table`)."""
    title = "Conclusion"
    if not len(http_runs(ds.runs)):
        return Section.empty(title, ABSENT["http"])
    st = study_of(ds, link_capacity, iperf, threshold, load, group)
    from ...analysis.tests import per_test_percentiles

    table = conclusion_table(st, per_test_percentiles(st, ds.percentiles))  # a test's p99: merged, never one process's
    s = Section(title, open_rows=len(table) + 1)
    order = {name: i for i, name in enumerate(_VERDICT_ORDER)}
    counts = table["verdict"].value_counts()
    said = ", ".join(f"{v} {n}" for v, n in sorted(counts.items(), key=lambda kv: (order.get(kv[0], 99), kv[0])))
    s.add(f"{plural(len(table), 'series')}. Verdicts: {said}.")
    kinds = [words_of(k) for k in dict.fromkeys(own_loads(st))]
    words = kinds[0] if len(kinds) == 1 else "load" if kinds else words_of(load)
    varies = f"{words} (the {' or the '.join(kinds)} asked)" if len(kinds) > 1 else words
    s.add(
        f"One line per series (runs of one tool against one target with the same settings, differing in "
        f"{varies}): the best mean throughput of any {words} and that {words}, the 99th percentile of latency "
        "there where the tool printed one, and the largest share of failed requests at any load. The evidence "
        "for each verdict follows."
    )
    failed = _all_failed(st, table)
    if failed:
        which = f" ({few(failed, 3)})" if len(failed) <= 3 else ""
        s.add(f"In {plural(len(failed), 'series')}{which} every attempt of every run failed, yet a rate was "
              "printed: those requests/s count failures (ab counts a refused or failed request as completed, wrk "
              "and hey an error page as an answer), not service.")  # fmt: skip
    if len(table) <= OPEN_ROWS:
        return s.add(table.reset_index(drop=True))
    unsure = (table["verdict"] == "cannot tell").to_numpy(bool)
    no_rate = table["best requests/s"].isna().to_numpy(bool) & ~unsure
    sure = table[~unsure & ~no_rate].reset_index(drop=True)
    if len(sure):  # no empty table when every series is too little to tell
        s.add(sure)
    if no_rate.any():
        s.add(f"{plural(int(no_rate.sum()), 'series')} measured no throughput (every run failed, was refused "
              "or printed no rate):")  # fmt: skip
        s.add(Collapsed(table[no_rate].reset_index(drop=True)))
    if unsure.any():
        s.add(f"{plural(int(unsure.sum()), 'series')} with too little to tell (too few loads, runs too short, "
              "latency printed too coarsely: the next section says which):")  # fmt: skip
        s.add(Collapsed(table[unsure].reset_index(drop=True)))
    return s


def conclusion_table(st: Any, percentiles: pd.DataFrame | None = None) -> pd.DataFrame:
    """One line per series of the study ``st``: verdict and confidence (its ``summary_frame()``), the best
    mean throughput of a load and that load, the 99th percentile there where the tool printed one, and the
    largest error share of any load.
    """
    frame = st.summary_frame()
    load = st.load
    own = own_loads(st)  # the concurrency, or the rate asked of an open-loop tool (vegeta, k6 arrival rate)
    kinds = set(own) or {load}
    at_col = f"at {words_of(next(iter(kinds)))}" if len(kinds) == 1 else "at load"
    cols = ["series", "verdict", "resource", "confidence", "best requests/s", at_col, "p99 latency (ms)", "errors (%)"]
    if not len(frame):
        return pd.DataFrame(columns=cols)
    runs = st.runs.dropna(subset=["series"])
    used = runs["used"].astype("boolean").fillna(False).to_numpy(bool) if "used" in runs else True
    any_used = pd.Series(used, index=runs.index).groupby(runs["series"]).transform("any").to_numpy(bool)
    picked = runs[used | ~any_used]  # the runs the curves use; else every run of the series that measured a rate
    p99 = _p99_by_run(percentiles)
    column = picked["series"].map(own).fillna(load) if len(own) else pd.Series(load, index=picked.index)
    x = pd.Series(math.nan, index=picked.index, dtype=float)
    for col in column.unique():
        mine = (column == col).to_numpy(bool)
        x[mine] = as_floats(picked[mine], col).to_numpy()
    data = pd.DataFrame(
        {
            "series": picked["series"].to_numpy(),
            "x": x.to_numpy(),
            "y": as_floats(picked, "requests_per_s").to_numpy(),
            "p99": [p99.get((str(a), int(b)), math.nan) for a, b in zip(picked["source"], picked["run"], strict=True)],
        }
    ).dropna(subset=["x"])
    means = data.groupby(["series", "x"]).agg(y=("y", "mean"), p99=("p99", "mean")).dropna(subset=["y"])  # by load
    top = means.loc[means.groupby(level="series", sort=False)["y"].idxmax()].reset_index().set_index("series")
    best, at, tail = top["y"].to_dict(), top["x"].to_dict(), (top["p99"] * 1e3).to_dict()
    v = st.verdicts.set_index("series")
    out = pd.DataFrame(
        {
            "series": frame["series"],
            "verdict": frame["verdict"],
            "resource": frame["resource"],
            "confidence": frame["confidence"],
            "best requests/s": frame["series"].map(best).astype(float),
            at_col: frame["series"].map(at)
            if len(kinds) == 1
            else [
                f"{words_of(str(own.get(n, load)))} {at[n]:,.10g}" if n in at and pd.notna(at[n]) else ""
                for n in frame["series"]
            ],
            "p99 latency (ms)": frame["series"].map(tail).astype(float),
            "errors (%)": pd.to_numeric(frame["series"].map(v["error_share"]), errors="coerce") * 100
            if "error_share" in v
            else math.nan,
        }
    )
    order = {name: i for i, name in enumerate(_VERDICT_ORDER)}
    rank = out["verdict"].map(lambda x: order.get(x, len(order)))
    out = out.assign(_rank=rank, _rate=-out["best requests/s"].fillna(-1.0))
    return out.sort_values(["_rank", "_rate", "series"], kind="stable").drop(columns=["_rank", "_rate"])


def _p99_by_run(percentiles: pd.DataFrame | None) -> dict[tuple[str, int], float]:
    """The 99th percentile (s) each run's tool printed, by (source, run)."""
    if percentiles is None or not len(percentiles):
        return {}
    from ...analysis.latency import recorded_percentiles

    pct = recorded_percentiles(percentiles)
    p = pct[pd.to_numeric(pct["percentile"], errors="coerce") == 99]
    return {(str(s), int(r)): float(v) for s, r, v in zip(p["source"], p["run"], p["latency_s"], strict=True)
            if pd.notna(v)}  # fmt: skip


def _all_failed(st: Any, table: pd.DataFrame) -> list[str]:
    """The series whose every run failed every attempt (the study's error shares) but shows a rate."""
    runs = st.runs.dropna(subset=["series"])
    if not len(runs) or "error_share" not in runs:
        return []
    lowest = pd.to_numeric(runs["error_share"], errors="coerce").groupby(runs["series"]).min()
    rate = table.set_index("series")["best requests/s"]
    return [n for n in rate.index if rate[n] > 0 and lowest.get(n, 0.0) >= 0.999]


def verdict_section(
    ds: Any,
    link_capacity: str | float | None = None,
    iperf: str | os.PathLike | None = None,
    threshold: float = 0.8,
    load: str = "concurrency",
    group: str | None = None,
) -> Section:
    """What bounded each series: the study's ``summary_frame()``, with the thresholds used."""
    from ...analysis.rules import thresholds_text

    title = "What bounded each series"
    if not len(http_runs(ds.runs)):
        return Section.empty(title, ABSENT["http"])
    st = study_of(ds, link_capacity, iperf, threshold, load, group)
    s = Section(title, intro=INTROS["verdicts"])
    s.add(f"Each verdict names its figures; thresholds: {thresholds_text(**st.thresholds)}.")
    return s.add(st.summary_frame())
