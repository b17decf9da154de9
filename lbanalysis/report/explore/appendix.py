"""The appendix: each series on its own, what was read (and skipped), the runs table, and the sections that had
nothing to show.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd

from ... import registry
from ...analysis.series import as_floats
from . import charts
from .opening import tool_counts
from .render import Section
from .study import http_runs, own_loads, study_of
from .words import ABSENT, INTROS, few, plural, short_sources, words_of


def _verdict_sentence(v: pd.Series, has_resource: bool = True) -> str:
    """One series' verdict, resource and confidence, with its evidence (a row of the study's ``verdicts``).

    >>> row = pd.Series({"verdict": "network", "confidence": "high", "resource": "", "evidence": "93 % of 1 Gbit/s"})
    >>> _verdict_sentence(row)
    'Network (high confidence): 93 % of 1 Gbit/s.'
    """
    verdict, confidence = str(v["verdict"]), str(v["confidence"])
    resource = str(v["resource"] or "") if has_resource else ""
    said = verdict.capitalize() + (f", {resource}" if resource else "")
    said += f" ({confidence} confidence)" if confidence not in ("", verdict) else ""
    return f"{said}: {v['evidence']}."


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
    # each series by its own load: the concurrency, or the rate asked of a fixed-rate tool
    own = own_loads(st).to_dict()
    read = [c for c in dict.fromkeys(["series", load, *own.values()]) if c in http]  # not the whole runs table
    loads = pd.Series(
        {
            n: as_floats(g, own.get(n, load)).nunique() if own.get(n, load) in g else 0
            for n, g in http[read].groupby("series")
        },
        dtype=int,
    )
    if not (loads >= 2).any():
        return Section.empty(title, ABSENT["loads"].format(load=words_of(load)))
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
            s.add(_verdict_sentence(v.loc[name], "resource" in v))
        table = series_table_of(g, col)
        if len(shown) > _MAX_SERIES_CHARTS:  # the chart of all series above draws them; the tables say the rest
            s.add(table)
            continue
        s.add(charts.series_chart(table, col, i))
        s.add(table)
    s.save(output_dir, "series")
    return s


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


_MAX_SERIES = 12  # series given a subsection of their own


_MAX_SERIES_CHARTS = 4  # with more, the series get no chart of their own (the scaling chart draws them)


def _not_read_parts(ds: Any) -> list[Any]:
    """The files skipped (and why), the outputs that are no tests, and the files passed over by name."""
    from collections import Counter

    not_runs = getattr(ds, "not_runs", None)
    not_runs = not_runs if not_runs is not None and len(not_runs) else None
    # skipped files and outputs that are no tests named from one folder, so that their names compare
    skipped = ds.skipped["source"].astype(str).tolist() if len(ds.skipped) else []
    others = not_runs["source"].astype(str).tolist() if not_runs is not None else []
    names = short_sources([*skipped, *others, *ds.runs["source"].astype(str)] if len(ds.runs) else [*skipped, *others])
    parts: list[Any] = ["No file was skipped."]
    if len(ds.skipped):
        reasons = [_reason(str(src), str(r)) for src, r in zip(ds.skipped["source"], ds.skipped["reason"], strict=True)]
        parts = [f"{plural(len(ds.skipped), 'file')} skipped:",
                 pd.DataFrame({"file": names[: len(skipped)], "why": reasons})]  # fmt: skip
    if not_runs is not None:
        parts.append(f"{plural(len(not_runs), 'output')} {'is not a test' if len(not_runs) == 1 else 'are not tests'} "
                     "(help texts, version banners, commands without output), not counted as runs:")  # fmt: skip
        parts.append(pd.DataFrame({
            "file": names[len(skipped) : len(skipped) + len(others)], "line": not_runs["line"].to_numpy(),
            "tool": not_runs["tool"].to_numpy(), "what": not_runs["kind"].to_numpy(),
            "command": not_runs["command"].fillna("").to_numpy(),
        }))  # fmt: skip
    if ds.ignored:
        seen = Counter(os.path.basename(p) for p in ds.ignored)
        passed = few([f"{n} ({k})" if k > 1 else n for n, k in seen.most_common()], 10)
        parts.append(f"{plural(len(ds.ignored), 'file')} passed over by name (notes, scripts, manifests): {passed}.")
    return parts


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
    for part in _not_read_parts(ds):
        s.add(part)
    for note in ds.notes:
        s.add(f"Note: {note}")
    return s


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
        f"{plural(len(several), 'test')} of several load-generator processes run at once, each judged as one run "
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
    names = short_sources(mine["source"].astype(str).tolist())
    out.append("Their processes, each as it printed:")
    out.append(
        pd.DataFrame({
            "test": mine["test"].to_numpy(), "process": mine["process"].to_numpy(), "file": names,
            "concurrency": as_floats(mine, "concurrency").to_numpy(),
            "requests_per_s": as_floats(mine, "requests_per_s").to_numpy(),
            "per connection (requests/s)": as_floats(mine, "rate_per_connection").to_numpy(),
            "duration_s": as_floats(mine, "duration_s").to_numpy(), "error_share": as_floats(mine, "error_share").to_numpy(),
        })
    )  # fmt: skip
    return out


def _series_sentence(st: Any) -> str:
    """How many HTTP runs form how many series, the runs read twice named (the study's own counts)."""
    runs, twice = int(st.verdicts["runs"].sum()), int(st.runs["twin_of"].notna().sum())
    also = f" ({twice:,} more read a second time from their own log, counted once)" if twice else ""
    return (f"The {plural(runs, 'HTTP load-test run')}{also} form {plural(len(st.verdicts), 'series')} (same tool, "
            "target and settings, differing only in load); curves, knees and verdicts are computed within a series "
            "only:")  # fmt: skip


def _series_list(st: Any) -> pd.DataFrame:
    """One row per series of the study: its tool, runs, the runs and loads its curves use, and what they allow."""
    from ...analysis.series import MIN_LOADS

    v = st.verdicts
    tools = st.series.set_index("series")["tool"] if "tool" in st.series else pd.Series(dtype=object)
    enough = [
        ", ".join(k for k, n in MIN_LOADS.items() if int(x) >= n) or "no curve (too few loads)" for x in v["loads"]
    ]
    return pd.DataFrame({"series": v["series"].to_numpy(), "tool": v["series"].map(tools).to_numpy(),
                         "runs": v["runs"].to_numpy(), "runs in curves": v["used"].to_numpy(),
                         "loads in curves": v["loads"].to_numpy(), "enough for": enough})  # fmt: skip


def runs_section(ds: Any, output_dir: str | os.PathLike | None = None) -> Section:
    """The runs table; with ``output_dir`` also written in full to ``runs.csv``."""
    s = Section("Runs", intro=INTROS["runs"])
    if not len(ds.runs):
        return Section.empty(s.title, ABSENT["runs"])
    if output_dir is not None:
        Path(output_dir).mkdir(parents=True, exist_ok=True)
        ds.runs.to_csv(Path(output_dir) / "runs.csv", index=False)
        s.add(
            f"All {ds.runs.shape[1]} columns of the {plural(len(ds.runs), 'run')} are in `runs.csv` beside this page."
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
            s.add(f"{_KIND_HEADINGS[k]}: {plural(len(part), 'snapshot')} ({tools}), shown in the load balancer "
                  "section.")  # fmt: skip
            continue
        s.add(f"{_KIND_HEADINGS.get(k, 'Other runs')}: {plural(len(part), 'run')} ({tools}).")
        s.add(headline(part))
    return s


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
    from ... import schema
    from ...analysis.resources import DECLARED_CORES

    runs = runs.reset_index(drop=True)  # a subset of the runs keeps its rows together
    out = pd.DataFrame({"source": short_sources(runs["source"].astype(str).tolist()), "run": runs["run"]})
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


def in_appendix(section: Section) -> Section:
    """``section`` as a part of the appendix (one heading level down)."""
    section.level = 3
    return section


def left_out_section(*sections: Section) -> Section:
    """The sections with nothing to say (their data is absent), each with its one line; absent itself when none."""
    gone = [s for s in sections if s.absent]
    if not gone:
        return Section.empty("Not shown", "Every section had something to show.")
    s = Section("Not shown", level=3)
    for g in gone:
        s.add(f"{g.title}: {g.text[0] if g.text else 'nothing to show.'}")
    return s
