"""The page's opening: what was read (from where, how many files and runs) and where the page is written."""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from ... import registry
from .render import Section
from .words import few, plural


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
        return f"{len(names)} paths ({few([f'`{n}`' for n in names], 4)})"
    rest = [n[len(common) :].lstrip("/") or "." for n in names]
    return f"{len(names)} paths under `{common}` ({few(rest, 4)})"


def opening_section(ds: Any, logs: Any = None, output_dir: str | os.PathLike | None = None) -> Section:
    """What this page read (from where, how many files and runs) and where it wrote its files.

    >>> import io
    >>> from lbanalysis.report.explore.study import load
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
    line = f"Read {_paths_words(logs)}: {plural(n_files, 'file')}, {plural(int(tests['runs'].sum()), 'test run')}"
    line += f" ({tools})" if tools else ""
    line += f" and {plural(snaps, 'load-balancer statistics snapshot')}." if snaps else "."
    if len(ds.skipped):
        line += f" {plural(len(ds.skipped), 'file')} could not be read (listed in the appendix)."
    s.add(line)
    if output_dir is not None:
        s.add(f"This page, its charts and `runs.csv` (every column of every run) are written to `{output_dir}`.")
    else:
        s.add("No file is written: no output folder was given (`lbanalysis explore -o DIR` gives one).")
    s.add("The conclusion comes first, then the evidence behind it; what was read, run by run, is in the appendix.")
    return s
