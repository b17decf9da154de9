"""What the explore notebook (``notebooks/00-explore.ipynb``) shows, as library functions.

The notebook only calls these: each ``*_section`` function takes the tidy
frames and the notebook's parameters and returns a :class:`Section` (lines of
text, tables and figures) that renders as HTML in a notebook and as text in
a terminal. A section whose data is absent holds one line that says so
(the sentences are in :data:`ABSENT`), instead of failing.

==========================  ==================================================
function                    returns
==========================  ==================================================
``load``                    a :class:`~lbanalysis.reader.Dataset` (unreadable
                            files skipped, not fatal)
``read_summary``            files, tools, runs, skipped files and why
``runs_section``            the runs table (headline columns; ``runs.csv``)
``scaling_section``         throughput and latency against load per group,
                            fitted curves and their peaks
``percentiles_section``     latency percentiles, where the tool printed them
``timeseries_section``      requests/s and latency over time from
                            per-request logs (``per_request_timeseries``)
``study_of``                the one study of the folder the sections below show
``knee_section``            the saturation knee per series (the study's)
``network_section``         capacity, basis and utilisation per run (the study's)
``verdict_section``         what bounded each series: ``summary_frame()``
``compare_section``         each group against the first one
==========================  ==================================================

>>> import io
>>> ds = load(io.StringIO("ab -c 10 -n 100 http://web/\\nRequests per second:    1000.5 [#/sec] (mean)\\n"))
>>> print(read_summary(ds).text[0])
1 file read, 1 run: ab 1.
>>> print(timeseries_section(ds))
Per-request time series
  No per-request logs in this folder.
"""

from __future__ import annotations

import base64
import html
import io
import math
import os
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .. import registry
from ..dask_engine import is_dask
from ..errors import LBAnalysisError

__all__ = [
    "ABSENT",
    "Section",
    "check_parameters",
    "compare_section",
    "headline",
    "http_runs",
    "iperf_runs",
    "knee_section",
    "load",
    "load_balancer_section",
    "network_section",
    "per_request_timeseries",
    "percentile_table",
    "percentiles_section",
    "read_summary",
    "resolve",
    "runs_section",
    "scaling_section",
    "timeseries_section",
    "tool_counts",
]

# The one-line messages of sections whose data is absent.
ABSENT = {
    "runs": "No runs were read from these files.",
    "http": "No HTTP load-test runs (ab, siege, gobench) with a throughput.",
    "loads": "Fewer than two loads of `{load}`: no curve against load.",
    "percentiles": "No latency percentiles in these outputs (ab, wrk --latency and hey print them; siege, gobench "
    "and iperf do not).",
    "requests": "No per-request logs in this folder.",
    "start times": "The per-request logs here log no start times (siege -v logs none): no time series.",
    "tail": "No per-request logs of closed-loop runs (ab -g, hey -o csv, siege -v): no corrected tail.",
    "knee": "Fewer than three loads of `{load}` in any group: no knee to find.",
    "capacity": "No link capacity given (`link_capacity`, or iperf outputs via `iperf`): utilisation not computed.",
    "group": "No `group` column given: set `group` (e.g. a field of `pattern`) to compare its values.",
    "one_group": "Only one value of `{group}`: nothing to compare.",
}

_MAX_LINES = 12  # runs drawn one line each in a chart
_MAX_ROWS = 200  # rows of a table shown in the notebook
_OPEN_ROWS = 25  # a longer table is collapsed behind a summary line


# ---------------------------------------------------------------- Section ---
@dataclass
class Section:
    """Text lines, tables and figures of one notebook section.

    >>> s = Section("Demo").add("two runs").add(pd.DataFrame({"a": [1, 2]}))
    >>> s.text, len(s.tables), s.absent
    (['two runs'], 1, False)
    >>> Section.empty("Demo", "Nothing here.").absent
    True
    """

    title: str
    parts: list[Any] = field(default_factory=list)
    absent: bool = False

    @classmethod
    def empty(cls, title: str, message: str) -> Section:
        """A section that says, in one line, that its data is absent."""
        return cls(title, [message], absent=True)

    def add(self, part: Any) -> Section:
        """Append a line of text, a DataFrame or a matplotlib Figure; returns self."""
        if part is not None:
            self.parts.append(part)
        return self

    @property
    def text(self) -> list[str]:
        return [p for p in self.parts if isinstance(p, str)]

    @property
    def tables(self) -> list[pd.DataFrame]:
        return [p for p in self.parts if isinstance(p, pd.DataFrame)]

    @property
    def figures(self) -> list[Any]:
        return [p for p in self.parts if hasattr(p, "savefig")]

    def save(self, folder: str | os.PathLike | None, stem: str) -> list[Path]:
        """Write the figures as ``<stem>.png`` (``<stem>-2.png``, ...) into ``folder``."""
        if folder is None:
            return []
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        paths = []
        for i, fig in enumerate(self.figures, 1):
            p = out / (f"{stem}.png" if i == 1 else f"{stem}-{i}.png")
            fig.savefig(p, dpi=100)
            paths.append(p)
        return paths

    def _repr_html_(self) -> str:
        chunks = []
        for p in self.parts:
            if isinstance(p, str) and p.startswith("### "):
                chunks.append(f"<h3>{_inline_html(p[4:])}</h3>")
            elif isinstance(p, str):
                chunks.append(f"<p>{_inline_html(p)}</p>")
            elif isinstance(p, pd.DataFrame):
                chunks.append(_table_html(p))
            elif hasattr(p, "savefig"):
                chunks.append(_figure_html(p))
        return "\n".join(chunks)

    def __repr__(self) -> str:
        lines = [self.title]
        for p in self.parts:
            if isinstance(p, str):
                lines.append(f"  {p}")
            elif isinstance(p, pd.DataFrame):
                lines.extend("  " + ln for ln in p.head(20).to_string().splitlines())
            else:
                lines.append("  <figure>")
        return "\n".join(lines)


def _inline_html(text: str) -> str:
    """Escape text; `backticks` become <code>.

    >>> _inline_html("column `a<b>` missing")
    'column <code>a&lt;b&gt;</code> missing'
    """
    parts = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def _fmt(v: Any) -> str:
    """Numbers for tables: six significant digits, no exponent below a billion.

    >>> _fmt(12345.678), _fmt(0.00012345), _fmt(float("nan")), _fmt(3)
    ('12345.7', '0.00012345', '', '3')
    """
    if v is None or v is pd.NA:
        return ""
    if isinstance(v, float):
        if math.isnan(v):
            return ""
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return f"{v:.6g}" if abs(v) < 1e9 else f"{v:.4g}"
    return str(v)


def _table_html(df: pd.DataFrame) -> str:
    """A formatted table; one of more than :data:`_OPEN_ROWS` rows is collapsed behind a summary line.

    >>> html = _table_html(pd.DataFrame({"x": range(40)}))
    >>> html.startswith("<details><summary>40 rows (click to show)</summary>")
    True
    """
    from ..formatting import style

    shown = df.head(_MAX_ROWS)
    index = not isinstance(shown.index, pd.RangeIndex)
    out = style(shown, hide_index=not index).to_html()  # words and units in headers, every value escaped
    if len(df) > _MAX_ROWS:
        out += f"<p><i>first {_MAX_ROWS} of {len(df)} rows</i></p>"
    if len(df) > _OPEN_ROWS:
        out = f"<details><summary>{len(df)} rows (click to show)</summary>{out}</details>"
    return out


