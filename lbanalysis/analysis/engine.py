"""One answer for a folder: the study of its runs.

:func:`study` builds, once, everything the analysis says about a folder of
load-test outputs, and every report and command shows that one answer:

* **series**: the runs that can be compared (same tool, method, full URL
  with its query string, request body size, keep-alive, TLS and origin,
  differing only in the load), and why each run is in its series or left
  out of curves (a debug run, fewer than ``min_requests`` attempts, shorter
  than ``min_duration_s``, the copy of a run another file shows);
* **errors**: one error share per run from the tool's own counters, its
  denominator named, never above 100 %;
* **capacity**: the capacity behind each run, its basis (``payload`` for
  iperf's goodput, ``wire`` for a link's rate) and the iperf runs (file and
  line) behind it; the utilisation;
* **fits and knees** within each series;
* **one verdict per series** from the rules of
  :mod:`lbanalysis.analysis.rules`, with its evidence and confidence.

Statsmodels-style views: :meth:`Study.summary_frame` (one row per series),
:meth:`Study.to_dict`, :meth:`Study.summary` (short text, HTML in a notebook).

How: each piece of evidence is built once by a small function of
:mod:`lbanalysis.analysis.evidence` (errors, latency basis, twins, capacity,
load-balancer queue, CPU, cross-series) and :mod:`lbanalysis.analysis.tests`
(processes of one test); the rules table (:mod:`lbanalysis.analysis.rules`)
decides each series; this module orchestrates and assembles the
:class:`Study`.

The *origin* of a run is where it came from: an ``origin`` column (from a
path pattern or a manifest) if the runs have one, else the folder of its
file. Runs of two origins are never pooled in a series, and an iperf run
measures only the paths of runs in its own folder and the folders below
it; ``group=`` names a column whose values declare runs the same workload
(the series are then its values), ``origin="none"`` pools folders.

>>> import pandas as pd
>>> runs = pd.DataFrame({"tool": "ab", "host": "h", "concurrency": [10, 20, 40, 80] * 2,
...                      "requests_per_s": [1000.0, 1900, 2000, 2010] * 2,
...                      "latency_mean_s": [0.010, 0.0105, 0.020, 0.0398] * 2, "bytes_per_s": 2e6,
...                      "requests": 5000, "failed": 0, "non_2xx": 0, "duration_s": 5.0})
>>> s = study(runs, capacity="1 Gbit/s")
>>> s.summary_frame()[["series", "runs", "loads", "verdict", "confidence"]].to_dict("records")
[{'series': 'ab h', 'runs': 8, 'loads': 4, 'verdict': 'server saturation', 'confidence': 'medium'}]
"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .. import registry
from .evidence.capacity import with_capacity, with_path_bound, with_utilisation
from .evidence.cpu import cpu_at_loads, cpu_at_loads_by, cpu_of_runs
from .evidence.errors import ERROR_COUNTERS, count_of, error_shares, errors_per_load, errors_per_load_by
from .evidence.latency import with_latency
from .evidence.loads import LOAD_WORDS, NO_LOADS, loads_in, per_load, per_load_by, run_loads, series_load
from .evidence.peers import ROUTE_COLUMNS, Peers, peers
from .evidence.queue import Queues, snapshots
from .evidence.runs import files_from, known_tool, left_out, target
from .evidence.twins import twins, writes_file
from .latency import is_closed_loop
from .rules import RULES, THRESHOLDS, Evidence, count_reasons, judge, kept_up, kept_up_finding
from .series import as_floats, common_folder, origins_of, rows_where
from .tests import fold, series_notes
from .tests import table as tests_table

if TYPE_CHECKING:
    from ..design import Design

__all__ = [
    "ERROR_COUNTERS",
    "LOAD_WORDS",
    "ROUTE_COLUMNS",
    "Study",
    "error_shares",
    "files_from",
    "series_load",
    "study",
    "tests_of",
    "writes_file",
]


# -------------------------------------------------------------------- study ---
@dataclass
class Study:
    """The one answer for a set of runs (see the module text); build it with :func:`study`.

    ``runs``: every HTTP load-test run with what the study added (``origin``,
    ``series``, ``used``, ``left_out``, ``twin_of``, ``errors``, ``attempts``,
    ``error_share``, ``error_basis``, ``latency_used_s``, ``latency_basis``,
    ``capacity_bits_per_s``, ``capacity_basis``, ``capacity_source``,
    ``capacity_note``, ``used_bits_per_s``, ``utilisation``, ``path_bound``: "network", "capacity mismatch"
    or empty, what the run's utilisation says against the thresholds). ``series``: one
    row per series (its key). ``verdicts``: one row per series (verdict,
    confidence, evidence, notes, figures). ``knees``, ``fits``: per series.
    ``paths``: the iperf paths measured. ``thresholds``: the values used.
    ``tests``: one row per test of several processes run at once
    (:func:`lbanalysis.analysis.tests.table`); ``runs`` then holds one row per
    test and ``processes`` each process's own row (``test``, ``test_row``: the
    label of its test's row in ``runs``, its error share, ``spread``).
    """

    runs: pd.DataFrame
    series: pd.DataFrame
    verdicts: pd.DataFrame
    knees: pd.DataFrame
    fits: pd.DataFrame
    paths: pd.DataFrame
    load: str = "concurrency"
    thresholds: dict[str, float] = field(default_factory=dict)
    tests: pd.DataFrame = field(default_factory=pd.DataFrame)
    processes: pd.DataFrame = field(default_factory=pd.DataFrame)
    design: pd.DataFrame = field(default_factory=pd.DataFrame)
    objective: Any = None  # the user's objective (lbanalysis.analysis.objective.Objective), or None
    details: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)  # percentiles, requests, histogram
    rejudge: Any = field(default=None, repr=False, compare=False)  # verdicts of a subset of the runs

    def capacity(self, objective: Any = None, *, seed: int = 0) -> pd.DataFrame:
        """One row per series: the most load that meets ``objective`` (default: the study's), the first that
        fails and which clause, the crossing with its interval, and what bounds the series there
        (:func:`lbanalysis.analysis.slo.capacity`, its columns :data:`~lbanalysis.analysis.slo.CAPACITY_COLUMNS`)."""
        from .slo import capacity

        objective = objective if objective is not None else self.objective
        if objective is None:
            raise ValueError("no objective: study(..., objective='p99 <= 50ms') or capacity('p99 <= 50ms')")
        return capacity(self.runs, self.verdicts, objective, rejudge=self.rejudge, seed=seed, **self.details)

    def clauses(self, objective: Any = None) -> pd.DataFrame:
        """One row per series and clause of ``objective`` (default: the study's): met at every load measured,
        failed, or cannot judge, with the worst load and value (:func:`lbanalysis.analysis.slo.clause_table`)."""
        from .slo import clause_table

        objective = objective if objective is not None else self.objective
        if objective is None:
            raise ValueError("no objective: study(..., objective='p99 <= 50ms') or clauses('p99 <= 50ms')")
        return clause_table(self.runs, self.verdicts, objective, **self.details)

    def summary_frame(self) -> pd.DataFrame:
        """One row per series: ``series``, ``runs``, ``used``, ``loads``, ``verdict``, ``resource`` (what was used
        up: :data:`~lbanalysis.analysis.rules.RESOURCES`, empty when the evidence does not say), ``confidence``,
        ``evidence``."""
        cols = ["series", "runs", "used", "loads", "verdict", "resource", "confidence", "evidence"]
        if not len(self.verdicts):
            return pd.DataFrame(columns=cols)
        return self.verdicts[cols].reset_index(drop=True)

    def ranking(self, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
        """Setups compared where they ran at one load: per workload and load, the setups ordered by requests/s
        with the interval from their repeats, latency, whether each differs from the next beyond noise, and a
        caveat (:func:`lbanalysis.analysis.ranking.ranking`; columns :data:`~lbanalysis.schema.design.RANKING`)."""
        from .ranking import ranking

        return ranking(self.runs, n_boot=n_boot, seed=seed)

    def verdict_of(self, series: str) -> dict[str, Any]:
        """The verdict row of one series, as a dict."""
        return self.verdicts.set_index("series").loc[series].to_dict()

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain Python: parameters, series (with their verdicts, runs, knees) and paths."""
        per_run = self.runs.copy()
        series = []
        for _, v in self.verdicts.iterrows():
            mine = per_run[per_run["series"] == v["series"]]
            series.append(
                {
                    **{k: _plain(x) for k, x in v.items() if k != "figures"},
                    "figures": {k: _plain(x) for k, x in (v.get("figures") or {}).items()},
                    "runs_detail": [
                        {k: _plain(r.get(k)) for k in _RUN_FIELDS if k in mine} for _, r in mine.iterrows()
                    ],
                }
            )
        return {
            "load": self.load,
            "thresholds": dict(self.thresholds),
            "series": series,
            "paths": [{k: _plain(x) for k, x in r.items()} for _, r in self.paths.iterrows()],
        }

    def summary(self) -> Summary:
        """A short summary: how many series, their verdicts, one line each."""
        return Summary(self)

    def __repr__(self) -> str:
        return str(self.summary())

    def _repr_html_(self) -> str:
        return self.summary()._repr_html_()


_RUN_FIELDS = ("source", "run", "line", "origin", "used", "left_out", "twin_of", "error_share", "error_basis",
               "capacity_bits_per_s", "capacity_basis", "capacity_source", "utilisation")  # fmt: skip


def _plain(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if v is None or (not isinstance(v, str) and pd.api.types.is_scalar(v) and pd.isna(v)):
        return None
    if isinstance(v, np.generic):
        return v.item()
    return v


@dataclass
class Summary:
    """The short text of a :class:`Study` (``str()``), and its HTML in a notebook."""

    study: Study

    def _lines(self) -> list[str]:
        v = self.study.verdicts
        if not len(v):
            return ["No HTTP load-test series."]
        counts = v["verdict"].value_counts()
        head = f"{len(v)} series: " + ", ".join(f"{k} ({n})" for k, n in counts.items()) + "."
        return [head] + [
            f"{r.series}: {r.verdict}{f' ({r.resource})' if getattr(r, 'resource', '') else ''}"
            f"{f' ({r.confidence} confidence)' if r.confidence else ''}. {r.evidence}."
            for r in v.itertuples()
        ]

    def __str__(self) -> str:
        return "\n".join(self._lines())

    def _repr_html_(self) -> str:
        lines = self._lines()
        frame = self.study.summary_frame()
        return f"<p>{html.escape(lines[0])}</p>" + (frame.to_html(index=False) if len(frame) else "")


def _read_path(data: Any) -> Any:
    """``data`` itself, or the Dataset of a folder, file or glob given as a path (every table, skips warned of)."""
    if not isinstance(data, (str, os.PathLike)):
        return data
    from ..reader import read  # the reader sits above the analysis

    return read(data, table="all", errors="warn")


def _given(data: Any, cpu: Any, phases: Any, requests: Any) -> tuple[pd.DataFrame, ...]:
    """The runs, CPU samples, load-balancer servers, phases and requests of ``data`` (a Dataset or a runs frame),
    those given as arguments first."""
    servers = None
    if isinstance(data, pd.DataFrame):
        runs = data
    else:
        runs = data.runs
        if cpu is None:
            cpu = getattr(data, "cpu", None)
            cpu = cpu if isinstance(cpu, pd.DataFrame) else None
        servers = getattr(data, "servers", None)
        servers = servers if isinstance(servers, pd.DataFrame) else None
        phases = data.phases if phases is None else phases
        requests = data.requests if requests is None else requests
    if requests is not None and not isinstance(requests, pd.DataFrame):
        requests = None  # a Dask frame: the log means are not computed here
    return runs, cpu, servers, phases, requests


def _thresholds(capacity_basis: str, thresholds: dict[str, float]) -> dict[str, float]:
    """The thresholds of the rules, the given ones over the defaults (an unknown name is an error)."""
    unknown = set(thresholds) - set(THRESHOLDS)
    if unknown:
        raise TypeError(f"unknown threshold(s): {', '.join(sorted(unknown))}; known: {', '.join(THRESHOLDS)}")
    if capacity_basis not in ("auto", "wire", "payload"):
        raise ValueError(f"capacity_basis must be 'auto', 'wire' or 'payload', not {capacity_basis!r}")
    return {**THRESHOLDS, **{k: float(v) for k, v in thresholds.items() if v is not None}}


def _by_kind(runs: pd.DataFrame, iperf: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The HTTP load-test runs and the iperf runs (among the runs, or given for every run: ``iperf``)."""
    tools = runs["tool"] if "tool" in runs else pd.Series(pd.NA, index=runs.index, dtype="string")
    kind = tools.map(lambda x: registry.get_tool(x).kind if known_tool(x) else "http-load")  # no tool: a load test
    iperf_runs = runs[(kind == "network").to_numpy(bool)]
    if iperf is not None:
        iperf_runs = (iperf if isinstance(iperf, pd.DataFrame) else iperf.runs).assign(_origin="")
    return runs[(kind == "http-load").to_numpy(bool)].copy(), iperf_runs


def _named(http: pd.DataFrame, own: list[str], by: Any, exclude: Sequence[str], design: Design | None = None
           ) -> pd.DataFrame:  # fmt: skip
    """The runs with their ``series`` and ``axis`` (empty: the load; else the scale factor the series runs
    along): a log joins its summary's series (one run seen in two files)."""
    from .series import assign_series

    http["series"] = assign_series(http[own], by, exclude, design) if len(http) else pd.Series(dtype="string")
    http["axis"] = ""
    if design is not None and len(http):
        http = _partial_targets(http, design)
    if design is not None and len(http):  # what was sent, and the setup compared: for the ranking of setups
        setups = [c for c in design.setup_columns if c in http.columns]
        http["workload"] = assign_series(_what_was_sent(http[own]), by, [*exclude, *setups], design)
        http["setup"] = _setup_words(http, setups)
    if design is not None and design.scale_columns and len(http):
        http = _along_scale(http, design.scale_columns[0])
    twin = http["twin_of"].notna().to_numpy(bool)
    if twin.any():
        http.loc[twin, "series"] = http.loc[http.loc[twin, "twin_of"].to_numpy(), "series"].to_numpy()
        http.loc[twin, "axis"] = http.loc[http.loc[twin, "twin_of"].to_numpy(), "axis"].to_numpy()
    return http


def _partial_targets(http: pd.DataFrame, design: Design) -> pd.DataFrame:
    """A run whose output shows only part of its target (ab that stopped after 'Benchmarking host': the host,
    not the port or path) joins the one series of the same tool, host and setup whose runs show it all; with
    none or several such series, it stays apart."""
    url = http["url"] if "url" in http else pd.Series(pd.NA, index=http.index)
    host = http["host"].astype("string") if "host" in http else pd.Series(pd.NA, index=http.index, dtype="string")
    partial = (url.isna() & host.notna() & http["twin_of"].isna()).to_numpy(bool)
    if not partial.any():
        return http
    named = design.table.loc[design.table["role"].isin(["setup", "workload"]), "column"]
    # the origin too where it still sets series apart (a pattern or manifest, an origin column given)
    origin = ["_origin"] if (design.declared and not design.pattern) or "origin" in http.columns else []
    setups = [c for c in dict.fromkeys([*design.setup_columns, *named, *origin]) if c and c in http.columns]
    key = http[["tool", *setups]].astype("string").fillna("").agg("|".join, axis=1) + "|" + host.fillna("")
    whole = ~partial & url.notna().to_numpy(bool)
    series_of = http.loc[whole, "series"].groupby(key[whole]).unique()
    for i in http.index[partial]:
        found = series_of.get(key[i])
        if found is not None and len(found) == 1:
            http.loc[i, "series"] = found[0]
    return http


def _what_was_sent(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs without where they were sent (host and port): setups on other hosts or ports (a proxy on :2000,
    the server direct on :5000) sent one workload when the path, query, method and settings agree."""
    out = runs.drop(columns=[c for c in ("host", "port") if c in runs])
    if "url" in out:
        out["url"] = out["url"].astype("string").str.replace(r"^\w+://[^/]*", "", regex=True)
    return out


def _setup_words(http: pd.DataFrame, setups: list[str]) -> pd.Series:
    """Each run's setup as words: the values of the setup factors (``bun elysia``, ``lb=haproxy``)."""
    from .series import setting_word

    if not setups:
        return pd.Series("", index=http.index, dtype=object)
    return pd.Series([" ".join(w for k, v in zip(setups, vals, strict=True)
                               if (w := setting_word(k, v, []) if not (not isinstance(v, str) and pd.isna(v))
                                   else "")) for vals in http[setups].itertuples(index=False)],
                     index=http.index, dtype=object)  # fmt: skip


def _along_scale(http: pd.DataFrame, scale: str) -> pd.DataFrame:
    """Each series whose runs vary the scale factor at one load runs along it (``axis`` = its name); one that
    varies the load too is split by the scale factor's values (a curve per number of servers)."""
    from .series import setting_word

    values = as_floats(http, scale)
    for name, idx in http.groupby("series", sort=False).groups.items():
        v = values.loc[idx]
        if v.nunique() < 2:
            continue
        g = http.loc[idx]
        if any(as_floats(g, c).nunique() > 1 for c in ("concurrency", "rate_target_per_s")):
            http.loc[idx, "series"] = [f"{name} {setting_word(scale, x, [])}" if pd.notna(x) else name for x in v]
        else:
            http.loc[idx, "axis"] = scale
    return http


def study(
    data: Any,
    *,
    capacity: Any = None,
    capacity_basis: str = "auto",
    iperf: Any = None,
    group: str | None = None,
    by: str | Sequence[str] | None = None,
    load: str = "concurrency",
    origin: str | None = "folder",
    phases: pd.DataFrame | None = None,
    requests: pd.DataFrame | None = None,
    exclude: Sequence[str] = (),
    cpu: pd.DataFrame | None = None,
    test: str | Sequence[str] = "test",
    design: Mapping[str, str] | None = None,
    objective: Any = None,
    **thresholds: float,
) -> Study:
    """Study a folder's runs once: series, errors, capacity, fits, knees and a verdict per series.

    ``data``: a :class:`~lbanalysis.reader.Dataset` (its ``phases`` and
    ``requests`` give ab its measured latency), a runs frame, or a folder,
    file or glob, read as ``read(path, table="all", errors="warn")`` reads it
    (each skipped file a warning).
    ``capacity``: a rate for every path (``"1 Gbit/s"``), a mapping from
    target host to rate, :func:`~lbanalysis.capacity.link_capacity` output,
    or ``None``: a ``capacity`` column of the runs (a manifest), else the
    iperf runs among ``data`` (or in ``iperf``, a frame or a Dataset, which
    then applies to every run), each applied only to the runs of its origin.
    ``capacity_basis``: ``"payload"`` (a goodput), ``"wire"`` (a link's
    rate) or ``"auto"`` (iperf: payload; given: wire). ``group``: a column
    whose values declare runs the same workload (one series per value);
    ``by``: the columns of the series key. ``origin``: ``"folder"``, a
    column, or ``"none"``. ``exclude``: columns left out of the series key
    (the column two setups are compared by). ``cpu``: CPU samples paired with
    the runs (the ``cpu`` table; default: the Dataset's), from which each
    verdict names the resource used up (``resource``). ``test``: the column
    (or columns) declaring which runs are processes of one test (runs that
    declare none and overlap in time against one target are one test too):
    each test is judged as one run, its load and rate the sums of its
    processes' (:mod:`lbanalysis.analysis.tests`). ``design``: roles of the
    experiment's factors (``{"path[0]": "repeat"}``) over those inferred
    (:mod:`lbanalysis.design`; the Dataset's own ``design`` is the start):
    a series is the runs of one tool, target and workload and of every
    ``setup`` factor, never split by a load, repeat or scale value; a series
    that varies a ``scale`` factor at one load runs along it (``axis``).
    Other keywords: thresholds of :data:`~lbanalysis.analysis.rules.THRESHOLDS`. ``objective``: the user's
    objective (``"p99 <= 50ms, errors <= 1%"``, :class:`~lbanalysis.analysis.objective.Objective`), whose
    capacity per series :meth:`Study.capacity` gives.
    """
    t = _thresholds(capacity_basis, thresholds)
    data = _read_path(data)
    if objective is not None:
        from .objective import Objective

        objective = Objective.of(objective)
    runs, cpu, servers, phases, requests = _given(data, cpu, phases, requests)
    runs = runs.copy() if runs.index.is_unique else runs.reset_index(drop=True)  # rows are named by their label
    runs["_origin"] = origins_of(runs, origin)
    http, iperf_runs = _by_kind(runs, iperf)
    # the folders are read as the design unless the runs are grouped by hand or the folders pooled (origin=)
    plan = _design(data, http, design) if by is None and group is None and origin == "folder" else None
    if plan is not None:
        http = http.join(plan.columns[[c for c in plan.columns.columns if c not in http.columns]])
    own = list(http.columns)
    http["_target"] = target(http)
    http = with_latency(http, phases, requests)
    http["twin_of"] = twins(http, requests)
    if plan is not None:  # after the twins: a per-request log shows no load, and keeps none
        http = _with_loads(http, plan)
    http, processes = fold(
        http, requests, test=test, apart=plan.setup_columns if plan is not None else ()
    )  # the processes of one test: one row, judged as one run
    http = left_out(pd.concat([http, error_shares(http)], axis=1), t)
    http, paths = with_capacity(http, capacity, capacity_basis, iperf_runs, explicit=iperf is not None)
    http = _named(with_path_bound(with_utilisation(http), t), own, by if by is not None else group, exclude, plan)
    cpu_runs = cpu_of_runs(cpu, processes, http)  # a test's CPU: every process's samples, paired with the test's row
    verdicts, knees, fits = _judge_all(http, load, t, servers, root=common_folder(runs), cpu=cpu_runs)
    if len(processes):  # each process with its own error share, in its test's series
        processes = pd.concat([processes, error_shares(processes)], axis=1)
        processes["series"] = http.loc[processes["test_row"], "series"].to_numpy()
    histogram = _table(data, "histogram")
    tests = tests_table(http, processes, requests, load, histogram)
    judged, root = http, common_folder(runs)

    def rejudge(sub: pd.DataFrame) -> pd.DataFrame:  # the verdicts of some of the runs (capacity at a load)
        return _judge_all(judged.loc[sub.index], load, t, servers, root=root, cpu=cpu_runs)[0]

    details = {"percentiles": _table(data, "percentiles"), "requests": requests, "histogram": histogram}
    http = http.drop(columns=["origin", "_target", "_total_mean_s", "_log_of"], errors="ignore").rename(
        columns={"_origin": "origin"}
    )
    design_table = plan.table if plan is not None else pd.DataFrame(columns=["factor", "source", "role", "values",
                                                                              "evidence"])  # fmt: skip
    return Study(http, _series_rows(http, load), verdicts, knees, fits, paths, load, t, tests, processes,
                 design=design_table, objective=objective, details=details, rejudge=rejudge)  # fmt: skip


def _with_loads(http: pd.DataFrame, plan: Design) -> pd.DataFrame:
    """A run whose output shows no load (ab that printed nothing after its banner) takes it from its own name,
    where the design reads a factor of the names as that load (``9000-conc-300/``): a value the file's own path
    states, as a pattern would, never a neighbour's. ``load_from`` says which runs took it."""
    for factor, col in plan.load_of.items():
        if factor not in http or col not in ("concurrency", "rate_target_per_s") or factor == col:
            continue
        shown = as_floats(http, col)
        named = pd.to_numeric(http[factor], errors="coerce")
        # only a run that shows no load at all (a rate shown is its load: vegeta's manifest load is its rate)
        none = as_floats(http, "concurrency").isna() & as_floats(http, "rate_target_per_s").isna()
        fill = (none & named.notna() & http["twin_of"].isna()).to_numpy(bool)
        if fill.any():
            http[col] = shown.where(~fill, named)
            http.loc[fill, "load_from"] = f"{col} from the name ({factor})"
    return http


def _design(data: Any, http: pd.DataFrame, overrides: Mapping[str, str] | None) -> Design | None:
    """The design of the HTTP runs, from what the read knew (a Dataset's ``design_inputs``: the columns a pattern,
    the manifests and lines inside the files gave, the roles given then), ``overrides`` over those roles; None for
    no runs."""
    from ..design import infer

    if not len(http):
        return None
    inputs = dict(getattr(data, "design_inputs", None) or {})
    roles = {**dict(inputs.pop("overrides", None) or {}), **dict(overrides or {})}  # type: ignore[call-overload]
    return infer(http, **inputs, overrides=roles)  # type: ignore[arg-type]


def _table(data: Any, name: str) -> pd.DataFrame | None:
    """A detail table of a Dataset (None for a runs frame, or a Dask table)."""
    table = getattr(data, name, None)
    return table if isinstance(table, pd.DataFrame) else None


# ------------------------------------------------------------------ judging ---
#: The columns of the runs that :func:`_judge_all` reads for each series (besides the load).
_JUDGED = (
    "series", "source", "run", "line", "tool", "_origin", "used", "left_out", "twin_of", "error", "errors",
    "attempts", "error_share", "error_basis", "requests", "requests_per_s", "duration_s", "concurrency",
    "rate_target_per_s", "rate_sent_per_s", "iterations", "iterations_dropped", "socket_errors_connect",
    "latency_mean_s", "latency_mean_step_s", "latency_used_s", "latency_step_s", "_latency_note", "utilisation",
    "used_bits_per_s", "capacity_bits_per_s", "capacity_basis", "capacity_source",
    "capacity_note", "delay_s", "think_time_s", "think_time_source", "iterations_per_s", "iteration_mean_s",
    "ramped", "benchmark_mode", "_target", "method", "keepalive", "host", "port", "path",
    *ROUTE_COLUMNS, "test", "processes", "test_note",
)  # fmt: skip

#: The columns among :data:`_JUDGED` read as numbers.
_NUMBERS = (
    "errors", "attempts", "error_share", "requests", "requests_per_s", "duration_s", "concurrency",
    "rate_target_per_s", "rate_sent_per_s", "iterations", "iterations_dropped", "socket_errors_connect",
    "latency_mean_s", "latency_mean_step_s", "latency_used_s", "latency_step_s", "utilisation", "used_bits_per_s",
    "capacity_bits_per_s", "delay_s", "think_time_s", "iterations_per_s", "iteration_mean_s", "ramped", "processes",
)  # fmt: skip


@dataclass
class _Context:
    """What every series of a study is judged with."""

    load: str
    t: dict[str, float]
    root: str
    cpu: pd.DataFrame | None
    peers: Peers
    queues: Queues


@dataclass
class _Curves:
    """What the curve of every series is made of, built in one pass over the used runs of all the series: each
    series' load column (:func:`~lbanalysis.analysis.evidence.loads.series_load`), its rows per load
    (:func:`~lbanalysis.analysis.evidence.loads.per_load`) and CPU figures per load (``cpu``), built over the
    used runs (a series without any is in none of them); the errors per load of the runs that are not twins
    (``errors``: :func:`~lbanalysis.analysis.evidence.errors.errors_per_load`)."""

    load_col: dict[Any, str]
    loads: dict[Any, pd.DataFrame]
    cpu: dict[Any, pd.DataFrame]
    errors: dict[Any, pd.DataFrame]

    @classmethod
    def of(cls, narrow: pd.DataFrame, load0: str, cpu: pd.DataFrame | None) -> _Curves:
        """The curves of the series of ``narrow`` (the judged columns of the runs), at once."""
        used = narrow[narrow["used"].to_numpy(bool)]
        cols, values = run_loads(used, load0, "series")
        not_twin = narrow[narrow["twin_of"].isna().to_numpy(bool)]
        errors = errors_per_load_by(not_twin, loads_in(not_twin, cols, load0, "series"), "series")
        return cls(cols, per_load_by(used, values, "series"), cpu_at_loads_by(cpu, used, values, "series"), errors)


@dataclass
class _Series:
    """The runs of one series as the rules see them: all, not a twin, used; its tool, loop, load and curve
    (``curves``: built for all the series at once, else from these runs)."""

    name: Any
    g: pd.DataFrame
    load0: str
    curves: _Curves | None = None

    def __post_init__(self) -> None:
        g, curves = self.g, self.curves
        self.not_twin = rows_where(g, g["twin_of"].isna())
        self.used = rows_where(g, g["used"])
        self.tool = str(g["tool"].iloc[0]) if "tool" in g else ""
        self.rate = as_floats(self.used, "rate_target_per_s")
        self.closed = is_closed_loop(self.tool, self.rate.mean() if self.rate.notna().any() else None)
        self.load_col = curves.load_col.get(self.name, self.load0) if curves else series_load(self.used, self.load0)
        self.load = self.load_col if self.load_col == self.load0 else LOAD_WORDS.get(self.load_col, self.load_col)
        if curves and self.load_col in self.used and self.name in curves.loads:
            self.loads = curves.loads[self.name]
        else:
            has_load = self.load_col in self.used and len(self.used)
            self.loads = per_load(self.used, self.load_col) if has_load else NO_LOADS

    def cpu(self, by_run: pd.DataFrame | None) -> pd.DataFrame | None:
        """The CPU figures of the used runs per load (``by_run``: the figures of every run)."""
        if self.curves and self.name in self.curves.cpu:
            return self.curves.cpu[self.name]
        return cpu_at_loads(by_run, self.used, self.load_col)

    def errors(self) -> pd.DataFrame:
        """The errors per load of the runs that are not twins."""
        if self.curves and self.name in self.curves.errors:
            return self.curves.errors[self.name]
        return errors_per_load(self.not_twin, self.load_col)

    def joined(self, col: str) -> str:
        """The distinct texts of a column over the runs that are not twins, joined."""
        return ", ".join(dict.fromkeys(s for s in self.not_twin[col] if isinstance(s, str) and s))


def _evidence(s: _Series, ctx: _Context) -> Evidence:
    """The :class:`~lbanalysis.analysis.rules.Evidence` of one series, from the evidence built for the study."""
    info = registry.get_tool(s.tool) if known_tool(s.tool) else None
    notes = [n for n in s.used["_latency_note"].tolist() if not (isinstance(n, str) and n == "")]
    measured = rows_where(s.not_twin, as_floats(s.not_twin, "requests_per_s").gt(0))
    network = s.load_col in measured and measured["capacity_bits_per_s"].notna().any()
    others, direct = ctx.peers.get(s.name, (None, None))
    return Evidence(
        load=s.load,
        loads=s.loads,
        network=per_load(measured, s.load_col) if network else None,
        errors=s.errors(),
        tool=s.tool,
        closed=s.closed,
        latency_note=str(notes[0]) if notes else "",
        excluded=[str(w) for w in s.not_twin["left_out"] if w],
        unseen_think_time=info.unseen_think_time if info else "",
        think_source=s.joined("think_time_source") if "think_time_source" in s.not_twin else "",
        basis=s.joined("capacity_basis"),
        capacity_source=files_from(s.joined("capacity_source"), ctx.root),
        server_side=ctx.queues.of(s.g),
        cpu=s.cpu(ctx.cpu),
        others=others,
        direct=direct,
    )


def _rate_note(s: _Series, e: Evidence, out: dict[str, Any]) -> str:
    """Open loop: the rate asked and given at the highest load, unless the rule's evidence already compares them;
    else the latency's note where the verdict rests on the latency."""
    rated = s.loads[s.loads["rate"] > 0] if len(s.loads) else s.loads
    said_rate = RULES[out["rule"]].check is kept_up_finding  # its evidence already compares the rate and the answers
    if not s.closed and s.rate.notna().any() and len(rated) and not said_rate:
        top = rated.index.max()  # the highest load whose runs say the rate they were asked for
        want, got = rated.loc[top, "rate"], rated.loc[top, "x"]
        return (f"at {s.load} {top:g} the tool was asked for a fixed {want:,.10g} requests/s (open loop) and gave "
                f"{got:,.0f} ({got / want * 100:.0f}%): connections idle between requests are no sign of a "
                "client that could not keep up")  # fmt: skip
    if e.latency_note and out["verdict"] not in ("errors", "network", "capacity mismatch", "cannot tell"):
        return e.latency_note if e.latency_note not in out["notes"] else ""
    return ""


def _notes(s: _Series, e: Evidence, out: dict[str, Any]) -> list[str]:
    """The notes of a verdict: the rule's, the rate or latency note, capacity and test notes, runs left out, twins,
    a zero latency."""
    notes = list(out["notes"])
    rate_note = _rate_note(s, e, out)
    if rate_note:
        notes.append(rate_note)
    notes += [n for n in dict.fromkeys(s.g["capacity_note"].tolist()) if n] + series_notes(s.not_twin)
    n_out = int((~s.not_twin["used"].to_numpy(bool)).sum())
    if n_out and len(s.loads):
        notes.append(f"{n_out} of {count_of(len(s.not_twin), 'run')} left out of curves: {count_reasons(e.excluded)}")
    if len(s.g) > len(s.not_twin):
        notes.append(f"{count_of(len(s.g) - len(s.not_twin), 'run')} also read from their own log (counted once)")
    mean, step = as_floats(s.used, "latency_mean_s").to_numpy(), as_floats(s.used, "latency_mean_step_s").to_numpy()
    if ((mean == 0) & ~(step > 0)).any():
        from .little import ZERO_LATENCY

        notes.append(ZERO_LATENCY)
    return notes


def _verdict_row(s: _Series, e: Evidence, out: dict[str, Any], notes: list[str], load0: str) -> dict[str, Any]:
    """One row of the verdicts table."""
    loads = s.loads
    top = loads.index.max() if len(loads) else math.nan
    evidence = "; ".join([out["evidence"], *[n for n in dict.fromkeys(notes) if n != out["evidence"]]])
    return {
        "series": s.name, "origin": str(s.g["_origin"].iloc[0]), "tool": s.tool, "runs": len(s.not_twin),
        "used": len(s.used), "loads": len(loads), "verdict": out["verdict"], "resource": out["resource"],
        "confidence": out["confidence"],
        "evidence": evidence, "rule": out["rule"], "notes": notes, "figures": out["figures"],
        f"top {load0}": top if s.load_col == load0 else math.nan,
        "load": s.load_col,
        "requests_per_s": loads.loc[top, "x"] if len(loads) else math.nan,
        "latency_mean_s": loads.loc[top, "r"] if len(loads) else math.nan,
        "error_share": e.errors["share"].max() if len(e.errors) else math.nan,
        "utilisation": e.network["util"].max() if e.network is not None and len(e.network) else math.nan,
        "capacity_basis": e.basis, "capacity_source": e.capacity_source,
    }  # fmt: skip


def _judge_all(
    http: pd.DataFrame,
    load: str,
    t: dict[str, float],
    servers: pd.DataFrame | None = None,
    *,
    root: str = "",
    cpu: pd.DataFrame | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The verdict of each series (the rules table on its evidence), its knee, and the fits of every series."""
    from .series import MIN_LOADS, fit_series

    data = http.dropna(subset=["series"])
    axes = [a for a in data["axis"].unique() if a] if "axis" in data else []
    # the loop reads these columns only: a narrow frame is far cheaper to cut per series than the whole runs table
    narrow = data[[c for c in dict.fromkeys((load, *_JUDGED, "axis", *axes)) if c in data]]
    # numbers converted once here, not once per series (``as_floats`` takes plain floats as they are); the copy
    # consolidates the columns into one block per kind, which each cut of a series then takes in one step
    narrow = narrow.assign(**{c: as_floats(narrow, c) for c in (load, *_NUMBERS) if c in narrow}).copy()
    ctx = _Context(load, t, root, cpu, peers(narrow, load, servers), Queues(snapshots(servers)))
    curves = _Curves.of(narrow, load, cpu)
    rows, knee_rows = [], []
    scale_fits = []
    for name, g in narrow.groupby("series", sort=True):
        axis = str(g["axis"].iloc[0]) if "axis" in g else ""
        if axis:  # along a scale factor at one load: the curve over it, and the bound at its top by the rules
            row, curve = _judge_scale(name, g, axis, ctx)
            rows.append(row)
            used_g = g[g["used"]]
            if len(curve) >= MIN_LOADS["knee"]:
                knee_rows.append(_knee(name, used_g, curve, axis, t, closed=False))
            scale_fits.append(used_g[["series", "requests_per_s"]].assign(_along=as_floats(used_g, axis)))
            continue
        s = _Series(name, g, load, curves)
        e = _evidence(s, ctx)
        out = judge(e, **t)
        rows.append(_verdict_row(s, e, out, _notes(s, e, out), load))
        if len(s.loads) >= MIN_LOADS["knee"]:
            knee_rows.append(_knee(name, s.used, s.loads, s.load, t, closed=s.closed))
    used = data[data["used"]]
    if axes:
        used = used[used["axis"] == ""]
    fits = fit_series(used, load=load, by="series")[0] if len(used) and load in used else pd.DataFrame()
    if scale_fits:  # along each one's scale factor: a line, Amdahl and the USL over N, each in one pass
        both = pd.concat(scale_fits, ignore_index=True)
        along = [fit_series(both, load="_along", by="series", model=m)[0] for m in ("linear", "amdahl", "usl")]
        fits = pd.concat([f for f in (fits, *along) if len(f)], ignore_index=True)
    return pd.DataFrame(rows), pd.DataFrame(knee_rows), fits


def _judge_scale(name: str, g: pd.DataFrame, axis: str, ctx: _Context) -> tuple[dict[str, Any], pd.DataFrame]:
    """The verdict row of a series along a scale factor: the throughput per value (what each added unit gave,
    where adding stops paying), then the bound at the top value by the same rules as a series of its own."""
    from .scaling import along

    used = g[g["used"]]
    curve = per_load(used.assign(**{axis: as_floats(used, axis)}), axis) if len(used) else NO_LOADS
    top_value = curve.index.max() if len(curve) else as_floats(g, axis).max()
    at_top = g[as_floats(g, axis).eq(top_value).to_numpy(bool)]
    s = _Series(name, at_top, ctx.load)
    e = _evidence(s, ctx)
    out = judge(e, **ctx.t)
    row = _verdict_row(s, e, out, _notes(s, e, out), ctx.load)
    said = along(curve, axis, ctx.t["flat_gain"])
    row.update(
        runs=int(g["twin_of"].isna().sum()), used=len(used), loads=len(curve), load=axis,
        evidence=f"{said.sentence}; at {axis} {top_value:g}: {row['evidence']}", scaling=said.sentence,
        figures={**row["figures"], **said.figures},
    )  # fmt: skip
    return row, curve


def _knee(
    name: str, used: pd.DataFrame, loads: pd.DataFrame, load: str, t: dict[str, float], *, closed: bool = True
) -> dict[str, Any]:
    """The knee of one series: where throughput stops growing, whether noise was measured (repeats).

    For a fixed rate (open loop), the highest rate the answers kept up with (``keep_up_share``): past it
    the answers fall behind the rate asked, whether throughput still grows or not.
    """
    x = loads["x"]
    knee = x.index[x >= (1 - t["flat_gain"]) * x.max()].min()
    rate = loads["rate"] if "rate" in loads else pd.Series(math.nan, index=loads.index)
    if not closed and (rate > 0).any():
        kept = loads.index[kept_up(x, rate, t["keep_up_share"]).to_numpy(bool)]
        knee = kept.max() if len(kept) else loads.index.min()
    top = loads.index.max()
    repeats = bool((loads["runs"] >= 2).any())
    r0, r1 = loads.loc[knee, "r"], loads.loc[top, "r"]
    return {
        "series": name,
        f"knee {load}": knee,
        "plateau req/s": float(x[x.index >= knee].mean()),
        "best req/s": float(x.max()),
        f"best {load}": x.idxmax(),
        "saturated": bool(knee < top),
        "latency_rising": bool(r1 > r0 * (1 + t["latency_growth"])) if pd.notna(r0) and pd.notna(r1) else None,
        "noise": "measured (repeats)" if repeats else "unknown (one run per load)",
        "significant": bool(knee < top and repeats),
    }


def _series_rows(http: pd.DataFrame, load: str) -> pd.DataFrame:
    """One row per series: its key (tool, origin, method, target, body, keep-alive, TLS) and its runs."""
    if not len(http):
        return pd.DataFrame(columns=["series", "tool", "origin", "target", "runs", "used", "loads"])
    keep = [c for c in ("series", "tool", "origin", "method", "keepalive", "used") if c in http]
    targets = target(http).to_numpy()  # by position: a runs table given by hand may repeat index labels
    loads = as_floats(http, load) if load in http else pd.Series(np.nan, index=http.index)
    narrow = http[keep].assign(_pos=np.arange(len(http)), _load=loads.where(http["used"].to_numpy(bool)))
    by = narrow.dropna(subset=["series"]).groupby("series", sort=True)
    counts = pd.DataFrame({"pos": by["_pos"].first(), "runs": by.size(), "used": by["used"].sum(),
                           "loads": by["_load"].nunique() if load in http else 0})  # fmt: skip
    pos = counts["pos"].to_numpy()
    first = narrow.iloc[pos]  # each series' first run

    def first_of(col: str) -> list[Any]:  # the values of the first runs
        return first[col].tolist() if col in first else [None] * len(first)

    values = (counts.index, first_of("tool"), first_of("origin"), first_of("method"), targets[pos].tolist(),
              first_of("keepalive"), counts["runs"].tolist(), counts["used"].tolist(), counts["loads"].tolist())  # fmt: skip
    return pd.DataFrame([dict(zip(_SERIES_ROW, row, strict=True)) for row in zip(*values, strict=True)])


#: The columns of :func:`_series_rows`.
_SERIES_ROW = ("series", "tool", "origin", "method", "target", "keepalive", "runs", "used", "loads")


def tests_of(data: Any, **study_options: Any) -> pd.DataFrame:
    """One row per test of several processes run at once, as the study judges it (its ``tests``).

    Its load is the sum of its processes' loads, requests/s the sum of their
    own rates, the error share from the summed counters, percentiles merged
    from per-request logs or left per process, and the spread between
    processes (:mod:`lbanalysis.analysis.tests`, :func:`tests.table`).

    >>> runs = pd.DataFrame({"source": ["d/a", "d/b"], "run": 0, "tool": "ab", "url": "http://h/", "test": "t1",
    ...     "concurrency": 25, "requests": [1000, 1200], "failed": 0, "duration_s": 4.0,
    ...     "requests_per_s": [250.0, 300.0]})
    >>> tests_of(runs)[["test", "processes", "load", "requests", "requests_per_s", "error_share"]].to_dict("records")
    [{'test': 't1', 'processes': 2, 'load': 50.0, 'requests': 2200, 'requests_per_s': 550.0, 'error_share': 0.0}]
    """
    return study(data, **study_options).tests
