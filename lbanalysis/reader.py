"""``read()``: files, folders, globs or buffers in; tidy frames out.

>>> import io
>>> runs = read(io.StringIO("$ ab -k -c 10 -n 1000000 http://tu-web-01/\\n"
...                         "Requests per second:    12570.77 [#/sec] (mean)\\n"))
>>> runs[["tool", "concurrency", "keepalive", "requests_per_s"]].to_dict("records")
[{'tool': 'ab', 'concurrency': 10, 'keepalive': True, 'requests_per_s': 12570.77}]
>>> ds = read(io.StringIO("Requests per second: 5 [#/sec] (mean)\\n"), table="all")
>>> sorted(ds.tables)
['cpu', 'histogram', 'intervals', 'metrics', 'percentiles', 'phases', 'requests', 'runs', 'servers', 'streams']
"""

from __future__ import annotations

import fnmatch
import glob
import os
import re
import warnings
from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Literal, TextIO

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from . import schema
from .design.sections import with_sections
from .errors import LBAnalysisError, ParseError, SkippedFileWarning
from .files import Item, gather
from .metadata import apply_manifest, coerce_numeric, match_pattern, read_manifest
from .pairing import manifest_cpu, pair_cpu, pattern_cpu
from .records import Records
from .schema.columns import F, T
from .schema.design import DESIGN
from .schema.frames import records_frame
from .scripts import with_think_times

__all__ = ["DEFAULT_IGNORE", "ENGINES", "Dataset", "Engine", "engine_named", "expand", "read"]

PathLike = str | os.PathLike | TextIO
Errors = Literal["raise", "warn", "skip"]

# Files in walked folders that are documentation or configuration, not tool
# output. They are listed in ``Dataset.ignored``; files named explicitly are
# always read.
DEFAULT_IGNORE = (
    ".*",
    "*.md",
    "*.rst",
    "*.sh",
    "*.py",
    "*.js",
    "*.jmx",
    "*.ipynb",
    "*.yml",
    "*.yaml",
    "*.cfg",
    "*.conf",
    "*.pem",
    "*.key",
    "*.crt",
    "*.png",
    "*.svg",
    "*.pdf",
    "*.html",
    "manifest*.csv",
    "columns.csv",
)


NOT_RUNS_COLUMNS = ["source", "line", "tool", "command", "kind"]


