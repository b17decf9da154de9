"""The design of an experiment, inferred from its runs: which factors vary, and what each one is.

A *factor* is something that varies between runs: a ``{name}`` of a path pattern, a manifest column, a line
inside the file (``podnum=4``), a token of the folder and file names (``c6000``, ``2nd_try``, ``haproxy``), or
what the tool printed (its concurrency, its target). Each gets a *role* (:data:`~lbanalysis.schema.design.
DESIGN_ROLES`), evidence first, names second:

* ``load``: its values equal the load the tool printed (``c6000`` and bombardier's 6000 connections), or, where
  the output shows none, its name is a load's (``c``, ``conc``, ``users``, ``rate``);
* ``repeat``: named so (``r1``, ``run2``, ``2nd_try``, ``iteration``) or a small index (``_0`` … ``_4``), unless
  the runs that differ only in it differ beyond their repeat noise: then it is a ``setup``, kept apart, said so;
* ``scale``: a number named as something counted in the setup (servers, pods, processes, cores, maxconn);
* ``setup``: what is compared (words: ``haproxy``, ``nginx``; numbers nothing else explains);
* ``workload``: the request sent (the target the tool printed);
* ``constant``: one value in every run (listed for the load and for named numbers only).

A pattern or a manifest states the design outright: the path is then not read for more. ``overrides`` (a dict
factor -> role, from ``read(..., design=...)`` or ``study(..., design=...)``) sets a role by hand.

>>> import pandas as pd
>>> runs = pd.DataFrame({"source": [f"res/{lb}/c{c}.json" for lb in ("haproxy", "nginx") for c in (10, 20)],
...                      "tool": "bombardier", "concurrency": [10, 20, 10, 20], "requests_per_s": 1000.0})
>>> d = infer(runs)
>>> d.table[["factor", "role", "values"]].values.tolist()
[['path[0]', 'setup', 'haproxy, nginx'], ['c', 'load', '10, 20']]
>>> d.setup_columns, d.columns["path[0]"].tolist()
(['path[0]'], ['haproxy', 'haproxy', 'nginx', 'nginx'])
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..schema.design import DESIGN, DESIGN_ROLES
from .tokens import LOAD_NAMES, REPEAT_NAMES, SCALE_NAMES, path_tokens

__all__ = ["BOOKKEEPING", "PRINTED_LOADS", "Design", "check_roles", "infer", "sentence", "target_text"]

#: The columns a tool prints that a factor's value may equal (its load, or what sets the run's length).
PRINTED_LOADS = {
    "concurrency": "connections", "rate_target_per_s": "rate", "threads": "threads",
    "requests_planned": "requests asked", "requests": "requests completed",
}  # fmt: skip
#: Columns of a manifest or a frame that are records of a run, not settings (the sweep's bookkeeping among them).
BOOKKEEPING = frozenset(
    {"series", "note", "notes", "comment", "comments", "description", "remark", "remarks", "file", "date",
     "timestamp", "end_time", "start_time", "start", "end", "exit_code", "returncode", "test", "process",
     "test_basis", "test_note", "origin", "duration", "pid", "command", "cmd", "host", "hostname"}
)  # fmt: skip
_RATE_NAMES = frozenset({"rate", "qps", "rps", "r"})
#: Relative spread under which runs differing in one factor only are its repeats (when no repeat noise is known).
SAME_WITHIN = 0.10
#: How many times the repeat noise runs must differ by, for a repeat-like factor to be a setup.
NOISE_FACTOR = 2.0
_SOURCE_OF = {"path": "path segment", "file": "file-name token"}


@dataclass
class Design:
    """An inferred design: ``table`` (one row per factor, :data:`~lbanalysis.schema.design.DESIGN`) and
    ``columns`` (the values of the factors read from paths and lines, one column per factor, aligned with the
    runs). ``setup_columns``: what sets series apart; ``scale_columns``: the scale factors (the first is the
    axis where the load is constant); ``declared``: whether a pattern or manifest stated it; ``load_of``: each load factor's column
    of the runs (``concurrency``, ``rate_target_per_s``, ``requests``: the one it equals)."""

    table: pd.DataFrame
    columns: pd.DataFrame
    setup_columns: list[str] = field(default_factory=list)
    scale_columns: list[str] = field(default_factory=list)
    declared: bool = False
    load_of: dict[str, str] = field(default_factory=dict)
    pattern: bool = False  # a path pattern named the folders' parts (so the folder is no origin of its own)

    def role_of(self, factor: str) -> str:
        """The role of one factor ('' when unknown)."""
        hit = self.table[self.table["factor"] == factor]
        return str(hit["role"].iloc[0]) if len(hit) else ""


def _rel_paths(runs: pd.DataFrame) -> pd.Series:
    """Each run's file relative to the folder every file lies under."""
    src = runs["source"].astype(str) if "source" in runs else pd.Series("", index=runs.index)
    uniq = [s for s in src.unique() if s and s != "<buffer>"]
    folders = {os.path.dirname(s) for s in uniq}
    try:
        root = os.path.commonpath(list(folders)) if folders and all(folders) else ""
    except ValueError:
        root = ""
    rel = {s: (os.path.relpath(s, root) if root else os.path.basename(s)) for s in uniq}
    return src.map(lambda s: rel.get(s, ""))


