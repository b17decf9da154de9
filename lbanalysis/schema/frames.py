"""The tables by name (:data:`TABLES`), and frames built to them: :func:`conform`, :func:`empty`, :func:`describe`.

>>> list(empty("phases").columns)[:3]
['source', 'run', 'phase']
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping
from functools import cache, partial
from itertools import chain

import numpy as np
import pandas as pd

from .columns import B, Column, F, I, S, T
from .cpu import CPU
from .detail import HISTOGRAM, INTERVALS, METRICS, PERCENTILES, PHASES, REQUESTS, SERVERS, STREAMS
from .runs import RUNS

__all__ = ["TABLES", "absent_columns", "categorical", "conform", "describe", "empty", "markdown", "missing_array"]


TABLES: dict[str, dict[str, Column]] = {
    "runs": RUNS,
    "percentiles": PERCENTILES,
    "phases": PHASES,
    "requests": REQUESTS,
    "intervals": INTERVALS,
    "servers": SERVERS,
    "streams": STREAMS,
    "histogram": HISTOGRAM,
    "metrics": METRICS,
    "cpu": CPU,
}


def _table(table: str | Mapping[str, Column]) -> Mapping[str, Column]:
    if isinstance(table, str):
        try:
            return TABLES[table]
        except KeyError:
            raise ValueError(f"unknown table {table!r}; known tables: {', '.join(TABLES)}") from None
    return table


def empty(table: str) -> pd.DataFrame:
    """An empty frame with the table's columns and dtypes.

    >>> list(empty("percentiles").columns)
    ['source', 'run', 'percentile', 'latency_s', 'kind', 'count']
    """
    if isinstance(table, str) and table in TABLES:
        return _template(table).copy(deep=not _COPY_ON_WRITE)  # with copy on write, a change copies what it changes
    cols = _table(table)
    return pd.DataFrame({n: pd.Series(dtype=c.dtype) for n, c in cols.items()})


_TEMPLATES: dict[str, pd.DataFrame] = {}
_COPY_ON_WRITE = int(pd.__version__.split(".")[0]) >= 3  # always on from pandas 3


def _template(table: str) -> pd.DataFrame:
    """The cached empty frame of a named table (never handed out: copy it)."""
    t = _TEMPLATES.get(table)
    if t is None:
        cols = TABLES[table]
        t = _TEMPLATES[table] = pd.DataFrame({n: pd.Series(dtype=c.dtype) for n, c in cols.items()})
    return t


def _nanoseconds(times: pd.Series) -> pd.Series:
    """Times in the schema's unit (nanoseconds, naive UTC); a time beyond what that unit holds (before 1677 or after
    2262: a damaged year) is NaT, as a time that cannot be read is.

    >>> times = pd.Series(pd.to_datetime(["2026-11-27 15:28:30", "-5-11-27 15:28:30"], format="mixed"))
    >>> _nanoseconds(times).isna().tolist(), str(_nanoseconds(times).dtype)
    ([False, True], 'datetime64[ns]')
    """
    if str(times.dtype) == T:
        return times
    if getattr(times.dtype, "tz", None) is not None:
        times = times.dt.tz_convert("UTC").dt.tz_localize(None)
    return times.where(times.between(pd.Timestamp.min, pd.Timestamp.max)).astype(T)


def _cast(s: pd.Series, dtype: str) -> pd.Series:
    if str(s.dtype) == dtype:
        return s
    if dtype == T:
        return _nanoseconds(s if s.dtype.kind == "M" else _times(s))
    if dtype == I:
        return pd.to_numeric(s, errors="raise").round().astype("Int64") if s.dtype == object else s.astype("Int64")
    if dtype == F:
        return pd.to_numeric(s, errors="coerce").astype("float64")
    if dtype == B:
        return s.astype("boolean")
    if dtype == "category":
        return s.astype("category")
    return s.astype("string")


def _times(s: pd.Series) -> pd.Series:
    """Texts (or objects) as times, one that cannot be read NaT, without pandas' warning that it parses each
    value on its own when no one format fits them all (a damaged time among the others): that is what is asked.

    >>> _times(pd.Series(["2026-11-27 15:28:30", "not a time", None])).isna().tolist()
    [False, True, True]
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Could not infer format", UserWarning)
        return pd.to_datetime(s, errors="coerce")


