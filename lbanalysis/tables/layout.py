"""How a published table is laid out (:class:`TableSpec`, column maps), and reading one (:func:`read_table`).

The lower half of :mod:`lbanalysis.tables`: the article packages import
their table layouts from here (``articles.haproxy_apache_siege.TABLE``),
and :mod:`lbanalysis.tables` re-exports every public name. The module
docstring of :mod:`lbanalysis.tables` describes column maps and units.
"""

from __future__ import annotations

import math
import os
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pandas as pd

from .. import schema
from ..errors import LBAnalysisError, ParseError
from ..metadata import apply_manifest, read_manifest
from ..units import PRINTED

__all__ = ["UNITS", "ColumnTarget", "MappedColumn", "TableSpec", "column_map", "read_table"]

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
class MappedColumn:
    """One printed column and where it goes: ``MappedColumn("vol", "bytes_per_s", "MO/sec", 1048576)``."""

    source: str  # printed column name
    target: str  # runs column
    unit: str  # as printed
    factor: float  # printed value * factor = SI value


def column_map(mapping: Mapping[str, ColumnTarget]) -> list[MappedColumn]:
    """A column map (printed name -> runs column or (runs column, printed unit)) as columns with their factors.

    >>> column_map({"n": "concurrency", "vol": ("bytes_per_s", "MO/sec")})[1]
    MappedColumn(source='vol', target='bytes_per_s', unit='MO/sec', factor=1048576)
    """
    cols = []
    for source, value in mapping.items():
        target, unit = (value, "") if isinstance(value, str) else value
        if not unit:  # no unit given: the printed values are in the column's own unit
            cols.append(MappedColumn(source, target, unit, 1.0))
            continue
        si, factor = _unit(unit)
        declared = schema.RUNS[target].unit if target in schema.RUNS else None
        if declared is not None and declared != si:
            raise LBAnalysisError(
                f"column {source!r}: unit {unit!r} gives {si or 'a plain number'}, "
                f"but {target!r} is in {declared or 'plain numbers'}"
            )
        cols.append(MappedColumn(source, target, unit, factor))
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
    text = _cells(source, sep, name)
    shared = column_map(columns)
    parts = {None: []} if blocks is None else {label: column_map(cmap) for label, cmap in blocks.items()}
    every = [*shared, *(c for cols in parts.values() for c in cols)]
    _require(text, [*(c.source for c in every), *fill_down], name)
    row_in_group = _groups(text, fill_down, row_kinds, name)
    values, resolution = _values(text, every, decimal, thousands, name)
    long = _long_form(text, values, shared, parts, block_column).reset_index()
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


def _cells(source: str | os.PathLike | TextIO, sep: str, name: str) -> pd.DataFrame:
    """The table's cells as stripped text, indexed by file line (the header is line 1)."""
    try:
        raw = pd.read_csv(source, sep=sep, dtype=str, keep_default_na=False, skipinitialspace=True)
    except FileNotFoundError:
        raise LBAnalysisError(f"{name}: no such file") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        raise ParseError(f"not a {sep!r}-separated table ({e})", source=name) from None
    text = raw.rename(columns=str.strip).apply(lambda s: s.str.strip())
    text.index = pd.RangeIndex(2, len(text) + 2, name="line")
    return text


def _require(text: pd.DataFrame, names: Sequence[str], name: str) -> None:
    """Raise naming the printed columns the map needs that the table does not have."""
    missing = [c for c in dict.fromkeys(names) if c not in text.columns]
    if missing:
        raise ParseError(
            f"no column(s) {', '.join(map(repr, missing))} in the table; it has: {', '.join(text.columns)}",
            source=name,
            line=1,
        )


def _groups(text: pd.DataFrame, fill_down: Sequence[str], row_kinds: Sequence[str] | None, name: str) -> pd.Series:
    """Fill down the grouping columns (in place); the 1-based row of each line in its group."""
    starts = (text[list(fill_down)] != "").any(axis=1) if fill_down else pd.Series(True, index=text.index)
    for c in fill_down:
        text[c] = text[c].where(text[c] != "").ffill().fillna("")
    row_in_group = text.groupby(starts.cumsum()).cumcount() + 1
    if row_kinds is not None and (row_in_group > len(row_kinds)).any():
        line = int((row_in_group > len(row_kinds)).idxmax())
        raise ParseError(f"a group has more rows than row_kinds {tuple(row_kinds)}", source=name, line=line)
    return row_in_group


def _values(
    text: pd.DataFrame, every: Sequence[MappedColumn], decimal: str, thousands: str | None, name: str
) -> tuple[dict[str, pd.Series], dict[str, float]]:
    """Each printed column converted (SI numbers or text), and the finest printed step of each runs column."""
    values: dict[str, pd.Series] = {}
    resolution: dict[str, float] = {}
    for c in every:
        values[c.source], step = _convert(text[c.source], c, decimal, thousands, name)
        if step is not None:
            resolution[c.target] = min(resolution.get(c.target, math.inf), step)
    return values, resolution


def _long_form(
    text: pd.DataFrame,
    values: Mapping[str, pd.Series],
    shared: Sequence[MappedColumn],
    parts: Mapping[Hashable, Sequence[MappedColumn]],
    block_column: str,
) -> pd.DataFrame:
    """One row per printed row and block (a block whose cells are all empty on a row gives none)."""
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
    return pd.concat(frames)


def _convert(
    cells: pd.Series, col: MappedColumn, decimal: str, thousands: str | None, name: str
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
