"""ApacheBench ``-g`` per-request TSV ("gnuplot" file) into the requests table.

Format (one header line, then one line per request, tab-separated)::

    starttime	seconds	ctime	dtime	ttime	wait
    Sun Nov 22 13:01:02 2026	1763816462	0	1	1	1

``seconds`` is the request's start (Unix time, whole seconds), ``ctime``
connect, ``dtime`` processing, ``ttime`` total and ``wait`` waiting time, in
ms. ab writes the lines sorted by its own key (total time), not by start:
the reader orders requests by start time (a stable sort, so requests that
started within the same second keep ab's order) and numbers them ``seq``.
The run row gets ``requests`` (lines), ``timestamp`` (first start) and
latency min/mean/max computed from ``ttime``; when no caller wants the
requests table (``read(path)``), the run row is all that is built.

A file on disk above 4 MiB is cut into byte ranges at line ends, one per
core, and each range is parsed by pandas' C parser in its own thread,
skipping the human-readable date column (the parser releases the GIL;
threads started for the file, or the caller's pool:
``read(..., executor=pool)``). Each part is then ordered by second, on its
own thread (NumPy's stable sort of the seconds as small offsets: a radix
sort). The parts
are merged second by second into the output columns, one thread per part,
and every column of the requests table ab does not fill is built there too
(:func:`lbanalysis.schema.absent_columns`), so that nothing is left to fill
afterwards. A line pandas cannot read is then found by a plain scan, so the
error names it. ``bench/bench_read.py`` measures this against a bare
``pandas.read_csv``.
"""

from __future__ import annotations

import io
import itertools
import os
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import TypeVar

import numpy as np
import pandas as pd

from ... import schema
from ...errors import ParseError
from ...text import Segment
from ..base import ByteRanges, Format, Parsed

HEADER = ["starttime", "seconds", "ctime", "dtime", "ttime", "wait"]
_COLS = {"ctime": "connect_s", "dtime": "processing_s", "wait": "waiting_s", "ttime": "latency_s"}
_CHUNK_MIN_BYTES = 4 << 20  # smaller files are parsed in one piece
_T = TypeVar("_T")


def detect(text: str) -> bool:
    """True for a file whose first line is ab's -g header.

    >>> detect("starttime\\tseconds\\tctime\\tdtime\\tttime\\twait\\n")
    True
    """
    first = text.lstrip("\ufeff").split("\n", 1)[0].strip()
    return first.split("\t") == HEADER


def _cores() -> int:
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    return max(1, min(n, 8))


def _map_on(executor: Executor, fn: Callable, items: list) -> list:
    """``list(map(fn, items))`` on the caller's thread pool.

    >>> from concurrent.futures import Executor, ThreadPoolExecutor
    >>> with ThreadPoolExecutor(2) as pool:
    ...     _map_on(pool, abs, [-1, 2])
    [1, 2]
    """
    return list(executor.map(fn, items))


def _empty() -> dict[str, np.ndarray]:
    return {c: np.zeros(0, dtype=np.int64) for c in HEADER[1:]}


class _Range(io.RawIOBase):
    """Bytes ``start``..``stop`` of a file, as a file pandas can read from.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as f:
    ...     _ = f.write(b"0123456789"); f.flush()
    ...     with _Range(f.name, 2, 5) as r:
    ...         r.read()
    b'234'
    """

    def __init__(self, path: str | os.PathLike, start: int, stop: int):
        self._fh = open(path, "rb", buffering=0)
        self._fh.seek(start)
        self._left = stop - start

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:  # type: ignore[override]
        if self._left <= 0:
            return 0
        got = self._fh.readinto(memoryview(buf)[: self._left]) or 0
        self._left -= got
        return got

    def close(self) -> None:
        self._fh.close()
        super().close()


def _parse_chunk(data: bytes | io.IOBase, wide: bool = False) -> dict[str, np.ndarray]:
    """The numeric columns of header-less -g lines (bytes or a binary file), as NumPy arrays.

    Times are read as int32 (less memory to fill and sort; 24 days in ms);
    pandas raises ValueError on overflow, and ``wide=True`` reads int64.

    >>> _parse_chunk(b"Sun Nov 22 13:01:02 2026\\t1763816462\\t0\\t1\\t1\\t1\\n")["ttime"]
    array([1], dtype=int32)
    """
    try:
        df = pd.read_csv(
            io.BytesIO(data) if isinstance(data, bytes) else data,
            sep="\t",
            header=None,
            names=HEADER,
            usecols=HEADER[1:],
            engine="c",
            na_filter=False,
            dtype={"seconds": "int64", **dict.fromkeys(_COLS, "int64" if wide else "int32")},
        )
    except pd.errors.EmptyDataError:  # only blank lines
        return _empty()
    return {c: df[c].to_numpy() for c in HEADER[1:]}


