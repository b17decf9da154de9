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
latency min/mean/max computed from ``ttime``.

Fast path: a file on disk is read with one ``pandas.read_csv`` call that
skips the human-readable date column.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd

from .. import schema
from ..errors import ParseError
from ..schema import missing_array
from ..text import Segment
from .base import Format, Parsed

HEADER = ["starttime", "seconds", "ctime", "dtime", "ttime", "wait"]
_COLS = {"ctime": "connect_s", "dtime": "processing_s", "wait": "waiting_s", "ttime": "latency_s"}


def detect(text: str) -> bool:
    """True for a file whose first line is ab's -g header.

    >>> detect("starttime\\tseconds\\tctime\\tdtime\\tttime\\twait\\n")
    True
    """
    first = text.lstrip("\ufeff").split("\n", 1)[0].strip()
    return first.split("\t") == HEADER


def _build(df: pd.DataFrame, source: str) -> Parsed:
    missing = [c for c in HEADER[1:] if c not in df.columns]
    if missing:
        raise ParseError(f"ab -g file lacks columns {missing}", source=source, line=1)
    try:
        secs = df["seconds"].to_numpy(dtype="int64")
        ms = {c: df[c].to_numpy() for c in _COLS}
    except (ValueError, TypeError) as e:
        raise ParseError(f"ab -g file has a non-numeric value ({e})", source=source) from None
    order = np.argsort(secs, kind="stable")
    secs = secs[order]
    n = len(secs)
    # Every column of the requests table, already in its schema dtype, so
    # conform() has nothing to convert (this file can hold millions of rows).
    data = {
        "run": pd.arrays.IntegerArray(np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool)),
        "seq": pd.arrays.IntegerArray(np.arange(n, dtype=np.int64), np.zeros(n, dtype=bool)),
        "start": (secs * 1_000_000_000).view("datetime64[ns]"),
        "start_s": (secs - secs[0]).astype("float64") if n else secs.astype("float64"),
    }
    for c, name in _COLS.items():
        data[name] = ms[c][order] / 1000.0
    for name in ("status", "bytes", "method", "url"):
        data[name] = missing_array(schema.REQUESTS[name].dtype, n)
    req = pd.DataFrame(data, copy=False)
    lat = data["latency_s"]
    run = {
        "tool": "ab",
        "requests": n,
        "timestamp": pd.Timestamp(data["start"][0]) if n else None,
        "latency_mean_s": float(lat.mean()) if n else None,
        "latency_min_s": float(lat.min()) if n else None,
        "latency_max_s": float(lat.max()) if n else None,
        "line": 1,
    }
    return Parsed([run], {"requests": req})


def parse(seg: Segment) -> Parsed:
    """Read an ab -g TSV from text."""
    try:
        df = pd.read_csv(io.StringIO(seg.text), sep="\t")
    except Exception as e:  # pandas raises several types for broken CSV
        raise ParseError(f"unreadable ab -g TSV: {e}", source=seg.source) from None
    return _build(df, seg.source)


def parse_path(path: Path, source: str) -> Parsed:
    """Read an ab -g TSV file from disk (fast path)."""
    try:
        # All columns, no NA filtering: with pandas 3, usecols= makes the C
        # parser slower, and skipping NA checks is the largest saving.
        df = pd.read_csv(path, sep="\t", engine="c", na_filter=False, dtype=dict.fromkeys(HEADER[1:], "int64"))
    except Exception as e:
        raise ParseError(f"unreadable ab -g TSV: {e}", source=source) from None
    return _build(df, source)


FORMATS = [
    Format(
        "ab-gnuplot",
        "ab",
        detect,
        parse,
        whole_file=True,
        parse_path=parse_path,
        description="ApacheBench -g per-request TSV",
    ),
]
