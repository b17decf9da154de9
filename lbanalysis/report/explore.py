"""What the explore notebook (``notebooks/00-explore.ipynb``) shows, as library functions.

The notebook only calls these: each ``*_section`` function takes the tidy
frames and the notebook's parameters and returns a :class:`Section` (its
heading, lines of text, tables and figures) that renders as HTML in a
notebook and as text in a terminal. The page reads: what was read and where
it was written, the conclusion, the evidence, then an appendix. A section
whose data is absent holds one line that says so (the sentences are in
:data:`ABSENT`) and shows nothing on the page; :func:`left_out_section`
lists those at the end.

==========================  ==================================================
function                    returns
==========================  ==================================================
``load``                    a :class:`~lbanalysis.reader.Dataset` (unreadable
                            files skipped, not fatal)
``opening_section``         what was read (paths, files, runs) and where the
                            page and its files are written
``study_of``                the one study of the folder the sections show
``conclusion_section``      one line per series: verdict, confidence, best
                            rate, p99 there, error share (``conclusion_table``)
``verdict_section``         what bounded each series: ``summary_frame()``
``scaling_section``         throughput and latency against load per series,
                            fitted curves and their peaks
``open_loop_section``       fixed-rate series: answers against the rate asked
``knee_section``            the saturation knee per series (the study's)
``percentiles_section``     latency percentiles, where the tool printed them
``tail_section``            the tail corrected for coordinated omission
``timeseries_section``      requests/s and latency over time from
                            per-request logs (``per_request_timeseries``)
``network_section``         capacity, basis and utilisation per run (the study's)
``load_balancer_section``   HAProxy statistics per run and per distinct snapshot
``compare_section``         each group against the first one
``series_section``          each series on its own (appendix)
``read_summary``            files, tools, runs, the study's series, skipped
                            files and why (appendix)
``runs_section``            the runs table (headline columns; ``runs.csv``)
``in_appendix``             a section one heading level down
``left_out_section``        the sections with nothing to say, one line each
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
    "INTROS",
    "Collapsed",
    "Section",
    "check_parameters",
    "compare_section",
    "conclusion_section",
    "conclusion_table",
    "headline",
    "http_runs",
    "in_appendix",
    "iperf_runs",
    "knee_section",
    "left_out_section",
    "load",
    "load_balancer_section",
    "network_section",
    "open_loop_section",
    "opening_section",
    "per_request_timeseries",
    "percentile_table",
    "percentiles_section",
    "read_summary",
    "resolve",
    "runs_section",
    "scaling_section",
    "series_section",
    "study_of",
    "tail_section",
    "timeseries_section",
    "tool_counts",
]

# The one-line messages of sections whose data is absent.
ABSENT = {
    "runs": "No runs were read from these files.",
    "http": "No HTTP load-test runs with a throughput among these files.",
    "loads": "No series ran at two {load} values or more: no curve against load.",
    "percentiles": "No latency percentiles in these outputs (ab, wrk --latency, hey, k6, vegeta, oha, bombardier -l "
    "and Locust print them; siege, gobench and iperf do not).",
    "requests": "No per-request logs in this folder.",
    "start times": "The per-request logs here log no start times (siege -v logs none): no time series.",
    "tail": "No per-request logs of closed-loop runs (ab -g, hey -o csv, siege -v): no corrected tail.",
    "knee": "No series ran at three {load} values or more: no knee to find.",
    "open_loop": "No series of a fixed-rate tool ran at two rates or more.",
    "capacity": "No link capacity given and no iperf outputs among these files: utilisation not computed.",
    "group": "No group given (explore --group, e.g. a field of the path pattern): no groups to compare.",
    "one_group": "Only one value of {group}: nothing to compare.",
    "haproxy": "No HAProxy statistics (show stat, show info …) among these files.",
}

#: The paragraph under each section's heading: what it shows and how to read it.
INTROS = {
    "verdicts": "For each series one verdict (errors, capacity mismatch, network, load generator, server "
    "saturation, no bound reached, or cannot tell) with its confidence and the figures and thresholds behind it.",
    "scaling": "Every run is a point; runs are grouped into series (same tool, target and settings, differing only "
    "in load). A series gets a {model} curve with its 95 % band only when it has enough distinct loads for the "
    "model and the fit explains the points; otherwise the table says why and no curve is drawn.",
    "percentiles": "The share of requests served within a time, per run, where the tool printed them (ab, "
    "wrk --latency, hey, k6, vegeta, oha, bombardier -l, Locust).",
    "tail": "Closed-loop tools stop sending while the server stalls; from per-request logs, the tail a steady "
    "stream of users would have seen, beside the tail the tool printed.",
    "timeseries": "Requests per second and mean latency over time, from per-request logs with start times "
    "(ab -g, hey -o csv): a steady run is flat; warm-up, stalls and drops show here.",
    "open_loop": "Tools that send a fixed rate (vegeta, k6's arrival-rate executors, wrk2) keep sending whatever "
    "the answers do: whether the answers kept up with the rate asked shows whether the server (or the path) did. "
    "The dashed line is where the answers come as fast as asked.",
    "knee": "The load past which throughput stops growing, per series, and whether latency keeps rising past it: "
    "the sign of a queue. A knee is called significant only where repeated runs at a load measured the "
    "run-to-run noise.",
    "network": "The capacity behind each run and its basis: a capacity given to explore (compared with payload "
    "plus TCP/IP and Ethernet framing), or iperf TCP runs that measured the path to the run's host from the run's "
    "own folder (a goodput, compared with payload), never a figure pooled across paths or folders.",
    "balance": "From HAProxy statistics among the files: per backend, each server's share of the requests "
    "against its weight's share, Jain's fairness index, queues and the connection limits reached.",
    "compare": "Each group against the first: the ratio of mean throughput with a bootstrap 95 % interval, per "
    "load where both ran it, and overall.",
    "series": "Each series that ran at two loads or more: its verdict with the evidence, a small chart of "
    "throughput and latency against load, and its runs by load.",
    "read": "Files read per tool, and every file that was skipped with the reason.",
    "runs": "One row per tool run: the columns people look at first, and the columns the path pattern and "
    "manifests added; runs.csv beside this page holds every column.",
}


def _words_of(column: str) -> str:
    """A column's name in words, for a sentence.

    >>> _words_of("concurrency"), _words_of("rate_target_per_s")
    ('concurrency', 'rate')
    """
    from ..analysis.engine import LOAD_WORDS
    from ..formatting import LABELS

    if column in LOAD_WORDS:  # a load, as the study's sentences name it
        return LOAD_WORDS[column]
    if column in LABELS:
        return LABELS[column]
    words = column
    for suffix in ("_per_s", "_s", "_pct", "_bits", "_bytes"):
        words = words.removesuffix(suffix)
    return words.replace("_", " ")


_MAX_LINES = 12  # runs drawn one line each in a chart
_MAX_PCT_LINES = 6  # runs drawn in the percentile chart
_MAX_CURVES = 8  # series drawn in one chart (a legend under it names each)
_MODELS = {"usl": "Universal Scalability Law", "amdahl": "Amdahl", "linear": "straight-line"}
_MAX_ROWS = 200  # rows of a table shown in the notebook
_OPEN_ROWS = 25  # a longer table is collapsed behind a summary line


# ---------------------------------------------------------------- Section ---
@dataclass
class Section:
    """Text lines, tables and figures of one notebook section.

    In a notebook a section shows its own heading (``level``: 2 for a
    section, 3 in the appendix) and its ``intro``; a section whose data is
    absent shows nothing there (:func:`left_out_section` lists it, with its
    one line), and as text it prints that line.

    >>> s = Section("Demo").add("two runs").add(pd.DataFrame({"a": [1, 2]}))
    >>> s.text, len(s.tables), s.absent
    (['two runs'], 1, False)
    >>> Section.empty("Demo", "Nothing here.").absent, Section.empty("Demo", "Nothing here.")._repr_html_()
    (True, '')
    """

    title: str
    parts: list[Any] = field(default_factory=list)
    absent: bool = False
    intro: str = ""
    level: int = 2
    open_rows: int = 0  # a table up to this many rows is shown open (0: _OPEN_ROWS)

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
        return [
            p.frame if isinstance(p, Collapsed) else p for p in self.parts if isinstance(p, (pd.DataFrame, Collapsed))
        ]

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
            p.write_bytes(_png(fig))
            paths.append(p)
        return paths

    def _repr_html_(self) -> str:
        if self.absent:
            return ""
        h = min(self.level, 5)
        chunks = [_CSS]
        if self.title and h:
            chunks.append(f'<h{h} id="{_anchor(self.title)}">{html.escape(self.title)}</h{h}>')
        if self.intro:
            chunks.append(f'<p class="lb-intro">{_inline_html(self.intro)}</p>')
        for p in self.parts:
            if isinstance(p, str) and p.startswith("### "):
                chunks.append(f'<h{h + 1} id="{_anchor(p[4:])}">{_inline_html(p[4:])}</h{h + 1}>')
            elif isinstance(p, str):
                chunks.append(f"<p>{_inline_html(p)}</p>")
            elif isinstance(p, Collapsed):
                chunks.append(_table_html(p.frame, open_rows=-1))
            elif isinstance(p, pd.DataFrame):
                chunks.append(_table_html(p, open_rows=self.open_rows or _OPEN_ROWS))
            elif hasattr(p, "savefig"):
                chunks.append(_figure_html(p, self.title))
        return "\n".join(chunks)

    def __repr__(self) -> str:
        lines = [self.title]
        for p in self.parts:
            if isinstance(p, str):
                lines.append(f"  {p}")
            elif isinstance(p, (pd.DataFrame, Collapsed)):
                frame = p.frame if isinstance(p, Collapsed) else p
                lines.extend("  " + ln for ln in frame.head(20).to_string().splitlines())
            else:
                lines.append("  <figure>")
        return "\n".join(lines)


def _anchor(title: str) -> str:
    """An element id from a heading, as nbconvert makes them (spaces as dashes).

    >>> _anchor("What bounded each series"), _anchor("ab 127.0.0.1:80/ [logs]")
    ('What-bounded-each-series', 'ab-127.0.0.1:80/-[logs]')
    """
    return html.escape("-".join(str(title).split()), quote=True)


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


def _table_html(df: pd.DataFrame, open_rows: int = 0) -> str:
    """A table in words and units (:func:`lbanalysis.formatting.humanize`), every value escaped, numbers
    right-aligned; one of more than ``open_rows`` rows (:data:`_OPEN_ROWS`) is collapsed behind a summary line.

    Plain ``<table>`` markup with one small rule per table, not a rule per cell: a folder of hundreds
    of runs stays a page of a few hundred kilobytes.

    >>> html = _table_html(pd.DataFrame({"x": range(40)}))
    >>> html.startswith("<details><summary>40 rows (click to show)</summary>")
    True
    >>> "<th>p50 (ms)</th>" in _table_html(pd.DataFrame({"p50 (ms)": [1.5]}))
    True
    """
    from ..formatting import humanize

    open_rows = open_rows or _OPEN_ROWS
    if open_rows < 0:
        open_rows = 0
        collapse = True
    else:
        collapse = len(df) > open_rows
    shown = df.head(_MAX_ROWS)
    if not isinstance(shown.index, pd.RangeIndex):
        shown = shown.reset_index()
    shown = _numbers_as_numbers(shown)
    text = humanize(shown, hide_index=True)
    numeric = [i for i, c in enumerate(shown.columns) if pd.api.types.is_numeric_dtype(shown[c].dtype)
               and not pd.api.types.is_bool_dtype(shown[c].dtype)]  # fmt: skip
    wide = [i for i, c in enumerate(text.columns) if len(text) and text[c].astype(str).str.len().max() > 40]
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in text.columns)
    kind = ["n" if i in numeric else "w" if i in wide else "" for i in range(len(text.columns))]
    cells = [f'<td class="{k}">' if k else "<td>" for k in kind]
    body = "".join(
        "<tr>" + "".join(f"{c}{html.escape(str(v))}</td>" for c, v in zip(cells, row, strict=True)) + "</tr>"
        for row in text.itertuples(index=False, name=None)
    )
    many = " lb-many" if len(text.columns) > 12 else ""  # a wide table in a smaller type, to fit the page
    out = f'<table class="lb-explore{many}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    if len(df) > _MAX_ROWS:
        out += f"<p><i>first {_MAX_ROWS} of {len(df)} rows</i></p>"
    if collapse:
        out = f"<details><summary>{len(df)} rows (click to show)</summary>{out}</details>"
    return out


def _numbers_as_numbers(df: pd.DataFrame) -> pd.DataFrame:
    """Object columns that hold only numbers (a table put together from rows with None) as numbers, so
    they are rounded like the others.

    >>> _numbers_as_numbers(pd.DataFrame({"r2": pd.Series([0.3416441708547435, None], dtype=object)}))["r2"].dtype
    dtype('float64')
    """
    out = df.copy()
    for col in out.columns:
        v = out[col]
        if v.dtype == object:
            values = [x for x in v if x is not None and not (isinstance(x, float) and math.isnan(x))]
            if values and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in values):
                out[col] = pd.to_numeric(v, errors="coerce")
    return out


#: The few rules explore's tables and notes need, once per section.
_CSS = (
    "<style>table.lb-explore td.n{text-align:right}table.lb-explore td.w{white-space:normal;min-width:14em;max-width:32em;overflow-wrap:anywhere}"
    "table.lb-explore th{text-align:left;white-space:normal;max-width:14em}p.lb-intro{color:#57606a}"
    ".lb-table table.lb-many{font-size:0.75em}table.lb-many th{max-width:8em}"
    "table.lb-explore td:first-child:not(.n){white-space:normal;min-width:10em;max-width:24em;overflow-wrap:anywhere}"
    "@media (max-width:700px){table.lb-explore td:first-child:not(.n){min-width:9em;max-width:12em}"
    "table.lb-explore td.w{min-width:12em}}</style>"
)


def _png(fig: Any) -> bytes:
    """The figure drawn once as PNG (kept on the figure: the file written and the page show the same bytes)."""
    cached = getattr(fig, "_lbanalysis_png", None)
    if cached is None:
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=100)
        cached = buf.getvalue()
        fig._lbanalysis_png = cached
    return cached


def _figure_html(fig: Any, section: str = "") -> str:
    """The figure as an inline PNG; its alt text is its axes' titles, else the section's name."""
    data = base64.b64encode(_png(fig)).decode("ascii")
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    alt = "; ".join(titles) if titles else (f"Chart: {section}" if section else "Chart")
    return f'<img src="data:image/png;base64,{data}" alt="{html.escape(alt)}" style="max-width:100%"/>'


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


def _file_names(sources: Sequence[str]) -> list[str]:
    """Each source by its file name alone where that names it uniquely, else without the common folder.

    >>> _file_names(["/x/a/run.txt", "/x/b/run.txt", "/x/b/c.txt", "/x/b/c.txt"])
    ['a/run.txt', 'b/run.txt', 'c.txt', 'c.txt']
    """
    distinct = list(dict.fromkeys(str(s) for s in sources))
    short = dict(zip(distinct, _short_sources(distinct), strict=True))
    names = [os.path.basename(short[s]) for s in distinct]
    twice = {n for n in names if names.count(n) > 1}
    return [short[str(s)] if os.path.basename(short[str(s)]) in twice else os.path.basename(short[str(s)])
            for s in sources]  # fmt: skip


def _plain_log_y(ax: Any) -> Any:
    """A log y axis labelled ``0.1``, ``10``, ``10,000`` (never ``1e-01``)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    def plain(v: float, _: Any = None) -> str:
        return f"{v:,.10g}" if v >= 1 else f"{v:.10g}"

    def minor(v: float, _: Any = None) -> str:  # 2 and 5 times a power of ten, where they are needed
        mantissa = round(v / 10 ** math.floor(math.log10(v)), 6) if v > 0 else 0
        return plain(v) if mantissa in (2.0, 5.0) else ""

    ax.yaxis.set_major_formatter(FuncFormatter(plain))
    lo, hi = ax.get_ylim()
    few = lo > 0 and hi / lo < 100  # under two decades: one or two labelled ticks only
    ax.yaxis.set_minor_formatter(FuncFormatter(minor) if few else NullFormatter())
    return ax


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