class _Table:
    """A detail table of a :class:`Dataset`: one given as None (or not given) is the table's empty frame, made when
    first asked for (a read of a folder of one tool leaves most tables empty; pandas takes 30-300 µs to make each).

    >>> ds = Dataset(runs=pd.DataFrame())
    >>> ds.servers.shape[0], list(ds.metrics.columns)[:2], ds.metrics is ds.metrics
    (0, ['source', 'run'], True)
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.name, self.slot = name, "_" + name

    def __get__(self, obj: object, owner: type | None = None) -> pd.DataFrame | None:
        if obj is None:
            return None  # the field's default: the empty table, made on first use
        frame = obj.__dict__[self.slot]
        if frame is None:
            frame = obj.__dict__[self.slot] = schema.empty(self.name)
        return frame

    def __set__(self, obj: object, value: pd.DataFrame | None) -> None:
        obj.__dict__[self.slot] = value


@dataclass
class Dataset:
    """Everything one ``read()`` produced: the tables and what was left out.

    ``runs``, ``percentiles``, ``phases``, ``requests``, ``intervals`` and
    ``servers`` (HAProxy statistics), ``streams`` (iperf's per-stream summaries), ``histogram`` (hey's and
    oha's response time histogram) and ``metrics`` (k6's metric lines, Locust's rows per request name) are tidy frames joined by (``source``, ``run``). ``skipped`` lists files that
    could not be read (source, reason); ``not_runs`` the outputs that are not
    tests (a help text, a version banner, a command shown without output:
    source, line, tool, command, kind), which are not counted as runs;
    ``ignored`` files that a folder walk passed over by name; ``notes``
    remarks such as manifest conflicts. ``design``: the experiment's
    factors (one row each: ``factor``, ``source``, ``role``, ``values``,
    ``evidence``; :mod:`lbanalysis.design`), as read from the folder and
    file names, lines inside the files, a pattern or a manifest.
    """

    runs: pd.DataFrame
    percentiles: pd.DataFrame = _Table()
    phases: pd.DataFrame = _Table()
    requests: pd.DataFrame = _Table()
    intervals: pd.DataFrame = _Table()
    servers: pd.DataFrame = _Table()
    streams: pd.DataFrame = _Table()
    histogram: pd.DataFrame = _Table()
    metrics: pd.DataFrame = _Table()
    cpu: pd.DataFrame = _Table()
    skipped: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["source", "reason"]))
    not_runs: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=NOT_RUNS_COLUMNS))
    ignored: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: What the design is inferred from (the columns a pattern, the manifests and lines inside the files gave,
    #: and the roles given by hand): the ``design`` table is built from it on first use, not at every read.
    design_inputs: dict[str, object] = field(default_factory=dict, repr=False)
    _design: pd.DataFrame | None = field(default=None, repr=False, compare=False)

    @property
    def design(self) -> pd.DataFrame:
        """The experiment's factors (:func:`lbanalysis.design.infer`), inferred once, on first use."""
        if self._design is None:
            if len(self.runs):
                from .design import infer

                self._design = infer(self.runs, **self.design_inputs).table  # type: ignore[arg-type]
            else:
                self._design = pd.DataFrame(columns=list(DESIGN))
        return self._design

    @design.setter
    def design(self, table: pd.DataFrame) -> None:
        self._design = table

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        return {name: getattr(self, name) for name in schema.TABLES}

    def __repr__(self) -> str:
        sizes = ", ".join(f"{k}={len(v)}" for k, v in self.tables.items())
        return (
            f"Dataset({len(self.files)} files: {sizes}; skipped={len(self.skipped)}, "
            f"not runs={len(self.not_runs)}, ignored={len(self.ignored)})"
        )

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><td>{k}</td><td>{len(v)}</td></tr>" for k, v in self.tables.items())
        skipped = ""
        if len(self.skipped):
            skipped = "<p><b>Skipped:</b></p>" + self.skipped.to_html(index=False)
        if len(self.not_runs):
            skipped += "<p><b>Not tests (not counted as runs):</b></p>" + self.not_runs.to_html(index=False)
        return f"<p>{len(self.files)} files read</p><table><tr><th>table</th><th>rows</th></tr>{rows}</table>{skipped}"


@lru_cache(maxsize=16)
def _ignore_re(ignore: tuple[str, ...]) -> re.Pattern:
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in ignore) or "(?!)")


IGNORE_FILE = ".lbignore"