def _path_factors(runs: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, str]]:
    """The factors of the runs' paths: one column per token name (``c``, ``try``) or position (``path[1]``,
    ``file``, ``file#1`` for an unnamed number), and where each was read."""
    rel = _rel_paths(runs)
    per_file: dict[str, dict[str, object]] = {}
    where: dict[str, str] = {}
    words: dict[str, dict[str, list[str]]] = {}
    for r in rel.unique():
        values: dict[str, object] = {}
        count: dict[str, int] = {}
        for t in path_tokens(r):
            if t.key is None and isinstance(t.value, str):
                words.setdefault(t.position, {})[r] = t.value.split("-")
                continue
            if t.key is None:
                count[t.position] = count.get(t.position, 0) + 1
                name = f"{t.position}#{count[t.position]}"
            else:
                name = t.key
                if name in values and values[name] != t.value:
                    name = f"{t.key} ({t.position})"
            values[name] = t.value
            where.setdefault(name, t.source)
        per_file[r] = values
    for pos, by_file in words.items():  # the words of a position, less those every file shares there
        common = set.intersection(*(set(w) for w in by_file.values())) if len(by_file) == len(per_file) else set()
        for r, w in by_file.items():
            kept = [x for x in w if x not in common]
            per_file[r][pos] = "-".join(kept) if kept else ""
            where.setdefault(pos, _SOURCE_OF["file" if pos == "file" else "path"])
    names = list(dict.fromkeys(k for v in per_file.values() for k in v))
    cols = {n: rel.map(lambda r, n=n: per_file.get(r, {}).get(n, np.nan)) for n in names}
    return pd.DataFrame(cols, index=runs.index), where


def _numeric(s: pd.Series) -> pd.Series | None:
    """The values as floats, or None when some value is not a number."""
    v = pd.to_numeric(s.dropna(), errors="coerce")
    return None if v.isna().any() or not len(v) else v.astype(float)


def _values_text(s: pd.Series) -> str:
    """The values as a person reads them: a list, or a range for many numbers."""
    v = s.dropna()
    if not len(v):
        return ""
    num = _numeric(v)
    if num is not None:
        u = sorted(num.unique())
        shown = [f"{x:,.10g}" for x in u]
        return ", ".join(shown) if len(u) <= 8 else f"{shown[0]}–{shown[-1]} ({len(u)} values)"
    u = [str(x) if str(x) else "(none)" for x in dict.fromkeys(v.astype(str))]
    return ", ".join(u) if len(u) <= 10 else ", ".join(u[:10]) + f", … ({len(u)} values)"


