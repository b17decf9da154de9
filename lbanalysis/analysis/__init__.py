"""The analysis layer: functions over the tidy ``runs`` frame.

==========================  ==============================================
function                    what it does
==========================  ==============================================
``fit_scaling``             linear / Amdahl / USL fit of throughput vs load
``littles_law``             concurrency = throughput × response time, flags
``required_connections``    maxconn ≥ rate × service time
``find_knee``               the load past which throughput stops growing
``network_utilisation``     wire bits vs link capacity, network-bound flags
``study``                   one answer for a folder: series, errors,
                            capacity, fits, knees, a verdict per series
``tests_of``                one row per test of several load-generator
                            processes at once (sums, merged percentiles)
``verdicts``                the study's verdict table
``compare``                 B/A ratio of means with a bootstrap interval
``balance``                 load-balancer shares vs weights, fairness, queues
``ratio_table``             each row's value and its ratio to a baseline row
``peak_bracket``            the best measured load and its neighbours
``closed_loop_rate``        completions/s of a fixed-length closed-loop test
``latency_tail``            raw vs coordinated-omission-corrected tail, stalls
``corrected_percentiles``   per-run percentiles with the expected-interval fix
``stalls``                  gaps in start times when no request started
``cpu_per_run``             per run: each host's CPU, busiest core and
                            process measured, with file:line
``Objective``               the user's objective: ``p99 <= 50ms, errors <= 1%``
``study(objective=)``       per series, the most load that meets an objective
                            (``Study.capacity()``, :mod:`~lbanalysis.analysis.slo`)
==========================  ==============================================

Submodules are imported on first use (scipy is loaded only then).

>>> import lbanalysis.analysis as an
>>> an.required_connections(100, 3.0)
300
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "cpu_per_run": "cpu",
    "fit_scaling": "fits",
    "ScalingFit": "fits",
    "ScalingFits": "fits",
    "FitSummary": "fits",
    "MODELS": "fits",
    "usl_throughput": "fits",
    "amdahl_throughput": "fits",
    "littles_law": "little",
    "required_connections": "little",
    "find_knee": "saturation",
    "Knee": "saturation",
    "network_utilisation": "network",
    "study": "engine",
    "tests_of": "engine",
    "Study": "engine",
    "verdicts": "verdict",
    "RULES": "rules",
    "wire_bits_per_s": "network",
    "Framing": "network",
    "format_bits_per_s": "network",
    "compare": "comparison",
    "balance": "balance",
    "balance_each": "balance",
    "diff_snapshots": "balance",
    "balance_per_run": "balance",
    "jain_index": "balance",
    "ratio_table": "comparison",
    "peak_bracket": "saturation",
    "closed_loop_rate": "little",
    "latency_tail": "latency",
    "corrected_percentiles": "latency",
    "stalls": "latency",
    "Objective": "objective",
}

__all__ = sorted(_EXPORTS)

# `balance` is both a submodule and a function of it: importing the submodule (as any `from
# lbanalysis.analysis.balance import ...` does) would set the package's `balance` to the module. Loaded here
# once, the name stays the function whatever is imported later.
from .balance import balance as balance  # noqa: E402


def __getattr__(name: str) -> Any:
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