def _read_ignore_file(path: str) -> list[str]:
    """Patterns of a ``.lbignore`` file: one per line, ``#`` comments, blank lines skipped."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = [ln.strip() for ln in fh]
    except OSError:
        return []
    return [ln for ln in lines if ln and not ln.startswith("#")]


def _locally_ignored(fp: str, local: list[tuple[str, list[str]]]) -> bool:
    """True when a ``.lbignore`` in this folder or above names the file (by name or relative path)."""
    for folder, patterns in local:
        if not fp.startswith(folder + os.sep):
            continue
        rel = os.path.relpath(fp, folder).replace(os.sep, "/")
        name = os.path.basename(fp)
        if any(fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(name, pat) for pat in patterns):
            return True
    return False


def expand(
    paths: PathLike | Iterable[PathLike], ignore: Sequence[str] = DEFAULT_IGNORE, manifests: list[str] | None = None
) -> tuple[list, list, list]:
    """Expand inputs into items to read; returns (items, ignored, missing). ``manifests``, when given, gets the
    sweep manifests (``manifest.csv``) the folders hold, in order (:func:`manifests_in`, from the same walk)."""
    if isinstance(paths, (str, os.PathLike)) or hasattr(paths, "read"):
        paths = [paths]  # type: ignore[list-item]
    items: list[Item] = []
    ignored: list[str] = []
    missing: list[str] = []
    ignored_name = _ignore_re(tuple(ignore)).match
    for p in paths:  # type: ignore[union-attr]
        if hasattr(p, "read"):
            items.append(Item(None, getattr(p, "name", None) or "<buffer>", "", p))  # type: ignore[arg-type]
            continue
        s = os.fspath(p)
        if any(ch in s for ch in "*?[") and not os.path.exists(s):
            hits = sorted(glob.glob(s, recursive=True))
            if not hits:
                missing.append(s)
            for h in hits:
                if os.path.isdir(h):
                    continue
                items.append(Item(h, h, h))
            continue
        path = Path(s)
        if path.is_dir():
            found = _walk_folder(str(path), ignored_name, items, ignored)
            if manifests is not None:
                manifests.extend(str(m) for m in sorted(found))  # in the order of their paths' parts
        elif path.exists():
            items.append(Item(s, s, s))
        else:
            missing.append(s)
    return items, ignored, missing


def _walk_folder(base: str, ignored_name: Callable, items: list[Item], ignored: list[str]) -> list[Path]:
    """Add a folder's files to ``items`` (or ``ignored``: by name, or by a ``.lbignore`` on the way), hidden folders
    left out; returns the sweep manifests (``manifest.csv``) seen, ignored or not."""
    local: list[tuple[str, list[str]]] = []  # (folder, patterns) of .lbignore files seen
    found: list[Path] = []
    for root, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        relroot = os.path.relpath(root, base).replace(os.sep, "/")
        prefix = "" if relroot == "." else relroot + "/"
        if IGNORE_FILE in files:
            local.append((root, _read_ignore_file(os.path.join(root, IGNORE_FILE))))
        for f in sorted(files):
            fp = os.path.join(root, f)
            if f == "manifest.csv":
                found.append(Path(fp))
            if ignored_name(f) is not None or (local and _locally_ignored(fp, local)):
                ignored.append(fp)
                continue
            items.append(Item(fp, fp, prefix + f))
    return found


def manifests_in(paths: PathLike | Iterable[PathLike]) -> list[Path]:
    """The sweep manifests (``manifest.csv``) in the folders given, in order (not in hidden folders, whose outputs
    are not read either).

    >>> manifests_in([])
    []
    """
    if isinstance(paths, (str, os.PathLike)) or hasattr(paths, "read"):
        paths = [paths]  # type: ignore[list-item]
    found: list[str] = []
    folders = [p for p in paths if not hasattr(p, "read") and os.path.isdir(os.fspath(p))]  # type: ignore[union-attr]
    expand(folders, (), found)
    return [Path(p) for p in found]


def _runs_frame(rows: list[dict]) -> pd.DataFrame:
    """The runs frame (see :func:`_conform`)."""
    if not rows:
        return schema.empty("runs")
    return _conform(rows, "runs", None)


def _conform(
    rows: list[dict], table: str, sources: list[tuple[str | None, int]] | None, given: dict | None = None
) -> pd.DataFrame:
    """``schema.conform``; a value no column can hold (an integer beyond 64 bits) names its file and column.

    ``sources`` gives (file, number of rows) in the order of ``rows`` (None: each row's ``source``, as run rows
    hold it; looked up only for the error); ``given``: columns built already.
    """
    try:
        return schema.conform(rows, table, given=given)
    except (OverflowError, ValueError, TypeError) as e:
        limit = 2**63 - 1
        owners = [r.get("source") for r in rows] if sources is None else [s for s, n in sources for _ in range(n)]
        for i, row in enumerate(rows):
            for col, v in row.items():
                if isinstance(v, int) and not isinstance(v, bool) and abs(v) > limit:
                    source = owners[i] if i < len(owners) else None
                    raise ParseError(
                        f"{table}.{col} = {v} does not fit a 64-bit integer column", source=source, line=row.get("line")
                    ) from e
        raise LBAnalysisError(f"could not build the {table} table: {type(e).__name__}: {e}") from e


def _assemble(items, results, errors: Errors, want: Iterable[str] | None = None):
    """Collect rows of every file; detail rows stay plain lists until one frame per table.

    ``want`` names the detail tables to build (default: all); the others stay
    empty, so ``read(path)`` does not pay for percentiles it will not return.
    Each run's file path and path relative to what was read are returned
    beside the rows (lists in their order), not as columns: a wide frame
    pays a copy of its blocks for each column taken out again. The detail
    tables come with the names of those whose one frame is built here, to
    the table already (no second conform).
    """
    wanted = set(schema.TABLES) if want is None else set(want)
    runs: list[dict] = []
    paths: list[str | None] = []
    rels: list[str | None] = []
    rows: dict[str, list[dict]] = {k: [] for k in schema.TABLES if k != "runs"}
    frames: dict[str, list[pd.DataFrame]] = {k: [] for k in schema.TABLES if k != "runs"}
    sources: dict[str, list[tuple[str, int]]] = {k: [] for k in schema.TABLES if k != "runs"}
    skipped: list[dict] = []
    not_runs: list[dict] = []
    for it, (p, err) in zip(items, results, strict=True):
        if err is not None:
            if errors == "raise":
                raise err
            reason = str(err)
            skipped.append({"source": it.source, "reason": reason})
            if errors == "warn":
                warnings.warn(f"skipped {reason}", SkippedFileWarning, stacklevel=4)
            continue
        assert p is not None
        not_runs.extend({"source": it.source, **n} for n in p.not_runs)
        for i, r in enumerate(p.runs):
            r["source"] = it.source
            r["run"] = i
            runs.append(r)
        paths.extend([it.path] * len(p.runs))
        rels.extend([it.rel] * len(p.runs))
        for name, part in p.tables.items():
            if name not in wanted:
                continue
            if isinstance(part, pd.DataFrame):
                src = schema.categorical(np.zeros(len(part), dtype=np.int8), [it.source])
                frames[name].append(part.assign(source=src))
            elif part:
                rows[name].extend(part)
                sources[name].append((it.source, len(part)))
    tables: dict[str, list[pd.DataFrame]] = {}
    ready: set[str] = set()  # the tables whose one frame is built to the table here (conform once)
    for name in rows:
        tables[name] = list(frames[name])
        if rows[name]:
            if not tables[name]:
                ready.add(name)
            tables[name].append(_rows_frame(name, rows[name], sources[name]))
    return runs, (paths, rels), (tables, ready), skipped, not_runs


def _rows_frame(name: str, rows: list[dict], sources: list[tuple[str, int]]) -> pd.DataFrame:
    """A detail table's rows of every file as one frame, built column by column from the dicts (fast), the file of
    each row given as built (``sources``: each file and its number of rows, in order)."""
    names = [s for s, _ in sources]
    counts = [n for _, n in sources]
    codes = np.repeat(np.arange(len(names)), counts)
    source = (
        schema.categorical(codes, names)  # each file once: its rows are together
        if len(set(names)) == len(names)
        else pd.Categorical(np.repeat(names, counts))
    )
    return _conform(rows, name, sources, given={"source": source})


def _missing_paths(missing: list[str], errors: Errors) -> list[dict]:
    """Paths that matched nothing: an error with ``errors="raise"``, else skipped (and warned) rows."""
    rows = []
    for m in missing:
        msg = f"{m}: no such file, folder or glob match"
        if errors == "raise":
            raise LBAnalysisError(msg)
        if errors == "warn":
            warnings.warn(f"skipped {msg}", SkippedFileWarning, stacklevel=3)
        rows.append({"source": m, "reason": msg})
    return rows


def _wanted(table: str, tables: Sequence[str] | None) -> frozenset[str] | None:
    """The detail tables to build (None: every one).

    >>> sorted(_wanted("all", ["runs", "phases"])), _wanted("all", None), sorted(_wanted("requests", None))
    (['phases'], None, ['requests'])
    """
    if table != "all":
        return frozenset([] if table == "runs" else [table])
    if tables is None:
        return None
    unknown = [t for t in tables if t not in schema.TABLES]
    if unknown:
        raise LBAnalysisError(
            f"unknown table(s) {', '.join(map(repr, unknown))}; choose from {', '.join(schema.TABLES)}"
        )
    return frozenset(t for t in tables if t != "runs")


def _with_pattern(runs: pd.DataFrame, pattern: str | None, notes: list[str], rels: list) -> pd.DataFrame:
    """The fields of a path pattern as columns (numbers numeric); unmatched files noted. ``rels``: each run's
    path relative to what was read."""
    if not pattern:
        return runs
    fields = [match_pattern(pattern, rel) or {} for rel in map(str, rels)]
    names = list(dict.fromkeys(k for f in fields for k in f))
    for name in names:
        runs[name] = [f.get(name) for f in fields]
    runs = coerce_numeric(runs, names)
    unmatched = sorted({s for s, f in zip(runs["source"], fields, strict=True) if not f})
    if unmatched and names:
        notes.append(f"pattern {pattern!r} did not match: {', '.join(unmatched[:5])}")
    return runs


def _manifests(manifest: str | os.PathLike | pd.DataFrame | bool | None, found: list[str]) -> list[pd.DataFrame]:
    """The manifests to apply: a frame, a file, or (``True``) every manifest.csv in the folders read (``found``,
    by the walk that found the files to read)."""
    if isinstance(manifest, pd.DataFrame):
        m = manifest.copy()
        m["_dir"] = m.get("_dir", str(Path.cwd()))
        return [m.astype({c: object for c in m.columns})]
    if manifest is True:
        return [read_manifest(p) for p in found]
    return [read_manifest(manifest)] if manifest else []


def _with_manifests(
    runs: pd.DataFrame, manifests: list[pd.DataFrame], notes: list[str], cpu: list[dict] | None, paths: list
) -> pd.DataFrame:
    """Manifest columns applied to the runs (conflicts noted), matched by each run's file (``paths``, in the
    order of the runs; held in a private column while they apply, then dropped).

    ``cpu``, when given, gets the rows of the ``cpu`` table that the manifests' CPU columns give
    (:func:`lbanalysis.pairing.manifest_cpu`).
    """
    if not manifests:
        return runs
    runs["_abs"] = [str(Path(p).resolve()) if isinstance(p, str) else "" for p in paths]
    for m in manifests:
        runs, more = apply_manifest(runs, m)
        notes.extend(more)
    if cpu is not None:
        cpu.extend(manifest_cpu(runs, manifests))
    if "_abs" in runs.columns:
        del runs["_abs"]  # in place: a drop() copies each of the frame's hundreds of columns
    return runs


def _columns_of(frames: list[pd.DataFrame]) -> list[str]:
    """The columns of the manifests read (what they state of the design)."""
    return [str(c) for m in frames for c in m.columns]


def _design_inputs(
    pattern: str | None, manifest_names: list[str], section_keys: list[str], design: dict[str, str] | None
) -> dict[str, object]:
    """What :func:`lbanalysis.design.infer` needs besides the runs, as its keywords (``Dataset.design_inputs``)."""
    if design:
        from .design import check_roles

        check_roles(design)  # an unknown role is an error of the read, not of a later look
    fields = re.findall(r"\{(\w+)", pattern) if pattern else []
    return {"pattern_fields": fields, "manifest_columns": manifest_names, "section_keys": section_keys,
            "overrides": dict(design or {})}  # fmt: skip


def _requests_of(path: str, tool: str | None) -> pd.DataFrame:
    """One file's requests table by the pandas path (what a Dask worker runs per file)."""
    return read(path, table="requests", tool=tool, manifest=False)


