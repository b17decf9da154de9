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
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import registry
from ..capacity import capacity_per_run, within
from ..schema import COMMAND_REFUSED, NO_RESULT_SHOWN
from ..text import command_argv
from .latency import is_closed_loop
from .resources import cpu_by_run
from .rules import RULES, THRESHOLDS, Evidence, count_reasons, judge, kept_up, kept_up_finding
from .series import common_folder, origins_of
from .tests import cpu_of_tests, fold, series_notes
from .tests import table as tests_table

__all__ = ["ERROR_COUNTERS", "Study", "error_shares", "study", "tests_of"]

# ------------------------------------------------------------------ errors ---
#: How each tool's own counters make one error share, as (columns that must be present, failed attempts
#: without an answer, answers that are errors, the denominator in words). The first line whose columns the
#: run has is used; the share is failures / (answers + failures without an answer), never above 1.
ERROR_COUNTERS: tuple[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], str], ...] = (
    # gobench, k6, Locust, oha, bombardier, vegeta, JMeter results files, httperf (its Errors; bad answers: Reply
    # status 4xx and 5xx), Gatling (KO without an answer; bad answers: the other KO): network failures have no
    # answer; bad answers are the responses not counted successful (first: Locust also fills wrk's non_2xx_3xx with
    # its HTTP errors)
    (("failed_network",), ("failed_network",), ("_bad_answers",), "requests + network failures"),
    # JMeter's console and statistics.json: samples and failed samples, answered or not (which got no answer is
    # not printed); the attempts are the samples
    (("requests_attempted", "failed"), (), ("failed",), "samples (answered or not)"),
    # wrk: 'Non-2xx or 3xx responses' and socket errors (connect and timeout have no answer; read errors
    # also count a server closing its connections, so they are named, not counted)
    (
        ("non_2xx_3xx",),
        ("socket_errors_connect", "socket_errors_timeout", "socket_errors_write"),
        ("non_2xx_3xx",),
        "responses + connect, write and timeout errors",
    ),
    (
        ("socket_errors_timeout",),
        ("socket_errors_connect", "socket_errors_timeout", "socket_errors_write"),
        (),
        "responses + connect, write and timeout errors",
    ),
    # siege (summary, JSON and siege.log): failed transactions, beside the transactions
    (("availability_pct",), ("failed",), (), "transactions + failed transactions"),
    (("concurrency_achieved",), ("failed",), (), "transactions + failed transactions"),
    # hey: the error list (no answer) and the answers outside 2xx
    (("status_codes",), ("failed",), ("non_2xx",), "responses + errors"),
    # ab and the rest: failed requests and non-2xx overlap (a length failure is often a 5xx page)
    (("failed",), (), ("_failed_or_non_2xx",), "completed requests"),
)


def _num(df: pd.DataFrame, col: str) -> pd.Series:
    if col not in df:
        return pd.Series(np.nan, index=df.index, dtype=float)
    s = df[col]
    if s.dtype == np.float64:  # already plain floats (most columns): no conversion to pay for per series
        return s.copy()
    if isinstance(s.dtype, pd.BooleanDtype) or s.dtype == bool:
        s = s.astype("Float64")
    return pd.to_numeric(s, errors="coerce").astype("Float64").astype(float)


def error_shares(runs: pd.DataFrame) -> pd.DataFrame:
    """Per run: ``errors`` (failed attempts), ``attempts``, ``error_share`` (at most 1) and ``error_basis``.

    Each tool's own counters (:data:`ERROR_COUNTERS`); a run that aborted
    with no answer at all (``error`` set, no responses) is all errors, unless
    its ``error_kind`` says the tool refused its command line or the output
    does not show its result.

    >>> runs = pd.DataFrame({"tool": ["ab", "wrk"], "requests": [20, 20], "failed": [30, None],
    ...     "non_2xx": [0, None], "non_2xx_3xx": [None, 16], "socket_errors_timeout": [None, 18]})
    >>> error_shares(runs)[["errors", "attempts", "error_share"]].round(3).values.tolist()
    [[30.0, 30.0, 1.0], [34.0, 38.0, 0.895]]
    """
    answers = _num(runs, "requests")
    failed, non_2xx = _num(runs, "failed"), _num(runs, "non_2xx")
    derived = {
        "_bad_answers": (answers - _num(runs, "requests_ok")).clip(lower=0).where(_num(runs, "requests_ok").notna(),
                                                                                 _num(runs, "non_2xx")),
        "_failed_or_non_2xx": pd.concat([failed, non_2xx], axis=1).max(axis=1),
    }  # fmt: skip
    out = pd.DataFrame({"errors": np.nan, "attempts": np.nan, "error_share": np.nan, "error_basis": ""},
                       index=runs.index)  # fmt: skip
    todo = pd.Series(True, index=runs.index)
    for need, no_answer, bad_answer, basis in ERROR_COUNTERS:
        have = todo & pd.concat([_num(runs, c).notna() for c in need], axis=1).all(axis=1)
        if not have.any():
            continue
        lost = sum((_num(runs, c).fillna(0) for c in no_answer), pd.Series(0.0, index=runs.index))
        bad = sum(((derived[c] if c in derived else _num(runs, c)).fillna(0) for c in bad_answer),
                  pd.Series(0.0, index=runs.index))  # fmt: skip
        total = answers.fillna(0) + lost
        if "_failed_or_non_2xx" in bad_answer:  # ab counts a failed attempt in Complete requests, or more with -r
            total = pd.concat([answers.fillna(0), bad], axis=1).max(axis=1)
        if "requests_attempted" in need:  # the tool counts the attempts itself
            total = _num(runs, "requests_attempted").fillna(0)
        out.loc[have, "errors"] = (bad + lost)[have]
        out.loc[have, "attempts"] = total[have]
        out.loc[have, "error_basis"] = basis
        todo &= ~have
    # an error with no answer is all errors, unless the tool says it sent nothing (its command line refused)
    # or the output does not show the run's result (cut off, written elsewhere): those say nothing of the server
    silent = (
        runs["error_kind"].astype("string").isin([COMMAND_REFUSED, NO_RESULT_SHOWN]).fillna(False).to_numpy(bool)
        if "error_kind" in runs
        else np.zeros(len(runs), dtype=bool)
    )
    aborted = (
        runs["error"].astype("string").fillna("").str.strip().ne("") & ~(answers > 0) & ~(out["attempts"] > 0) & ~silent
        if "error" in runs
        else pd.Series(False, index=runs.index)
    )
    out.loc[aborted.to_numpy(bool), "error_basis"] = "the run aborted with no answer"
    out.loc[aborted.to_numpy(bool), "error_share"] = 1.0
    known = ~aborted & (out["attempts"] > 0)
    out.loc[known, "error_share"] = (out.loc[known, "errors"] / out.loc[known, "attempts"]).clip(upper=1.0)
    return out


