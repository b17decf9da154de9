"""Published tables into the runs schema: figures an article printed, not tool output.

Some articles publish their results as a table or as a printed list instead
of the tool's output. This module reads such figures, as they were copied
from the text (``data/raw/<slug>/``), into the same tidy ``runs`` frame that
:func:`lbanalysis.read` builds from tool output, so the analysis layer does
not care where a number came from.

:func:`read_table`
    A delimited table driven by a *column map* (printed column → runs
    column and printed unit). It reads decimal commas (``0,09``), fills down
    grouping columns printed once per group, converts units to the schema's
    SI units (``MO/sec`` → B/s), labels the rows of each group
    (``row_kinds``: runs and printed means) and turns side-by-side *blocks*
    of columns (one server | two servers) into long form with a column
    saying which block a row came from. :class:`TableSpec` bundles these
    arguments (the article notebooks keep their own specs).
:func:`as_printed`
    The inverse: a tidy table back in the printed layout and units.
:func:`check_printed_means`
    Whether a table's printed mean rows are the means of its runs, to the
    printed precision, next to the recomputed means.
:func:`read_figures`
    A nested list printed by a notebook (a Python literal such as
    ``[['setup', [['mode', [1.0, 2.0]], ...]], ...]``) into a tidy frame.
:func:`check_figures`
    Whether those figures equal the values read from the raw files.

Column map
----------
Keys are the table's column names (its header row); values name the runs
column, alone or with the unit as printed::

    {"flux": "concurrency", "req": "requests", "moy": ("latency_mean_s", "(sec)"),
     "vol": ("bytes_per_s", "MO/sec")}

Units are looked up in :data:`UNITS` (brackets and spaces around the unit
are ignored) and must give the unit :mod:`lbanalysis.schema` declares for the
column, e.g. ``MO/sec`` gives B/s for ``bytes_per_s``; a column given
without a unit is taken as printed in the schema's unit already. Byte prefixes follow
the tools' conventions (:mod:`lbanalysis.units`): siege's ``MB/sec`` (and the
French ``Mo``/``MO``, the same figure translated) is 2^20 bytes per second;
ab's ``Kbytes/sec`` is 1024 bytes per second.

Example: the first lines of article 003's table (semicolons, decimal commas,
client count printed once per group of three rows, two halves):

>>> import io
>>> text = ("flux;req;moy;mini;maxi;vol;req_2;moy_2;mini_2;maxi_2;vol_2\\n"
...         "10;9585;0,09;0,02;0,35;4,12;14825;0,06;0,01;1,52;6,36\\n"
...         ";9637;0,09;0,02;0,34;4,12;15754;0,06;0,01;1,07;6,71\\n"
...         ";9611;0,09;0,02;0,35;4,12;15290;0,06;0,01;1,30;6,54\\n")
>>> half = lambda sfx: {f"req{sfx}": ("requests", "nombre"), f"moy{sfx}": ("latency_mean_s", "(sec)"),
...                     f"vol{sfx}": ("bytes_per_s", "MO/sec")}
>>> spec = TableSpec(columns={"flux": ("concurrency", "nombre")}, blocks={1: half(""), 2: half("_2")},
...                  block_column="servers", sep=";", decimal=",", fill_down=("flux",),
...                  row_kinds=("run", "run", "mean"))
>>> t = spec.read(io.StringIO(text))
>>> t[["servers", "concurrency", "requests", "latency_mean_s", "row_kind"]].head(3)
   servers  concurrency  requests  latency_mean_s row_kind
0        1           10      9585            0.09      run
1        1           10      9637            0.09      run
2        1           10      9611            0.09     mean
>>> t.loc[0, "bytes_per_s"] / 2**20, t.loc[3, "servers"], t.loc[3, "requests"]
(4.12, 2, 14825)
"""

from __future__ import annotations

import ast
import math
import os
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pandas as pd

from . import schema
from .errors import LBAnalysisError, ParseError
from .metadata import apply_manifest, read_manifest
from .units import PRINTED

__all__ = [
    "UNITS",
    "TableSpec",
    "as_printed",
    "check_figures",
    "check_printed_means",
    "read_figures",
    "read_table",
]