def _equals_load(num: pd.Series, runs: pd.DataFrame) -> tuple[str, int, int] | None:
    """The printed load column the values equal in most runs where both are known: (column, agree, known)."""
    best = None
    for col in PRINTED_LOADS:
        if col not in runs:
            continue
        shown = pd.to_numeric(runs.loc[num.index, col], errors="coerce")
        both = shown.notna()
        if both.sum() < 1:
            continue
        agree = int((np.isclose(shown[both].astype(float), num[both])).sum())
        if agree >= 0.8 * both.sum() and (best is None or agree > best[1]):
            best = (col, agree, int(both.sum()))
    return best


def _small_index(num: pd.Series) -> bool:
    """Whether the values are a small run index: consecutive integers from 0 or 1."""
    u = sorted(num.unique())
    return len(u) >= 2 and all(float(x).is_integer() for x in u) and u[0] in (0, 1) and u[-1] - u[0] == len(u) - 1


def _differs(runs: pd.DataFrame, factor: pd.Series, others: list[pd.Series]) -> tuple[bool | None, str]:
    """Whether runs that differ only in ``factor`` differ in throughput beyond their repeat noise, and the figures.

    None: no two runs differ only in it (the evidence cannot decide)."""
    if "requests_per_s" not in runs:
        return None, ""
    y = pd.to_numeric(runs["requests_per_s"], errors="coerce")
    cell = pd.Series("", index=runs.index)
    for o in others:
        cell = cell + "|" + o.astype(object).where(o.notna(), "").astype(str)
    d = pd.DataFrame({"cell": cell, "level": factor.astype(str), "y": y}).dropna()
    d = d[factor.loc[d.index].notna() & (d["y"] > 0)]
    if not len(d):
        return None, ""
    per = d.groupby(["cell", "level"])["y"].agg(["mean", "min", "max", "size"])
    within_groups = per[per["size"] >= 2]
    within = float(((within_groups["max"] - within_groups["min"]) / within_groups["mean"]).median()) if len(
        within_groups) else float("nan")  # fmt: skip
    means = per["mean"].groupby(level="cell")
    between_cells = means.agg(lambda m: (m.max() - m.min()) / m.mean() if len(m) >= 2 else np.nan).dropna()
    if not len(between_cells):
        return None, ""
    between = float(between_cells.median())
    limit = max(NOISE_FACTOR * within, 0.05) if np.isfinite(within) else SAME_WITHIN
    noise = f"the repeat noise {within:.0%}" if np.isfinite(within) else "no repeat noise measured"
    return between > limit, f"runs differing only in it differ by {between:.0%} (median; {noise})"


def _declared_source(col: str, pattern_fields: Sequence[str], manifest_columns: Sequence[str],
                     section_keys: Sequence[str]) -> str:  # fmt: skip
    if col in section_keys:
        return "a line inside the file"
    if col in pattern_fields:
        return "path pattern"
    if col in manifest_columns:
        return "manifest"
    return "given"


@dataclass
class _Found:
    """The factors being classified: their values, where each was read, the rows of the table so far."""

    runs: pd.DataFrame
    factors: dict[str, pd.Series]
    where: dict[str, str]
    given: list[str]  # columns a pattern, a manifest or the frame gave
    declared: list[str]  # of those, the ones a pattern or manifest stated (not lines inside the files)
    rows: list[dict] = field(default_factory=list)
    roles: dict[str, str] = field(default_factory=dict)
    repeat_like: list[str] = field(default_factory=list)
    covered: set[str] = field(default_factory=set)  # the printed load columns a factor of the names equals
    load_of: dict[str, str] = field(default_factory=dict)


