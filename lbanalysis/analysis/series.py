"""Series: runs that can be compared, differing only in the load.

Statistics across unrelated tests are noise: a scaling curve through ab runs
against three servers, or a knee found in siege runs of two URLs, says
nothing. A *series* is the runs of one tool against one target (host, port,
path and query string) with the same settings (keep-alive, method, request
body size, content type, TLS, and the labels you attached with a path
pattern or a manifest), from one origin (an ``origin`` column, else the
folder of the file: outputs of two folders are never pooled unless you
group them), differing only in the load (``concurrency``, a fixed
``rate_target_per_s``). A run whose output does not say its target is put
in a series of its own file: runs of unknown targets are never pooled
across files. Fits, knees and
verdicts are computed within a series, and only where it has enough distinct
loads for what is asked (:data:`MIN_LOADS`).

:func:`assign_series` names each run's series (readable: ``ab
127.0.0.1:18080/ keep-alive``), :func:`series_table` says what each series
holds; ``by=`` replaces the automatic key by columns of your choice.

>>> import pandas as pd
>>> runs = pd.DataFrame({"tool": ["ab"] * 3 + ["siege"], "host": ["h"] * 4, "port": [80] * 4,
...                      "path": ["/", "/", "/x", "/"], "keepalive": [True, True, True, False],
...                      "concurrency": [1, 10, 10, 5], "requests_per_s": [5.0, 40.0, 9.0, 3.0]})
>>> assign_series(runs).tolist()
['ab h:80/ keep-alive', 'ab h:80/ keep-alive', 'ab h:80/x keep-alive', 'siege h:80/']
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .. import registry, schema

if TYPE_CHECKING:
    from ..design import Design

__all__ = [
    "LOAD_COLUMNS",
    "MIN_LOADS",
    "MIN_R2",
    "SETTING_COLUMNS",
    "as_floats",
    "assign_series",
    "common_folder",
    "fit_series",
    "rows_where",
    "series_keys",
    "series_table",
    "setting_word",
]

#: Columns that are the load of a run: they vary within a series.
LOAD_COLUMNS: tuple[str, ...] = ("concurrency", "rate_target_per_s", "threads", "requests_planned", "time_limit_s")
#: Columns of the runs table that make two runs different tests (besides tool and target).
SETTING_COLUMNS: tuple[str, ...] = ("keepalive", "method", "content_type", "tls_protocol", "http_version", "protocol")
#: Fewest distinct loads a series needs for each analysis: two parameters and a degree of freedom left for
#: a line, one more for Amdahl, two more for the USL; three for a knee.
MIN_LOADS: dict[str, int] = {"linear": 3, "amdahl": 4, "usl": 5, "knee": 3}
_TARGET = ("host", "port", "path")
#: Keys the series computes from the runs: the query string, the request body, TLS, the origin, and the
#: workload of a run whose target is in a script (its command without the load: ``registry.workload``).
_DERIVED = ("_query", "_body", "_tls", "_origin", "_workload", "_rate_mode")
# ("end_time": when a run of `lbanalysis sweep` ended, in its manifest: a time, not a setting; "test",
# "process": which test a run is a process of, and which process: lbanalysis.analysis.tests)
_NOT_LABELS = frozenset(
    {"series", "note", "notes", "comment", "comments", "description", "remark", "remarks", "file", "date", "end_time",
     "test", "process", "test_basis", "test_note"}
)  # fmt: skip


def series_keys(
    runs: pd.DataFrame, by: str | Sequence[str] | None = None, exclude: Sequence[str] = (), design: Design | None = None
) -> list[str]:
    """The columns that define a series: ``by`` if given, else tool, target, settings and your labels.

    Labels are the columns a path pattern or a manifest added that hold text
    (numbers there are usually the load or a repetition number).

    >>> series_keys(pd.DataFrame({"tool": [], "host": [], "concurrency": [], "setup": pd.Series([], dtype=str)}))
    ['tool', 'host', 'setup']
    """
    if by is not None:
        keys = [by] if isinstance(by, str) else list(by)
        missing = [k for k in keys if k not in runs.columns]
        if missing:
            raise KeyError(f"series key column(s) not in the runs table: {', '.join(missing)}")
        return keys
    keys = [c for c in ("tool", *_TARGET, *_DERIVED, *SETTING_COLUMNS) if c in runs.columns and c not in exclude]
    if design is not None:
        return _design_keys(runs, keys, exclude, design)
    return keys + _labels(runs, exclude)


def _design_keys(runs: pd.DataFrame, keys: list[str], exclude: Sequence[str], design: Design) -> list[str]:
    """The keys where the experiment's design says what sets runs apart: its setups and kept-apart scales; the
    folders are read as factors instead of being an origin (an ``origin`` column given stays a key)."""
    if (not design.declared or design.pattern) and "origin" not in runs.columns:
        keys = [k for k in keys if k != "_origin"]  # the names (or a pattern) say what the folders are
    split = [c for c in (*design.setup_columns, *design.scale_columns[1:]) if c in runs.columns]
    return keys + [c for c in split if c not in exclude and c not in keys]


def _labels(runs: pd.DataFrame, exclude: Sequence[str]) -> list[str]:
    """The columns a path pattern or a manifest added that hold text (not numbers, not remarks)."""
    return [
        c
        for c in runs.columns
        if c not in schema.RUNS
        and not c.startswith("_")
        and c.lower() not in _NOT_LABELS
        and c not in exclude
        and not pd.api.types.is_numeric_dtype(runs[c])
        and not _prose(runs[c])
    ]


def _prose(values: pd.Series) -> bool:
    """A column of remarks (four words or more in some value), not a label that sets runs apart."""
    text = values.dropna().astype(str)
    return bool(len(text)) and bool(text.str.split().str.len().max() >= 4)


def _target_words(row: Mapping[str, Any], keys: list[str]) -> str:
    """host:port/path?query of a run, as far as the series keys hold them (empty: not shown)."""
    target = ""
    if "host" in keys and pd.notna(row.get("host")):
        target = str(row["host"])
        if "port" in keys and pd.notna(row.get("port")):
            target += f":{int(row['port'])}"
    if "path" in keys and pd.notna(row.get("path")):
        target += str(row["path"])
    if "_query" in keys and row.get("_query") and "?" not in target:
        target += "?" + str(row["_query"])
    return target


#: How a series name shows the keys it computes (None: not shown; a key set to a false value is not shown either).
_KEY_WORDS = {
    "_query": None,
    "_origin_shown": None,
    "_workload": None,
    "_body": lambda v: f"sends ~{float(v):,.0f} B/request",
    "_tls": lambda v: "TLS",
    "_origin": lambda v: f"[{v}]",
    "_rate_mode": lambda v: str(v),
}


def setting_word(k: str, v: object, parts: list[str]) -> str:
    """How a series name shows one setting (empty: not at all; ``parts``: the words of the name so far).

    >>> setting_word("keepalive", True, []), setting_word("cpu", 16.0, []), setting_word("path[0]", "bun", [])
    ('keep-alive', 'cpu=16', 'bun')
    """
    if k == "keepalive":
        return "keep-alive" if bool(v) else ""
    if k in _KEY_WORDS:
        show = _KEY_WORDS[k]
        return show(v) if show is not None and v else ""
    if (k == "method" and str(v) == "GET") or str(v) in parts or str(v) == "":
        return ""
    if isinstance(v, (int, float, np.number)) and not isinstance(v, bool) and k not in schema.RUNS:
        return f"{_short(k)}={v:g}"  # a number of the design: its name beside it (cpu=16, try=2)
    return str(v)


def _short(k: str) -> str:
    """A factor's name as a series name shows it (``cpu (file)`` -> ``cpu``; ``path[1]#1`` -> ``path[1]``)."""
    import re

    return re.sub(r"\s*\(.*\)$|#\d+$", "", k)