ColumnTarget = str | tuple[str, str]
"""A column map value: the runs column, or (runs column, unit as printed)."""

#: Units as printed in a table -> (SI unit, factor): the table in :mod:`lbanalysis.units`.
UNITS: dict[str, tuple[str, float]] = PRINTED


def _unit(text: str) -> tuple[str, float]:
    key = text.strip().strip("()[]").strip()
    try:
        return UNITS[key]
    except KeyError:
        raise LBAnalysisError(f"unknown unit {text!r}; known units: {', '.join(repr(u) for u in UNITS)}") from None


@dataclass(frozen=True)
class _Col:
    source: str  # printed column name
    target: str  # runs column
    unit: str  # as printed
    factor: float  # printed value * factor = SI value


def _columns(mapping: Mapping[str, ColumnTarget]) -> list[_Col]:
    cols = []
    for source, value in mapping.items():
        target, unit = (value, "") if isinstance(value, str) else value
        if not unit:  # no unit given: the printed values are in the column's own unit
            cols.append(_Col(source, target, unit, 1.0))
            continue
        si, factor = _unit(unit)
        declared = schema.RUNS[target].unit if target in schema.RUNS else None
        if declared is not None and declared != si:
            raise LBAnalysisError(
                f"column {source!r}: unit {unit!r} gives {si or 'a plain number'}, "
                f"but {target!r} is in {declared or 'plain numbers'}"
            )
        cols.append(_Col(source, target, unit, factor))
    return cols


def _number(text: str, decimal: str, thousands: str | None, where: tuple[str, int, str]) -> float:
    s = text.strip()
    if thousands:
        s = s.replace(thousands, "")
    if decimal != ".":
        if "." in s:
            raise ParseError(f"{s!r} has a '.' but the decimal mark is {decimal!r}", source=where[0], line=where[1])
        s = s.replace(decimal, ".")
    try:
        return float(s)
    except ValueError:
        raise ParseError(f"column {where[2]!r}: not a number: {text!r}", source=where[0], line=where[1]) from None


def _decimals(text: str, decimal: str) -> int:
    s = text.strip()
    return len(s) - s.index(decimal) - 1 if decimal in s else 0


@dataclass(frozen=True)
class TableSpec:
    """How a published table is laid out: the arguments of :func:`read_table`, kept together.

    >>> spec = TableSpec(columns={"n": "concurrency", "rps": ("requests_per_s", "#/sec")})
    >>> import io
    >>> spec.read(io.StringIO("n,rps\\n10,120.5\\n20,230\\n"))[["concurrency", "requests_per_s"]]
       concurrency  requests_per_s
    0           10           120.5
    1           20           230.0
    """

    columns: Mapping[str, ColumnTarget]
    blocks: Mapping[Hashable, Mapping[str, ColumnTarget]] | None = None
    block_column: str = "block"
    sep: str = ","
    decimal: str = "."
    thousands: str | None = None
    fill_down: tuple[str, ...] = ()
    row_kinds: tuple[str, ...] | None = None
    constants: Mapping[str, Any] = field(default_factory=dict)

    def read(self, source: str | os.PathLike | TextIO, *, manifest: Any = True) -> pd.DataFrame:
        """Read ``source`` with this layout (see :func:`read_table`)."""
        return read_table(
            source,
            self.columns,
            blocks=self.blocks,
            block_column=self.block_column,
            sep=self.sep,
            decimal=self.decimal,
            thousands=self.thousands,
            fill_down=self.fill_down,
            row_kinds=self.row_kinds,
            constants=self.constants,
            manifest=manifest,
        )


