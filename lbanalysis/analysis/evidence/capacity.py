"""Capacity evidence: per run, the capacity behind it, its basis and source, and the utilisation of its path.

:func:`lbanalysis.capacity.capacity_per_run` matches each run with a
capacity (given, a manifest's, or the iperf runs of its origin);
:func:`with_utilisation` turns the run's bytes into the bits its path
carried on that basis (payload against iperf's goodput, wire bits against
a link's rate).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ...capacity import capacity_per_run
from ..network import bits_used

__all__ = ["path_bound", "with_capacity", "with_path_bound", "with_utilisation"]


def with_capacity(
    http: pd.DataFrame, capacity: Any, basis: str, iperf_runs: pd.DataFrame, *, explicit: bool
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The runs with ``capacity_bits_per_s``, ``capacity_basis``, ``capacity_source``, ``capacity_note``, and the
    iperf paths measured. ``explicit``: the iperf runs were given for every run (not matched by origin)."""
    cap = capacity_per_run(
        http, capacity, basis=basis, iperf=iperf_runs,
        run_origin=None if explicit else http["_origin"], iperf_origin=None if explicit else iperf_runs["_origin"],
    )  # fmt: skip
    http["capacity_bits_per_s"] = cap.bits
    http["capacity_basis"] = cap.basis
    http["capacity_source"] = cap.source
    http["capacity_note"] = cap.note
    return http, cap.paths


def with_utilisation(http: pd.DataFrame) -> pd.DataFrame:
    """The runs with ``used_bits_per_s`` (on their capacity's basis) and ``utilisation`` (of that capacity).

    >>> http = pd.DataFrame({"bytes_per_s": [1e6], "capacity_basis": ["payload"], "capacity_bits_per_s": [1e7]})
    >>> with_utilisation(http)["utilisation"].tolist()
    [0.8]
    """
    used = pd.Series(np.nan, index=http.index)
    for basis in ("payload", "wire"):
        mine = (http["capacity_basis"] == basis) & http["capacity_bits_per_s"].notna()
        if mine.any():
            used[mine] = bits_used(http[mine.to_numpy(bool)], basis)["wire_bits_per_s"]
    http["used_bits_per_s"] = used
    http["utilisation"] = used / http["capacity_bits_per_s"].where(http["capacity_bits_per_s"] > 0)
    return http


def path_bound(utilisation: float, t: Mapping[str, float]) -> str:
    """What a utilisation of a path says: ``"capacity mismatch"`` above ``t["mismatch_above"]`` (more than a
    run can carry: the capacity belongs to another path), ``"network"`` from ``t["network_threshold"]``, else
    ``""`` (also when there is no utilisation).

    >>> t = {"network_threshold": 0.8, "mismatch_above": 1.1}
    >>> path_bound(0.93, t), path_bound(1.3, t), path_bound(0.5, t), path_bound(float("nan"), t)
    ('network', 'capacity mismatch', '', '')
    """
    if not utilisation == utilisation:  # NaN or NA: no capacity matched
        return ""
    if utilisation > t["mismatch_above"]:
        return "capacity mismatch"
    return "network" if utilisation >= t["network_threshold"] else ""


def with_path_bound(http: pd.DataFrame, t: Mapping[str, float]) -> pd.DataFrame:
    """The runs with ``path_bound``: what each run's ``utilisation`` says of its path (:func:`path_bound`).

    >>> http = pd.DataFrame({"utilisation": [0.9, 1.2, None]})
    >>> with_path_bound(http, {"network_threshold": 0.8, "mismatch_above": 1.1})["path_bound"].tolist()
    ['network', 'capacity mismatch', '']
    """
    util = pd.to_numeric(http["utilisation"], errors="coerce")
    http["path_bound"] = [path_bound(u, t) for u in util.to_numpy(dtype=float, na_value=np.nan)]
    return http