def _paths_words(logs: Any) -> str:
    """The paths explore was given, in words: one by name, several by their common folder (four named).

    >>> _paths_words(["/data/a"]), _paths_words(["/data/a", "/data/b/c"])
    ('`/data/a`', '2 paths under `/data` (a, b/c)')
    >>> _paths_words([f"/d/{i}" for i in range(6)])
    '6 paths under `/d` (0, 1, 2, 3 and 2 more)'
    """
    items = [logs] if isinstance(logs, (str, os.PathLike)) else list(logs or [])
    names = [os.fspath(p) for p in items if isinstance(p, (str, os.PathLike))]
    home = os.path.expanduser("~")
    names = [("~" + n[len(home) :]) if home not in ("", "/") and n.startswith(home + "/") else n for n in names]
    if not names:
        return "the data given"
    if len(names) == 1:
        return f"`{names[0]}`"
    try:
        common = os.path.commonpath(names)
    except ValueError:
        common = ""
    if common in ("", "/", "~"):
        return f"{len(names)} paths ({_few([f'`{n}`' for n in names], 4)})"
    rest = [n[len(common) :].lstrip("/") or "." for n in names]
    return f"{len(names)} paths under `{common}` ({_few(rest, 4)})"


def opening_section(ds: Any, logs: Any = None, output_dir: str | os.PathLike | None = None) -> Section:
    """What this page read (from where, how many files and runs) and where it wrote its files.

    >>> import io
    >>> ds = load(io.StringIO("ab -c 10 -n 100 http://web/\\nRequests per second:    1000.5 [#/sec] (mean)\\n"))
    >>> opening_section(ds, ["/logs"]).text[0]
    'Read `/logs`: 1 file, 1 test run (ab 1).'
    """
    s = Section("", level=0)
    counts = tool_counts(ds)
    n_files = int(ds.runs["source"].nunique()) if len(ds.runs) else 0
    stats = set(registry.names(kind="lb-stats"))
    tests = counts[~counts["tool"].isin(stats)]
    snaps = int(counts.loc[counts["tool"].isin(stats), "runs"].sum())
    tools = ", ".join(f"{r.tool} {r.runs}" for r in tests.itertuples())
    line = f"Read {_paths_words(logs)}: {_plural(n_files, 'file')}, {_plural(int(tests['runs'].sum()), 'test run')}"
    line += f" ({tools})" if tools else ""
    line += f" and {_plural(snaps, 'load-balancer statistics snapshot')}." if snaps else "."
    if len(ds.skipped):
        line += f" {_plural(len(ds.skipped), 'file')} could not be read (listed in the appendix)."
    s.add(line)
    if output_dir is not None:
        s.add(f"This page, its charts and `runs.csv` (every column of every run) are written to `{output_dir}`.")
    else:
        s.add("No file is written: no output folder was given (`lbanalysis explore -o DIR` gives one).")
    s.add("The conclusion comes first, then the evidence behind it; what was read, run by run, is in the appendix.")
    return s


def _plural(n: int, word: str) -> str:
    """``1 file``, ``2 files``, ``1,234 runs``.

    >>> _plural(1, "file"), _plural(1234, "run"), _plural(2, "series")
    ('1 file', '1,234 runs', '2 series')
    """
    return f"{n:,} {word}" + ("" if n == 1 or word.endswith("s") else "s")


#: The order verdicts are listed in, the most telling first.
_VERDICT_ORDER = ("errors", "capacity mismatch", "network", "load generator", "server saturation", "no bound reached",
                  "cannot tell")  # fmt: skip


def _own_loads(st: Any) -> pd.Series:
    """Series -> the column its load is read from: the concurrency, or the rate asked of a fixed-rate tool
    (the study's ``load`` per series, :func:`lbanalysis.analysis.engine.series_load`)."""
    if "load" not in st.verdicts or not len(st.verdicts):
        return pd.Series(dtype=object)
    return st.verdicts.set_index("series")["load"].fillna(st.load)