def _found(runs: pd.DataFrame, pattern_fields: Sequence[str], manifest_columns: Sequence[str],
           section_keys: Sequence[str]) -> _Found:  # fmt: skip
    """The candidate factors: the columns given, and the path's tokens when no pattern or manifest states it."""
    from ..schema import RUNS

    # prose is no factor, but a heading of the file's own is a label however long (the runs under it)
    given = [c for c in runs.columns if c not in RUNS and not str(c).startswith("_") and not _bookkeeping(c)
             and (c in section_keys or not _prose(runs[c]))]  # fmt: skip
    if "test" in runs:  # the processes of one test (the sweep's --processes): folded into one run, no factor
        given = [c for c in given if c not in ("processes", "process")]
    # any column a manifest, a pattern or the frame added (its bookkeeping too: test, repeat_of) states the design
    declared = [c for c in runs.columns if c not in RUNS and not str(c).startswith("_") and c not in section_keys]
    where = {c: _declared_source(c, pattern_fields, manifest_columns, section_keys) for c in given}
    factors: dict[str, pd.Series] = {c: runs[c] for c in given}
    if not declared:  # no pattern or manifest: the path says it
        cols, path_where = _path_factors(runs)
        renamed = {c: f"{c} (path)" for c in cols if c in runs.columns}
        factors.update({renamed.get(c, c): cols[c] for c in cols})
        where.update({renamed.get(k, k): v for k, v in path_where.items()})
    return _Found(runs, factors, where, given, declared)


def _classify(f: _Found, overrides: dict[str, str]) -> None:
    """Each factor's first role (a repeat-like one is settled by :func:`_settle`), into ``f.rows``."""
    for name, s in f.factors.items():
        levels = int(s.dropna().astype(str).nunique())
        num = _numeric(s)
        role, evidence = _role(name, s, num, levels, f.runs, declared=name in f.given)
        if name in overrides:
            role, evidence = overrides[name], f"given: design={{{name!r}: {overrides[name]!r}}}"
        elif role == "repeat?":
            f.repeat_like.append(name)
        quiet = role == "constant" and (num is None or name.startswith(("path[", "file")))
        if quiet or (role == "measured" and name not in overrides):
            continue  # a constant word of the path says nothing; a measurement is no factor
        f.roles[name] = role
        if role == "load" and num is not None:
            eq = _equals_load(num, f.runs)
            f.covered.update([eq[0]] if eq else [])
            f.load_of[name] = eq[0] if eq else ("rate_target_per_s" if _base(name) in _RATE_NAMES else "concurrency")
        f.rows.append({"factor": name, "source": f.where.get(name, "given"), "role": role, "values": _values_text(s),
                       "evidence": evidence, "column": name, "levels": levels})  # fmt: skip


def _settle(f: _Found) -> None:
    """A repeat by name or a small index is a repeat, unless the runs that differ only in it differ beyond their
    repeat noise (then a setup, kept apart), or, for an index, nothing can tell (kept apart too)."""
    kept = [n for n, r in f.roles.items() if r in ("setup", "scale", "load") and n not in f.repeat_like]
    for name in f.repeat_like:
        others = [f.factors[n].astype(object).fillna("") for n in kept] + [_target_of(f.runs)]
        others += [f.runs[c].astype(str) for c in ("concurrency", "rate_target_per_s", "threads") if c in f.runs]
        differs, figures = _differs(f.runs, f.factors[name], others)
        row = next(r for r in f.rows if r["factor"] == name)
        named = _base(name) in REPEAT_NAMES
        if named and (name in f.declared or "no repeat noise" in figures):
            differs = None  # stated by a pattern or manifest, or no other repeats to measure the noise by
        if differs:
            row["role"] = "setup"
            row["evidence"] = f"{'named as a repeat' if named else 'a small index'}, but {figures}: kept apart"
        elif differs is None and not named:
            row["role"] = "setup"
            row["evidence"] = ("a small index that may number repeats, but no runs differ only in it: cannot tell a "
                               "setup from a repeat, kept apart")  # fmt: skip
        else:
            why = f"named as a repeat ({_base(name)})" if named else "a small index"
            row["role"], row["evidence"] = "repeat", why + (f"; {figures}" if figures else "")
        f.roles[name] = row["role"]