def _label(row: Mapping[str, Any], keys: list[str], by_design: bool = False) -> str:
    """A readable series name: tool, host:port/path, then the settings that are set (``by_design``: the files'
    names were read as the design, so a run without a target is not a series of its own file)."""
    parts = []
    if "tool" in keys and pd.notna(row.get("tool")):
        parts.append(str(row["tool"]))
    target = _target_words(row, keys)
    if target:
        parts.append(target)
    elif row.get("_workload"):
        parts.append(f"({row['_workload']})")  # target in a script: the command without its load
    elif by_design:
        parts.append("(target not shown)")
    elif "source" in row and pd.notna(row.get("source")):
        parts.append(f"({os.path.basename(str(row['source']))})")  # target unknown: its own file
    for k in keys:
        v = row.get(k)
        if k in ("tool", *_TARGET) or v is None or (not isinstance(v, str) and pd.isna(v)):
            continue
        word = setting_word(k, v, parts)
        if word:
            parts.append(word)
    return " ".join(parts) or "all runs"


def assign_series(
    runs: pd.DataFrame, by: str | Sequence[str] | None = None, exclude: Sequence[str] = (), design: Design | None = None
) -> pd.Series:
    """Each HTTP load-test run's series name (``<NA>`` for link tests and statistics snapshots).

    ``exclude`` names columns left out of the automatic key (the column two
    setups are compared by, so that the same test on each side is one series).

    >>> runs = pd.DataFrame({"tool": ["ab", "ab", "iperf3"], "host": ["a", "b", "a"], "concurrency": [1, 1, None]})
    >>> assign_series(runs).tolist()
    ['ab a', 'ab b', <NA>]
    >>> assign_series(runs, by="tool").tolist()
    ['ab', 'ab', <NA>]
    """
    if by is None:
        runs = with_identity(runs, exclude)
    keys = series_keys(runs, by, exclude, design)
    http = runs["tool"].isin(registry.names(kind="http-load")) if "tool" in runs else pd.Series(True, runs.index)
    out = pd.Series(pd.NA, index=runs.index, dtype="string", name="series")
    if not http.any():
        return out
    if by is not None:
        sub = runs.loc[http, keys].astype("string").fillna("")
        out[http] = sub.agg(" ".join, axis=1).str.strip().replace("", "all runs")
        return out
    by_design = design is not None and (not design.declared or design.pattern)
    shown = [c for c in dict.fromkeys((*keys, "tool", "_workload", "source", *_TARGET, "_query")) if c in runs]
    # a record per run of the columns a name shows, not a Series of its hundred and ninety (7,000 runs: seconds)
    out[http] = [_label(row, keys, by_design) for row in runs.loc[http, shown].to_dict("records")]
    return out


