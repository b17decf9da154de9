"""The ``lbanalysis`` command line: ``read``, ``summary``, ``compare``, ``report``, ``explore`` and ``sweep``.

``main(argv)`` returns the exit status instead of exiting, so it can be
called in-process: 0 on success, 1 for data errors (an unreadable file, a
failing notebook), 2 for usage errors (a bad option, a path that does not
exist). Errors are one line on stderr, ``lbanalysis: error: <file>: <reason>``,
never a traceback (``LBANALYSIS_DEBUG=1`` shows it).

>>> main(["--version"])
lbanalysis 0.1.0
0
>>> output_format("runs.csv.gz"), output_format("out/runs.parquet"), output_format("-")
('csv', 'parquet', 'csv')
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import sys
import time
import traceback
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

import pandas as pd

from . import __version__, registry, schema
from .errors import LBAnalysisError, SkippedFileWarning
from .reader import ENGINES

__all__ = ["build_parser", "main", "output_format", "summary_table"]

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


class _Parser(argparse.ArgumentParser):
    """argparse with the ``lbanalysis: error:`` prefix and exit status 2 on bad usage."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise CLIError(message, 2)


# ------------------------------------------------------------- helpers ---
def _err(message: str, stream: TextIO | None = None) -> None:
    print(f"{PROG}: error: {message}", file=stream or sys.stderr)


def _warn(message: str) -> None:
    print(f"{PROG}: warning: {message}", file=sys.stderr)


def _one_line(text: object) -> str:
    """First line of an error message (ParseError adds the offending text on a second line).

    >>> _one_line("a.txt:3: expected a number\\n    Requests per second: abc")
    'a.txt:3: expected a number'
    """
    lines = str(text).strip().splitlines()
    return lines[0] if lines else str(text)


def _isatty(stream: TextIO) -> bool:
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
    lbanalysis.cli.CLIError: runs.xlsx: unknown output format '.xlsx'; use .csv, .tsv, .json or .parquet
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
            raise CLIError("writing .parquet needs pyarrow: pip install 'lbanalysis[parquet]'", 1) from None
        _for_parquet(df).to_parquet(dest, index=False)
    else:  # pragma: no cover - output_format guards this
        raise CLIError(f"unknown format {fmt!r}", 2)


def _check_paths(paths: Sequence[str]) -> list[str]:
    """Paths (files, folders or globs) that match nothing."""
    missing = []
    for p in paths:
        if os.path.exists(p):
            continue
        if any(ch in p for ch in "*?[") and glob.glob(p, recursive=True):
            continue
        missing.append(p)
    return missing


def _read(args: argparse.Namespace, strict_paths: bool = False):
    """Call :func:`lbanalysis.read` with the command line's options; returns a Dataset.

    A path that matches nothing is a usage error with ``--errors raise``,
    ``strict_paths``, or when no path matches anything; otherwise it is
    listed with the skipped files.
    """
    from .reader import read

    missing = _check_paths(args.paths)
    if missing and (args.errors == "raise" or strict_paths or len(missing) == len(args.paths)):
        raise CLIError(f"{missing[0]}: no such file, folder or glob match", 2)
    progress = None if _isatty(sys.stderr) else False
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
    return _where(ds, where) if where else ds


def _where(ds, expr: str):
    """The dataset with only the runs matching ``expr`` (pandas query syntax), detail rows included."""
    try:
        keep = ds.runs.query(expr, engine="python")
    except Exception as e:  # a bad expression is a usage error, whatever pandas raises
        cols = ", ".join(c for c in ds.runs.columns if not c.startswith("_") and ds.runs[c].notna().any())
        raise CLIError(f"--where {expr!r}: {_one_line(e)} (columns with values: {cols})", 2) from None
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


def _report_skipped(ds, errors: str) -> None:
    """List skipped files on stderr: with reasons for ``warn``, names only for ``skip``."""
    if not len(ds.skipped):
        return
    if errors == "warn":
        for rec in ds.skipped.itertuples(index=False):
            reason = _one_line(rec.reason)
            if not reason.startswith(str(rec.source)):
                reason = f"{rec.source}: {reason}"
            _warn(f"skipped {reason}")
    else:
        names = ", ".join(str(s) for s in ds.skipped["source"])
        _warn(f"skipped {len(ds.skipped)} file(s): {names}")


# ---------------------------------------------------------------- read ---
def cmd_read(args: argparse.Namespace) -> int:
    out: str = args.output
    if args.table == "all":
        if out == "-" or (Path(out).suffix and not out.endswith(("/", os.sep)) and not Path(out).is_dir()):
            raise CLIError("--table all writes one file per table: give -o a folder, e.g. -o tables/", 2)
        fmt = args.format or "csv"
    else:
        fmt = args.format or output_format(out)
    ds = _read(args)
    _report_skipped(ds, "warn")
    if not len(ds.runs) and not len(ds.cpu):  # a folder of CPU monitors alone has samples, no runs
        raise CLIError(f"no runs found in {', '.join(args.paths)}" + _skipped_note(ds), 1)
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
        from .parquet import write_dataset

        if args.table == "cpu":
            raise CLIError(
                "--table cpu is written as one file (-o cpu.parquet): its samples need not belong to a run", 2
            )

        try:
            write_dataset(df, out, args.table)
        except LBAnalysisError as e:
            raise CLIError(_one_line(e), 2) from None
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


def _skipped_note(ds) -> str:
    n = len(ds.skipped)
    note = f" ({n} file(s) skipped; --errors warn says why)" if n else ""
    not_runs = getattr(ds, "not_runs", None)
    if not_runs is not None and len(not_runs):
        kinds = ", ".join(sorted(set(not_runs["kind"])))
        note += f" ({len(not_runs)} output(s) that are not tests: {kinds})"
    return note


