"""Figures a notebook printed as a nested Python list (:func:`read_figures`), checked against the raw files.

>>> import io
>>> read_figures(io.StringIO("[['s', [['m', [1.5]]]]]"))["requests_per_s"].tolist()
[1.5]
"""

from __future__ import annotations

import ast
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pandas as pd

from ..errors import LBAnalysisError, ParseError

__all__ = ["check_figures", "read_figures"]


def read_figures(
    source: str | os.PathLike | TextIO,
    levels: Sequence[str] = ("setup", "mode"),
    *,
    value: str = "requests_per_s",
    index: str = "run",
) -> pd.DataFrame:
    """A printed nested list of figures (a Python literal) into a tidy frame.

    The list is read with :func:`ast.literal_eval` (no code runs). Each level
    is a list of ``[label, children]`` pairs; the innermost children are the
    figures, one per run. ``levels`` names the label levels, outermost first.

    Returns one row per figure, in printed order: the ``levels`` columns,
    ``index`` (0-based position of the figure in its innermost list),
    ``value`` and ``order`` (0-based position in the whole printed list).

    >>> import io
    >>> text = "[['shared-1-cpu-1-ram', [['haproxy-2', [836.55, 780.21]], ['node', [2670.14, 2455.9]]]]]"
    >>> read_figures(io.StringIO(text))
                    setup       mode  run  requests_per_s  order
    0  shared-1-cpu-1-ram  haproxy-2    0          836.55      0
    1  shared-1-cpu-1-ram  haproxy-2    1          780.21      1
    2  shared-1-cpu-1-ram       node    0         2670.14      2
    3  shared-1-cpu-1-ram       node    1         2455.90      3
    """
    if hasattr(source, "read"):
        name, text = getattr(source, "name", None) or "<buffer>", source.read()  # type: ignore[union-attr]
    else:
        name = os.fspath(source)
        try:
            text = Path(name).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise LBAnalysisError(f"{name}: no such file") from None
    try:
        data = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError) as e:
        raise ParseError(f"not a Python literal ({type(e).__name__}: {e})", source=name, text=text[:80]) from None
    rows: list[dict[str, Any]] = []
    _walk(data, list(levels), {}, rows, name, value, index)
    out = pd.DataFrame(rows, columns=[*levels, index, value])
    out[index] = out[index].astype("int64")
    out[value] = out[value].astype("float64")
    out["order"] = np.arange(len(out))
    return out


def _walk(node: Any, levels: list[str], keys: dict, rows: list, name: str, value: str, index: str) -> None:
    where = "/".join(map(str, keys.values())) or "the top level"
    if not levels:
        if not isinstance(node, (list, tuple)) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in node
        ):
            raise ParseError(f"expected a list of numbers at {where}, got {str(node)[:60]}", source=name)
        rows.extend({**keys, index: i, value: float(v)} for i, v in enumerate(node))
        return
    if not isinstance(node, (list, tuple)):
        raise ParseError(f"expected a list of [{levels[0]}, ...] pairs at {where}", source=name)
    for item in node:
        if not (isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str)):
            raise ParseError(f"expected [{levels[0]}, [...]] at {where}, got {str(item)[:60]}", source=name)
        _walk(item[1], levels[1:], {**keys, levels[0]: item[0]}, rows, name, value, index)


def check_figures(
    figures: pd.DataFrame,
    runs: pd.DataFrame,
    keys: Sequence[str] = ("setup", "mode", "run"),
    value: str = "requests_per_s",
    *,
    strict: bool = True,
) -> pd.DataFrame:
    """Printed figures next to the values read from the raw files; raises if any differs.

    Joins ``figures`` (from :func:`read_figures`) and ``runs`` (from
    :func:`lbanalysis.read`) on ``keys``. Returns, in the printed order, the
    keys, ``printed``, ``read`` and ``equal`` (exactly the same float), then
    the other columns of ``runs``. With ``strict`` (default) a figure without
    a run, a run without a figure or a different value raises
    :class:`~lbanalysis.errors.LBAnalysisError` listing them.

    >>> import pandas as pd
    >>> fig = pd.DataFrame({"mode": ["node", "node"], "run": [0, 1], "requests_per_s": [2670.14, 2455.9]})
    >>> runs = pd.DataFrame({"mode": ["node", "node"], "run": [1, 0], "requests_per_s": [2455.9, 2670.14]})
    >>> check_figures(fig, runs, keys=["mode", "run"])[["mode", "run", "printed", "read", "equal"]]
       mode  run  printed     read  equal
    0  node    0  2670.14  2670.14   True
    1  node    1  2455.90  2455.90   True
    >>> check_figures(fig, runs.assign(requests_per_s=[2455.9, 2670.15]), keys=["mode", "run"])
    Traceback (most recent call last):
    ...
    lbanalysis.errors.LBAnalysisError: 1 printed figure(s) differ from the raw files: mode=node run=0: printed 2670.14, read 2670.15
    """
    keys = list(keys)
    for frame, what in ((figures, "figures"), (runs, "runs")):
        absent = [k for k in [*keys, value] if k not in frame.columns]
        if absent:
            raise LBAnalysisError(f"no column(s) {', '.join(absent)} in {what}")
    left = figures[[*keys, value]].rename(columns={value: "printed"})
    right = runs.rename(columns={value: "read"})
    for k in keys:  # join on plain values whatever the dtypes (Int64 vs int64, string vs object)
        left[k] = left[k].astype(object)
        right[k] = right[k].astype(object)
    merged = left.merge(right, on=keys, how="outer", indicator=True, sort=False)
    printed = pd.to_numeric(merged["printed"]).astype(float)
    read = pd.to_numeric(merged["read"], errors="coerce").astype("Float64").astype(float)
    merged["printed"], merged["read"] = printed, read
    merged["equal"] = (merged["_merge"] == "both") & (printed == read)
    first = [*keys, "printed", "read", "equal"]
    merged = merged[first + [c for c in merged.columns if c not in first]]
    problems = []
    for _, r in merged[~merged["equal"]].iterrows():
        at = " ".join(f"{k}={r[k]}" for k in keys)
        if r["_merge"] == "left_only":
            problems.append(f"{at}: printed {r['printed']:g}, no run read")
        elif r["_merge"] == "right_only":
            problems.append(f"{at}: read {r['read']:g}, not printed")
        else:
            problems.append(f"{at}: printed {r['printed']:g}, read {r['read']:g}")
    merged = merged.drop(columns="_merge")
    merged[keys] = merged[keys].infer_objects()
    if "order" in figures.columns:
        order = figures.set_index(keys)["order"]
        pos = merged.set_index(keys).index.map(lambda k: order.get(k, np.nan))
        merged = merged.iloc[np.argsort(np.asarray(pos, dtype=float), kind="stable")].reset_index(drop=True)
    if problems and strict:
        raise LBAnalysisError(
            f"{len(problems)} printed figure(s) differ from the raw files: " + "; ".join(problems[:10])
        )
    return merged