def with_identity(runs: pd.DataFrame, exclude: Sequence[str] = ()) -> pd.DataFrame:
    """The runs with the keys a series adds: ``_query`` (of the URL), ``_body`` (bytes sent per request),
    ``_tls``, ``_origin`` (an ``origin`` column, else the file's folder when the runs come from several).

    >>> runs = pd.DataFrame({"tool": "wrk", "url": ["http://h/slow", "http://h/slow?ms=1500"],
    ...                      "host": "h", "path": "/slow", "source": ["a/x.txt", "b/y.txt"]})
    >>> with_identity(runs)[["_query", "_tls", "_origin"]].values.tolist()
    [['', False, 'a'], ['ms=1500', False, 'b']]
    """
    out = runs.copy()
    url = out["url"].astype("string") if "url" in out else pd.Series(pd.NA, index=out.index, dtype="string")
    out["_query"] = url.str.extract(r"\?([^#]*)", expand=False).fillna("").astype(str)
    # a request body sets a workload apart (ab -p); a GET's bytes are its headers, which tools count unevenly
    # (bombardier's bytes written include requests that timed out): no key there
    sends = out["method"].astype("string").str.upper().isin(["POST", "PUT", "PATCH"]).fillna(False) if (
        "method" in out) else pd.Series(True, index=out.index)  # fmt: skip
    out["_body"] = _body_bytes(out).fillna(0.0).where(sends.to_numpy(bool), 0.0)
    tls = url.str.lower().str.startswith("https://").fillna(False)
    if "tls_protocol" in out:
        tls |= out["tls_protocol"].notna()
    out["_tls"] = tls.astype(bool)
    if "_origin" not in out:
        out["_origin"] = origins_of(out, "folder") if "source" in out else ""
    out["_workload"] = _workloads(out)
    out["_rate_mode"] = _rate_modes(out)
    for c in exclude:
        if c in ("origin", "_origin"):
            out["_origin"] = ""
    return out