def read_table(
    source: str | os.PathLike | TextIO,
    columns: Mapping[str, ColumnTarget],
    *,
    blocks: Mapping[Hashable, Mapping[str, ColumnTarget]] | None = None,
    block_column: str = "block",
    sep: str = ",",
    decimal: str = ".",
    thousands: str | None = None,
    fill_down: Sequence[str] = (),
    row_kinds: Sequence[str] | None = None,
    constants: Mapping[str, Any] | None = None,
    manifest: str | os.PathLike | pd.DataFrame | bool | None = True,
) -> pd.DataFrame:
    """Read a published table into the runs schema, driven by a column map.

    Parameters
    ----------
    source
        Path of the table (delimited text, header row first) or an open buffer.
        Cells are read as text, character for character: nothing is edited
        in the file to suit the reader.
    columns
        Column map (see the module docstring) of the columns shared by every
        row: printed name → runs column or (runs column, printed unit).
        Cells of a string column of the schema stay text; the others must be
        numbers (a column the schema does not know stays text when any of its
        cells is not a number).
    blocks
        Side-by-side halves of the table: block label → column map of that
        half. Each printed row gives one row per block, with ``block_column``
        holding the label (long form, block by block); a row whose cells in
        a block are all empty gives no row for it.
    sep, decimal, thousands
        Field separator, decimal mark (``","`` for ``0,09``) and thousands
        separator of the printed numbers. A ``.`` in a cell when the decimal
        mark is ``,`` is an error, not a guess.
    fill_down
        Printed columns shown once per group (empty on the following rows):
        each empty cell takes the value above it. A non-empty cell starts a
        new group; ``row_in_group`` numbers the rows of each group from 1.
    row_kinds
        Labels of the rows of a group by position, in column ``row_kind``
        (e.g. ``("run", "run", "mean")`` when the third row prints the mean
        of the first two). A group with more rows than labels is an error.
    constants
        Columns set on every row (e.g. ``{"format": "table"}``).
    manifest
        As in :func:`lbanalysis.read`: ``True`` applies the ``manifest.csv``
        next to the file (if any), a path or frame applies that one.

    Returns the runs frame (:func:`lbanalysis.schema.conform`) with ``source``
    (the path as given), ``run`` (0-based row of the result), ``line``
    (1-based line of the file, the header being line 1) and the mapped
    columns in SI units, then the extra columns (``block_column``,
    ``row_in_group``, ``row_kind``, manifest columns). ``attrs["resolution"]``
    maps each numeric mapped column to its printed step in SI units (``0,09``
    s → 0.01 s), which :func:`check_printed_means` uses.

    >>> import io
    >>> text = "size;rate\\n1k;\\n;2,5\\n4k;3\\n"
    >>> t = read_table(io.StringIO(text), {"size": "label", "rate": ("bytes_per_s", "KB/s")},
    ...                sep=";", decimal=",", fill_down=["size"])
    >>> t[["label", "bytes_per_s", "line", "row_in_group"]]
      label  bytes_per_s  line  row_in_group
    0    1k          NaN     2             1
    1    1k       2560.0     3             2
    2    4k       3072.0     4             1
    >>> t.attrs["resolution"]
    {'bytes_per_s': 102.4}
    """
    name = (getattr(source, "name", None) or "<buffer>") if hasattr(source, "read") else os.fspath(source)  # type: ignore[arg-type]
    try:
        raw = pd.read_csv(source, sep=sep, dtype=str, keep_default_na=False, skipinitialspace=True)
    except FileNotFoundError:
        raise LBAnalysisError(f"{name}: no such file") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        raise ParseError(f"not a {sep!r}-separated table ({e})", source=name) from None
    text = raw.rename(columns=str.strip).apply(lambda s: s.str.strip())
    text.index = pd.RangeIndex(2, len(text) + 2, name="line")  # file lines: the header is line 1

    shared = _columns(columns)
    parts = {None: []} if blocks is None else {label: _columns(cmap) for label, cmap in blocks.items()}
    every = [*shared, *(c for cols in parts.values() for c in cols)]
    missing = [c for c in dict.fromkeys([*(c.source for c in every), *fill_down]) if c not in text.columns]
    if missing:
        raise ParseError(
            f"no column(s) {', '.join(map(repr, missing))} in the table; it has: {', '.join(text.columns)}",
            source=name,
            line=1,
        )

    # fill down the grouping columns; number the rows of each group
    starts = (text[list(fill_down)] != "").any(axis=1) if fill_down else pd.Series(True, index=text.index)
    for c in fill_down:
        text[c] = text[c].where(text[c] != "").ffill().fillna("")
    row_in_group = text.groupby(starts.cumsum()).cumcount() + 1
    if row_kinds is not None and (row_in_group > len(row_kinds)).any():
        line = int((row_in_group > len(row_kinds)).idxmax())
        raise ParseError(f"a group has more rows than row_kinds {tuple(row_kinds)}", source=name, line=line)

    values: dict[str, pd.Series] = {}
    resolution: dict[str, float] = {}
    for c in every:
        values[c.source], step = _convert(text[c.source], c, decimal, thousands, name)
        if step is not None:
            resolution[c.target] = min(resolution.get(c.target, math.inf), step)

    frames = []
    for label, cols in parts.items():
        if cols:
            keep = pd.concat([text[c.source] != "" for c in cols], axis=1).any(axis=1)
        else:
            keep = pd.Series(True, index=text.index)
        part = pd.DataFrame({c.target: values[c.source][keep] for c in [*shared, *cols]})
        if label is not None:
            part[block_column] = label
        frames.append(part)
    long = pd.concat(frames).reset_index()
    long.insert(0, "source", name)
    long.insert(1, "run", np.arange(len(long)))
    for k, v in (constants or {}).items():
        long[k] = v
    long["row_in_group"] = row_in_group.loc[long["line"]].to_numpy()
    if row_kinds is not None:
        long["row_kind"] = [row_kinds[i - 1] for i in long["row_in_group"]]
    runs = _manifest(schema.conform(long, "runs"), source, manifest)
    runs.attrs["resolution"] = resolution
    runs.attrs["spec"] = {"columns": dict(columns), "blocks": dict(blocks or {}), "block_column": block_column}
    return runs