# ------------------------------------------------------------------ series ---


def _target(runs: pd.DataFrame) -> pd.Series:
    """The full target (URL with its query string), else host:port/path; empty when the output does not say."""
    url = runs["url"].astype("string") if "url" in runs else pd.Series(pd.NA, index=runs.index, dtype="string")
    host = runs["host"].astype("string") if "host" in runs else pd.Series(pd.NA, index=runs.index, dtype="string")
    port = runs["port"].astype("Int64").astype("string") if "port" in runs else pd.Series(pd.NA, index=runs.index)
    path = runs["path"].astype("string") if "path" in runs else pd.Series(pd.NA, index=runs.index, dtype="string")
    built = host.fillna("") + (":" + port).fillna("") + path.fillna("")
    built = built.where(host.notna() | path.notna())
    target = url.str.replace(r"^https?://", "", regex=True).where(url.notna(), built)
    return target.fillna("").astype(str)


def _debug(runs: pd.DataFrame) -> pd.Series:
    """Runs started with a tool's debugging option (ab -v, siege -D): kept, left out of curves.

    >>> _debug(pd.DataFrame({"tool": "ab", "command": ["ab -v 2 -c 4 http://h/", "/usr/bin/time -v ab -c 4 http://h/"]})).tolist()
    [True, False]
    """
    out = pd.Series(False, index=runs.index)
    if "command" not in runs or "tool" not in runs:
        return out
    for tool in registry.TOOLS:
        if not tool.debug_options:
            continue
        mine = (runs["tool"] == tool.name).fillna(False).to_numpy(bool)
        if not mine.any():
            continue
        opts = "|".join(re.escape(o) for o in tool.debug_options)
        pattern = rf"(?:^|\s)(?:{opts})(?:\s*\d+)?(?=\s|$)|(?:^|\s)-[a-zA-Z]*v\d"
        # the tool's own options: a wrapper's before it (``/usr/bin/time -v ab ...``) are not the tool's
        own = (
            runs.loc[mine, "command"]
            .astype("string")
            .fillna("")
            .str.replace(rf"^.*?(?:^|\s|/){re.escape(tool.name)}(?=\s|$)", "", n=1, regex=True)
        )
        out[mine] = own.str.contains(pattern, regex=True).to_numpy()
    return out


def writes_file(tool: str, command: str, name: str, printed: str = "") -> bool:
    """Whether a run of ``tool`` wrote the file ``name`` beside its printed output (``Tool.written_files``): from
    the prefix an option of its command gives, or the stem of the printed file (``printed``).

    >>> writes_file("locust", "locust -f l.py --csv locust_nginx --host http://h", "locust_nginx_stats.csv")
    True
    >>> writes_file("locust", "", "run1_stats.csv", "run1.txt"), writes_file("locust", "", "run1_log.txt", "run1.txt")
    (True, False)
    """
    found = next((t for t in registry.TOOLS if t.name == tool), None)
    if found is None or not found.written_files:
        return False
    argv = command_argv(command) if command else []
    prefixes = {os.path.splitext(printed)[0]} if printed else set()
    for i, tok in enumerate(argv):
        if tok.startswith("--") and "=" in tok:
            prefixes.add(os.path.basename(tok.split("=", 1)[1]))
        elif i and argv[i - 1].startswith("-") and not tok.startswith("-"):
            prefixes.add(os.path.basename(tok))
    return any(name == w.format(prefix=p) for p in prefixes if p for w in found.written_files)