def missing_array(dtype: str, n: int):
    """An all-missing array of ``n`` values of a schema dtype, built in O(1) Python work.

    >>> bool(missing_array("Int64", 3).isna().all()), str(missing_array("string", 2).dtype)
    (True, 'string')
    """
    if dtype == F:
        return np.full(n, np.nan)
    if dtype == T:
        return np.full(n, np.datetime64("NaT"), dtype="datetime64[ns]")
    if dtype == I:
        return pd.arrays.IntegerArray(np.zeros(n, dtype=np.int64), np.ones(n, dtype=bool))
    if dtype == B:
        return pd.arrays.BooleanArray(np.zeros(n, dtype=bool), np.ones(n, dtype=bool))
    if dtype == "category":
        return pd.Categorical.from_codes(np.full(n, -1, dtype=np.int8), dtype=_no_categories(), validate=False)
    return _null_strings(n, dtype) if n else pd.array([], dtype=dtype)


@cache
def _no_categories() -> pd.CategoricalDtype:
    """The dtype of a category column with no categories (made once: pandas takes 60 µs to build it, and a read
    builds every absent category column of its tables; a dtype is immutable)."""
    return pd.CategoricalDtype([])


def _label_dtype():
    """The dtype pandas infers for texts: ``str`` when it infers strings (the default from pandas 3), else ``object``.

    >>> _label_dtype() == pd.Index(["x"]).dtype
    True
    """
    return pd.StringDtype(na_value=np.nan) if _infers_strings() else np.dtype(object)


def _infers_strings() -> bool:
    """Whether pandas infers its ``str`` dtype for texts (its own test, which asking the option would warn of)."""
    try:
        from pandas._config import using_string_dtype
    except ImportError:  # pragma: no cover - a pandas before 2.2, which infers object
        return False
    return bool(using_string_dtype())


def categorical(codes: np.ndarray, names: list[str]) -> pd.Categorical:
    """Codes into distinct ``names`` as a Categorical, of the dtype pandas would infer from the names.

    ``from_codes(codes, categories=names)`` takes 190 µs for one file's name: it infers the names' dtype, checks that
    they are distinct (building the hash table of a new index) and checks every code. The caller's names are
    distinct and its codes in range: a quarter of that here.

    >>> c = categorical(np.array([0, 1, 0], dtype=np.int8), ["a.txt", "b.txt"])
    >>> c.tolist(), c.dtype == pd.Categorical.from_codes([0], categories=["a.txt", "b.txt"]).dtype
    (['a.txt', 'b.txt', 'a.txt'], True)
    """
    categories = pd.Index(names, dtype=_label_dtype())
    try:  # the names are distinct: the check of a new index costs 100 µs (its hash table built)
        dtype = pd.CategoricalDtype._from_fastpath(categories, False)
    except (AttributeError, TypeError):  # pragma: no cover - a pandas without it
        dtype = pd.CategoricalDtype(categories)
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)


