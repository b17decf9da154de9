"""Twin evidence: the run another file of the folder already shows, so that one run is counted once.

A per-request log (ab's ``-g`` file, a siege.log row) is the run its
summary shows (:func:`twins`); a file a tool wrote beside its printed output
(Locust's ``--csv`` files) is the printed run (:func:`written_twins`).
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import pandas as pd

from ... import registry
from ...text import command_argv
from ..series import as_floats

__all__ = ["twins", "writes_file", "written_twins"]


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


def _strings(runs: pd.DataFrame, col: str) -> np.ndarray:
    """A column as plain strings (a missing column: empty strings)."""
    return runs[col].astype("string").fillna("").to_numpy() if col in runs else np.full(len(runs), "")


def _log_means(requests: pd.DataFrame | None) -> dict[tuple[str, int], float]:
    """The mean latency of each run's per-request log, by (source, run)."""
    if requests is None or not len(requests) or "latency_s" not in requests:
        return {}
    m = requests.groupby(["source", "run"], observed=True)["latency_s"].mean()
    return {(str(src), int(r)): float(v) for (src, r), v in m.items()}


class _Runs:
    """The columns :func:`twins` compares, as arrays (by position)."""

    def __init__(self, runs: pd.DataFrame, requests: pd.DataFrame | None) -> None:
        self.cols = {c: as_floats(runs, c).to_numpy() for c in ("requests", "failed", "duration_s", "requests_per_s")}
        self.total = runs["_total_mean_s"].to_numpy(float) if "_total_mean_s" in runs else np.full(len(runs), np.nan)
        self.tool = runs["tool"].astype("string").fillna("").to_numpy()
        self.origin = runs["_origin"].astype(str).to_numpy()
        self.source = runs["source"].astype(str).to_numpy() if "source" in runs else np.full(len(runs), "")
        self.command = _strings(runs, "command")
        self.run_no = as_floats(runs, "run").fillna(0).astype(int).to_numpy()
        self.log_mean = _log_means(requests)

    def key(self, k: int) -> tuple[Any, ...]:
        return self.tool[k], self.origin[k], self.cols["requests"][k]

    def same_counts(self, k: int, cand: list[int]) -> list[int]:
        """The candidates whose failures, duration and rate match the log's where both show them."""
        for col, nd in (("failed", 0), ("duration_s", 2), ("requests_per_s", 1)):
            a_ = self.cols[col][k]
            if not np.isnan(a_):
                cand = [
                    j for j in cand if np.isnan(self.cols[col][j]) or abs(self.cols[col][j] - a_) <= 0.5 * 10.0**-nd
                ]
        return cand

    def one_of(self, k: int, cand: list[int]) -> list[int]:
        """Several summaries left: the one whose command names the log's file (``ab -g FILE``), else the same mean
        latency (the log's against the Connection Times total), else the same file name stem."""
        name = os.path.basename(self.source[k])
        if len(cand) > 1:
            cand = [j for j in cand if name and name in self.command[j]] or cand
        if len(cand) > 1:
            mean = self.log_mean.get((self.source[k], int(self.run_no[k])), math.nan)
            cand = [j for j in cand if abs(self.total[j] - mean) <= 0.001]
        if len(cand) > 1:
            stem = os.path.splitext(name)[0]
            cand = [j for j in cand if os.path.splitext(os.path.basename(self.source[j]))[0] == stem]
        return cand


def twins(runs: pd.DataFrame, requests: pd.DataFrame | None) -> pd.Series:
    """For a per-request log or a log row of a run another file summarises, the index of that summary.

    A *log* run shows neither a target nor a load (ab's -g file, a siege.log
    row); its twin is the one summary of the same tool and origin with the
    same counts (requests, failures, duration, rate where both show them)
    and, for several candidates, the one whose command names the log's file
    (``ab -g FILE``), else the same mean latency (the log's mean of its
    requests against the summary's Connection Times total, printed in ms),
    else the same file name stem; still several: not merged. Then the files
    a run wrote beside its printed output (:func:`written_twins`).
    ``runs`` holds ``_target`` and ``_origin``.
    """
    out = pd.Series(pd.NA, index=runs.index, dtype="object")
    if "tool" not in runs or not len(runs):
        return out
    target = runs["_target"]
    is_log = ((target == "") & as_floats(runs, "concurrency").isna() & (as_floats(runs, "requests") > 0)).to_numpy(bool)
    is_summary = ~is_log & (target != "").to_numpy(bool)
    if not is_log.any() or not is_summary.any():
        return out.fillna(written_twins(runs, out))
    r = _Runs(runs, requests)
    groups: dict[tuple, list[int]] = {}
    for k in np.flatnonzero(is_summary):
        groups.setdefault(r.key(k), []).append(k)
    taken: set[int] = set()
    for k in np.flatnonzero(is_log):
        cand = r.one_of(k, r.same_counts(k, [j for j in groups.get(r.key(k), []) if j not in taken]))
        if len(cand) == 1:
            out.iloc[k] = runs.index[cand[0]]
            taken.add(cand[0])
    return out.fillna(written_twins(runs, out))


def _writers(runs: pd.DataFrame, free: np.ndarray) -> list[list[int]]:
    """For each run, the runs that wrote its file: same tool and folder, another format, the same load (or none
    shown), and a command or file name that writes this file (:func:`writes_file`)."""
    source = runs["source"].astype(str).to_numpy()
    folder = np.array([os.path.dirname(x) for x in source])
    name = np.array([os.path.basename(x) for x in source])
    fmt, tool, command = _strings(runs, "format"), _strings(runs, "tool"), _strings(runs, "command")
    load = as_floats(runs, "concurrency").to_numpy()
    # the free runs by tool and folder, then format: a run's writers are looked for among its folder's runs of
    # its tool in other formats, not among every run (a repository's 7,000 wrk runs in one format: none)
    near: dict[tuple, dict[Any, list[int]]] = {}
    for j in np.flatnonzero(free):
        near.setdefault((tool[j], folder[j]), {}).setdefault(fmt[j], []).append(int(j))
    out: list[list[int]] = []
    for k in range(len(runs)):
        others = near.get((tool[k], folder[k]), {}) if free[k] else {}
        out.append(sorted(
            j for f, js in others.items() if f != fmt[k] for j in js
            if (np.isnan(load[j]) or np.isnan(load[k]) or load[j] == load[k])
            and writes_file(str(tool[j]), command[j], name[k], name[j])
        ))  # fmt: skip
    return out


def written_twins(runs: pd.DataFrame, known: pd.Series) -> pd.Series:
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
    requests = as_floats(runs, "requests").to_numpy()
    free = known.isna().to_numpy(bool)
    for k, cand in enumerate(_writers(runs, free)):
        if len(cand) != 1:
            continue
        j = cand[0]
        if np.isnan(requests[j]) and not np.isnan(requests[k]):  # the file holds the result: the run is it
            if pd.isna(out.iloc[j]):
                out.iloc[j] = runs.index[k]
        elif pd.isna(out.iloc[k]) and pd.isna(out.iloc[j]):
            out.iloc[k] = runs.index[j]
    return out