def series_table(runs: pd.DataFrame, by: str | Sequence[str] | None = None, load: str = "concurrency") -> pd.DataFrame:
    """One row per series: its runs, distinct loads, the load range, and what it is enough for.

    ``enough for`` lists the analyses of :data:`MIN_LOADS` its distinct loads allow.

    >>> runs = pd.DataFrame({"tool": "ab", "host": "h", "concurrency": [1, 2, 4, 8, 16, 16]})
    >>> series_table(runs).loc[0, ["series", "runs", "loads", "enough for"]].tolist()
    ['ab h', 6, 5, 'linear, amdahl, usl, knee']
    """
    names = assign_series(runs, by)
    data = runs.assign(series=names).dropna(subset=["series"])
    rows = []
    for name, g in data.groupby("series", sort=True):
        x = pd.to_numeric(g[load], errors="coerce") if load in g else pd.Series(dtype=float)
        n_loads = int(x.nunique())
        rows.append(
            {
                "series": name,
                "tool": g["tool"].iloc[0] if "tool" in g else None,
                "runs": len(g),
                "loads": n_loads,
                f"min {load}": x.min() if n_loads else None,
                f"max {load}": x.max() if n_loads else None,
                "enough for": ", ".join(k for k, n in MIN_LOADS.items() if n_loads >= n) or "no curve (too few loads)",
            }
        )
    return pd.DataFrame(rows, columns=["series", "tool", "runs", "loads", f"min {load}", f"max {load}", "enough for"])


#: Share of the variance a fit must explain to be drawn and quoted (below it: "no model fits these points").
MIN_R2 = 0.8


def fit_series(
    runs: pd.DataFrame,
    *,
    load: str = "concurrency",
    y: str = "requests_per_s",
    model: str = "usl",
    by: str | Sequence[str] | None = None,
    min_r2: float = MIN_R2,
) -> tuple[pd.DataFrame, dict[str, object]]:
    """Fit ``model`` within each series that has enough distinct loads; say why not elsewhere.

    Returns a table (one row per series: ``series``, ``loads``, ``model``,
    ``r2``, ``fitted``, ``verdict`` in words, and the peak for a USL) and the
    fits that pass (R² >= ``min_r2``, by series name), which alone should be
    drawn or quoted.

    >>> runs = pd.DataFrame({"tool": "ab", "host": "h", "concurrency": [1, 2, 4, 8, 16],
    ...                      "requests_per_s": [100.0, 190, 345, 580, 880]})
    >>> table, fits = fit_series(runs, model="amdahl")
    >>> table.loc[0, ["series", "loads", "fitted"]].tolist(), list(fits)
    (['ab h', 5, True], ['ab h'])
    >>> fit_series(runs.head(3), model="usl")[0].loc[0, "verdict"]
    'too few loads for a usl fit: 3 (it needs 5)'
    """
    from ..errors import FitError
    from .fits import fit_scaling

    names = assign_series(runs, by)
    fitted = [c for c in dict.fromkeys([load, y]) if c in runs]  # all a fit reads: far cheaper to cut per series
    data = runs[fitted].assign(series=names).dropna(subset=["series"])
    need = MIN_LOADS.get(model, 3)
    rows, good = [], {}
    for name, g in data.groupby("series", sort=True):
        x = pd.to_numeric(g[load], errors="coerce") if load in g else pd.Series(dtype=float)
        yy = pd.to_numeric(g[y], errors="coerce") if y in g else pd.Series(dtype=float)
        n_loads = int(x[yy.notna()].nunique())
        row: dict = {"series": name, "loads": n_loads, "model": model, "r2": None, "fitted": False}
        if n_loads < need:
            row["verdict"] = f"too few loads for a {model} fit: {n_loads} (it needs {need})"
            rows.append(row)
            continue
        try:
            fit = fit_scaling(g, x=load, y=y, model=model)
        except FitError as e:
            row["verdict"] = f"no {model} fit: {e}"
            rows.append(row)
            continue
        r2 = float(fit.rsquared)
        row["r2"] = r2
        if r2 >= min_r2:
            row["fitted"] = True
            row["verdict"] = f"{model} fits (R² {r2:.2f}, {n_loads} loads)"
            if model == "usl":
                row["peak load"] = float(fit.n_peak)
                row["peak req/s"] = float(fit.x_peak)
            good[name] = fit
        else:
            row["verdict"] = f"no model fits these points (R² {r2:.2f} < {min_r2:g})"
        rows.append(row)
    cols = ["series", "loads", "model", "r2", "fitted", "verdict"]
    table = pd.DataFrame(rows)
    return (
        table[[*cols, *[c for c in table.columns if c not in cols]]] if len(table) else pd.DataFrame(columns=cols)
    ), good