def absent_columns(
    table: str | Mapping[str, Column], present: Iterable[str], n: int, *, shared: bool = False
) -> tuple[dict[str, object], list[Callable[[], object]]]:
    """All-missing arrays of ``n`` values for the table's columns not in ``present``, and the tasks that fill them.

    For a reader of millions of rows: the float and datetime columns are rows
    of one block (one allocation takes far fewer page faults than one per
    column), left to be filled by the tasks, which may run on several
    threads (NumPy releases the GIL while filling). Run every task before
    using the arrays.

    ``shared=True``: every absent float column is one Series of NaN, and
    every absent datetime column one of NaT, for ``pd.DataFrame(...,
    copy=False)``. pandas' copy-on-write tracks the columns built from one
    Series, so a write to one column copies it first and leaves the others
    as they were; nothing is written for the other columns (a million-row
    ab ``-g`` read has ten such columns: 80 MB it need not fill).

    >>> cols, fills = absent_columns("percentiles", ["source", "run", "percentile"], 2)
    >>> for fill in fills:
    ...     _ = fill()
    >>> sorted(cols), cols["latency_s"].tolist(), bool(cols["count"].isna().all())
    (['count', 'kind', 'latency_s'], [nan, nan], True)
    >>> cols, fills = absent_columns("requests", ["run"], 2, shared=True)
    >>> [fill() for fill in fills] and cols["dns_s"] is cols["tls_s"], cols["dns_s"].tolist()
    (True, [nan, nan])
    """
    cols = _table(table)
    have = set(present)
    absent = {name: col.dtype for name, col in cols.items() if name not in have}
    out, fills = _shared_missing(absent, n) if shared else ({}, [])
    wide = [name for name, dtype in absent.items() if dtype in (F, T) and name not in out]
    block = np.empty((len(wide), n))
    for name, row in zip(wide, block, strict=True):
        if absent[name] == T:
            ints = row.view(np.int64)
            fills.append(partial(ints.fill, np.iinfo(np.int64).min))  # NaT
            out[name] = ints.view("datetime64[ns]")
        else:
            fills.append(partial(row.fill, np.nan))
            out[name] = row
    ints = [name for name, dtype in absent.items() if dtype == I]
    if ints:  # as the floats: rows of one block (one array per column still: none is written through another)
        values, masks = np.zeros((len(ints), n), dtype=np.int64), np.ones((len(ints), n), dtype=bool)
        out.update((name, _integers(v, m)) for name, v, m in zip(ints, values, masks, strict=True))
    # the Arrow data is immutable: every string column holds the same nulls, each in an array of its own (a copy
    # of the first array shares its data, at a fifth of the cost of a new one)
    nulls = _arrow_nulls(n) if n and S in absent.values() else None
    strings = _arrow_strings(nulls) if nulls is not None else None
    for name, dtype in absent.items():
        if name not in out:
            out[name] = strings.copy() if strings is not None and dtype == S else missing_array(dtype, n)
    return {name: out[name] for name in absent}, fills


def missing_in_all(frames: Iterable[pd.DataFrame], names: Iterable[str]) -> list[str]:
    """The float and datetime columns of ``names`` that hold no value in any of the frames (a column a frame does
    not have holds none there): what a concatenation of the frames need not copy, as :func:`conform` builds such a
    column again, all missing (the columns a reader left absent: ten of the ab ``-g`` requests table's).

    Looked at block by block, each column's first value first and each array once (the absent columns of a frame
    share one): a Series per column and frame would cost more than the copy it saves. A column of another kind,
    or of a frame whose blocks cannot be looked at so, is not missing everywhere.

    >>> a = pd.DataFrame({"x": [1.0, np.nan], "y": [np.nan, np.nan], "t": pd.to_datetime([None, None])})
    >>> missing_in_all([a, a.assign(x=np.nan)], ["x", "y", "t", "z"])
    ['t', 'y', 'z']
    """
    blank = set(names)
    for df in frames:
        try:
            blocks, columns = df._mgr.blocks, df.columns
        except AttributeError:  # pragma: no cover - a pandas without them
            return []
        here: set[str] = set()  # the columns of this frame that hold no value
        known: dict[tuple[int, int], bool] = {}  # (address, length) of an array looked at -> all missing
        for blk in blocks:
            values = getattr(blk.values, "_ndarray", blk.values)  # a datetime block's values: their int64 array
            if not isinstance(values, np.ndarray) or values.ndim != 2 or values.dtype.kind not in "fM":
                continue
            nan = np.isnan if values.dtype.kind == "f" else np.isnat
            for loc, row in zip(blk.mgr_locs.as_array, values, strict=True):
                name = columns[loc]
                if name not in blank:
                    continue
                key = (row.__array_interface__["data"][0], len(row))
                if key not in known:
                    known[key] = not len(row) or (bool(nan(row[0])) and bool(nan(row).all()))
                if known[key]:
                    here.add(name)
        blank = {c for c in blank if c in here or c not in columns}
    return sorted(blank)


