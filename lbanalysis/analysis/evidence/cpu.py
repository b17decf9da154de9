"""CPU evidence: per run and per load, the CPU figures of each role (:mod:`lbanalysis.analysis.resources`).

A test of several processes gets every process's samples
(:func:`lbanalysis.analysis.tests.cpu_of_tests`); the samples that count are
those :func:`lbanalysis.analysis.cpu.samples` keeps, the same that
:func:`lbanalysis.analysis.cpu.cpu_per_run` shows.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..resources import cpu_by_run, per_load, per_load_by
from ..series import as_floats
from ..tests import cpu_of_tests

__all__ = ["cpu_at_loads", "cpu_at_loads_by", "cpu_of_runs"]


def cpu_of_runs(cpu: pd.DataFrame | None, processes: pd.DataFrame, http: pd.DataFrame) -> pd.DataFrame | None:
    """One row per run of ``http`` (a test's: every process's samples): the figures of
    :data:`lbanalysis.analysis.resources.COLUMNS`; None without samples."""
    if cpu is None or not len(cpu):
        return None
    return cpu_by_run(cpu_of_tests(cpu, processes, http), http)


def cpu_at_loads(by_run: pd.DataFrame | None, used: pd.DataFrame, load: str) -> pd.DataFrame | None:
    """The figures of the runs ``used`` (rows of ``by_run``) per load of the column ``load``; None without any."""
    if by_run is None or not len(used):
        return None
    return per_load(by_run.loc[used.index], as_floats(used, load))


def cpu_at_loads_by(
    by_run: pd.DataFrame | None, used: pd.DataFrame, load: pd.Series, by: str
) -> dict[Any, pd.DataFrame]:
    """:func:`cpu_at_loads` of each group of the runs ``used`` sharing a value of the column ``by`` (``load``: each
    run's load), in one pass (no entry at all without figures: ``by_run`` None)."""
    if by_run is None or not len(used):
        return {}
    return per_load_by(by_run.loc[used.index], load, used[by])