def origins_of(runs: pd.DataFrame, origin: str | None) -> pd.Series:
    """Each run's origin: the ``origin`` column, else the folder of its file (relative to the common folder)."""
    if origin in (None, "none") or "source" not in runs:
        return pd.Series("", index=runs.index, dtype=object)
    if origin != "folder":
        if origin not in runs:
            raise KeyError(f"origin={origin!r}: no such column in the runs (use 'folder', 'none' or a column)")
        return runs[origin].astype("string").fillna("").astype(str)
    if "origin" in runs:
        return runs["origin"].astype("string").fillna("").astype(str)
    folders = runs["source"].astype(str).map(lambda s: os.path.dirname(s) if s != "<buffer>" else "")
    root = common_folder(runs)
    if not root:
        return folders
    return folders.map(lambda f: os.path.relpath(f, root) if f else "").replace(".", "")


def common_folder(runs: pd.DataFrame) -> str:
    """The folder every run's file lies under (the origins are named from it), or ``""``.

    >>> common_folder(pd.DataFrame({"source": ["/x/logs/a/ab.txt", "/x/logs/b/iperf3.json"]}))
    '/x/logs'
    """
    if "source" not in runs:
        return ""
    folders = [f for f in {os.path.dirname(str(s)) for s in runs["source"].dropna()} if f]
    try:
        return os.path.commonpath(folders) if folders else ""
    except ValueError:  # absolute and relative paths mixed
        return ""


def _workloads(runs: pd.DataFrame) -> pd.Series:
    """Per run whose target the output does not show (a k6 or Locust script holds it): its command without the
    options that set the load, so that one script run at several loads is one series; else empty.

    >>> runs = pd.DataFrame({"tool": "k6", "host": None, "command": ["k6 run --vus 2 a.js", "k6 run --vus 8 a.js"]})
    >>> _workloads(runs).tolist()
    ['run a.js', 'run a.js']
    """
    from ..text import command_argv

    out = pd.Series("", index=runs.index, dtype=object)
    if "command" not in runs or "tool" not in runs:
        return out
    unknown = runs["host"].isna() if "host" in runs else pd.Series(True, index=runs.index)
    for i in runs.index[unknown.to_numpy(bool) & runs["command"].notna().to_numpy(bool)]:
        out[i] = registry.workload(str(runs.at[i, "tool"]), command_argv(str(runs.at[i, "command"])))
    return out