def _shared_missing(absent: Mapping[str, str], n: int) -> tuple[dict[str, object], list[Callable[[], object]]]:
    """One Series of NaN for every absent float column and one of NaT for every datetime column, and their fills.

    >>> out, fills = _shared_missing({"a": F, "b": F, "t": T, "s": S}, 1)
    >>> [fill() for fill in fills] and sorted(out), out["a"] is out["b"], out["t"].tolist()
    (['a', 'b', 't'], True, [NaT])
    """
    kinds = [dtype for dtype in (F, T) if dtype in absent.values()]
    out: dict[str, object] = {}
    fills: list[Callable[[], object]] = []
    for dtype, row in zip(kinds, np.empty((len(kinds), n)), strict=True):  # one allocation for both
        values = row.view(np.int64) if dtype == T else row
        fills.append(partial(values.fill, np.iinfo(np.int64).min if dtype == T else np.nan))
        series = pd.Series(values.view("datetime64[ns]") if dtype == T else values, copy=False)
        out.update((name, series) for name, d in absent.items() if d == dtype)
    return out, fills


def _integers(values: np.ndarray, mask: np.ndarray) -> pd.arrays.IntegerArray:
    """An Int64 array of int64 ``values`` and a boolean ``mask`` (True: missing), without pandas' checks of them.

    >>> _integers(np.array([1, 0]), np.array([False, True])).tolist()
    [1, <NA>]
    """
    try:  # a read builds the 64 absent Int64 columns of the runs table: the public constructor's checks are 4 µs each
        return pd.arrays.IntegerArray._simple_new(values, mask)
    except (AttributeError, TypeError):  # pragma: no cover - a pandas without it
        return pd.arrays.IntegerArray(values, mask)


def _arrow_nulls(n: int):
    """An Arrow array of ``n`` null strings, or None without pyarrow."""
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - without pyarrow
        return None
    return pa.nulls(n, pa.large_string())


def _arrow_strings(values) -> pd.api.extensions.ExtensionArray | None:
    """A pyarrow array of strings (or nulls) as the schema's string array, if that is its storage.

    ``pd.StringDtype()`` follows pandas' ``mode.string_storage``; without
    pyarrow, or with python storage, this returns None and the caller builds
    the array the slow way. Several times faster than ``pd.array(list)``.
    """
    try:
        arr = pd.arrays.ArrowStringArray(values)
    except (ImportError, TypeError, ValueError):  # pragma: no cover - without pyarrow
        return None
    return arr if arr.dtype == pd.StringDtype() else None


def _null_strings(n: int, dtype: str):
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - without pyarrow
        return pd.array(np.full(n, None, dtype=object), dtype=dtype)
    arr = _arrow_strings(pa.nulls(n, pa.large_string())) if dtype == S else None
    return arr if arr is not None else pd.array(np.full(n, None, dtype=object), dtype=dtype)


def _strings(vals: list):
    """Plain ``str``/None values as a schema string array.

    >>> _strings(["a", None]).tolist()
    ['a', <NA>]
    """
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - without pyarrow
        return pd.array(vals, dtype=S)
    try:
        arr = _arrow_strings(pa.array(vals, type=pa.large_string()))
    except (pa.ArrowException, TypeError, ValueError):  # pragma: no cover - checked by the caller
        arr = None
    return arr if arr is not None else pd.array(vals, dtype=S)