def _figure_html(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    title = fig.axes[0].get_title() if fig.axes and fig.axes[0].get_title() else "chart"
    return f'<img src="data:image/png;base64,{data}" alt="{html.escape(title)}" style="max-width:100%"/>'


def _figure(ncols: int = 1, nrows: int = 1, width: float = 6.0, height: float = 4.0) -> tuple[Any, list[Any]]:
    """A figure outside pyplot's state (the notebook shows it once, through the Section)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel().tolist()
    return fig, axes


def _caught(func: Any, *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    """Call ``func``; return its result and the warnings it gave, as lines of text."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = func(*args, **kwargs)
    return result, [str(w.message) for w in caught if not issubclass(w.category, DeprecationWarning)]


# ------------------------------------------------------------------ reading ---
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
    from ..reader import read

    paths = [logs] if isinstance(logs, (str, os.PathLike)) or hasattr(logs, "read") else list(logs)
    for p in paths:
        if isinstance(p, (str, os.PathLike)):
            s = os.fspath(p)
            if not os.path.exists(s) and not any(ch in s for ch in "*?["):
                raise LBAnalysisError(f"{s}: no such file or folder")
    from .. import schema

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


def _dask_timeseries(requests: Any, freq: str) -> pd.DataFrame:
    """:func:`per_request_timeseries` of a Dask requests table, by Dask's reductions (no per-bin median)."""
    from ..analysis.requests import per_second

    step = pd.to_timedelta(freq).total_seconds()
    ps = per_second(requests, freq_s=step)
    first = ps.groupby(["source", "run"])["second"].transform("min")
    to_second = ps.groupby(["source", "run"])["fractional_starts"].sum() == 0  # from the same pass over the logs
    ts = pd.DataFrame(
        {
            "source": ps["source"],
            "run": ps["run"],
            "t_s": ps["second"] - first,
            "requests": ps["requests"].astype(int),
            "requests_per_s": ps["requests"] / step,
            "latency_mean_s": ps["latency_mean_s"],
            "latency_p50_s": math.nan,
            "latency_max_s": ps["latency_max_s"],
        }
    )
    ts["partial"] = _partial_bins(ts, to_second)
    return ts


def _partial_bins(ts: pd.DataFrame, to_second: pd.Series) -> pd.Series:
    """Which bins a run covers only in part: its last (it ended within it), and its first when
    its start times are logged to the second (``to_second``, by source and run: it began somewhere in it).

    >>> ts = pd.DataFrame({"source": "a", "run": 0, "t_s": [0.0, 1.0, 2.0]})
    >>> by_run = lambda v: pd.Series([v], index=pd.MultiIndex.from_tuples([("a", 0)]))
    >>> _partial_bins(ts, by_run(True)).tolist(), _partial_bins(ts, by_run(False)).tolist()
    ([True, False, True], [False, False, True])
    """
    last = ts["t_s"] == ts.groupby(["source", "run"], observed=True)["t_s"].transform("max")
    whole = {(str(s), int(r)): bool(v) for (s, r), v in to_second.items()}
    logged_to_second = [whole.get((str(s), int(r)), False) for s, r in zip(ts["source"], ts["run"], strict=True)]
    return (last | ((ts["t_s"] == 0) & pd.Series(logged_to_second, index=ts.index))).astype(bool)


def _dask_tail(requests: Any, runs: pd.DataFrame) -> pd.DataFrame:
    """:func:`lbanalysis.analysis.latency.latency_tail` of a Dask requests table: each file's rows on one worker."""
    import dask

    from ..analysis.latency import latency_tail

    cols = requests[["source", "run", "start_s", "latency_s"]].assign(source=requests["source"].astype(str))
    parts = cols.shuffle("source").to_delayed()
    tails = dask.compute(*[dask.delayed(latency_tail)(p, runs) for p in parts])
    tails = [t for t in tails if len(t)]
    return pd.concat(tails, ignore_index=True) if tails else latency_tail(cols._meta)


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
        _check_column(ds.runs, load, "load")
        _check_column(ds.runs, group, "group")
    if fit_model not in ("usl", "amdahl", "linear"):
        raise LBAnalysisError(f"fit_model must be 'usl', 'amdahl' or 'linear', not {fit_model!r}")
    if not 0 < float(threshold) <= 1:
        from ..analysis.rules import RULES

        (doc,) = [r.thresholds["network_threshold"][1] for r in RULES if "network_threshold" in r.thresholds]
        raise LBAnalysisError(f"threshold is the verdict rules' network_threshold ({doc}), between 0 and 1; "
                              f"got {threshold!r}")  # fmt: skip


def _short_sources(sources: Sequence[str]) -> list[str]:
    """Sources without their common folder.

    >>> _short_sources(["/x/logs/a.txt", "/x/logs/b/c.txt"])
    ['a.txt', 'b/c.txt']
    """
    norm = [str(s).replace("\\", "/") for s in sources]
    dirs = [os.path.dirname(s) for s in norm]
    if not norm or not all(dirs):
        return norm
    try:
        prefix = os.path.commonpath(dirs)
    except ValueError:
        return norm
    return [s[len(prefix) :].lstrip("/") if prefix else s for s in norm]


def _reason(source: str, reason: str) -> str:
    """One line of a skip reason, without the file name it starts with.

    >>> _reason("a.txt", "a.txt:1: no known format recognised; known formats: ab, siege\\n    GET /")
    'line 1: no known format recognised'
    """
    first = str(reason).strip().splitlines()[0] if str(reason).strip() else ""
    first = first.split("; known formats:")[0]
    if first.startswith(source + ":"):
        first = first[len(source) + 1 :].strip()
        head, _, rest = first.partition(":")
        if head.isdigit() and rest:
            first = f"line {head}: {rest.strip()}"
    return first


def tool_counts(ds: Any) -> pd.DataFrame:
    """Files and runs per tool (runs with an error counted apart).

    >>> import io
    >>> from lbanalysis import read
    >>> ds = read(io.StringIO("Requests per second: 5 [#/sec] (mean)\\n"), table="all")
    >>> tool_counts(ds).to_dict("records")
    [{'tool': 'ab', 'files': 1, 'runs': 1, 'with error': 0}]
    """
    runs = ds.runs
    if not len(runs):
        return pd.DataFrame(columns=["tool", "files", "runs", "with error"])
    g = runs.assign(_err=runs["error"].notna()).groupby("tool", sort=True)
    out = pd.DataFrame({"files": g["source"].nunique(), "runs": g.size(), "with error": g["_err"].sum()})
    return out.reset_index().astype({"files": int, "runs": int, "with error": int})


def read_summary(ds: Any) -> Section:
    """What was read: files, tools, runs, and every skipped file with its reason."""
    s = Section("What was read")
    counts = tool_counts(ds)
    n_read = int(ds.runs["source"].nunique()) if len(ds.runs) else 0
    tools = ", ".join(f"{r.tool} {r.runs}" for r in counts.itertuples())
    s.add(
        f"{n_read} file{'s' if n_read != 1 else ''} read, {len(ds.runs)} run{'s' if len(ds.runs) != 1 else ''}"
        + (f": {tools}." if tools else ".")
    )
    if len(counts):
        s.add(counts)
    http = http_runs(ds.runs)
    if len(http):
        from ..analysis.series import series_table

        series = series_table(http)
        s.add(
            f"The {len(http)} HTTP load-test run(s) form {len(series)} series (same tool, target and settings, "
            "differing only in load); curves, knees and verdicts are computed within a series only:"
        )
        s.add(series)
    if len(ds.skipped):
        s.add(f"{len(ds.skipped)} file(s) skipped:")
        short = _short_sources(ds.skipped["source"].astype(str).tolist())
        reasons = [_reason(str(src), str(r)) for src, r in zip(ds.skipped["source"], ds.skipped["reason"], strict=True)]
        s.add(pd.DataFrame({"file": short, "why": reasons}))
    else:
        s.add("No file was skipped.")
    not_runs = getattr(ds, "not_runs", None)
    if not_runs is not None and len(not_runs):
        s.add(
            f"{len(not_runs)} output(s) are not tests (help texts, version banners, commands without output), not counted as runs:"
        )
        s.add(
            pd.DataFrame(
                {
                    "file": _short_sources(not_runs["source"].astype(str).tolist()),
                    "line": not_runs["line"].to_numpy(),
                    "tool": not_runs["tool"].to_numpy(),
                    "what": not_runs["kind"].to_numpy(),
                    "command": not_runs["command"].fillna("").to_numpy(),
                }
            )
        )
    if ds.ignored:
        names = ", ".join(os.path.basename(p) for p in ds.ignored[:10])
        s.add(f"{len(ds.ignored)} file(s) passed over by name (notes, scripts, manifests): {names}.")
    for note in ds.notes:
        s.add(f"Note: {note}")
    return s


# --------------------------------------------------------------------- runs ---
_HEADLINE = (
    ("tool", "tool", 1.0),
    ("concurrency", "concurrency", 1.0),
    ("requests", "requests", 1.0),
    ("failed", "failed", 1.0),
    ("non_2xx", "non_2xx", 1.0),
    ("requests_per_s", "req/s", 1.0),
    ("latency_mean_s", "latency mean ms", 1e3),
    ("latency_max_s", "latency max ms", 1e3),
    ("bytes_per_s", "MB/s", 1e-6),
    ("streams", "streams", 1.0),
    ("bits_per_s", "Mbit/s", 1e-6),
    ("direction", "direction", 1.0),
    ("error", "error", 1.0),
)


def headline(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs with the columns people look at first (in display units), plus pattern/manifest columns.

    Columns that are empty for every run are left out.

    >>> runs = pd.DataFrame({"source": ["a.txt"], "run": [0], "tool": ["ab"], "concurrency": [10],
    ...                      "requests_per_s": [100.0], "latency_mean_s": [0.1], "setup": ["x"]})
    >>> headline(runs).columns.tolist()
    ['source', 'run', 'setup', 'tool', 'concurrency', 'req/s', 'latency mean ms']
    >>> headline(runs).loc[0, "latency mean ms"]
    100.0
    """
    from .. import schema

    runs = runs.reset_index(drop=True)  # a subset of the runs keeps its rows together
    out = pd.DataFrame({"source": _short_sources(runs["source"].astype(str).tolist()), "run": runs["run"]})
    extra = [c for c in runs.columns if c not in schema.RUNS]
    for c in extra:
        out[c] = runs[c].reset_index(drop=True)
    for col, label, scale in _HEADLINE:
        if col not in runs.columns or not runs[col].notna().any():
            continue
        v = runs[col].reset_index(drop=True)
        out[label] = (pd.to_numeric(v, errors="coerce") * scale) if scale != 1.0 else v
    return out


#: How the runs table names each kind of tool (registry.KINDS) when a folder holds several.
_KIND_HEADINGS = {"http-load": "HTTP load tests", "network": "Network tests", "lb-stats": "Load-balancer statistics"}


def runs_section(ds: Any, output_dir: str | os.PathLike | None = None) -> Section:
    """The runs table; with ``output_dir`` also written in full to ``runs.csv``."""
    s = Section("Runs")
    if not len(ds.runs):
        return Section.empty(s.title, ABSENT["runs"])
    if output_dir is not None:
        Path(output_dir).mkdir(parents=True, exist_ok=True)
        ds.runs.to_csv(Path(output_dir) / "runs.csv", index=False)
        s.add(f"All {ds.runs.shape[1]} columns of the {len(ds.runs)} runs are in `runs.csv`.")
    tool = ds.runs["tool"].astype("string").fillna("") if "tool" in ds.runs else pd.Series("", index=ds.runs.index)
    kinds = {name: registry.get_tool(name).kind for name in registry.names()}
    kind = tool.map(lambda t: kinds.get(t, "")).to_numpy()
    present = list(dict.fromkeys(kind))
    if len(present) < 2:
        return s.add(headline(ds.runs))
    # one table per kind of tool, so that each shows only the columns its tools fill
    for k in sorted(present, key=lambda k: list(registry.KINDS).index(k) if k in registry.KINDS else len(kinds)):
        part = ds.runs[kind == k]
        tools = ", ".join(dict.fromkeys(part["tool"].astype("string").fillna("?")))
        s.add(f"{_KIND_HEADINGS.get(k, 'Other runs')}: {len(part)} run(s) ({tools}).")
        s.add(headline(part))
    return s


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


def _check_column(runs: pd.DataFrame, name: str | None, what: str) -> None:
    if name is not None and name not in runs.columns:
        from .. import schema

        extra = [c for c in runs.columns if c not in schema.RUNS]
        hint = f" (columns from pattern/manifest: {', '.join(extra)})" if extra else ""
        raise LBAnalysisError(f"{what} column {name!r} is not in the runs table{hint}")


def _natural(v: Any) -> tuple:
    """Sort key that puts ``haproxy-2`` before ``haproxy-16``.

    >>> sorted(["haproxy-16", "node", "haproxy-2"], key=_natural)
    ['haproxy-2', 'haproxy-16', 'node']
    """
    import re

    if isinstance(v, (int, float)):
        return (0, v)
    return (1, tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|\D+", str(v))))


def resolve(path: str | os.PathLike | Sequence[Any] | None) -> Any:
    """A notebook path parameter made usable from any working directory.

    Absolute paths, globs and paths that exist from the working directory are
    kept; other relative paths are taken from the project root
    (:func:`lbanalysis.report.project.find_project`), so the defaults work
    wherever the notebook runs. Lists are resolved item by item; ``None`` stays.

    >>> from lbanalysis.report.project import find_project
    >>> root = find_project().root
    >>> resolve("tests/fixtures") == str(root / "tests" / "fixtures") or Path("tests/fixtures").exists()
    True
    >>> resolve(None) is None
    True
    """
    from .project import find_project

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


def _group_of(runs: pd.DataFrame, group: str | None) -> str | None:
    """``group``, or ``tool`` when no group is given and several HTTP tools were read."""
    if group is not None:
        return group
    if len(runs) and runs["tool"].nunique() > 1:
        return "tool"
    return None


def _n_loads(runs: pd.DataFrame, load: str, group: str | None) -> int:
    """Most distinct loads in any group."""
    if not len(runs):
        return 0
    x = pd.to_numeric(runs[load], errors="coerce")
    if group is None:
        return int(x.nunique())
    return int(x.groupby(runs[group].astype(str).to_numpy()).nunique().max())


# ------------------------------------------------------------------ scaling ---
def scaling_fits_table(
    runs: pd.DataFrame, load: str = "concurrency", group: str | None = None, model: str = "usl"
) -> pd.DataFrame:
    """One row per group: the fitted parameters, r², and the peak (load, throughput).

    A group that cannot be fitted has its reason in ``error``.
    """
    from ..analysis import fit_scaling

    data = runs if group is not None else runs.assign(group="all runs")
    by = group if group is not None else "group"
    fits = fit_scaling(data, x=load, y="requests_per_s", by=by, model=model, errors="coerce")
    frame = fits.to_frame()
    keep = [c for c in ("model", "lambda", "sigma", "kappa", "intercept", "slope", "loads", "n", "r2") if c in frame]
    out = frame[keep].copy()
    if "n_peak" in frame:
        out[f"peak {load}"] = frame["n_peak"]
    if "x_peak" in frame:
        out["peak req/s"] = frame["x_peak"]
    if "asymptote" in frame:
        out["asymptote req/s"] = frame["asymptote"]
    if "retrograde" in frame:
        out["retrograde"] = frame["retrograde"]
    out["error"] = frame["error"].fillna("")
    if not out["error"].astype(bool).any():
        out = out.drop(columns="error")
    return out


def _series_of(runs: pd.DataFrame, group: str | None) -> tuple[pd.DataFrame, str]:
    """Runs with a ``series`` column: the user's ``group`` column, or the automatic series."""
    from ..analysis.series import assign_series

    if group is not None:
        return runs.assign(series=runs[group].astype("string").fillna("(none)")), group
    return runs.assign(series=assign_series(runs)), "series"


def scaling_section(
    runs: pd.DataFrame,
    load: str = "concurrency",
    group: str | None = None,
    model: str = "usl",
    output_dir: str | os.PathLike | None = None,
) -> Section:
    """Throughput and latency against load within each series, with a fitted curve only where one holds.

    Runs are grouped into series (same tool, target and settings, see
    :mod:`lbanalysis.analysis.series`), or by ``group`` when given. A series
    gets a ``model`` curve only with enough distinct loads and when the fit
    explains the points (R² >= 0.8); otherwise the table says "no model
    fits these points" or "too few loads", and no curve is drawn.
    """
    from .. import plots
    from ..analysis.engine import study
    from ..analysis.series import fit_series

    title = "Throughput and latency against load"
    _check_column(runs, load, "load")
    _check_column(runs, group, "group")
    if not len(http_runs(runs)):
        return Section.empty(title, ABSENT["http"])
    http = study(runs, load=load, group=group).runs.dropna(subset=["series"])  # the study's series and left-outs
    key = group if group is not None else "series"
    if not len(http) or _n_loads(http, load, "series") < 2:
        return Section.empty(title, ABSENT["loads"].format(load=load))
    used = http[http["used"].to_numpy(bool)]
    table, fits = fit_series(used, load=load, model=model, by="series")
    from ..analysis.rules import _reasons

    missing = [
        {"series": n, "loads": 0, "model": model, "r2": None, "fitted": False,
         "verdict": f"no run counts in curves: {_reasons(g['left_out'].tolist())}"}
        for n, g in http.groupby("series", sort=True) if n not in set(table["series"])
    ]  # fmt: skip
    if missing:
        table = pd.concat([table, pd.DataFrame(missing)], ignore_index=True).sort_values("series", ignore_index=True)
    s = Section(title)
    n_series = http["series"].nunique()
    drawn = [n for n, g in http.groupby("series", sort=True) if pd.to_numeric(g[load], errors="coerce").nunique() >= 2]
    s.add(
        f"{n_series} series ({'by ' + group if group else 'same tool, target and settings'}); "
        f"{len(drawn)} with two loads or more are drawn; {len(fits)} of them has a {model} curve that fits."
        if len(fits) != 1
        else f"{n_series} series; {len(drawn)} with two loads or more are drawn; 1 has a {model} curve that fits."
    )
    out = http[~http["used"].to_numpy(bool)]
    if len(out):
        s.add(f"{len(out)} run(s) drawn hollow and left out of the curves: {_reasons(out['left_out'].tolist())}.")
    shown = drawn[:_MAX_LINES]
    if len(drawn) > len(shown):
        s.add(f"The chart shows the first {len(shown)} of {len(drawn)} series; the table has them all.")
    fig, (ax1, ax2) = _figure(ncols=2)
    for i, name in enumerate(shown):
        g = http[http["series"] == name]
        color = f"C{i % 10}"
        xy = pd.DataFrame(
            {"x": pd.to_numeric(g[load], errors="coerce"), "y": pd.to_numeric(g["requests_per_s"], errors="coerce")}
        ).dropna()
        kept = g.loc[xy.index, "used"].to_numpy(bool)
        ax1.plot(xy["x"][kept], xy["y"][kept], "o", color=color, label=str(name), alpha=0.8)
        if not kept.all():
            ax1.plot(xy["x"][~kept], xy["y"][~kept], "o", mfc="none", color=color, alpha=0.8)
        if name in fits:
            plots.scaling_fit(fits[name], points=False, color=color, label=None, ax=ax1)
        else:
            means = xy.groupby("x")["y"].mean()
            ax1.plot(means.index, means.to_numpy(), ":", color=color)
        lat = pd.DataFrame(
            {
                "x": pd.to_numeric(g[load], errors="coerce"),
                "y": pd.to_numeric(g["latency_mean_s"], errors="coerce") * 1e3,
            }
        ).dropna()
        if len(lat):
            means = lat.groupby("x")["y"].mean()
            ax2.plot(means.index, means.to_numpy(), "o-", color=color, label=str(name))
    ax1.set_xlabel(load)
    ax1.set_ylabel("requests per second")
    ax1.set_title(f"throughput ({model} curve only where it fits)")
    ax2.set_xlabel(load)
    ax2.set_ylabel("mean latency (ms)")
    ax2.set_title("mean latency")
    if shown:
        ax1.legend(fontsize="small")
    s.add(fig)
    s.add(table.rename(columns={"series": key}) if key != "series" else table)
    s.save(output_dir, "throughput-latency")
    return s


# -------------------------------------------------------------- percentiles ---
_PERCENTILES = (50, 66, 75, 80, 90, 95, 98, 99, 100)  # the ones ab prints; wrk and hey print some of them


def percentile_table(percentiles: pd.DataFrame, runs: pd.DataFrame | None = None) -> pd.DataFrame:
    """Percentiles in ms, one row per run and one column per percentile ab prints (``p50`` ... ``p100``).

    >>> pct = pd.DataFrame({"source": "a.txt", "run": [0, 0], "percentile": [50.0, 99.0], "latency_s": [0.01, 0.2]})
    >>> percentile_table(pct).to_dict("records")
    [{'source': 'a.txt', 'run': 0, 'p50': 10.0, 'p99': 200.0}]
    """
    pct = percentiles[percentiles["percentile"].isin(_PERCENTILES)]
    ms = (pd.to_numeric(pct["latency_s"], errors="coerce") * 1e3).round(6)  # 0.103 s is 103 ms, not 103.00000000000001
    wide = pct.assign(ms=ms).pivot_table(index=["source", "run"], columns="percentile", values="ms", aggfunc="first")
    wide.columns = [f"p{c:g}" for c in wide.columns]
    wide = wide.reset_index()
    wide["source"] = _short_sources(wide["source"].astype(str).tolist())
    wide.columns.name = None
    if runs is not None and len(runs):
        extra = runs[["source", "run", "concurrency"]].copy()
        extra["source"] = _short_sources(runs["source"].astype(str).tolist())
        wide = wide.merge(extra, on=["source", "run"], how="left")
        wide.insert(2, "concurrency", wide.pop("concurrency"))
    return wide


def percentiles_section(ds: Any, group: str | None = None, output_dir: str | os.PathLike | None = None) -> Section:
    """Latency against percentile for the runs whose tool printed percentiles (ab, wrk --latency, hey)."""
    from .. import plots

    title = "Latency percentiles"
    pct = ds.percentiles
    if not len(pct):
        return Section.empty(title, ABSENT["percentiles"])
    s = Section(title)
    from ..analysis.latency import recorded_percentiles

    recorded = recorded_percentiles(pct)
    uncorrected = pct["kind"].astype("string").str.startswith("uncorrected").fillna(False).to_numpy(bool)
    if uncorrected.any():  # wrk2 -U: a second distribution of the same run
        n = len(pct[uncorrected][["source", "run"]].drop_duplicates())
        s.add(f"wrk2 also printed the latencies it measured without correcting for delayed starts for {n} run(s) "
              "(`kind` 'uncorrected' in the percentiles table); the chart and table show the recorded ones.")  # fmt: skip
    pct = recorded
    keys = pct[["source", "run"]].drop_duplicates()
    pct = pct.assign(latency_ms=pct["latency_s"] * 1e3)
    hue = "run"
    if group is not None and group in ds.runs:
        pct = pct.merge(ds.runs[["source", "run", group]], on=["source", "run"], how="left")
    if len(keys) > _MAX_LINES:
        shown = keys.head(_MAX_LINES)
        pct = pct.merge(shown, on=["source", "run"])
        s.add(f"{len(keys)} runs have percentiles; the chart shows the first {_MAX_LINES}.")
    sources = list(dict.fromkeys(pct["source"].astype(str)))
    short = dict(zip(sources, _short_sources(sources), strict=True))
    fig, (ax,) = _figure(width=7)
    plots.latency_percentiles(
        pct.assign(source=pct["source"].astype(str).map(short)), y="latency_ms", hue=hue, logy=True, ax=ax
    )
    ax.set(ylabel="latency (ms)")
    if ax.get_legend() is not None and len(keys) > 6:
        ax.get_legend().remove()
    elif ax.get_legend() is not None:  # under the chart, not over its lines
        ax.legend(title=hue, fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)
    s.add(fig)
    s.add(percentile_table(recorded_percentiles(ds.percentiles, printed=True), ds.runs))
    if _closed_loop_sources(ds.runs, pct):
        from ..analysis.latency import CLOSED_LOOP_NOTE

        s.add(CLOSED_LOOP_NOTE)
    s.save(output_dir, "percentiles")
    return s


def _closed_loop_sources(runs: pd.DataFrame, frame: pd.DataFrame) -> bool:
    """Whether any run of ``frame`` (by source, run) is a closed-loop run."""
    from ..analysis.latency import is_closed_loop

    if not len(runs) or "tool" not in runs:
        return False
    keys = frame[["source", "run"]].drop_duplicates().astype({"source": str})
    cols = [c for c in ["tool", "rate_target_per_s"] if c in runs]
    meta = runs[["source", "run", *cols]].astype({"source": str}).merge(keys, on=["source", "run"])
    rates = meta["rate_target_per_s"] if "rate_target_per_s" in meta else [None] * len(meta)
    return any(is_closed_loop(t, r) for t, r in zip(meta["tool"], rates, strict=True))


def tail_table(tail: pd.DataFrame) -> pd.DataFrame:
    """The corrected-tail table for people: ms, short sources, the note last.

    >>> t = pd.DataFrame({"source": ["/x/a.tsv"], "run": [0], "requests": [10], "expected_interval_s": [0.002],
    ...                   "p99_s": [0.004], "p99_corrected_s": [0.5], "slow_requests": [1], "note": ["n"]})
    >>> tail_table(t).to_dict("records")
    [{'source': 'a.tsv', 'run': 0, 'requests': 10, 'expected interval (ms)': 2.0, 'p99 (ms)': 4.0, \
'p99 corrected (ms)': 500.0, 'slow requests': 1, 'note': 'n'}]
    """
    out = pd.DataFrame({"source": _short_sources(tail["source"].astype(str).tolist()), "run": tail["run"]})
    for col in [c for c in ["tool", "concurrency", "requests"] if c in tail]:
        out[col] = tail[col].to_numpy()
    out["expected interval (ms)"] = tail["expected_interval_s"].to_numpy() * 1e3
    for col in [c for c in tail.columns if c.startswith("p") and c.endswith("_s")]:
        label = col.removesuffix("_s").replace("_corrected", " corrected").replace("_", ".")
        out[f"{label} (ms)"] = tail[col].to_numpy() * 1e3
    for col, label in [("slow_requests", "slow requests"), ("stalls", "stalls"), ("stalled_s", "stalled (s)")]:
        if col in tail:
            out[label] = tail[col].to_numpy()
    out["note"] = tail["note"].to_numpy()
    return out


def tail_section(ds: Any, output_dir: str | os.PathLike | None = None) -> Section:
    """Raw against coordinated-omission-corrected tail, per closed-loop run with a per-request log."""
    from .. import plots
    from ..analysis.latency import corrected_percentiles, latency_tail

    title = "Tail latency, corrected for coordinated omission"
    on_dask = is_dask(ds.requests)
    if not on_dask and not len(ds.requests):
        return Section.empty(title, ABSENT["tail"])
    tail = _dask_tail(ds.requests, ds.runs) if on_dask else latency_tail(ds.requests, ds.runs)
    if not len(tail):
        return Section.empty(title, ABSENT["tail"])
    s = Section(title)  # (the closed-loop note stands in the percentiles section, and the notebook's intro here)
    worst = tail.loc[(tail["p99_corrected_s"] / tail["p99_s"].where(tail["p99_s"] > 0)).fillna(1).idxmax()]
    if worst["p99_corrected_s"] > worst["p99_s"]:
        s.add(
            f"Largest gap: `{_short_sources([str(worst['source'])])[0]}` printed a 99th percentile of "
            f"{worst['p99_s'] * 1e3:.3g} ms; corrected for the requests its stalls kept from being sent, "
            f"{worst['p99_corrected_s'] * 1e3:.3g} ms."
        )
    lower = tail[tail["p99_corrected_s"] < tail["p99_s"]]
    if len(lower):
        names = ", ".join(f"`{n}`" for n in _short_sources(lower["source"].astype(str).tolist())[:3])
        s.add(
            f"{len(lower)} run(s) ({names}{', ...' if len(lower) > 3 else ''}) have a corrected 99th percentile "
            "below the printed one: the correction adds the requests a stall kept from being sent, each with a "
            "latency below the stalled request's; where slow requests are many, these added ones outnumber the "
            "printed tail and pull the high percentiles down. Both tails are shown, with the number of slow "
            "requests beside them."
        )
    shown = tail.head(_MAX_LINES // 2)
    keys = shown[["source", "run"]].astype({"source": str})
    requests = ds.requests
    if on_dask:  # only the shown runs' two columns come to the client
        wanted = set(keys["source"])
        requests = requests[requests["source"].astype(str).isin(list(wanted))][["source", "run", "latency_s"]].compute()
    req = requests.astype({"source": str}).merge(keys, on=["source", "run"])
    curves = corrected_percentiles(req, (50, 90, 99, 99.9))
    curves["name"] = _short_sources(curves["source"].astype(str).tolist())
    if len(tail) > len(shown):
        s.add(f"{len(tail)} runs have per-request logs; the chart shows the first {len(shown)}.")
    fig, (ax,) = _figure(width=7)
    plots.corrected_tail(curves, label="name", ax=ax)
    s.add(fig)
    s.add(tail_table(tail))
    s.save(output_dir, "latency_tail")
    return s


# --------------------------------------------------------------- time series ---
def per_request_timeseries(requests: pd.DataFrame, freq: str = "1s") -> pd.DataFrame:
    """Requests per second and latency over time, per run, from per-request logs.

    Requests are counted in bins of ``freq`` by their start (``start_s``,
    else ``start``) relative to the run's first request. Columns: ``source``,
    ``run``, ``t_s`` (bin start), ``requests``, ``requests_per_s``,
    ``latency_mean_s``, ``latency_p50_s``, ``latency_max_s``, ``partial``:
    the run covers the bin only in part, so its rate is not comparable (its
    last bin; its first too when starts are logged to the second, as ab
    ``-g`` does).

    >>> req = pd.DataFrame({"source": "a", "run": 0, "start_s": [0.0, 0.4, 1.2, 1.5, 1.9],
    ...                     "latency_s": [0.1, 0.3, 0.2, 0.2, 0.5]})
    >>> ts = per_request_timeseries(req, freq="1s")
    >>> ts[["t_s", "requests", "requests_per_s", "latency_mean_s", "partial"]].values.tolist()
    [[0.0, 2, 2.0, 0.2, False], [1.0, 3, 3.0, 0.3, True]]
    """
    cols = ["source", "run", "t_s", "requests", "requests_per_s", "latency_mean_s", "latency_p50_s", "latency_max_s",
            "partial"]  # fmt: skip
    step = pd.to_timedelta(freq).total_seconds()
    if step <= 0:
        raise LBAnalysisError(f"freq must be a positive duration such as '1s', not {freq!r}")
    if not len(requests):
        return pd.DataFrame(columns=cols)
    req = requests.copy()
    t = pd.to_numeric(req["start_s"], errors="coerce") if "start_s" in req else pd.Series(math.nan, index=req.index)
    if t.isna().all() and "start" in req:
        start = pd.to_datetime(req["start"], errors="coerce")
        t = (start - start.groupby([req["source"], req["run"]]).transform("min")).dt.total_seconds()
    req["_t"] = t.astype(float)
    req = req.dropna(subset=["_t"])
    req["_t"] = req["_t"] - req.groupby(["source", "run"])["_t"].transform("min")
    req["t_s"] = (req["_t"] // step) * step
    lat = pd.to_numeric(req.get("latency_s"), errors="coerce") if "latency_s" in req else None
    req["_lat"] = lat if lat is not None else math.nan
    g = req.groupby(["source", "run", "t_s"], sort=True)["_lat"]
    out = pd.DataFrame(
        {
            "requests": g.size(),
            "latency_mean_s": g.mean(),
            "latency_p50_s": g.median(),
            "latency_max_s": g.max(),
        }
    ).reset_index()
    out["requests_per_s"] = out["requests"] / step
    out["requests"] = out["requests"].astype(int)
    out["partial"] = _partial_bins(out, (req["_t"] % 1 == 0).groupby([req["source"], req["run"]], observed=True).all())
    return out[cols]


def timeseries_section(
    ds: Any, freq: str = "1s", output_dir: str | os.PathLike | None = None, max_runs: int = _MAX_LINES
) -> Section:
    """Requests per second and latency over time for runs with per-request logs."""
    title = "Per-request time series"
    on_dask = is_dask(ds.requests)
    ts = _dask_timeseries(ds.requests, freq) if on_dask else None
    if (ts is not None and not len(ts)) or (ts is None and not len(ds.requests)):
        return Section.empty(title, ABSENT["requests"])
    if ts is None:
        ts = per_request_timeseries(ds.requests, freq=freq)
    if not len(ts):  # requests without start times (siege -v)
        return Section.empty(title, ABSENT["start times"])
    s = Section(title)
    if on_dask:
        s.add('Per-request logs read and aggregated on Dask (`engine="dask"`).')
    keys = ts[["source", "run"]].drop_duplicates()
    if not on_dask:
        logged = ds.requests[["source", "run"]].drop_duplicates()
        if len(logged) > len(keys):
            s.add(f"{len(logged) - len(keys)} of the {len(logged)} runs with per-request logs log no start times "
                  "(siege -v logs none): they are not drawn.")  # fmt: skip
    if len(keys) > max_runs:
        s.add(f"{len(keys)} runs have per-request logs; the charts show the first {max_runs}.")
        ts = ts.merge(keys.head(max_runs), on=["source", "run"])
    fig, (ax1, ax2) = _figure(ncols=2)
    labels = dict(
        zip(zip(keys["source"], keys["run"], strict=True), _short_sources(keys["source"].tolist()), strict=True)
    )
    for i, ((src, run), rows) in enumerate(ts.groupby(["source", "run"], sort=False)):
        label, color = f"{labels[(src, run)]}:{run}", f"C{i % 10}"
        full, part = rows[~rows["partial"]], rows[rows["partial"]]
        ax1.plot(full["t_s"], full["requests_per_s"], "-o", color=color, label=label, markersize=3)
        ax1.plot(part["t_s"], part["requests_per_s"], "o", color=color, markerfacecolor="none", markersize=4)
        ax2.plot(rows["t_s"], rows["latency_mean_s"] * 1e3, "-o", color=color, label=label, markersize=3)
    ax1.set(xlabel="time since first request (s)", ylabel=f"requests per second (bins of {freq})")
    ax2.set(xlabel="time since first request (s)", ylabel="mean latency (ms)")
    ax1.legend(fontsize="small")
    s.add(
        "Hollow points are bins the run covers only in part (it ended within its last bin, and, where start times "
        "are logged to the second, began somewhere in its first): their rate is not comparable, so the rates below "
        "are of full bins only."
    )
    s.add(fig)
    full = ts[~ts["partial"]]
    per_run = ts.groupby(["source", "run"], sort=False).agg(
        seconds=("t_s", lambda v: v.max() + pd.to_timedelta(freq).total_seconds()),
        requests=("requests", "sum"),
        full_bins=("partial", lambda v: int((~v).sum())),
        latency_max_ms=("latency_max_s", lambda v: v.max() * 1e3),
    )
    rates = full.groupby(["source", "run"], sort=False)["requests_per_s"].agg(["max", "min"])
    per_run["peak_req_per_s"] = rates["max"].reindex(per_run.index)
    per_run["min_req_per_s"] = rates["min"].reindex(per_run.index)
    per_run = per_run[["seconds", "requests", "full_bins", "peak_req_per_s", "min_req_per_s", "latency_max_ms"]]
    per_run = per_run.reset_index()
    per_run["source"] = _short_sources(per_run["source"].astype(str).tolist())
    s.add(per_run)
    s.save(output_dir, "timeseries")
    return s


# -------------------------------------------------------------------- study ---
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
    from ..analysis.engine import study
    from ..capacity import capacity_parameter

    key = (id(ds), str(link_capacity), str(iperf), float(threshold), load, group)
    if key not in _STUDIES or _STUDIES[key][0] is not ds:
        measured = load_iperf(iperf) if iperf is not None else None
        _STUDIES.clear()  # one dataset at a time (the notebook's); holding it keeps its id from being reused
        _STUDIES[key] = (ds, study(ds, capacity=capacity_parameter(link_capacity), iperf=measured, group=group,
                                   load=load, network_threshold=threshold))  # fmt: skip
    return _STUDIES[key][1]


# --------------------------------------------------------------------- knee ---
def knee_section(runs: Any, load: str = "concurrency", group: str | None = None) -> Section:
    """The load past which throughput stops growing, per series, and whether latency keeps rising (the study's)."""
    from ..analysis.engine import study

    title = "Saturation knee"
    frame = runs.runs if hasattr(runs, "runs") and not isinstance(runs, pd.DataFrame) else runs
    if not len(http_runs(frame)):
        return Section.empty(title, ABSENT["http"])
    st = study_of(runs, load=load, group=group) if not isinstance(runs, pd.DataFrame) else study(
        runs, load=load, group=group)  # fmt: skip
    knees = st.knees
    if not len(knees):
        return Section.empty(title, ABSENT["knee"].format(load=load))
    table = knees.set_index("series")
    s = Section(title)
    n_series = len(st.verdicts)
    if len(knees) < n_series:
        s.add(f"{len(knees)} of {n_series} series have three loads or more: a knee is looked for only in those.")
    if not table["significant"].any() and table["saturated"].any():
        s.add("Each load ran once: the run-to-run noise is unknown, so no knee is called significant.")
    return s.add(table)


# ------------------------------------------------------------------- series ---
_MAX_SERIES = 12  # series given a subsection of their own


def series_table_of(runs: pd.DataFrame, load: str = "concurrency") -> pd.DataFrame:
    """One series' runs by load: how many, mean throughput, mean latency, failures.

    >>> runs = pd.DataFrame({"concurrency": [1, 1, 10], "requests_per_s": [10.0, 12.0, 90.0],
    ...                      "latency_mean_s": [0.1, 0.08, 0.11], "failed": [0, 0, 2]})
    >>> series_table_of(runs).to_dict("records")[0]
    {'concurrency': 1, 'runs': 2, 'requests_per_s': 11.0, 'latency_mean_s': 0.09, 'failed': 0}
    """
    data = pd.DataFrame(
        {
            load: pd.to_numeric(runs[load], errors="coerce"),
            "requests_per_s": pd.to_numeric(runs["requests_per_s"], errors="coerce"),
            "latency_mean_s": pd.to_numeric(runs.get("latency_mean_s"), errors="coerce"),
            "failed": pd.to_numeric(runs.get("failed"), errors="coerce"),
        }
    ).dropna(subset=[load])
    out = data.groupby(load).agg(
        runs=("requests_per_s", "size"),
        requests_per_s=("requests_per_s", "mean"),
        latency_mean_s=("latency_mean_s", "mean"),
        failed=("failed", "sum"),
    )
    out["failed"] = out["failed"].astype("Int64")
    return out.reset_index()


def series_section(
    ds: Any,
    load: str = "concurrency",
    group: str | None = None,
    link_capacity: str | float | None = None,
    iperf: str | os.PathLike | None = None,
    threshold: float = 0.8,
    output_dir: str | os.PathLike | None = None,
) -> Section:
    """One part per series with two loads or more: its verdict, a small chart and its runs by load."""
    title = "Series, one by one"
    if not len(http_runs(ds.runs)):
        return Section.empty(title, ABSENT["http"])
    st = study_of(ds, link_capacity, iperf, threshold, load, group)
    http = st.runs.dropna(subset=["series"])
    loads = http.groupby("series")[load].agg(lambda v: pd.to_numeric(v, errors="coerce").nunique()) if load in http \
        else None  # fmt: skip
    if loads is None or not (loads >= 2).any():
        return Section.empty(title, ABSENT["loads"].format(load=load))
    many = loads[loads >= 2].sort_values(ascending=False)
    shown = list(many.index[:_MAX_SERIES])
    v = st.verdicts.set_index("series")
    s = Section(title)
    s.add(
        f"{len(many)} of {http['series'].nunique()} series ran at two loads or more"
        + (f"; the {len(shown)} with the most loads are shown." if len(shown) < len(many) else ".")
    )
    for i, name in enumerate(shown):
        g = http[http["series"] == name]
        s.add(f"### {name}")
        if name in v.index:
            s.add(f"{v.loc[name, 'verdict'].capitalize()} ({v.loc[name, 'confidence']}): {v.loc[name, 'evidence']}.")
        table = series_table_of(g, load)
        fig, (ax1, ax2) = _figure(ncols=2, width=7.0, height=2.6)
        ax1.plot(table[load], table["requests_per_s"], "o-", color=f"C{i % 10}", label="mean req/s")
        ax1.set(xlabel=load, ylabel="requests per second")
        ax1.legend(fontsize="small")
        if table["latency_mean_s"].notna().any():
            ax2.plot(table[load], table["latency_mean_s"] * 1e3, "o-", color=f"C{i % 10}", label="mean latency")
            ax2.set(xlabel=load, ylabel="mean latency (ms)")
            ax2.legend(fontsize="small")
        else:
            ax2.set_axis_off()
            ax2.text(0.5, 0.5, "no latency in these outputs", ha="center", va="center", transform=ax2.transAxes)
        s.add(fig)
        s.add(table)
    s.save(output_dir, "series")
    return s


# ----------------------------------------------------------------- verdicts ---
def verdict_section(
    ds: Any,
    link_capacity: str | float | None = None,
    iperf: str | os.PathLike | None = None,
    threshold: float = 0.8,
    load: str = "concurrency",
    group: str | None = None,
) -> Section:
    """What bounded each series: the study's ``summary_frame()``, with the thresholds used."""
    from ..analysis.rules import thresholds_text

    title = "What bounded each series"
    if not len(http_runs(ds.runs)):
        return Section.empty(title, ABSENT["http"])
    st = study_of(ds, link_capacity, iperf, threshold, load, group)
    s = Section(title)
    s.add(str(st.summary()).splitlines()[0] + f" Each verdict names its figures; thresholds: "
          f"{thresholds_text(**st.thresholds)}.")  # fmt: skip
    return s.add(st.summary_frame())


# ------------------------------------------------------------------ network ---
def parse_capacities(text: str | float | None) -> Any:
    """A capacity parameter (see :func:`lbanalysis.capacity.capacity_parameter`).

    >>> parse_capacities("1 Gbit/s"), parse_capacities("lb1=1 Gbit/s, 10.0.0.2=100 Mbit/s")
    ('1 Gbit/s', {'lb1': '1 Gbit/s', '10.0.0.2': '100 Mbit/s'})
    """
    from ..capacity import capacity_parameter

    return capacity_parameter(text)


def _capacity_words(st: Any, link_capacity: Any, iperf: Any) -> str:
    """Where the study's capacities come from, in words."""
    given = parse_capacities(link_capacity)
    if isinstance(given, dict):
        return "given per host: " + ", ".join(f"{h} {r}" for h, r in given.items())
    if given is not None:
        return f"given: {given}, for every path"
    runs = st.runs
    if "capacity" in runs and runs["capacity"].notna().any():
        return "given per run by the `capacity` column (manifest)"
    where = f"in `{iperf}`" if iperf is not None else "among these files, each applied to runs of its own folder"
    n = int(st.paths["n_runs"].sum()) if len(st.paths) and "n_runs" in st.paths else 0
    return f"measured by {n} iperf run(s) {where}, per path (TCP tests; payload against goodput)"


def network_section(
    ds: Any,
    link_capacity: str | float | None = None,
    iperf: str | os.PathLike | None = None,
    threshold: float = 0.8,
    load: str = "concurrency",
    group: str | None = None,
    output_dir: str | os.PathLike | None = None,
) -> Section:
    """The study's capacity per run (given, per host, per manifest row or measured by iperf on the run's own
    path), its basis, and the utilisation: the same figures the verdicts use.
    """
    from .. import plots
    from ..analysis.network import format_bits_per_s

    title = "Network utilisation"
    st = study_of(ds, link_capacity, iperf, threshold, load, group)
    http = st.runs
    has_cap = len(http) and http["capacity_bits_per_s"].notna().any()
    if not has_cap and not len(st.paths) and parse_capacities(link_capacity) is None:
        return Section.empty(title, ABSENT["capacity"])
    source = _capacity_words(st, link_capacity, iperf)
    if not len(http):
        return Section(title).add(f"Link capacity {source}; no HTTP runs to compare with it.").add(st.paths)
    s = Section(title)
    s.add(f"Capacity {source}; a run is network-bound at {threshold:.0%} of its path's capacity or more.")
    if len(st.paths):
        s.add(f"iperf measured {len(st.paths)} path(s); each HTTP run is compared with the path to its own host:")
        s.add(st.paths)
    u = pd.to_numeric(http["utilisation"], errors="coerce")
    over = st.thresholds["mismatch_above"]
    mismatch, unmatched = (u > over).to_numpy(bool), u.isna().to_numpy(bool)
    bound = (u >= threshold) & ~(u > over)
    parts = [
        f"{int(bound.sum())} of {len(http)} run(s) network-bound."
        if bound.any()
        else f"No run reaches {threshold:.0%} of its path: none is network-bound."
    ]
    if mismatch.any():
        parts.append(f"{int(mismatch.sum())} run(s) carried more than the capacity matched to their path: capacity "
                     "mismatch, not a verdict.")  # fmt: skip
    if unmatched.any():
        parts.append(f"{int(unmatched.sum())} run(s) have no measured path to their host: no utilisation.")
    s.add(" ".join(parts))
    table = pd.DataFrame(
        {
            "source": _short_sources(http["source"].astype(str).tolist()),
            "run": http["run"].to_numpy(),
            "series": http["series"].to_numpy(),
            load: http[load].to_numpy() if load in http else pd.NA,
            "requests_per_s": http["requests_per_s"].to_numpy(),
            "used Mbit/s": (http["used_bits_per_s"] / 1e6).to_numpy(),
            "capacity Mbit/s": (http["capacity_bits_per_s"] / 1e6).to_numpy(),
            "basis": http["capacity_basis"].to_numpy(),
            "utilisation": u.to_numpy(),
            "network_bound": pd.array([pd.NA if m or n else bool(b) for m, n, b in zip(mismatch, unmatched, bound,
                                                                                     strict=True)], "boolean"),
            "bound_by": ["capacity mismatch" if m else "network" if b else "" for m, b in zip(mismatch, bound,
                                                                                            strict=True)],
            "bound_reason": [
                f"{format_bits_per_s(w)} ({b}) against {format_bits_per_s(c)} for its path ({src})"
                if pd.notna(c) else (note or "no capacity known")
                for w, b, c, src, note in zip(http["used_bits_per_s"], http["capacity_basis"],
                                              http["capacity_bits_per_s"], http["capacity_source"],
                                              http["capacity_note"], strict=True)
            ],
        }
    )  # fmt: skip
    shown = table[~unmatched]
    if len(shown):
        fig, (ax,) = _figure(width=max(6.0, min(14.0, 0.4 * min(len(shown), 30))))
        labelled = shown.head(30).assign(label=[f"{a}:{b}" for a, b in zip(shown.head(30)["source"],
                                                                             shown.head(30)["run"], strict=True)])  # fmt: skip
        plots.utilisation(labelled, x="label", threshold=threshold, ax=ax)
        ax.tick_params(axis="x", labelrotation=30)
        for tick in ax.get_xticklabels():
            tick.set_horizontalalignment("right")
        if len(shown) > 30:
            s.add(f"The chart shows the first 30 of {len(shown)} runs with a utilisation.")
        s.add(fig)
    s.add(table.reset_index(drop=True))
    s.save(output_dir, "utilisation")
    return s


def load_iperf(folder: str | os.PathLike) -> pd.DataFrame:
    """The runs of the iperf outputs in ``folder`` (unreadable files skipped)."""
    return load(folder).runs


# ------------------------------------------------------------------ compare ---
def compare_section(
    runs: pd.DataFrame,
    group: str | None = None,
    load: str = "concurrency",
    y: str = "requests_per_s",
    output_dir: str | os.PathLike | None = None,
    max_pairs: int = 6,
) -> Section:
    """Each value of ``group`` against the first one: ratio of mean throughput with a bootstrap interval."""
    from .. import plots
    from ..analysis import compare

    title = "Comparison of groups"
    if group is None:
        return Section.empty(title, ABSENT["group"])
    _check_column(runs, group, "group")
    http = http_runs(runs)
    if not len(http):
        return Section.empty(title, ABSENT["http"])
    levels = sorted(http[group].dropna().unique().tolist(), key=_natural)
    if len(levels) < 2:
        return Section.empty(title, ABSENT["one_group"].format(group=group))
    s = Section(title)
    a = levels[0]
    others = levels[1 : 1 + max_pairs]
    if len(levels) - 1 > max_pairs:
        s.add(f"{len(levels)} values of `{group}`; the first {max_pairs} are compared with `{a}`.")
    loads = http.groupby(group)[load].apply(lambda v: set(v.dropna().tolist()))
    frames = []
    for b in others:
        common = loads.get(a, set()) & loads.get(b, set())
        at = load if len(common) > 1 else None
        res, _ = _caught(compare, http, by=group, a=a, b=b, y=y, at=at, n_boot=1000)
        res = res.reset_index().rename(columns={res.index.name or "index": "at"})
        res.insert(0, "b", b)
        res.insert(0, "a", a)
        frames.append(res)
    table = pd.concat(frames, ignore_index=True)
    overall = table[table["at"].astype(str) == "overall"] if "at" in table else table
    for r in overall.itertuples():
        verdict = getattr(r, "verdict", "")
        s.add(f"{verdict}." if verdict else f"{r.b} vs {r.a}: ratio {r.ratio:.3g}")
    table = table.drop(columns=[c for c in ("verdict",) if c in table])
    fig, (ax,) = _figure(width=max(5.0, 1.2 * len(levels)))
    plots.throughput_bars(http, x=group, y=y, ax=ax)
    s.add(fig)
    s.add(table)
    s.save(output_dir, "comparison")
    return s


# ---------------------------------------------------------- load balancer ---
def load_balancer_section(ds: Any) -> Section:
    """Per HAProxy statistics snapshot and backend: shares against weights, fairness, queues, limits.

    Absent (one line) when the files hold no HAProxy statistics. Sentences
    state computed values only; a backend the analysis cannot judge (one
    server, no requests) says why.
    """
    from ..analysis import balance
    from ..formatting import fmt

    servers = getattr(ds, "servers", None)
    if servers is None or servers.empty:
        return Section.empty("Load balancer", "No HAProxy statistics (show stat, show info …) among these files.")
    s = Section("Load balancer")
    for source, snap in servers.groupby(servers["source"].astype(str), sort=True):
        try:
            table = balance(snap)
        except ValueError as e:
            s.add(f"`{os.path.basename(source)}`: {e}.")
            continue
        for proxy, rows in table.groupby("proxy", sort=True):
            first = rows.iloc[0]
            if first["note"]:
                s.add(f"`{os.path.basename(source)}`, backend `{proxy}`: {first['note']}.")
                continue
            at_limit = int(rows["limit_reached"].sum())
            queued = pd.to_numeric(rows["queue_max"], errors="coerce").max() if "queue_max" in rows else float("nan")
            s.add(
                f"`{os.path.basename(source)}`, backend `{proxy}`: {len(rows)} servers, requests counted by "
                f"{first['counted_by']}; Jain's index of the per-weight load {fmt(first['jain'], '', decimals=3)} "
                f"(1 = as the weights ask), busiest over least busy {fmt(first['max_min'], '', decimals=2)}; "
                f"{at_limit} of {len(rows)} servers reached their maxconn; longest server queue "
                f"{fmt(queued, '')}."
            )
            s.add(rows.drop(columns=["proxy", "note"]).reset_index(drop=True))
    return s