def _read_chunk(source: Callable[[], bytes | io.IOBase]) -> _Chunk:
    """Parse and order one range; ``source()`` gives its data (bytes or a file, closed here) afresh for a retry."""

    def parse(wide: bool) -> _Chunk:
        data = source()
        try:
            return _Chunk(_parse_chunk(data, wide))
        finally:
            if isinstance(data, io.IOBase):
                data.close()

    try:
        return parse(False)
    except ValueError:  # a time beyond int32 (or a bad line, which fails again)
        return parse(True)


def _bad_line(lines: Callable[[], io.BufferedIOBase | io.TextIOBase], source: str) -> ParseError:
    """Scan the lines for the first that is not a -g row; an error naming it."""
    with lines() as fh:
        for no, raw in enumerate(fh, start=1):
            line = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
            if no == 1:
                continue
            body = line.rstrip("\r\n")
            if not body.strip():  # pandas passes over blank lines too
                continue
            fields = body.split("\t")
            if len(fields) != len(HEADER):
                msg = f"expected {len(HEADER)} tab-separated fields, found {len(fields)}"
            else:
                try:
                    for f in fields[1:]:
                        int(f)
                    continue
                except ValueError:
                    msg = "expected whole numbers after the date"
            return ParseError(f"not an ab -g row: {msg}", source=source, line=no, text=body)
    return ParseError("unreadable ab -g TSV", source=source)


class _Chunk:
    """One parsed range of -g lines, ordered by start second.

    ``keys`` are its distinct seconds (ascending) and ``counts`` how many rows
    each has; ``ms`` holds the four times (integer ms) as read, and ``order``
    the row positions sorted by start second (stable: rows of one second
    keep the file's order; ``None`` when already in order).

    >>> c = _Chunk({"seconds": np.array([7, 5, 7]), **{k: np.array([1, 2, 3]) for k in _COLS}})
    >>> c.keys.tolist(), c.counts.tolist(), c.order.tolist()
    ([5, 7], [1, 2], [1, 0, 2])
    """

    def __init__(self, raw: dict[str, np.ndarray]):
        secs = raw["seconds"]
        self.n = n = len(secs)
        ttime = raw["ttime"]
        self.ms_sum = int(ttime.sum()) if n else 0
        self.ms_min = int(ttime.min()) if n else 0
        self.ms_max = int(ttime.max()) if n else 0
        self.ms = {c: raw[c] for c in _COLS}
        low = int(secs.min()) if n else 0
        self.order, edges = _stable_order(secs, low, int(secs.max()) - low + 1 if n else 0)
        counts = np.diff(edges)
        present = np.flatnonzero(counts)
        self.keys = present + low
        self.counts = counts[present]
        self.first = edges[present]


def _stable_order(secs: np.ndarray, low: int, span: int) -> tuple[np.ndarray | None, np.ndarray]:
    """Positions that sort ``secs`` stably (``None`` if sorted), and where each second starts.

    Seconds spanning up to 65,536 are sorted as 8- or 16-bit offsets from
    ``low`` (NumPy's stable sort of those is a radix sort: 8 ms for a million
    rows against 33 ms before). Longer spans: the second (less ``low``) and
    the row position are packed into one unsigned integer and sorted as
    values: distinct values make any sort stable, and NumPy sorts plain
    integers with SIMD.

    >>> order, edges = _stable_order(np.array([12, 10, 12, 10]), 10, 3)
    >>> order.tolist(), edges.tolist()
    ([1, 3, 0, 2], [0, 2, 2, 4])
    """
    n = len(secs)
    if n < 2 or bool((secs[1:] >= secs[:-1]).all()):
        return None, np.searchsorted(secs, np.arange(low, low + span + 1))
    if span <= 1 << 16:  # a test of up to 18 hours: NumPy's stable sort of 8- or 16-bit integers is a radix sort
        small = np.uint8 if span <= 1 << 8 else np.uint16
        offsets = secs.astype(small)  # the low bits of each second: less low's, mod 2**bits, is secs - low
        offsets -= small(low & np.iinfo(small).max)
        counts = np.bincount(offsets, minlength=span)
        return np.argsort(offsets, kind="stable"), np.concatenate(([0], np.cumsum(counts)))
    if n <= 1 << 32 and span <= 1 << 32:
        t, bits = np.uint64, 32
    else:  # pragma: no cover - beyond 4 billion rows
        order = np.argsort(secs, kind="stable")
        return order, np.searchsorted(secs[order], np.arange(low, low + span + 1))
    packed = np.subtract(secs, low, dtype=t, casting="unsafe")  # 0 <= secs - low < span
    np.left_shift(packed, t(bits), out=packed)
    np.bitwise_or(packed, np.arange(n, dtype=t), out=packed)
    packed.sort()
    edges = np.searchsorted(packed, np.arange(span + 1, dtype=t) << t(bits))
    return np.bitwise_and(packed, t((1 << bits) - 1), out=packed).astype(np.intp), edges


