"""One file read: from disk, by what it is, into a :class:`~lbanalysis.readers.Parsed`; and the reads of many
files on one worker or several (:func:`gather`). :mod:`lbanalysis.reader` builds the frames from them.

>>> import io
>>> part = read_one(Item(None, "<buffer>", "<buffer>", io.StringIO("Requests per second: 5 [#/sec] (mean)\\n")), None, None)
>>> part.runs[0]["requests_per_s"], part.runs[0]["tool"]
(5.0, 'ab')
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from .design.sections import mark
from .errors import LBAnalysisError, ParseError
from .readers import Format, Parsed, all_formats, parse_text
from .text import decode, normalize

__all__ = ["HEAD", "Item", "gather", "parsed", "path_format", "read_one", "safe_read"]

HEAD = 1 << 16


@dataclass(slots=True)
class Item:
    """One input of a read: a file (``path``) or an open buffer, named ``source`` in the frames.

    >>> Item("runs/ab-c10.txt", "runs/ab-c10.txt", "ab-c10.txt").rel
    'ab-c10.txt'
    """

    path: str | None  # None for buffers
    source: str
    rel: str  # path relative to the folder given, for patterns
    buffer: TextIO | None = None


def read_one(
    item: Item,
    tool: str | None,
    fmt: str | None,
    tables: frozenset[str] | None = None,
    executor: Executor | None = None,
    *,
    path_reads: bool = True,
) -> Parsed:
    """The runs and detail rows of one file or buffer. A large file that a whole-file format reads from its path
    (``ab -g``, :func:`path_format`) is read so, without its text; with ``path_reads=False`` (a worker process)
    it is not read but left to the caller (:class:`_FromPath`)."""
    if item.buffer is not None:
        text = item.buffer.read()
        if isinstance(text, bytes):
            text = decode(text)
        return parsed(text, item.source, tool, fmt, tables)
    assert item.path is not None
    try:
        # os-level reads: a third of the cost of a file object, for small files
        fd = os.open(item.path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        try:
            head, whole = _read_upto(fd, HEAD)
            if whole:  # the whole file (the common case)
                return parsed(decode(head), item.source, tool, fmt, tables)
            # A large file: a whole-file format with a fast path (ab -g) is read
            # from disk by its own reader, without loading the text first.
            if fmt is None and (f := path_format(head, tool)) is not None:
                if not path_reads:
                    raise _FromPath(item.source)
                p = f.parse_path(Path(item.path), item.source, tables, executor=executor)  # type: ignore[misc]
                for r in p.runs:
                    r.setdefault("tool", f.tool)
                    r.setdefault("format", f.name)
                return p
            rest, _ = _read_upto(fd, None)
        finally:
            os.close(fd)
    except OSError as e:
        raise LBAnalysisError(f"{item.source}: cannot read file ({e.strerror or e})") from None
    return parsed(decode(head + rest), item.source, tool, fmt, tables)


def path_format(head: bytes, tool: str | None) -> Format | None:
    """The whole-file format with a reader of its own from the path (:attr:`Format.parse_path`: ab ``-g``) that
    recognises a large file's first bytes, else None.

    >>> path_format(b"starttime\\tseconds\\tctime\\tdtime\\tttime\\twait\\n", None).name
    'ab-gnuplot'
    """
    text_head = normalize(decode(head[: HEAD - 4]))
    for f in all_formats():
        if f.whole_file and f.parse_path is not None and tool in (None, f.tool) and f.detect(text_head):
            return f
    return None


class _FromPath(Exception):
    """A file that its format reads from the path, met by :func:`read_one` where it is not to be read so."""


def parsed(text: str, source: str, tool: str | None, fmt: str | None, tables: frozenset[str] | None) -> Parsed:
    """The runs of a text, each marked with the settings that lines before it name (``podnum=4``), read while the
    text is in memory (:mod:`lbanalysis.design.sections`)."""
    p = parse_text(text, source, tool=tool, fmt=fmt, tables=tables)
    mark(p.runs, text, p.sections)
    return p


def _read_upto(fd: int, limit: int | None) -> tuple[bytes, bool]:
    """Up to ``limit`` bytes (None: all) from a file descriptor, and whether the end was reached."""
    parts = []
    got = 0
    while limit is None or got < limit:
        b = os.read(fd, (1 << 20) if limit is None else limit - got)
        if not b:
            return b"".join(parts), True
        parts.append(b)
        got += len(b)
    return b"".join(parts), False


def safe_read(
    args: tuple[Item, str | None, str | None, frozenset[str] | None],
    executor: Executor | None = None,
    *,
    path_reads: bool = True,
) -> tuple[Parsed | None, LBAnalysisError | None]:
    item, tool, fmt, want = args
    try:
        return read_one(
            item, tool, fmt, want, executor, path_reads=path_reads
        ), None  # readers may skip detail rows that will be dropped
    except ParseError as e:
        if e.source is None:
            e.source = item.source
        return None, e.with_traceback(None)
    except LBAnalysisError as e:
        # kept for the skipped list without the frames it was raised through (they hold the file's text until the
        # read ends; the error names the file and line, and one a reader's bug wraps keeps that bug's traceback)
        return None, e.with_traceback(None)
    except (UnicodeError, ValueError) as e:  # a reader bug must still name the file
        return None, ParseError(f"could not read ({type(e).__name__}: {e})", source=item.source)


_BIG = 16 * 2**20  # bytes of input from which a progress bar is worth showing


def _sizes(items: list[Item]) -> list[int]:
    out = []
    for it in items:
        try:
            out.append(os.path.getsize(it.path) if it.path is not None else 0)
        except OSError:
            out.append(0)
    return out


def _progress(n_files: int, n_bytes: int, show: bool | None):
    """A tqdm bar on stderr: by bytes when the input is large, else by files.

    Shown by default only on a terminal, for 50+ files or 16+ MiB (a large
    per-request log): the bar appears as soon as reading starts.
    """
    if show is None:
        show = (n_files >= 50 or n_bytes >= _BIG) and sys.stderr.isatty()
    if not show:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover
        return None
    if n_bytes >= _BIG:
        return tqdm(total=n_bytes, unit="B", unit_scale=True, unit_divisor=1024, desc="reading", file=sys.stderr)
    return tqdm(total=n_files, unit="file", desc="reading", file=sys.stderr)


_Result = tuple[Parsed | None, LBAnalysisError | None]
_Job = tuple[Item, str | None, str | None, frozenset[str] | None]


def gather(
    items: list[Item],
    tool: str | None,
    fmt: str | None,
    workers: int,
    progress: bool | None,
    want: frozenset[str] | None = None,
    executor: Executor | None = None,
) -> list[_Result]:
    """Each item's (parsed, None), or (None, the error that stopped its read), in the items' order; read on
    ``workers`` processes (1: here), a progress bar shown as :func:`_progress` says.

    >>> import io
    >>> [(p.runs[0]["tool"], e) for p, e in gather([Item(None, "b", "b", io.StringIO("Transactions: 5 hits\\n"))], None, None, 1, False)]
    [('siege', None)]
    """
    jobs = [(it, tool, fmt, want) for it in items]
    # sizes only decide how a progress bar counts: skip the stat calls when none can show
    bar_possible = progress is True or (progress is None and sys.stderr.isatty())
    sizes = _sizes(items) if bar_possible else [0] * len(items)
    by_bytes = sum(sizes) >= _BIG
    bar = _progress(len(jobs), sum(sizes), progress)
    step = sizes if by_bytes else [1] * len(jobs)

    def done(k: int) -> None:
        if bar:
            bar.update(step[k])

    results: list[_Result] = []
    if workers == 1 or len(jobs) < 2:
        for k, j in enumerate(jobs):
            if bar and by_bytes:
                bar.set_postfix_str(os.path.basename(j[0].source), refresh=True)
            results.append(safe_read(j, executor))
            done(k)
    else:
        results = _on_workers(jobs, workers, executor, done)
    if bar:
        bar.close()
    return results


def _on_workers(
    jobs: list[_Job], workers: int, executor: Executor | None, done: Callable[[int], None]
) -> list[_Result]:
    """The jobs read on ``workers`` processes, but a large per-request log that its format reads from the path
    (:func:`_read_away`), parsed on threads here as its turn comes while the workers go on: in a worker, its rows
    would be pickled back to this process (a copy that costs more than the parse). ``done(k)`` is called as job
    ``k`` ends."""
    if any(it.buffer is not None for it, *_ in jobs):
        raise LBAnalysisError("workers > 1 cannot read open buffers; pass file paths")
    from concurrent.futures import ProcessPoolExecutor  # multiprocessing: only for several workers

    out: list[_Result] = []
    chunk = max(1, min(64, len(jobs) // (workers * 4) or 1))
    with ProcessPoolExecutor(max_workers=workers) as ex:
        for k, r in enumerate(ex.map(_read_away, jobs, chunksize=chunk)):
            out.append(safe_read(jobs[k], executor) if r is None else r)
            done(k)
    return out


def _read_away(job: _Job) -> _Result | None:
    """:func:`safe_read` in a worker process; None for a file that its format reads from the path (left to the
    main process).

    >>> import io
    >>> _read_away((Item(None, "b", "b", io.StringIO("Transactions: 5 hits\\n")), None, None, None))[0].runs[0]["tool"]
    'siege'
    """
    try:
        return safe_read(job, path_reads=False)
    except _FromPath:
        return None