def conclusion_table(st: Any, percentiles: pd.DataFrame | None = None) -> pd.DataFrame:
    """One line per series of the study ``st``: verdict and confidence (its ``summary_frame()``), the best
    mean throughput of a load and that load, the 99th percentile there where the tool printed one, and the
    largest error share of any load.
    """
    frame = st.summary_frame()
    load = st.load
    own = _own_loads(st)  # the concurrency, or the rate asked of an open-loop tool (vegeta, k6 arrival rate)
    kinds = set(own) or {load}
    at_col = f"at {_words_of(next(iter(kinds)))}" if len(kinds) == 1 else "at load"
    cols = ["series", "verdict", "resource", "confidence", "best requests/s", at_col, "p99 latency (ms)", "errors (%)"]
    if not len(frame):
        return pd.DataFrame(columns=cols)
    runs = st.runs.dropna(subset=["series"])
    used = runs["used"].astype("boolean").fillna(False).to_numpy(bool) if "used" in runs else True
    any_used = pd.Series(used, index=runs.index).groupby(runs["series"]).transform("any").to_numpy(bool)
    picked = runs[used | ~any_used]  # the runs the curves use; else every run of the series that measured a rate
    p99 = _p99_by_run(percentiles)
    column = picked["series"].map(own).fillna(load) if len(own) else pd.Series(load, index=picked.index)
    x = pd.Series(math.nan, index=picked.index, dtype=float)
    for col in column.unique():
        mine = (column == col).to_numpy(bool)
        x[mine] = _floats(picked[mine], col).to_numpy()
    data = pd.DataFrame(
        {
            "series": picked["series"].to_numpy(),
            "x": x.to_numpy(),
            "y": _floats(picked, "requests_per_s").to_numpy(),
            "p99": [p99.get((str(a), int(b)), math.nan) for a, b in zip(picked["source"], picked["run"], strict=True)],
        }
    ).dropna(subset=["x"])
    means = data.groupby(["series", "x"]).agg(y=("y", "mean"), p99=("p99", "mean")).dropna(subset=["y"])  # by load
    top = means.loc[means.groupby(level="series", sort=False)["y"].idxmax()].reset_index().set_index("series")
    best, at, tail = top["y"].to_dict(), top["x"].to_dict(), (top["p99"] * 1e3).to_dict()
    v = st.verdicts.set_index("series")
    out = pd.DataFrame(
        {
            "series": frame["series"],
            "verdict": frame["verdict"],
            "resource": frame["resource"],
            "confidence": frame["confidence"],
            "best requests/s": frame["series"].map(best).astype(float),
            at_col: frame["series"].map(at)
            if len(kinds) == 1
            else [
                f"{_words_of(str(own.get(n, load)))} {at[n]:,.10g}" if n in at and pd.notna(at[n]) else ""
                for n in frame["series"]
            ],
            "p99 latency (ms)": frame["series"].map(tail).astype(float),
            "errors (%)": pd.to_numeric(frame["series"].map(v["error_share"]), errors="coerce") * 100
            if "error_share" in v
            else math.nan,
        }
    )
    order = {name: i for i, name in enumerate(_VERDICT_ORDER)}
    rank = out["verdict"].map(lambda x: order.get(x, len(order)))
    out = out.assign(_rank=rank, _rate=-out["best requests/s"].fillna(-1.0))
    return out.sort_values(["_rank", "_rate", "series"], kind="stable").drop(columns=["_rank", "_rate"])


def _floats(frame: pd.DataFrame, column: str) -> pd.Series:
    """A column as plain floats (missing values NaN; an absent column all NaN).

    >>> _floats(pd.DataFrame({"a": pd.array([1, None], "Int64")}), "a").tolist()
    [1.0, nan]
    """
    if column not in frame:
        return pd.Series(math.nan, index=frame.index, dtype=float)
    v = frame[column]
    if isinstance(v.dtype, pd.BooleanDtype) or v.dtype == bool:
        v = v.astype("Float64")
    return pd.to_numeric(v, errors="coerce").astype("Float64").astype(float)


def _p99_by_run(percentiles: pd.DataFrame | None) -> dict[tuple[str, int], float]:
    """The 99th percentile (s) each run's tool printed, by (source, run)."""
    if percentiles is None or not len(percentiles):
        return {}
    from ..analysis.latency import recorded_percentiles

    pct = recorded_percentiles(percentiles)
    p = pct[pd.to_numeric(pct["percentile"], errors="coerce") == 99]
    return {(str(s), int(r)): float(v) for s, r, v in zip(p["source"], p["run"], p["latency_s"], strict=True)
            if pd.notna(v)}  # fmt: skip


def conclusion_section(
    ds: Any,
    link_capacity: str | float | None = None,
    iperf: str | os.PathLike | None = None,
    threshold: float = 0.8,
    load: str = "concurrency",
    group: str | None = None,
) -> Section:
    """The answer first: the verdict counts and one line per series (:func:`conclusion_table`)."""
    title = "Conclusion"
    if not len(http_runs(ds.runs)):
        return Section.empty(title, ABSENT["http"])
    st = study_of(ds, link_capacity, iperf, threshold, load, group)
    from ..analysis.tests import per_test_percentiles

    table = conclusion_table(st, per_test_percentiles(st, ds.percentiles))  # a test's p99: merged, never one process's
    s = Section(title, open_rows=len(table) + 1)
    order = {name: i for i, name in enumerate(_VERDICT_ORDER)}
    counts = table["verdict"].value_counts()
    said = ", ".join(f"{v} {n}" for v, n in sorted(counts.items(), key=lambda kv: (order.get(kv[0], 99), kv[0])))
    s.add(f"{_plural(len(table), 'series')}. Verdicts: {said}.")
    kinds = [_words_of(k) for k in dict.fromkeys(_own_loads(st))]
    words = kinds[0] if len(kinds) == 1 else "load" if kinds else _words_of(load)
    varies = f"{words} (the {' or the '.join(kinds)} asked)" if len(kinds) > 1 else words
    s.add(
        f"One line per series (runs of one tool against one target with the same settings, differing in "
        f"{varies}): the best mean throughput of any {words} and that {words}, the 99th percentile of latency "
        "there where the tool printed one, and the largest share of failed requests at any load. The evidence "
        "for each verdict follows."
    )
    failed = _all_failed(st, table)
    if failed:
        which = f" ({_few(failed, 3)})" if len(failed) <= 3 else ""
        s.add(f"In {_plural(len(failed), 'series')}{which} every attempt of every run failed, yet a rate was "
              "printed: those requests/s count failures (ab counts a refused or failed request as completed, wrk "
              "and hey an error page as an answer), not service.")  # fmt: skip
    if len(table) <= _OPEN_ROWS:
        return s.add(table.reset_index(drop=True))
    unsure = (table["verdict"] == "cannot tell").to_numpy(bool)
    no_rate = table["best requests/s"].isna().to_numpy(bool) & ~unsure
    s.add(table[~unsure & ~no_rate].reset_index(drop=True))
    if no_rate.any():
        s.add(f"{_plural(int(no_rate.sum()), 'series')} measured no throughput (every run failed, was refused "
              "or printed no rate):")  # fmt: skip
        s.add(Collapsed(table[no_rate].reset_index(drop=True)))
    if unsure.any():
        s.add(f"{_plural(int(unsure.sum()), 'series')} with too little to tell (too few loads, runs too short, "
              "latency printed too coarsely: the next section says which):")  # fmt: skip
        s.add(Collapsed(table[unsure].reset_index(drop=True)))
    return s


def _all_failed(st: Any, table: pd.DataFrame) -> list[str]:
    """The series whose every run failed every attempt (the study's error shares) but shows a rate."""
    runs = st.runs.dropna(subset=["series"])
    if not len(runs) or "error_share" not in runs:
        return []
    lowest = pd.to_numeric(runs["error_share"], errors="coerce").groupby(runs["series"]).min()
    rate = table.set_index("series")["best requests/s"]
    return [n for n in rate.index if rate[n] > 0 and lowest.get(n, 0.0) >= 0.999]


@dataclass
class Collapsed:
    """A table shown collapsed behind its summary line, however short."""

    frame: pd.DataFrame

    def __repr__(self) -> str:
        return self.frame.head(20).to_string()


def left_out_section(*sections: Section) -> Section:
    """The sections with nothing to say (their data is absent), each with its one line; absent itself when none."""
    gone = [s for s in sections if s.absent]
    if not gone:
        return Section.empty("Not shown", "Every section had something to show.")
    s = Section("Not shown", level=3)
    for g in gone:
        s.add(f"{g.title}: {g.text[0] if g.text else 'nothing to show.'}")
    return s


def in_appendix(section: Section) -> Section:
    """``section`` as a part of the appendix (one heading level down)."""
    section.level = 3
    return section