def conform(
    rows: Iterable[Mapping] | pd.DataFrame,
    table: str | Mapping[str, Column],
    *,
    given: Mapping[str, object] | None = None,
) -> pd.DataFrame:
    """Build a frame from rows (or a frame) with the table's dtypes and order.

    Schema columns come first in schema order; every column the schema does
    not know is kept after them, as it is (readers may add tool-specific
    extras, documented in their module). ``given``: for rows, columns built
    already (arrays of the column's dtype, a value per row), used as they are.

    >>> conform([{"percentile": 50, "latency_s": 0.1, "source": "x", "run": 0}],
    ...         "percentiles").dtypes.astype(str).tolist()
    ['category', 'Int64', 'float64', 'float64', 'string', 'Int64']
    """
    cols = _table(table)
    if not isinstance(rows, pd.DataFrame):
        return _from_rows(list(rows), cols, given)
    df = rows
    if _conformed(df, cols):  # built to the table already (a reader's rows, put together by read)
        return df.copy(deep=False)
    if not isinstance(df.index, pd.RangeIndex) or df.index.start != 0 or df.index.step != 1:
        df = df.reset_index(drop=True)
    present = set(df.columns)
    absent = [name for name in cols if name not in present]
    if absent and len(df) < 1000 and isinstance(table, str) and table in TABLES:
        # few rows, many absent columns (a runs table): reindex the cached empty frame once
        filler = _template(table)[absent].reindex(df.index)
    else:  # many rows: the absent columns built as a large reader builds them (one block, filled once)
        filler, fills = absent_columns(cols, present, len(df), shared=True)
        for fill in fills:
            fill()
    out = {}
    for name, col in cols.items():
        out[name] = _cast(df[name], col.dtype) if name in present else filler[name]
    extra = [c for c in df.columns if c not in cols]
    result = pd.DataFrame(out, index=df.index, copy=False)
    for c in extra:
        result[c] = df[c]
    return result.reset_index(drop=True)


def _conformed(df: pd.DataFrame, cols: Mapping[str, Column]) -> bool:
    """Whether a frame holds exactly the table's columns, in order, with their dtypes, on a 0..n-1 index.

    >>> _conformed(empty("percentiles"), TABLES["percentiles"]), _conformed(empty("phases"), TABLES["percentiles"])
    (True, False)
    """
    index = df.index
    if not isinstance(index, pd.RangeIndex) or index.start != 0 or index.step != 1 or len(df.columns) != len(cols):
        return False
    dtypes = df.dtypes
    return all(n == c and str(d) == cols[c].dtype for n, c, d in zip(df.columns, cols, dtypes, strict=True))


_STR_OR_NONE = {str, type(None)}
_INT_OR_NONE = {int, type(None)}


