"""Per-request logs on Dask: the same readers, partitioned by file and byte range.

``lbanalysis.read(paths, table="requests", engine="dask")`` returns a
``dask.dataframe.DataFrame`` with exactly the columns and dtypes of the pandas
path (``schema.REQUESTS``; ``source`` is categorical, its categories sorted as
the pandas path's, but listing every file read: which files hold no request
is not known before they are read).
Each file is one partition, read on a worker by the same reader code as the
pandas path; a file larger than ``blocksize`` of a format that can be read in
byte ranges (``Format.ranges``, today ab ``-g``) is cut at line ends, each
range parsed on a worker by the format's own code, and numbered in the same
stable order (``seq``) as the pandas path, from a small plan of per-key
counts (start seconds for ab ``-g``). Rows come partition by
partition: sort by (``source``, ``run``, ``seq``) to get the pandas order.

It runs on whatever ``distributed`` client is current (``Client(...)`` for a
scheduler address, ``LocalCluster`` by default when you start one) or on
Dask's default scheduler; lbanalysis starts no scheduler of its own. Dask is
an extra: ``pip install 'lbanalysis[dask]'``; ``import lbanalysis`` does not
import it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import schema
from .errors import LBAnalysisError
from .readers.base import ByteRanges

__all__ = ["DEFAULT_BLOCKSIZE", "is_dask", "read_dask"]

#: An ab -g file above this many bytes is read in byte ranges of about this size.
DEFAULT_BLOCKSIZE = 16 << 20


def is_dask(df: Any) -> bool:
    """Whether ``df`` is a Dask collection (without importing Dask).

    >>> is_dask(pd.DataFrame())
    False
    """
    return type(df).__module__.startswith("dask")


def _dask():
    try:
        import dask
        import dask.dataframe as dd
    except ImportError:  # pragma: no cover - the extra is installed in dev
        raise LBAnalysisError("engine='dask' needs Dask: pip install 'lbanalysis[dask]'") from None
    return dask, dd


def _meta(categories: list[str]) -> pd.DataFrame:
    """An empty requests frame with the pandas path's dtypes."""
    meta = schema.empty("requests")
    meta["source"] = pd.Categorical([], categories=categories)
    return meta


def _with_source(df: pd.DataFrame, source: str, categories: list[str]) -> pd.DataFrame:
    """Conform one partition: schema columns and dtypes, ``source`` over every file."""
    df = schema.conform(df, "requests") if len(df) else schema.empty("requests")
    df["source"] = pd.Categorical.from_codes(
        np.full(len(df), categories.index(source), dtype=np.int32), categories=categories
    )
    return df


def _read_file(read_file: Callable, path: str, source: str, categories: list[str], tool: str | None) -> pd.DataFrame:
    """One file's requests, by the pandas path's reader ``read_file`` (on a worker)."""
    return _with_source(read_file(path, tool), source, categories)


def _plan(counts: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[int, list[np.ndarray]]:
    """The file's first second, and for each range the output row where each of its seconds starts.

    Rows of second ``s`` from range ``i`` go after every row of earlier seconds and after the rows of ``s`` in
    earlier ranges: the stable start-second order of the pandas path.

    >>> low, dest = _plan([(np.array([5, 7]), np.array([2, 1])), (np.array([5]), np.array([3]))])
    >>> low, [d.tolist() for d in dest]
    (5, [[0, 5], [2]])
    """
    present = [k for k, _ in counts if len(k)]
    if not present:
        return 0, [np.zeros(0, dtype=np.intp) for _ in counts]
    keys = np.unique(np.concatenate(present))
    total = np.zeros(len(keys), dtype=np.intp)
    pos = [np.searchsorted(keys, k) for k, _ in counts]
    for (_, c), p in zip(counts, pos, strict=True):
        total[p] += c
    base = np.cumsum(total) - total
    dest = []
    for (_, c), p in zip(counts, pos, strict=True):
        dest.append(base[p].copy())
        base[p] += c
    return int(keys[0]), dest


def _range_rows(
    rows: Callable, piece: Any, plan: tuple[int, list[np.ndarray]], i: int, source: str, categories: list[str]
) -> pd.DataFrame:
    """The requests of range ``i`` of a file, numbered in the file's order, by the format's ``rows``."""
    return _with_source(rows(piece, plan[0], plan[1][i]), source, categories)


def _splitter(size: int, blocksize: int, tool: str | None) -> list[ByteRanges]:
    """The byte-range abilities of the formats a file of ``size`` bytes may be in (none for a small file)."""
    if size <= blocksize:
        return []
    from .readers import all_formats

    return [f.ranges for f in all_formats() if f.ranges is not None and tool in (None, f.tool)]


def read_dask(
    files: Sequence[tuple[str, str]],
    read_file: Callable[[str, str | None], pd.DataFrame],
    *,
    tool: str | None = None,
    blocksize: int = DEFAULT_BLOCKSIZE,
) -> Any:
    """The requests table of ``files`` ((path, source) pairs) as a Dask DataFrame (see the module text).

    ``read_file(path, tool)`` is the pandas path's reader of one file's
    requests (``lbanalysis.read`` passes its own); it runs on the workers.

    >>> import lbanalysis
    >>> ddf = lbanalysis.read("tests/fixtures/ab/ab_both.tsv", table="requests", engine="dask")
    >>> ddf.npartitions, int(ddf["latency_s"].count().compute())
    (1, 200)
    """
    dask, dd = _dask()
    categories = sorted({source for _, source in files})  # as the pandas path sorts them
    delayed = dask.delayed
    parts = []
    for path, source in files:
        cut = None
        for ability in _splitter(os.path.getsize(path), blocksize, tool):
            ranges = ability.cut(Path(path), blocksize)
            if ranges is not None:
                cut = ability
                break
        if cut is not None:
            pieces = [delayed(cut.read, pure=True)(Path(path), a, b) for a, b in ranges]
            plan = delayed(_plan, pure=True)([delayed(cut.keys, pure=True)(p) for p in pieces])
            parts += [
                delayed(_range_rows, pure=True)(cut.rows, p, plan, i, source, categories) for i, p in enumerate(pieces)
            ]
        else:
            parts.append(delayed(_read_file, pure=True)(read_file, path, source, categories, tool))
    if not parts:
        return dd.from_pandas(_meta(categories), npartitions=1)
    return dd.from_delayed(parts, meta=_meta(categories), verify_meta=False)
