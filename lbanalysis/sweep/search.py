"""A sweep that searches: the most load that meets an objective (``lbanalysis sweep ... --objective --search``).

:func:`search_sweep` runs the tool one run at a time into one folder, and after each run reads the folder
back and judges each load on the objective as :func:`lbanalysis.analysis.engine.study` does
(:func:`lbanalysis.analysis.slo.load_table`), so that the capacity it ends with is the one ``study``
computes from the folder. Over the load of the tool's drive: the rate for open-model tools (wrk2, vegeta,
httperf, k6's arrival rate), the concurrency for closed-model ones (ab, hey, wrk, oha, ...).

1. **doubling** from the start load until a load fails the objective (or ``max_load``); a first load whose
   run makes too few requests for the study is first made **heavier**, just enough (:func:`enough_load`);
2. **bisection** between the highest load met and the lowest failed, until they are within
   ``resolution`` (a share of the load met: ``0.05``) or one apart;
3. **repeats at the boundary**: more runs at both loads of the bracket, until each has ``repeats`` (three
   give the crossing its bootstrap interval);
4. a **confirmation run** at the load met.

Every step is bounded: ``max_runs`` runs at most, ``time_limit`` seconds for the whole search (each run
still stopped at ``timeout``). Each run's manifest row says, in its ``search`` column, which step chose
its load and why. The folder reads back like any sweep's.

>>> next_load(4, None, 1.0, 0.05, integer=True)  # nothing failed yet: double
('doubling', 8)
>>> next_load(4, 8, 1.0, 0.05, integer=True)
('bisection', 6)
>>> next_load(6, 7, 1.0, 0.05, integer=True)  # one apart: done
('', None)
>>> next_load(100, 104, 1.0, 0.05, integer=True)  # within 5% of the load met: done
('', None)
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import pandas as pd

from .evidence import Manifest
from .plan import PlannedRun, SweepRefused, seconds_text
from .processes import Progress, Stop
from .settings import Settings, check_settings

__all__ = ["SearchResult", "enough_load", "next_load", "parse_resolution", "search_sweep"]

#: Runs at each load of the final bracket (the crossing's bootstrap needs three a side).
BOUNDARY_REPEATS = 3
#: Default bounds of a search: runs, and seconds for the whole search.
MAX_RUNS = 20
TIME_LIMIT_S = 600.0


def parse_resolution(text: str | float) -> float:
    """``"5%"`` or ``0.05`` as a share.

    >>> parse_resolution("5%"), parse_resolution(0.1)
    (0.05, 0.1)
    """
    value = str(text).strip()
    share = float(value[:-1]) / 100 if value.endswith("%") else float(value)
    if not 0 < share < 1:
        raise SweepRefused(f"--resolution is a share of the load between 0 and 100 %, not {text!r}")
    return share


def next_load(
    met: float | None, failed: float | None, start: float, resolution: float, *, integer: bool
) -> tuple[str, Any]:
    """The step and the next load of the search, from the highest load met and the lowest failed above it:
    ``("doubling", 2 × met)``, ``("bisection", midpoint)``, or ``("", None)`` when the bracket is within
    ``resolution`` (or one apart for whole loads)."""
    if met is None:
        return ("", None) if failed is not None else ("start", start)
    if failed is None:
        return "doubling", (int(met * 2) if integer else met * 2)
    if (failed - met) <= resolution * met or (integer and failed - met <= 1):
        return "", None
    mid = (met + failed) / 2
    return "bisection", (round(mid) if integer else mid)


class _SearchManifest(Manifest):
    """The sweep's manifest, each row with the ``search`` column of the run being made."""

    why = ""

    def add(self, **row: object) -> None:
        super().add(**{**row, "search": self.why})


@dataclass
class SearchResult:
    """What a search did: its folder, runs, its steps (load, step, why, judgement), why it stopped, and the
    capacity the study computes from the folder (one row per series, :data:`~lbanalysis.analysis.slo.CAPACITY_COLUMNS`)."""

    output: Path
    objective: str
    steps: list[dict[str, Any]] = field(default_factory=list)
    stopped: str = ""
    capacity: pd.DataFrame = field(default_factory=pd.DataFrame)
    failed: int = 0

    @property
    def done(self) -> int:
        return len(self.steps)


