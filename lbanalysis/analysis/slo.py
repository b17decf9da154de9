"""Capacity at an objective: per series, the most load that meets the user's SLO, and what bounds it there.

For each series of a study, along the axis the study uses for it (its ``load`` column: the concurrency,
the rate asked, or a scale factor such as servers at a fixed load), :func:`capacity` walks the loads
measured from the easiest to the hardest (more load is harder; more servers is easier, see
:data:`SCALE_COLUMNS`) and judges each load on the mean, over its repeats, of each run's value for each
clause (:func:`lbanalysis.analysis.objective.run_values`):

* the last load that meets the objective before the first that fails (``met_load``, ``failed_load``, and
  the clause that failed: latency, errors or a throughput floor);
* the **crossing** between them, interpolated linearly in each failing clause's margin (how far past its
  limit, relative to it), the earliest of them; its throughput interpolated the same way;
* an **interval** from the repeats: both loads' runs resampled (bootstrap, seeded), the crossing computed
  again each time, its 2.5 and 97.5 percentiles (inside the two loads). Below three runs a side: "too few
  runs to tell";
* or ``met at every load`` (the capacity is above the loads measured), ``failed at the lowest load``, or
  ``cannot judge`` (no run shows a value the objective asks for, and why: siege prints no percentiles);
* beside it the verdict of the series up to the failing load (the rules of
  :mod:`lbanalysis.analysis.rules`, its ``resource``): what bounded it there.

>>> import pandas as pd
>>> from lbanalysis.analysis.engine import study
>>> runs = pd.DataFrame({"tool": "ab", "host": "h", "concurrency": [10, 20, 40, 80] * 3,
...     "requests_per_s": [1000.0, 1900, 2000, 2010] * 3, "latency_mean_s": [0.010, 0.0105, 0.020, 0.0398] * 3,
...     "requests": 5000, "failed": 0, "non_2xx": 0, "duration_s": 5.0})
>>> c = study(runs, objective="mean <= 15ms").capacity()
>>> c[["status", "met_load", "failed_load", "failed_clause", "capacity_load"]].round(1).to_dict("records")
[{'status': 'crossed', 'met_load': 20.0, 'failed_load': 40.0, 'failed_clause': 'mean <= 15ms', 'capacity_load': 29.5}]
>>> print(c["evidence"][0].split(". What")[0])
mean <= 15ms: met at concurrency 20 (mean 10.5 ms; 1,900 requests/s), failed at 40 (mean 20 ms); crossing at concurrency 29.47, about 1,947 requests/s (95% interval 29.47 to 29.47, bootstrap of 3 and 3 runs)
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .objective import Clause, Objective, run_values
from .series import LOAD_COLUMNS, as_floats

__all__ = [
    "CAPACITY_COLUMNS",
    "CLAUSE_COLUMNS",
    "MIN_REPEATS",
    "SCALE_COLUMNS",
    "STATUSES",
    "capacity",
    "clause_table",
    "load_table",
    "more_is_harder",
]

#: The columns of :func:`capacity` (a contract).
CAPACITY_COLUMNS = (
    "series", "objective", "load", "met_load", "met_requests_per_s", "failed_load", "failed_clause",
    "capacity_load", "capacity_requests_per_s", "lower", "upper", "status", "verdict", "resource", "evidence",
)  # fmt: skip
#: What a series' ``status`` can say.
STATUSES = ("crossed", "met at every load", "failed at the lowest load", "cannot judge")
#: Fewest runs on each side of a crossing for an interval.
MIN_REPEATS = 3
#: Columns along which more is *easier* (capacity added at a fixed load): the capacity is then the fewest.
SCALE_COLUMNS = ("servers", "backends", "pods", "replicas", "nodes", "instances", "workers", "cores", "cpus", "vcpu",
                 "maxconn")  # fmt: skip
_BOOT = 2000


def more_is_harder(load: str) -> bool:
    """Whether a larger value of the axis ``load`` is a harder test (a load), not more capacity (a scale).

    >>> more_is_harder("concurrency"), more_is_harder("rate_target_per_s"), more_is_harder("servers")
    (True, True, False)
    >>> more_is_harder("maxconn")  # HAProxy's connections to the servers: capacity added
    False
    >>> more_is_harder("podnum"), more_is_harder("cpu (file)")  # scale factors of an experiment's design
    (False, False)
    """
    from ..design.tokens import SCALE_NAMES

    base = re.sub(r"\s*\(.*\)$|#\d+$", "", load).lower()  # a factor of the design: cpu (file) -> cpu
    if base in SCALE_NAMES or base.startswith("pod"):  # a scale factor the design reads (podnum, cpu, haproxy)
        return False
    return load in LOAD_COLUMNS or not any(word in load.lower() for word in SCALE_COLUMNS)


def _load_word(load: str) -> str:
    return {"rate_target_per_s": "rate", "concurrency": "concurrency"}.get(load, load)


def _g(x: float) -> str:
    """A load or a rate in a sentence: whole above 100, four figures above 1, else three.

    >>> _g(29331.99), _g(286.94), _g(29.4737), _g(0.0123)
    ('29,332', '287', '29.47', '0.0123')
    """
    if pd.isna(x):
        return "?"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.4g}" if abs(x) >= 1 or x == 0 else f"{x:.3g}"


def _value_text(c: Clause, v: float) -> str:
    """A clause's value as a sentence shows it: ``p99 62 ms``, ``errors 1.5%``, ``rps 950``."""
    if pd.isna(v):
        return f"{c.stat} unknown"
    if c.metric == "latency":
        return f"{c.stat} {v * 1e3:.3g} ms"
    if c.metric == "errors":
        return f"errors {v * 100:.3g}%"
    return f"rps {v:,.0f}"


