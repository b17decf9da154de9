"""``lbanalysis sweep``: run a load tool over a list of loads into a folder that reads, then say what it wrote."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import PROG, CLIError, Parser, relative, report_skipped, warn
from .reports import add_explore_parser, cmd_explore

__all__ = ["EPILOG", "add_parser", "cmd_sweep"]


def cmd_sweep(args: argparse.Namespace) -> int:
    """Run the sweep, say what it wrote (and what did not read), then build the explore report if asked."""
    from ..reader import read
    from ..sweep import SweepRefused, run_sweep

    if args.search or args.objective:
        return _cmd_search(args)
    if not args.loads:
        raise CLIError("--loads is required (or --objective ... --search to find the load)", 2)
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
    out = relative(result.output)
    if result.done:
        ds = read(result.output, table="all", errors="skip")
        failed = f"; {result.failed} failed or stopped (the manifest's note says why)" if result.failed else ""
        print(f"{PROG}: {result.done} of {result.planned} runs in {out}/ (manifest.csv){failed}", file=sys.stderr)
        report_skipped(ds, "skip")
        for note in ds.notes:
            warn(note)
        from ..sweep import warnings_of

        for warning in warnings_of(ds.runs):
            warn(warning)
    if result.stopped:
        print(f"{PROG}: {result.stopped}", file=sys.stderr)
    if args.explore and result.done:
        explore_args = _explore_defaults(str(result.output))
        status = cmd_explore(explore_args)
        if status:
            return status
    if result.stopped.startswith("interrupted"):
        return 130
    if result.stopped:
        return 1 if not result.stopped.startswith("at this pace") else 2
    return 1 if result.failed else 0


def _cmd_search(args: argparse.Namespace) -> int:
    """``--objective ... --search``: the search's steps, then the capacity the study computes from the folder."""
    from ..analysis.objective import ObjectiveError
    from ..sweep import SweepRefused
    from ..sweep.search import search_sweep

    if not (args.search and args.objective):
        raise CLIError("--search needs --objective (and --objective is for --search; `lbanalysis check` judges a "
                       "folder)", 2)  # fmt: skip
    if args.repeat != 1 or args.direct or args.iperf or args.processes != 1 or args.dry_run:
        raise CLIError("--search chooses each load itself: --repeat, --direct, --iperf, --processes and --dry-run "
                       "do not apply", 2)  # fmt: skip
    start = None
    if args.loads:
        first = str(args.loads).split(",")[0].strip()
        if not first.isdigit() or int(first) < 1:
            raise CLIError(f"--loads: the search starts at a positive whole number, not {first!r}", 2)
        start = int(first)
    try:
        result = search_sweep(
            args.tool, args.url, args.objective, output=args.output, start=start, resolution=args.resolution,
            max_runs=args.max_runs, time_limit=args.search_time, max_load=args.max_load, requests=args.requests,
            duration=args.duration, extra=args.extra, labels=args.label, haproxy_stats=args.haproxy_stats,
            timeout=args.timeout, monitors=args.monitor, progress=False if args.no_progress else None,
        )  # fmt: skip
    except (SweepRefused, ObjectiveError) as e:
        raise CLIError(str(e), 2) from None
    out = relative(result.output)
    print(f"{PROG}: {result.done} runs in {out}/ (manifest.csv: each run's step and why); {result.stopped}",
          file=sys.stderr)  # fmt: skip
    for r in result.capacity.itertuples():
        print(f"{r.series}: {r.status}. {r.evidence}")
    if result.stopped.startswith("interrupted"):
        return 130
    if result.failed:
        return 1
    statuses = set(result.capacity["status"]) if len(result.capacity) else {"cannot judge"}
    return 2 if "cannot judge" in statuses else 0


def _explore_defaults(folder: str) -> argparse.Namespace:
    """The options of ``lbanalysis explore FOLDER``, every other option at its default."""
    holder = Parser(prog=PROG)
    add_explore_parser(holder.add_subparsers(dest="command", parser_class=Parser))
    return holder.parse_args(["explore", folder])


EPILOG = """\
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

  lbanalysis sweep ab http://lb/ --objective 'p99 <= 50ms, errors <= 1%' --search --duration 5s -o runs/
  lbanalysis sweep vegeta http://lb/ --objective 'p99 <= 50ms' --search --loads 100 --resolution 10% \
      --max-runs 12 --duration 3s -o runs/

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

--objective ... --search finds the most load that meets the objective: the
rate for open-model tools (wrk2, vegeta, httperf), the concurrency for
closed-model ones. It doubles the load from the first of --loads (default 1,
or 10 for a rate) until the objective fails, bisects to --resolution, runs
the two loads of the bracket until each has 3 runs, then a confirmation run;
at most --max-runs runs and --search-time seconds. After each run the folder
is read back and judged as `study` does; the manifest's `search` column says
why each load was chosen. It ends with the capacity the study computes
(the crossing with its interval). Exit: 0 found, 1 a run failed, 2 cannot
judge (or refused).
"""


def add_parser(
    sub: Any, fmt: type[argparse.HelpFormatter] = argparse.RawDescriptionHelpFormatter
) -> argparse.ArgumentParser:
    """The ``sweep`` subcommand's parser and options."""
    from ..registry import drives

    p = sub.add_parser(
        "sweep", help="run a load tool over a list of loads, with the evidence", epilog=EPILOG,
        formatter_class=fmt,
    )  # fmt: skip
    p.description = (
        "Run a load tool at each load (and repeat) into a folder that lbanalysis reads: the outputs, a "
        "manifest, and optionally iperf3 before/after and HAProxy statistics around each run."
    )
    p.add_argument("tool", choices=list(drives()), metavar="TOOL", help=f"one of: {', '.join(drives())}")
    p.add_argument("url", metavar="URL", help="the target (http:// or https://)")
    p.add_argument(
        "--loads",
        metavar="N,N,...",
        help="loads: concurrency (wrk2, vegeta, httperf: the rate, requests/s); with --search, the first is the start",
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
    search = p.add_argument_group("searching the capacity at an objective")
    search.add_argument("--objective", metavar="TEXT", help="the objective, e.g. 'p99 <= 50ms, errors <= 1%%'")
    search.add_argument(
        "--search", action="store_true", help="double the load until the objective fails, then bisect (see below)"
    )
    search.add_argument("--resolution", default="5%", metavar="SHARE", help="bisect until within this (default 5%%)")
    search.add_argument("--max-runs", type=int, default=20, metavar="N", help="runs at most (default 20)")
    search.add_argument(
        "--search-time", type=float, default=600.0, metavar="S", help="seconds for the whole search (default 600)"
    )
    search.add_argument("--max-load", type=int, metavar="N", help="the doubling's ceiling")
    p.set_defaults(extra=[])
    return p