def _judge(out: Path, objective: Any, load: str, *, whole: bool = True) -> tuple[pd.DataFrame, Any]:
    """The folder read back and studied: the loads' judgements (one series) and the study. ``whole=False``:
    the runs' outputs and the manifest only (between runs: the CPU files change no judgement, only the verdict)."""
    from ..analysis.engine import study
    from ..analysis.slo import load_table
    from ..reader import read

    if whole:
        ds = read(out, table="all", errors="skip", progress=False)
    else:
        files = sorted(out.glob("[0-9][0-9][0-9]-*.txt"))
        ds = read(files, table="all", errors="skip", progress=False, manifest=out / "manifest.csv")
    st = study(ds, objective=objective, load=load)
    table = load_table(st.runs, st.verdicts, objective, **st.details)
    return table, st


def _bracket(table: pd.DataFrame) -> tuple[float | None, float | None, str]:
    """The highest load met below the lowest failed (walking up), the lowest failed, and why a load cannot be
    judged ("" when all can)."""
    met = failed = None
    for r in table.sort_values("level").itertuples():
        if pd.isna(r.met):
            return met, failed, r.why or f"the runs at {r.level:g} cannot be judged"
        if r.met:
            met = r.level
        else:
            failed = r.level
            break
    return met, failed, ""


def search_sweep(
    tool: str,
    url: str,
    objective: Any,
    *,
    output: str | os.PathLike,
    start: int | None = None,
    resolution: str | float = 0.05,
    max_runs: int = MAX_RUNS,
    time_limit: float = TIME_LIMIT_S,
    max_load: int | None = None,
    repeats: int = BOUNDARY_REPEATS,
    requests: int | None = None,
    duration: str | int | None = None,
    extra: Sequence[str] = (),
    labels: Iterable[str] | Mapping[str, object] | None = None,
    haproxy_stats: str | None = None,
    timeout: float | None = None,
    monitors: Iterable[str] | Mapping[str, str] | None = None,
    progress: bool | None = None,
    stream: TextIO | None = None,
) -> SearchResult:
    """Search the most load that meets ``objective`` (see the module docstring); the folder reads like a sweep's.

    ``start``: the first load (default 1 for a concurrency, 10 for a rate); ``resolution``: ``"5%"``;
    ``max_runs``, ``time_limit``: the search's bounds; ``max_load``: the doubling's ceiling (default: none);
    ``repeats``: runs at each load of the final bracket. The other options are :func:`lbanalysis.sweep.sweep`'s.
    """
    from ..analysis.objective import Objective

    stream = stream or sys.stderr
    objective = Objective.of(objective)
    share = parse_resolution(resolution)
    if max_runs < 1:
        raise SweepRefused(f"--max-runs must be 1 or more, not {max_runs}")
    s = check_settings(
        tool, url, [1], output, 1, requests, duration, extra, labels, None, 0, haproxy_stats, "up", 0, timeout,
        monitors=monitors,
    )  # fmt: skip
    load_col = s.drive.load_column
    first = int(start) if start else (1 if load_col == "concurrency" else 10)
    if requests is not None and load_col == "concurrency" and max_load and requests < max_load:
        raise SweepRefused(f"--requests {requests} is below --max-load {max_load}: each client needs a request")
    print(
        f"lbanalysis: searching the most {'rate' if load_col != 'concurrency' else 'concurrency'} of "
        f"{s.drive.executable} that meets {objective}: from {first}, to {share:.0%}, at most {max_runs} runs and "
        f"{seconds_text(time_limit)}",
        file=stream,
        flush=True,
    )
    s.out.mkdir(parents=True, exist_ok=True)
    (s.out / "cpu").mkdir(exist_ok=True)
    if s.haproxy_stats:
        (s.out / "haproxy").mkdir(exist_ok=True)
    for name in s.monitors:
        (s.out / "monitor" / name).mkdir(parents=True, exist_ok=True)
    result = SearchResult(s.out, str(objective))
    manifest = _SearchManifest(s.out / "manifest.csv", s.labels, (*s.columns(), "search"))
    plan = _Plan(objective, first, share, max_runs, time_limit, max_load, repeats)
    try:
        with Stop() as stop:
            _search(s, plan, manifest, stop, result, progress, stream)
    finally:
        manifest.close()
    if result.steps:
        _, st = _judge(s.out, objective, "concurrency")
        result.capacity = st.capacity()
    return result