_MAX_BLOCKS = 2000  # seconds per chunk copied slice by slice; more are scattered at once


def _run_row(chunks: list[_Chunk], n: int) -> dict:
    """The run row of an ab -g file: requests, first start, latency min/mean/max (``ttime``)."""
    return {
        "tool": "ab",
        "requests": n,
        "timestamp": pd.Timestamp(min(int(c.keys[0]) for c in chunks), unit="s") if n else None,
        "latency_mean_s": sum(c.ms_sum for c in chunks) / n / 1000.0 if n else None,
        "latency_min_s": min(c.ms_min for c in chunks) / 1000.0 if n else None,
        "latency_max_s": max(c.ms_max for c in chunks) / 1000.0 if n else None,
        "line": 1,
    }


def _destinations(chunks: list[_Chunk]) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """The seconds of all chunks, rows per second, and per chunk the first output row of each of its seconds.

    Rows of second ``s`` from chunk ``i`` go after those of earlier seconds and
    after those of second ``s`` in earlier chunks.

    >>> a = _Chunk({"seconds": np.array([5, 6]), **{k: np.array([1, 1]) for k in _COLS}})
    >>> b = _Chunk({"seconds": np.array([5]), **{k: np.array([1]) for k in _COLS}})
    >>> keys, total, dest = _destinations([a, b])
    >>> keys.tolist(), total.tolist(), [d.tolist() for d in dest]
    ([5, 6], [2, 1], [[0, 2], [1]])
    """
    keys = np.unique(np.concatenate([c.keys for c in chunks])) if chunks else np.zeros(0, dtype=np.int64)
    total = np.zeros(len(keys), dtype=np.intp)
    pos = [np.searchsorted(keys, c.keys) for c in chunks]
    for c, p in zip(chunks, pos, strict=True):
        total[p] += c.counts
    base = np.cumsum(total) - total  # first output row of each second
    dest = []
    for c, p in zip(chunks, pos, strict=True):
        dest.append(base[p].copy())
        base[p] += c.counts
    return keys, total, dest


def _by_second(target: np.ndarray, values: np.ndarray, total: np.ndarray) -> None:
    """Fill ``target`` in place with one value per second, ``total[i]`` rows of ``values[i]`` each.

    >>> t = np.zeros(3); _by_second(t, np.array([1.0, 2.0]), np.array([2, 1])); t.tolist()
    [1.0, 1.0, 2.0]
    """
    if len(values) > _MAX_BLOCKS:
        np.copyto(target, np.repeat(values, total))
        return
    edges = np.concatenate(([0], np.cumsum(total))).tolist()
    for v, a, b in zip(values.tolist(), edges, edges[1:], strict=False):
        target[a:b] = v


def _place(c: _Chunk, dest: np.ndarray, out: dict[str, np.ndarray], single: bool) -> None:
    """A chunk's four time columns, ordered by start second, into the output columns in seconds.

    ``dest`` is the first output row of each of the chunk's seconds
    (:func:`_destinations`); with a ``single`` chunk the rows go in at once.
    One buffer serves the four gathers: fresh memory is what costs most here.
    """
    sorted_ms = np.empty(c.n, dtype=c.ms["ttime"].dtype) if c.order is not None else None
    blocks = list(zip(c.first.tolist(), c.counts.tolist(), dest.tolist(), strict=True))
    rows = np.repeat(dest - c.first, c.counts) + np.arange(c.n) if len(blocks) > _MAX_BLOCKS else None
    for name, o in out.items():
        s = c.ms[name]
        if sorted_ms is not None:  # mode="clip": the order is in bounds; "raise" would buffer
            s = np.take(s, c.order, out=sorted_ms, mode="clip")
        if single:
            np.divide(s, 1000.0, out=o)
        elif rows is not None:  # a long run: one scatter rather than many slices
            o[rows] = s / 1000.0
        else:
            for f, k, t in blocks:
                np.divide(s[f : f + k], 1000.0, out=o[t : t + k])


