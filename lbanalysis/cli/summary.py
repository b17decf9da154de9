"""``lbanalysis summary``: one line per run in the terminal (or Markdown, CSV), and what was skipped."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Sequence
from typing import Any

import pandas as pd

from .. import registry
from .common import CLIError, add_read_options, isatty, one_line, read_dataset, report_skipped, skipped_note

__all__ = ["EPILOG", "add_parser", "cmd_summary", "format_markdown", "format_table", "summary_table"]


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
    from ..analysis.latency import recorded_percentiles

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
    from .. import schema
    from ..sweep import BOOKKEEPING

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
        err = "" if err is None or pd.isna(err) else one_line(err)
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
    ds = read_dataset(args, strict_paths=True)
    if args.format != "text":  # a file or a document: sources whole
        width = 10**6
    elif isatty(sys.stdout):  # the source column takes what the other columns leave of the terminal
        width = max(20, min(60, shutil.get_terminal_size().columns - 100))
    else:  # piped to a pager or a file: nothing wraps
        width = 60
    from ..analysis.engine import study
    from ..analysis.tests import per_test_percentiles, with_tests

    st = study(ds)  # processes run at once are one test: one line, its figures summed (lbanalysis.analysis.tests)
    table = summary_table(
        with_tests(ds.runs, st), width=width, percentiles=per_test_percentiles(st, ds.percentiles), study=st
    )
    if args.format == "csv":
        table.to_csv(sys.stdout, index=False)
    elif args.format == "markdown":
        if len(ds.runs):
            print(format_markdown(table))
            print("\n" + _design_line(st))
        print("\n" + _footer(ds))
    else:
        if len(ds.runs):
            print(format_table(table))
            print(_design_line(st))
        print(_footer(ds))
    report_skipped(ds, "warn")
    if not len(ds.runs):
        raise CLIError(f"no runs found in {', '.join(args.paths)}" + skipped_note(ds), 1)
    return 0


def _design_line(st: Any) -> str:
    """The experiment's design in one line (:func:`lbanalysis.design.sentence`), as the study reads it."""
    from ..design import sentence

    return f"Design: {sentence(st.design)}." if len(st.runs) else "Design: no HTTP load-test runs."


EPILOG = """\
examples:
  lbanalysis summary logs/
  lbanalysis summary data/raw/haproxy-wordpress-ab --errors warn

One line per run: source, run, tool, label or command (tells runs of one
file apart), concurrency (iperf: streams), requests, failed, req/s, mean,
p50 and p99 latency in ms (where the tool printed percentiles), HTTP
transfer in bytes/s (MB/s), a link test's rate in bits/s (Mbit/s), error.
Empty columns are left out. A line says the experiment's design (what was
compared, the load, the repeats: read from the folder and file names, lines
inside the files, a pattern or a manifest). The last line counts runs per tool, skipped
files and outputs that are not tests; every skipped file is then listed with
its reason on stderr (the same policy as read).
  lbanalysis summary logs/ --where "tool == 'ab'" --format markdown
"""


def add_parser(
    sub: Any, fmt: type[argparse.HelpFormatter] = argparse.RawDescriptionHelpFormatter
) -> argparse.ArgumentParser:
    """The ``summary`` subcommand's parser and options."""
    p = sub.add_parser("summary", help="one line per run in the terminal", epilog=EPILOG, formatter_class=fmt)
    p.description = "Print the headline figures of every run, and what was skipped."
    add_read_options(p, "skip")
    p.add_argument(
        "--format",
        choices=("text", "markdown", "csv"),
        default="text",
        help="text (aligned, default), markdown (a table to paste into an issue or pull request) or csv",
    )
    return p
