"""The evidence against load: throughput and latency per series with their fitted curves, the fixed-rate
series against the rate asked, and the saturation knee.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ...analysis.series import as_floats
from . import charts
from .render import Section
from .study import check_column, http_runs, own_loads, series_study
from .words import ABSENT, INTROS, MODELS, plural, words_of


def _n_loads(runs: pd.DataFrame, load: str, group: str | None) -> int:
    """Most distinct loads in any group."""
    if not len(runs):
        return 0
    x = pd.to_numeric(runs[load], errors="coerce")
    if group is None:
        return int(x.nunique())
    return int(x.groupby(runs[group].astype(str).to_numpy()).nunique().max())


def scaling_fits_table(
    runs: pd.DataFrame, load: str = "concurrency", group: str | None = None, model: str = "usl"
) -> pd.DataFrame:
    """One row per group: the fitted parameters, r², and the peak (load, throughput).

    A group that cannot be fitted has its reason in ``error``.
    """
    from ...analysis import fit_scaling

    data = runs if group is not None else runs.assign(group="all runs")
    by = group if group is not None else "group"
    fits = fit_scaling(data, x=load, y="requests_per_s", by=by, model=model, errors="coerce")
    frame = fits.to_frame()
    keep = [c for c in ("model", "lambda", "sigma", "kappa", "intercept", "slope", "loads", "n", "r2") if c in frame]
    out = frame[keep].copy()
    if "n_peak" in frame:
        out[f"peak {load}"] = frame["n_peak"]
    if "x_peak" in frame:
        out["peak req/s"] = frame["x_peak"]
    if "asymptote" in frame:
        out["asymptote req/s"] = frame["asymptote"]
    if "retrograde" in frame:
        out["retrograde"] = frame["retrograde"]
    out["error"] = frame["error"].fillna("")
    if not out["error"].astype(bool).any():
        out = out.drop(columns="error")
    return out


def _study_for(runs: Any, load: str, group: str | None) -> Any:
    """The study a section on load shows: the page's (:func:`~.study.series_study`) of a Dataset, its own of a
    runs table."""
    from ...analysis.engine import study

    return study(runs, load=load, group=group) if isinstance(runs, pd.DataFrame) else series_study(runs, load, group)


def _closed_series(st: Any, load: str) -> tuple[pd.DataFrame, set]:
    """The study's runs of series whose load is ``load``, and the fixed-rate series left to their own section
    (they vary the rate asked, not the load: :func:`open_loop_section`)."""
    http = st.runs.dropna(subset=["series"])  # the study's series and left-outs
    own = own_loads(st)
    other = set(own.index[own != load])
    return http[~http["series"].isin(other).to_numpy(bool)], other


def _fits_table(http: pd.DataFrame, load: str, model: str) -> tuple[pd.DataFrame, dict]:
    """The fits of the runs the curves use, per series (:func:`~lbanalysis.analysis.series.fit_series`), a row
    for each series none of whose runs counts, and ``fitted`` in words; and the fits that hold."""
    from ...analysis.rules import count_reasons
    from ...analysis.series import fit_series

    used = http[http["used"].to_numpy(bool)]
    table, fits = fit_series(used, load=load, model=model, by="series")
    missing = [
        {"series": n, "loads": 0, "model": model, "r2": None, "fitted": False,
         "verdict": f"no run counts in curves: {count_reasons(g['left_out'].tolist())}"}
        for n, g in http.groupby("series", sort=True) if n not in set(table["series"])
    ]  # fmt: skip
    if missing:
        table = pd.concat([table, pd.DataFrame(missing)], ignore_index=True).sort_values("series", ignore_index=True)
    if "fitted" in table:
        table["fitted"] = table["fitted"].map({True: "yes", False: "no"}).fillna("")
    if "model" in table and table["model"].nunique() <= 1:  # the sentence above names the model
        table = table.drop(columns="model")
    return table, fits


def _scaling_sentence(
    n_series: int, n_drawn: int, n_fitted: int, n_fixed: int, load: str, group: str | None, model: str
) -> str:
    """How many series there are, how many are drawn and fitted, and the fixed-rate ones drawn elsewhere.

    >>> _scaling_sentence(3, 2, 1, 0, "concurrency", None, "usl")  # doctest: +NORMALIZE_WHITESPACE
    '3 series (same tool, target and settings); 2 ran at two concurrency values or more and are drawn; 1 of them
    has a Universal Scalability Law curve that fits. The other 1 ran at one concurrency only.'
    """
    words = words_of(load)
    name = MODELS.get(model, model)
    fitted = f"{n_fitted} of them {'has' if n_fitted == 1 else 'have'} a {name} curve that fits"
    return (
        f"{plural(n_series, 'series')} ({'by ' + group if group else 'same tool, target and settings'}); "
        f"{n_drawn} ran at two {words} values or more and are drawn; {fitted}."
        + (f" The other {n_series - n_drawn} ran at one {words} only." if n_series > n_drawn else "")
        + (f" {plural(n_fixed, 'fixed-rate series')} {'varies' if n_fixed == 1 else 'vary'} the rate asked: "
           "see the section on the rate asked." if n_fixed else "")
    )  # fmt: skip


def scaling_section(
    runs: Any,
    load: str = "concurrency",
    group: str | None = None,
    model: str = "usl",
    output_dir: str | os.PathLike | None = None,
) -> Section:
    """Throughput and latency against load within each series, with a fitted curve only where one holds.

    ``runs``: the Dataset (its study, :func:`study_of`, is the one every section shows) or a runs table.
    Runs are grouped into series (same tool, target and settings, see
    :mod:`lbanalysis.analysis.series`), or by ``group`` when given. A series
    gets a ``model`` curve only with enough distinct loads and when the fit
    explains the points (R² >= 0.8); otherwise the table says "no model
    fits these points" or "too few loads", and no curve is drawn. Series run
    at one load only are counted, not listed (the conclusion lists every series).
    """
    from ...analysis.rules import count_reasons

    title = "Throughput and latency against load"
    frame = runs if isinstance(runs, pd.DataFrame) else runs.runs
    check_column(frame, load, "load")
    check_column(frame, group, "group")
    if not len(http_runs(frame)):
        return Section.empty(title, ABSENT["http"])
    http, other = _closed_series(_study_for(runs, load, group), load)
    if other and not len(http):
        return Section.empty(title, "Every series sends a fixed rate: they are drawn against the rate asked.")
    if not len(http) or _n_loads(http, load, "series") < 2:
        return Section.empty(title, ABSENT["loads"].format(load=words_of(load)))
    n_loads = http.groupby("series")[load].agg(lambda v: pd.to_numeric(v, errors="coerce").nunique())
    drawn = sorted(set(n_loads[n_loads >= 2].index))
    n_series, http = http["series"].nunique(), http[http["series"].isin(set(drawn)).to_numpy(bool)]
    table, fits = _fits_table(http, load, model)
    s = Section(title, intro=INTROS["scaling"].format(model=MODELS.get(model, model)))
    s.add(_scaling_sentence(n_series, len(drawn), len(fits), len(other), load, group, model))
    out = http[~http["used"].to_numpy(bool)]
    if len(out):
        s.add(f"{plural(len(out), 'run')} drawn hollow and left out of the curves: "
              f"{count_reasons(out['left_out'].tolist())}.")  # fmt: skip
    shown = drawn[: charts.MAX_CURVES]
    if len(drawn) > len(shown):
        s.add(f"The chart shows the first {len(shown)} of {len(drawn)} series; the table has them all.")
    s.add(charts.scaling_chart(http, shown, fits, load, model))
    s.add(table.rename(columns={"series": group}) if group is not None else table)
    s.save(output_dir, "throughput-latency")
    return s


def open_loop_section(
    ds: Any, load: str = "concurrency", group: str | None = None, output_dir: str | os.PathLike | None = None
) -> Section:
    """Fixed-rate (open-loop) series: the answers' rate against the rate asked (and sent), and the latency.

    The series are the study's whose load is the rate asked
    (:func:`lbanalysis.analysis.engine.series_load`); each gets a sentence on
    the highest rate whose answers kept up (the study's ``keep_up_share``)
    and where they fell behind. Absent when no such series ran at two rates.
    """
    from ...analysis.rules import kept_up

    title = "Answers against the rate asked"
    frame = ds.runs if hasattr(ds, "runs") else ds
    if not len(http_runs(frame)):
        return Section.empty(title, ABSENT["http"])
    st = series_study(ds, load, group)
    col = "rate_target_per_s"
    own = own_loads(st)
    runs = st.runs[st.runs["series"].isin(set(own.index[own == col])).to_numpy(bool) & st.runs["used"].to_numpy(bool)]
    n_rates = runs.groupby("series")[col].nunique() if len(runs) else pd.Series(dtype=int)
    runs = runs[runs["series"].isin(set(n_rates[n_rates >= 2].index)).to_numpy(bool)]
    if not len(runs):
        return Section.empty(title, ABSENT["open_loop"])
    share = st.thresholds["keep_up_share"]  # the value the study judged with
    s = Section(title, intro=INTROS["open_loop"])
    rows = []
    for name, g in runs.groupby("series", sort=True):
        by = g.groupby(as_floats(g, col))
        got, sent = by["requests_per_s"].mean(), as_floats(g, "rate_sent_per_s").groupby(as_floats(g, col)).mean()
        lat = as_floats(g, "latency_used_s").groupby(as_floats(g, col)).mean()
        ok = kept_up(got, pd.Series(got.index, index=got.index), share)
        kept, behind = got[ok], got[~ok]
        if len(kept):
            top = kept.index.max()
            said = f"the answers kept up with the rate asked up to {top:,.10g} requests/s ({got[top]:,.0f} answered)"
        else:
            said = "the answers kept up at no rate asked"
        if len(behind):
            r = behind.index.min()
            sent_r = f" ({sent[r]:,.0f} sent)" if pd.notna(sent.get(r)) else ""
            said += f"; at {r:,.10g} requests/s asked{sent_r} they came at {got[r]:,.0f} ({got[r] / r:.0%}, below {share:.0%})"
        s.add(f"{name}: {said}.")
        for r in got.index:
            rows.append({"series": name, "rate asked (requests/s)": r, "runs": int(by.size()[r]),
                         "rate sent (requests/s)": sent.get(r, math.nan), "answers (requests/s)": got[r],
                         "answers / asked (%)": got[r] / r * 100, "mean latency (ms)": lat.get(r, math.nan) * 1e3})  # fmt: skip
    s.add(charts.open_loop_chart(runs, col))
    s.add(pd.DataFrame(rows))
    s.save(output_dir, "open_loop")
    return s


def _one_load_column(table: pd.DataFrame, prefix: str, name: str, keep: Sequence[str] = ()) -> pd.DataFrame:
    """Columns ``<prefix><load>`` of series with different loads (concurrency, rate) as one column of words.

    >>> t = pd.DataFrame({"knee concurrency": [4.0, None], "knee rate": [None, 150.0]})
    >>> _one_load_column(t, "knee ", "knee")["knee"].tolist()
    ['concurrency 4', 'rate 150']
    """
    cols = [c for c in table.columns if c.startswith(prefix) and c not in keep]
    if len(cols) < 2:
        return table
    words = [
        next((f"{c[len(prefix) :]} {v:,.10g}" for c in cols if pd.notna(v := row[c])), "")
        for _, row in table[cols].iterrows()
    ]
    at = table.columns.get_loc(cols[0])
    out = table.drop(columns=cols)
    out.insert(at, name, words)
    return out


def knee_section(runs: Any, load: str = "concurrency", group: str | None = None) -> Section:
    """The load past which throughput stops growing, per series, and whether latency keeps rising (the study's).

    ``runs``: the Dataset (its study, :func:`study_of`) or a runs table.
    """
    title = "Saturation knee"
    frame = runs.runs if hasattr(runs, "runs") and not isinstance(runs, pd.DataFrame) else runs
    if not len(http_runs(frame)):
        return Section.empty(title, ABSENT["http"])
    st = _study_for(runs, load, group)
    knees = st.knees
    if not len(knees):
        return Section.empty(title, ABSENT["knee"].format(load=words_of(load)))
    table = knees.set_index("series")
    s = Section(title, intro=INTROS["knee"])
    n_series = len(st.verdicts)
    if len(knees) < n_series:
        s.add(f"{len(knees)} of {plural(n_series, 'series')} ran at three {words_of(load)} values or more: a "
              "knee is looked for only in those.")  # fmt: skip
    if not table["significant"].any() and table["saturated"].any():
        s.add("Each load ran once: the run-to-run noise is unknown, so no knee is called significant.")
    shown = _one_load_column(table.copy(), "knee ", "knee")
    shown = _one_load_column(shown, "best ", "best at", keep=("best req/s",))
    for col in ("saturated", "latency_rising", "significant"):
        if col in shown:
            shown[col] = shown[col].map({True: "yes", False: "no"}).fillna("")
    return s.add(shown.rename(columns={"latency_rising": "latency rising"}))
