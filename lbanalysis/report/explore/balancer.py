"""The evidence from the load balancer: HAProxy statistics per load-test run and per distinct snapshot."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from .render import Section
from .words import ABSENT, INTROS, few, plural, short_sources

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
    from ...formatting import fmt

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
    from ...analysis.balance import pair_by_time, pair_in_transcript

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


def _key_cells(table: pd.DataFrame) -> Any:
    """Each server's backend, name, requests and weight as texts, a row per server (:func:`_snapshot_key`)."""
    return table[[c for c in ("proxy", "server", "requests", "weight") if c in table]].astype(str).to_numpy()


def _snapshot_key(table: pd.DataFrame) -> tuple:
    """What makes two balance tables the same: each server's backend, name, requests and weight."""
    return tuple(map(tuple, _key_cells(table)))


def _per_run_balance(ds: Any, servers: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """The runs that can be paired with snapshots, each run's own figures
    (:func:`~lbanalysis.analysis.balance.balance_per_run`), and why they could not be paired, if so."""
    from ...analysis.balance import balance_per_run

    pairable = _pairable(ds.runs, servers) if len(ds.runs) and "tool" in ds.runs else ds.runs.iloc[0:0]
    if not len(pairable):
        return pairable, pd.DataFrame(), []
    try:
        return pairable, balance_per_run(pairable, servers), []
    except (ValueError, KeyError) as e:
        return pairable, pd.DataFrame(), [f"The snapshots around each run could not be paired: {e}."]


def _per_run_parts(runs: pd.DataFrame, per_run: pd.DataFrame) -> tuple[list[Any], set[tuple]]:
    """Per load-test run and backend: a sentence (or why it cannot be judged), then one table of every run's
    servers; and the balance tables shown (a snapshot showing the same is said once)."""
    n = len(per_run[["run_source", "run_run"]].drop_duplicates())
    parts: list[Any] = [
        "### Per load-test run",
        f"{plural(n, 'run')} with a snapshot just before and just after {'it' if n == 1 else 'each'}: "
        "the requests each server was given during the run.",
    ]
    keys: set[tuple] = set()
    rows = []
    tools = runs.astype({"source": str}).set_index(["source", "run"])["tool"].to_dict()
    tests = runs[runs["tool"] != "haproxy"].groupby(runs["source"].astype(str)).size().to_dict()
    for (src, run), part in per_run.groupby(["run_source", "run_run"], sort=False):
        tool = tools.get((str(src), run), "")
        name = f"{short_sources([str(src)])[0]} ({tool}{f' run {run}' if tests.get(str(src), 0) > 1 else ''})"
        for proxy, b in part.groupby("proxy", sort=True):
            if str(b.iloc[0].get("note") or ""):
                parts.append(f"{name}, backend `{proxy}`: {b.iloc[0]['note']}.")
                continue
            parts.append(_backend_sentence(f"{name}, ", str(proxy), b))
            rows.append(_balance_rows(b).assign(run=name, backend=str(proxy)))
            keys.add(_snapshot_key(b))
    if rows:
        table = pd.concat(rows, ignore_index=True)
        parts.append(table[["run", "backend", *[c for c in table.columns if c not in ("run", "backend")]]])
    return parts, keys


def _paired_parts(servers: pd.DataFrame, paired: set[tuple[str, Any]]) -> list[str]:
    """What the snapshots taken around the runs count, and the heading of the others, if any."""
    if not paired:
        return []
    parts = [f"The {plural(len(paired), 'snapshot')} taken around these runs count from HAProxy's start; the "
             "runs' own figures above are their differences."]  # fmt: skip
    everyone = {(str(src), run) for src, run in servers[["source", "run"]].drop_duplicates().itertuples(index=False)}
    if everyone - paired:
        parts.append("### Other snapshots")
    return parts


def _distinct_snapshots(
    servers: pd.DataFrame, paired: set[tuple[str, Any]]
) -> tuple[dict[tuple, list[str]], dict[tuple, pd.DataFrame], list[str]]:
    """The snapshots not paired with a run, by what they show (:func:`_snapshot_key`): their names, the balance
    table of each distinct form, and a note for each that cannot be balanced."""
    from ...analysis.balance import balance_each, used_columns

    sources = list(dict.fromkeys(servers["source"].astype(str)))
    short = dict(zip(sources, short_sources(sources), strict=True))
    snaps = used_columns(servers).assign(source=servers["source"].astype(str),
                                         run=servers["run"] if "run" in servers else 0)  # fmt: skip
    every = snaps[["source", "run"]].dropna().drop_duplicates().sort_values(["source", "run"])
    count = every.groupby("source").size().to_dict()
    mine = [(src, run) for src, run in every.itertuples(index=False) if (src, run) not in paired]
    if len(mine) < len(every):
        snaps = snaps[pd.MultiIndex.from_frame(snaps[["source", "run"]]).isin(mine)]
    out, why = balance_each(snaps)  # every snapshot in one pass
    key_cells = _key_cells(out)  # every table's at once: each snapshot's key is its rows' (_snapshot_key)
    at = {k: (int(i[0]), int(i[-1]) + 1) for k, i in out.groupby(["source", "run"], sort=False).indices.items()}
    table_of = out.drop(columns=["source", "run"])
    seen: dict[tuple, list[str]] = {}
    tables: dict[tuple, pd.DataFrame] = {}
    notes: list[str] = []
    nth = dict.fromkeys(count, 0)
    for source, run in every.itertuples(index=False):
        nth[source] += 1
        if (source, run) in paired:
            continue
        name = short[source] + (f" (snapshot {nth[source]} of {count[source]})" if count[source] > 1 else "")
        if (source, run) in why:
            notes.append(f"`{name}`: {why[(source, run)]}.")
            continue
        a, b = at[(source, run)]
        key = tuple(map(tuple, key_cells[a:b]))
        seen.setdefault(key, []).append(name)
        if key not in tables:
            tables[key] = table_of.iloc[a:b].reset_index(drop=True)
    return seen, tables, notes


def _snapshot_parts(seen: dict[tuple, list[str]], tables: dict[tuple, pd.DataFrame], per_run_keys: set[tuple]) -> list:
    """Each distinct snapshot once: a sentence and a table per backend it judges; the backends it cannot judge
    said once each, with every snapshot that shows them."""
    parts: list[Any] = []
    judged = [k for k in seen if (tables[k]["note"].fillna("").astype(str) == "").any() and k not in per_run_keys]
    if any(len(seen[k]) > 1 for k in judged):
        parts.append(f"{plural(sum(len(v) for v in seen.values()), 'snapshot')} in "
                     f"{plural(len(seen), 'distinct form')}: files that show the same servers with the same counts "
                     "are one table below.")  # fmt: skip
    unjudged: dict[tuple[str, str], list[str]] = {}  # (backend, why) -> snapshots: said once
    for key, names in seen.items():
        where = f"`{names[0]}`" if len(names) == 1 else f"{plural(len(names), 'file')} ({few(names)})"
        if key in per_run_keys:  # the snapshot after a run that counted from zero: the run's table above
            parts.append(f"{where}: the same counts as the load-test run above (its snapshot before counted none).")
            continue
        for proxy, rows in tables[key].groupby("proxy", sort=True):
            if str(rows.iloc[0]["note"] or ""):
                unjudged.setdefault((str(proxy), str(rows.iloc[0]["note"])), []).extend(names)
                continue
            parts += [_backend_sentence(f"{where}, ", str(proxy), rows), _balance_rows(rows)]
    for (proxy, why), names in unjudged.items():
        where = f"`{names[0]}`" if len(names) == 1 else f"{plural(len(names), 'snapshot')} ({few(names)})"
        parts.append(f"Backend `{proxy}` in {where}: {why}.")
    return parts


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
    title = "Load balancer"
    servers = getattr(ds, "servers", None)
    if servers is None or servers.empty:
        return Section.empty(title, ABSENT["haproxy"])
    s = Section(title, intro=INTROS["balance"])
    pairable, per_run, parts = _per_run_balance(ds, servers)
    per_run_keys: set[tuple] = set()
    paired: set[tuple[str, Any]] = set()
    if len(per_run):
        run_parts, per_run_keys = _per_run_parts(ds.runs, per_run)
        paired = _paired_snapshots(pairable, servers)
        parts += run_parts + _paired_parts(servers, paired)
    seen, tables, notes = _distinct_snapshots(servers, paired)
    for part in parts + _snapshot_parts(seen, tables, per_run_keys) + notes:
        s.add(part)
    return s
