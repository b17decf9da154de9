"""Published tables back in their printed layout (:func:`as_printed`), and their printed means checked.

>>> import io
>>> spec = TableSpec(columns={"n": "concurrency", "rps": ("requests_per_s", "#/sec")})
>>> as_printed(spec.read(io.StringIO("n,rps\\n10,120.5\\n"))).loc[2].to_dict()
{'n': 10.0, 'rps': 120.5}
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import LBAnalysisError
from .layout import TableSpec, column_map

__all__ = ["as_printed", "check_printed_means"]


def as_printed(table: pd.DataFrame, spec: TableSpec | None = None) -> pd.DataFrame:
    """A table from :func:`read_table` back in its printed layout and units, one row per printed line.

    Uses the column map the table was read with (``table.attrs["spec"]``)
    unless ``spec`` is given. Fill-down columns are shown on every row.

    >>> import io
    >>> text = "flux;req;vol;req_2;vol_2\\n10;9585;4,12;14825;6,36\\n140;;;14473;5,58\\n"
    >>> spec = TableSpec(columns={"flux": "concurrency"}, sep=";", decimal=",", block_column="servers",
    ...                  blocks={1: {"req": "requests", "vol": ("bytes_per_s", "MO/sec")},
    ...                          2: {"req_2": "requests", "vol_2": ("bytes_per_s", "MO/sec")}})
    >>> as_printed(spec.read(io.StringIO(text)))  # doctest: +NORMALIZE_WHITESPACE
          flux   req   vol  req_2  vol_2
    line
    2       10  9585  4.12  14825   6.36
    3      140  <NA>   NaN  14473   5.58
    """
    layout = spec.__dict__ if spec is not None else table.attrs.get("spec")
    if not layout:
        raise LBAnalysisError("no column map: pass the TableSpec the table was read with")
    shared = column_map(layout["columns"])
    blocks = layout.get("blocks") or {None: {}}
    out = pd.DataFrame(index=pd.Index(sorted(table["line"].dropna().unique()), name="line"))
    for c in shared:
        out[c.source] = table.groupby("line")[c.target].first().map(lambda v, f=c.factor: _back(v, f))
    for label, cmap in blocks.items():
        rows = table if label is None else table[table[layout["block_column"]] == label]
        rows = rows.set_index("line")
        for c in column_map(cmap):
            out[c.source] = rows[c.target].reindex(out.index).map(lambda v, f=c.factor: _back(v, f))
    return out.apply(_plain)


def _back(v: Any, factor: float) -> Any:
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return np.nan
    if isinstance(v, (int, float, np.number)):
        return round(float(v) / factor, 10)
    return v


def _plain(s: pd.Series) -> pd.Series:
    """Whole numbers as Int64 (``9585``, not ``9585.0``), other numbers as float, text as it is."""
    num = pd.to_numeric(s, errors="coerce")
    if num.notna().sum() != s.notna().sum():
        return s
    if (num.dropna() % 1 == 0).all():
        return num.round().astype("Int64")
    return num.astype(float)


def check_printed_means(
    table: pd.DataFrame,
    by: Sequence[str],
    columns: Sequence[str] | None = None,
    *,
    kind_column: str = "row_kind",
    run: str = "run",
    mean: str = "mean",
) -> pd.DataFrame:
    """The mean of the runs of each group next to the group's printed mean row.

    For every group of ``by`` and every column (default: the numeric mapped
    columns of the table, except ``by``), the mean of the rows whose
    ``kind_column`` is ``run`` and the value of the row whose ``kind_column``
    is ``mean``. ``agrees`` is true when they differ by at most half the
    printed step of the column (``table.attrs["resolution"]``), i.e. the
    printed mean is the runs' mean rounded to the printed precision.
    Columns: ``by``…, ``column``, ``n_runs``, ``mean_of_runs``, ``printed_mean``,
    ``difference``, ``half_step``, ``agrees``; a group without a printed
    mean row has ``printed_mean`` NaN and ``agrees`` NA.

    >>> import pandas as pd
    >>> t = pd.DataFrame({"concurrency": [10, 10, 10], "requests": [14825, 15754, 15290],
    ...                   "row_kind": ["run", "run", "mean"]})
    >>> t.attrs["resolution"] = {"requests": 1.0}
    >>> check_printed_means(t, ["concurrency"])[["mean_of_runs", "printed_mean", "agrees"]]
       mean_of_runs  printed_mean  agrees
    0       15289.5       15290.0    True
    """
    by = list(by)
    resolution = table.attrs.get("resolution", {})
    if columns is None:
        columns = [c for c in resolution if c in table.columns and c not in by]
    runs = table[table[kind_column] == run]
    printed = table[table[kind_column] == mean]
    rows = []
    for key, group in runs.groupby(by, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        match = printed
        for col, k in zip(by, key, strict=True):
            match = match[match[col] == k]
        for c in columns:
            values = pd.to_numeric(group[c], errors="coerce").astype("Float64").astype(float)
            m = float(values.mean())
            p = (
                float(pd.to_numeric(match[c], errors="coerce").astype("Float64").astype(float).iloc[0])
                if len(match)
                else math.nan
            )
            half = resolution.get(c, 0.0) / 2
            diff = p - m
            ok: Any = pd.NA if math.isnan(p) else bool(abs(diff) <= half * (1 + 1e-9) + 1e-12 * abs(m))
            rows.append({**dict(zip(by, key, strict=True)), "column": c, "n_runs": int(values.notna().sum()),
                         "mean_of_runs": m, "printed_mean": p, "difference": diff, "half_step": half, "agrees": ok})  # fmt: skip
    out = pd.DataFrame(rows)
    if not out.empty:
        out["agrees"] = out["agrees"].astype("boolean")
    return out