def _table(f: _Found) -> tuple[pd.DataFrame, list[str], list[str]]:
    """The design table (roles in order, the axis marked), the setup columns and the scale columns (axis first)."""
    rows = f.rows + _printed(f.runs, f.covered)
    table = pd.DataFrame(rows, columns=list(DESIGN))
    if len(table):
        table["levels"] = table["levels"].astype("Int64")
        order = {r: i for i, r in enumerate(("setup", "workload", "scale", "load", "repeat", "constant"))}
        table = table.sort_values("role", key=lambda r: r.map(order), kind="stable").reset_index(drop=True)
    setups = [r["factor"] for r in rows if r["role"] == "setup" and r["factor"] in f.factors]
    # a workload named by a column given (a pattern, a manifest, a frame's own column) keeps its name in the series
    setups += [r["factor"] for r in rows if r["role"] == "workload" and r["factor"] in f.given]
    scales = sorted((r["factor"] for r in rows if r["role"] == "scale" and r["factor"] in f.factors),
                    key=lambda n: (f.where.get(n) != "a line inside the file", -f.factors[n].nunique()))  # fmt: skip
    table["axis"] = False
    if scales:
        setups = _points_of(f, table, setups, scales[0])
        table.loc[table["factor"] == scales[0], "axis"] = True
        for other in scales[1:]:  # one axis at a time: a second scale factor sets series apart
            at = table["factor"] == other
            table.loc[at, "evidence"] = table.loc[at, "evidence"] + f"; kept apart: the series run along {scales[0]}"
    table.loc[table["role"] == "load", "axis"] = True
    return table, setups, scales


def _points_of(f: _Found, table: pd.DataFrame, setups: list[str], axis: str) -> list[str]:
    """The setups left once those that only name the points along the axis are set aside: a value with one value
    of the axis each, and more values than the axis has within one setup of the rest (a droplet named
    ``shared-2-cpu-2-ram`` along ``vcpus``). They are the axis's points, not what is compared (changed in
    ``table`` in place, said in its evidence)."""
    along = f.factors[axis]
    kept = []
    for s in setups:
        if s not in f.factors:
            kept.append(s)
            continue
        d = pd.DataFrame({"s": f.factors[s].astype("string"), "a": along}).dropna()
        if len(d) and d.groupby("s")["a"].nunique().max() == 1 and d["a"].nunique() > 1:
            at = table["factor"] == s
            table.loc[at, "role"] = "constant"
            table.loc[at, "evidence"] = (f"names the points along {axis} (one {axis} each): the axis's points, not "
                                         "what is compared")  # fmt: skip
            continue
        kept.append(s)
    return kept


def check_roles(overrides: Mapping[str, str] | None) -> dict[str, str]:
    """The roles given by hand (factor -> role), checked: an unknown role is an error naming the known ones.

    >>> check_roles({"path[0]": "repeat"})
    {'path[0]': 'repeat'}
    """
    given = dict(overrides or {})
    bad = {k: v for k, v in given.items() if v not in DESIGN_ROLES}
    if bad:
        raise ValueError(f"design: unknown role(s) {bad}; roles are: {', '.join(DESIGN_ROLES)}")
    return given


def infer(
    runs: pd.DataFrame,
    *,
    pattern_fields: Sequence[str] = (),
    manifest_columns: Sequence[str] = (),
    section_keys: Sequence[str] = (),
    overrides: Mapping[str, str] | None = None,
) -> Design:
    """The design of ``runs`` (see the module text): a :class:`Design`.

    ``pattern_fields``, ``manifest_columns``, ``section_keys``: the columns of the runs that a path pattern,
    a manifest and lines inside the files gave (any other column outside the schema counts as given).
    ``overrides``: factor -> role.
    """
    overrides = check_roles(overrides)
    runs = runs if runs.index.is_unique else runs.reset_index(drop=True)
    f = _found(runs, pattern_fields, manifest_columns, section_keys)
    _classify(f, overrides)
    _settle(f)
    table, setups, scales = _table(f)
    path_cols = pd.DataFrame({n: s for n, s in f.factors.items() if n not in f.given}, index=runs.index)
    return Design(table, path_cols, setups, scales, declared=bool(f.declared),
                  load_of={k: v for k, v in f.load_of.items() if f.roles.get(k) == "load"},
                  pattern=any(c in runs.columns for c in pattern_fields))  # fmt: skip