@dataclass
class _Plan:
    """What the search is asked: the objective, start, resolution, bounds and repeats at the boundary."""

    objective: Any
    first: int
    share: float
    max_runs: int
    time_limit: float
    max_load: int | None
    repeats: int
    t0: float = field(default_factory=time.monotonic)
    confirmed: bool = False


def _search(
    s: Settings, plan: _Plan, manifest: _SearchManifest, stop: Stop, result: SearchResult, progress: bool | None,
    stream: TextIO,
) -> None:  # fmt: skip
    """The steps of the search, each run judged before the next is chosen."""
    from .run import one_run

    bar = Progress.start(plan.max_runs, None, stream, False if progress is None else progress)
    counts: dict[int, int] = {}
    step, load, why = "start", plan.first, f"the first load, {plan.first}"
    while True:
        result.stopped = _bound_reached(plan, result, stop)
        if result.stopped:
            return
        counts[load] = counts.get(load, 0) + 1
        run = PlannedRun(result.done + 1, int(load), counts[load])
        manifest.why = f"{step}: {why}"
        notes, took = one_run(s, run, manifest, stop, bar)
        result.failed += bool(notes)
        table, st = _judge(s.out, plan.objective, "concurrency", whole=False)
        said = _record_step(result, table, run, step, why, took, bar)
        if notes:
            result.stopped = f"run {run.index:03d} failed ({notes[0].split(';')[0]}): the search stops"
            return
        if said is None:
            reason = _left_out(st.runs, run.index)
            if "too few requests" in reason and all(x["judged"] == "cannot judge" for x in result.steps):
                heavier = enough_load(load, _attempts(st.runs, run.index))
                step, why = "heavier", (f"the run at {load} had too few requests for the study: {heavier} to "
                                        "give enough")  # fmt: skip
                load = heavier
                continue
            result.stopped = f"cannot judge the run at {load}: {reason}"
            return
        step, load, why = _decide(table, plan)
        if not step:
            result.stopped = why
            return


def _bound_reached(plan: _Plan, result: SearchResult, stop: Stop) -> str:
    """Why the search stops before its next run (Ctrl-C, --max-runs, its time limit), else ""."""
    if stop.requested:
        return f"interrupted: {result.done} runs done"
    if result.done >= plan.max_runs:
        return f"stopped at --max-runs {plan.max_runs}: {why_not(result)}"
    if time.monotonic() - plan.t0 > plan.time_limit:
        return f"stopped after {seconds_text(plan.time_limit)} (the search's time limit): {why_not(result)}"
    return ""


def _record_step(
    result: SearchResult, table: pd.DataFrame, run: PlannedRun, step: str, why: str, took: float, bar: Progress
) -> pd.Series | None:
    """The judgement of the run's load after it, kept in the result and shown; None: the load cannot be judged."""
    mine = table[table["level"] == run.load]
    said = mine.iloc[0] if len(mine) else None
    verdict = (
        "cannot judge" if said is None or pd.isna(said["met"])
        else "met" if said["met"] else f"failed ({said['failed_clause']})"
    )  # fmt: skip
    values = "" if said is None else said["values"]
    result.steps.append({"run": run.index, "load": run.load, "step": step, "why": why, "judged": verdict,
                         "values": values, "seconds": round(took, 1)})  # fmt: skip
    bar.step(f"{step} {run.load}: {verdict}" + (f" ({values})" if values else ""))
    return None if verdict == "cannot judge" and said is None else said