def _frame(chunks: list[_Chunk], run_map: Callable = map, *, with_rows: bool = True) -> Parsed:
    """Requests frame and run row from the chunks, in stable start-second order (see :func:`_destinations`).

    Each chunk sorts its own
    columns (one gather each) and copies them into the output second by
    second. Tasks go to ``run_map`` (a thread pool's map): NumPy releases the
    GIL in its large copies. Fresh memory is the dearest thing here (page
    faults), so each chunk reuses one buffer for its four columns.
    """
    chunks = [c for c in chunks if c.n]
    n = sum(c.n for c in chunks)
    run = _run_row(chunks, n)
    if not with_rows:  # read(path): the run row is all that is asked for
        return Parsed([run])
    keys, total, dest = _destinations(chunks)
    low = int(keys[0]) if n else 0
    # The columns read from the file are rows of one block: one large
    # allocation takes far fewer page faults (and transparent huge pages) than seven.
    block = np.empty((7, n))
    out = dict(zip(_COLS, block[:4], strict=True))
    start_ns, start_s, seq = block[4].view(np.int64), block[5], block[6].view(np.int64)
    flags = np.zeros((2, n), dtype=bool)  # "missing" masks of the run and seq columns (all False)
    made = {"run", "seq", "start", "start_s", *_COLS.values()}
    # Every other column of the requests table, all missing (ab prints none of them), filled here: the
    # float columns share one array of NaN (pandas copies a column before a write to it), written once.
    absent, fill_absent = schema.absent_columns("requests", made | {"source"}, n, shared=True)

    fills = {  # separate tasks, so that the threads share them evenly
        "start": lambda: _by_second(start_ns, keys * 1_000_000_000, total),
        "start_s": lambda: _by_second(start_s, (keys - low).astype(np.float64), total),
        **{f"absent {i}": f for i, f in enumerate(fill_absent)},
        "seq": lambda: np.copyto(seq, np.arange(n)),
    }

    # Every column of the requests table, already in its schema dtype, so
    # conform() has nothing to convert or fill (this file can hold millions of rows).
    # One batch of tasks: the chunks' placements (the longest) first.
    single = len(chunks) == 1
    tasks: dict[object, Callable[[], object]] = {
        i: partial(_place, c, d, out, single) for i, (c, d) in enumerate(zip(chunks, dest, strict=True))
    }
    tasks |= fills
    for _ in run_map(lambda f: f(), tasks.values()):
        pass
    data: dict[str, object] = {name: out[raw] for raw, name in _COLS.items()}
    data |= {
        "run": pd.arrays.IntegerArray(np.zeros(n, dtype=np.int64), flags[0]),
        "seq": pd.arrays.IntegerArray(seq, flags[1]),
        "start": start_ns.view("datetime64[ns]"),
        "start_s": start_s,
        **absent,
    }
    req = pd.DataFrame({name: data[name] for name in schema.REQUESTS if name in data}, copy=False)
    return Parsed([run], {"requests": req})


def _check_header(first: str, source: str) -> None:
    if not detect(first):
        raise ParseError(
            "not an ab -g file: expected the header " + "\\t".join(HEADER), source=source, line=1, text=first
        )


def parse(seg: Segment) -> Parsed:
    """Read an ab -g TSV from text."""
    text = seg.text.lstrip("\ufeff")
    first, _, body = text.partition("\n")
    _check_header(first, seg.source)
    data = body.encode()
    try:
        chunk = _read_chunk(lambda: data)
    except Exception:  # pandas raises several types for broken CSV
        raise _bad_line(lambda: io.StringIO(text), seg.source) from None
    return _frame([chunk], with_rows=seg.wants("requests"))


