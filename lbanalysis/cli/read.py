"""``lbanalysis read``: export the tidy tables (CSV, TSV, JSON, Parquet, or a Parquet dataset)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ..errors import LBAnalysisError
from .common import (
    PROG,
    TABLE_CHOICES,
    CLIError,
    add_read_options,
    one_line,
    output_format,
    read_dataset,
    report_skipped,
    skipped_note,
    write_table,
)

__all__ = ["EPILOG", "add_parser", "cmd_read"]


def cmd_read(args: argparse.Namespace) -> int:
    out: str = args.output
    if args.table == "all":
        if out == "-" or (Path(out).suffix and not out.endswith(("/", os.sep)) and not Path(out).is_dir()):
            raise CLIError("--table all writes one file per table: give -o a folder, e.g. -o tables/", 2)
        fmt = args.format or "csv"
    else:
        fmt = args.format or output_format(out)
    ds = read_dataset(args)
    report_skipped(ds, "warn")
    if not len(ds.runs) and not len(ds.cpu):  # a folder of CPU monitors alone has samples, no runs
        raise CLIError(f"no runs found in {', '.join(args.paths)}" + skipped_note(ds), 1)
    if args.table == "all":
        folder = Path(out)
        ext = {"csv": ".csv", "tsv": ".tsv", "json": ".json", "parquet": ".parquet"}[fmt]
        written = []
        for name, df in ds.tables.items():
            dest = folder / f"{name}{ext}"
            write_table(df, str(dest), fmt)
            written.append(f"{name} ({len(df)})")
        if not args.quiet:
            print(f"{PROG}: wrote {', '.join(written)} to {folder}/", file=sys.stderr)
        return 0
    df = ds.tables[args.table]
    if fmt == "parquet" and out != "-" and (out.endswith(("/", os.sep)) or Path(out).is_dir() or not Path(out).suffix):
        from ..parquet import write_dataset

        if args.table == "cpu":
            raise CLIError(
                "--table cpu is written as one file (-o cpu.parquet): its samples need not belong to a run", 2
            )

        try:
            write_dataset(df, out, args.table)
        except LBAnalysisError as e:
            raise CLIError(one_line(e), 2) from None
        if not args.quiet:
            print(
                f"{PROG}: wrote {len(df)} {args.table} rows to the Parquet dataset {out} (by source and run)",
                file=sys.stderr,
            )
        return 0
    write_table(df, out, fmt)
    if out != "-" and not args.quiet:
        print(f"{PROG}: wrote {len(df)} {args.table} rows to {out}", file=sys.stderr)
    return 0


EPILOG = """\
examples:
  lbanalysis read logs/ -o runs.csv                   # runs table as CSV
  lbanalysis read 'logs/**/*.txt' --pattern '{setup}/rep-{rep}' -o runs.parquet
  lbanalysis read logs/ --table percentiles -o -      # CSV on stdout
  lbanalysis read logs/ --table all -o tables/        # runs.csv, percentiles.csv, ...
  lbanalysis read logs/ --errors warn --workers 0 -o runs.json

The format follows the extension of -o (.csv .tsv .json .parquet, optionally
.gz); with --table all, -o is a folder and --format picks the format.
Unreadable files are skipped and every one is listed, with its reason, on
stderr at the end (the same policy as summary); --errors raise stops at the
first one instead. Exit status: 0 when runs were exported (skipped files or
not), 1 when no run was found, 2 for a usage error (an unknown column in
--where, a bad option).
"""


def add_parser(
    sub: Any, fmt: type[argparse.HelpFormatter] = argparse.RawDescriptionHelpFormatter
) -> argparse.ArgumentParser:
    """The ``read`` subcommand's parser and options."""
    p = sub.add_parser("read", help="export the tidy tables (CSV, JSON, Parquet)", epilog=EPILOG, formatter_class=fmt)
    p.description = "Read tool outputs and export the tidy tables."
    add_read_options(p, "skip")
    p.add_argument("--table", choices=TABLE_CHOICES, default="runs", help="table to export (default: runs)")
    p.add_argument("-o", "--output", default="-", metavar="FILE", help="output file, folder (--table all) or -")
    p.add_argument("--format", choices=("csv", "tsv", "json", "parquet"), help="override the format of -o")
    p.add_argument("-q", "--quiet", action="store_true", help="no 'wrote ...' line on stderr")
    return p