def read_summary(ds: Any, study: Any = None) -> Section:
    """What was read: files, tools, runs, the series they form, and every skipped file with its reason.

    The series are the ``study``'s (:func:`study_of`, by default with its
    default parameters): the same runs and series every other section counts.
    """
    s = Section("What was read", intro=INTROS["read"])
    counts = tool_counts(ds)
    n_read = int(ds.runs["source"].nunique()) if len(ds.runs) else 0
    tools = ", ".join(f"{r.tool} {r.runs}" for r in counts.itertuples())
    s.add(
        f"{n_read} file{'s' if n_read != 1 else ''} read, {len(ds.runs)} run{'s' if len(ds.runs) != 1 else ''}"
        + (f": {tools}." if tools else ".")
    )
    if len(counts):
        s.add(counts)
    st = study if study is not None else study_of(ds)
    if len(st.verdicts):
        s.add(_series_sentence(st))
        s.add(_series_list(st))
    for part in _tests_parts(st):
        s.add(part)
    not_runs = getattr(ds, "not_runs", None)
    not_runs = not_runs if not_runs is not None and len(not_runs) else None
    # skipped files and outputs that are no tests named from one folder, so that their names compare
    skipped = ds.skipped["source"].astype(str).tolist() if len(ds.skipped) else []
    others = not_runs["source"].astype(str).tolist() if not_runs is not None else []
    names = _short_sources([*skipped, *others, *ds.runs["source"].astype(str)] if len(ds.runs) else [*skipped, *others])
    if len(ds.skipped):
        s.add(f"{_plural(len(ds.skipped), 'file')} skipped:")
        short = names[: len(skipped)]
        reasons = [_reason(str(src), str(r)) for src, r in zip(ds.skipped["source"], ds.skipped["reason"], strict=True)]
        s.add(pd.DataFrame({"file": short, "why": reasons}))
    else:
        s.add("No file was skipped.")
    if not_runs is not None:
        s.add(
            f"{_plural(len(not_runs), 'output')} {'is not a test' if len(not_runs) == 1 else 'are not tests'} (help texts, version banners, commands without output), not counted as runs:"
        )
        s.add(
            pd.DataFrame(
                {
                    "file": names[len(skipped) : len(skipped) + len(others)],
                    "line": not_runs["line"].to_numpy(),
                    "tool": not_runs["tool"].to_numpy(),
                    "what": not_runs["kind"].to_numpy(),
                    "command": not_runs["command"].fillna("").to_numpy(),
                }
            )
        )
    if ds.ignored:
        from collections import Counter

        seen = Counter(os.path.basename(p) for p in ds.ignored)
        names = _few([f"{n} ({k})" if k > 1 else n for n, k in seen.most_common()], 10)
        s.add(f"{_plural(len(ds.ignored), 'file')} passed over by name (notes, scripts, manifests): {names}.")
    for note in ds.notes:
        s.add(f"Note: {note}")
    return s


def _tests_parts(st: Any) -> list[Any]:
    """The tests of several processes run at once, and their processes (the study's ``tests`` and ``processes``)."""
    tests = getattr(st, "tests", None)
    processes = getattr(st, "processes", None)
    if tests is None or not len(tests) or processes is None or not len(processes):
        return []
    several = tests[tests["processes"] > 1]
    if not len(several):
        return []
    out: list[Any] = [
        f"{_plural(len(several), 'test')} of several load-generator processes run at once, each judged as one run "
        "above: its load and requests/s are the sums of its processes' own, its mean latency weighted by requests, "
        "its percentiles merged from per-request logs where every process wrote one (else each process's stay its "
        "own); the spread compares the processes' requests/s per connection (one slow process drags a test)."
    ]
    shown = several.assign(spread=several["spread"] * 100, duration_spread=several["duration_spread"] * 100)
    out.append(
        shown[["test", "processes", "test_basis", "load", "requests_per_s", "latency_mean_s", "latency_p99_s",
               "spread", "duration_spread", "slowest", "percentiles_basis"]].rename(columns={
            "test_basis": "how it is known", "spread": "spread per connection (%)",
            "duration_spread": "durations apart (%)", "slowest": "slowest process", "percentiles_basis": "percentiles"})
    )  # fmt: skip
    mine = processes[processes["test"].isin(set(several["test"]))]
    names = _short_sources(mine["source"].astype(str).tolist())
    out.append("Their processes, each as it printed:")
    out.append(
        pd.DataFrame({
            "test": mine["test"].to_numpy(), "process": mine["process"].to_numpy(), "file": names,
            "concurrency": _floats(mine, "concurrency").to_numpy(),
            "requests_per_s": _floats(mine, "requests_per_s").to_numpy(),
            "per connection (requests/s)": _floats(mine, "rate_per_connection").to_numpy(),
            "duration_s": _floats(mine, "duration_s").to_numpy(), "error_share": _floats(mine, "error_share").to_numpy(),
        })
    )  # fmt: skip
    return out


def _series_sentence(st: Any) -> str:
    """How many HTTP runs form how many series, the runs read twice named (the study's own counts)."""
    runs, twice = int(st.verdicts["runs"].sum()), int(st.runs["twin_of"].notna().sum())
    also = f" ({twice:,} more read a second time from their own log, counted once)" if twice else ""
    return (f"The {_plural(runs, 'HTTP load-test run')}{also} form {_plural(len(st.verdicts), 'series')} (same tool, "
            "target and settings, differing only in load); curves, knees and verdicts are computed within a series "
            "only:")  # fmt: skip


def _series_list(st: Any) -> pd.DataFrame:
    """One row per series of the study: its tool, runs, the runs and loads its curves use, and what they allow."""
    from ..analysis.series import MIN_LOADS

    v = st.verdicts
    tools = st.series.set_index("series")["tool"] if "tool" in st.series else pd.Series(dtype=object)
    enough = [
        ", ".join(k for k, n in MIN_LOADS.items() if int(x) >= n) or "no curve (too few loads)" for x in v["loads"]
    ]
    return pd.DataFrame({"series": v["series"].to_numpy(), "tool": v["series"].map(tools).to_numpy(),
                         "runs": v["runs"].to_numpy(), "runs in curves": v["used"].to_numpy(),
                         "loads in curves": v["loads"].to_numpy(), "enough for": enough})  # fmt: skip


# --------------------------------------------------------------------- runs ---
_HEADLINE = (
    ("tool", "tool", 1.0),
    ("concurrency", "concurrency", 1.0),
    ("requests", "requests", 1.0),
    ("failed", "failed", 1.0),
    ("non_2xx", "non_2xx", 1.0),
    ("requests_per_s", "requests/s", 1.0),
    ("latency_mean_s", "mean latency (ms)", 1e3),
    ("latency_max_s", "max latency (ms)", 1e3),
    ("bytes_per_s", "transfer (MB/s)", 1e-6),
    ("streams", "streams", 1.0),
    ("bits_per_s", "rate (Mbit/s)", 1e-6),
    ("direction", "direction", 1.0),
    ("error", "error", 1.0),
)