def _bounds(path: Path, size: int, start: int, parts: int) -> list[tuple[int, int]]:
    """Byte ranges cutting the data section into about ``parts`` pieces at line ends."""
    cuts = [start]
    with open(path, "rb") as fh:
        for k in range(1, parts):
            fh.seek(max(cuts[-1], start + (size - start) * k // parts))
            fh.readline()
            cuts.append(min(fh.tell(), size))
    cuts.append(size)
    return [(a, b) for a, b in itertools.pairwise(cuts) if b > a]


def parse_path(
    path: Path,
    source: str,
    tables: frozenset[str] | None = None,
    chunks: int | None = None,
    executor: Executor | None = None,
) -> Parsed:
    """Read an ab -g TSV file from disk, ``chunks`` byte ranges in parallel (default: one per core).

    ``tables`` names the detail tables the caller wants (None: all): without
    ``requests`` only the run row is built. ``executor``: a thread pool the
    caller keeps open, on which the ranges are parsed and the rows ordered
    and placed; by default, threads started for this file and stopped after
    it.
    """
    size = path.stat().st_size
    with open(path, "rb") as fh:
        first = fh.readline()
        start = fh.tell()
    _check_header(first.decode("utf-8", "replace"), source)
    cores = _cores()
    with_rows = tables is None or "requests" in tables
    ranges = _bounds(path, size, start, chunks or (cores if size >= _CHUNK_MIN_BYTES else 1))
    if len(ranges) < 2:
        return _read_ranges(path, source, ranges, map, with_rows)
    return _with_threads(
        min(len(ranges), cores), executor, lambda run_map: _read_ranges(path, source, ranges, run_map, with_rows)
    )


def _with_threads(n: int, executor: Executor | None, work: Callable[[Callable], _T]) -> _T:
    """``work(run_map)``, ``run_map`` mapping on the caller's pool, else on ``n`` threads started for this file
    (one pool for every step) and stopped after it.

    >>> _with_threads(2, None, lambda run_map: list(run_map(abs, [-1, 2])))
    [1, 2]
    """
    if executor is not None:
        return work(partial(_map_on, executor))
    with ThreadPoolExecutor(n, thread_name_prefix="lbanalysis-ab-g") as pool:
        return work(partial(_map_on, pool))


def _read_ranges(path: Path, source: str, ranges: list[tuple[int, int]], run_map: Callable, with_rows: bool) -> Parsed:
    """Parse the byte ranges of a -g file (through ``run_map``) and build its frame."""

    def one(r: tuple[int, int]) -> _Chunk:
        return _read_chunk(lambda: io.BufferedReader(_Range(path, *r), 1 << 20))

    try:
        parsed = list(run_map(one, ranges)) or [_Chunk(_empty())]
    except OSError as e:
        raise ParseError(f"cannot read file ({e.strerror or e})", source=source) from None
    except Exception:  # pandas raises several types for broken CSV
        raise _bad_line(lambda: open(path, "rb"), source) from None
    return _frame(parsed, run_map, with_rows=with_rows)


def _data_start(path: Path) -> int | None:
    """The byte offset of the first data line if ``path`` is an ab ``-g`` file, else None."""
    try:
        with open(path, "rb") as fh:
            first = fh.readline(4096)
    except OSError:
        return None
    return len(first) if detect(first.decode("utf-8", "replace")) else None


def _cut(path: Path, blocksize: int) -> list[tuple[int, int]] | None:
    """Byte ranges of about ``blocksize`` bytes cutting an ab ``-g`` file's data at line ends; None for another file."""
    start = _data_start(path)
    if start is None:
        return None
    size = path.stat().st_size
    return _bounds(path, size, start, max(1, -(-size // blocksize)))


def _read_range(path: Path, a: int, b: int) -> _Chunk:
    """One byte range of an ab -g file, parsed and ordered by start second."""
    return _read_chunk(lambda: io.BufferedReader(_Range(path, a, b), 1 << 20))


def _keys(chunk: _Chunk) -> tuple[np.ndarray, np.ndarray]:
    """A range's distinct start seconds and rows per second."""
    return chunk.keys, chunk.counts


def _range_rows(chunk: _Chunk, low: int, dest: np.ndarray) -> pd.DataFrame:
    """The requests of one range, numbered in the file's start-second order (``low``: the file's first second)."""
    n = chunk.n
    secs = np.repeat(chunk.keys, chunk.counts).astype(np.int64)
    seq = np.repeat(dest - chunk.first, chunk.counts) + np.arange(n)
    data: dict[str, np.ndarray] = {
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
    return pd.DataFrame(data)


FORMATS = [
    Format(
        "ab-gnuplot",
        "ab",
        detect,
        parse,
        whole_file=True,
        parse_path=parse_path,
        description="ApacheBench -g per-request TSV",
        ranges=ByteRanges(_cut, _read_range, _keys, _range_rows),
    ),
]
