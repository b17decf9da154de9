"""What bounded each series, with the numbers behind it.

A view of :func:`lbanalysis.analysis.engine.study`: the verdicts table of the
study of these runs (the rules are the table of
:mod:`lbanalysis.analysis.rules`). For each series
(:mod:`lbanalysis.analysis.series`) one verdict, checked in this order, each
with a sentence that names its figures and thresholds (all parameters of
:func:`verdicts`):

``errors``
    failures or non-2xx answers above ``error_share`` of the attempts at
    some load: the figures past that point measure error pages, not service.
``capacity mismatch``
    the runs carried more bits than the capacity matched to their path
    (utilisation above 100 %): a run cannot use more than its link, so the
    capacity belongs to another path or was measured otherwise. Both figures
    are given; no network verdict is drawn from it.
``network``
    bits on the wire at or above ``network_threshold`` of the path's
    capacity (iperf runs to the same host, or capacities you give per host).
``load generator``
    a closed-loop tool kept fewer requests in flight than asked: throughput
    × latency (Little's law) below ``generator_share`` of the concurrency.
``server saturation``
    past the knee, throughput grew by at most ``flat_gain`` while mean
    latency grew by at least ``latency_growth``, with Little's law holding
    (throughput × latency within ``little_tolerance`` of the concurrency).
``no bound reached``
    throughput still grows at the highest load.
``cannot tell``
    what the data cannot carry, with the reason (every run too short, one
    load only, no latency, a latency printed too coarsely, ab's printed
    latency that proves nothing about idle clients).

>>> import pandas as pd
>>> runs = pd.DataFrame({"tool": "ab", "host": "h", "concurrency": [10, 20, 40, 80],
...                      "requests_per_s": [1000.0, 1900, 2000, 2010],
...                      "latency_mean_s": [0.010, 0.0105, 0.020, 0.0398],
...                      "requests": 1000, "failed": 0, "non_2xx": 0, "bytes_per_s": 2e6})
>>> v = verdicts(runs, capacity="1 Gbit/s")
>>> v.loc[0, "verdict"]
'server saturation'
>>> print(v.loc[0, "evidence"])
past concurrency 40, throughput changed +0% (at most +10%) while mean latency rose +99% (at least +20%); the path was at most 2% used: not the network; ab's Time per request is concurrency × time / requests, so throughput × latency equals the concurrency by construction: without its -g log or Connection Times, ab cannot show an idle client; one run per load: the run-to-run noise is unknown, so the knee is not called significant; the load generator's CPU was not ruled out (no figure of the client's CPU against what it could use, no queue shown behind it)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from .rules import THRESHOLDS, VERDICTS, thresholds_text

__all__ = ["THRESHOLDS", "VERDICTS", "thresholds_text", "verdicts"]


def verdicts(
    runs: pd.DataFrame,
    *,
    load: str = "concurrency",
    by: str | Sequence[str] | None = None,
    capacity: Any = None,
    error_share: float | None = None,
    network_threshold: float | None = None,
    flat_gain: float | None = None,
    latency_growth: float | None = None,
    little_tolerance: float | None = None,
    generator_share: float | None = None,
    **thresholds: float,
) -> pd.DataFrame:
    """One verdict per series of HTTP load-test runs, with its evidence (see the module text).

    ``capacity``: a number or string for every path (``"1 Gbit/s"``), a
    mapping from target host to capacity, or :func:`lbanalysis.capacity.link_capacity`
    output (each HTTP target matched to the iperf paths that end at that
    host; never a capacity pooled across paths). Without it, a ``capacity``
    column of the runs (from a manifest), else the iperf runs among ``runs``
    of the same origin. Columns: ``series``, ``runs``, ``loads``,
    ``verdict`` (one of :data:`VERDICTS`), ``evidence``, ``confidence`` and
    the figures used. The same table as ``study(runs, ...).verdicts``.
    """
    from .engine import study

    given = dict(error_share=error_share, network_threshold=network_threshold, flat_gain=flat_gain,
                 latency_growth=latency_growth, little_tolerance=little_tolerance, generator_share=generator_share)  # fmt: skip
    s = study(runs, capacity=capacity, by=by, load=load, **{k: v for k, v in given.items() if v is not None},
              **thresholds)  # fmt: skip
    out = s.verdicts
    if not len(out):
        return pd.DataFrame(columns=["series", "runs", "loads", "verdict", "evidence"])
    front = ["series", "runs", "loads", "verdict", "evidence"]
    out = out.drop(columns=["notes", "figures", "rule"])
    return out[[*front, *[c for c in out.columns if c not in front]]]