def read(
    paths: PathLike | Iterable[PathLike],
    *,
    tool: str | None = None,
    format: str | None = None,
    pattern: str | None = None,
    manifest: str | os.PathLike | pd.DataFrame | bool | None = True,
    errors: Errors = "raise",
    workers: int = 1,
    table: str = "runs",
    ignore: Sequence[str] = DEFAULT_IGNORE,
    progress: bool | None = None,
    engine: str = "pandas",
    blocksize: int | None = None,
    tables: Sequence[str] | None = None,
    executor: Executor | None = None,
    design: dict[str, str] | None = None,
) -> pd.DataFrame | Dataset:
    """Read benchmark outputs into tidy frames.

    Parameters
    ----------
    paths
        A file, a folder (read recursively), a glob (``"logs/**/*.txt"``), an
        open text buffer, or a list of these.
    tool, format
        Force a tool (``"ab"``, ``"siege"``, ``"gobench"``, ``"iperf"``,
        ``"iperf3"``) or a format name (see :func:`lbanalysis.formats`)
        instead of detecting it from the content.
    pattern
        Path pattern such as ``"{setup}/{mode}"``: each ``{name}`` becomes a
        column (numbers become numeric).
    manifest
        A manifest CSV path or frame (``file`` column + extra columns).
        ``True`` (default) applies every ``manifest.csv`` found in the
        folders read; ``False``/``None`` applies none.
    errors
        What one unreadable file among many does: ``"raise"`` (default) an
        :class:`~lbanalysis.errors.ParseError` naming it, ``"warn"`` a
        :class:`~lbanalysis.errors.SkippedFileWarning` and skip it,
        ``"skip"`` skip it. Skipped files are always listed in
        ``Dataset.skipped`` and in ``runs.attrs["skipped"]``.
    workers
        Processes to read with (``0`` = all cores). Same result as 1. They read the text outputs; a large
        ``ab -g`` log is parsed in this process meanwhile, on threads (in a worker, its rows would be
        copied back to this process, which costs more than the parse).
    table
        ``"runs"`` (default) returns the runs frame; ``"percentiles"``,
        ``"phases"``, ``"requests"``, ``"intervals"``, ``"servers"``, ``"streams"``, ``"histogram"``, ``"metrics"`` one detail table;
        ``"all"`` a :class:`Dataset` with every table.
    ignore
        File-name patterns a folder walk passes over (documentation,
        scripts, manifests); listed in ``Dataset.ignored``. A ``.lbignore``
        file in a folder adds patterns (one per line, by name or by path
        relative to that folder) for the files below it, e.g. notes that
        are not tool output.
    progress
        Show a progress bar (default: when reading 50+ files on a terminal).
    engine
        A name from :data:`ENGINES` (any other raises an error listing them):
        ``"pandas"`` (default) or ``"dask"``: with ``table="requests"``, a
        ``dask.dataframe.DataFrame`` of the same columns and dtypes, one
        partition per file and per ``blocksize`` bytes of a large ab ``-g``
        file, read on the workers of the current ``distributed`` client (see
        :mod:`lbanalysis.dask_engine`; needs ``lbanalysis[dask]``).
    blocksize
        Bytes per partition of a large ab ``-g`` file with ``engine="dask"``
        (default 16 MiB).
    tables
        With ``table="all"``: the detail tables to build (default: every
        one); the others stay empty. ``tables=[]`` builds the runs table only.
    executor
        A thread pool you keep open (``concurrent.futures.ThreadPoolExecutor``)
        on which a large ab ``-g`` file is ordered and its frame built (and
        parsed in byte ranges, when pyarrow does not parse it whole on
        Arrow's own threads). By default each such file starts and stops
        threads of its own. Not used with ``workers > 1``, where each process
        reads its files alone. Same result either way (``make bench``
        measures both).
    """
    eng = engine_named(engine)
    from .parquet import is_dataset

    if isinstance(paths, (str, os.PathLike)) and is_dataset(paths):  # written by write_dataset / read -o DIR
        return eng.read_dataset(paths, table)
    return eng.read(
        paths,
        tool=tool,
        format=format,
        pattern=pattern,
        manifest=manifest,
        errors=errors,
        workers=workers,
        table=table,
        ignore=ignore,
        progress=progress,
        blocksize=blocksize,
        tables=tables,
        executor=executor,
        design=design,
    )


