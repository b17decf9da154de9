"""The evidence on the network: each run's path capacity, its basis and the utilisation (the study's)."""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from . import charts
from .render import Collapsed, Section
from .study import parse_capacities, study_of
from .words import ABSENT, INTROS, file_names, plural, short_sources


def _bound_sentence(n_runs: int, bound: Any, mismatch: Any, unmatched: Any, threshold: float) -> str:
    """How many runs are network-bound, carried more than their path's capacity, or have no path measured.

    >>> import numpy as np
    >>> _bound_sentence(3, np.array([True, False, False]), np.array([False] * 3), np.array([False, False, True]), 0.8)
    '1 of 3 runs network-bound. 1 run have no measured path to their host: no utilisation (not listed).'
    """
    parts = [
        f"{int(bound.sum())} of {plural(n_runs, 'run')} network-bound."
        if bound.any()
        else f"No run reaches {threshold:.0%} of its path: none is network-bound."
    ]
    if mismatch.any():
        parts.append(f"{plural(int(mismatch.sum()), 'run')} carried more than the capacity matched to their path: "
                     "capacity mismatch, not a verdict.")  # fmt: skip
    if unmatched.any():
        parts.append(f"{plural(int(unmatched.sum()), 'run')} have no measured path to their host: no utilisation"
                     + (" (not listed)." if (~unmatched).any() else "."))  # fmt: skip
    return " ".join(parts)


def _why(http: pd.DataFrame, root: str | None) -> list[str]:
    """Each run's used rate against its path's capacity and where that capacity comes from, or why none."""
    from ...analysis.engine import files_from
    from ...analysis.network import format_bits_per_s

    return [
        f"{format_bits_per_s(w)} ({b}) against {format_bits_per_s(c)} for its path ({files_from(src, root)})"
        if pd.notna(c) else (note or "no capacity known")
        for w, b, c, src, note in zip(http["used_bits_per_s"], http["capacity_basis"], http["capacity_bits_per_s"],
                                      http["capacity_source"], http["capacity_note"], strict=True)
    ]  # fmt: skip


def _utilisation_table(
    http: pd.DataFrame, load: str, u: pd.Series, bound_by: list[str], root: str | None
) -> pd.DataFrame:
    """One row per HTTP run of the study: its rate, the bits it used, its path's capacity and basis, the
    utilisation ``u``, what bound it (``bound_by``) and why."""
    return pd.DataFrame(
        {
            "source": short_sources(http["source"].astype(str).tolist()),
            "run": http["run"].to_numpy(),
            "series": http["series"].to_numpy(),
            load: http[load].to_numpy() if load in http else pd.NA,
            "requests_per_s": http["requests_per_s"].to_numpy(),
            "used Mbit/s": (http["used_bits_per_s"] / 1e6).to_numpy(),
            "capacity Mbit/s": (http["capacity_bits_per_s"] / 1e6).to_numpy(),
            "basis": http["capacity_basis"].to_numpy(),
            "utilisation (%)": (u * 100).to_numpy(),
            "bound by": bound_by,
            "why": _why(http, root),
        }
    )


def _run_labels(http: pd.DataFrame) -> list[str]:
    """Each run by its file name, with its run number where its file holds several."""
    names = file_names(http["source"].astype(str).tolist())
    per_file = http.groupby(http["source"].astype(str))["run"].transform("nunique").to_numpy()
    return [f"{n} (run {r})" if k > 1 else n for n, r, k in zip(names, http["run"], per_file, strict=True)]


def _paths_part(paths: pd.DataFrame, http: pd.DataFrame) -> list[Any]:
    """The iperf paths the study measured (collapsed when long and no run was matched to one)."""
    matched = pd.to_numeric(http["utilisation"], errors="coerce").notna().any()
    table = _paths_table(paths)
    return [
        f"iperf measured {plural(len(paths), 'path')}; each HTTP run is compared with the path to its own host:",
        table if matched or len(table) <= 5 else Collapsed(table),
    ]


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
    from ...analysis.series import common_folder

    title = "Network utilisation"
    st = study_of(ds, link_capacity, iperf, threshold, load, group)
    http = st.runs
    has_cap = len(http) and http["capacity_bits_per_s"].notna().any()
    if not has_cap and not len(st.paths) and parse_capacities(link_capacity) is None:
        return Section.empty(title, ABSENT["capacity"])
    source = _capacity_words(st, link_capacity, iperf)
    if not len(http):
        return Section(title).add(f"Link capacity {source}; no HTTP runs to compare with it.").add(st.paths)
    over = st.thresholds["mismatch_above"]
    s = Section(title, intro=INTROS["network"])
    s.add(f"Capacity {source}; a run is network-bound at {threshold:.0%} of its path's capacity or more, and a "
          f"run above {over:.0%} is a capacity mismatch (the capacity belongs to another path).")  # fmt: skip
    for part in _paths_part(st.paths, http) if len(st.paths) else []:
        s.add(part)
    u = pd.to_numeric(http["utilisation"], errors="coerce")
    bound_by = http["path_bound"].tolist()  # the study's reading of each run's utilisation
    mismatch, unmatched = (http["path_bound"] == "capacity mismatch").to_numpy(bool), u.isna().to_numpy(bool)
    bound = (http["path_bound"] == "network").to_numpy(bool)
    s.add(_bound_sentence(len(http), bound, mismatch, unmatched, threshold))
    root = common_folder(ds.runs)  # iperf files named from the folder read, as the verdicts name them
    shown = _utilisation_table(http, load, u, bound_by, root)[~unmatched]
    if len(shown):
        if len(shown) > charts.MAX_BARS:
            s.add(f"The chart shows the first {charts.MAX_BARS} of {len(shown)} runs with a utilisation.")
        labels = [n for n, keep in zip(_run_labels(http), ~unmatched, strict=True) if keep]
        s.add(charts.utilisation_chart(shown.assign(label=labels), threshold))
        s.add(shown.reset_index(drop=True))
    s.save(output_dir, "utilisation")
    return s


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
    return f"measured by {plural(n, 'iperf run')} {where}, per path (TCP tests; payload against goodput)"


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