def _decide(table: pd.DataFrame, plan: _Plan) -> tuple[str, int, str]:
    """The next step, its load and why; or ("", 0, why the search is done)."""
    met, failed, unjudged = _bracket(table)
    if unjudged:
        return "", 0, f"cannot judge {plan.objective}: {unjudged}"
    if met is None:
        lowest = failed if failed is not None else plan.first
        if lowest > plan.first:  # the loads below it had too few requests to judge
            return "", 0, (f"{plan.objective} failed at {lowest:g}, the lowest load with enough requests to judge: "
                           "give a longer --duration to judge lighter loads")  # fmt: skip
        return "", 0, f"{plan.objective} failed at the first load, {plan.first}: start lower (--loads N)"
    step, nxt = next_load(met, failed, plan.first, plan.share, integer=True)
    if nxt is not None and failed is None and plan.max_load is not None and nxt > plan.max_load:
        if met >= plan.max_load:
            return "", 0, f"{plan.objective} met at --max-load {plan.max_load}: the capacity is above it"
        nxt = plan.max_load
    if nxt is not None:
        why = (f"{met:g} met the objective and no load failed yet: twice it" if step == "doubling" else
               f"midway between {met:g} (met) and {failed:g} (failed: {_failed_clause(table, failed)})")  # fmt: skip
        return step, int(nxt), why
    lo, hi = int(met), int(failed or met)
    short = [lv for lv in (lo, hi) if _runs_at(table, lv) < plan.repeats]
    if short:
        load = min(short, key=lambda lv: (_runs_at(table, lv), lv))
        return "repeat", load, (f"at the boundary between {lo} (met) and {hi} (failed): run "
                                f"{_runs_at(table, load) + 1} of {plan.repeats} at {load}")  # fmt: skip
    if not plan.confirmed:
        plan.confirmed = True
        return "confirmation", lo, f"at {lo} again, the highest load that met {plan.objective}"
    return "", 0, f"done: the bracket is {lo} (met) to {hi} (failed), within {plan.share:.0%} or one apart"


def _rows_of(runs: pd.DataFrame, index: int) -> pd.DataFrame | None:
    """The study's rows of run ``index`` of the search (its file is ``NNN-...``); None: the runs name no file."""
    return runs[runs["source"].astype(str).str.contains(f"{index:03d}-", regex=False)] if "source" in runs else None


def _left_out(runs: pd.DataFrame, index: int) -> str:
    """Why the study left run ``index`` of the search out (too short, too few requests), with what to change."""
    mine = _rows_of(runs, index)
    mine = runs if mine is None else mine
    words = [str(w) for w in mine.get("left_out", pd.Series(dtype=object)) if isinstance(w, str) and w]
    if words:
        return f"the study leaves it out ({'; '.join(words)}): give a longer --duration or more --requests"
    return "its output shows no result the study can use (see the run's file)"


def enough_load(load: int, attempts: float) -> int:
    """The next load after a run at ``load`` made too few ``attempts`` for the study (its ``min_requests``):
    in proportion (a tenth over), as an open model's rate gives, but at least one more and at most twice.

    >>> enough_load(45, 90)  # 90 requests at a rate of 45 in 2 s: 55 gives 110
    55
    >>> enough_load(1, 30), enough_load(4, float("nan"))  # a closed model's concurrency: twice at most
    (2, 8)
    """
    from ..analysis.rules import THRESHOLDS

    share = THRESHOLDS["min_requests"] * 1.1 / attempts if attempts > 0 else 2.0
    return max(load + 1, min(math.ceil(load * share - 1e-9), 2 * load))


def _attempts(runs: pd.DataFrame, index: int) -> float:
    """The attempts the study counted for run ``index`` of the search (NaN: none)."""
    mine = _rows_of(runs, index)
    if mine is None or "attempts" not in mine:
        return float("nan")
    values = pd.to_numeric(mine["attempts"], errors="coerce").dropna()
    return float(values.iloc[0]) if len(values) else float("nan")


def _runs_at(table: pd.DataFrame, level: float) -> int:
    mine = table[table["level"] == level]
    return int(mine["runs"].iloc[0]) if len(mine) else 0


def _failed_clause(table: pd.DataFrame, level: float) -> str:
    mine = table[table["level"] == level]
    return str(mine["failed_clause"].iloc[0]) if len(mine) else ""


def why_not(result: SearchResult) -> str:
    """The bracket reached when the search stopped early, in words."""
    met = [s["load"] for s in result.steps if s["judged"] == "met"]
    failed = [s["load"] for s in result.steps if s["judged"].startswith("failed")]
    if not met:
        return "no load met the objective yet"
    hi = [f for f in failed if f > max(met)]
    return f"the highest load met is {max(met)}" + (f", the lowest failed {min(hi)}" if hi else ", none failed yet")