def _twins(runs: pd.DataFrame, requests: pd.DataFrame | None) -> pd.Series:
    """For a per-request log or a log row of a run another file summarises, the index of that summary.

    A *log* run shows neither a target nor a load (ab's -g file, a siege.log
    row); its twin is the one summary of the same tool and origin with the
    same counts (requests, failures, duration, rate where both show them)
    and, for several candidates, the one whose command names the log's file
    (``ab -g FILE``), else the same mean latency (the log's mean of its
    requests against the summary's Connection Times total, printed in ms),
    else the same file name stem; still several: not merged. Then the files
    a run wrote beside its printed output (:func:`_written_twins`).
    """
    out = pd.Series(pd.NA, index=runs.index, dtype="object")
    if "tool" not in runs or not len(runs):
        return out
    target = runs["_target"]
    is_log = ((target == "") & _num(runs, "concurrency").isna() & (_num(runs, "requests") > 0)).to_numpy(bool)
    is_summary = ~is_log & (target != "").to_numpy(bool)
    if not is_log.any() or not is_summary.any():
        return out.fillna(_written_twins(runs, out))
    cols = {c: _num(runs, c).to_numpy() for c in ("requests", "failed", "duration_s", "requests_per_s")}
    total = runs["_total_mean_s"].to_numpy(float) if "_total_mean_s" in runs else np.full(len(runs), np.nan)
    tool = runs["tool"].astype("string").fillna("").to_numpy()
    origin = runs["_origin"].astype(str).to_numpy()
    source = runs["source"].astype(str).to_numpy() if "source" in runs else np.full(len(runs), "")
    command = runs["command"].astype("string").fillna("").to_numpy() if "command" in runs else np.full(len(runs), "")
    run_no = _num(runs, "run").fillna(0).astype(int).to_numpy()
    groups: dict[tuple, list[int]] = {}
    for k in np.flatnonzero(is_summary):
        groups.setdefault((tool[k], origin[k], cols["requests"][k]), []).append(k)
    log_mean: dict[tuple[str, int], float] = {}
    if requests is not None and len(requests) and "latency_s" in requests:
        m = requests.groupby(["source", "run"], observed=True)["latency_s"].mean()
        log_mean = {(str(src), int(r)): float(v) for (src, r), v in m.items()}
    taken: set[int] = set()
    for k in np.flatnonzero(is_log):
        cand = [j for j in groups.get((tool[k], origin[k], cols["requests"][k]), []) if j not in taken]
        for col, nd in (("failed", 0), ("duration_s", 2), ("requests_per_s", 1)):
            a_ = cols[col][k]
            if not np.isnan(a_):
                cand = [j for j in cand if np.isnan(cols[col][j]) or abs(cols[col][j] - a_) <= 0.5 * 10.0**-nd]
        name = os.path.basename(source[k])
        if len(cand) > 1:  # a summary whose command names this file (ab -g FILE)
            named = [j for j in cand if name and name in command[j]]
            cand = named or cand
        if len(cand) > 1:
            mean = log_mean.get((source[k], int(run_no[k])), math.nan)
            cand = [j for j in cand if abs(total[j] - mean) <= 0.001]
        if len(cand) > 1:  # one more hint: the same file name stem
            stem = os.path.splitext(name)[0]
            cand = [j for j in cand if os.path.splitext(os.path.basename(source[j]))[0] == stem]
        if len(cand) == 1:
            out.iloc[k] = runs.index[cand[0]]
            taken.add(cand[0])
    return out.fillna(_written_twins(runs, out))


def _written_twins(runs: pd.DataFrame, known: pd.Series) -> pd.Series:
    """For a file another run of the folder wrote beside its printed output, the index of that run.

    Locust's ``--csv PREFIX`` writes ``PREFIX_stats.csv`` (and history, failures, exceptions) while it
    prints its tables: a run read from another format of the same tool, in the same folder, at the same
    load, whose file is one the printed run wrote (:func:`writes_file`: from the prefix its command gives,
    or its own file's stem: ``locust_nginx.txt`` and ``locust_nginx_stats.csv``), is that run, whatever
    the counts (Locust writes its CSV before the last requests are counted). Of the two, the one that
    shows no result (``--json-file``: the tables are not printed) is the twin.
    """
    out = pd.Series(pd.NA, index=runs.index, dtype="object")
    if "source" not in runs or "format" not in runs or len(runs) < 2:
        return out
    source = runs["source"].astype(str).to_numpy()
    folder = np.array([os.path.dirname(x) for x in source])
    name = np.array([os.path.basename(x) for x in source])
    fmt = runs["format"].astype("string").fillna("").to_numpy()
    tool = runs["tool"].astype("string").fillna("").to_numpy()
    load = _num(runs, "concurrency").to_numpy()
    requests = _num(runs, "requests").to_numpy()
    command = runs["command"].astype("string").fillna("").to_numpy() if "command" in runs else np.full(len(runs), "")
    free = known.isna().to_numpy(bool)
    for k in np.flatnonzero(free):
        cand = [
            j for j in range(len(runs))
            if j != k and free[j] and tool[j] == tool[k] and folder[j] == folder[k] and fmt[j] != fmt[k]
            and (np.isnan(load[j]) or np.isnan(load[k]) or load[j] == load[k])
            and writes_file(str(tool[j]), command[j], name[k], name[j])
        ]  # fmt: skip
        if len(cand) == 1:
            j = cand[0]
            if np.isnan(requests[j]) and not np.isnan(requests[k]):  # the file holds the result: the run is it
                if pd.isna(out.iloc[j]):
                    out.iloc[j] = runs.index[k]
            elif pd.isna(out.iloc[k]) and pd.isna(out.iloc[j]):
                out.iloc[k] = runs.index[j]
    return out


def _known(tool: object) -> bool:
    """Whether ``tool`` is a name of the registry (missing values are not)."""
    return isinstance(tool, str) and tool in registry.names()


def _short(source: object) -> str:
    s = str(source)
    return os.path.join(os.path.basename(os.path.dirname(s)), os.path.basename(s)) if "/" in s else s