# ------------------------------------------------------------- summary ---
def _shorten(sources: Sequence[str], width: int) -> list[str]:
    """Sources without their common folder, cut in the middle to ``width``.

    >>> _shorten(["logs/a/x.txt", "logs/b/y.txt"], 40)
    ['a/x.txt', 'b/y.txt']
    >>> _shorten(["logs/x.txt"], 40)
    ['x.txt']
    >>> _shorten(["a/" + "n" * 30 + ".txt", "b/y"], 16)
    ['a/nn...nnnnn.txt', 'b/y']
    """
    norm = [str(s).replace("\\", "/") for s in sources]
    dirs = [os.path.dirname(s) for s in norm if "/" in s]
    prefix = ""
    if dirs and len(dirs) == len(norm):
        try:
            prefix = os.path.commonpath(dirs)
        except ValueError:
            prefix = ""
    out = []
    for s in norm:
        short = s[len(prefix) :].lstrip("/") if prefix and s.startswith(prefix) else s
        if len(short) > width:
            keep = width - 3  # the file name matters most: keep a third of the head, the rest of the tail
            head = keep // 3
            short = short[:head] + "..." + short[len(short) - (keep - head) :]
        out.append(short)
    return out


def _num(v: Any, fmt: str) -> str:
    if v is None or v is pd.NA:
        return ""
    try:
        if pd.isna(v):
            return ""
    except (TypeError, ValueError):
        pass
    return format(v, fmt)


def _transfer(row: pd.Series) -> str:
    """HTTP transfer in bytes per second (what the tool received)."""
    v = row.get("bytes_per_s")
    tool = str(row.get("tool") or "")
    if tool in registry.names(kind="network") or v is None or pd.isna(v):
        return ""
    return f"{v / 1e6:.2f} MB/s"


def _link(row: pd.Series) -> str:
    """A link test's rate in bits per second."""
    v = row.get("bits_per_s")
    tool = str(row.get("tool") or "")
    if tool not in registry.names(kind="network") or v is None or pd.isna(v):
        return ""
    return f"{v / 1e6:.1f} Mbit/s"


def _what(row: pd.Series, labels: list[str], width: int) -> str:
    """What tells a run apart: its labels (pattern, manifest) by name, else its command.

    >>> _what(pd.Series({"load": 20, "repeat": 1, "command": "hey -c 20 http://h/"}), ["load", "repeat"], 48)
    'load=20 repeat=1'
    """
    parts = [f"{c}={row[c]}" for c in labels if c in row and pd.notna(row[c])]
    text = " ".join(parts) if parts else ("" if pd.isna(row.get("command")) else str(row.get("command") or ""))
    return text if len(text) <= width else text[: width - 3] + "..."


def _percentile_ms(percentiles: pd.DataFrame | None, p: float) -> dict[tuple[str, int], float]:
    """(source, run) -> latency at percentile ``p`` in ms, where the output printed it."""
    if percentiles is None or not len(percentiles):
        return {}
    from .analysis.latency import recorded_percentiles

    # one distribution per run (not wrk2's uncorrected one too); the p99 wrk2 printed where its spectrum has no tick
    percentiles = recorded_percentiles(percentiles, printed=True)
    rows = percentiles[pd.to_numeric(percentiles["percentile"], errors="coerce") == p]
    return {
        (str(s), int(r)): float(v) * 1e3 for s, r, v in zip(rows["source"], rows["run"], rows["latency_s"], strict=True)
    }


def summary_table(
    runs: pd.DataFrame, width: int = 40, percentiles: pd.DataFrame | None = None, study: Any = None
) -> pd.DataFrame:
    """The figures people look at first, one row per run, as display strings.

    ``label / command`` tells runs of one file apart (the labels of a path
    pattern or manifest, else the command shown); ``p50 ms``/``p99 ms`` come
    from the ``percentiles`` table where the tool printed them; HTTP transfer
    is in bytes per second, a link test's rate in bits per second. With a
    ``study`` (:func:`lbanalysis.analysis.engine`), ``verdict`` is what
    bounded the run's series, as the study says ("left out" for a run kept
    out of its curves).

    >>> runs = pd.DataFrame({"source": ["logs/c10.txt"], "run": [0], "tool": ["ab"], "concurrency": [10],
    ...     "requests": [1000], "failed": [0], "requests_per_s": [2345.678], "latency_mean_s": [0.004264],
    ...     "bytes_per_s": [1.5e6], "error": [None], "command": ["ab -c 10 -n 1000 http://h/"]})
    >>> pct = pd.DataFrame({"source": ["logs/c10.txt"] * 2, "run": [0, 0], "percentile": [50.0, 99.0],
    ...     "latency_s": [0.004, 0.011]})
    >>> summary_table(runs, percentiles=pct).iloc[0].tolist()
    ['c10.txt', '0', 'ab', 'ab -c 10 -n 1000 http://h/', '10', '1000', '0', '2345.7', '4.26', '4.00', '11.00', '1.50 MB/s', '', '']
    """
    from . import schema
    from .sweep import BOOKKEEPING

    labels = [c for c in runs.columns if c not in schema.RUNS and c not in BOOKKEEPING and not c.startswith("_")]
    p50, p99 = _percentile_ms(percentiles, 50.0), _percentile_ms(percentiles, 99.0)
    cols: dict[str, list[str]] = {k: [] for k in (
        "source", "run", "tool", "label / command", "conc", "requests", "failed", "req/s", "mean ms", "p50 ms",
        "p99 ms", "transfer", "link", "error")}  # fmt: skip
    sources = _shorten(runs["source"].astype(str).tolist(), width) if len(runs) else []
    for src, (_, row) in zip(sources, runs.iterrows(), strict=True):
        conc = row.get("concurrency")
        if (conc is None or pd.isna(conc)) and "streams" in row:
            conc = row.get("streams")
        lat = row.get("latency_mean_s")
        err = row.get("error")
        err = "" if err is None or pd.isna(err) else _one_line(err)
        key = (str(row.get("source")), int(row.get("run")) if pd.notna(row.get("run")) else -1)
        cols["source"].append(src)
        cols["run"].append(_num(row.get("run"), "d"))
        cols["tool"].append("" if pd.isna(row.get("tool")) else str(row.get("tool")))
        cols["label / command"].append(_what(row, labels, 48))
        cols["conc"].append(_num(conc, "d"))
        cols["requests"].append(_num(row.get("requests"), "d"))
        cols["failed"].append(_num(row.get("failed"), "d"))
        cols["req/s"].append(_num(row.get("requests_per_s"), ".1f"))
        cols["mean ms"].append("" if lat is None or pd.isna(lat) else f"{lat * 1e3:.2f}")
        cols["p50 ms"].append(f"{p50[key]:.2f}" if key in p50 else "")
        cols["p99 ms"].append(f"{p99[key]:.2f}" if key in p99 else "")
        cols["transfer"].append(_transfer(row))
        cols["link"].append(_link(row))
        cols["error"].append(err[:60] + ("..." if len(err) > 60 else ""))
    out = pd.DataFrame(cols)
    if study is not None and len(runs):
        out["verdict"] = _run_verdicts(runs, study)
        resource = _run_verdicts(runs, study, "resource")
        if any(resource):
            out["resource"] = resource
    return out