def _read_dask(
    paths: PathLike | Iterable[PathLike],
    *,
    tool: str | None,
    table: str,
    ignore: Sequence[str],
    blocksize: int | None,
    **_: object,
):
    """The ``dask`` engine: the requests table as a Dask DataFrame (see :mod:`lbanalysis.dask_engine`)."""
    from .dask_engine import DEFAULT_BLOCKSIZE, read_dask

    if table != "requests":
        raise LBAnalysisError(f"engine='dask' reads the requests table (per-request logs), not {table!r}")
    items, _, missing = expand(paths, ignore)
    if missing:
        raise LBAnalysisError(f"{missing[0]}: no such file, folder or glob match")
    if any(it.path is None for it in items):
        raise LBAnalysisError("engine='dask' reads files, not open buffers")
    files = [(it.path, it.source) for it in items]
    return read_dask(files, _requests_of, tool=tool, blocksize=blocksize or DEFAULT_BLOCKSIZE)


def _read_pandas(
    paths: PathLike | Iterable[PathLike],
    *,
    tool: str | None,
    format: str | None,
    pattern: str | None,
    manifest: str | os.PathLike | pd.DataFrame | bool | None,
    errors: Errors,
    workers: int,
    table: str,
    ignore: Sequence[str],
    progress: bool | None,
    tables: Sequence[str] | None,
    executor: Executor | None,
    design: dict[str, str] | None = None,
    **_: object,
) -> pd.DataFrame | Dataset:
    """The ``pandas`` engine: pandas frames (a :class:`Dataset` with ``table="all"``)."""
    if errors not in ("raise", "warn", "skip"):
        raise LBAnalysisError(f"errors must be 'raise', 'warn' or 'skip', not {errors!r}")
    if table != "all" and table not in schema.TABLES:
        raise LBAnalysisError(f"unknown table {table!r}; choose one of: all, {', '.join(schema.TABLES)}")
    from .readers import candidate_formats

    candidate_formats(tool, format)  # an unknown tool or format fails here, before any file is read
    workers = os.cpu_count() or 1 if workers == 0 else max(1, int(workers))
    if executor is not None and not isinstance(executor, ThreadPoolExecutor):
        raise LBAnalysisError(
            f"executor must be a ThreadPoolExecutor (the ranges of a file are parsed in shared memory), "
            f"not {type(executor).__name__}"
        )
    found: list[str] = []
    items, ignored, missing = expand(paths, ignore, found)
    skipped_missing = _missing_paths(missing, errors)
    want = _wanted(table, tables)
    results = gather(items, tool, format, workers, progress, want, executor)
    runs_rows, (run_paths, rels), (tables, ready), skipped, not_runs = _assemble(items, results, errors, want)
    skipped = skipped_missing + skipped
    if table not in ("runs", "all", "cpu"):
        # one detail table asked for: the runs frame and its metadata are not needed
        parts = tables[table]
        if not parts:
            return schema.empty(table)
        return schema.conform(parts[0] if len(parts) == 1 else _concat(parts, table), table)

    notes: list[str] = []
    runs = _with_pattern(_runs_frame(runs_rows), pattern, notes, rels)
    runs, section_keys = with_sections(runs)
    from_manifests: list[dict] = []
    if pattern and (want is None or "cpu" in want):
        from_manifests.extend(pattern_cpu(runs, re.findall(r"\{(\w+)", pattern)))
    manifests = _manifests(manifest, found)
    manifest_names = _columns_of(manifests)
    runs = _with_manifests(runs, manifests, notes, from_manifests if want is None or "cpu" in want else None, run_paths)
    if from_manifests:
        tables["cpu"].append(schema.conform(from_manifests, "cpu"))
    runs = with_think_times(runs)
    skipped_df = _skipped_frame(skipped)
    not_runs_df = _not_runs_frame(not_runs)
    detail = _detail_frames(tables, runs, ready)
    # read-only records that pandas shares, not copies, into every frame built from runs (issue #39)
    runs.attrs["skipped"] = Records(skipped)  # the frame's records: (source, reason) strings
    runs.attrs["not_runs"] = Records(not_runs_df.to_dict("records") if not_runs else ())
    if table == "runs":
        return runs
    if table != "all":
        return detail[table] if table in detail else schema.empty(table)
    return Dataset(
        runs=runs,
        design_inputs=_design_inputs(pattern, manifest_names, section_keys, design),
        skipped=skipped_df,
        not_runs=not_runs_df,
        ignored=ignored,
        files=[it.source for it in items],
        notes=notes,
        **detail,
    )