# -------------------------------------------------------------------- study ---
@dataclass
class Study:
    """The one answer for a set of runs (see the module text); build it with :func:`study`.

    ``runs``: every HTTP load-test run with what the study added (``origin``,
    ``series``, ``used``, ``left_out``, ``twin_of``, ``errors``, ``attempts``,
    ``error_share``, ``error_basis``, ``latency_used_s``, ``latency_basis``,
    ``capacity_bits_per_s``, ``capacity_basis``, ``capacity_source``,
    ``capacity_note``, ``used_bits_per_s``, ``utilisation``). ``series``: one
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

    def summary_frame(self) -> pd.DataFrame:
        """One row per series: ``series``, ``runs``, ``used``, ``loads``, ``verdict``, ``resource`` (what was used
        up: :data:`~lbanalysis.analysis.rules.RESOURCES`, empty when the evidence does not say), ``confidence``,
        ``evidence``."""
        cols = ["series", "runs", "used", "loads", "verdict", "resource", "confidence", "evidence"]
        if not len(self.verdicts):
            return pd.DataFrame(columns=cols)
        return self.verdicts[cols].reset_index(drop=True)

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


def _count(n: int, word: str) -> str:
    """A count and its noun, singular or plural.

    >>> _count(1, "run"), _count(3, "run")
    ('1 run', '3 runs')
    """
    return f"{n:,} {word}{'' if n == 1 else 's'}"


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


def _per_load(g: pd.DataFrame, load: str) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "load": _num(g, load),
            "x": _num(g, "requests_per_s"),
            "r": _num(g, "latency_used_s"),
            "step": _num(g, "latency_step_s"),
            "util": _num(g, "utilisation"),
            "used_bits": _num(g, "used_bits_per_s"),
            "cap": _num(g, "capacity_bits_per_s"),
            "rate": _num(g, "rate_target_per_s"),
            "sent": _sent(g),
            "unconnected": _num(g, "socket_errors_connect"),
            "delay": _num(g, "delay_s").where(~g["benchmark_mode"].astype("boolean").fillna(False).to_numpy(bool), 0.0)
            if "benchmark_mode" in g
            else _num(g, "delay_s"),
        }
    ).dropna(subset=["load"])
    by = frame.groupby("load")
    means = by[["x", "r", "rate", "sent", "unconnected"]].mean()
    maxes = by[["step", "util", "used_bits", "cap", "delay"]].max()
    spread = ((by["x"].max() - by["x"].min()) / means["x"].where(means["x"] > 0)).rename("spread")
    out = pd.concat([by.size().rename("runs"), means, maxes, spread], axis=1)[list(_NO_LOADS.columns)]
    if out["util"].notna().any():  # the figures at the run of highest utilisation
        at = frame.loc[frame["util"].idxmax()] if frame["util"].notna().any() else None
        if at is not None:
            out.loc[at["load"], ["used_bits", "cap"]] = [at["used_bits"], at["cap"]]
    return out.sort_index()


def _sent(g: pd.DataFrame) -> pd.Series:
    """The rate each run says it sent: printed (vegeta), else the rate asked less the iterations the tool
    dropped, having no client free to start them (k6's arrival-rate executors).

    >>> _sent(pd.DataFrame({"rate_target_per_s": [50.0], "iterations": [73], "iterations_dropped": [77]})).tolist()
    [24.333333333333332]
    """
    printed, rate = _num(g, "rate_sent_per_s"), _num(g, "rate_target_per_s")
    started, dropped = _num(g, "iterations"), _num(g, "iterations_dropped")
    return printed.fillna(rate * started / (started + dropped))


def _errors_per_load(g: pd.DataFrame, load: str) -> pd.DataFrame:
    """Per load: failures, attempts, their share (at most 1) and the counts in words (aborted runs named).

    >>> g = pd.DataFrame({"concurrency": [1, 1, 2], "errors": [1, 0, None], "attempts": [10, 10, None],
    ...                   "error_share": [0.1, 0.0, 1.0], "error_basis": ["requests", "requests", ""]})
    >>> _errors_per_load(g, "concurrency")[["bad", "attempts", "share", "basis"]].values.tolist()
    [[1.0, 20.0, 0.05, '1 of 20 requests'], [nan, nan, 1.0, '1 run aborted with no answer']]
    """
    groups: dict[float, list[tuple[float, float, float, Any]]] = {}
    rows_in = zip(_num(g, load).fillna(-1.0), _num(g, "errors"), _num(g, "attempts"), _num(g, "error_share"),
                  g["error_basis"] if "error_basis" in g else [""] * len(g), strict=True)  # fmt: skip
    for k, bad, att, share, basis in rows_in:
        groups.setdefault(k, []).append((bad, att, share, basis))
    rows = {}
    for k in sorted(groups):
        f = groups[k]
        counted = [r for r in f if r[1] == r[1]]  # attempts known (not NaN)
        att = sum(r[1] for r in counted) if counted else math.nan
        bads = [r[0] for r in f if r[0] == r[0]]
        bad = float(sum(bads)) if bads else math.nan
        n_aborted = sum(1 for r in f if r[2] == 1.0 and r[1] != r[1])
        share = bad / att if att == att and att > 0 else math.nan
        words = []
        if att == att and att > 0:
            basis = "; ".join(dict.fromkeys(r[3] for r in counted if isinstance(r[3], str) and r[3]))
            words.append(f"{bad:,.0f} of {att:,.0f} {basis}")
        if n_aborted:
            share = 1.0 if not words else share
            words.append(f"{_count(n_aborted, 'run')} aborted with no answer")
        rows[k if k >= 0 else math.nan] = {
            "bad": bad, "attempts": att, "share": min(share, 1.0) if share == share else math.nan,
            "basis": ", and ".join(words) or "no counts",
        }  # fmt: skip
    return pd.DataFrame.from_dict(rows, orient="index", columns=["bad", "attempts", "share", "basis"])


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
    **thresholds: float,
) -> Study:
    """Study a folder's runs once: series, errors, capacity, fits, knees and a verdict per series.

    ``data``: a :class:`~lbanalysis.reader.Dataset` (its ``phases`` and
    ``requests`` give ab its measured latency) or a runs frame.
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
    processes' (:mod:`lbanalysis.analysis.tests`). Other keywords: thresholds
    of :data:`~lbanalysis.analysis.rules.THRESHOLDS`.
    """
    unknown = set(thresholds) - set(THRESHOLDS)
    if unknown:
        raise TypeError(f"unknown threshold(s): {', '.join(sorted(unknown))}; known: {', '.join(THRESHOLDS)}")
    if capacity_basis not in ("auto", "wire", "payload"):
        raise ValueError(f"capacity_basis must be 'auto', 'wire' or 'payload', not {capacity_basis!r}")
    t = {**THRESHOLDS, **{k: float(v) for k, v in thresholds.items() if v is not None}}
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
    runs = runs.copy() if runs.index.is_unique else runs.reset_index(drop=True)  # rows are named by their label
    runs["_origin"] = origins_of(runs, origin)
    tools = runs["tool"] if "tool" in runs else pd.Series(pd.NA, index=runs.index, dtype="string")
    kind = tools.map(lambda x: registry.get_tool(x).kind if _known(x) else "http-load")  # no tool named: a load test
    iperf_runs = runs[(kind == "network").to_numpy(bool)]
    explicit = iperf is not None
    if explicit:
        iperf_runs = iperf if isinstance(iperf, pd.DataFrame) else iperf.runs
        iperf_runs = iperf_runs.assign(_origin="")
    http = runs[(kind == "http-load").to_numpy(bool)].copy()
    own = list(http.columns)
    http["_target"] = _target(http)
    http = _with_latency(http, phases, requests)
    http["twin_of"] = _twins(http, requests)
    http, processes = fold(http, requests, test=test)  # the processes of one test: one row, judged as one run
    http = pd.concat([http, error_shares(http)], axis=1)
    http = _left_out(http, t)
    cap = capacity_per_run(
        http, capacity, basis=capacity_basis, iperf=iperf_runs,
        run_origin=None if explicit else http["_origin"], iperf_origin=None if explicit else iperf_runs["_origin"],
    )  # fmt: skip
    http["capacity_bits_per_s"] = cap.bits
    http["capacity_basis"] = cap.basis
    http["capacity_source"] = cap.source
    http["capacity_note"] = cap.note
    http = _with_utilisation(http)
    http["series"] = _series_names(http[own], by=by if by is not None else group, exclude=exclude)
    twins = http["twin_of"].notna().to_numpy(bool)
    if twins.any():  # one run seen in two files: the log joins its summary's series
        http.loc[twins, "series"] = http.loc[http.loc[twins, "twin_of"].to_numpy(), "series"].to_numpy()
    # a test's CPU: every process's samples, paired with the test's row
    cpu_runs = cpu_by_run(cpu_of_tests(cpu, processes, http), http) if cpu is not None and len(cpu) else None
    verdicts, knees, fits = _judge_all(http, load, t, servers, root=common_folder(runs), cpu=cpu_runs)
    if len(processes):  # each process with its own error share, in its test's series
        processes = pd.concat([processes, error_shares(processes)], axis=1)
        processes["series"] = http.loc[processes["test_row"], "series"].to_numpy()
    tests = tests_table(http, processes, requests, load)
    http = http.drop(columns=["origin", "_target", "_total_mean_s", "_log_of"], errors="ignore").rename(
        columns={"_origin": "origin"}
    )
    series = _series_rows(http, load)
    return Study(http, series, verdicts, knees, fits, cap.paths, load, t, tests, processes)


def _with_latency(http: pd.DataFrame, phases: pd.DataFrame | None, requests: pd.DataFrame | None) -> pd.DataFrame:
    """The latency the analysis uses per run and its basis: measured, not derived from the concurrency."""
    lat = _num(http, "latency_mean_s")
    step = _num(http, "latency_mean_step_s")
    basis = pd.Series("mean latency printed", index=http.index, dtype=object)
    total = pd.Series(np.nan, index=http.index)
    if phases is not None and len(phases) and "phase" in phases:
        tot = phases[phases["phase"].astype(str) == "total"]
        m = {(str(s), int(r)): float(v) for s, r, v in zip(tot["source"], tot["run"], tot["mean_s"], strict=True)}
        if "source" in http and "run" in http:
            total = pd.Series([m.get((str(s), int(r)) if pd.notna(r) else None, np.nan)
                               for s, r in zip(http["source"], http["run"], strict=True)], index=http.index)  # fmt: skip
    http["_total_mean_s"] = total
    tools = http["tool"] if "tool" in http else pd.Series(pd.NA, index=http.index, dtype="string")
    little = tools.map(lambda x: registry.get_tool(x).latency_is_little if _known(x) else "")
    note = pd.Series("", index=http.index, dtype=object)
    for i in http.index[(little != "").to_numpy(bool)]:
        if pd.notna(total[i]):
            lat[i], step[i], basis[i] = total[i], 0.001, "Connection Times total mean (ms)"
        else:  # still the latency's growth with load, but no evidence of idle clients
            basis[i], note[i] = "mean latency printed (concurrency × time / requests)", little[i]
    http["latency_used_s"] = lat
    http["latency_step_s"] = step.fillna(0.0)
    http["latency_basis"] = basis
    http["_latency_note"] = note
    return http


def _left_out(http: pd.DataFrame, t: dict[str, float]) -> pd.DataFrame:
    """Why a run is left out of curves (empty: used)."""
    why = pd.Series("", index=http.index, dtype=object)
    attempts = http["attempts"].fillna(_num(http, "requests"))
    dur = _num(http, "duration_s")
    rate = _num(http, "requests_per_s")
    err = http["error"].astype("string").fillna("").str.strip() if "error" in http else pd.Series("", index=http.index)
    kind = http["error_kind"].astype("string").fillna("") if "error_kind" in http else pd.Series("", index=http.index)
    debug = _debug(http)
    for i in http.index:
        if pd.notna(http.at[i, "twin_of"]):
            twin = http.loc[http.at[i, "twin_of"]]
            why[i] = f"the same run as {_short(twin.get('source'))}:{_fmt_line(twin)} (its own log)"
        elif err[i] and not rate[i] > 0 and kind[i] == COMMAND_REFUSED:
            why[i] = f"the tool refused its command line: {err[i]}"
        elif err[i] and not rate[i] > 0:
            why[i] = f"no result: {err[i]}"
        elif not rate[i] > 0:
            why[i] = "no throughput"
        elif debug[i]:
            why[i] = "a debugging run (its command asks for debug output)"
        elif attempts[i] < t["min_requests"]:
            why[i] = f"too few requests: {attempts[i]:,.0f} (fewer than {t['min_requests']:g})"
        elif dur[i] < t["min_duration_s"]:
            why[i] = f"too short: {dur[i]:g} s (under {t['min_duration_s']:g} s)"
    http["left_out"] = why
    http["used"] = why == ""
    return http


def _fmt_line(row: pd.Series) -> str:
    line = row.get("line")
    return f"{int(line)}" if line is not None and pd.notna(line) else f"run {row.get('run')}"


def _with_utilisation(http: pd.DataFrame) -> pd.DataFrame:
    from .network import bits_used

    used = pd.Series(np.nan, index=http.index)
    for basis in ("payload", "wire"):
        mine = (http["capacity_basis"] == basis) & http["capacity_bits_per_s"].notna()
        if mine.any():
            used[mine] = bits_used(http[mine.to_numpy(bool)], basis)["wire_bits_per_s"]
    http["used_bits_per_s"] = used
    http["utilisation"] = used / http["capacity_bits_per_s"].where(http["capacity_bits_per_s"] > 0)
    return http


def _series_names(http: pd.DataFrame, by: str | Sequence[str] | None, exclude: Sequence[str] = ()) -> pd.Series:
    from .series import assign_series

    return assign_series(http, by, exclude) if len(http) else pd.Series(dtype="string")


#: Load-balancer statistics rows that are not a server or a backend (no queue of their own).
_NOT_QUEUES = ("FRONTEND",)


_SNAPSHOT_COLUMNS = ("source", "proxy", "server", "queue_max", "sessions_max", "sessions_limit")


def _snapshots(servers: pd.DataFrame | None) -> pd.DataFrame | None:
    """The columns of load-balancer snapshots :func:`_server_side` reads, with each snapshot's folder, once."""
    if servers is None or not len(servers) or "source" not in servers:
        return servers
    narrow = servers[[c for c in _SNAPSHOT_COLUMNS if c in servers]]
    return narrow.assign(_dir=servers["source"].astype(str).map(os.path.dirname))


def _server_side(g: pd.DataFrame, servers: pd.DataFrame | None) -> str:
    """What load-balancer snapshots in the series' folder (or a folder above it) show of a server-side queue.

    >>> servers = pd.DataFrame({"source": ["x/stat.csv"] * 2, "proxy": ["be", "be"], "server": ["app", "BACKEND"],
    ...                         "queue_max": [0, 29], "sessions_max": [4, 33], "sessions_limit": [4, 410]})
    >>> _server_side(pd.DataFrame({"source": ["x/ab.txt"]}), servers)
    'load-balancer statistics show a server-side queue: be/BACKEND queued up to 29, be/app reached its limit of 4 sessions'
    """
    if servers is None or not len(servers) or "source" not in g or "source" not in servers:
        return ""
    folders = {os.path.dirname(str(x)) for x in g["source"]}
    cols = [c for c in _SNAPSHOT_COLUMNS if c in servers]
    dirs = servers["_dir"] if "_dir" in servers else servers["source"].astype(str).map(os.path.dirname)
    inside = {d for d in dirs.unique() if any(within(f, d) for f in folders)}  # each snapshot folder asked once
    rows = servers.loc[dirs.isin(inside).to_numpy(bool), cols]
    if "server" in rows:
        rows = rows[~rows["server"].astype("string").isin(_NOT_QUEUES).fillna(False).to_numpy(bool)]
    said = []
    qmax, smax, slim = _num(rows, "queue_max"), _num(rows, "sessions_max"), _num(rows, "sessions_limit")
    names = rows["proxy"].astype(str) + "/" + rows["server"].astype(str) if "proxy" in rows else rows.index.astype(str)
    for name, q in qmax.groupby(names).max().items():
        if q > 0:
            said.append(f"{name} queued up to {q:,.0f}")
    full = (slim > 0) & (smax >= slim)
    for name in dict.fromkeys(names[full.to_numpy(bool)]):
        limit = slim[(names == name).to_numpy(bool)].max()
        said.append(f"{name} reached its limit of {limit:,.0f} sessions")
    return "load-balancer statistics show a server-side queue: " + ", ".join(said) if said else ""


#: How a sentence names a load other than the one asked for (:func:`series_load`).
LOAD_WORDS = {"rate_target_per_s": "rate"}


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
    rate = _num(runs, "rate_target_per_s") if load == "concurrency" else None
    if rate is not None and rate.notna().all() and len(rate) and rate.nunique() > _num(runs, load).nunique():
        return "rate_target_per_s"
    if load in runs and _num(runs, load).notna().any():
        return load
    if load == "concurrency" and _num(runs, "rate_target_per_s").notna().any():
        return "rate_target_per_s"
    return load


_NO_LOADS = pd.DataFrame(
    columns=["runs", "x", "r", "step", "util", "used_bits", "cap", "rate", "sent", "unconnected", "delay", "spread"],
    dtype=float,
)


#: The columns of the runs that :func:`_judge_all` reads for each series (besides the load).
_JUDGED = (
    "series", "source", "run", "line", "tool", "_origin", "used", "left_out", "twin_of", "error", "errors",
    "attempts", "error_share", "error_basis", "requests", "requests_per_s", "duration_s", "concurrency",
    "rate_target_per_s", "rate_sent_per_s", "iterations", "iterations_dropped", "socket_errors_connect",
    "latency_mean_s", "latency_mean_step_s", "latency_used_s", "latency_step_s", "_latency_note", "utilisation", "used_bits_per_s", "capacity_bits_per_s", "capacity_basis", "capacity_source",
    "capacity_note", "delay_s", "benchmark_mode", "_target", "method", "keepalive", "host", "port", "path",
    *("via", "route"), "test", "processes", "test_note",
)  # fmt: skip


#: The columns among :data:`_JUDGED` read as numbers.
_NUMBERS = (
    "errors", "attempts", "error_share", "requests", "requests_per_s", "duration_s", "concurrency",
    "rate_target_per_s", "rate_sent_per_s", "iterations", "iterations_dropped", "socket_errors_connect",
    "latency_mean_s", "latency_mean_step_s", "latency_used_s", "latency_step_s", "utilisation", "used_bits_per_s", "capacity_bits_per_s", "delay_s",
)  # fmt: skip


def _queued(g: pd.DataFrame, servers: pd.DataFrame | None, seen: dict[frozenset[str], str]) -> str:
    """:func:`_server_side` for one series, asked once per set of folders (series of one folder share it)."""
    if servers is None or "source" not in g:
        return _server_side(g, servers)
    key = frozenset(os.path.dirname(str(x)) for x in g["source"])
    if key not in seen:
        seen[key] = _server_side(g, servers)
    return seen[key]


def files_from(text: str, root: str) -> str:
    """``text`` with the files under ``root`` named from it (a page sent elsewhere names no build machine's folder).

    >>> files_from("iperf a→b, /x/logs/net/iperf3.json:1", "/x/logs")
    'iperf a→b, net/iperf3.json:1'
    """
    return text.replace(root.rstrip("/") + "/", "") if root and root != "/" else text


#: Runs columns (a manifest, the sweep's) that say a run went through the load balancer or straight to a
#: backend: the value ``direct`` marks the direct runs; any other value, through the load balancer.
ROUTE_COLUMNS: tuple[str, ...] = ("via", "route")


def _backends(servers: pd.DataFrame | None) -> dict[str, set[str]]:
    """Per folder of load-balancer statistics, the ``address:port`` of each server they list.

    >>> servers = pd.DataFrame({"source": ["x/stat.csv"] * 2, "server": ["app", "BACKEND"],
    ...                         "address": ["127.0.0.1", None], "port": [8080, None]})
    >>> _backends(servers)
    {'x': {'127.0.0.1:8080'}}
    """
    if servers is None or not len(servers) or not {"address", "port", "source"} <= set(servers):
        return {}
    rows = servers[servers["address"].notna() & servers["port"].notna()]
    out: dict[str, set[str]] = {}
    for src, a, p in zip(rows["source"].astype(str), rows["address"].astype(str), rows["port"], strict=True):
        out.setdefault(os.path.dirname(src), set()).add(f"{a}:{int(p)}")
    return out


def _peers(
    narrow: pd.DataFrame, load0: str, servers: pd.DataFrame | None
) -> dict[Any, tuple[pd.DataFrame | None, dict[str, Any] | None]]:
    """For each series, the other series of the same origin against the same target and workload (their tool,
    best throughput and run-to-run spread), and for a series through a load balancer the direct series to its
    backend (marked ``direct`` in a :data:`ROUTE_COLUMNS` column, or whose address the load balancer's
    statistics in its folder list as a server)."""
    rows = []
    backends = _backends(servers)
    for name, g in narrow.groupby("series", sort=True):
        used = g[g["used"]]
        if not len(used):
            continue
        col = series_load(used, load0)
        x = _num(used, "requests_per_s").groupby(_num(used, col).to_numpy()).agg(["mean", "max", "min"])
        if not len(x) or not x["mean"].notna().any():
            continue
        first = g.iloc[0]
        target = str(first.get("_target") or "").rstrip("/")
        hostport = f"{first.get('host')}:{first.get('port')}" if pd.notna(first.get("host")) else ""
        route = next((str(g[c].dropna().iloc[0]).strip().lower() for c in ROUTE_COLUMNS
                      if c in g and g[c].notna().any()), "")  # fmt: skip
        folders = {os.path.dirname(str(v)) for v in g["source"]} if "source" in g else set()
        listed = any(hostport in ips for d, ips in backends.items() if any(within(f, d) for f in folders))
        keep = g["keepalive"].dropna() if "keepalive" in g else pd.Series(dtype=object)
        rows.append({
            "series": name, "tool": str(first.get("tool") or ""), "origin": str(first.get("_origin") or ""),
            "target": target, "rest": target.split("/", 1)[1] if "/" in target else "",
            "method": str(first.get("method") or "GET") if pd.notna(first.get("method")) else "GET",
            "keepalive": bool(keep.iloc[0]) if len(keep) else None,
            "best": float(x["mean"].max()), "spread": float(((x["max"] - x["min"]) / x["mean"]).max()),
            "direct": route == "direct" or (not route and listed), "routed": bool(route) and route != "direct",
            "by_load": x["mean"],
        })  # fmt: skip
    out: dict[Any, tuple[pd.DataFrame | None, dict[str, Any] | None]] = {}
    if not rows:
        return out
    table = pd.DataFrame(rows)
    for r in table.itertuples():
        same = table[(table["origin"] == r.origin) & (table["series"] != r.series) & (table["method"] == r.method)]
        alike = same[(same["target"] == r.target) & (same["target"] != "")]
        if r.keepalive is not None:
            alike = alike[alike["keepalive"].map(lambda k, mine=r.keepalive: k is None or k == mine)]
        direct = None
        if not r.direct and r.target:
            cand = same[same["direct"] & (same["tool"] == r.tool) & (same["rest"] == r.rest)]
            if len(cand):
                best = cand.sort_values("best").iloc[-1]
                direct = {"series": best["series"], "best": best["best"], "by_load": best["by_load"]}
        out[r.series] = (alike[["series", "tool", "best", "spread"]] if len(alike) else None, direct)
    return out


def _judge_all(
    http: pd.DataFrame,
    load: str,
    t: dict[str, float],
    servers: pd.DataFrame | None = None,
    *,
    root: str = "",
    cpu: pd.DataFrame | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    from .resources import per_load
    from .series import MIN_LOADS, fit_series

    rows, knee_rows = [], []
    load0 = load
    data = http.dropna(subset=["series"])
    # the loop reads these columns only: a narrow frame is far cheaper to cut per series than the whole runs table
    narrow = data[[c for c in dict.fromkeys((load0, *_JUDGED)) if c in data]]
    # numbers converted once here, not once per series (``_num`` takes plain floats as they are)
    narrow = narrow.assign(**{c: _num(narrow, c) for c in (load0, *_NUMBERS) if c in narrow})
    peers = _peers(narrow, load0, servers)
    servers = _snapshots(servers)
    queues: dict[frozenset[str], str] = {}  # what the snapshots say, once per set of folders
    for name, g in narrow.groupby("series", sort=True):
        not_twin = g[g["twin_of"].isna()]
        used = g[g["used"]]
        tool = str(g["tool"].iloc[0]) if "tool" in g else ""
        info = registry.get_tool(tool) if _known(tool) else None
        rate = _num(used, "rate_target_per_s")
        closed = is_closed_loop(tool, rate.mean() if rate.notna().any() else None)
        load_col = series_load(used, load0)
        load = load_col if load_col == load0 else LOAD_WORDS.get(load_col, load_col)
        loads = _per_load(used, load_col) if load_col in used and len(used) else _NO_LOADS
        notes_l = used["_latency_note"][used["_latency_note"] != ""]
        basis_txt = ", ".join(dict.fromkeys(b for b in not_twin["capacity_basis"] if isinstance(b, str) and b))
        src = files_from(
            ", ".join(dict.fromkeys(s for s in not_twin["capacity_source"] if isinstance(s, str) and s)), root
        )
        measured = not_twin[_num(not_twin, "requests_per_s").gt(0).to_numpy(bool)]
        e = Evidence(
            load=load,
            loads=loads,
            network=_per_load(measured, load_col)
            if load_col in measured and measured["capacity_bits_per_s"].notna().any()
            else None,
            errors=_errors_per_load(not_twin, load_col),
            tool=tool,
            closed=closed,
            latency_note=str(notes_l.iloc[0]) if len(notes_l) else "",
            excluded=[str(w) for w in not_twin["left_out"] if w],
            unseen_think_time=info.unseen_think_time if info else "",
            basis=basis_txt,
            capacity_source=src,
            server_side=_queued(g, servers, queues),
            cpu=per_load(cpu.loc[used.index], _num(used, load_col)) if cpu is not None and len(used) else None,
            others=peers.get(name, (None, None))[0],
            direct=peers.get(name, (None, None))[1],
        )
        out = judge(e, **t)
        notes = list(out["notes"])
        rated = loads[loads["rate"] > 0] if len(loads) else loads
        said_rate = (
            RULES[out["rule"]].check is kept_up_finding
        )  # its evidence already compares the rate and the answers
        if not closed and rate.notna().any() and len(rated) and not said_rate:
            top = rated.index.max()  # the highest load whose runs say the rate they were asked for
            want, got = rated.loc[top, "rate"], rated.loc[top, "x"]
            notes.append(f"at {load} {top:g} the tool was asked for a fixed {want:,.10g} requests/s (open loop) and gave "
                         f"{got:,.0f} ({got / want * 100:.0f}%): connections idle between requests are no sign of a "
                         "client that could not keep up")  # fmt: skip
        elif e.latency_note and out["verdict"] not in ("errors", "network", "capacity mismatch", "cannot tell"):
            if e.latency_note not in notes:
                notes.append(e.latency_note)
        cap_notes = [n for n in dict.fromkeys(g["capacity_note"]) if n]
        notes += cap_notes + series_notes(not_twin)
        n_out = int((~not_twin["used"]).sum())
        if n_out and len(loads):
            notes.append(f"{n_out} of {_count(len(not_twin), 'run')} left out of curves: {count_reasons(e.excluded)}")
        if len(g) > len(not_twin):
            notes.append(f"{_count(len(g) - len(not_twin), 'run')} also read from their own log (counted once)")
        zero = used[_num(used, "latency_mean_s").eq(0) & ~(_num(used, "latency_mean_step_s") > 0)]
        if len(zero):
            from .little import ZERO_LATENCY

            notes.append(ZERO_LATENCY)
        evidence = "; ".join([out["evidence"], *[n for n in dict.fromkeys(notes) if n != out["evidence"]]])
        top = loads.index.max() if len(loads) else math.nan
        rows.append(
            {
                "series": name, "origin": str(g["_origin"].iloc[0]), "tool": tool, "runs": len(not_twin),
                "used": len(used), "loads": len(loads), "verdict": out["verdict"], "resource": out["resource"],
                "confidence": out["confidence"],
                "evidence": evidence, "rule": out["rule"], "notes": notes, "figures": out["figures"],
                f"top {load0}": top if load_col == load0 else math.nan,
                "load": load_col,
                "requests_per_s": loads.loc[top, "x"] if len(loads) else math.nan,
                "latency_mean_s": loads.loc[top, "r"] if len(loads) else math.nan,
                "error_share": e.errors["share"].max() if len(e.errors) else math.nan,
                "utilisation": e.network["util"].max() if e.network is not None and len(e.network) else math.nan,
                "capacity_basis": basis_txt, "capacity_source": src,
            }
        )  # fmt: skip
        if len(loads) >= MIN_LOADS["knee"]:
            knee_rows.append(_knee(name, used, loads, load, t, closed=closed))
    load = load0
    verdicts = pd.DataFrame(rows)
    knees = pd.DataFrame(knee_rows)
    used = data[data["used"]]
    fits = fit_series(used, load=load, by="series")[0] if len(used) and load in used else pd.DataFrame()
    return verdicts, knees, fits


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
    rows = []
    keep = [c for c in ("series", "tool", "origin", "method", "keepalive", "used", load, "url", "host", "port", "path")
            if c in http]  # fmt: skip
    targets = _target(http).to_numpy()  # by position: a runs table given by hand may repeat index labels
    narrow = http[list(dict.fromkeys(keep))].assign(_pos=np.arange(len(http)))
    for name, g in narrow.dropna(subset=["series"]).groupby("series", sort=True):
        first = g.iloc[0]
        rows.append(
            {
                "series": name, "tool": first.get("tool"), "origin": first.get("origin"),
                "method": first.get("method") if "method" in g else None, "target": targets[g["_pos"].iloc[0]],
                "keepalive": first.get("keepalive") if "keepalive" in g else None,
                "runs": len(g), "used": int(g["used"].sum()),
                "loads": int(_num(g[g["used"]], load).nunique()) if load in g else 0,
            }
        )  # fmt: skip
    return pd.DataFrame(rows)


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
