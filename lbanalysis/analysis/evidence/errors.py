"""Error evidence: one error share per run from the tool's own counters, and per load in words.

>>> import pandas as pd
>>> runs = pd.DataFrame({"tool": ["ab"], "requests": [100], "failed": [5], "non_2xx": [0]})
>>> error_shares(runs)["error_share"].tolist()
[0.05]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ...schema import COMMAND_REFUSED, NO_RESULT_SHOWN
from ..series import as_floats

__all__ = ["ERROR_COUNTERS", "ERROR_RATIOS", "count_of", "error_shares", "errors_per_load", "errors_per_load_by"]

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


#: Tools that print their errors as a share, not as counts: (column, the share's whole, the denominator in words).
#: autobench writes httperf's errors per 100 replies (``errors_<host>``: up to hundreds when most attempts
#: fail), so the share of attempts that failed is errors / (replies + errors) = x / (100 + x).
ERROR_RATIOS: tuple[tuple[str, float, str], ...] = (
    ("errors_per_reply_pct", 100.0, "replies + errors, from autobench's errors per 100 replies"),
)


def count_of(n: int, word: str) -> str:
    """A count and its noun, singular or plural.

    >>> count_of(1, "run"), count_of(3, "run")
    ('1 run', '3 runs')
    """
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _derived(runs: pd.DataFrame) -> dict[str, pd.Series]:
    """The counters :data:`ERROR_COUNTERS` names that are made of others (their names start with ``_``)."""
    answers, ok = as_floats(runs, "requests"), as_floats(runs, "requests_ok")
    failed, non_2xx = as_floats(runs, "failed"), as_floats(runs, "non_2xx")
    return {
        "_bad_answers": (answers - ok).clip(lower=0).where(ok.notna(), non_2xx),
        "_failed_or_non_2xx": pd.concat([failed, non_2xx], axis=1).max(axis=1),
    }


def _summed(runs: pd.DataFrame, cols: tuple[str, ...], derived: dict[str, pd.Series]) -> pd.Series:
    """The sum of some counters per run (a missing count: 0)."""
    zero = pd.Series(0.0, index=runs.index)
    return sum(((derived[c] if c in derived else as_floats(runs, c)).fillna(0) for c in cols), zero)


def _counted(runs: pd.DataFrame, out: pd.DataFrame) -> None:
    """Fill ``errors``, ``attempts`` and ``error_basis`` from the first line of :data:`ERROR_COUNTERS` each run has."""
    answers = as_floats(runs, "requests")
    derived = _derived(runs)
    todo = pd.Series(True, index=runs.index)
    for need, no_answer, bad_answer, basis in ERROR_COUNTERS:
        have = todo & pd.concat([as_floats(runs, c).notna() for c in need], axis=1).all(axis=1)
        if not have.any():
            continue
        lost, bad = _summed(runs, no_answer, derived), _summed(runs, bad_answer, derived)
        total = answers.fillna(0) + lost
        if "_failed_or_non_2xx" in bad_answer:  # ab counts a failed attempt in Complete requests, or more with -r
            total = pd.concat([answers.fillna(0), bad], axis=1).max(axis=1)
        if "requests_attempted" in need:  # the tool counts the attempts itself
            total = as_floats(runs, "requests_attempted").fillna(0)
        out.loc[have, "errors"] = (bad + lost)[have]
        out.loc[have, "attempts"] = total[have]
        out.loc[have, "error_basis"] = basis
        todo &= ~have


def _aborted(runs: pd.DataFrame, attempts: pd.Series) -> np.ndarray:
    """Runs that aborted with no answer at all, unless the tool says it sent nothing (its command line refused) or
    the output does not show the run's result (cut off, written elsewhere): those say nothing of the server."""
    if "error" not in runs:
        return np.zeros(len(runs), dtype=bool)
    silent = (
        runs["error_kind"].astype("string").isin([COMMAND_REFUSED, NO_RESULT_SHOWN]).fillna(False).to_numpy(bool)
        if "error_kind" in runs
        else np.zeros(len(runs), dtype=bool)
    )
    said = runs["error"].astype("string").fillna("").str.strip().ne("")
    return (said & ~(as_floats(runs, "requests") > 0) & ~(attempts > 0) & ~silent).to_numpy(bool)


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
    >>> error_shares(pd.DataFrame({"tool": ["autobench"], "errors_per_reply_pct": [25.0]}))["error_share"].tolist()
    [0.2]
    """
    out = pd.DataFrame({"errors": np.nan, "attempts": np.nan, "error_share": np.nan, "error_basis": ""},
                       index=runs.index)  # fmt: skip
    _counted(runs, out)
    aborted = _aborted(runs, out["attempts"])
    for col, whole, basis in ERROR_RATIOS:  # a share printed where no counts are
        x = as_floats(runs, col)
        have = x.notna() & out["errors"].isna() & ~aborted
        out.loc[have, "error_share"] = (x[have] / (whole + x[have])).clip(upper=1.0)
        out.loc[have, "error_basis"] = basis
    out.loc[aborted, "error_basis"] = "the run aborted with no answer"
    out.loc[aborted, "error_share"] = 1.0
    known = ~aborted & (out["attempts"] > 0)
    out.loc[known, "error_share"] = (out.loc[known, "errors"] / out.loc[known, "attempts"]).clip(upper=1.0)
    return out


def _sum(values: list[float]) -> float:
    """The sum of the known values (NaN: none known)."""
    known = [v for v in values if v == v]
    return float(sum(known)) if known else math.nan


def _bases(counted: list[tuple[float, float, float, Any]]) -> str:
    """The denominators of the counted runs, each named once."""
    return "; ".join(dict.fromkeys(r[3] for r in counted if isinstance(r[3], str) and r[3]))


def _one_load(f: list[tuple[float, float, float, Any]]) -> dict[str, Any]:
    """The errors of the runs at one load (each ``(bad, attempts, share, basis)``): summed, in words."""
    counted = [r for r in f if r[1] == r[1]]  # attempts known (not NaN)
    att, bad = _sum([r[1] for r in counted]), _sum([r[0] for r in f])
    n_aborted = sum(1 for r in f if r[2] == 1.0 and r[1] != r[1])
    has = att == att and att > 0
    share = bad / att if has else math.nan
    words = [f"{bad:,.0f} of {att:,.0f} {_bases(counted)}"] if has else []
    printed = [r for r in f if r[1] != r[1] and r[2] == r[2] and r[2] < 1.0]  # a share printed, no counts
    if printed and not has:
        share = sum(r[2] for r in printed) / len(printed)
        words.append(f"as a share of {_bases(printed)}")
    if n_aborted:
        share = share if words else 1.0
        words.append(f"{count_of(n_aborted, 'run')} aborted with no answer")
    return {"bad": bad, "attempts": att, "share": min(share, 1.0) if share == share else math.nan,
            "basis": ", and ".join(words) or "no counts"}  # fmt: skip


def errors_per_load(g: pd.DataFrame, load: str) -> pd.DataFrame:
    """Per load: failures, attempts, their share (at most 1) and the counts in words (aborted runs named).

    >>> g = pd.DataFrame({"concurrency": [1, 1, 2], "errors": [1, 0, None], "attempts": [10, 10, None],
    ...                   "error_share": [0.1, 0.0, 1.0], "error_basis": ["requests", "requests", ""]})
    >>> errors_per_load(g, "concurrency")[["bad", "attempts", "share", "basis"]].values.tolist()
    [[1.0, 20.0, 0.05, '1 of 20 requests'], [nan, nan, 1.0, '1 run aborted with no answer']]
    >>> g = pd.DataFrame({"rate_target_per_s": [200.0], "errors": [None], "attempts": [None], "error_share": [0.2],
    ...                   "error_basis": ["replies + errors"]})
    >>> errors_per_load(g, "rate_target_per_s")[["share", "basis"]].values.tolist()
    [[0.2, 'as a share of replies + errors']]
    """
    if not len(g):
        return pd.DataFrame.from_dict({}, orient="index", columns=list(_PER_LOAD))
    return _per_load_tables(g, as_floats(g, load), [0] * len(g))[0]


def errors_per_load_by(g: pd.DataFrame, load: pd.Series, by: str) -> dict[Any, pd.DataFrame]:
    """:func:`errors_per_load` of each group of the runs ``g`` sharing a value of the column ``by`` (``load``: each
    run's load), in one pass.

    >>> g = pd.DataFrame({"s": ["a", "b", "a"], "concurrency": [1, 2, 1], "errors": [1, 0, 0], "attempts": 10,
    ...                   "error_share": [0.1, 0.0, 0.0], "error_basis": "requests"})
    >>> errors_per_load_by(g, g["concurrency"], "s")["a"]["basis"].tolist()
    ['1 of 20 requests']
    """
    return _per_load_tables(g, load, g[by].tolist()) if len(g) else {}


def _per_load_tables(g: pd.DataFrame, load: pd.Series, keys: list[Any]) -> dict[Any, pd.DataFrame]:
    """The table of :func:`errors_per_load` of the runs of each key (``keys``: one per run), cut from one table."""
    groups: dict[Any, dict[float, list[tuple[float, float, float, Any]]]] = {}
    rows_in = zip(keys, load.fillna(-1.0).tolist(), *(as_floats(g, c).tolist() for c in _COUNTS),
                  g["error_basis"].tolist() if "error_basis" in g else [""] * len(g), strict=True)  # fmt: skip
    for key, k, bad, att, share, basis in rows_in:
        groups.setdefault(key, {}).setdefault(k, []).append((bad, att, share, basis))
    loads, rows, bounds = [], [], {}
    for key, per in groups.items():
        start = len(rows)
        for k in sorted(per):
            loads.append(k if k >= 0 else math.nan)
            rows.append(_one_load(per[k]))
        bounds[key] = (start, len(rows))
    table = pd.DataFrame({c: [r[c] for r in rows] for c in _PER_LOAD}, index=pd.Index(loads, dtype=float))
    return {key: table.iloc[a:b] for key, (a, b) in bounds.items()}


#: The counters of each run :func:`errors_per_load` sums, and its columns.
_COUNTS = ("errors", "attempts", "error_share")
_PER_LOAD = ("bad", "attempts", "share", "basis")
