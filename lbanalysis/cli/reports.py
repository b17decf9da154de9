"""``lbanalysis report`` and ``lbanalysis explore``: the commands that run notebooks (the 'report' extra)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from ..errors import LBAnalysisError
from ..reader import ENGINES
from .common import PROG, CLIError, check_paths, err, fraction_option, isatty, network_threshold, one_line, relative

__all__ = [
    "EXPLORE_EPILOG",
    "REPORT_EPILOG",
    "add_explore_parser",
    "add_report_parser",
    "cmd_explore",
    "cmd_report",
    "explore_parameters",
    "report_machinery",
]


def _parameters(args: argparse.Namespace) -> dict[str, Any]:
    from ..report.runner import load_parameters, parse_value

    params: dict[str, Any] = {}
    if getattr(args, "params_file", None):
        params.update(load_parameters(args.params_file))
    for name, value in getattr(args, "param", None) or []:
        params[name] = parse_value(value)
    return params


def report_machinery() -> Any:
    """:mod:`lbanalysis.report`, or a usage error saying which extra to install."""
    try:
        from .. import report
    except ModuleNotFoundError as e:
        raise CLIError(
            f"reports need the 'report' extra ({e.name} is missing): pip install 'lbanalysis[report]'", 2
        ) from None
    return report


def cmd_report(args: argparse.Namespace) -> int:
    report = report_machinery()
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
    tty = isatty(sys.stderr)

    def start(i: int, n: int, path: Path) -> None:
        if tty:
            print(f"[{i}/{n}] {path.name} ...", file=sys.stderr, flush=True)

    def done(i: int, n: int, r: report.ReportResult) -> None:
        where = r.html or r.output_dir
        line = f"[{i}/{n}] {r.notebook.name}: {r.status} in {r.seconds:.1f} s -> {relative(where)}"
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
            err(str(r.error))
        print(f"{PROG}: {len(failed)} of {len(results)} notebook(s) failed ({total:.1f} s)", file=sys.stderr)
        return 1
    print(
        f"{PROG}: {len(results)} report(s) written to {relative(out)}/ ({total:.1f} s); index: {relative(index)}",
        file=sys.stderr,
    )
    return 0


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
    from .. import schema
    from ..metadata import compile_pattern
    from ..reader import manifests_in

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
    from .. import schema

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
    from ..reader import read

    ds = read(list(args.paths), errors="skip", progress=False, table="all", tables=["runs"])
    if not len(ds.runs):
        why = "; ".join(f"{Path(str(r.source)).name}: {str(r.reason).strip().splitlines()[0].split('; known formats')[0]}"
                        for r in ds.skipped.head(3).itertuples())  # fmt: skip
        more = f" and {len(ds.skipped) - 3} more" if len(ds.skipped) > 3 else ""
        n = len(ds.skipped)
        note = f" ({n} file{'' if n == 1 else 's'} could not be read: {why}{more})" if n else ""
        raise CLIError(f"no runs found in {', '.join(args.paths)}{note}: no report written", 1)


def cmd_explore(args: argparse.Namespace) -> int:
    report = report_machinery()

    missing = check_paths(args.paths)
    if missing:
        raise CLIError(f"{missing[0]}: no such file, folder or glob match", 2)
    for opt in ("manifest", "iperf"):
        value = getattr(args, opt)
        if value and not os.path.exists(value):
            raise CLIError(f"{value}: no such {'file' if opt == 'manifest' else 'folder'} (--{opt})", 2)
    if args.capacity:
        from ..report.explore import parse_capacities
        from ..units import parse_capacity

        try:
            parsed = parse_capacities(args.capacity)
            for rate in parsed.values() if isinstance(parsed, dict) else [parsed]:
                parse_capacity(rate)
        except (LBAnalysisError, ValueError) as e:
            raise CLIError(f"--capacity {args.capacity!r}: {one_line(e)}", 2) from None
    _check_columns(args)
    _explore_has_runs(args)
    notebook = report.EXPLORE_NOTEBOOK
    if not notebook.is_file():
        raise CLIError(f"{notebook}: the explore notebook is missing from the installed package", 1)
    first = Path(args.paths[0])
    out = Path(args.output) if args.output else Path("reports") / f"explore-{first.resolve().name or 'logs'}"
    params = explore_parameters(args)
    tty = isatty(sys.stderr)
    print(f"{PROG}: exploring {', '.join(args.paths)} ...", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    try:
        html = report.run_notebook(notebook, params, out, args.no_input, progress=tty, name="explore")
    except report.NotebookError as e:
        raise CLIError(f"{e} (partial report in {relative(out)}/)", 1) from None
    print(f"{PROG}: wrote {relative(html)} and explore.ipynb in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


REPORT_EPILOG = """\
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


EXPLORE_EPILOG = """\
examples:
  lbanalysis explore logs/
  lbanalysis explore logs/ --pattern '{setup}/{mode}' --group setup -o reports/mylab
  lbanalysis explore logs/ --capacity '1 Gbit/s' --iperf iperf/ --threshold 0.9

Runs notebooks/00-explore.ipynb over the folder and writes explore.ipynb and
explore.html (plus figures) to -o (default reports/explore-<folder>/).
"""


def add_report_parser(
    sub: Any, fmt: type[argparse.HelpFormatter] = argparse.RawDescriptionHelpFormatter
) -> argparse.ArgumentParser:
    """The ``report`` subcommand's parser and options."""
    p = sub.add_parser(
        "report", help="run the article notebooks into HTML reports", epilog=REPORT_EPILOG, formatter_class=fmt
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
    return p


def add_explore_parser(
    sub: Any, fmt: type[argparse.HelpFormatter] = argparse.RawDescriptionHelpFormatter
) -> argparse.ArgumentParser:
    """The ``explore`` subcommand's parser and options."""
    p = sub.add_parser(
        "explore", help="run the explore notebook over your logs", epilog=EXPLORE_EPILOG, formatter_class=fmt
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
        type=fraction_option,
        help=f"share of link capacity that flags a run (the verdict rules' network_threshold, default "
        f"{network_threshold():g})",
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
    return p