def _convert(
    cells: pd.Series, col: _Col, decimal: str, thousands: str | None, name: str
) -> tuple[pd.Series, float | None]:
    """One printed column as SI numbers (or text) and its printed step (None for text)."""
    known = schema.RUNS.get(col.target)
    if known is not None and known.dtype == "string" and not col.unit:
        return cells.where(cells != "", None).astype(object), None
    out, places = [], 0
    for line, cell in cells.items():
        if cell == "":
            out.append(np.nan)
            continue
        try:
            out.append(_number(cell, decimal, thousands, (name, int(line), col.source)) * col.factor)
        except ParseError:
            if known is None and not col.unit:  # a column the schema does not know: keep it as text
                return cells.where(cells != "", None).astype(object), None
            raise
        places = max(places, _decimals(cell, decimal))
    return pd.Series(out, index=cells.index, dtype=float), col.factor * 10.0**-places


def _manifest(runs: pd.DataFrame, source: Any, manifest: Any) -> pd.DataFrame:
    if manifest is None or manifest is False or runs.empty:
        return runs
    if isinstance(manifest, pd.DataFrame):
        m = manifest.assign(_dir=manifest.get("_dir", str(Path.cwd())))
    elif manifest is True:
        if hasattr(source, "read"):
            return runs
        found = Path(os.fspath(source)).resolve().parent / "manifest.csv"
        if not found.is_file():
            return runs
        m = read_manifest(found)
    else:
        m = read_manifest(manifest)
    if hasattr(source, "read"):
        return runs
    runs["_abs"] = str(Path(os.fspath(source)).resolve())
    runs, _ = apply_manifest(runs, m.astype({c: object for c in m.columns}))
    return runs.drop(columns="_abs")


# ------------------------------------------------------------- inverse ---
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
    shared = _columns(layout["columns"])
    blocks = layout.get("blocks") or {None: {}}
    out = pd.DataFrame(index=pd.Index(sorted(table["line"].dropna().unique()), name="line"))
    for c in shared:
        out[c.source] = table.groupby("line")[c.target].first().map(lambda v, f=c.factor: _back(v, f))
    for label, cmap in blocks.items():
        rows = table if label is None else table[table[layout["block_column"]] == label]
        rows = rows.set_index("line")
        for c in _columns(cmap):
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


# ------------------------------------------------------------- figures ---
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


def __getattr__(name: str) -> Any:
    # Article 003's table spec moved to the articles package (deprecated here).
    if name == "HAPROXY_APACHE_SIEGE":
        import warnings

        warnings.warn(
            "lbanalysis.tables.HAPROXY_APACHE_SIEGE moved to articles.haproxy_apache_siege.TABLE "
            "(the article code lives in the project's articles package)",
            DeprecationWarning,
            stacklevel=2,
        )
        from articles.haproxy_apache_siege import TABLE

        return TABLE
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