def _detail_frames(
    tables: dict[str, list[pd.DataFrame]], runs: pd.DataFrame, ready: Collection[str] = ()
) -> dict[str, pd.DataFrame]:
    """The detail tables that some file gave rows to, each one frame (the CPU samples paired with their runs); the
    others are left out, to be made when first asked for (see :class:`Dataset`). ``ready``: the tables whose one
    frame is built to the table already (:func:`_assemble`)."""
    detail = {
        name: parts[0] if name in ready else schema.conform(parts[0] if len(parts) == 1 else _concat(parts, name), name)
        for name, parts in tables.items()
        if parts
    }
    if "cpu" in detail:
        detail["cpu"] = pair_cpu(detail["cpu"], runs)
    return detail


def _concat(parts: list[pd.DataFrame], table: str | None = None) -> pd.DataFrame:
    """The detail frames of several files as one, their ``source`` categories joined by their codes; the float and
    datetime columns of ``table`` that no part fills are left out, for ``schema.conform`` to build again.

    Each part's ``source`` is a category of its own file: ``pd.concat`` makes the union of different categories
    from the values, row by row (129 ms of a 200 ms concat of 15 ab ``-g`` logs, 429,000 rows);
    ``union_categoricals`` recodes the codes, its categories sorted as the union from the values had them.
    A column a reader left absent in each part (ten of an ab ``-g`` log's: one shared array of NaN each) would be
    copied into an array of its own as long as all the parts: ``conform`` makes it one shared array again (a third
    of that concat's time, and of the memory of the frame it returns).

    >>> a = pd.DataFrame({"source": pd.Categorical(["a.txt"] * 2), "x": [1.0, 2.0], "latency_s": np.nan})
    >>> b = pd.DataFrame({"source": pd.Categorical(["b.txt"]), "x": [3.0], "latency_s": np.nan})
    >>> both = _concat([a, b], "percentiles")
    >>> both["source"].tolist(), both["x"].tolist(), list(both.columns)
    (['a.txt', 'a.txt', 'b.txt'], [1.0, 2.0, 3.0], ['source', 'x'])
    """
    cols = schema.TABLES.get(table) if table else None
    candidates = [name for name, col in cols.items() if col.dtype in (F, T)] if cols else []
    blank = schema.missing_in_all(parts, candidates) if candidates else []
    sources = [p["source"].array if "source" in p.columns else None for p in parts]
    source = None
    if all(isinstance(s, pd.Categorical) for s in sources):
        try:
            source = union_categoricals(sources, sort_categories=True)  # type: ignore[arg-type]  # as pandas does
        except TypeError:  # categories of different dtypes: pandas' concat sorts them out
            source = None
    if source is None:
        return pd.concat([p.drop(columns=blank, errors="ignore") for p in parts] if blank else parts, ignore_index=True)
    body = pd.concat([p.drop(columns=["source", *blank], errors="ignore") for p in parts], ignore_index=True)
    body.insert(list(parts[0].columns.drop(blank, errors="ignore")).index("source"), "source", source)
    return body