_TIME_WORDS = re.compile(r"(?:^|_)(?:start|started|end|ended|time|timestamp|date|when|elapsed|finished|begin|t0|t1)"
                         r"(?:_s|_ms|_ns|_at)?$|_at$", re.I)  # fmt: skip


def _bookkeeping(column: str) -> bool:
    """Whether a column records a run (a note, a file, a time: ``started_s``, ``end_time``) rather than sets it.

    >>> _bookkeeping("started_s"), _bookkeeping("note"), _bookkeeping("servers")
    (True, True, False)
    """
    name = str(column).lower()
    return name in BOOKKEEPING or bool(_TIME_WORDS.search(name))


def _base(name: str) -> str:
    """A factor's name without the position it was read at (``cpu (file)`` -> ``cpu``)."""
    return re.sub(r"\s*\(.*\)$", "", name).lower()


def _prose(values: pd.Series) -> bool:
    text = values.dropna()
    if not len(text) or pd.api.types.is_numeric_dtype(values):
        return False
    return bool(text.astype(str).str.split().str.len().max() >= 4)


def _target_of(runs: pd.DataFrame) -> pd.Series:
    """What was sent, as text: the URL (else host:port/path) and the method."""
    parts = [runs[c].astype("string").fillna("") for c in ("tool", "url", "host", "port", "path", "method")
             if c in runs]  # fmt: skip
    out = pd.Series("", index=runs.index, dtype="string")
    for p in parts:
        out = out + "|" + p.astype(str)
    return out.astype(str)


def _role(name: str, s: pd.Series, num: pd.Series | None, levels: int, runs: pd.DataFrame, *,
          declared: bool = False) -> tuple[str, str]:  # fmt: skip
    """A factor's role from its values, what the tool printed and its name (``repeat?``: decided by the noise).
    A number a column gives (a manifest's, a pattern's) is a setting only when named as one: a manifest also
    records what each run measured (``cpu_pct``, ``free_mem_mb``)."""
    base = _base(name)
    if levels <= 1:
        return "constant", "one value in every run"
    if num is None:
        return _words_role(s, runs)
    eq = _equals_load(num, runs)
    if eq:
        col, agree, known = eq
        both = num.index[pd.to_numeric(runs.loc[num.index, col], errors="coerce").notna().to_numpy(bool)]
        tools = ", ".join(dict.fromkeys(runs.loc[both, "tool"].dropna().astype(str))) if "tool" in runs else ""
        shown = f"{name}{num.iloc[0]:g}" if "#" not in name and "[" not in name else f"{num.iloc[0]:g} ({name})"
        return "load", (f"{shown} equals the {PRINTED_LOADS[col]} {tools or 'the tool'} printed in {agree} of "
                        f"{known} runs")  # fmt: skip
    printed = any(c in runs and pd.to_numeric(runs.loc[num.index, c], errors="coerce").notna().any()
                  for c in ("concurrency", "rate_target_per_s"))  # fmt: skip
    if base in REPEAT_NAMES:
        return "repeat?", ""
    if base in LOAD_NAMES and not printed:
        return "load", f"named as a load ({base}); the outputs do not show their load"
    if base in SCALE_NAMES or base.startswith("pod"):
        return "scale", f"a number of {base}: a numeric setup parameter"
    if declared:
        return "measured", (
            "a number recorded per run, neither the load printed nor named as a setting: read as "
            f"a measurement, not a factor (design={{{name!r}: 'setup'}} compares by it)"
        )
    if base in LOAD_NAMES:
        return "setup", f"named as a load ({base}), but its values are not the load the tool printed: kept apart"
    if _small_index(num):
        return "repeat?", ""
    return "setup", "a number that is neither the load printed nor named: kept apart as a setup"


