"""What the commands share: the exit-status error, the parser class, reading with the command line's options, writing a table.

>>> output_format("runs.csv.gz"), output_format("out/runs.parquet"), output_format("-")
('csv', 'parquet', 'csv')
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

import pandas as pd

from .. import registry, schema
from ..errors import SkippedFileWarning

__all__ = [
    "PROG",
    "TABLE_CHOICES",
    "TOOLS",
    "CLIError",
    "Parser",
    "add_read_options",
    "check_paths",
    "err",
    "fraction_option",
    "isatty",
    "network_threshold",
    "one_line",
    "output_format",
    "read_dataset",
    "relative",
    "report_skipped",
    "skipped_note",
    "warn",
    "where_runs",
    "workers_option",
    "write_table",
]

PROG = "lbanalysis"
TABLE_CHOICES = ("runs", *(t for t in schema.TABLES if t != "runs"), "all")
TOOLS = registry.names()
_EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".txt": "csv", ".json": "json", ".parquet": "parquet", ".pq": "parquet"}
_COMPRESSION = (".gz", ".bz2", ".xz", ".zst", ".zip")


class CLIError(Exception):
    """An error reported as one line on stderr, with an exit status (2 usage, 1 data)."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


class Parser(argparse.ArgumentParser):
    """argparse with the ``lbanalysis: error:`` prefix and exit status 2 on bad usage."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise CLIError(message, 2)


# ------------------------------------------------------------- helpers ---
def err(message: str, stream: TextIO | None = None) -> None:
    print(f"{PROG}: error: {message}", file=stream or sys.stderr)


def warn(message: str) -> None:
    print(f"{PROG}: warning: {message}", file=sys.stderr)


def one_line(text: object) -> str:
    """First line of an error message (ParseError adds the offending text on a second line).

    >>> one_line("a.txt:3: expected a number\\n    Requests per second: abc")
    'a.txt:3: expected a number'
    """
    lines = str(text).strip().splitlines()
    return lines[0] if lines else str(text)


def isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def output_format(path: str, default: str = "csv") -> str:
    """The file format implied by an output path's extension (``-`` is CSV on stdout).

    >>> output_format("runs.json"), output_format("runs.tsv"), output_format("runs")
    ('json', 'tsv', 'csv')
    >>> output_format("runs.xlsx")
    Traceback (most recent call last):
    ...
    lbanalysis.cli.common.CLIError: runs.xlsx: unknown output format '.xlsx'; use .csv, .tsv, .json or .parquet
    """
    if path == "-":
        return "csv"
    suffixes = [s.lower() for s in Path(path).suffixes]
    while suffixes and suffixes[-1] in _COMPRESSION:
        suffixes.pop()
    if not suffixes:
        return default
    ext = suffixes[-1]
    if ext not in _EXTENSIONS:
        raise CLIError(f"{path}: unknown output format {ext!r}; use .csv, .tsv, .json or .parquet", 2)
    return _EXTENSIONS[ext]


def _for_parquet(df: pd.DataFrame) -> pd.DataFrame:
    """Object columns of mixed types (manifest extras) as strings, so Arrow accepts them."""
    out = df.copy()
    for c in out.columns:
        if out[c].dtype == object:
            out[c] = out[c].astype("string")
    out.attrs = {}
    return out


def write_table(df: pd.DataFrame, dest: str, fmt: str | None = None) -> None:
    """Write one table to ``dest`` (``-`` = CSV on stdout) in ``fmt`` (default: from the extension)."""
    fmt = fmt or output_format(dest)
    if dest == "-":
        df.to_csv(sys.stdout, index=False)
        return
    Path(dest).parent.mkdir(parents=True, exist_ok=True)
    if fmt == "csv":
        df.to_csv(dest, index=False)
    elif fmt == "tsv":
        df.to_csv(dest, index=False, sep="\t")
    elif fmt == "json":
        df.to_json(dest, orient="records", date_format="iso", indent=1)
    elif fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise CLIError(
                "writing .parquet needs pyarrow (a dependency of lbanalysis): pip install pyarrow", 1
            ) from None
        _for_parquet(df).to_parquet(dest, index=False)
    else:  # pragma: no cover - output_format guards this
        raise CLIError(f"unknown format {fmt!r}", 2)


def check_paths(paths: Sequence[str]) -> list[str]:
    """Paths (files, folders or globs) that match nothing."""
    missing = []
    for p in paths:
        if os.path.exists(p):
            continue
        if any(ch in p for ch in "*?[") and glob.glob(p, recursive=True):
            continue
        missing.append(p)
    return missing


def read_dataset(args: argparse.Namespace, strict_paths: bool = False):
    """Call :func:`lbanalysis.read` with the command line's options; returns a Dataset.

    A path that matches nothing is a usage error with ``--errors raise``,
    ``strict_paths``, or when no path matches anything; otherwise it is
    listed with the skipped files.
    """
    from ..reader import read

    missing = check_paths(args.paths)
    if missing and (args.errors == "raise" or strict_paths or len(missing) == len(args.paths)):
        raise CLIError(f"{missing[0]}: no such file, folder or glob match", 2)
    # a bar only on a terminal (main asks once: args.read_progress); None lets read() show one for 50+ files
    progress = args.read_progress if hasattr(args, "read_progress") else (None if isatty(sys.stderr) else False)
    manifest: Any = args.manifest if args.manifest else True
    if args.manifest and not os.path.isfile(args.manifest):
        raise CLIError(f"{args.manifest}: no such manifest file", 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkippedFileWarning)
        ds = read(
            args.paths,
            tool=args.tool,
            pattern=args.pattern,
            manifest=manifest,
            errors=args.errors,
            workers=args.workers,
            table="all",
            progress=progress,
        )
    where = getattr(args, "where", None)
    return where_runs(ds, where) if where else ds


def where_runs(ds, expr: str):
    """The dataset with only the runs matching ``expr`` (pandas query syntax), detail rows included."""
    try:
        keep = ds.runs.query(expr, engine="python")
    except Exception as e:  # a bad expression is a usage error, whatever pandas raises
        cols = ", ".join(c for c in ds.runs.columns if not c.startswith("_") and ds.runs[c].notna().any())
        raise CLIError(f"--where {expr!r}: {one_line(e)} (columns with values: {cols})", 2) from None
    keys = set(zip(keep["source"].astype(str), keep["run"], strict=True))
    for name in ds.tables:
        if name == "runs":
            continue
        df = getattr(ds, name)
        if len(df):
            mask = [k in keys for k in zip(df["source"].astype(str), df["run"], strict=True)]
            setattr(ds, name, df[mask].reset_index(drop=True))
    ds.runs = keep.reset_index(drop=True)
    return ds


def report_skipped(ds, errors: str) -> None:
    """List skipped files on stderr: with reasons for ``warn``, names only for ``skip``."""
    if not len(ds.skipped):
        return
    if errors == "warn":
        for rec in ds.skipped.itertuples(index=False):
            reason = one_line(rec.reason)
            if not reason.startswith(str(rec.source)):
                reason = f"{rec.source}: {reason}"
            warn(f"skipped {reason}")
    else:
        names = ", ".join(str(s) for s in ds.skipped["source"])
        warn(f"skipped {len(ds.skipped)} file(s): {names}")


def skipped_note(ds) -> str:
    n = len(ds.skipped)
    note = f" ({n} file(s) skipped; --errors warn says why)" if n else ""
    not_runs = getattr(ds, "not_runs", None)
    if not_runs is not None and len(not_runs):
        kinds = ", ".join(sorted(set(not_runs["kind"])))
        note += f" ({len(not_runs)} output(s) that are not tests: {kinds})"
    return note


def relative(p: Path | str) -> str:
    try:
        return Path(p).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(p)


def add_read_options(p: argparse.ArgumentParser, errors_default: str) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, folders (read recursively) or globs")
    p.add_argument("--pattern", help="path pattern naming columns, e.g. '{setup}/{mode}'")
    p.add_argument("--manifest", metavar="FILE", help="manifest CSV (default: every manifest.csv in the folders)")
    p.add_argument(
        "--tool",
        choices=TOOLS,
        help="force a reader: read every file as this tool's output instead of detecting it from the content "
        "(to select the runs of one tool, use --where \"tool == 'ab'\")",
    )
    p.add_argument(
        "--where",
        metavar="EXPR",
        help="keep the runs matching a pandas query on the runs table, e.g. \"tool == 'ab' and concurrency >= 10\"",
    )
    p.add_argument(
        "--errors",
        choices=("raise", "warn", "skip"),
        default=errors_default,
        help=f"what an unreadable file does (default: {errors_default}: it is skipped, and every skipped file is "
        "listed with its reason on stderr at the end; raise stops at the first one)",
    )
    p.add_argument(
        "--workers", type=workers_option, default=1, metavar="N", help="processes to read with (0 = all cores)"
    )


def network_threshold() -> float:
    from ..analysis.rules import THRESHOLDS

    return THRESHOLDS["network_threshold"]


def workers_option(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of processes, not {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError("must be 0 (all cores) or more")
    return n


def fraction_option(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number such as 0.8, not {text!r}") from None
    if not 0 < v <= 1:
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return v