def records_frame(rows: list[Mapping], columns: list[str], dtypes: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The frame ``pd.DataFrame([{c: row.get(c) for c in columns} for row in rows])`` gives (each column the dtype
    pandas infers from its values, or the schema dtype ``dtypes`` names), built column by column without pandas'
    inference for the texts (a read's skipped files and outputs that are no test: pandas takes 0.3 ms for two
    columns of one row, a fifth of that here).

    >>> df = records_frame([{"source": "a", "line": 3}, {"source": "b"}], ["source", "line", "kind"], {"line": "Int64"})
    >>> df.dtypes.astype(str).tolist(), df["line"].tolist(), df["kind"].tolist()
    (['str', 'Int64', 'object'], [3, <NA>], [None, None])
    """
    dtypes = dtypes or {}
    arrays = {}
    for c in columns:
        vals = [r.get(c) for r in rows]
        arrays[c] = _values_as(vals, dtypes[c]) if c in dtypes else _inferred(vals)
    return _frame(arrays, len(rows))


def _inferred(vals: list):
    """The array pandas infers from a list of values: texts (and None) as its text dtype, built directly.

    >>> str(_inferred(["a", None]).dtype) == str(pd.Series(["a", None]).dtype), _inferred([1.5, None]).dtype
    (True, dtype('float64'))
    """
    kinds = set(map(type, vals))
    dtype = _label_dtype()
    if str in kinds and kinds <= _STR_OR_NONE and isinstance(dtype, pd.StringDtype):
        try:
            import pyarrow as pa

            return pd.arrays.ArrowStringArray(pa.array(vals, type=pa.large_string()), dtype=dtype)
        except (ImportError, TypeError, ValueError):  # pragma: no cover - another storage of pandas' texts
            pass
    arr = pd.Series(vals).array
    return arr.to_numpy() if isinstance(arr, pd.arrays.NumpyExtensionArray) else arr


def _values_as(vals: list, dtype: str):
    """A list of plain values (None for missing) as an array of a schema dtype."""
    if dtype == F:
        try:
            return np.array(vals, dtype=float)  # None -> nan
        except (TypeError, ValueError):
            return pd.to_numeric(pd.Series(vals, dtype=object), errors="coerce").to_numpy(dtype=float)
    kinds = set(map(type, vals))
    if dtype == S:
        if not kinds <= _STR_OR_NONE:
            vals = [None if v is None or v is pd.NA else str(v) for v in vals]
        return _strings(vals)
    if dtype == I and kinds <= _INT_OR_NONE:  # plain ints: no pandas inference (3x faster)
        if type(None) not in kinds:
            return pd.arrays.IntegerArray(np.array(vals, dtype=np.int64), np.zeros(len(vals), dtype=bool))
        values = np.array(vals, dtype=object)
        missing = np.equal(values, None)
        values[missing] = 0
        return pd.arrays.IntegerArray(values.astype(np.int64), missing)
    return _cast(pd.Series(vals, dtype=object), dtype).array


#: Rows transposed a block at a time (:func:`_columns`): fewer than the garbage collector's threshold of new
#: containers (700), so the block's row lists are freed before any collection runs.
_BLOCK_ROWS = 512
#: Rows of at most this many keys are transposed a key at a time (:func:`_columns`)
_NARROW = 8


def _columns(rows: list[Mapping]) -> dict[str, list]:
    """Rows (dicts) as columns (lists, None where a row lacks the key), first-seen key order.

    Each row is visited once (all its keys looked up in a row) and a block
    of rows is then transposed with ``zip``. A column-by-column walk visits
    every row once per key (for 10,000 rows of ~40 keys, half again as slow:
    the rows no longer fit in the CPU caches); a list per row for all the
    rows at once sets off the garbage collector's full passes over what the
    read holds (28,000 runs: three times as slow, growing faster than the
    rows).

    Rows of a few keys (a detail table's: run, percentile, latency) are
    taken a key at a time instead, one list each: a tuple per row would cost
    five times as much as those few passes (1,771 histogram rows of three keys:
    1.6 against 0.3 ms), and the rows' keys are all in one pass in C.

    >>> _columns([{"a": 1, "b": 2}, {"b": 3}, {"a": 4, "b": 5}])
    {'a': [1, None, 4], 'b': [2, 3, 5]}
    >>> _columns([{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8, "i": 9}, {"j": 0}])["j"]
    [None, 0]
    """
    if rows and len(rows[0]) <= _NARROW:
        return {k: [r.get(k) for r in rows] for k in dict.fromkeys(chain.from_iterable(rows))}
    # the keys in the order first seen: a row whose keys are those of the row before (a reader writes its rows from
    # one literal) adds none, which a comparison of their key views says without a tuple made per row; a row of all
    # the keys in that order is then taken by its values (no lookup per key)
    seen: dict = {}
    before = None
    for r in rows:
        ks = r.keys()
        if ks != before:
            seen.update(dict.fromkeys(ks))
            before = ks
    keys = list(seen)
    full, width = tuple(keys), len(keys)
    columns: list[list] = [[] for _ in keys]
    for start in range(0, len(rows), _BLOCK_ROWS):
        block = [
            tuple(r.values()) if len(r) == width and tuple(r) == full else tuple(map(r.get, keys))
            for r in rows[start : start + _BLOCK_ROWS]
        ]
        for column, values in zip(columns, zip(*block, strict=True), strict=True):
            column.extend(values)
    return dict(zip(keys, columns, strict=True))


def _from_rows(
    rows: list[Mapping], cols: Mapping[str, Column], given: Mapping[str, object] | None = None
) -> pd.DataFrame:
    """conform() for a list of dicts: one array per column, no intermediate frame; ``given``: arrays of columns
    the caller built (of the column's dtype, one value per row), which the rows do not hold."""
    n = len(rows)
    columns = _columns(rows)
    given = given or {}
    absent, fills = absent_columns(cols, columns, n)
    for fill in fills:
        fill()
    out = {}
    for name, col in cols.items():
        vals = columns.get(name)
        if name in given:
            out[name] = given[name]
            continue
        out[name] = absent[name] if vals is None else _values_as(vals, col.dtype)
    for k, vals in columns.items():
        if k not in cols and k not in given:
            extra = pd.Series(vals, dtype=object).infer_objects().array
            out[k] = extra.to_numpy() if isinstance(extra, pd.arrays.NumpyExtensionArray) else extra
    out.update({k: v for k, v in given.items() if k not in cols})
    return _frame(out, n)


def _frame(arrays: dict[str, object], n: int) -> pd.DataFrame:
    """A frame of ready arrays (1-D NumPy or pandas arrays of ``n`` values each, one per column), in their order.

    The arrays are the schema's own (:func:`_values_as`, :func:`absent_columns`), so pandas' inference of each
    column is not needed: it is a third of the cost of a read of a small folder (183 columns of the runs table).
    Its blocks are built as they are (:func:`_by_blocks`) when every array is of a kind they hold as given; else,
    or where pandas has no ``_from_arrays``, the public constructor builds them.

    >>> _frame({"a": np.array([1.5]), "b": pd.array([None], dtype="Int64")}, 1).dtypes.astype(str).tolist()
    ['float64', 'Int64']
    """
    try:
        built = _by_blocks(arrays, n)
        if built is not None:
            return built
        return pd.DataFrame._from_arrays(
            list(arrays.values()), columns=_labels(tuple(arrays)), index=pd.RangeIndex(n), verify_integrity=False
        )
    except (AttributeError, TypeError, ImportError):  # pragma: no cover - a pandas without them
        return pd.DataFrame(arrays, index=pd.RangeIndex(n), copy=False)


def _by_blocks(arrays: dict[str, object], n: int) -> pd.DataFrame | None:
    """A frame of ready arrays built block by block, as pandas keeps them: the NumPy arrays of one dtype as one
    block (the floats; the objects of a column no table knows), each one-dimensional extension array (Int64,
    string, boolean, category) as its own, and each datetime column as its own two-dimensional one; None when an
    array is of another kind (of other length or shape), which pandas then sorts out.

    pandas' own grouping of 183 columns into blocks is half the cost of the runs frame of a small read (its checks
    of each array); the arrays here are the schema's, of the dtypes their blocks hold.

    >>> df = _by_blocks({"a": np.array([1.5]), "b": pd.array([None], dtype="Int64"), "c": np.array([2.0])}, 1)
    >>> df.dtypes.astype(str).tolist(), df["c"].tolist(), len(df._mgr.blocks)
    (['float64', 'Int64', 'float64'], [2.0], 2)
    >>> df = _by_blocks({"a": np.array([{"k": 1}], dtype=object), "t": pd.array(pd.to_datetime(["2026-01-01T00:00Z"]))}, 1)
    >>> df.dtypes.astype(str).tolist(), df.loc[0, "a"]
    (['object', 'datetime64[us, UTC]'], {'k': 1})
    >>> _by_blocks({"a": np.array(["x"])}, 1) is None
    True
    """
    from pandas._libs.internals import BlockPlacement
    from pandas.api.extensions import ExtensionArray
    from pandas.core.arrays import DatetimeArray
    from pandas.core.internals.blocks import new_block
    from pandas.core.internals.managers import BlockManager

    stacked: dict[np.dtype, list[int]] = {}  # NumPy arrays by dtype: one block each
    blocks = []
    for i, a in enumerate(arrays.values()):
        if type(a) is np.ndarray and a.ndim == 1 and len(a) == n:
            if a.dtype == _NS:  # an absent datetime column (a view of int64s): the block's array as pandas makes it
                a = DatetimeArray._simple_new(a.reshape(1, n), dtype=_NS)
            elif a.dtype.kind in "fiubO":
                stacked.setdefault(a.dtype, []).append(i)
                continue
            else:  # texts as NumPy strings, times of other units: pandas converts them
                return None
        elif not isinstance(a, ExtensionArray) or len(a) != n:
            return None
        elif a.dtype.kind in "mM":  # a datetime (with a time zone) or time span column: 2-D, as pandas keeps it
            if not isinstance(a, DatetimeArray) or a.ndim != 1:
                return None
            a = a.reshape(1, n)
        blocks.append(new_block(a, BlockPlacement(slice(i, i + 1)), ndim=2))
    values = list(arrays.values())
    for dtype, where in stacked.items():
        block = np.empty((len(where), n), dtype=dtype)
        for row, i in zip(block, where, strict=True):
            row[:] = values[i]
        blocks.append(new_block(block, BlockPlacement(np.array(where, dtype=np.intp)), ndim=2))
    mgr = BlockManager(tuple(blocks), [_labels(tuple(arrays)), pd.RangeIndex(n)], verify_integrity=False)
    return pd.DataFrame._from_mgr(mgr, axes=mgr.axes)


_NS = np.dtype("datetime64[ns]")


_LABELS: dict[tuple, pd.Index] = {}
_LABELS_KEPT = 256


def _labels(names: tuple[str, ...]) -> pd.Index:
    """The column index of ``names``: a view of one made once per list of names (and label dtype), as the runs
    table's 183 names are asked for at every read (pandas takes 90 µs to build their index, 1 µs to view it; a
    view is an index of its own, its name not shared).

    >>> _labels(("a", "b")).tolist(), _labels(("a", "b")) is _labels(("a", "b"))
    (['a', 'b'], False)
    """
    key = (names, _label_dtype())
    index = _LABELS.get(key)
    if index is None:
        if len(_LABELS) >= _LABELS_KEPT:  # bounded: frames of many different column lists (extras of many tools)
            _LABELS.clear()
        index = _LABELS[key] = pd.Index(list(names))
    return index.view()


def describe(table: str = "runs") -> pd.DataFrame:
    """The table's columns as a frame (name, dtype, unit, tools, description).

    >>> describe("phases").loc[2, "name"]
    'phase'
    """
    cols = _table(table)
    return pd.DataFrame(
        [
            {"name": c.name, "dtype": c.dtype, "unit": c.unit, "tools": c.tools, "description": c.description}
            for c in cols.values()
        ]
    )


def markdown(table: str = "runs") -> str:
    """The table's columns as a Markdown table (used for the README)."""
    lines = ["| column | dtype | unit | tools | meaning |", "|---|---|---|---|---|"]
    for c in _table(table).values():
        lines.append(f"| `{c.name}` | {c.dtype} | {c.unit} | {c.tools} | {c.description} |")
    return "\n".join(lines)
