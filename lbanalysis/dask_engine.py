"""Per-request logs on Dask: the same readers, partitioned by file and byte range.

``lbanalysis.read(paths, table="requests", engine="dask")`` returns a
``dask.dataframe.DataFrame`` with exactly the columns and dtypes of the pandas
path (``schema.REQUESTS``; ``source`` is categorical, its categories sorted as
the pandas path's, but listing every file read: which files hold no request
is not known before they are read).
Each file is one partition, read on a worker by the same reader code as the
pandas path; an ab ``-g`` file larger than ``blocksize`` is cut into byte
ranges at line ends, each parsed on a worker by the ``-g`` reader's own chunk
parser, and numbered in the same stable start-second order (``seq``) as the
pandas path, from a small plan of per-second counts. Rows come partition by
partition: sort by (``source``, ``run``, ``seq``) to get the pandas order.

It runs on whatever ``distributed`` client is current (``Client(...)`` for a
scheduler address, ``LocalCluster`` by default when you start one) or on
Dask's default scheduler; lbanalysis starts no scheduler of its own. Dask is
an extra: ``pip install 'lbanalysis[dask]'``; ``import lbanalysis`` does not
import it.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import schema
from .errors import LBAnalysisError

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


def _parse_range(path: str, a: int, b: int) -> Any:
    """One byte range of an ab -g file, parsed and ordered by start second (a ``_Chunk``)."""
    from .readers.ab_gnuplot import _Range, _read_chunk

    return _read_chunk(lambda: io.BufferedReader(_Range(Path(path), a, b), 1 << 20))


def _counts(chunk: Any) -> tuple[np.ndarray, np.ndarray]:
    """A range's distinct start seconds and rows per second: all the plan needs."""
    return chunk.keys, chunk.counts


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
    chunk: Any, plan: tuple[int, list[np.ndarray]], i: int, source: str, categories: list[str]
) -> pd.DataFrame:
    """The requests of range ``i`` of an ab -g file, numbered in the file's start-second order."""
    from .readers.ab_gnuplot import _COLS

    low, dest = plan[0], plan[1][i]
    n = chunk.n
    secs = np.repeat(chunk.keys, chunk.counts).astype(np.int64)
    seq = np.repeat(dest - chunk.first, chunk.counts) + np.arange(n)
    data: dict[str, Any] = {
        "run": np.zeros(n, dtype=np.int64),
        "seq": seq.astype(np.int64),
        "start": (secs * 1_000_000_000).view("datetime64[ns]"),
        "start_s": (secs - low).astype(np.float64),
    }
    for raw, name in _COLS.items():
        values = chunk.ms[raw]
        if chunk.order is not None:
            values = np.take(values, chunk.order)
        data[name] = values / 1000.0
    return _with_source(pd.DataFrame(data), source, categories)


def _gnuplot_data_start(path: str) -> int | None:
    """The byte offset of the first data line if ``path`` is an ab ``-g`` file, else None."""
    from .readers.ab_gnuplot import detect

    try:
        with open(path, "rb") as fh:
            first = fh.readline(4096)
    except OSError:
        return None
    return len(first) if detect(first.decode("utf-8", "replace")) else None


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
    from .readers.ab_gnuplot import _bounds

    categories = sorted({source for _, source in files})  # as the pandas path sorts them
    delayed = dask.delayed
    parts = []
    for path, source in files:
        size = os.path.getsize(path)
        start = _gnuplot_data_start(path) if size > blocksize and tool in (None, "ab") else None
        if start is not None:
            ranges = _bounds(Path(path), size, start, max(1, -(-size // blocksize)))
            chunks = [delayed(_parse_range, pure=True)(path, a, b) for a, b in ranges]
            plan = delayed(_plan, pure=True)([delayed(_counts, pure=True)(c) for c in chunks])
            parts += [delayed(_range_rows, pure=True)(c, plan, i, source, categories) for i, c in enumerate(chunks)]
        else:
            parts.append(delayed(_read_file, pure=True)(read_file, path, source, categories, tool))
    if not parts:
        return dd.from_pandas(_meta(categories), npartitions=1)
    return dd.from_delayed(parts, meta=_meta(categories), verify_meta=False)
