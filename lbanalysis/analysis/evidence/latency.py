"""Latency evidence: per run, the latency the analysis uses and its basis (measured, not made of the concurrency).

ab's *Time per request* is concurrency × time / requests, so throughput ×
latency equals the concurrency by construction (the registry's
``latency_is_little``): where ab's Connection Times table is read, its
measured total mean is used instead; else the printed mean is kept with a
note that it cannot show an idle client.

>>> import pandas as pd
>>> http = pd.DataFrame({"tool": ["wrk"], "latency_mean_s": [0.01], "source": ["w.txt"], "run": [0]})
>>> with_latency(http, None, None)[["latency_used_s", "latency_basis"]].values.tolist()
[[0.01, 'mean latency printed']]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import registry
from ..series import as_floats
from .runs import known_tool

__all__ = ["total_means", "with_latency"]


def total_means(http: pd.DataFrame, phases: pd.DataFrame | None) -> pd.Series:
    """Per run: ab's Connection Times total mean (s), from the ``phases`` table (NaN: not shown).

    >>> phases = pd.DataFrame({"source": ["a"], "run": [0], "phase": ["total"], "mean_s": [0.004]})
    >>> total_means(pd.DataFrame({"source": ["a", "b"], "run": [0, 0]}), phases).tolist()
    [0.004, nan]
    """
    total = pd.Series(np.nan, index=http.index)
    if phases is None or not len(phases) or "phase" not in phases or "source" not in http or "run" not in http:
        return total
    tot = phases[phases["phase"].astype(str) == "total"]
    m = {(str(s), int(r)): float(v) for s, r, v in zip(tot["source"], tot["run"], tot["mean_s"], strict=True)}
    return pd.Series([m.get((str(s), int(r)) if pd.notna(r) else None, np.nan)
                      for s, r in zip(http["source"], http["run"], strict=True)], index=http.index)  # fmt: skip


def with_latency(http: pd.DataFrame, phases: pd.DataFrame | None, requests: pd.DataFrame | None) -> pd.DataFrame:
    """The latency the analysis uses per run (``latency_used_s``, ``latency_step_s``) and its basis
    (``latency_basis``, ``_latency_note``): measured, not derived from the concurrency."""
    lat = as_floats(http, "latency_mean_s")
    step = as_floats(http, "latency_mean_step_s")
    basis = pd.Series("mean latency printed", index=http.index, dtype=object)
    total = total_means(http, phases)
    http["_total_mean_s"] = total
    tools = http["tool"] if "tool" in http else pd.Series(pd.NA, index=http.index, dtype="string")
    little = tools.map(lambda x: registry.get_tool(x).latency_is_little if known_tool(x) else "")
    note = pd.Series("", index=http.index, dtype=object)
    for i in http.index[(little != "").to_numpy(bool)]:
        if pd.notna(total[i]):
            lat[i], step[i], basis[i] = total[i], 0.001, "Connection Times total mean (ms)"
        else:  # still the latency's growth with load, but no evidence of idle clients
            basis[i], note[i] = "mean latency printed (concurrency × time / requests)", little[i]
    http["latency_used_s"] = lat
    http["latency_step_s"] = step.fillna(0.0)
    http["latency_basis"] = basis
    http["_latency_note"] = note
    return http