def _run_verdicts(runs: pd.DataFrame, study: Any, column: str = "verdict") -> list[str]:
    """Each run's series verdict (or another column of the verdicts: ``resource``) from the study (empty for runs
    outside any series)."""
    by_series = (
        dict(zip(study.verdicts["series"], study.verdicts[column].fillna(""), strict=True))
        if len(study.verdicts) and column in study.verdicts
        else {}
    )
    known = study.runs.dropna(subset=["series"])
    key = {
        (str(s), int(r)): (by_series.get(n, ""), bool(u))
        for s, r, n, u in zip(known["source"], known["run"], known["series"], known["used"], strict=True)
    }
    out = []
    for s, r in zip(runs["source"], runs["run"], strict=True):
        verdict, used = key.get((str(s), int(r)) if pd.notna(r) else ("", -1), ("", True))
        out.append(verdict + ("" if used or not verdict or column != "verdict" else " (left out)"))
    return out


def format_markdown(table: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table of display strings (empty columns dropped), to paste in an issue.

    >>> print(format_markdown(pd.DataFrame({"tool": ["ab"], "req/s": ["1.5"], "error": [""]})))
    | tool | req/s |
    |---|---:|
    | ab | 1.5 |
    """
    left = {"source", "tool", "label / command", "error", "transfer", "link", "series", "verdict", "resource", "bound"}
    cols = [c for c in table.columns if table[c].astype(str).str.len().any()]
    esc = lambda v: str(v).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" if c in left else "---:" for c in cols) + "|"]
    lines += ["| " + " | ".join(esc(row[c]) for c in cols) + " |" for _, row in table.iterrows()]
    return "\n".join(lines)


def format_table(table: pd.DataFrame) -> str:
    """Align a frame of strings for the terminal: text left, numbers right.

    >>> print(format_table(pd.DataFrame({"tool": ["ab", "siege"], "req/s": ["1.5", "10.0"]})))
    tool   req/s
    ab       1.5
    siege   10.0
    """
    left = {"source", "tool", "error", "transfer", "link", "label / command", "series", "verdict", "resource", "bound"}
    widths = {c: max([len(c), *(len(v) for v in table[c])]) for c in table.columns}
    # drop columns with nothing in them (no error, no percentiles printed, no link test)
    cols = [c for c in table.columns if not (c != "source" and not any(table[c]))]

    def cell(c: str, v: str) -> str:
        return v.ljust(widths[c]) if c in left else v.rjust(widths[c])

    lines = ["  ".join(cell(c, c) for c in cols).rstrip()]
    for _, row in table.iterrows():
        lines.append("  ".join(cell(c, row[c]) for c in cols).rstrip())
    return "\n".join(lines)


def _footer(ds) -> str:
    runs = ds.runs
    by_tool = runs["tool"].value_counts().sort_index() if len(runs) else pd.Series(dtype=int)
    tools = ", ".join(f"{t} {n}" for t, n in by_tool.items())
    nfiles = runs["source"].nunique() if len(runs) else 0
    s = f"{len(runs)} run(s) from {nfiles} file(s)" + (f": {tools}" if tools else "")
    errored = int(runs["error"].notna().sum()) if "error" in runs else 0
    if errored:
        s += f"; {errored} with an error"
    if len(ds.skipped):
        names = _shorten([os.path.basename(str(x)) or str(x) for x in ds.skipped["source"]], 40)
        shown = ", ".join(names[:8]) + (f", ... (+{len(names) - 8})" if len(names) > 8 else "")
        s += f". Skipped {len(names)}: {shown}"
    not_runs = getattr(ds, "not_runs", None)
    if not_runs is not None and len(not_runs):
        kinds = not_runs["kind"].value_counts()
        s += f". Not tests, not counted: {len(not_runs)} (" + ", ".join(f"{k} {n}" for k, n in kinds.items()) + ")"
    if ds.ignored:
        s += f". Ignored {len(ds.ignored)} by name (docs, scripts, manifests)"
    return s + "."


def cmd_summary(args: argparse.Namespace) -> int:
    ds = _read(args, strict_paths=True)
    if args.format != "text":  # a file or a document: sources whole
        width = 10**6
    elif _isatty(sys.stdout):  # the source column takes what the other columns leave of the terminal
        width = max(20, min(60, shutil.get_terminal_size().columns - 100))
    else:  # piped to a pager or a file: nothing wraps
        width = 60
    from .analysis.engine import study
    from .analysis.tests import per_test_percentiles, with_tests

    st = study(ds)  # processes run at once are one test: one line, its figures summed (lbanalysis.analysis.tests)
    table = summary_table(
        with_tests(ds.runs, st), width=width, percentiles=per_test_percentiles(st, ds.percentiles), study=st
    )
    if args.format == "csv":
        table.to_csv(sys.stdout, index=False)
    elif args.format == "markdown":
        if len(ds.runs):
            print(format_markdown(table))
        print("\n" + _footer(ds))
    else:
        if len(ds.runs):
            print(format_table(table))
        print(_footer(ds))
    _report_skipped(ds, "warn")
    if not len(ds.runs):
        raise CLIError(f"no runs found in {', '.join(args.paths)}" + _skipped_note(ds), 1)
    return 0


# ------------------------------------------------------------- compare ---
_COMPARE_METRICS = (("requests_per_s", "req/s"), ("latency_mean_s", "mean latency ms"))


def compare_table(runs: pd.DataFrame, side: str, a: str, b: str, load: str = "concurrency") -> pd.DataFrame:
    """For each series run on both sides, the change of throughput and latency from ``a`` to ``b``.

    Uses :func:`lbanalysis.analysis.compare` (bootstrap interval of the
    ratio of means, stratified by load when both sides ran several loads);
    with fewer than its minimum runs on a side the verdict says "too few runs
    to tell". Series run on one side only are listed with their side. The
    processes of one test (run at once: :mod:`lbanalysis.analysis.tests`)
    count as one run, with their summed figures.
    ``bound_a``/``bound_b``: what bounded the series on each side, as the
    study of that side says.
    """
    from .analysis.comparison import compare
    from .analysis.series import assign_series
    from .analysis.tests import fold

    bound = _bounds(runs, side, (a, b), load)
    runs = fold(runs)[0]  # processes run at once are one test: compared by the test's summed figures
    data = runs.assign(series=assign_series(runs, exclude=[side, "_origin"])).dropna(subset=["series"])
    data = data[data[side].astype(str).isin([a, b])].assign(**{side: lambda d: d[side].astype(str)})
    rows = []
    for name, g in data.groupby("series", sort=True):
        present = set(g[side])
        sides = {v: ", ".join(sorted({bound.get(k, "") for k in zip(g.loc[g[side] == v, "source"].astype(str),
                                                                      g.loc[g[side] == v, "run"], strict=True)}
                                     - {""})) for v in (a, b)}  # fmt: skip
        if present != {a, b}:
            rows.append({"series": name, "metric": "", "verdict": f"run on {', '.join(sorted(present))} only",
                         "bound_a": sides[a], "bound_b": sides[b]})  # fmt: skip
            continue
        loads = {k: pd.to_numeric(v[load], errors="coerce").nunique() for k, v in g.groupby(side)} if load in g else {}
        at = load if loads and min(loads.values()) > 1 else None
        for col, label in _COMPARE_METRICS:
            if col not in g or g[col].notna().groupby(g[side]).sum().min() == 0:
                continue
            res = compare(g.dropna(subset=[col]), by=side, a=a, b=b, y=col, at=at, n_boot=2000)
            o = res.loc["overall"]
            rows.append({"series": name, "metric": label, "n_a": o["n_a"], "n_b": o["n_b"], "mean_a": o["mean_a"],
                         "mean_b": o["mean_b"], "change_pct": o["change_pct"], "lower": o["lower"],
                         "upper": o["upper"], "verdict": o["verdict"], "bound_a": sides[a], "bound_b": sides[b]})  # fmt: skip
    return pd.DataFrame(rows, columns=["series", "metric", "n_a", "n_b", "mean_a", "mean_b", "change_pct", "lower",
                                       "upper", "verdict", "bound_a", "bound_b"])  # fmt: skip


def _bounds(runs: pd.DataFrame, side: str, values: tuple[str, str], load: str) -> dict[tuple[str, object], str]:
    """(source, run) -> what bounded its series on its side, as the study of that side says."""
    from .analysis.engine import study

    out: dict[tuple[str, object], str] = {}
    for v in values:
        mine = runs[(runs[side].astype(str) == v).to_numpy(bool)] if side in runs else runs.iloc[:0]
        if not len(mine) or load not in mine:
            continue
        st = study(mine, load=load, exclude=[side, "_origin"])
        verdict = dict(zip(st.verdicts["series"], st.verdicts["verdict"], strict=True)) if len(st.verdicts) else {}
        known = st.runs.dropna(subset=["series"])
        for src, r, name in zip(known["source"].astype(str), known["run"], known["series"], strict=True):
            out[(src, r)] = verdict.get(name, "")
    return out


def _compare_strings(table: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """The comparison table as display strings."""

    def fmt(v: Any, spec: str) -> str:
        return "" if v is None or pd.isna(v) else format(v, spec)

    scale = [1e3 if str(m).endswith(" ms") else 1.0 for m in table["metric"]]
    out = pd.DataFrame(
        {
            "series": table["series"].astype(str),
            "metric": table["metric"].astype(str),
            f"runs {a}": [fmt(v, ".0f") for v in table["n_a"]],
            f"runs {b}": [fmt(v, ".0f") for v in table["n_b"]],
            f"mean {a}": [fmt(v * k, ".4g") for v, k in zip(table["mean_a"], scale, strict=True)],
            f"mean {b}": [fmt(v * k, ".4g") for v, k in zip(table["mean_b"], scale, strict=True)],
            "change": [fmt(v, "+.1f") + ("%" if pd.notna(v) else "") for v in table["change_pct"]],
            "verdict": table["verdict"].astype(str),
            "bound": [
                f"{x or '?'} → {y or '?'}" if (x or y) else ""
                for x, y in zip(table["bound_a"].fillna(""), table["bound_b"].fillna(""), strict=True)
            ],
        }
    )
    return out


def cmd_compare(args: argparse.Namespace) -> int:
    if args.by:
        ns = argparse.Namespace(**{**vars(args), "paths": args.within or ["."]})
        ds = _read(ns, strict_paths=True)
        runs, side, a, b = ds.runs, args.by, args.a, args.b
        if side not in runs.columns:
            raise CLIError(f"--by {side!r} is not a column of the runs (add it with --pattern or a manifest)", 2)
        values = set(runs[side].dropna().astype(str))
        for v in (a, b):
            if v not in values:
                raise CLIError(f"no runs with {side} == {v!r}; values: {', '.join(sorted(values)) or 'none'}", 2)
    else:
        frames = []
        for path in (args.a, args.b):
            if _check_paths([path]):
                raise CLIError(f"{path}: no such folder or file (to compare two values of a column, use --by)", 2)
            ns = argparse.Namespace(**{**vars(args), "paths": [path]})
            frames.append(_read(ns, strict_paths=True).runs)
        names = [os.path.basename(os.path.normpath(p)) for p in (args.a, args.b)]
        a, b = names if names[0] != names[1] else (args.a, args.b)
        frames = [f.assign(side=n) for f, n in zip(frames, (a, b), strict=True)]
        runs, side = pd.concat(frames, ignore_index=True), "side"
    table = compare_table(runs, side, a, b, load=args.load)
    if not len(table):
        raise CLIError("no HTTP load-test runs to compare", 1)
    shown = _compare_strings(table, a, b)
    if args.format == "csv":
        table.to_csv(sys.stdout, index=False)
    elif args.format == "markdown":
        print(format_markdown(shown))
    else:
        print(format_table(shown))
    return 0


_COMPARE_EPILOG = """\
examples:
  lbanalysis compare before/ after/                      # two folders
  lbanalysis compare haproxy-2 haproxy-4 --by setup --in logs/ --pattern '{setup}/*'
  lbanalysis compare before/ after/ --format markdown    # a table for a pull request

For each series (same tool, target and settings) present on both sides: the
change of mean throughput and of mean latency from A to B, with a 95%
bootstrap interval of the ratio when each side has 3 runs or more (by load
when both ran several loads), else "too few runs to tell".
"""


# -------------------------------------------------------------- report ---
def _parameters(args: argparse.Namespace) -> dict[str, Any]:
    from .report.runner import load_parameters, parse_value

    params: dict[str, Any] = {}
    if getattr(args, "params_file", None):
        params.update(load_parameters(args.params_file))
    for name, value in getattr(args, "param", None) or []:
        params[name] = parse_value(value)
    return params


def _report_machinery() -> Any:
    """:mod:`lbanalysis.report`, or a usage error saying which extra to install."""
    try:
        from . import report
    except ModuleNotFoundError as e:
        raise CLIError(
            f"reports need the 'report' extra ({e.name} is missing): pip install 'lbanalysis[report]'", 2
        ) from None
    return report


def cmd_report(args: argparse.Namespace) -> int:
    report = _report_machinery()
    folder = Path(args.notebooks) if args.notebooks else report.find_project().notebooks
    if args.list:
        for p in report.article_notebooks(folder):
            params = report.notebook_parameters(p)
            print(f"{p.name[:2]}  {report.slug_of(p):32s} {', '.join(params) or '(no parameters)'}")
        return 0
    if not args.names and not args.all:
        known = ", ".join(p.name[: -len(".ipynb")] for p in report.article_notebooks(folder)) or "none yet"
        raise CLIError(f"name the notebooks to run or pass --all (article notebooks: {known})", 2)
    try:
        report.resolve_notebooks(args.names, folder)
    except LBAnalysisError as e:
        raise CLIError(str(e), 2) from None
    params = _parameters(args)
    out = Path(args.output) if args.output else report.find_project().reports
    tty = _isatty(sys.stderr)

    def start(i: int, n: int, path: Path) -> None:
        if tty:
            print(f"[{i}/{n}] {path.name} ...", file=sys.stderr, flush=True)

    def done(i: int, n: int, r: report.ReportResult) -> None:
        where = r.html or r.output_dir
        line = f"[{i}/{n}] {r.notebook.name}: {r.status} in {r.seconds:.1f} s -> {_rel(where)}"
        print(line, file=sys.stderr, flush=True)
        if r.error:
            print(f"    {r.error}", file=sys.stderr, flush=True)

    try:
        results = report.run_reports(
            args.names or None,
            params,
            out,
            args.no_input,
            notebooks=folder,
            progress=tty,
            on_start=start,
            on_done=done,
        )
    except report.UnknownParameterError as e:
        raise CLIError(str(e), 2) from None
    index = report.write_index(results, out, title="lbanalysis reports")
    failed = [r for r in results if not r.ok]
    total = sum(r.seconds for r in results)
    if failed:
        for r in failed:
            _err(str(r.error))
        print(f"{PROG}: {len(failed)} of {len(results)} notebook(s) failed ({total:.1f} s)", file=sys.stderr)
        return 1
    print(
        f"{PROG}: {len(results)} report(s) written to {_rel(out)}/ ({total:.1f} s); index: {_rel(index)}",
        file=sys.stderr,
    )
    return 0


def _rel(p: Path | str) -> str:
    try:
        return Path(p).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(p)


# ------------------------------------------------------------- explore ---
def explore_parameters(args: argparse.Namespace) -> dict[str, Any]:
    """Notebook parameters from the ``explore`` options (paths made absolute)."""
    logs: Any = [str(Path(p).resolve()) if os.path.exists(p) else p for p in args.paths]
    params: dict[str, Any] = {"logs": logs[0] if len(logs) == 1 else logs}
    if args.pattern:
        params["pattern"] = args.pattern
    if args.manifest:
        params["manifest"] = str(Path(args.manifest).resolve())
    if args.load:
        params["load"] = args.load
    if args.group:
        params["group"] = args.group
    if args.capacity:
        params["link_capacity"] = args.capacity
    if args.iperf:
        params["iperf"] = str(Path(args.iperf).resolve())
    if args.threshold is not None:
        params["threshold"] = args.threshold
    if args.model:
        params["fit_model"] = args.model
    if getattr(args, "engine", None):
        params["engine"] = args.engine
    return params


def _known_columns(args: argparse.Namespace) -> set[str]:
    """Columns a runs table of these paths can have, without reading the logs.

    The schema's columns, the fields of ``--pattern``, the columns of the
    manifests (``--manifest``, or every ``manifest.csv`` in the folders), and
    ``series``.
    """
    from . import schema
    from .metadata import compile_pattern
    from .reader import manifests_in

    known = set(schema.RUNS) | {"series"}
    if args.pattern:
        known |= set(compile_pattern(args.pattern)[0].groupindex)
    manifests = [Path(args.manifest)] if args.manifest else manifests_in(args.paths)
    for m in manifests:
        try:
            with open(m, encoding="utf-8", errors="replace") as fh:
                known |= {c.strip() for c in fh.readline().split(",")}
        except OSError:
            continue
    return known


def _check_columns(args: argparse.Namespace) -> None:
    """An option naming a column that no runs table of these paths can have is a usage error, at once."""
    named = {opt: getattr(args, opt, None) for opt in ("group", "load")}
    named = {opt: value for opt, value in named.items() if value}
    if not named:
        return
    from . import schema

    known = _known_columns(args)
    for opt, value in named.items():
        if value not in known:
            extra = sorted(known - set(schema.RUNS) - {"series"})
            hint = f"; columns from --pattern or manifests: {', '.join(extra)}" if extra else ""
            raise CLIError(
                f"--{opt} {value!r} is not a column of the runs table (a schema column, a --pattern field, "
                f"a manifest column, or 'series'){hint}",
                2,
            )


def _explore_has_runs(args: argparse.Namespace) -> None:
    """Nothing read is an error, as for ``summary``: no report of an empty page is written."""
    from .reader import read

    ds = read(list(args.paths), errors="skip", progress=False, table="all", tables=["runs"])
    if not len(ds.runs):
        why = "; ".join(f"{Path(str(r.source)).name}: {str(r.reason).strip().splitlines()[0].split('; known formats')[0]}"
                        for r in ds.skipped.head(3).itertuples())  # fmt: skip
        more = f" and {len(ds.skipped) - 3} more" if len(ds.skipped) > 3 else ""
        n = len(ds.skipped)
        note = f" ({n} file{'' if n == 1 else 's'} could not be read: {why}{more})" if n else ""
        raise CLIError(f"no runs found in {', '.join(args.paths)}{note}: no report written", 1)


def cmd_explore(args: argparse.Namespace) -> int:
    report = _report_machinery()

    missing = _check_paths(args.paths)
    if missing:
        raise CLIError(f"{missing[0]}: no such file, folder or glob match", 2)
    for opt in ("manifest", "iperf"):
        value = getattr(args, opt)
        if value and not os.path.exists(value):
            raise CLIError(f"{value}: no such {'file' if opt == 'manifest' else 'folder'} (--{opt})", 2)
    if args.capacity:
        from .report.explore import parse_capacities
        from .units import parse_capacity

        try:
            parsed = parse_capacities(args.capacity)
            for rate in parsed.values() if isinstance(parsed, dict) else [parsed]:
                parse_capacity(rate)
        except (LBAnalysisError, ValueError) as e:
            raise CLIError(f"--capacity {args.capacity!r}: {_one_line(e)}", 2) from None
    _check_columns(args)
    _explore_has_runs(args)
    notebook = report.EXPLORE_NOTEBOOK
    if not notebook.is_file():
        raise CLIError(f"{notebook}: the explore notebook is missing from the installed package", 1)
    first = Path(args.paths[0])
    out = Path(args.output) if args.output else Path("reports") / f"explore-{first.resolve().name or 'logs'}"
    params = explore_parameters(args)
    tty = _isatty(sys.stderr)
    print(f"{PROG}: exploring {', '.join(args.paths)} ...", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    try:
        html = report.run_notebook(notebook, params, out, args.no_input, progress=tty, name="explore")
    except report.NotebookError as e:
        raise CLIError(f"{e} (partial report in {_rel(out)}/)", 1) from None
    print(f"{PROG}: wrote {_rel(html)} and explore.ipynb in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


# --------------------------------------------------------------- sweep ---
def cmd_sweep(args: argparse.Namespace) -> int:
    """Run the sweep, say what it wrote (and what did not read), then build the explore report if asked."""
    from .reader import read
    from .sweep import SweepRefused, run_sweep

    try:
        result = run_sweep(
            args.tool, args.url, args.loads, output=args.output, repeat=args.repeat, requests=args.requests,
            duration=args.duration, extra=args.extra, labels=args.label, iperf=args.iperf,
            iperf_seconds=args.iperf_seconds,
            haproxy_stats=args.haproxy_stats, order=args.order, seed=args.seed, timeout=args.timeout, yes=args.yes,
            progress=False if args.no_progress else None, dry_run=args.dry_run, direct=args.direct,
            monitors=args.monitor, processes=args.processes, workers_elsewhere=args.workers_elsewhere,
        )  # fmt: skip
    except SweepRefused as e:
        raise CLIError(str(e), 2) from None
    if args.dry_run:
        return 0
    out = _rel(result.output)
    if result.done:
        ds = read(result.output, table="all", errors="skip")
        failed = f"; {result.failed} failed or stopped (the manifest's note says why)" if result.failed else ""
        print(f"{PROG}: {result.done} of {result.planned} runs in {out}/ (manifest.csv){failed}", file=sys.stderr)
        _report_skipped(ds, "skip")
        for note in ds.notes:
            _warn(note)
        from .sweep import too_short

        if warning := too_short(ds.runs):
            _warn(warning)
    if result.stopped:
        print(f"{PROG}: {result.stopped}", file=sys.stderr)
    if args.explore and result.done:
        explore_args = build_parser().parse_args(["explore", str(result.output)])
        status = cmd_explore(explore_args)
        if status:
            return status
    if result.stopped.startswith("interrupted"):
        return 130
    if result.stopped:
        return 1 if not result.stopped.startswith("at this pace") else 2
    return 1 if result.failed else 0


# --------------------------------------------------------------- parser ---
_MAIN_EPILOG = """\
examples:
  lbanalysis summary logs/
  lbanalysis read logs/ --pattern '{setup}/{mode}' -o runs.csv
  lbanalysis report --all
  lbanalysis explore logs/ --group setup --capacity '1 Gbit/s'
  lbanalysis sweep ab http://127.0.0.1:8080/ --loads 1,2,4,8 --repeat 2 --requests 2000 -o runs/

Each command has its own --help. Exit status: 0 ok, 1 data error, 2 usage error.
"""

_READ_EPILOG = """\
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

_SUMMARY_EPILOG = """\
examples:
  lbanalysis summary logs/
  lbanalysis summary data/raw/haproxy-wordpress-ab --errors warn

One line per run: source, run, tool, label or command (tells runs of one
file apart), concurrency (iperf: streams), requests, failed, req/s, mean,
p50 and p99 latency in ms (where the tool printed percentiles), HTTP
transfer in bytes/s (MB/s), a link test's rate in bits/s (Mbit/s), error.
Empty columns are left out. The last line counts runs per tool, skipped
files and outputs that are not tests; every skipped file is then listed with
its reason on stderr (the same policy as read).
  lbanalysis summary logs/ --where "tool == 'ab'" --format markdown
"""

_REPORT_EPILOG = """\
examples:
  lbanalysis report --all                       # every article notebook
  lbanalysis report 03                          # by number ...
  lbanalysis report haproxy-apache-siege        # ... or by slug
  lbanalysis report 03 -p threshold 0.9 -p link_capacity '1 Gbit/s'
  lbanalysis report --all -f params.yaml -o site/
  lbanalysis report --list                      # notebooks and their parameters

Writes reports/<slug>/<slug>.ipynb and .html. -p values are YAML scalars
(0.9, true, null, text). In a -f file, a mapping under a notebook's number or
slug applies to that notebook only. A failing notebook is reported (cell and
exception) and the others still run; the exit status is then 1.
"""

_EXPLORE_EPILOG = """\
examples:
  lbanalysis explore logs/
  lbanalysis explore logs/ --pattern '{setup}/{mode}' --group setup -o reports/mylab
  lbanalysis explore logs/ --capacity '1 Gbit/s' --iperf iperf/ --threshold 0.9

Runs notebooks/00-explore.ipynb over the folder and writes explore.ipynb and
explore.html (plus figures) to -o (default reports/explore-<folder>/).
"""

_SWEEP_EPILOG = """\
examples:
  lbanalysis sweep ab http://127.0.0.1:8080/ --loads 1,2,4,8 --repeat 2 --requests 2000 -o runs/
  lbanalysis sweep ab http://lb/ --loads 1,2,4,8,16,32 --repeat 3 --requests 20000 \\
      --iperf lb --haproxy-stats /run/haproxy/admin.sock -o runs/ --explore
  lbanalysis sweep wrk http://lb/ --loads 8,16,32 --duration 10s --label setup=2-servers -o runs/ -- -H 'Accept: */*'
  lbanalysis sweep hey http://lb/ --loads 1,4,16 --requests 5000 -o runs/ --dry-run
  lbanalysis sweep vegeta http://lb/ --loads 100,200,400 --duration 10s -o runs/   # rates, requests/s
  lbanalysis sweep ab http://lb/ --loads 8,16,32 --duration 10s --haproxy-stats /run/haproxy/admin.sock \
      --direct auto --monitor lb='ssh lb vmstat -t 1' -o runs/
  lbanalysis sweep ab http://lb/ --loads 8,16,32 --duration 10s --processes 2 -o runs/

Runs the installed tool once per load and repeat (repeat 1 at every load,
then repeat 2, ...; loads shuffled within a repeat by default), each output
written as printed under its command line, plus manifest.csv (file, tool,
load, repeat, timestamp, end_time, exit_code, note, your labels). For each
run, cpu/NNN.csv holds the load tool's own CPU (user and system seconds,
peak memory, the cores it could use) and this host's CPU per core. Options
after -- go to the tool. Every run is bounded (--requests or --duration) and
stopped at --timeout; a failed run is kept and not retried. Ctrl-C stops
after the current run. Nothing is started on the server side: --iperf needs
an `iperf3 -s` there. Exit status: 0 all runs ok, 1 a run failed, 2 refused
(usage, missing tool, --yes needed), 130 interrupted.
"""


def _add_read_options(p: argparse.ArgumentParser, errors_default: str) -> None:
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
    p.add_argument("--workers", type=_workers, default=1, metavar="N", help="processes to read with (0 = all cores)")


def _network_threshold() -> float:
    from .analysis.rules import THRESHOLDS

    return THRESHOLDS["network_threshold"]


def _workers(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of processes, not {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError("must be 0 (all cores) or more")
    return n


def _fraction(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number such as 0.8, not {text!r}") from None
    if not 0 < v <= 1:
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return v


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``lbanalysis`` program."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = _Parser(
        prog=PROG,
        description="Read load-test outputs (ab, siege, gobench, iperf) into tidy tables; run reports.",
        epilog=_MAIN_EPILOG,
        formatter_class=fmt,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser(
        "read", help="export the tidy tables (CSV, JSON, Parquet)", epilog=_READ_EPILOG, formatter_class=fmt
    )
    p.description = "Read tool outputs and export the tidy tables."
    _add_read_options(p, "skip")
    p.add_argument("--table", choices=TABLE_CHOICES, default="runs", help="table to export (default: runs)")
    p.add_argument("-o", "--output", default="-", metavar="FILE", help="output file, folder (--table all) or -")
    p.add_argument("--format", choices=("csv", "tsv", "json", "parquet"), help="override the format of -o")
    p.add_argument("-q", "--quiet", action="store_true", help="no 'wrote ...' line on stderr")
    p.set_defaults(func=cmd_read)

    p = sub.add_parser("summary", help="one line per run in the terminal", epilog=_SUMMARY_EPILOG, formatter_class=fmt)
    p.description = "Print the headline figures of every run, and what was skipped."
    _add_read_options(p, "skip")
    p.add_argument(
        "--format",
        choices=("text", "markdown", "csv"),
        default="text",
        help="text (aligned, default), markdown (a table to paste into an issue or pull request) or csv",
    )
    p.set_defaults(func=cmd_summary)

    p = sub.add_parser(
        "compare",
        help="change in throughput and latency between two setups",
        epilog=_COMPARE_EPILOG,
        formatter_class=fmt,
    )
    p.description = "Compare two folders (or two values of a column) series by series."
    p.add_argument("a", metavar="A", help="first folder (or value of --by)")
    p.add_argument("b", metavar="B", help="second folder (or value of --by)")
    p.add_argument("--by", metavar="COLUMN", help="compare two values of this runs column instead of two folders")
    p.add_argument("--in", dest="within", nargs="+", metavar="PATH", help="what to read with --by (default: .)")
    p.add_argument("--pattern", help="path pattern naming columns, e.g. '{setup}/{mode}'")
    p.add_argument("--manifest", metavar="FILE", help="manifest CSV (default: every manifest.csv in the folders)")
    p.add_argument("--load", default="concurrency", help="load column (default: concurrency)")
    p.add_argument("--format", choices=("text", "markdown", "csv"), default="text", help="output format")
    p.set_defaults(func=cmd_compare, tool=None, errors="skip", workers=1, where=None)

    p = sub.add_parser(
        "report", help="run the article notebooks into HTML reports", epilog=_REPORT_EPILOG, formatter_class=fmt
    )
    p.description = "Execute article notebooks with papermill and export HTML to reports/<slug>/."
    p.add_argument("names", nargs="*", metavar="NAME", help="notebook number (03) or slug (haproxy-apache-siege)")
    p.add_argument("--all", action="store_true", help="every article notebook")
    p.add_argument("--list", action="store_true", help="list the article notebooks and their parameters")
    p.add_argument(
        "-p", "--param", nargs=2, action="append", metavar=("NAME", "VALUE"), help="set a parameter (repeatable)"
    )
    p.add_argument(
        "-f", "--params-file", metavar="YAML", help="parameters from a YAML file (-p overrides its global values)"
    )
    p.add_argument(
        "--show-code",
        dest="no_input",
        action="store_false",
        help="keep the code cells in the HTML (left out by default)",
    )
    p.add_argument("--no-input", dest="no_input", action="store_true", help=argparse.SUPPRESS)  # the default now
    p.add_argument("-o", "--output", metavar="DIR", help="reports folder (default: the project's reports/)")
    p.add_argument("--notebooks", metavar="DIR", help="folder of the article notebooks (default: notebooks/)")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser(
        "explore", help="run the explore notebook over your logs", epilog=_EXPLORE_EPILOG, formatter_class=fmt
    )
    p.description = "Explore a folder of outputs: what was read, scaling, latency, saturation, network."
    p.add_argument("paths", nargs="+", metavar="PATH", help="folder, files or glob of tool outputs")
    p.add_argument("-o", "--output", metavar="DIR", help="output folder (default: reports/explore-<folder>)")
    p.add_argument("--pattern", help="path pattern naming columns, e.g. '{setup}/{mode}'")
    p.add_argument("--manifest", metavar="FILE", help="manifest CSV")
    p.add_argument("--load", help="load variable column (default: concurrency)")
    p.add_argument("--group", help="column whose values are compared (e.g. setup)")
    p.add_argument(
        "--capacity",
        metavar="RATE",
        help="link capacity for every path ('1 Gbit/s') or per target host ('lb1=1 Gbit/s,lb2=10 Gbit/s'); "
        "default: iperf runs matched to each run's host, never pooled across paths",
    )
    p.add_argument("--iperf", metavar="DIR", help="folder of iperf outputs measuring the links")
    p.add_argument(
        "--threshold",
        type=_fraction,
        help=f"share of link capacity that flags a run (the verdict rules' network_threshold, default "
        f"{_network_threshold():g})",
    )
    p.add_argument("--model", choices=("usl", "amdahl", "linear"), help="scaling model (default usl)")
    p.add_argument(
        "--engine",
        choices=tuple(ENGINES),
        help="dask: read and aggregate the per-request logs on Dask, for folders larger than memory (docs/cluster.md)",
    )
    p.add_argument(
        "--show-code",
        dest="no_input",
        action="store_false",
        help="keep the code cells in the HTML (left out by default)",
    )
    p.add_argument("--no-input", dest="no_input", action="store_true", help=argparse.SUPPRESS)  # the default now
    p.set_defaults(func=cmd_explore)

    from .registry import drives

    p = sub.add_parser(
        "sweep", help="run a load tool over a list of loads, with the evidence", epilog=_SWEEP_EPILOG,
        formatter_class=fmt,
    )  # fmt: skip
    p.description = (
        "Run a load tool at each load (and repeat) into a folder that lbanalysis reads: the outputs, a "
        "manifest, and optionally iperf3 before/after and HAProxy statistics around each run."
    )
    p.add_argument("tool", choices=list(drives()), metavar="TOOL", help=f"one of: {', '.join(drives())}")
    p.add_argument("url", metavar="URL", help="the target (http:// or https://)")
    p.add_argument(
        "--loads", required=True, metavar="N,N,...", help="loads: concurrency (wrk2 and vegeta: the rate, requests/s)"
    )
    p.add_argument("--repeat", type=int, default=1, metavar="N", help="runs at each load (default 1)")
    bound = p.add_mutually_exclusive_group(required=True)
    bound.add_argument("--requests", type=int, metavar="N", help="requests per run (all clients together)")
    bound.add_argument("--duration", metavar="TIME", help="length of each run: 10s, 2m")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="a new (or empty) folder for the runs")
    p.add_argument("--label", action="append", metavar="KEY=VALUE", help="a manifest column for every run")
    p.add_argument("--iperf", metavar="HOST[:PORT]", help="measure the path with iperf3 -J before and after")
    p.add_argument("--iperf-seconds", type=int, default=5, metavar="S", help="length of each iperf3 test (default 5)")
    p.add_argument(
        "--haproxy-stats", metavar="SOCKET|URL", help="HAProxy `show stat` (and `show info`) before and after each run"
    )
    p.add_argument(
        "--direct",
        metavar="URL|auto",
        help="after each run, the same run straight to this backend (auto: the first server of --haproxy-stats)",
    )
    p.add_argument(
        "--monitor",
        action="append",
        metavar="NAME=COMMAND",
        help="a command run beside each run, its output kept as monitor/NAME/NNN.txt (repeatable)",
    )
    p.add_argument(
        "--processes",
        type=int,
        default=1,
        metavar="N",
        help="N copies of the tool at once, the load shared (locust: a master and N workers)",
    )
    p.add_argument(
        "--workers-elsewhere",
        metavar="HOST",
        help="locust --processes N: the workers run on other machines; the master listens on HOST (this machine)",
    )
    p.add_argument("--order", choices=("shuffle", "alternate", "up"), default="shuffle", help="loads within a repeat")
    p.add_argument("--seed", type=int, help="seed of the shuffle (default: random, printed)")
    p.add_argument(
        "--timeout", type=float, metavar="S", help="stop a run after S seconds (default: duration + 30, or 300)"
    )
    p.add_argument("--yes", action="store_true", help="run a sweep estimated longer than 10 minutes")
    p.add_argument("--explore", action="store_true", help="build the explore report of the folder when done")
    p.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    p.add_argument("--no-progress", action="store_true", help="a line per run instead of a progress bar")
    p.set_defaults(func=cmd_sweep, extra=[])
    return parser


# ----------------------------------------------------------------- main ---
def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 data error, 2 usage error)."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if argv[:1] == ["sweep"] and "--" in argv:  # the tool's own options, passed through
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1 :]
    try:
        args = parser.parse_args(argv)
        if extra:
            args.extra = extra
    except CLIError as e:
        _err(str(e))
        return e.status
    except SystemExit as e:  # --help, --version
        return int(e.code or 0) if not isinstance(e.code, str) else 2
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.func(args)
    except CLIError as e:
        _err(str(e))
        return e.status
    except LBAnalysisError as e:
        _err(_one_line(e))
        return 1
    except BrokenPipeError:
        # output piped into `head`: stop quietly
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        _err(f"{where}{e.strerror or e}")
        return 1
    except Exception as e:  # a bug: say so in one line, traceback only on request
        if os.environ.get("LBANALYSIS_DEBUG"):
            traceback.print_exc()
        _err(f"internal error: {type(e).__name__}: {_one_line(e)} (LBANALYSIS_DEBUG=1 shows the traceback)")
        return 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