def headline(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs with the columns people look at first (in display units), plus pattern/manifest columns.

    Columns that are empty for every run are left out.

    >>> runs = pd.DataFrame({"source": ["a.txt"], "run": [0], "tool": ["ab"], "concurrency": [10],
    ...                      "requests_per_s": [100.0], "latency_mean_s": [0.1], "setup": ["x"]})
    >>> headline(runs).columns.tolist()
    ['source', 'run', 'setup', 'tool', 'concurrency', 'requests/s', 'mean latency (ms)']
    >>> headline(runs).loc[0, "mean latency (ms)"]
    100.0
    """
    from .. import schema
    from ..analysis.resources import DECLARED_CORES

    runs = runs.reset_index(drop=True)  # a subset of the runs keeps its rows together
    out = pd.DataFrame({"source": _short_sources(runs["source"].astype(str).tolist()), "run": runs["run"]})
    # the cores declared for each role are evidence the verdicts name (and runs.csv keeps), not columns to read by
    extra = [c for c in runs.columns if c not in schema.RUNS and c not in DECLARED_CORES.values()]
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
    s = Section("Runs", intro=INTROS["runs"])
    if not len(ds.runs):
        return Section.empty(s.title, ABSENT["runs"])
    if output_dir is not None:
        Path(output_dir).mkdir(parents=True, exist_ok=True)
        ds.runs.to_csv(Path(output_dir) / "runs.csv", index=False)
        s.add(
            f"All {ds.runs.shape[1]} columns of the {_plural(len(ds.runs), 'run')} are in `runs.csv` beside this page."
        )
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
        if k == "lb-stats":  # their figures are the load balancer section's
            s.add(f"{_KIND_HEADINGS[k]}: {_plural(len(part), 'snapshot')} ({tools}), shown in the load balancer "
                  "section.")  # fmt: skip
            continue
        s.add(f"{_KIND_HEADINGS.get(k, 'Other runs')}: {_plural(len(part), 'run')} ({tools}).")
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
    runs: Any,
    load: str = "concurrency",
    group: str | None = None,
    model: str = "usl",
    output_dir: str | os.PathLike | None = None,
) -> Section:
    """Throughput and latency against load within each series, with a fitted curve only where one holds.

    ``runs``: the Dataset (its study, :func:`study_of`, is the one every section shows) or a runs table.
    Runs are grouped into series (same tool, target and settings, see
    :mod:`lbanalysis.analysis.series`), or by ``group`` when given. A series
    gets a ``model`` curve only with enough distinct loads and when the fit
    explains the points (R² >= 0.8); otherwise the table says "no model
    fits these points" or "too few loads", and no curve is drawn. Series run
    at one load only are counted, not listed (the conclusion lists every series).
    """
    from .. import plots
    from ..analysis.engine import study
    from ..analysis.series import fit_series

    title = "Throughput and latency against load"
    frame = runs if isinstance(runs, pd.DataFrame) else runs.runs
    _check_column(frame, load, "load")
    _check_column(frame, group, "group")
    if not len(http_runs(frame)):
        return Section.empty(title, ABSENT["http"])
    st = study(frame, load=load, group=group) if isinstance(runs, pd.DataFrame) else _series_study(runs, load, group)
    http = st.runs.dropna(subset=["series"])  # the study's series and left-outs
    # a fixed-rate series varies the rate asked, not the load: drawn in its own section (open_loop_section)
    own = _own_loads(st)
    other = set(own.index[own != load])
    http = http[~http["series"].isin(other).to_numpy(bool)]
    key = group if group is not None else "series"
    if other and not len(http):
        return Section.empty(title, "Every series sends a fixed rate: they are drawn against the rate asked.")
    if not len(http) or _n_loads(http, load, "series") < 2:
        return Section.empty(title, ABSENT["loads"].format(load=_words_of(load)))
    n_loads = http.groupby("series")[load].agg(lambda v: pd.to_numeric(v, errors="coerce").nunique())
    several = set(n_loads[n_loads >= 2].index)
    http_all, http = http, http[http["series"].isin(several).to_numpy(bool)]
    used = http[http["used"].to_numpy(bool)]
    table, fits = fit_series(used, load=load, model=model, by="series")
    from ..analysis.rules import count_reasons

    missing = [
        {"series": n, "loads": 0, "model": model, "r2": None, "fitted": False,
         "verdict": f"no run counts in curves: {count_reasons(g['left_out'].tolist())}"}
        for n, g in http.groupby("series", sort=True) if n not in set(table["series"])
    ]  # fmt: skip
    if missing:
        table = pd.concat([table, pd.DataFrame(missing)], ignore_index=True).sort_values("series", ignore_index=True)
    if "fitted" in table:
        table["fitted"] = table["fitted"].map({True: "yes", False: "no"}).fillna("")
    if "model" in table and table["model"].nunique() <= 1:  # the sentence above names the model
        table = table.drop(columns="model")
    s = Section(title, intro=INTROS["scaling"].format(model=_MODELS.get(model, model)))
    n_series = http_all["series"].nunique()
    drawn = sorted(several)
    words = _words_of(load)
    fitted = f"{len(fits)} of them {'has' if len(fits) == 1 else 'have'} a {_MODELS.get(model, model)} curve that fits"
    s.add(
        f"{_plural(n_series, 'series')} ({'by ' + group if group else 'same tool, target and settings'}); "
        f"{len(drawn)} ran at two {words} values or more and are drawn; {fitted}."
        + (f" The other {n_series - len(drawn)} ran at one {words} only." if n_series > len(drawn) else "")
        + (f" {_plural(len(other), 'fixed-rate series')} {'varies' if len(other) == 1 else 'vary'} the rate asked: "
           "see the section on the rate asked." if other else "")
    )  # fmt: skip
    out = http[~http["used"].to_numpy(bool)]
    if len(out):
        s.add(
            f"{_plural(len(out), 'run')} drawn hollow and left out of the curves: {count_reasons(out['left_out'].tolist())}."
        )
    shown = drawn[:_MAX_CURVES]
    if len(drawn) > len(shown):
        s.add(f"The chart shows the first {len(shown)} of {len(drawn)} series; the table has them all.")
    fig, (ax1, ax2) = _figure(ncols=2, height=4.0 + 0.22 * ((len(shown) + 1) // 2))
    for i, name in enumerate(shown):
        g = http[http["series"] == name]
        color = f"C{i % 10}"
        xy = pd.DataFrame(
            {"x": pd.to_numeric(g[load], errors="coerce"), "y": pd.to_numeric(g["requests_per_s"], errors="coerce")}
        ).dropna()
        kept = g.loc[xy.index, "used"].to_numpy(bool)
        ax1.plot(xy["x"][kept], xy["y"][kept], "o", color=color, label=str(name) if kept.any() else None, alpha=0.8)
        if not kept.all():
            ax1.plot(xy["x"][~kept], xy["y"][~kept], "o", mfc="none", color=color, alpha=0.8,
                     label=None if kept.any() else str(name))  # fmt: skip
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
            ax2.plot(means.index, means.to_numpy(), "o-", color=color)
    ax1.set_xlabel(words)
    ax1.set_ylabel("requests per second")
    ax1.set_title(f"Throughput ({_MODELS.get(model, model)} curve only where it fits)")
    ax2.set_xlabel(words)
    ax2.set_ylabel("mean latency (ms)")
    ax2.set_title("Mean latency")
    for ax in (ax1, ax2):
        plots.plain_ticks(ax)
    if shown:  # one legend under both charts, named by series
        fig.legend(*ax1.get_legend_handles_labels(), loc="outside lower center", ncols=2 if len(shown) > 1 else 1,
                   fontsize="small", frameon=False)  # fmt: skip
    s.add(fig)
    s.add(table.rename(columns={"series": key}) if key != "series" else table)
    s.save(output_dir, "throughput-latency")
    return s


# -------------------------------------------------------------- percentiles ---
_PERCENTILES = (50, 66, 75, 80, 90, 95, 98, 99, 100)  # the ones ab prints; wrk and hey print some of them


def percentile_table(percentiles: pd.DataFrame, runs: pd.DataFrame | None = None) -> pd.DataFrame:
    """Percentiles in ms, one row per run and one column per percentile ab prints (``p50 (ms)`` ... ``p100 (ms)``).

    >>> pct = pd.DataFrame({"source": "a.txt", "run": [0, 0], "percentile": [50.0, 99.0], "latency_s": [0.01, 0.2]})
    >>> percentile_table(pct).to_dict("records")
    [{'source': 'a.txt', 'run': 0, 'p50 (ms)': 10.0, 'p99 (ms)': 200.0}]
    """
    pct = percentiles[percentiles["percentile"].isin(_PERCENTILES)]
    ms = (pd.to_numeric(pct["latency_s"], errors="coerce") * 1e3).round(6)  # 0.103 s is 103 ms, not 103.00000000000001
    wide = pct.assign(ms=ms).pivot_table(index=["source", "run"], columns="percentile", values="ms", aggfunc="first")
    wide.columns = [f"p{c:g} (ms)" for c in wide.columns]
    wide = wide.reset_index()
    wide["source"] = _short_sources(wide["source"].astype(str).tolist())
    wide.columns.name = None
    if runs is not None and len(runs):
        # each run's load: its clients, and the rate asked where a fixed-rate tool set one
        loads = [
            c
            for c in ("concurrency", "rate_target_per_s")
            if c in runs and pd.to_numeric(runs[c], errors="coerce").notna().any()
        ]
        extra = runs[["source", "run", *loads]].copy()
        extra["source"] = _short_sources(runs["source"].astype(str).tolist())
        wide = wide.merge(extra, on=["source", "run"], how="left")
        for i, c in enumerate(loads):
            wide.insert(2 + i, c, wide.pop(c))
        if "rate_target_per_s" in wide:
            wide = wide.rename(columns={"rate_target_per_s": "rate asked (requests/s)"})
    return wide


def percentiles_section(ds: Any, group: str | None = None, output_dir: str | os.PathLike | None = None) -> Section:
    """Latency against percentile for the runs whose tool printed percentiles (ab, wrk --latency, hey, k6, ...)."""
    from .. import plots

    title = "Latency percentiles"
    pct = ds.percentiles
    if not len(pct):
        return Section.empty(title, ABSENT["percentiles"])
    s = Section(title, intro=INTROS["percentiles"])
    from ..analysis.latency import recorded_percentiles

    recorded = recorded_percentiles(pct)
    uncorrected = pct["kind"].astype("string").str.startswith("uncorrected").fillna(False).to_numpy(bool)
    if uncorrected.any():  # wrk2 -U: a second distribution of the same run
        n = len(pct[uncorrected][["source", "run"]].drop_duplicates())
        s.add(f"wrk2 also printed, for {_plural(n, 'run')}, the latencies it measured without correcting for "
              "delayed starts; the chart and table show the corrected ones it records.")  # fmt: skip
    pct = recorded
    keys = pct[["source", "run"]].drop_duplicates()
    ms = pd.to_numeric(pct["latency_s"], errors="coerce") * 1e3
    pct = pct.assign(latency_ms=ms.where(ms > 0))  # a latency printed as 0 has no place on a log axis
    if (ms == 0).any():
        s.add("Latencies printed as 0 ms (under the tool's resolution) are in the table, not on the chart's log "
              "scale.")  # fmt: skip
    if len(keys) > _MAX_PCT_LINES:  # the runs with the highest 99th percentile: the tails worth a look
        top = pct[pct["percentile"] == pct.groupby(["source", "run"])["percentile"].transform("max")]
        worst = top.sort_values("latency_ms", ascending=False)[["source", "run"]].drop_duplicates()
        shown = worst.head(_MAX_PCT_LINES)
        pct = pct.merge(shown, on=["source", "run"])
        s.add(f"{len(keys)} runs have percentiles; the chart shows the {_MAX_PCT_LINES} with the slowest "
              "highest percentile, the table has them all.")  # fmt: skip
    sources = list(dict.fromkeys(ds.percentiles["source"].astype(str)))
    short = dict(zip(sources, _file_names(sources), strict=True))
    pct = pct.assign(name=[f"{short[str(a)]}" + (f" (run {b})" if n > 1 else "") for a, b, n in
                           zip(pct["source"], pct["run"], pct.groupby("source")["run"].transform("nunique"),
                               strict=True)])  # fmt: skip
    fig, (ax,) = _figure(width=7, height=4.0 + 0.2 * pct["name"].nunique())
    plots.latency_percentiles(pct, y="latency_ms", hue="name", logy=True, ax=ax)
    ax.set(ylabel="latency (ms)", title="Latency by percentile")
    _plain_log_y(ax)
    handles, labels = ax.get_legend_handles_labels()
    if ax.get_legend() is not None:
        ax.get_legend().remove()
    if handles:  # under the chart, not over its lines
        fig.legend(handles, labels, loc="outside lower center", fontsize="small", frameon=False,
                   ncols=2 if len(handles) > 3 else 1)  # fmt: skip
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
    out = pd.DataFrame({"source": _file_names(tail["source"].astype(str).tolist()), "run": tail["run"]})
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
    from ..formatting import fmt

    s = Section(title, intro=INTROS["tail"])  # (the closed-loop note stands in the percentiles section)
    worst = tail.loc[(tail["p99_corrected_s"] / tail["p99_s"].where(tail["p99_s"] > 0)).fillna(1).idxmax()]
    if worst["p99_corrected_s"] > worst["p99_s"]:
        s.add(
            f"Largest gap: `{_short_sources([str(worst['source'])])[0]}` printed a 99th percentile of "
            f"{fmt(worst['p99_s'], 's')}; corrected for the requests its stalls kept from being sent, "
            f"{fmt(worst['p99_corrected_s'], 's')}."
        )
    lower = tail[tail["p99_corrected_s"] < tail["p99_s"]]
    if len(lower):
        names = ", ".join(f"`{n}`" for n in _short_sources(lower["source"].astype(str).tolist())[:3])
        s.add(
            f"{_plural(len(lower), 'run')} ({names}{', ...' if len(lower) > 3 else ''}) {'has' if len(lower) == 1 else 'have'} a corrected 99th percentile "
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
    curves["name"] = _file_names(curves["source"].astype(str).tolist())
    if len(tail) > len(shown):
        s.add(f"{len(tail)} runs have per-request logs; the chart shows the first {len(shown)}.")
    fig, (ax,) = _figure(width=7, height=4.0 + 0.2 * len(shown))
    plots.corrected_tail(curves, label="name", ax=ax)
    ax.set_title("Printed and corrected tail")
    _plain_log_y(ax)
    handles, labels = ax.get_legend_handles_labels()
    if ax.get_legend() is not None:  # under the chart, not over its lines
        ax.get_legend().remove()
    if handles:
        fig.legend(handles, labels, loc="outside lower center", fontsize="small", frameon=False,
                   ncols=2 if max(len(t) for t in labels) < 45 else 1)  # fmt: skip
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
    s = Section(title, intro=INTROS["timeseries"])
    if on_dask:
        s.add("Per-request logs read and aggregated on Dask (a folder larger than memory).")
    keys = ts[["source", "run"]].drop_duplicates()
    if not on_dask:
        logged = ds.requests[["source", "run"]].drop_duplicates()
        if len(logged) > len(keys):
            s.add(f"{len(logged) - len(keys)} of the {len(logged)} runs with per-request logs log no start times "
                  "(siege -v logs none): they are not drawn.")  # fmt: skip
    if len(keys) > max_runs:
        s.add(f"{len(keys)} runs have per-request logs; the charts show the first {max_runs}.")
        ts = ts.merge(keys.head(max_runs), on=["source", "run"])
    bins = ts.groupby(["source", "run"], sort=False)["t_s"].transform("nunique")
    if (bins >= 2).any():
        _timeseries_chart(s, ts[(bins >= 2).to_numpy(bool)], freq)
    else:
        who = "The run" if len(keys) == 1 else f"Each of the {len(keys)} runs"
        s.add(f"{who} with start times lasted under two bins of {freq}: nothing to draw over time; the table gives "
              "each run's length and counts.")  # fmt: skip
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
    per_run["source"] = _file_names(per_run["source"].astype(str).tolist())
    s.add(per_run)
    s.save(output_dir, "timeseries")
    return s


def _timeseries_chart(s: Section, ts: pd.DataFrame, freq: str) -> None:
    """Requests per second and mean latency over time, one line per run (named by its file), into ``s``."""
    from .. import plots

    keys = ts[["source", "run"]].drop_duplicates()
    names = _file_names(keys["source"].astype(str).tolist())
    several = keys.groupby("source")["run"].transform("nunique").to_numpy() > 1
    labels = {(src, run): f"{n} (run {run})" if many else n
              for (src, run), n, many in zip(zip(keys["source"], keys["run"], strict=True), names, several,
                                             strict=True)}  # fmt: skip
    fig, (ax1, ax2) = _figure(ncols=2)
    for i, ((src, run), rows) in enumerate(ts.groupby(["source", "run"], sort=False)):
        label, color = labels[(src, run)], f"C{i % 10}"
        full, part = rows[~rows["partial"]], rows[rows["partial"]]
        ax1.plot(full["t_s"], full["requests_per_s"], "-o", color=color, label=label, markersize=3)
        ax1.plot(part["t_s"], part["requests_per_s"], "o", color=color, markerfacecolor="none", markersize=4)
        ax2.plot(rows["t_s"], rows["latency_mean_s"] * 1e3, "-o", color=color, markersize=3)
    ax1.set(xlabel="time since first request (s)", ylabel=f"requests per second (bins of {freq})")
    ax2.set(xlabel="time since first request (s)", ylabel="mean latency (ms)")
    ax1.set_title("Throughput over time")
    ax2.set_title("Mean latency over time")
    for ax in (ax1, ax2):
        plots.plain_ticks(ax)
    fig.legend(*ax1.get_legend_handles_labels(), loc="outside lower center", fontsize="small", frameon=False,
               ncols=2 if len(keys) > 2 else 1)  # fmt: skip
    s.add(
        "Hollow points are bins the run covers only in part (it ended within its last bin, and, where start times "
        "are logged to the second, began somewhere in its first): their rate is not comparable, so the rates below "
        "are of full bins only."
    )
    s.add(fig)


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
        if any(held is not ds for held, _ in _STUDIES.values()):
            _STUDIES.clear()  # one dataset at a time (the notebook's); holding it keeps its id from being reused
        _STUDIES[key] = (ds, study(ds, capacity=capacity_parameter(link_capacity), iperf=measured, group=group,
                                   load=load, network_threshold=threshold))  # fmt: skip
    return _STUDIES[key][1]


def _series_study(ds: Any, load: str, group: str | None) -> Any:
    """A study of ``ds`` for what does not depend on capacities (series, runs left out, fits, knees): the
    one already built for the sections above when there is one, whatever capacity it was given."""
    for (ident, _, _, _, held_load, held_group), (held, st) in _STUDIES.items():
        if held is ds and ident == id(ds) and held_load == load and held_group == group:
            return st
    return study_of(ds, load=load, group=group)


# ---------------------------------------------------------------- open loop ---
def open_loop_section(
    ds: Any, load: str = "concurrency", group: str | None = None, output_dir: str | os.PathLike | None = None
) -> Section:
    """Fixed-rate (open-loop) series: the answers' rate against the rate asked (and sent), and the latency.

    The series are the study's whose load is the rate asked
    (:func:`lbanalysis.analysis.engine.series_load`); each gets a sentence on
    the highest rate whose answers kept up (the study's ``keep_up_share``)
    and where they fell behind. Absent when no such series ran at two rates.
    """
    from .. import plots
    from ..analysis.rules import kept_up

    title = "Answers against the rate asked"
    frame = ds.runs if hasattr(ds, "runs") else ds
    if not len(http_runs(frame)):
        return Section.empty(title, ABSENT["http"])
    st = _series_study(ds, load, group)
    col = "rate_target_per_s"
    own = _own_loads(st)
    runs = st.runs[st.runs["series"].isin(set(own.index[own == col])).to_numpy(bool) & st.runs["used"].to_numpy(bool)]
    n_rates = runs.groupby("series")[col].nunique() if len(runs) else pd.Series(dtype=int)
    runs = runs[runs["series"].isin(set(n_rates[n_rates >= 2].index)).to_numpy(bool)]
    if not len(runs):
        return Section.empty(title, ABSENT["open_loop"])
    share = st.thresholds["keep_up_share"]  # the value the study judged with
    s = Section(title, intro=INTROS["open_loop"])
    rows = []
    for name, g in runs.groupby("series", sort=True):
        by = g.groupby(_floats(g, col))
        got, sent = by["requests_per_s"].mean(), _floats(g, "rate_sent_per_s").groupby(_floats(g, col)).mean()
        lat = _floats(g, "latency_used_s").groupby(_floats(g, col)).mean()
        ok = kept_up(got, pd.Series(got.index, index=got.index), share)
        kept, behind = got[ok], got[~ok]
        if len(kept):
            top = kept.index.max()
            said = f"the answers kept up with the rate asked up to {top:,.10g} requests/s ({got[top]:,.0f} answered)"
        else:
            said = "the answers kept up at no rate asked"
        if len(behind):
            r = behind.index.min()
            sent_r = f" ({sent[r]:,.0f} sent)" if pd.notna(sent.get(r)) else ""
            said += f"; at {r:,.10g} requests/s asked{sent_r} they came at {got[r]:,.0f} ({got[r] / r:.0%}, below {share:.0%})"
        s.add(f"{name}: {said}.")
        for r in got.index:
            rows.append({"series": name, "rate asked (requests/s)": r, "runs": int(by.size()[r]),
                         "rate sent (requests/s)": sent.get(r, math.nan), "answers (requests/s)": got[r],
                         "answers / asked (%)": got[r] / r * 100, "mean latency (ms)": lat.get(r, math.nan) * 1e3})  # fmt: skip
    fig, (left, right) = _figure(ncols=2, width=5.5)
    hue = "series" if runs["series"].nunique() > 1 else None
    plots.rate_kept(runs, x=col, hue=hue, ax=left)
    left.set_title("Answers against the rate asked")
    plots.latency_vs_load(runs.assign(_lat_ms=_floats(runs, "latency_used_s") * 1e3), x=col, y="_lat_ms", hue=hue,
                          ax=right)  # fmt: skip
    right.set_ylabel("mean latency (ms)")
    right.set_title("Mean latency")
    if right.get_legend() is not None:
        right.get_legend().remove()
    s.add(fig)
    s.add(pd.DataFrame(rows))
    s.save(output_dir, "open_loop")
    return s


def _one_load_column(table: pd.DataFrame, prefix: str, name: str, keep: Sequence[str] = ()) -> pd.DataFrame:
    """Columns ``<prefix><load>`` of series with different loads (concurrency, rate) as one column of words.

    >>> t = pd.DataFrame({"knee concurrency": [4.0, None], "knee rate": [None, 150.0]})
    >>> _one_load_column(t, "knee ", "knee")["knee"].tolist()
    ['concurrency 4', 'rate 150']
    """
    cols = [c for c in table.columns if c.startswith(prefix) and c not in keep]
    if len(cols) < 2:
        return table
    words = [
        next((f"{c[len(prefix) :]} {v:,.10g}" for c in cols if pd.notna(v := row[c])), "")
        for _, row in table[cols].iterrows()
    ]
    at = table.columns.get_loc(cols[0])
    out = table.drop(columns=cols)
    out.insert(at, name, words)
    return out


# --------------------------------------------------------------------- knee ---
def knee_section(runs: Any, load: str = "concurrency", group: str | None = None) -> Section:
    """The load past which throughput stops growing, per series, and whether latency keeps rising (the study's).

    ``runs``: the Dataset (its study, :func:`study_of`) or a runs table.
    """
    from ..analysis.engine import study

    title = "Saturation knee"
    frame = runs.runs if hasattr(runs, "runs") and not isinstance(runs, pd.DataFrame) else runs
    if not len(http_runs(frame)):
        return Section.empty(title, ABSENT["http"])
    st = _series_study(runs, load, group) if not isinstance(runs, pd.DataFrame) else study(runs, load=load, group=group)
    knees = st.knees
    if not len(knees):
        return Section.empty(title, ABSENT["knee"].format(load=_words_of(load)))
    table = knees.set_index("series")
    s = Section(title, intro=INTROS["knee"])
    n_series = len(st.verdicts)
    if len(knees) < n_series:
        s.add(f"{len(knees)} of {_plural(n_series, 'series')} ran at three {_words_of(load)} values or more: a "
              "knee is looked for only in those.")  # fmt: skip
    if not table["significant"].any() and table["saturated"].any():
        s.add("Each load ran once: the run-to-run noise is unknown, so no knee is called significant.")
    shown = _one_load_column(table.copy(), "knee ", "knee")
    shown = _one_load_column(shown, "best ", "best at", keep=("best req/s",))
    for col in ("saturated", "latency_rising", "significant"):
        if col in shown:
            shown[col] = shown[col].map({True: "yes", False: "no"}).fillna("")
    return s.add(shown.rename(columns={"latency_rising": "latency rising"}))


# ------------------------------------------------------------------- series ---
_MAX_SERIES = 12  # series given a subsection of their own
_MAX_SERIES_CHARTS = 4  # with more, the series get no chart of their own (the scaling chart draws them)


def series_table_of(runs: pd.DataFrame, load: str = "concurrency") -> pd.DataFrame:
    """One series' runs by load: how many, mean throughput, mean latency, failures (the study's ``errors``,
    failed or not 2xx, where the runs carry them; else the tool's ``failed``).

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
            "failed": pd.to_numeric(runs["errors"] if "errors" in runs else runs.get("failed"), errors="coerce"),
        }
    ).dropna(subset=[load])
    out = data.groupby(load).agg(
        runs=("requests_per_s", "size"),
        requests_per_s=("requests_per_s", "mean"),
        latency_mean_s=("latency_mean_s", "mean"),
        failed=("failed", "sum"),
    )
    out["failed"] = out["failed"].astype("Int64")
    out = out.reset_index()
    return out.rename(columns={"failed": "failed or not 2xx"}) if "errors" in runs else out


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
    from .. import plots
    from ..formatting import header

    title = "Series, one by one"
    if not len(http_runs(ds.runs)):
        return Section.empty(title, ABSENT["http"])
    st = study_of(ds, link_capacity, iperf, threshold, load, group)
    http = st.runs.dropna(subset=["series"])
    # each series by its own load: the concurrency, or the rate asked of a fixed-rate tool
    own = _own_loads(st).to_dict()
    loads = pd.Series(
        {n: _floats(g, own.get(n, load)).nunique() if own.get(n, load) in g else 0 for n, g in http.groupby("series")},
        dtype=int,
    )
    if not (loads >= 2).any():
        return Section.empty(title, ABSENT["loads"].format(load=_words_of(load)))
    many = loads[loads >= 2].sort_values(ascending=False)
    shown = list(many.index[:_MAX_SERIES])
    v = st.verdicts.set_index("series")
    s = Section(title, intro=INTROS["series"], level=3)
    s.add(
        f"{len(many)} of {http['series'].nunique()} series ran at two loads or more"
        + (f"; the {len(shown)} with the most loads are shown." if len(shown) < len(many) else ".")
        + (" Their throughput and latency are drawn together in the section on load above."
           if len(shown) > _MAX_SERIES_CHARTS else "")
    )  # fmt: skip
    for i, name in enumerate(shown):
        g = http[http["series"] == name]
        col = own.get(name, load)
        s.add(f"### {name}")
        if name in v.index:
            verdict, confidence = str(v.loc[name, "verdict"]), str(v.loc[name, "confidence"])
            resource = str(v.loc[name, "resource"] or "") if "resource" in v else ""
            said = verdict.capitalize() + (f", {resource}" if resource else "")
            said += f" ({confidence} confidence)" if confidence not in ("", verdict) else ""
            s.add(f"{said}: {v.loc[name, 'evidence']}.")
        table = series_table_of(g, col)
        if len(shown) > _MAX_SERIES_CHARTS:  # the chart of all series above draws them; the tables say the rest
            s.add(table)
            continue
        fig, (ax1, ax2) = _figure(ncols=2, width=7.0, height=2.6)
        xlabel = header(col)  # the load with its unit: "rate asked (requests/s)", "concurrency"
        ax1.plot(table[col], table["requests_per_s"], "o-", color=f"C{i % 10}", label="mean requests/s")
        ax1.set(xlabel=xlabel, ylabel="requests per second")
        plots.plain_ticks(ax1)
        ax1.legend(fontsize="small")
        if table["latency_mean_s"].notna().any():
            ax2.plot(table[col], table["latency_mean_s"] * 1e3, "o-", color=f"C{i % 10}", label="mean latency")
            ax2.set(xlabel=xlabel, ylabel="mean latency (ms)")
            plots.plain_ticks(ax2)
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
    s = Section(title, intro=INTROS["verdicts"])
    s.add(f"Each verdict names its figures; thresholds: {thresholds_text(**st.thresholds)}.")
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
    return f"measured by {_plural(n, 'iperf run')} {where}, per path (TCP tests; payload against goodput)"


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
    from ..analysis.engine import files_from
    from ..analysis.series import common_folder

    st = study_of(ds, link_capacity, iperf, threshold, load, group)
    http = st.runs
    root = common_folder(ds.runs)  # iperf files named from the folder read, as the verdicts name them
    has_cap = len(http) and http["capacity_bits_per_s"].notna().any()
    if not has_cap and not len(st.paths) and parse_capacities(link_capacity) is None:
        return Section.empty(title, ABSENT["capacity"])
    source = _capacity_words(st, link_capacity, iperf)
    if not len(http):
        return Section(title).add(f"Link capacity {source}; no HTTP runs to compare with it.").add(st.paths)
    s = Section(title, intro=INTROS["network"])
    s.add(f"Capacity {source}; a run is network-bound at {threshold:.0%} of its path's capacity or more, and a "
          f"run above {st.thresholds['mismatch_above']:.0%} is a capacity mismatch (the capacity belongs to "
          "another path).")  # fmt: skip
    if len(st.paths):
        s.add(f"iperf measured {_plural(len(st.paths), 'path')}; each HTTP run is compared with the path to its own "
              "host:")  # fmt: skip
        matched = pd.to_numeric(http["utilisation"], errors="coerce").notna().any()
        paths = _paths_table(st.paths)
        s.add(paths if matched or len(paths) <= 5 else Collapsed(paths))
    u = pd.to_numeric(http["utilisation"], errors="coerce")
    over = st.thresholds["mismatch_above"]
    mismatch, unmatched = (u > over).to_numpy(bool), u.isna().to_numpy(bool)
    bound = (u >= threshold) & ~(u > over)
    parts = [
        f"{int(bound.sum())} of {_plural(len(http), 'run')} network-bound."
        if bound.any()
        else f"No run reaches {threshold:.0%} of its path: none is network-bound."
    ]
    if mismatch.any():
        parts.append(f"{_plural(int(mismatch.sum()), 'run')} carried more than the capacity matched to their path: capacity "
                     "mismatch, not a verdict.")  # fmt: skip
    if unmatched.any():
        parts.append(f"{_plural(int(unmatched.sum()), 'run')} have no measured path to their host: no utilisation"
                     + (" (not listed)." if (~unmatched).any() else "."))  # fmt: skip
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
            "utilisation (%)": (u * 100).to_numpy(),
            "bound by": ["capacity mismatch" if m else "network" if b else "" for m, b in zip(mismatch, bound,
                                                                                            strict=True)],
            "why": [
                f"{format_bits_per_s(w)} ({b}) against {format_bits_per_s(c)} for its path ({files_from(src, root)})"
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
        first = shown.head(30)
        names = _file_names(http["source"].astype(str).tolist())
        per_file = http.groupby(http["source"].astype(str))["run"].transform("nunique").to_numpy()
        label = pd.Series([f"{n} (run {r})" if k > 1 else n for n, r, k in zip(names, http["run"], per_file,
                                                                                 strict=True)])  # fmt: skip
        labelled = first.assign(label=label[~unmatched].head(30).to_numpy(),
                                utilisation=first["utilisation (%)"] / 100,
                                network_bound=(first["bound by"] == "network").to_numpy())  # fmt: skip
        plots.utilisation(labelled, x="label", threshold=threshold, ax=ax)
        ax.set_title("Share of each run's path capacity used")
        ax.set_xlabel("")
        ax.tick_params(axis="x", labelrotation=30)
        for tick in ax.get_xticklabels():
            tick.set_horizontalalignment("right")
        if len(shown) > 30:
            s.add(f"The chart shows the first 30 of {len(shown)} runs with a utilisation.")
        s.add(fig)
    if len(shown):
        s.add(shown.reset_index(drop=True))
    s.save(output_dir, "utilisation")
    return s


def _paths_table(paths: pd.DataFrame) -> pd.DataFrame:
    """The study's iperf paths for people: the runs counted, their files named in short (three at most).

    >>> t = _paths_table(pd.DataFrame({"n_runs": [4], "consistent": [True], "tests": ["/x/a.json, /x/b.json, "
    ...                                "/x/c.json, /x/d.json"]}))
    >>> t.to_dict("records")
    [{'iperf runs': 4, 'consistent': 'yes', 'tests': 'a.json, b.json, c.json and 1 more'}]
    """
    out = paths.rename(columns={"n_runs": "iperf runs"}).copy()
    if "consistent" in out:
        out["consistent"] = out["consistent"].map({True: "yes", False: "no"}).fillna("")
    if "tests" in out:

        def short(text: Any) -> str:
            names = [os.path.basename(t.strip()) for t in str(text or "").split(",") if t.strip()]
            return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")

        out["tests"] = out["tests"].map(short)
    return out


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
    from ..formatting import fmt

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
    s = Section(title, intro=INTROS["compare"])
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
        s.add(f"{verdict}." if verdict else f"{r.b} against {r.a}: ratio {fmt(r.ratio, '', decimals=2)}")
    table = table.drop(columns=[c for c in ("verdict",) if c in table])
    fig, (ax,) = _figure(width=max(5.0, 1.2 * len(levels)))
    plots.throughput_bars(http, x=group, y=y, ax=ax)
    s.add(fig)
    s.add(table)
    s.save(output_dir, "comparison")
    return s


# ---------------------------------------------------------- load balancer ---
#: The per-server columns of the balance table shown (the per-backend figures are in the sentence above it).
_BALANCE_SHOWN = ("server", "weight", "requests", "share", "weight_share", "share_ratio", "queue_max", "queue_time_s",
                  "sessions_max", "sessions_limit", "limit_reached", "errors", "hrsp_5xx", "status")  # fmt: skip


def _balance_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The per-server rows of a balance table for people: a yes/no for the limit, no per-backend repeats."""
    out = table[[c for c in _BALANCE_SHOWN if c in table]].reset_index(drop=True)
    if "limit_reached" in out:
        out["limit_reached"] = out["limit_reached"].map({True: "yes", False: "no"}).fillna("")
    for col in ("share", "weight_share"):
        if col in out:
            out[col] = pd.to_numeric(out[col], errors="coerce") * 100
    return out.rename(columns={"share": "share (%)", "weight_share": "weight share (%)", "limit_reached":
                               "maxconn reached", "share_ratio": "share / weight share", "hrsp_5xx": "5xx responses"})  # fmt: skip


def _backend_sentence(where: str, proxy: str, rows: pd.DataFrame) -> str:
    """One sentence of computed figures about one backend of one snapshot (or one run)."""
    from ..formatting import fmt

    first = rows.iloc[0]
    at_limit = int(rows["limit_reached"].sum())
    queued = pd.to_numeric(rows["queue_max"], errors="coerce").max() if "queue_max" in rows else float("nan")
    spread = (f", busiest over least busy {fmt(first['max_min'], '', decimals=2)}"
              if pd.notna(first["max_min"]) and math.isfinite(first["max_min"]) else "")  # fmt: skip
    return (
        f"{where}backend `{proxy}`: {len(rows)} servers, requests counted by {first['counted_by']}; Jain's index "
        f"of the per-weight load {fmt(first['jain'], '', decimals=3)} (1 = as the weights ask){spread}; "
        f"{at_limit} of {len(rows)} servers reached their maxconn; longest server queue {fmt(queued, '')}."
    )


def _pairable(runs: pd.DataFrame, servers: pd.DataFrame) -> pd.DataFrame:
    """The runs :func:`lbanalysis.analysis.balance.balance_per_run` can pair with snapshots: the snapshots,
    and test runs in a transcript that holds some or with a start time when some snapshot has one."""
    stats = runs[(runs["tool"] == "haproxy").to_numpy(bool)]
    with_servers = set(servers["source"].astype(str))
    stats = stats[stats["source"].astype(str).isin(with_servers).to_numpy(bool)]
    if not len(stats):
        return runs.iloc[0:0]
    timed = "timestamp" in runs and stats["timestamp"].notna().any()
    tests = runs["tool"] != "haproxy"
    near = runs["source"].astype(str).isin(set(stats["source"].astype(str)))
    if timed:
        near = near | runs["timestamp"].notna()
    return runs[((~tests) | (tests & near)).to_numpy(bool)]


def _paired_snapshots(runs: pd.DataFrame, servers: pd.DataFrame) -> set[tuple[str, Any]]:
    """The (source, run) of every snapshot taken just before or after a load-test run, paired as
    :func:`lbanalysis.analysis.balance.balance_per_run` pairs them."""
    from ..analysis.balance import pair_by_time, pair_in_transcript

    runs = runs if "timestamp" in runs else runs.assign(timestamp=pd.NaT)
    snapshots = servers[["source", "run"]].drop_duplicates().astype({"source": str})
    stats = runs[runs["tool"] == "haproxy"][["source", "run", "timestamp"]].astype({"source": str})
    stats = stats.merge(snapshots, on=["source", "run"])
    out: set[tuple[str, Any]] = set()
    for _, r in runs[runs["tool"] != "haproxy"].iterrows():
        pair = pair_in_transcript(r, stats) or pair_by_time(r, stats)
        for snap in pair or ():
            out.add((str(snap["source"]), snap["run"]))
    return out


def _snapshot_key(table: pd.DataFrame) -> tuple:
    """What makes two balance tables the same: each server's backend, name, requests and weight."""
    cols = [c for c in ("proxy", "server", "requests", "weight") if c in table]
    return tuple(map(tuple, table[cols].astype(str).to_numpy()))


def load_balancer_section(ds: Any) -> Section:
    """HAProxy statistics: per load-test run where snapshots bracket it, and each distinct snapshot once.

    Where a transcript or the snapshots' times (a manifest, as ``lbanalysis
    sweep`` writes) place snapshots just before and after a load-test run,
    the run's own figures (:func:`lbanalysis.analysis.balance.balance_per_run`)
    come first. Snapshots that show the same figures (one ``show stat`` saved
    as CSV, typed output, JSON and the stats page) are one table, naming
    every file. Absent (one line) when the files hold no HAProxy statistics.
    Sentences state computed values only; a backend the analysis cannot judge
    (one server, no requests) says why.
    """
    from ..analysis import balance
    from ..analysis.balance import balance_per_run

    title = "Load balancer"
    servers = getattr(ds, "servers", None)
    if servers is None or servers.empty:
        return Section.empty(title, ABSENT["haproxy"])
    s = Section(title, intro=INTROS["balance"])
    per_run = pd.DataFrame()
    pairable = _pairable(ds.runs, servers) if len(ds.runs) and "tool" in ds.runs else ds.runs.iloc[0:0]
    if len(pairable):
        try:
            per_run = balance_per_run(pairable, servers)
        except (ValueError, KeyError) as e:
            s.add(f"The snapshots around each run could not be paired: {e}.")
    sources = list(dict.fromkeys(servers["source"].astype(str)))
    short = dict(zip(sources, _short_sources(sources), strict=True))
    per_run_keys: set[tuple] = set()
    if len(per_run):
        n = len(per_run[["run_source", "run_run"]].drop_duplicates())
        s.add("### Per load-test run")
        s.add(f"{_plural(n, 'run')} with a snapshot just before and just after {'it' if n == 1 else 'each'}: "
              "the requests each server was given during the run.")  # fmt: skip
        rows = []
        tools = ds.runs.astype({"source": str}).set_index(["source", "run"])["tool"].to_dict()
        tests = ds.runs[ds.runs["tool"] != "haproxy"].groupby(ds.runs["source"].astype(str)).size().to_dict()
        for (src, run), part in per_run.groupby(["run_source", "run_run"], sort=False):
            tool = tools.get((str(src), run), "")
            name = f"{_short_sources([str(src)])[0]} ({tool}{f' run {run}' if tests.get(str(src), 0) > 1 else ''})"
            for proxy, b in part.groupby("proxy", sort=True):
                if str(b.iloc[0].get("note") or ""):
                    s.add(f"{name}, backend `{proxy}`: {b.iloc[0]['note']}.")
                    continue
                s.add(_backend_sentence(f"{name}, ", str(proxy), b))
                rows.append(_balance_rows(b).assign(run=name, backend=str(proxy)))
                per_run_keys.add(_snapshot_key(b))
        if rows:
            table = pd.concat(rows, ignore_index=True)
            s.add(table[["run", "backend", *[c for c in table.columns if c not in ("run", "backend")]]])
    seen: dict[tuple, list[str]] = {}
    tables: dict[tuple, pd.DataFrame] = {}
    notes: list[str] = []
    paired = _paired_snapshots(pairable, servers) if len(per_run) else set()
    if paired:
        s.add(f"The {_plural(len(paired), 'snapshot')} taken around these runs count from HAProxy's start; the "
              "runs' own figures above are their differences.")  # fmt: skip
    everyone = {(str(src), run) for src, run in servers[["source", "run"]].drop_duplicates().itertuples(index=False)}
    if paired and everyone - paired:
        s.add("### Other snapshots")
    for source, snap in servers.groupby(servers["source"].astype(str), sort=True):
        parts = list(snap.groupby("run", sort=True)) if "run" in snap else [(0, snap)]
        for i, (run, one) in enumerate(parts, 1):
            if (source, run) in paired:
                continue
            name = short[source] + (f" (snapshot {i} of {len(parts)})" if len(parts) > 1 else "")
            try:
                table = balance(one)
            except ValueError as e:
                notes.append(f"`{name}`: {e}.")
                continue
            key = _snapshot_key(table)
            seen.setdefault(key, []).append(name)
            tables.setdefault(key, table)
    judged = [k for k in seen if (tables[k]["note"].fillna("").astype(str) == "").any() and k not in per_run_keys]
    if any(len(seen[k]) > 1 for k in judged):
        s.add(f"{_plural(sum(len(v) for v in seen.values()), 'snapshot')} in {_plural(len(seen), 'distinct form')}: "
              "files that show the same servers with the same counts are one table below.")  # fmt: skip
    unjudged: dict[tuple[str, str], list[str]] = {}  # (backend, why) -> snapshots: said once
    for key, names in seen.items():
        table = tables[key]
        where = f"`{names[0]}`" if len(names) == 1 else f"{_plural(len(names), 'file')} ({_few(names)})"
        if key in per_run_keys:  # the snapshot after a run that counted from zero: the run's table above
            s.add(f"{where}: the same counts as the load-test run above (its snapshot before counted none).")
            continue
        for proxy, rows in table.groupby("proxy", sort=True):
            if str(rows.iloc[0]["note"] or ""):
                unjudged.setdefault((str(proxy), str(rows.iloc[0]["note"])), []).extend(names)
                continue
            s.add(_backend_sentence(f"{where}, ", str(proxy), rows))
            s.add(_balance_rows(rows))
    for (proxy, why), names in unjudged.items():
        where = f"`{names[0]}`" if len(names) == 1 else f"{_plural(len(names), 'snapshot')} ({_few(names)})"
        s.add(f"Backend `{proxy}` in {where}: {why}.")
    for note in notes:
        s.add(note)
    return s


def _few(names: Sequence[str], n: int = 3) -> str:
    """The first ``n`` names and how many more.

    >>> _few(["a", "b"]), _few(["a", "b", "c", "d", "e"])
    ('a, b', 'a, b, c and 2 more')
    """
    return ", ".join(names[:n]) + (f" and {len(names) - n} more" if len(names) > n else "")
