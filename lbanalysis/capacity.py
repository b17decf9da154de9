"""Link capacity: what each network path can carry, from iperf runs or by hand.

A load test is network-bound when its throughput nears the capacity of the
path between the load generator and the server. This module gives that
capacity in bit/s (decimal: 1 Mbit/s = 10^6 bit/s):

* :func:`link_capacity` turns iperf / iperf3 run rows (as :func:`lbanalysis.read`
  returns them) into one capacity per path;
* :func:`capacity` and :func:`capacities` take capacities given by hand
  (``"94 Mbit/s"``, ``"1 Gbit/s"``, ``"12.5 MB/s"``, a number in bit/s) when no
  iperf run exists.

How runs become capacities
--------------------------
1. Only iperf rows count (``tool`` ``iperf`` or ``iperf3``) that have a
   throughput and no ``error`` (killed runs, failed connects, banners).
2. Each row already holds the receiver's figures when its output printed
   them (``direction`` == ``"receiver"``; the readers put the sender's in
   ``sender_bits_per_s``): what got through the path, not what was pushed
   into it. Rows with sender figures only (an iperf 2 TCP client) are used
   as they are; ``direction_used`` says which kind a path's figure rests on
   (``receiver``, ``sender``, ``mixed``, or empty when unknown).
3. Paths are directed along the data: a row printed by the receiving end
   (a server, or a client with ``-R``) has its ``local_*``/``remote_*``
   columns swapped first, so ``local_host`` is the host that **sent** and
   ``remote_host`` the one that received, whichever side wrote the file.
   ``symmetric=True`` makes the first two ``by`` columns an unordered pair
   (A->B and B->A pool together; the pair is written in sorted order).
4. Only TCP tests count (``protocol`` ``udp`` is left out: a UDP test at a
   set rate measures that rate, not the link); ``protocol=None`` keeps them.
5. The client's and the server's copy of one test (the same connection:
   both ends' hosts and ports, once turned along the data) count once, the
   receiver's figure kept.
6. Rows are grouped by ``by`` (any columns: hosts, or labels you attached
   with ``read(pattern=...)`` or a manifest) and summarised by ``stat``
   (``"median"`` by default: robust to one bad run). ``spread`` is the
   largest test over the smallest; above :data:`MAX_SPREAD` the path's
   tests disagree (``consistent`` false) and its figure should not be used.
   ``tests`` names the runs behind each figure (``file:line``).

>>> import pandas as pd
>>> runs = pd.DataFrame({
...     "tool": ["iperf3", "iperf3", "iperf3", "ab"],
...     "role": ["client", "client", "client", None],
...     "reverse": [False, False, False, None],
...     "local_host": ["10.0.0.1", "10.0.0.1", "10.0.0.1", None],
...     "remote_host": ["10.0.0.2", "10.0.0.2", "10.0.0.2", None],
...     "direction": ["receiver", "receiver", "receiver", None],
...     "bits_per_s": [94.1e6, 93.8e6, 94.3e6, None],
...     "error": [None, None, None, None],
... })
>>> cap = link_capacity(runs)
>>> cap[["local_host", "remote_host", "capacity_bits_per_s", "n_runs", "direction_used"]].to_dict("records")
[{'local_host': '10.0.0.1', 'remote_host': '10.0.0.2', 'capacity_bits_per_s': 94100000.0, 'n_runs': 3, 'direction_used': 'receiver'}]
>>> capacities({"injecteur-haproxy": "94 Mbit/s", "haproxy-web": "1 Gbit/s"}).to_dict()
{'injecteur-haproxy': 94000000.0, 'haproxy-web': 1000000000.0}
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import registry
from .errors import LBAnalysisError
from .units import parse_capacity

__all__ = ["RunCapacity", "capacities", "capacity", "capacity_parameter", "capacity_per_run", "link_capacity", "within"]

IPERF_TOOLS = registry.names(kind="network")
#: Largest ratio between the tests of one path for their figure to count as one capacity.
MAX_SPREAD = 2.0
_PAIRS = (("local_host", "remote_host"), ("local_port", "remote_port"))
_STATS = ("median", "mean", "max", "min")


def capacity(value: str | float | int) -> float:
    """A capacity in bit/s from ``"94 Mbit/s"``, ``"1 Gbit/s"``, ``"100 Mbps"``,
    ``"12.5 MB/s"`` (bytes: decimal, x 8) or a number (already bit/s).

    >>> capacity("94 Mbit/s"), capacity("1 Gbit/s"), capacity(1e8)
    (94000000.0, 1000000000.0, 100000000.0)
    >>> capacity("fast")
    Traceback (most recent call last):
    ...
    lbanalysis.errors.LBAnalysisError: not a link capacity: 'fast' (expected e.g. '94 Mbit/s', '1 Gbit/s', '100 Mbps' or a number in bit/s)
    """
    if isinstance(value, bool):
        raise LBAnalysisError(f"not a link capacity: {value!r}")
    try:
        v = parse_capacity(value)
    except (ValueError, TypeError, AttributeError) as e:
        raise LBAnalysisError(str(e) if isinstance(e, ValueError) else f"not a link capacity: {value!r}") from None
    if not v >= 0:
        raise LBAnalysisError(f"a link capacity must be a positive number of bit/s, not {value!r}")
    return v


_rate = capacity  # the parser, under a name the per-run function's `capacity` argument does not hide


def capacity_parameter(text: str | float | None) -> str | float | dict[str, str] | None:
    """A capacity as a command or notebook parameter: one rate for every path, or ``host=rate`` pairs.

    >>> capacity_parameter("1 Gbit/s"), capacity_parameter("lb1=1 Gbit/s, 10.0.0.2=100 Mbit/s")
    ('1 Gbit/s', {'lb1': '1 Gbit/s', '10.0.0.2': '100 Mbit/s'})
    """
    if not isinstance(text, str) or "=" not in text:
        return text
    pairs = [p.split("=", 1) for p in text.split(",") if p.strip()]
    if any(len(p) != 2 or not p[0].strip() for p in pairs):
        raise LBAnalysisError(
            f"capacity {text!r}: give one rate ('1 Gbit/s') or host=rate pairs ('lb1=1 Gbit/s, lb2=10 Gbit/s')"
        )
    return {h.strip(): r.strip() for h, r in pairs}


def capacities(values: Mapping[object, str | float | int] | Iterable[tuple[object, str | float | int]]) -> pd.Series:
    """Capacities given by hand, as a Series of bit/s indexed by path name.

    Keys are whatever names your analysis uses for paths (``"injecteur-haproxy"``,
    or ``(local_host, remote_host)`` tuples, which give a two-level index).

    >>> s = capacities({"injecteur-haproxy": "94 Mbit/s", "haproxy-web": 1e9})
    >>> s.name, s.index.name, s["injecteur-haproxy"]
    ('capacity_bits_per_s', 'path', 94000000.0)
    >>> capacities({("10.0.0.1", "10.0.0.2"): "100 Mbps"}).index.names
    FrozenList(['local_host', 'remote_host'])
    """
    items = list(values.items()) if isinstance(values, Mapping) else list(values)
    keys = [k for k, _ in items]
    data = [capacity(v) for _, v in items]
    if keys and all(isinstance(k, tuple) and len(k) == 2 for k in keys):
        index: pd.Index = pd.MultiIndex.from_tuples(keys, names=["local_host", "remote_host"])
    else:
        index = pd.Index(keys, name="path")
    return pd.Series(data, index=index, name="capacity_bits_per_s", dtype="float64")


def _usable(runs: pd.DataFrame) -> pd.DataFrame:
    keep = pd.Series(True, index=runs.index)
    if "tool" in runs:
        keep &= runs["tool"].isin(IPERF_TOOLS).fillna(False).astype(bool)
    if "error" in runs:
        err = runs["error"]
        keep &= (err.isna() | (err.astype("string").str.strip() == "")).fillna(True).astype(bool)
    keep &= runs["bits_per_s"].notna()
    return runs.loc[keep]


def _orient(df: pd.DataFrame) -> pd.DataFrame:
    """Swap local/remote on rows printed by the receiving end of the data."""
    if "role" not in df:
        return df
    role = df["role"].astype("string")
    rev = df["reverse"].astype("boolean").fillna(False) if "reverse" in df else pd.Series(False, index=df.index)
    flip = (((role == "server") & ~rev) | ((role == "client") & rev)).fillna(False).astype(bool)
    if not flip.any():
        return df
    df = df.copy()
    for a, b in _PAIRS:
        if a in df and b in df:
            left = df.loc[flip, a].copy()
            df.loc[flip, a] = df.loc[flip, b].to_numpy()
            df.loc[flip, b] = left.to_numpy()
    return df


def _direction_used(s: pd.Series) -> object:
    vals = set(s.dropna().astype(str))
    if not vals:
        return pd.NA
    return vals.pop() if len(vals) == 1 else "mixed"


def _unordered(df: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """Columns ``a`` and ``b`` as an unordered pair: the smaller value (as text) in ``a``.

    >>> _unordered(pd.DataFrame({"x": ["h2", "h1"], "y": ["h1", "h2"]}), "x", "y").values.tolist()
    [['h1', 'h2'], ['h1', 'h2']]
    """
    swap = (df[a].astype("string") > df[b].astype("string")).fillna(False).astype(bool)
    lo, hi = df[a].copy(), df[b].copy()
    lo[swap], hi[swap] = df.loc[swap, b], df.loc[swap, a]
    df[a], df[b] = lo, hi
    return df


def _tests(g: pd.DataFrame) -> str:
    """The runs behind a figure, as ``file:line`` (``file#run`` without a line).

    >>> _tests(pd.DataFrame({"source": ["a/x.txt", "a/x.txt"], "line": [3, 40], "run": [0, 1]}))
    'a/x.txt:3, a/x.txt:40'
    """
    if "source" not in g:
        return ""
    lines = g["line"] if "line" in g else pd.Series(pd.NA, index=g.index)
    runs = g["run"] if "run" in g else pd.Series(pd.NA, index=g.index)
    return ", ".join(
        f"{s}:{int(ln)}" if pd.notna(ln) else f"{s}#{int(r)}" if pd.notna(r) else str(s)
        for s, ln, r in zip(g["source"], lines, runs, strict=True)
    )


def _one_copy_per_test(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """The client's and the server's copy of one test once (same connection once turned), the receiver's kept."""
    conn = [c for pair in _PAIRS for c in pair]
    if not all(c in df for c in conn) or df.empty:
        return df
    known = df[conn].notna().all(axis=1).to_numpy(bool)
    if known.sum() < 2:
        return df
    if "role" not in df:
        return df
    keys = list(dict.fromkeys([*[c for c in by if c not in conn], *conn]))
    sure = df[known].copy()
    sure["_rank"] = (
        (sure["direction"].astype("string") != "receiver").fillna(True).astype(int) if "direction" in sure else 0
    )
    roles = sure.groupby(keys, dropna=False)["role"].transform(lambda r: r.astype("string").nunique())
    pairs = sure[(roles > 1).to_numpy(bool)].sort_values("_rank", kind="stable").drop_duplicates(keys, keep="first")
    kept = pd.concat([pairs, sure[(roles <= 1).to_numpy(bool)]]).drop(columns="_rank")
    return pd.concat([kept, df[~known]]).sort_index()


def link_capacity(
    runs: pd.DataFrame,
    by: Sequence[str] | str = ("local_host", "remote_host"),
    *,
    stat: str | Callable[[pd.Series], float] = "median",
    symmetric: bool = False,
    protocol: str | None = "tcp",
) -> pd.DataFrame:
    """The capacity of each path from iperf / iperf3 runs (see the module docstring).

    Parameters
    ----------
    runs
        Run rows from :func:`lbanalysis.read` (a :class:`~lbanalysis.Dataset`
        is accepted too); non-iperf rows and rows with ``error`` are ignored.
    by
        Columns naming a path. The default is the host pair, directed from
        the data's sender (``local_host``) to its receiver (``remote_host``).
    stat
        ``"median"`` (default), ``"mean"``, ``"max"``, ``"min"``, or a
        function of the group's ``bits_per_s`` Series.
    symmetric
        Pool A->B with B->A: the first two ``by`` columns form an unordered pair.
    protocol
        Keep only tests of this protocol (``"tcp"``: rows marked ``udp`` are
        left out); ``None`` keeps every test.

    Returns
    -------
    DataFrame
        The ``by`` columns, ``capacity_bits_per_s``, ``n_runs``,
        ``direction_used``, ``min_bits_per_s``, ``max_bits_per_s``,
        ``spread``, ``consistent``, ``tests``; one row per path, sorted by the ``by`` columns. Empty (same columns) when no
        usable iperf run exists.
    """
    runs = _runs_of(runs)
    by = [by] if isinstance(by, str) else list(by)
    func = _stat_func(stat)
    _check_paths_args(runs, by, symmetric)
    columns = [*by, *_PATH_COLUMNS]
    df = _usable(runs[[c for c in dict.fromkeys([*by, *_LINK_READS]) if c in runs]])  # the columns read, not all
    if protocol is not None and "protocol" in df:
        df = df[(df["protocol"].astype("string").str.lower() != "udp").fillna(True).to_numpy(bool)]
    if tuple(by[:2]) in _PAIRS or any(c in by for pair in _PAIRS for c in pair):
        df = _orient(df)
        df = _one_copy_per_test(df, by)
    if df.empty:
        return _no_paths(runs, by)
    df = _unordered(df.copy(), by[0], by[1]) if symmetric else df.copy()
    rows = [_path_row(by, key, g, func) for key, g in df.groupby(by, dropna=False, sort=True)]
    out = pd.DataFrame(rows, columns=columns)
    out["consistent"] = out["consistent"].astype("boolean")
    out["tests"] = out["tests"].astype("string")
    out["direction_used"] = out["direction_used"].astype("string")
    out["n_runs"] = out["n_runs"].astype("int64")
    for c in by:
        if c in runs and str(runs[c].dtype) in ("string", "Int64", "boolean"):
            out[c] = out[c].astype(runs[c].dtype)
    return out.reset_index(drop=True)


#: The columns of :func:`link_capacity` after the ``by`` columns, and their dtypes.
_PATH_COLUMNS = ("capacity_bits_per_s", "n_runs", "direction_used", "min_bits_per_s", "max_bits_per_s", "spread",
                 "consistent", "tests")  # fmt: skip
#: The columns of the runs :func:`link_capacity` reads, besides its ``by``.
_LINK_READS = ("tool", "error", "bits_per_s", "protocol", "role", "reverse", *(c for pair in _PAIRS for c in pair),
               "direction", "source", "line", "run")  # fmt: skip
_PATH_DTYPES = ("float64", "int64", "string", "float64", "float64", "float64", "boolean", "string")


def _runs_of(runs: object) -> pd.DataFrame:
    """The runs frame of a Dataset or a frame (anything else: an error)."""
    if hasattr(runs, "runs") and not isinstance(runs, pd.DataFrame):
        runs = runs.runs
    if not isinstance(runs, pd.DataFrame):
        raise LBAnalysisError(f"link_capacity needs a runs DataFrame, not {type(runs).__name__}")
    return runs


def _stat_func(stat: str | Callable[[pd.Series], float]) -> Callable[[pd.Series], float]:
    """The function of a group's ``bits_per_s`` that gives its capacity.

    >>> _stat_func("max")(pd.Series([1.0, 3.0]))
    3.0
    """
    if callable(stat):
        return stat
    if stat in _STATS:
        return getattr(pd.Series, stat)
    raise LBAnalysisError(f"unknown stat {stat!r}; use one of {', '.join(_STATS)} or a function")


def _check_paths_args(runs: pd.DataFrame, by: list[str], symmetric: bool) -> None:
    """An error naming what :func:`link_capacity` was asked that the runs cannot give."""
    if not by:
        raise LBAnalysisError("link_capacity needs at least one `by` column")
    if symmetric and len(by) < 2:
        raise LBAnalysisError("symmetric=True needs two `by` columns (the two ends of the path)")
    if "bits_per_s" not in runs:
        raise LBAnalysisError("runs has no bits_per_s column: read iperf outputs with lbanalysis.read()")
    missing = [c for c in by if c not in runs]
    if missing:
        raise LBAnalysisError(
            f"runs has no column {', '.join(map(repr, missing))} to group by; available: {', '.join(map(str, runs.columns))}"
        )


def _no_paths(runs: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """The empty frame of :func:`link_capacity` (its columns and dtypes)."""
    out = pd.DataFrame({c: pd.Series(dtype=runs[c].dtype) for c in by})
    for c, dt in zip(_PATH_COLUMNS, _PATH_DTYPES, strict=True):
        out[c] = pd.Series(dtype=dt)
    return out


def _path_row(by: list[str], key: object, g: pd.DataFrame, func: Callable[[pd.Series], float]) -> dict[str, object]:
    """One path of :func:`link_capacity`: its key, capacity, runs, spread and the tests behind it."""
    key = key if isinstance(key, tuple) else (key,)
    bps = g["bits_per_s"].astype("float64")
    lo, hi = np.min(bps), np.max(bps)
    return {
        **dict(zip(by, key, strict=True)),
        "capacity_bits_per_s": float(func(bps)),
        "n_runs": len(g),
        "direction_used": _direction_used(g["direction"]) if "direction" in g else pd.NA,
        "min_bits_per_s": float(lo),
        "max_bits_per_s": float(hi),
        "spread": float(hi / lo) if lo > 0 else np.inf,
        "consistent": bool(lo > 0 and hi / lo <= MAX_SPREAD),
        "tests": _tests(g),
    }


# ------------------------------------------------------------ per run ---
_LOCAL = {"localhost": "127.0.0.1", "::1": "127.0.0.1", "[::1]": "127.0.0.1"}


@dataclass
class RunCapacity:
    """Each run's capacity (``bits``, bit/s), its ``basis`` (``payload`` or ``wire``), what it rests on
    (``source``: given, manifest, or the iperf runs as file:line), a ``note`` (why none), and the iperf
    ``paths`` measured."""

    bits: pd.Series
    basis: pd.Series
    source: pd.Series
    note: pd.Series
    paths: pd.DataFrame


def _host_key(h: object) -> str:
    """A host as a path end: lower case, loopback names as 127.0.0.1.

    >>> _host_key("LocalHost"), _host_key("10.0.0.2")
    ('127.0.0.1', '10.0.0.2')
    """
    s = str(h).strip().lower()
    return _LOCAL.get(s, s)


def within(folder: str, root: str) -> bool:
    """Whether ``folder`` is ``root`` or below it ('' is the top of every folder).

    >>> within("a/b", "a"), within("a", "a/b"), within("ab", "a"), within("x", "")
    (True, False, False, True)
    """
    return root == "" or folder == root or folder.startswith(root.rstrip("/") + "/")


def _test_folders(tests: object) -> set[str]:
    """The folders of the iperf files a path's figure rests on (its ``tests``: file:line, ...).

    >>> sorted(_test_folders("a/x.json:1, a/y.json:1, b/z.txt#0"))
    ['a', 'b']
    """
    if not isinstance(tests, str) or not tests:
        return {""}
    return {os.path.dirname(re.sub(r"(:\d+|#\d+)$", "", t.strip())) for t in tests.split(", ") if t.strip()}


def _path_capacity(
    ends: pd.DataFrame, h: str, where: str, *, same_origin: bool, by_files: bool
) -> tuple[float, str, str]:
    """The capacity of the paths ``ends`` that reach host ``h`` from folder ``where``: (bit/s, source, note)."""
    mine = ends[(ends["_a"] == h) | (ends["_b"] == h)]
    if same_origin or by_files:
        mine = mine[[within(where, str(o)) for o in mine["origin"]] if same_origin else
                    [any(within(where, f) for f in _test_folders(t)) for t in mine["tests"]]]  # fmt: skip
        if not len(mine) and (ends["_a"].eq(h) | ends["_b"].eq(h)).any():
            return math.nan, "", f"iperf measured {h} only from another origin: not applied"
    if not len(mine):
        return math.nan, "", ""
    back = mine[mine["_a"] == h]  # responses flow from the target: prefer the path that leaves it
    mine = back if len(back) else mine
    if "consistent" in mine and not mine["consistent"].fillna(True).all():
        bad = mine[~mine["consistent"].fillna(True).to_numpy(bool)].iloc[0]
        return (
            math.nan,
            "",
            (
                f"iperf tests of the path to {h} disagree (from {bad['min_bits_per_s'] / 1e6:,.1f} to "
                f"{bad['max_bits_per_s'] / 1e6:,.1f} Mbit/s, more than {MAX_SPREAD:g}x): inconsistent, not averaged"
            ),
        )
    best = mine.loc[mine["capacity_bits_per_s"].idxmin()]
    tests = str(best.get("tests", "")) if pd.notna(best.get("tests", "")) else ""
    src = f"iperf {best['local_host']}→{best['remote_host']}" + (f", {tests}" if tests else "")
    return float(best["capacity_bits_per_s"]), src, ""


def capacity_per_run(
    runs: pd.DataFrame,
    capacity: object = None,
    *,
    basis: str = "auto",
    iperf: pd.DataFrame | None = None,
    run_origin: pd.Series | None = None,
    iperf_origin: pd.Series | None = None,
) -> RunCapacity:
    """The capacity of each HTTP run's path, as one value with its basis and what it rests on.

    ``capacity``: a rate for every path (``"1 Gbit/s"``, a number in bit/s),
    a mapping from target host to rate, :func:`link_capacity` output (the
    paths that end at each run's host), or ``None``: a ``capacity`` column of
    the runs (a manifest; basis from a ``capacity_basis`` column), else the
    ``iperf`` runs. With ``run_origin`` and ``iperf_origin`` (folders, as
    :func:`lbanalysis.analysis.series.with_identity` names them), an iperf
    path counts only for runs of its folder or below; without, for every run
    (a :func:`link_capacity` frame: for runs in the folders of the iperf files
    its ``tests`` name, or below them).
    ``basis``: ``"payload"`` (a goodput), ``"wire"`` (a link's rate) or
    ``"auto"`` (iperf: payload; given: wire). Of a path's two directions the
    one leaving the target (its responses) is preferred; tests of one path
    more than :data:`MAX_SPREAD` apart give no capacity but a note.

    >>> runs = pd.DataFrame({"host": ["localhost", "web"]})
    >>> capacity_per_run(runs, {"127.0.0.1": "50 Mbit/s"}).bits.tolist()
    [50000000.0, nan]
    """
    idx = runs.index
    given_basis = "wire" if basis == "auto" else basis
    host = runs["host"].map(_host_key) if "host" in runs else pd.Series("", index=idx)
    same_origin = run_origin is not None and iperf_origin is not None
    paths, by_files = pd.DataFrame(), False
    if isinstance(capacity, pd.DataFrame):  # link_capacity() output: the paths that end at each run's host
        paths, capacity, iperf, same_origin = capacity, None, None, False
        by_files = "tests" in paths and "source" in runs  # the folders of its iperf files are its origin
    given = _given_capacity(runs, capacity, given_basis, host)
    if given is not None:
        given.paths = paths
        return given
    if not len(paths):
        paths = _iperf_paths(iperf, iperf_origin if same_origin else None)
        if paths is None:
            return _no_capacity(idx, "")
    paths = paths.dropna(subset=[c for c in ("local_host", "remote_host") if c in paths])
    out = _no_capacity(idx, "payload" if basis == "auto" else basis)
    if same_origin:
        where = run_origin.astype(str)
    elif by_files:
        where = runs["source"].astype(str).map(os.path.dirname)
    else:
        where = pd.Series("", index=idx)
    _match_paths(out, paths, host, where, same_origin=same_origin, by_files=by_files)
    out.paths = paths
    return out


def _match_paths(
    out: RunCapacity, paths: pd.DataFrame, host: pd.Series, where: pd.Series, *, same_origin: bool, by_files: bool
) -> None:
    """Fill each run's capacity from the paths that end at its host (``host``), measured from its folder
    (``where``): :func:`_path_capacity`, asked once per host and folder."""
    ends = paths.assign(_a=paths["local_host"].map(_host_key), _b=paths["remote_host"].map(_host_key))
    found: dict[tuple[str, str], tuple[float, str, str]] = {}  # runs of one host and folder share their answer
    for i in host.index:
        h = host[i]
        if not isinstance(h, str) or not h or h == "nan":
            continue
        key = (h, where[i])
        if key not in found:
            found[key] = _path_capacity(ends, h, where[i], same_origin=same_origin, by_files=by_files)
        out.bits[i], out.source[i], out.note[i] = found[key]


def _no_capacity(idx: pd.Index, basis: str) -> RunCapacity:
    """No capacity for any run yet (the basis each will have)."""
    return RunCapacity(pd.Series(np.nan, index=idx, dtype=float), pd.Series(basis, index=idx, dtype=object),
                       pd.Series("", index=idx, dtype=object), pd.Series("", index=idx, dtype=object),
                       pd.DataFrame())  # fmt: skip


def _given_capacity(runs: pd.DataFrame, capacity: object, given_basis: str, host: pd.Series) -> RunCapacity | None:
    """The capacity given (a rate for every path, a mapping by host) or a manifest's column; None: the iperf runs."""
    out = _no_capacity(runs.index, given_basis)
    if isinstance(capacity, (str, int, float)) and not isinstance(capacity, bool):
        out.bits[:] = _rate(capacity)
        out.source[:] = f"given: {capacity}"
        return out
    if isinstance(capacity, Mapping):
        table = {_host_key(k): (_rate(v), str(v)) for k, v in capacity.items()}
        for i, h in host.items():
            if h in table:
                out.bits[i], out.source[i] = table[h][0], f"given for {h}: {table[h][1]}"
            else:
                out.note[i] = f"no capacity given for host {h}"
        return out
    if capacity is None and "capacity" in runs and runs["capacity"].notna().any():  # a manifest column
        for i, v in runs["capacity"].items():
            if pd.notna(v):
                out.bits[i], out.source[i] = _rate(v), f"manifest: {v}"
        if "capacity_basis" in runs:
            out.basis = pd.Series(runs["capacity_basis"].astype("string").fillna(given_basis), index=runs.index,
                                  dtype=object)  # fmt: skip
        return out
    if capacity is not None:
        raise TypeError(f"capacity must be a number, a string like '94 Mbit/s', a mapping or a frame, not {capacity!r}")
    return None


def _iperf_paths(iperf: pd.DataFrame | None, origin: pd.Series | None) -> pd.DataFrame | None:
    """The paths the iperf runs measured (per origin when ``origin`` is given); None: none usable."""
    if iperf is None or not len(iperf):
        return None
    frame = iperf.assign(origin=origin.to_numpy()) if origin is not None else iperf
    try:
        return link_capacity(frame, by=["origin", "local_host", "remote_host"] if origin is not None else
                             ["local_host", "remote_host"])  # fmt: skip
    except (LBAnalysisError, KeyError, ValueError):  # iperf rows without hosts: no path to match
        return None
