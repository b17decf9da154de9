"""What every section starts from: the Dataset read (:func:`load`), the notebook's parameters checked and
resolved, and the one study of the folder (:func:`study_of`) that the sections lay out.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from ... import registry
from ...errors import LBAnalysisError


def load(
    logs: str | os.PathLike | Iterable[Any],
    *,
    pattern: str | None = None,
    manifest: str | os.PathLike | None = None,
    tool: str | None = None,
    workers: int = 1,
    engine: str = "pandas",
) -> Any:
    """Read everything in ``logs`` (folder, glob, file or list of them) into a Dataset.

    Unreadable files are skipped and listed in ``Dataset.skipped`` (with the
    reason), never fatal; ``manifest=None`` applies every ``manifest.csv``
    found in the folders. A path that does not exist raises
    :class:`~lbanalysis.errors.LBAnalysisError`. ``engine="dask"`` (a large
    folder) reads the per-request logs on Dask: ``Dataset.requests`` is then a
    Dask DataFrame, and the sections that use it aggregate it there
    (:mod:`lbanalysis.analysis.requests`).
    """
    from ...reader import read

    paths = [logs] if isinstance(logs, (str, os.PathLike)) or hasattr(logs, "read") else list(logs)
    for p in paths:
        if isinstance(p, (str, os.PathLike)):
            s = os.fspath(p)
            if not os.path.exists(s) and not any(ch in s for ch in "*?["):
                raise LBAnalysisError(f"{s}: no such file or folder")
    from ... import schema

    ds = read(
        paths,
        pattern=pattern,
        manifest=manifest if manifest else True,
        tool=tool,
        errors="skip",
        workers=workers,
        table="all",
        progress=False,
        tables=None if engine == "pandas" else [t for t in schema.TABLES if t != "requests"],
    )
    if engine == "dask":
        files = [p for p in paths if isinstance(p, (str, os.PathLike))]
        ds.requests = read(files, table="requests", engine="dask", tool=tool)
    return ds


def check_parameters(
    ds: Any, load: str = "concurrency", group: str | None = None, fit_model: str = "usl", threshold: float = 0.8
) -> None:
    """Fail early, with a clear message, on a parameter that cannot work with what was read.

    >>> import io
    >>> ds = load(io.StringIO("Requests per second: 5 [#/sec] (mean)\\n"))
    >>> check_parameters(ds, group="setup")
    Traceback (most recent call last):
    ...
    lbanalysis.errors.LBAnalysisError: group column 'setup' is not in the runs table
    """
    if len(ds.runs):
        check_column(ds.runs, load, "load")
        check_column(ds.runs, group, "group")
    if fit_model not in ("usl", "amdahl", "linear"):
        raise LBAnalysisError(f"fit_model must be 'usl', 'amdahl' or 'linear', not {fit_model!r}")
    if not 0 < float(threshold) <= 1:
        from ...analysis.rules import RULES

        (doc,) = [r.thresholds["network_threshold"][1] for r in RULES if "network_threshold" in r.thresholds]
        raise LBAnalysisError(f"threshold is the verdict rules' network_threshold ({doc}), between 0 and 1; "
                              f"got {threshold!r}")  # fmt: skip


def check_column(runs: pd.DataFrame, name: str | None, what: str) -> None:
    if name is not None and name not in runs.columns:
        from ... import schema

        extra = [c for c in runs.columns if c not in schema.RUNS]
        hint = f" (columns from pattern/manifest: {', '.join(extra)})" if extra else ""
        raise LBAnalysisError(f"{what} column {name!r} is not in the runs table{hint}")


def resolve(path: str | os.PathLike | Sequence[Any] | None) -> Any:
    """A notebook path parameter made usable from any working directory.

    Absolute paths, globs and paths that exist from the working directory are
    kept; other relative paths are taken from the project root
    (:func:`lbanalysis.report.project.find_project`), so the defaults work
    wherever the notebook runs. Lists are resolved item by item; ``None`` stays.

    >>> from pathlib import Path
    >>> from lbanalysis.report.project import find_project
    >>> root = find_project().root
    >>> resolve("tests/fixtures") == str(root / "tests" / "fixtures") or Path("tests/fixtures").exists()
    True
    >>> resolve(None) is None
    True
    """
    from ..project import find_project

    if path is None:
        return None
    if isinstance(path, (list, tuple)):
        return [resolve(p) for p in path]
    import glob

    s = os.fspath(path)
    if os.path.isabs(s) or os.path.exists(s):
        return s
    candidate = str(find_project().root / s)
    if any(ch in s for ch in "*?["):
        return candidate if not glob.glob(s, recursive=True) and glob.glob(candidate, recursive=True) else s
    return candidate if os.path.exists(candidate) else s


def http_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """Runs of HTTP load tools (not iperf) that report a throughput.

    >>> runs = pd.DataFrame({"tool": ["ab", "iperf3", "ab"], "requests_per_s": [1.0, None, None]})
    >>> http_runs(runs).index.tolist()
    [0]
    """
    if not len(runs):
        return runs
    tool = runs["tool"].astype("string").fillna("")
    keep = ~tool.isin(registry.names(kind="network")) & pd.to_numeric(runs["requests_per_s"], errors="coerce").notna()
    return runs[keep.to_numpy(bool)]


def iperf_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """iperf and iperf3 runs that report a bit rate.

    >>> runs = pd.DataFrame({"tool": ["ab", "iperf3"], "bits_per_s": [None, 9.4e8]})
    >>> iperf_runs(runs).index.tolist()
    [1]
    """
    if not len(runs) or "bits_per_s" not in runs:
        return runs.iloc[0:0]
    tool = runs["tool"].astype("string").fillna("")
    keep = tool.isin(registry.names(kind="network")) & pd.to_numeric(runs["bits_per_s"], errors="coerce").notna()
    return runs[keep.to_numpy(bool)]


_STUDIES: dict[tuple, Any] = {}


def study_of(
    ds: Any,
    link_capacity: str | float | None = None,
    iperf: str | os.PathLike | None = None,
    threshold: float = 0.8,
    load: str = "concurrency",
    group: str | None = None,
) -> Any:
    """The one :class:`~lbanalysis.analysis.engine.Study` of ``ds`` that every section below shows.

    Built once per dataset and parameters (the iperf folder read once); the
    sections only lay out its figures and sentences.
    """
    from ...analysis.engine import study
    from ...capacity import capacity_parameter

    key = (id(ds), str(link_capacity), str(iperf), float(threshold), load, group)
    if key not in _STUDIES or _STUDIES[key][0] is not ds:
        measured = load_iperf(iperf) if iperf is not None else None
        if any(held is not ds for held, _ in _STUDIES.values()):
            _STUDIES.clear()  # one dataset at a time (the notebook's); holding it keeps its id from being reused
        _STUDIES[key] = (ds, study(ds, capacity=capacity_parameter(link_capacity), iperf=measured, group=group,
                                   load=load, network_threshold=threshold))  # fmt: skip
    return _STUDIES[key][1]


def series_study(ds: Any, load: str, group: str | None) -> Any:
    """A study of ``ds`` for what does not depend on capacities (series, runs left out, fits, knees): the
    one already built for the sections above when there is one, whatever capacity it was given."""
    for (ident, _, _, _, held_load, held_group), (held, st) in _STUDIES.items():
        if held is ds and ident == id(ds) and held_load == load and held_group == group:
            return st
    return study_of(ds, load=load, group=group)


def load_iperf(folder: str | os.PathLike) -> pd.DataFrame:
    """The runs of the iperf outputs in ``folder`` (unreadable files skipped)."""
    return load(folder).runs


def parse_capacities(text: str | float | None) -> Any:
    """A capacity parameter (see :func:`lbanalysis.capacity.capacity_parameter`).

    >>> parse_capacities("1 Gbit/s"), parse_capacities("lb1=1 Gbit/s, 10.0.0.2=100 Mbit/s")
    ('1 Gbit/s', {'lb1': '1 Gbit/s', '10.0.0.2': '100 Mbit/s'})
    """
    from ...capacity import capacity_parameter

    return capacity_parameter(text)


def own_loads(st: Any) -> pd.Series:
    """Series -> the column its load is read from: the concurrency, or the rate asked of a fixed-rate tool
    (the study's ``load`` per series, :func:`lbanalysis.analysis.engine.series_load`)."""
    if "load" not in st.verdicts or not len(st.verdicts):
        return pd.Series(dtype=object)
    return st.verdicts.set_index("series")["load"].fillna(st.load)