def _rate_modes(runs: pd.DataFrame) -> pd.Series:
    """Where runs of one tool against one target were asked for a fixed rate and others were not (fortio's
    ``-qps 1000`` beside ``-qps max``), which each was: "at a fixed rate" or "as fast as it can" (two ways of
    loading a server, never one series); else empty.

    >>> runs = pd.DataFrame({"tool": "fortio", "url": "http://h/", "rate_target_per_s": [1000.0, None, None]})
    >>> _rate_modes(runs).tolist()
    ['at a fixed rate', 'as fast as it can', 'as fast as it can']
    """
    out = pd.Series("", index=runs.index, dtype=object)
    if "rate_target_per_s" not in runs or "tool" not in runs:
        return out
    fixed = as_floats(runs, "rate_target_per_s").notna()
    where = runs["url"].astype("string").fillna("") if "url" in runs else pd.Series("", index=runs.index)
    key = runs["tool"].astype("string").fillna("") + " " + where
    both = fixed.groupby(key).transform("nunique") > 1
    out[both & fixed] = "at a fixed rate"
    out[both & ~fixed] = "as fast as it can"
    return out


def _body_bytes(runs: pd.DataFrame) -> pd.Series:
    """Bytes sent per request (ab's 'Total body sent': request line, headers and body), to two significant
    digits (a time-limited run's last requests in flight make the exact quotient vary); empty when unknown.

    Sizes within :data:`_BODY_TOLERANCE` of each other are one size (the smallest): a total printed rounded
    (k6's ``24 kB``) gives 80 B for one run and 81 B for the next.

    >>> _body_bytes(pd.DataFrame({"bytes_sent": [48800.0, 4891.0, None], "requests": [200, 20, 5]})).tolist()
    [240.0, 240.0, nan]
    >>> _body_bytes(pd.DataFrame({"bytes_sent": [24000.0, 8100.0, 25000.0], "requests": [300, 100, 100]})).tolist()
    [80.0, 80.0, 250.0]
    """
    sent = as_floats(runs, "bytes_sent")
    n = as_floats(runs, "requests").fillna(0) + as_floats(runs, "failed").fillna(0)
    per = sent / n.where(n > 0)
    digits = 1 - np.floor(np.log10(per.where(per > 0)))
    rounded = [round(v, int(d)) if pd.notna(v) and pd.notna(d) else np.nan for v, d in zip(per, digits, strict=True)]
    same: dict[float, float] = {}
    for v in sorted({v for v in rounded if pd.notna(v)}):
        base = max((b for b in same.values() if v <= b * (1 + _BODY_TOLERANCE)), default=None)
        same[v] = base if base is not None else v
    return pd.Series([same.get(v, np.nan) for v in rounded], index=runs.index, dtype=float)


#: Relative difference within which two runs' bytes sent per request are one size (printed rounding).
_BODY_TOLERANCE = 0.02


def as_floats(df: pd.DataFrame, col: str) -> pd.Series:
    """A column as floats (missing values, and a column the frame lacks: NaN).

    >>> as_floats(pd.DataFrame({"a": pd.array([1, None], dtype="Int64")}), "a").tolist()
    [1.0, nan]
    >>> as_floats(pd.DataFrame({"a": [1]}), "b").isna().all()
    True
    """
    if col not in df:
        return pd.Series(np.nan, index=df.index, dtype=float)
    s = df[col]
    if s.dtype == np.float64:  # already plain floats (most columns): no conversion to pay for
        return s.copy()
    if isinstance(s.dtype, pd.BooleanDtype) or s.dtype == bool:
        s = s.astype("Float64")
    return pd.to_numeric(s, errors="coerce").astype("Float64").astype(float)


def rows_where(df: pd.DataFrame, mask: pd.Series | np.ndarray) -> pd.DataFrame:
    """The rows of ``df`` where ``mask`` holds: ``df`` itself when every row does, its empty head when none does
    (the frame is not copied row by row for the many one-run series of a study).

    >>> df = pd.DataFrame({"a": [1, 2]})
    >>> rows_where(df, df["a"] > 0) is df, len(rows_where(df, df["a"] > 5)), rows_where(df, df["a"] > 1)["a"].tolist()
    (True, 0, [2])
    """
    keep = np.asarray(mask, dtype=bool)
    if keep.all():
        return df
    return df.iloc[:0] if not keep.any() else df[keep]