def _not_runs_frame(rows: list[dict]) -> pd.DataFrame:
    """The outputs that are not tests, a row each (``line`` a nullable integer).

    >>> _not_runs_frame([]).dtypes["line"], _not_runs_frame([{"source": "a", "line": 3}])["line"].tolist()
    (Int64Dtype(), [3])
    """
    if not rows:  # the usual read: a copy of the empty frame, made once
        return _no_not_runs().copy()
    # built by columns (a frame from records, then cast, costs four times as much; pandas' own inference of each
    # column from its list, twice as much)
    return records_frame(rows, NOT_RUNS_COLUMNS, {"line": "Int64"})


def _skipped_frame(rows: list[dict]) -> pd.DataFrame:
    """The files a read skipped, a row each (source, reason).

    >>> _skipped_frame([]).columns.tolist(), _skipped_frame([{"source": "a", "reason": "empty"}])["reason"].tolist()
    (['source', 'reason'], ['empty'])
    """
    return records_frame(rows, ["source", "reason"]) if rows else _no_skipped().copy()


@lru_cache(maxsize=1)
def _no_skipped() -> pd.DataFrame:
    """The empty skipped frame, made on first use (never handed out: copy it)."""
    return pd.DataFrame([], columns=["source", "reason"])


@lru_cache(maxsize=1)
def _no_not_runs() -> pd.DataFrame:
    """The empty not-runs frame, made on first use (never handed out: copy it)."""
    return pd.DataFrame({c: pd.array([], dtype="Int64" if c == "line" else object) for c in NOT_RUNS_COLUMNS})