def _one_to_one(a: pd.Series, b: pd.Series) -> bool:
    """Whether each value of ``a`` goes with one value of ``b`` and back (over the runs where both are known)."""
    d = pd.DataFrame({"a": a.astype("string"), "b": b.astype("string")}).dropna()
    return bool(len(d)) and d.groupby("a")["b"].nunique().max() == 1 and d.groupby("b")["a"].nunique().max() == 1


def _names_the_load(s: pd.Series, runs: pd.DataFrame) -> str:
    """The first value, when each value's words hold its runs' printed load as a number (``## 2 threads, 10
    connections`` over a wrk run at 10 connections: a label of the load); else ``""``.

    >>> runs = pd.DataFrame({"concurrency": [5.0, 10.0]})
    >>> _names_the_load(pd.Series(["1 thread, 5 connections", "2 threads, 10 connections"]), runs)
    '1 thread, 5 connections'
    >>> _names_the_load(pd.Series(["nginx 1", "haproxy 2"]), runs)
    ''
    """
    for col in ("concurrency", "rate_target_per_s"):
        if col not in runs:
            continue
        load = pd.to_numeric(runs.loc[s.index, col], errors="coerce")
        both = s.notna() & load.notna()
        if not both.any() or both.sum() < s.notna().sum():
            continue
        said = s[both].astype(str).str.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
        if all(any(float(n) == v for n in nums) for nums, v in zip(said, load[both], strict=True)):
            return str(s[both].iloc[0])
    return ""


def _words_role(s: pd.Series, runs: pd.DataFrame) -> tuple[str, str]:
    """Words that differ between runs: a setup, unless they only name the kind of file (a summary and its
    per-request log of one run), the load printed, or the request sent (one value per target: the workload)."""
    if "format" in runs and runs["format"].nunique() > 1 and _one_to_one(s, runs["format"]):
        return "constant", "names the kind of file (one value per format: a summary and its log), not a setting"
    if said := _names_the_load(s, runs):
        return "constant", f"names the load each run printed ({said!r}): a label of the load, not a setting"
    text = target_text(runs)
    method = runs["method"].astype("string").fillna("") if "method" in runs else ""
    whole = pd.Series(False, index=runs.index)
    for c in ("url", "path"):  # the whole target shown (a host alone is part of it)
        if c in runs:
            whole |= runs[c].notna().to_numpy(bool)
    shown = (text != "") & s.notna()  # runs that show a target at all (a per-request log shows none)
    target = (text + " " + method).where(whole)
    # every value must go with a target somewhere (a log that shows none may be its summary's twin; a value no
    # target goes with, a siege.log beside others, is what is compared)
    named = set(s.dropna().astype(str)) <= set(s[whole].dropna().astype(str))
    if named and shown.any() and whole[shown].mean() >= 0.8 and target.nunique() > 1 and _one_to_one(
            s[whole], target[whole]):  # fmt: skip
        return "workload", "one value per target the tools printed: it names the workload"
    return "setup", "words that differ between runs: what is compared"


def target_text(runs: pd.DataFrame) -> pd.Series:
    """Each run's target as a person reads it: the URL without its scheme, else host:port/path ('' unknown).

    >>> target_text(pd.DataFrame({"url": ["http://h:80/a", None], "host": ["h", "g"], "path": ["/a", None]})).tolist()
    ['h:80/a', 'g']
    """
    empty = pd.Series(pd.NA, index=runs.index, dtype="string")
    url = runs["url"].astype("string") if "url" in runs else empty
    host = runs["host"].astype("string") if "host" in runs else empty
    port = runs["port"].astype("Int64").astype("string") if "port" in runs else empty
    path = runs["path"].astype("string") if "path" in runs else empty
    built = (host.fillna("") + (":" + port).fillna("") + path.fillna("")).where(host.notna() | path.notna())
    return url.str.replace(r"^https?://", "", regex=True).where(url.notna(), built).fillna("").astype(str)


