"""The comparison of groups: each group against the first, ratio of mean throughput with its interval."""

from __future__ import annotations

import os
import warnings
from typing import Any

import pandas as pd

from . import charts
from .render import Section
from .study import check_column, http_runs
from .words import ABSENT, INTROS


def compare_section(
    runs: pd.DataFrame,
    group: str | None = None,
    load: str = "concurrency",
    y: str = "requests_per_s",
    output_dir: str | os.PathLike | None = None,
    max_pairs: int = 6,
) -> Section:
    """Each value of ``group`` against the first one: ratio of mean throughput with a bootstrap interval."""
    from ...analysis import compare
    from ...formatting import fmt

    title = "Comparison of groups"
    if group is None:
        return Section.empty(title, ABSENT["group"])
    check_column(runs, group, "group")
    http = http_runs(runs)
    if not len(http):
        return Section.empty(title, ABSENT["http"])
    levels = sorted(http[group].dropna().unique().tolist(), key=_natural)
    if len(levels) < 2:
        return Section.empty(title, ABSENT["one_group"].format(group=group))
    s = Section(title, intro=INTROS["compare"])
    a = levels[0]
    others = levels[1 : 1 + max_pairs]
    if len(levels) - 1 > max_pairs:
        s.add(f"{len(levels)} values of `{group}`; the first {max_pairs} are compared with `{a}`.")
    loads = http.groupby(group)[load].apply(lambda v: set(v.dropna().tolist()))
    frames = []
    for b in others:
        common = loads.get(a, set()) & loads.get(b, set())
        at = load if len(common) > 1 else None
        res, _ = _caught(compare, http, by=group, a=a, b=b, y=y, at=at, n_boot=1000)
        res = res.reset_index().rename(columns={res.index.name or "index": "at"})
        res.insert(0, "b", b)
        res.insert(0, "a", a)
        frames.append(res)
    table = pd.concat(frames, ignore_index=True)
    overall = table[table["at"].astype(str) == "overall"] if "at" in table else table
    for r in overall.itertuples():
        verdict = getattr(r, "verdict", "")
        s.add(f"{verdict}." if verdict else f"{r.b} against {r.a}: ratio {fmt(r.ratio, '', decimals=2)}")
    table = table.drop(columns=[c for c in ("verdict",) if c in table])
    s.add(charts.compare_chart(http, group, y, len(levels)))
    s.add(table)
    s.save(output_dir, "comparison")
    return s


def _caught(func: Any, *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    """Call ``func``; return its result and the warnings it gave, as lines of text."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = func(*args, **kwargs)
    return result, [str(w.message) for w in caught if not issubclass(w.category, DeprecationWarning)]


def _natural(v: Any) -> tuple:
    """Sort key that puts ``haproxy-2`` before ``haproxy-16``.

    >>> sorted(["haproxy-16", "node", "haproxy-2"], key=_natural)
    ['haproxy-2', 'haproxy-16', 'node']
    """
    import re

    if isinstance(v, (int, float)):
        return (0, v)
    return (1, tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|\D+", str(v))))