def _dataset_on(engine: str):
    def read_dataset(folder: str | os.PathLike, table: str) -> object:
        from .parquet import read_dataset

        return read_dataset(folder, engine=engine, table=table)

    read_dataset.__doc__ = f"A Parquet dataset written by ``write_dataset``, read on {engine}."
    return read_dataset


@dataclass(frozen=True)
class Engine:
    """One way :func:`read` reads: its name, what it gives, how it reads files and a Parquet dataset.

    ``read(paths, **options)`` gets every option of :func:`read` (it uses
    those it knows); ``read_dataset(folder, table)`` reads a folder written
    by :func:`lbanalysis.parquet.write_dataset` (or ``lbanalysis read -o``).
    """

    name: str
    description: str
    read: Callable[..., object]
    read_dataset: Callable[[str | os.PathLike, str], object]


#: The engines :func:`read` chooses from by name (``engine=``), as pandas chooses its parsers.
ENGINES: dict[str, Engine] = {
    e.name: e
    for e in (
        Engine(
            "pandas", "pandas frames (every table; a Dataset with table='all')", _read_pandas, _dataset_on("pandas")
        ),
        Engine(
            "dask",
            "the requests table as a dask.dataframe.DataFrame, large logs cut in byte ranges (the 'dask' extra)",
            _read_dask,
            _dataset_on("dask"),
        ),
    )
}


def engine_named(name: str) -> Engine:
    """The engine called ``name``; an error listing the engines for any other name.

    >>> engine_named("pandas").name
    'pandas'
    >>> engine_named("spark")
    Traceback (most recent call last):
    lbanalysis.errors.LBAnalysisError: engine must be one of 'pandas', 'dask', not 'spark'
    """
    eng = ENGINES.get(name) if isinstance(name, str) else None
    if eng is None:
        raise LBAnalysisError(f"engine must be one of {', '.join(map(repr, ENGINES))}, not {name!r}")
    return eng