def _printed(runs: pd.DataFrame, covered: set[str]) -> list[dict]:
    """The factors the tools printed: the load (concurrency or rate; unless a factor of the names equals it) and
    the target."""
    rows = []
    for col, words in (("concurrency", "the connections or clients each run printed"),
                       ("rate_target_per_s", "the rate each run was asked for")):  # fmt: skip
        if col not in runs or col in covered:
            continue
        v = pd.to_numeric(runs[col], errors="coerce").dropna()
        if not len(v):
            continue
        levels = int(v.nunique())
        rows.append({"factor": col, "source": "the tool's own output", "role": "load" if levels > 1 else "constant",
                     "values": _values_text(v), "evidence": words + ("" if levels > 1 else ": the same in every run"),
                     "column": col, "levels": levels})  # fmt: skip
    target = _target_of(runs.drop(columns=[c for c in ("tool",) if c in runs]))
    shown = target[target.str.strip("|") != ""]
    if shown.nunique() > 1:
        t = target_text(runs)
        rows.append({"factor": "target" if "target" not in runs else "url", "source": "the tool's own output",
                     "role": "workload",
                     "values": _values_text(t[t != ""]), "evidence": "the URLs (and methods) the tools printed: each "
                     "is its own workload", "column": "", "levels": int(t[t != ""].nunique())})  # fmt: skip
    return rows


def sentence(design: Design | pd.DataFrame, how: str = "") -> str:
    """The design in one sentence: '6 path[2] (…) × 2 path[0] (bc0, bc1) × c 1,000–10,000; read from the folder
    and file names'.

    >>> t = pd.DataFrame({"factor": ["lb", "c"], "role": ["setup", "load"], "values": ["a, b", "1, 2"],
    ...                   "levels": [2, 2], "source": ["path segment", "file-name token"], "evidence": ""})
    >>> sentence(t)
    '2 lb (a, b) × c 1, 2; read from the folder and file names'
    """
    t = design.table if isinstance(design, Design) else design
    if not len(t):
        return "No factor varies between the runs: one setup, one load."
    parts = []
    for _, r in t[t["role"] == "setup"].iterrows():
        parts.append(f"{int(r['levels'])} {r['factor']} ({r['values']})")
    work = t[t["role"] == "workload"]
    work = work[work["factor"] == "target"] if (work["factor"] == "target").any() else work
    parts += [f"{int(r['levels'])} targets ({r['values']})" if r["factor"] == "target" else
              f"{int(r['levels'])} {r['factor']} ({r['values']})" for _, r in work.iterrows()]  # fmt: skip
    parts += [f"{r['factor']} {r['values']}" for _, r in t[t["role"] == "scale"].iterrows()]
    loads = t[t["role"] == "load"]
    if len(loads):  # one load named: the one that is the connections or the rate, when several say the same
        main = loads[loads["evidence"].str.contains("connections|rate", regex=True)]
        r = (main if len(main) else loads).iloc[0]
        parts.append(f"{r['factor']} {r['values']}")
    reps = t[t["role"] == "repeat"]
    if not parts:
        const = t[t["role"] == "constant"]
        at = ", ".join(f"{r['factor']} {r['values']}" for _, r in const.iterrows())
        return (
            "No factor varies between the runs: one setup, one load"
            + (f" ({at})" if at else "")
            + (
                f", {' and '.join(f'{int(r.levels)} repeats ({r.factor})' for r in reps.itertuples())}"
                if len(reps)
                else ""
            )
        )
    if len(reps):
        parts.append(" and ".join(f"{int(r['levels'])} repeats ({r['factor']})" for _, r in reps.iterrows()))
    sources = set(t["source"])
    said = []
    if sources & {"path segment", "file-name token"}:
        said.append("the folder and file names")
    if "a line inside the file" in sources:
        said.append("lines inside the files")
    if sources & {"path pattern", "manifest"}:
        said.append("the pattern or manifest given")
    tail = f"; read from {' and '.join(said)}" if said else ""
    return " × ".join(parts) + tail + (f"{how}" if how else "")


def _pos(t: pd.DataFrame, row: pd.Series) -> int:
    return int(np.flatnonzero((t["factor"] == row["factor"]).to_numpy())[0])
