"""Run a load tool over a list of loads, and keep the evidence the analysis needs beside the runs.

:func:`sweep` (``lbanalysis sweep TOOL URL --loads 1,2,4,8 ...``) runs the
installed tool once per load and repeat, in an order that spreads the
repeats over time (so drift shows as noise, not as a trend across loads),
and writes into one folder:

* one file per run, the tool's output exactly as it printed it (stdout and
  stderr together, as a terminal shows them) under a ``$ <command>`` line,
  the transcript form :func:`lbanalysis.read` knows;
* ``manifest.csv``: ``file``, ``tool``, ``load``, ``repeat``, ``timestamp``
  (start, UTC), ``end_time`` (UTC), ``exit_code``, ``note`` (why a run
  failed or was stopped; empty when it went well) and one column per
  ``--label key=value``; ``read()`` attaches these to the runs;
* with ``iperf=HOST[:PORT]``: ``iperf3-before.json`` and ``iperf3-after.json``
  (``iperf3 -c HOST -J``, the path's capacity, which explore matches to the
  runs by their target host);
* with ``haproxy_stats=SOCKET|URL``: ``haproxy/NNN-before.csv`` and
  ``haproxy/NNN-after.csv`` around run NNN (``show stat`` through the UNIX
  socket, or the stats page's ``;csv``), timed in the manifest, so that
  :func:`lbanalysis.analysis.balance.balance_per_run` pairs each run with
  its own two snapshots.

How each tool is driven (its load and bound options, what installs it,
what it reads on stdin and the command its output goes through: vegeta's
``echo 'GET url' | vegeta attack ... | vegeta report``) is data of the
registry (:class:`lbanalysis.registry.Drive`). The planning
below is pure: the order of the runs, the commands, the time estimate.
Nothing is started on the server side. Safe by default: a missing tool is
refused (naming what installs it), every run is bounded by requests or
duration and stopped at a timeout, a failed run is kept as printed and never
retried, and a sweep estimated longer than :data:`CONFIRM_ABOVE_S` needs
``yes=True``. Ctrl-C stops after the current run (a second one stops that
run too); the folder reads either way.

>>> plan = plan_runs([1, 2, 4], repeats=2, order="alternate")
>>> [(r.index, r.load, r.repeat) for r in plan]
[(1, 1, 1), (2, 2, 1), (3, 4, 1), (4, 4, 2), (5, 2, 2), (6, 1, 2)]
>>> from lbanalysis.registry import drive_of
>>> build_command(drive_of("ab"), "http://127.0.0.1:8080/", 4, requests=2000, extra=["-k"])
['ab', '-c', '4', '-n', '2000', '-k', 'http://127.0.0.1:8080/']
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .. import registry
from ..errors import LBAnalysisError
from .evidence import backend_urls, haproxy_snapshot
from .plan import (
    BOOKKEEPING,
    CONFIRM_ABOVE_S,
    GRACE_S,
    IPERF_SECONDS,
    MANIFEST_COLUMNS,
    ORDERS,
    PROCESS_COLUMNS,
    REQUESTS_TIMEOUT_S,
    RUN_OVERHEAD_S,
    WORKERS,
    PlannedRun,
    SweepRefused,
    build_command,
    command_line,
    estimate_seconds,
    parse_duration,
    parse_labels,
    parse_loads,
    parse_monitors,
    plan_runs,
    run_file,
    split_load,
    with_direct,
)
from .run import SweepResult, run_sweep
from .search import SearchResult, search_sweep

__all__ = [
    "BOOKKEEPING",
    "CONFIRM_ABOVE_S",
    "GRACE_S",
    "IPERF_SECONDS",
    "MANIFEST_COLUMNS",
    "ORDERS",
    "PROCESS_COLUMNS",
    "REQUESTS_TIMEOUT_S",
    "RUN_OVERHEAD_S",
    "WORKERS",
    "PlannedRun",
    "SearchResult",
    "SweepRefused",
    "SweepResult",
    "backend_urls",
    "build_command",
    "command_line",
    "estimate_seconds",
    "explore_report",
    "haproxy_snapshot",
    "parse_duration",
    "parse_labels",
    "parse_loads",
    "parse_monitors",
    "path_changed",
    "plan_runs",
    "run_file",
    "run_sweep",
    "search_sweep",
    "split_load",
    "sweep",
    "too_short",
    "warnings_of",
    "with_direct",
]


def too_short(runs: pd.DataFrame) -> str:
    """A warning when the sweep's runs are too short or too small for the analysis to judge, else "".

    The thresholds are the verdict rules' own (:data:`lbanalysis.analysis.rules.RUN_GUARDS`): a run under
    ``min_duration_s`` or with fewer than ``min_requests`` attempts is left out of curves and verdicts.

    >>> print(too_short(pd.DataFrame({"tool": ["ab"] * 2, "duration_s": [0.3, 0.4], "requests": [2000, 2000]})))
    2 of 2 runs are too short for a verdict (under 1 s or fewer than 100 requests): the analysis leaves them out of curves; sweep with --duration 2s or more requests
    """
    from ..analysis.rules import THRESHOLDS

    if runs.empty or "duration_s" not in runs:
        return ""
    http = runs[runs["tool"].map(lambda x: registry.get_tool(str(x)).kind == "http-load" if x in registry.names()
                                 else False).astype(bool)] if "tool" in runs else runs  # fmt: skip
    dur = pd.to_numeric(http["duration_s"], errors="coerce")
    n = pd.to_numeric(http["requests"], errors="coerce") if "requests" in http else pd.Series(float("nan"), http.index)
    short = (dur < THRESHOLDS["min_duration_s"]) | (n < THRESHOLDS["min_requests"])
    if not short.any():
        return ""
    return (
        f"{int(short.sum())} of {len(http)} runs are too short for a verdict (under {THRESHOLDS['min_duration_s']:g} s "
        f"or fewer than {THRESHOLDS['min_requests']:g} requests): the analysis leaves them out of curves; "
        "sweep with --duration 2s or more requests"
    )


def path_changed(runs: pd.DataFrame) -> str:
    """A warning when the sweep's iperf3 measures of one path (before and after) disagree, else "".

    Tests of one path more than :data:`lbanalysis.capacity.MAX_SPREAD` apart
    give no capacity (:func:`lbanalysis.capacity.link_capacity` calls the
    path inconsistent): the runs are then judged without a network limit.

    >>> runs = pd.DataFrame({"tool": ["iperf3"] * 2, "local_host": ["10.0.0.1"] * 2,
    ...                      "remote_host": ["10.0.0.2"] * 2, "bits_per_s": [9.4e8, 3.1e8]})
    >>> print(path_changed(runs))
    iperf3 measured the path 10.0.0.1 -> 10.0.0.2 at 310.0 to 940.0 Mbit/s, more than 2x apart (the path or the machines' load changed during the sweep): the analysis gives the runs no network capacity; measure again, or give it (explore --capacity RATE)
    """
    from ..capacity import MAX_SPREAD, link_capacity

    if runs.empty or "bits_per_s" not in runs or "tool" not in runs:
        return ""
    try:
        paths = link_capacity(runs)
    except (LBAnalysisError, KeyError, ValueError):  # iperf rows without hosts: nothing to compare
        return ""
    bad = paths[~paths["consistent"].fillna(True).astype(bool)]
    return "; ".join(
        f"iperf3 measured the path {p['local_host']} -> {p['remote_host']} at {p['min_bits_per_s'] / 1e6:,.1f} to "
        f"{p['max_bits_per_s'] / 1e6:,.1f} Mbit/s, more than {MAX_SPREAD:g}x apart (the path or the machines' load "
        "changed during the sweep): the analysis gives the runs no network capacity; measure again, or give it "
        "(explore --capacity RATE)"
        for _, p in bad.iterrows()
    )


def warnings_of(runs: pd.DataFrame) -> list[str]:
    """What a sweep's user is told after the runs: :func:`too_short`, :func:`path_changed` (those that apply).

    >>> warnings_of(pd.DataFrame())
    []
    """
    return [w for w in (too_short(runs), path_changed(runs)) if w]


def sweep(
    tool: str,
    url: str,
    loads: str | Sequence[int],
    *,
    output: str | os.PathLike,
    repeat: int = 1,
    requests: int | None = None,
    duration: str | int | None = None,
    extra: Sequence[str] = (),
    labels: Iterable[str] | Mapping[str, object] | None = None,
    iperf: str | None = None,
    iperf_seconds: int = IPERF_SECONDS,
    haproxy_stats: str | None = None,
    order: str = "shuffle",
    seed: int | None = None,
    timeout: float | None = None,
    yes: bool = False,
    explore: bool | str | os.PathLike = False,
    progress: bool | None = None,
    direct: str | None = None,
    monitors: Iterable[str] | Mapping[str, str] | None = None,
    processes: int = 1,
    workers_elsewhere: str | None = None,
) -> Any:
    """Run ``tool`` against ``url`` at each load, ``repeat`` times, into ``output``; return the folder read back.

    Parameters
    ----------
    tool
        An executable the registry knows how to drive: ab, siege, gobench,
        wrk, wrk2, hey, k6, locust, vegeta, oha, bombardier
        (:func:`lbanalysis.registry.drives`).
    url
        The target; nothing is started on the server side.
    loads
        ``"1,2,4,8"`` or a list: concurrency (wrk2 and vegeta: the rate asked, requests/s).
    requests, duration
        What bounds each run, exactly one: a number of requests (all clients
        together) or a duration (``"10s"``).
    extra
        More options for the tool (``-k``, ``-H 'Accept: ...'``), after the sweep's own.
    labels
        ``key=value`` pairs (or a dict) written as manifest columns of every file.
    iperf, iperf_seconds, haproxy_stats
        The evidence beside the runs (see the module docstring): ``HOST[:PORT]``
        of an ``iperf3 -s`` and how long each measurement lasts; a HAProxy
        stats socket path or stats page URL.
    order, seed
        Order of the loads within each repeat (:data:`ORDERS`); the shuffle's seed.
    direct
        A backend's URL (or ``"auto"``: the first server with an address in
        HAProxy's ``show stat``, with ``haproxy_stats``): each run is
        followed by the same run straight to it, the manifest's ``route``
        saying ``lb`` or ``direct`` and ``group`` the load balancer's
        address, so that both are one folder and two series.
    monitors
        ``NAME=COMMAND`` items (or a dict): each command runs beside every
        run, its output kept as ``monitor/NAME/NNN.txt`` (NAME is the host
        the CPU readers give its samples).
    processes
        Run N copies of the tool at once, the load (and requests) shared
        between them, each pinned to its own core when there are enough:
        one output and manifest row per process, the manifest's ``test``
        naming the test they make together. Locust runs in its distributed
        mode instead: a master (``--master --expect-workers N``, the whole
        load) and N workers on this machine.
    workers_elsewhere
        Locust's workers run on other machines: the master listens on this
        address (of this machine) and waits for them at each run (at most
        ``timeout``); the command to start them is printed.
    timeout
        Seconds after which a run is stopped (default: its duration + 30 s, or 300 s).
    yes
        Run a sweep estimated longer than :data:`CONFIRM_ABOVE_S`.
    explore
        Build the explore report from the folder when done (True: in
        ``reports/explore-<folder>``; or a folder to write it in).

    Returns
    -------
    Dataset
        ``lbanalysis.read(output, table="all")``. A Ctrl-C stops after the
        current run; the runs done are in the folder and in the Dataset.
    """
    from ..reader import read

    result = run_sweep(
        tool, url, loads, output=output, repeat=repeat, requests=requests, duration=duration, extra=extra,
        labels=labels, iperf=iperf, iperf_seconds=iperf_seconds, haproxy_stats=haproxy_stats, order=order,
        seed=seed, timeout=timeout, yes=yes, progress=progress, direct=direct, monitors=monitors,
        processes=processes, workers_elsewhere=workers_elsewhere,
    )  # fmt: skip
    if result.stopped:
        print(f"lbanalysis: {result.stopped}", file=sys.stderr)
    ds = read(result.output, table="all", errors="warn")
    for warning in warnings_of(ds.runs):
        print(f"lbanalysis: {warning}", file=sys.stderr)
    if explore and result.done:
        explore_report(result.output, None if explore is True else explore)
    return ds


def explore_report(folder: str | os.PathLike, output: str | os.PathLike | None = None) -> Path:
    """Build the explore report of a sweep's folder (as ``lbanalysis explore FOLDER``); the HTML's path."""
    from .. import report

    folder = Path(folder).resolve()
    out = Path(output) if output else Path("reports") / f"explore-{folder.name}"
    return report.run_notebook(report.EXPLORE_NOTEBOOK, {"logs": str(folder)}, out, True, name="explore")