def _crossing(m0: np.ndarray, m1: np.ndarray, l0: float, l1: float) -> np.ndarray:
    """Where the margins go from ``m0`` (at ``l0``) to ``m1`` (at ``l1``) through 0, clipped to the two loads."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(m1 != m0, m0 / (m0 - m1), 0.5)
    return l0 + np.clip(t, 0.0, 1.0) * (l1 - l0)


def _fraction(m0: float, m1: float) -> float:
    """How far from the met load to the failed one the margin crosses 0 (0 to 1)."""
    return float(np.clip(m0 / (m0 - m1), 0.0, 1.0)) if m1 != m0 else 0.5


class _Side:
    """The runs at one load: their values per clause, and their throughput."""

    def __init__(self, load: float, values: pd.DataFrame, x: pd.Series):
        self.load, self.values, self.x = load, values, x

    @property
    def n(self) -> int:
        return len(self.values)


def _bootstrap(
    met: _Side, failed: _Side, clauses: list[Clause], rng: np.random.Generator
) -> tuple[float, float] | None:
    """The 2.5 and 97.5 percentiles of the crossing, both loads' runs resampled; None below
    :data:`MIN_REPEATS` runs a side."""
    if met.n < MIN_REPEATS or failed.n < MIN_REPEATS:
        return None
    i0 = rng.integers(0, met.n, size=(_BOOT, met.n))
    i1 = rng.integers(0, failed.n, size=(_BOOT, failed.n))
    cross = np.full(_BOOT, np.inf if met.load < failed.load else -np.inf)
    for c in clauses:
        v0 = met.values[c.text].to_numpy(float)[i0].mean(axis=1)
        v1 = failed.values[c.text].to_numpy(float)[i1].mean(axis=1)
        m0, m1 = np.vectorize(c.margin)(v0), np.vectorize(c.margin)(v1)
        fails = m1 > 0
        at = _crossing(m0, m1, met.load, failed.load)
        better = at < cross if met.load < failed.load else at > cross
        cross = np.where(fails & better, at, cross)
    cross = np.where(np.isfinite(cross), cross, failed.load)  # no clause fails in this resample: past the bracket
    lo, hi = np.percentile(cross, [2.5, 97.5])
    return (float(min(lo, hi)), float(max(lo, hi)))


def _judgeable(values: pd.DataFrame, why: pd.DataFrame, loads: pd.Series) -> tuple[pd.Index, str]:
    """The runs with a value for every clause, and why the others cannot be judged ("" if all can)."""
    ok = values.notna().all(axis=1)
    if ok.all():
        return values.index, ""
    reasons = [str(r) for col in values for r in why.loc[~values[col].notna(), col]]
    reason = "; ".join(dict.fromkeys(r for r in reasons if r))
    return values.index[ok.to_numpy(bool)], reason


@dataclass
class _Curve:
    """The judged runs of one series: each load's mean per clause and throughput, its runs, in the order from
    the easiest load to the hardest."""

    values: pd.DataFrame  # the runs' values per clause (judged runs only)
    loads: pd.Series
    x: pd.Series
    means: pd.DataFrame
    xs: pd.Series
    ns: pd.Series
    order: pd.Index
    word: str
    harder: bool

    def side(self, level: float) -> _Side:
        at = (self.loads == level).to_numpy(bool)
        return _Side(level, self.values[at], self.x[at])

    def shown(self, clauses: list[Clause], level: float) -> str:
        return ", ".join(_value_text(c, self.means.loc[level, c.text]) for c in clauses)


def _row_for(
    name: Any, g: pd.DataFrame, load: str, objective: Objective, values: pd.DataFrame, why: pd.DataFrame,
    rng: np.random.Generator,
) -> dict[str, Any]:  # fmt: skip
    """The capacity of one series (its row, without the verdict's columns)."""
    row: dict[str, Any] = dict.fromkeys(CAPACITY_COLUMNS, math.nan)
    row.update(series=name, objective=str(objective), load=load, failed_clause="", verdict="", resource="")
    loads = as_floats(g, load)
    keep, reason = _judgeable(values.loc[g.index], why.loc[g.index], loads)
    keep = keep[loads[keep].notna().to_numpy(bool)]
    if not len(keep):
        row.update(status="cannot judge", evidence=f"cannot judge {objective}: {reason or f'no run shows its {load}'}")
        return row
    x = as_floats(g, "requests_per_s")[keep]
    by = values.loc[keep].groupby(loads[keep])
    harder = more_is_harder(load)
    means = by.mean()
    curve = _Curve(values.loc[keep], loads[keep], x, means, x.groupby(loads[keep]).mean(), by.size(),
                   means.index.sort_values(ascending=harder), _load_word(load), harder)  # fmt: skip
    left = f"; {len(g) - len(keep)} of {len(g)} runs not judged ({reason})" if reason else ""
    clauses = list(objective.clauses)
    fails = [[c for c in clauses if not c.meets(means.loc[lv, c.text])] for lv in curve.order]
    floors = [c for c in clauses if c.op in (">=", ">")]
    reached = next((k for k, f in enumerate(fails) if not set(f) & set(floors)), None)
    if reached is None:  # a throughput floor no load reaches
        return _never_reached(row, curve, objective, floors, left)
    if reached:  # below the floor, a load is too light to show the throughput asked: the walk starts where it is met
        curve.order, fails = curve.order[reached:], fails[reached:]
        left += f"; below {curve.word} {_g(curve.order[0])} the throughput floor is not reached yet"
    first = next((k for k, f in enumerate(fails) if f), None)
    if first is None:
        top = curve.order[-1]
        row.update(status="met at every load", met_load=top, met_requests_per_s=curve.xs.get(top, math.nan))
        rate = f" ({_g(curve.xs[top])} requests/s)" if pd.notna(curve.xs.get(top, math.nan)) else ""
        row["evidence"] = (f"{objective} met at every {curve.word} measured, {'up' if harder else 'down'} to "
                           f"{_g(top)}{rate}: the capacity is {'above' if harder else 'below'} it" + left)  # fmt: skip
        return row
    at, failed = curve.order[first], fails[first]
    row.update(failed_load=at, failed_clause=", ".join(c.text for c in failed))
    if first == 0:
        row["status"] = "failed at the lowest load"
        row["evidence"] = _failed_at_once(curve, objective, at, failed, bool(reached)) + left
        return row
    again = [lv for lv, f in zip(curve.order[first + 1 :], fails[first + 1 :], strict=True) if not f]
    row.update(_crossed(curve, objective, curve.order[first - 1], at, failed, again, rng))
    row["evidence"] += left
    return row


def _failed_at_once(curve: _Curve, objective: Objective, at: float, failed: list[Clause], floored: bool) -> str:
    """Why a series fails at its first load judged: the lowest measured, or the first that reaches the floor."""
    if floored:
        return (f"{objective}: no {curve.word} measured meets every clause: the throughput floor is reached from "
                f"{_g(at)} on, where {curve.shown(failed, at)}")  # fmt: skip
    return (f"{objective} failed at the {'lowest' if curve.harder else 'highest'} {curve.word} measured, {_g(at)} "
            f"({curve.shown(failed, at)}): the capacity is {'below' if curve.harder else 'above'} it")  # fmt: skip


def _never_reached(
    row: dict[str, Any], curve: _Curve, objective: Objective, floors: list[Clause], left: str
) -> dict[str, Any]:
    """The row of a series whose throughput floor no load reaches."""
    best = curve.xs.idxmax() if curve.xs.notna().any() else curve.order[-1]
    row.update(status="failed at the lowest load", failed_load=curve.order[0],
               failed_clause=", ".join(c.text for c in floors))  # fmt: skip
    row["evidence"] = (f"{objective}: {', '.join(c.text for c in floors)} is reached at no {curve.word} measured "
                       f"(the most: {_g(curve.xs.get(best, math.nan))} requests/s at {_g(best)})" + left)  # fmt: skip
    return row


def _crossed(
    curve: _Curve, objective: Objective, met: float, at: float, failed: list[Clause], again: list[float],
    rng: np.random.Generator,
) -> dict[str, Any]:  # fmt: skip
    """The crossing between the load met and the load failed: its load, throughput, interval and sentence."""
    means, xs, ns, word = curve.means, curve.xs, curve.ns, curve.word
    fr = min(_fraction(c.margin(means.loc[met, c.text]), c.margin(means.loc[at, c.text])) for c in failed)
    cap, cap_x = met + fr * (at - met), xs[met] + fr * (xs[at] - xs[met])
    out: dict[str, Any] = {"status": "crossed", "met_load": met, "met_requests_per_s": xs[met],
                           "capacity_load": cap, "capacity_requests_per_s": cap_x}  # fmt: skip
    ci = _bootstrap(curve.side(met), curve.side(at), failed, rng)
    rate = f"; {_g(xs[met])} requests/s" if pd.notna(xs[met]) else ""
    about = f", about {_g(cap_x)} requests/s" if pd.notna(cap_x) else ""
    text = (f"{objective}: met at {word} {_g(met)} ({curve.shown(failed, met)}{rate}), failed at {_g(at)} "
            f"({curve.shown(failed, at)}); crossing at {word} {_g(cap)}{about}")  # fmt: skip
    if ci is None:
        text += (f"; too few runs to tell its interval ({int(ns[met])} at {_g(met)}, {int(ns[at])} at {_g(at)}; "
                 f"{MIN_REPEATS} a side)")  # fmt: skip
    else:
        out.update(lower=ci[0], upper=ci[1])
        text += f" (95% interval {_g(ci[0])} to {_g(ci[1])}, bootstrap of {int(ns[met])} and {int(ns[at])} runs)"
    if again:
        text += (f"; met again at {word} {', '.join(_g(lv) for lv in again)} past the failure: noise, or a "
                 "run to repeat")  # fmt: skip
    out["evidence"] = text
    return out


def capacity(
    runs: pd.DataFrame,
    verdicts: pd.DataFrame,
    objective: Objective | str,
    *,
    percentiles: pd.DataFrame | None = None,
    requests: pd.DataFrame | None = None,
    histogram: pd.DataFrame | None = None,
    rejudge: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """One row per series: its capacity at ``objective`` (the columns :data:`CAPACITY_COLUMNS`).

    ``runs``, ``verdicts``: a study's (:class:`~lbanalysis.analysis.engine.Study`); each series is judged
    along its verdict's ``load`` column, on its runs that are used and not a log's twin. ``rejudge``: the
    verdicts of a subset of the runs (the study's rules), for the verdict at the failing load; without it,
    the series' own verdict. ``seed``: the bootstrap's.
    """
    objective = Objective.of(objective)
    if not len(verdicts):
        return pd.DataFrame(columns=list(CAPACITY_COLUMNS))
    rng = np.random.default_rng(seed)
    values, why = run_values(runs, objective, percentiles=percentiles, requests=requests, histogram=histogram)
    rows = []
    for v, g, load, out in _series_runs(runs, verdicts):
        row = _row_for(v.series, g, load, objective, values, why, rng)
        if out:
            row["evidence"] = f"cannot judge {objective}: {out}"
        row.update(_bound(v, g, load, row, rejudge))
        rows.append(row)
    return pd.DataFrame(rows, columns=list(CAPACITY_COLUMNS))


def _series_runs(runs: pd.DataFrame, verdicts: pd.DataFrame) -> Iterator[tuple[Any, pd.DataFrame, str, str]]:
    """Each series' verdict row, its runs that count (used, not a log's twin), its load column, and why none
    counts ("" when some do)."""
    pool = runs[runs["series"].notna().to_numpy(bool)]
    for v in verdicts.itertuples():
        g = pool[(pool["series"] == v.series).to_numpy(bool)]
        if "twin_of" in g:
            g = g[g["twin_of"].isna().to_numpy(bool)]
        out = ""
        if "used" in g:
            used = g["used"].astype(bool).to_numpy() | _judged_anyway(g)
            if not used.any() and len(g):
                words = [str(w) for w in g.get("left_out", pd.Series(dtype=object)) if isinstance(w, str) and w]
                out = (
                    f"no run is used ({len(g)} left out of curves: {'; '.join(dict.fromkeys(words)) or 'see left_out'})"
                )
            g = g[used]
        yield v, g, str(getattr(v, "load", "") or "concurrency"), out


def load_table(
    runs: pd.DataFrame,
    verdicts: pd.DataFrame,
    objective: Objective | str,
    *,
    percentiles: pd.DataFrame | None = None,
    requests: pd.DataFrame | None = None,
    histogram: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per series and load measured: ``series``, ``load`` (its kind), ``level``, ``runs`` judged,
    ``requests_per_s`` (their mean), ``met`` (True, False, or NA: cannot judge), ``failed_clause`` and
    ``values`` (the means, in words), ``why`` (what is missing). What a search reads after each run.

    >>> runs = pd.DataFrame({"series": "s", "used": True, "concurrency": [1.0, 2, 2], "tool": "ab",
    ...                      "latency_used_s": [0.01, 0.02, 0.06], "requests_per_s": 100.0})
    >>> t = load_table(runs, pd.DataFrame({"series": ["s"], "load": ["concurrency"]}), "mean <= 30ms")
    >>> t[["level", "runs", "met", "failed_clause", "values"]].to_dict("records")
    [{'level': 1.0, 'runs': 1, 'met': True, 'failed_clause': '', 'values': 'mean 10 ms'}, {'level': 2.0, 'runs': 2, 'met': False, 'failed_clause': 'mean <= 30ms', 'values': 'mean 40 ms'}]
    """
    objective = Objective.of(objective)
    values, why = run_values(runs, objective, percentiles=percentiles, requests=requests, histogram=histogram)
    rows = []
    for v, g, load, _ in _series_runs(runs, verdicts):
        loads = as_floats(g, load)
        x = as_floats(g, "requests_per_s")
        for level in sorted(loads.dropna().unique()):
            at = g.index[(loads == level).to_numpy(bool)]
            vals = values.loc[at]
            judged = vals.notna().all(axis=1)
            means = vals[judged].mean()
            base = {"series": v.series, "load": load, "level": float(level), "runs": int(judged.sum()),
                    "requests_per_s": float(x[at].mean())}  # fmt: skip
            if not judged.any():
                reasons = "; ".join(dict.fromkeys(str(b) for c in vals for b in why.loc[at, c][vals[c].isna()] if b))
                rows.append({**base, "met": pd.NA, "failed_clause": "", "values": "", "why": reasons})
                continue
            failed = [c for c in objective.clauses if not c.meets(means[c.text])]
            rows.append({**base, "met": not failed, "failed_clause": ", ".join(c.text for c in failed),
                         "values": ", ".join(_value_text(c, means[c.text]) for c in objective.clauses), "why": ""})  # fmt: skip
    return pd.DataFrame(rows, columns=["series", "load", "level", "runs", "requests_per_s", "met", "failed_clause",
                                       "values", "why"])  # fmt: skip


def _judged_anyway(g: pd.DataFrame) -> np.ndarray:
    """Runs left out of curves only for showing no throughput (a published table of latencies without its runs'
    length) but with enough requests: an objective on latency or errors still judges them.

    >>> _judged_anyway(pd.DataFrame({"left_out": ["no throughput", "no throughput", ""], "requests": [9585, 20, 5]}))
    array([ True, False, False])
    """
    from .rules import THRESHOLDS

    if "left_out" not in g:
        return np.zeros(len(g), bool)
    n = as_floats(g, "attempts").fillna(as_floats(g, "requests"))
    return (g["left_out"].astype(str).eq("no throughput") & n.ge(THRESHOLDS["min_requests"])).to_numpy(bool)


#: The columns of :func:`clause_table`.
CLAUSE_COLUMNS = ("series", "clause", "part", "load", "loads", "worst_load", "value", "limit", "status", "basis",
                  "evidence")  # fmt: skip


def clause_table(
    runs: pd.DataFrame,
    verdicts: pd.DataFrame,
    objective: Objective | str,
    *,
    percentiles: pd.DataFrame | None = None,
    requests: pd.DataFrame | None = None,
    histogram: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per series and clause: does the series meet the clause at every load measured (the mean over
    each load's runs)? ``status``: ``met``, ``failed`` or ``cannot judge``; ``worst_load`` and ``value``: the
    load where the clause is nearest to (or furthest past) its limit; ``basis``: where the values came from,
    or why there are none. What ``lbanalysis check`` gates on.

    >>> runs = pd.DataFrame({"series": "s", "used": True, "concurrency": [1.0, 2, 4], "tool": "ab",
    ...                      "latency_used_s": [0.01, 0.02, 0.06], "error_share": 0.0})
    >>> t = clause_table(runs, pd.DataFrame({"series": ["s"], "load": ["concurrency"]}), "mean <= 50ms, errors <= 1%")
    >>> t[["clause", "worst_load", "value", "status"]].to_dict("records")
    [{'clause': 'mean <= 50ms', 'worst_load': 4.0, 'value': 0.06, 'status': 'failed'}, {'clause': 'errors <= 1%', 'worst_load': 1.0, 'value': 0.0, 'status': 'met'}]
    """
    objective = Objective.of(objective)
    values, why = run_values(runs, objective, percentiles=percentiles, requests=requests, histogram=histogram)
    rows = []
    for v, g, load, out in _series_runs(runs, verdicts):
        loads = as_floats(g, load)
        for c in objective.clauses:
            col = values.loc[g.index, c.text]
            ok = (col.notna() & loads.notna()).to_numpy(bool)
            base = "; ".join(dict.fromkeys(str(b) for b in why.loc[g.index, c.text] if b))
            row = {"series": v.series, "clause": c.text, "part": c.part, "load": load, "loads": 0,
                   "worst_load": math.nan, "value": math.nan, "limit": c.limit, "basis": base}  # fmt: skip
            if not ok.any():
                reason = out or base or f"no run shows its {load}"
                rows.append({**row, "status": "cannot judge", "evidence": f"cannot judge {c.text}: {reason}"})
                continue
            means = col[ok].groupby(loads[ok]).mean()
            margins = means.map(c.margin)
            if c.op in (">=", ">"):  # a throughput floor: met when the series gives it at some load (its best)
                best = margins.idxmin()
                status = "met" if margins[best] <= 0 else "failed"
                rows.append({**row, "loads": len(means), "worst_load": best, "value": means[best], "status": status,
                             "evidence": f"{c.text} {status}: the most is {_value_text(c, means[best])} at "
                                         f"{_load_word(load)} {_g(best)}"})  # fmt: skip
                continue
            worst = margins.idxmax()
            failed = margins[margins > 0]
            status = "failed" if len(failed) else "met"
            shown = _value_text(c, means[worst])
            if len(failed):
                text = (f"{c.text} failed at {len(failed)} of {len(means)} {_load_word(load)} levels "
                        f"({', '.join(_g(x) for x in failed.index)}); worst at {_g(worst)}: {shown}")  # fmt: skip
            else:
                text = (
                    f"{c.text} met at every {_load_word(load)} measured ({len(means)}); nearest at {_g(worst)}: {shown}"
                )
            left = int((~ok).sum())
            if left:
                text += f"; {left} of {len(ok)} runs not judged ({base})"
            rows.append({**row, "loads": len(means), "worst_load": worst, "value": means[worst], "status": status,
                         "evidence": text})  # fmt: skip
    return pd.DataFrame(rows, columns=list(CLAUSE_COLUMNS))


def _bound(v: Any, g: pd.DataFrame, load: str, row: dict[str, Any], rejudge: Callable | None) -> dict[str, Any]:
    """The verdict beside the capacity: the series judged up to its failing load (the whole series when it
    met the objective everywhere, or failed at once)."""
    verdict, resource, evidence = v.verdict, getattr(v, "resource", ""), v.evidence
    at = row["failed_load"]
    if rejudge is not None and row["status"] == "crossed" and pd.notna(at):
        loads = as_floats(g, load)
        upto = g[(loads <= at if more_is_harder(load) else loads >= at).to_numpy(bool)]
        if len(upto) < len(g):
            judged = rejudge(upto)
            if len(judged):
                j = judged.iloc[0]
                verdict, resource, evidence = j["verdict"], j.get("resource", ""), j["evidence"]
    way = "up" if more_is_harder(load) else "down"
    where = f"{way} to {_load_word(load)} {_g(at)}" if row["status"] == "crossed" else "over the series"
    return {
        "verdict": verdict,
        "resource": resource if isinstance(resource, str) else "",
        "evidence": f"{row['evidence']}. What bounds it ({where}): {verdict}; {evidence}",
    }
