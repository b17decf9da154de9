"""What bounded a series, as data: the ordered table of verdict rules.

Each :class:`Rule` has a name (the verdict it gives), its thresholds (name,
default, meaning), a check and the sentence that states its evidence. The
rules are tried in the order of :data:`RULES`; the first whose check
answers gives the series its verdict. The thresholds of
:func:`lbanalysis.analysis.engine`, the documentation (:func:`rules_table`,
:func:`thresholds_text`) and the explore report's parameters derive from
this table: adding a rule is adding a line here.

A check takes the :class:`Evidence` of one series (its runs by load, the
figures the study computed) and the thresholds, and returns ``None`` (the
rule does not apply) or a :class:`Finding`: the figures that fill the
rule's sentence, a confidence (``high``, ``medium`` or ``low``; empty where
the verdict names no bound: "cannot tell", "capacity mismatch"), and notes
(what could not be checked).

Guards come first or inside the checks and say "cannot tell" rather than
guess: every run too short or too few requests, a latency printed too
coarsely to tell, a load generator whose printed latency proves nothing
(ab's *Time per request* is concurrency × time / requests, so throughput ×
latency equals the concurrency by construction), an open-loop run (a fixed
rate: idle connections are no sign of a client that could not keep up),
one run per load (the noise is unknown: no knee is called significant).

>>> [r.name for r in RULES][:4]
['errors', 'capacity mismatch', 'network', 'cannot tell']
>>> THRESHOLDS["error_share"], THRESHOLDS["network_threshold"]
(0.01, 0.8)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .evidence.capacity import path_bound

__all__ = [
    "NOT_RULED_OUT",
    "RESOURCES",
    "RULES",
    "THRESHOLDS",
    "VERDICTS",
    "Evidence",
    "Finding",
    "Rule",
    "kept_up",
    "rules_markdown",
    "rules_table",
    "thresholds_text",
]


@dataclass
class Evidence:
    """What a rule sees of one series.

    ``loads``: one row per load (index: the load, ascending) of the runs used
    for curves (not the tiny, debug or duplicate ones): ``runs``, ``x``
    (mean requests/s), ``r`` (mean latency used, s), ``step`` (the step it
    was printed to), ``util`` (utilisation of the path), ``used_bits``,
    ``cap``, ``rate`` (a fixed rate asked: open loop), ``sent`` (the rate the
    tool says it sent, where it does: vegeta), ``unconnected`` (connections
    that failed to open: wrk's connect errors), ``delay`` (think time).
    ``errors``: one row per load of every run (tiny ones included): ``bad``,
    ``attempts``, ``share``. ``load``: the load column's name. ``tool``;
    ``closed``: closed loop; ``latency_note``: why the printed latency cannot
    show an idle client (empty when it can); ``excluded``: why runs were
    left out; ``unseen_think_time``: a wait the tool's output would not show; ``think_source``: where the wait
    asked was read (``loads``' ``think``, the mean wait; ``iter_rate``, ``iter_s``: iterations/s and the mean
    duration of one, waits included).
    """

    load: str
    loads: pd.DataFrame
    errors: pd.DataFrame
    tool: str = ""
    closed: bool = True
    latency_note: str = ""
    latency_basis: str = ""
    excluded: list[str] = field(default_factory=list)
    unseen_think_time: str = ""
    think_source: str = ""  # where the wait asked (loads' think) was read: a script's line, siege -d
    basis: str = ""
    capacity_source: str = ""
    network: pd.DataFrame | None = None  # as loads, over every run with a throughput (short ones too)
    server_side: str = ""  # what load-balancer statistics of the same origin show of a server-side queue
    capacity_note: str = ""
    cpu: pd.DataFrame | None = None  # per load: the CPU figures of resources.cpu_by_run (shares 0-1, file:line)
    others: pd.DataFrame | None = None  # other series against the same target and workload: series, tool, best, at
    direct: dict[str, Any] | None = None  # through a load balancer: the direct series to its backend (series, best)


@dataclass
class Finding:
    """A rule's answer: the figures of its sentence, a confidence (empty: no bound named), notes."""

    figures: dict[str, Any]
    confidence: str = "high"
    notes: list[str] = field(default_factory=list)
    sentence: str | None = None  # replaces the rule's sentence (a guard's own words)
    verdict: str | None = None  # replaces the rule's name (a guard inside a rule: "cannot tell")
    resource: str | None = None  # replaces the rule's resource (one of RESOURCES, or "": the evidence does not say)


@dataclass(frozen=True)
class Rule:
    """One verdict rule: name, thresholds (name -> (default, meaning)), check, evidence sentence, meaning, and the
    resource it names (empty: the evidence does not say; a check may name another)."""

    name: str
    thresholds: dict[str, tuple[float, str]]
    check: Callable[[Evidence, dict[str, float]], Finding | None]
    evidence: str
    meaning: str
    resource: str = ""


def _pct(x: float) -> str:
    return f"{x * 100:+.0f}%"


def _bits(v: float) -> str:
    from .network import format_bits_per_s

    return format_bits_per_s(v)


# ------------------------------------------------------------------ checks ---
def _errors(e: Evidence, t: dict[str, float]) -> Finding | None:
    share = e.errors["share"]
    if not share.notna().any():
        return None
    at = share.idxmax()
    if not share[at] > t["error_share"]:
        return None
    row = e.errors.loc[at]
    where = f"at {e.load} {at:g}" if isinstance(at, (int, float)) and math.isfinite(at) else "in these runs"
    return Finding({"where": where, "share": row["share"], "bad": row["bad"], "attempts": row["attempts"],
                    "basis": row["basis"]})  # fmt: skip


def _net(e: Evidence) -> pd.DataFrame:
    return e.network if e.network is not None else e.loads


def _util_at(e: Evidence) -> tuple[Any, float] | None:
    util = _net(e)["util"] if "util" in _net(e) else pd.Series(dtype=float)
    if not util.notna().any():
        return None
    at = util.idxmax()
    return at, float(util[at])


def _mismatch(e: Evidence, t: dict[str, float]) -> Finding | None:
    found = _util_at(e)
    if found is None or path_bound(found[1], t) != "capacity mismatch":
        return None
    at, util = found
    row = _net(e).loc[at]
    return Finding(
        {
            "at": at,
            "util": util,
            "used": _bits(row["used_bits"]),
            "cap": _bits(row["cap"]),
            "basis": e.basis,
            "source": e.capacity_source,
        },
        confidence="",
    )


def _network(e: Evidence, t: dict[str, float]) -> Finding | None:
    found = _util_at(e)  # above mismatch_above, the rule before this one has decided
    if found is None or path_bound(found[1], t) != "network":
        return None
    at, util = found
    row = _net(e).loc[at]
    return Finding(
        {
            "at": at,
            "util": util,
            "used": _bits(row["used_bits"]),
            "cap": _bits(row["cap"]),
            "basis": e.basis,
            "source": e.capacity_source,
        }
    )


def _nothing_usable(e: Evidence, t: dict[str, float]) -> Finding | None:
    if len(e.loads):
        return None
    why = count_reasons(e.excluded) or f"no {e.load} in these runs"
    return Finding({"why": why}, confidence="")


def _in_flight(e: Evidence) -> dict[str, float]:
    t = e.loads
    top = t.index.max()
    x, r, step = t.loc[top, "x"], t.loc[top, "r"], t.loc[top, "step"]
    step = step if pd.notna(step) else 0.0
    return {
        "top": top,
        "in_flight": x * r,
        "ratio": x * r / top if top > 0 else math.nan,
        "low": x * max(r - step / 2, 0.0),
        "high": x * (r + step / 2),
        "step_ms": step * 1e3,
    }


def _busy_users(e: Evidence) -> dict[str, Any] | None:
    """The users busy in their iterations at the highest load, waits included, where the output or the script
    says how long an iteration lasts: iterations/s × iteration duration (k6), else throughput × (latency + the
    wait asked) (one request per wait: Locust's task, siege's request, JMeter's timed sampler). None: unknown, or
    no wait asked (the requests in flight are then the users busy)."""
    row = e.loads.loc[e.loads.index.max()]
    top = e.loads.index.max()
    rate, length = row.get("iter_rate", math.nan), row.get("iter_s", math.nan)
    if pd.notna(rate) and pd.notna(length) and rate > 0:
        busy = rate * length
        how = f"iterations/s × iteration duration = {rate:,.4g} × {length:.3g} s"
    elif pd.notna(row.get("think", math.nan)) and row["think"] > 0 and pd.notna(row["r"]):
        busy = row["x"] * (row["r"] + row["think"])
        src = f" ({e.think_source})" if e.think_source else ""
        how = f"throughput × (latency + the wait asked, {row['think']:g} s{src})"
    else:
        return None
    return {"busy": busy, "busy_ratio": busy / top if top > 0 else math.nan, "how": how}


def _generator(e: Evidence, t: dict[str, float]) -> Finding | None:
    t_ = e.loads
    top = t_.index.max()
    if not e.closed or e.latency_note or not pd.notna(t_.loc[top, "r"]):
        return None
    f = _in_flight(e)
    busy = _busy_users(e)
    if busy is not None and not busy["busy_ratio"] < t["generator_share"]:
        return None  # every user kept its iterations going: the few requests in flight are the waits it asked
    if t_.loc[top].get("ramped", 0) == 1 and not f["ratio"] >= t["generator_share"]:
        f["busy_words"] = (f"; {busy['how']} = {busy['busy']:.1f} users busy on average over the run"
                           if busy is not None else "")  # fmt: skip
        return Finding(f, confidence="", verdict="cannot tell",
                       sentence="at {load} {top:g}, throughput × latency = {in_flight:.1f} requests in flight"
                                "{busy_words}; but the clients ramped up and down during the run (stages): "
                                "{top:g} is their most, not the load of the whole run, so idle clients cannot be "
                                "told from the ramp")  # fmt: skip
    if t_.loc[top, "r"] == 0 and not f["step_ms"] > 0:
        from .little import ZERO_LATENCY

        return Finding(f, confidence="", sentence=ZERO_LATENCY, verdict="cannot tell")
    if busy is None and f["step_ms"] > 0 and f["low"] < t["generator_share"] * top <= f["high"]:
        return Finding(f, confidence="", verdict="cannot tell",
                       sentence="at {load} {top:g}, throughput × latency = {in_flight:.1f} requests in flight, but with "
                                "the mean latency printed to {step_ms:g} ms anything from {low:.1f} to {high:.1f}: too "
                                "coarse to tell whether the {top:g} clients were busy (threshold "
                                "{generator_share:.0%})")  # fmt: skip
    if not f["ratio"] < t["generator_share"]:
        return None
    refused = t_.loc[top, "unconnected"] if "unconnected" in t_ else math.nan
    if pd.notna(refused) and refused > 0 and f["in_flight"] >= t["generator_share"] * max(top - refused, 0.0):
        # the connections that opened were busy: too few opened, by the client's limits or the server's accept queue
        f.update(refused=refused, opened=max(top - refused, 0.0))
        return Finding(f, confidence="", verdict="cannot tell",
                       sentence="at {load} {top:g}, {refused:,.0f} of the {top:g} connections failed to connect "
                                "(connect errors): the {opened:,.0f} that opened carried {in_flight:.1f} requests in "
                                "flight, busy; fewer connections than asked, by the client's limits (open files, "
                                "ports) or the server's accept queue: the output cannot tell which")  # fmt: skip
    f["spread"] = (
        f" ({f['low']:.1f} to {f['high']:.1f} with the mean latency printed to {f['step_ms']:g} ms)"
        if f["step_ms"] > 0
        else ""
    )
    if busy is not None:
        f.update(busy)
        f["why"] = (f"{busy['how']} = {busy['busy']:.1f} users busy in their iterations (waits included), "
                    f"{busy['busy_ratio']:.0%} of them: the client did not keep its users iterating")  # fmt: skip
        return Finding(f)
    think = t_.loc[top, "think"] if "think" in t_ else math.nan
    if e.unseen_think_time and not pd.notna(think):
        read = f"the script read does not size it: {e.think_source}" if e.think_source else "no script read"
        f["why"] = (f"the client did not keep its connections busy, or {e.unseen_think_time}: the share of each "
                    f"iteration spent waiting is unknown (no iteration duration or rate printed, {read}), "
                    "so idle clients cannot be told from think time")  # fmt: skip
        return Finding(f, confidence="low")
    f["why"] = "the client did not keep its connections busy"
    return Finding(f)


def count_reasons(why: Sequence[str]) -> str:
    """Reasons runs were left out, counted by kind (the words before the colon).

    >>> count_reasons(["too short: 0.2 s (under 1 s)", "too short: 0.3 s (under 1 s)", "no throughput"])
    'too short (2), no throughput (1)'
    """
    kinds = Counter(w.split(":", 1)[0] for w in why if w)  # in the order each kind first comes
    return ", ".join(f"{k} ({n})" for k, n in kinds.items())


def _one_load(e: Evidence, t: dict[str, float]) -> Finding | None:
    if len(e.loads) >= int(t["min_loads"]):
        return None
    n = len(e.loads)
    return Finding({"n": n, "loads": f"{n} load{'' if n == 1 else 's'}"}, confidence="")


def _no_latency(e: Evidence, t: dict[str, float]) -> Finding | None:
    if e.loads["r"].notna().any():
        return None
    return Finding({}, confidence="")


def _knee_of(e: Evidence, t: dict[str, float]) -> Any:
    x = e.loads["x"]
    return x.index[x >= (1 - t["flat_gain"]) * x.max()].min()


def _repeats(e: Evidence) -> bool:
    return bool((e.loads["runs"] >= 2).any())


#: Why a flat or lagging throughput is no verdict when neither a capacity nor a server-side queue is known.
_SERVER_OR_LINK = (
    "the pattern of a saturated server or of a full link; no capacity is known for this path (give one, or run "
    "iperf on it) and no load-balancer statistics show a server-side queue"
)


def _not_the_network(e: Evidence) -> str | None:
    """What rules the network out (the path's utilisation, or a server-side queue), or None when nothing does."""
    used = _net(e)["util"].max() if "util" in _net(e) else math.nan
    if pd.notna(used):
        return f"; the path was at most {used:.0%} used: not the network"
    return f"; {e.server_side}" if e.server_side else None


def kept_up(answers: pd.Series, asked: pd.Series, share: float) -> pd.Series:
    """Open loop: whether the answers kept up with the rate asked (at least ``share`` of it, the rules'
    ``keep_up_share``), per load.

    >>> kept_up(pd.Series([100.0, 190, 230]), pd.Series([100.0, 200, 400]), 0.9).tolist()
    [True, True, False]
    """
    return answers >= share * asked


def kept_up_finding(e: Evidence, t: dict[str, float]) -> Finding | None:
    """Open loop: at the highest rate asked, did the answers keep up? Below ``keep_up_share`` of the rate, the
    tool sent too little (its own sent rate says so: the load generator), or the server or the path fell
    behind (a saturated server once the network is ruled out, as for a closed loop)."""
    loads = e.loads
    if e.closed or "rate" not in loads or not (loads["rate"] > 0).any():
        return None
    rated = loads[loads["rate"] > 0]
    top = rated.index.max()
    asked, got = rated.loc[top, "rate"], rated.loc[top, "x"]
    if kept_up(got, asked, t["keep_up_share"]):
        return None
    f: dict[str, Any] = {"top": top, "asked": asked, "got": got, "share": got / asked}
    sent = rated.loc[top, "sent"] if "sent" in rated else math.nan
    if pd.notna(sent) and not kept_up(sent, asked, t["keep_up_share"]):
        f.update(sent=sent, sent_share=sent / asked)
        _, cshare, _ = _client_side(e, t, rated.index[-1:])
        return Finding(f, verdict="load generator", resource="client CPU" if _busy(cshare, t) else "",
                       sentence="at {load} {top:g} the tool was asked for {asked:,.10g} requests/s and sent {sent:,.0f} "
                                "({sent_share:.0%}, below {keep_up_share:.0%}): the load generator could not send at "
                                "the rate asked")  # fmt: skip
    r = rated["r"]
    first = r.first_valid_index()
    f["latency"] = (
        f"; mean latency {'rose' if r[top] > r[first] else 'went'} from {_ms(r[first])} at {e.load} {first:g} to "
        f"{_ms(r[top])}"
        if first is not None and first != top and pd.notna(r[top]) and r[first] > 0
        else ""
    )
    notes = [] if _repeats(e) else ["one run per load: the run-to-run noise is unknown"]
    f["side"] = _not_the_network(e)
    resource, f["cpu"], ruled_out = _server_resource(e, t)
    if f["side"] is None and resource in ("server CPU", "load balancer CPU"):
        f["side"] = ""  # a CPU used up behind the client: not the path
    if f["side"] is None:
        return Finding(f, confidence="", verdict="cannot tell",
                       sentence="at {load} {top:g} the tool was asked for {asked:,.10g} requests/s (open loop) and the "
                                "answers came at {got:,.0f} ({share:.0%}, below {keep_up_share:.0%}){latency}: "
                                + _SERVER_OR_LINK)  # fmt: skip
    if not ruled_out:
        notes.append(NOT_RULED_OUT)
    return Finding(f, confidence="high" if not notes else "medium", notes=notes, resource=resource)


def _ms(seconds: float) -> str:
    from ..formatting import fmt

    return fmt(seconds, "s")


def _saturation(e: Evidence, t: dict[str, float]) -> Finding | None:
    loads = e.loads
    top = loads.index.max()
    knee = _knee_of(e, t)
    if knee >= top or _kept_fixed_rate(e, t):  # a fixed rate kept: flat by design, no plateau
        return None
    gain = loads.loc[top, "x"] / loads.loc[knee, "x"] - 1
    r0 = loads.loc[knee, "r"]
    growth = loads.loc[top, "r"] / r0 - 1 if r0 > 0 else math.nan
    if not (gain <= 2 * t["flat_gain"] and pd.notna(growth) and growth >= t["latency_growth"]):
        return None
    notes, confidence = [], "high"
    f = _in_flight(e)
    if e.latency_note:
        notes.append(e.latency_note)
        confidence = "medium"
    elif e.closed and pd.notna(f["ratio"]) and abs(f["ratio"] - 1) > t["little_tolerance"]:
        return None  # Little's law off: the clients were not all busy, not a saturated server
    if not _repeats(e):
        notes.append("one run per load: the run-to-run noise is unknown, so the knee is not called significant")
        confidence = "low" if confidence == "high" else confidence
    fall = " (falling past the peak)" if gain < -2 * t["flat_gain"] else ""
    side = _not_the_network(e)
    resource, cpu, ruled_out = _server_resource(e, t)
    if side is None and resource in ("server CPU", "load balancer CPU"):
        side = ""  # a CPU used up behind the client: not the path
    if side is None:  # a flat throughput alone cannot tell a server from a full link
        return Finding(
            {"knee": knee, "gain": _pct(gain) + fall, "growth": _pct(growth)},
            confidence="",
            verdict="cannot tell",
            sentence="past {load} {knee:g}, throughput changed {gain} while mean latency rose {growth}: "
            + _SERVER_OR_LINK,
        )
    little = (
        f"; Little's law holds at {e.load} {top:g}: throughput × latency = {f['in_flight']:.1f} requests in "
        f"flight for {top:g} asked"
        if e.closed and not e.latency_note and pd.notna(f["ratio"])
        else ""
    )
    if not ruled_out and confidence == "high":
        confidence = "medium"
    if not ruled_out:
        notes.append(NOT_RULED_OUT)
    return Finding({"knee": knee, "gain": _pct(gain) + fall, "growth": _pct(growth), "little": little + side + cpu},
                   confidence=confidence, notes=notes, resource=resource)  # fmt: skip


def _kept_from(e: Evidence, t: dict[str, float]) -> float | None:
    """Open loop at a fixed rate (fortio -qps 1000 over more connections, a JMeter plan paced by a throughput
    timer): the lowest load from which the answers kept the rate at every load up to the highest, at every load or
    at two or more at the top (below them, too few clients to reach it). None: not so."""
    loads = e.loads
    if e.closed or "rate" not in loads or not (loads["rate"] > 0).all():
        return None
    kept = kept_up(loads["x"], loads["rate"], t["keep_up_share"]).to_numpy(bool)
    if not len(kept):
        return None
    n = len(kept) - int(pd.Series(kept[::-1]).cummin().sum())  # loads below the kept tail
    if n == 0 or len(kept) - n >= 2:
        return float(loads.index[n])
    return None


def _kept_fixed_rate(e: Evidence, t: dict[str, float]) -> bool:
    """Open loop at a fixed rate the answers kept (:func:`_kept_from`): the throughput is flat because the rate
    asked was, not because something bounded it."""
    return _kept_from(e, t) is not None


def _no_bound(e: Evidence, t: dict[str, float]) -> Finding | None:
    loads = e.loads
    top = loads.index.max()
    start = _kept_from(e, t)
    if start is not None:
        rate = float(loads["rate"].max())
        below = "" if start == loads.index.min() else " (below it, too few clients to reach the rate)"
        paced = f"; the rate asked is the pace of {e.think_source}" if e.think_source else ""
        return Finding({"gain": "+0%", "prev": start, "top": top, "rate": rate, "below": below, "paced": paced},
                       sentence="the answers kept the rate asked ({rate:,.10g} requests/s, open loop) at every {load} "
                                "from {prev:g} to {top:g}{below}: no bound reached in these runs{paced}")  # fmt: skip
    if _knee_of(e, t) < top:
        return None
    prev = loads.index[-2]
    gain = loads.loc[top, "x"] / loads.loc[prev, "x"] - 1
    notes = [] if _repeats(e) else ["one run per load: the run-to-run noise is unknown"]
    return Finding({"gain": _pct(gain), "prev": prev, "top": top}, confidence="high" if not notes else "medium",
                   notes=notes)  # fmt: skip


def _otherwise(e: Evidence, t: dict[str, float]) -> Finding:
    loads = e.loads
    top = loads.index.max()
    knee = _knee_of(e, t)
    gain = loads.loc[top, "x"] / loads.loc[knee, "x"] - 1
    why = [f"throughput past {e.load} {knee:g} changed {_pct(gain)}"]
    r0 = loads.loc[knee, "r"]
    if pd.notna(r0) and r0 > 0:
        why.append(f"latency {_pct(loads.loc[top, 'r'] / r0 - 1)}")
    f = _in_flight(e)
    if e.closed and not e.latency_note and pd.notna(f["ratio"]) and abs(f["ratio"] - 1) > t["little_tolerance"]:
        why.append(f"throughput × latency = {f['in_flight']:.1f} for {f['top']:g} asked (Little's law off by more "
                   f"than {t['little_tolerance']:.0%})")  # fmt: skip
    return Finding({"why": "; ".join(why)}, confidence="")


# --------------------------------------------------------------- resources ---
#: The resources a verdict names (contract names), and what shows each.
RESOURCES: dict[str, str] = {
    "client CPU": "the load generator's CPU: its process used about all the CPU it could use (its threads, a taskset, "
    "a cgroup quota), or its host was that busy",
    "load balancer CPU": "the load balancer's CPU: HAProxy's Idle_pct near 0, or its host busy per core it could use "
    "(one process or thread on one core shows as 1/N of an N-core total)",
    "load balancer queue": "requests waiting in the load balancer for a server (its maxconn): load-balancer "
    "statistics show the queue",
    "load balancer": "the load balancer, neither its CPU nor its queue shown: a direct series to its backend reached "
    "clearly more",
    "server CPU": "the server host's CPU busy, the kernel's share stated",
    "link": "the network path: its capacity used",
}


def _plateau(e: Evidence, t: dict[str, float]) -> pd.Index:
    """The loads of the plateau (from the knee up), or the highest load when throughput still grows."""
    loads = e.loads
    knee = _knee_of(e, t)
    return loads.index[loads.index >= knee] if pd.notna(knee) else loads.index[-1:]


def _cpu_over(e: Evidence, col: str, at: pd.Index) -> tuple[float, str]:
    """The mean of a CPU figure over the loads ``at`` (NaN: none shown) and where it was read (its highest load)."""
    if e.cpu is None or col not in e.cpu:
        return math.nan, ""
    v = e.cpu[col].reindex(at)
    if not v.notna().any():
        return math.nan, ""
    place = e.cpu.get(
        col.replace("_busy", "_at")
        .replace("_kernel", "_at")
        .replace("lb_idle", "lb_idle_at")
        .replace("_cpu_pct", "_at")
        .replace("_warned_pct", "_warned_at")
    )
    where = ""
    if place is not None:
        shown = place.reindex(v.index[v.notna()])
        where = next((x for x in reversed(shown.tolist()) if isinstance(x, str) and x), "")
    return float(v.mean()), where


def _span(e: Evidence, at: pd.Index) -> str:
    return f"at {e.load} {at[0]:g}" if len(at) == 1 else f"at {e.load} {at[0]:g} to {at[-1]:g}"


def _busy(share: float, t: dict[str, float]) -> bool:
    return pd.notna(share) and share >= t["cpu_busy"]


def _client_side(e: Evidence, t: dict[str, float], at: pd.Index) -> tuple[str, float, str]:
    """Who of the client is busiest (the load tool's process, else its host), its share and where it was read."""
    for col, who in (("client_busy", "the load tool's process"), ("client_host_busy", "the client host")):
        share, where = _cpu_over(e, col, at)
        if pd.notna(share):
            return who, share, where
    return "", math.nan, ""


#: The evidence of a load tool that warned its own CPU was used up (its warning, not a measure).
WARNED = (
    "{span} (the plateau), {warner} warned its CPU was above {warned:g} % ({where}): the load generator's CPU was "
    "the bound"
)


def _tool_name(tool: str) -> str:
    """A tool's name as people write it (the registry's description: ``Locust``), else as given."""
    from .. import registry

    return registry.get_tool(tool).description if tool in registry.names() else tool


def _client_cpu(e: Evidence, t: dict[str, float]) -> Finding | None:
    """The load generator's CPU was used up at the plateau: its process (over the cores it could use) or its host,
    or the load tool warned so itself (Locust's "CPU usage above 90%": a lower bound, not a measure)."""
    if e.cpu is None or not len(e.loads):
        return None
    at = _plateau(e, t)
    who, share, where = _client_side(e, t, at)
    f: dict[str, Any] = {"span": _span(e, at), "who": who, "share": share, "where": where}
    notes = []
    if not _busy(share, t):
        warned, w_at = _cpu_over(e, "client_warned_pct", at)
        if not pd.notna(warned):
            return None
        f.update(warner=_tool_name(e.tool), warned=warned, where=w_at)
        notes.append(f"{f['warner']} warns once, when its CPU goes above {warned:g} % of one core at some time "
                     "during the run: not for how long")  # fmt: skip
        if pd.notna(share):
            notes.append(f"{who} used {share:.0%} of the CPU it could use over the run ({where})")
    server, s_at = _cpu_over(e, "server_busy", at)
    lb, lb_at = _cpu_over(e, "lb_busy", at)
    for other, place, name in ((server, s_at, "the server's"), (lb, lb_at, "the load balancer's")):
        if _busy(other, t):
            notes.append(f"{name} CPU was {other:.0%} busy too ({place}): either may have been the bound")
    return Finding(f, confidence="medium" if notes else "high", notes=notes,
                   sentence=WARNED if "warned" in f else None)  # fmt: skip


def _others_best(e: Evidence) -> pd.Series | None:
    if e.others is None or not len(e.others):
        return None
    return e.others.sort_values("best").iloc[-1]


def _cross_series(e: Evidence, t: dict[str, float]) -> Finding | None:
    """A plateau is not the server's when another client reached clearly more against the same target."""
    loads = e.loads
    other = _others_best(e)
    if other is None or len(loads) < 2 or not _knee_of(e, t) < loads.index.max() or _kept_fixed_rate(e, t):
        return None  # (a fixed rate kept: its plateau is the rate asked, not a bound)
    best = float(loads["x"].max())
    noise = max(float(loads["spread"].max()) if "spread" in loads and loads["spread"].notna().any() else 0.0,
                float(other.get("spread", 0.0)) if pd.notna(other.get("spread", math.nan)) else 0.0)  # fmt: skip
    ratio = float(other["best"]) / best if best > 0 else math.nan
    if not ratio > 1 + max(t["cross_gain"], noise):
        return None
    at = _plateau(e, t)
    who, share, where = _client_side(e, t, at)
    pct, p_at = _cpu_over(e, "client_cpu_pct", at)
    if pd.notna(share):
        cpu = f"; {who} used {share:.0%} of the CPU it could use ({where}): not its CPU, its settings or its path"
    elif pd.notna(pct):
        cpu = (f"; the load tool's process used {pct:.0f}% of one core ({p_at}), the CPU it could use not known (a "
               "quota, a taskset): its CPU, its settings or its path bound it")  # fmt: skip
    else:
        cpu = "; no CPU figure for the client: its CPU, its settings or its path bound it"
    return Finding({"knee": _knee_of(e, t), "best": best, "other": float(other["best"]), "other_tool": other["tool"],
                    "other_series": other["series"], "ratio": ratio, "noise": noise, "cpu": cpu},
                   confidence="medium")  # fmt: skip


def _through_lb(e: Evidence, t: dict[str, float]) -> Finding | None:
    """Through the load balancer, a plateau well below a direct series to its backend, no backend queue shown."""
    loads = e.loads
    if not e.direct or len(loads) < 2 or e.server_side:
        return None
    best, direct = float(loads["x"].max()), float(e.direct["best"])
    if not best < (1 - t["lb_gap"]) * direct:
        return None
    at = _plateau(e, t)
    busy, b_at = _cpu_over(e, "lb_busy", at)
    idle, i_at = _cpu_over(e, "lb_idle", at)
    flat = _knee_of(e, t) < loads.index.max()
    below = _below_direct(loads["x"], e.direct.get("by_load"), 1 - t["lb_gap"])
    if not flat and not below and not (_busy(busy, t) or (pd.notna(idle) and idle <= t["lb_idle"])):
        return None  # still growing, not below the direct series at each load, and no CPU of it shown used up
    f: dict[str, Any] = {"span": _span(e, at), "best": best, "direct": direct, "share": best / direct,
                         "direct_series": e.direct["series"], "most": 1 - t["lb_gap"]}  # fmt: skip
    if not flat and below:
        where = "at the load both ran" if below == 1 else f"at each of the {below} loads both ran"
        f["span"] = f"which still grew but stayed below {1 - t['lb_gap']:.0%} of the direct series {where}"
    if _busy(busy, t):
        f["cpu"] = f"; its CPU was {busy:.0%} busy per core it could use ({b_at})"
        return Finding(f, resource="load balancer CPU")
    if pd.notna(idle) and idle <= t["lb_idle"]:
        f["cpu"] = f"; HAProxy's Idle_pct fell to {idle:.0%} ({i_at}): its own loop had no time left"
        return Finding(f, resource="load balancer CPU")
    words = ["neither its CPU nor its queue is shown"]
    if pd.notna(idle):
        words.append(f"HAProxy's Idle_pct stayed at {idle:.0%} ({i_at}), which under a CPU limit (a container, a "
                     "cgroup quota) stays high while HAProxy is starved: it does not clear the load balancer")  # fmt: skip
    if pd.notna(busy):
        words.append(f"its CPU was {busy:.0%} busy per core it could use ({b_at})")
    f["cpu"] = "; " + "; ".join(words)
    return Finding(f, confidence="medium", resource="load balancer")


def _below_direct(through: pd.Series, direct: pd.Series | None, most: float) -> int:
    """How many loads a series through the load balancer shares with the direct series, when at each of them it
    reached less than ``most`` of the direct rate; else 0 (a fast direct run too short for a curve still shows
    the rate the backend gave at its load).

    >>> _below_direct(pd.Series([556.0, 969.0], index=[1, 32]), pd.Series([13256.0, 47763.0], index=[1, 32]), 0.8)
    2
    >>> _below_direct(pd.Series([556.0, 969.0], index=[1, 32]), pd.Series([600.0, 47763.0], index=[1, 32]), 0.8)
    0
    """
    if direct is None or not len(direct):
        return 0
    both = through.index.intersection(direct.index)
    if not len(both):
        return 0
    a = pd.to_numeric(through.loc[both], errors="coerce").to_numpy(float)
    b = pd.to_numeric(direct.loc[both], errors="coerce").to_numpy(float)
    return len(both) if bool((a < most * b).all()) else 0


def _server_resource(e: Evidence, t: dict[str, float]) -> tuple[str, str, bool]:
    """For a server-side bound: the resource, the words that show it, and whether the client's CPU is ruled out
    (a resource shown busy behind it, a queue in the load balancer, or the client's CPU measured below the
    threshold)."""
    at = _plateau(e, t)
    server, s_at = _cpu_over(e, "server_busy", at)
    if _busy(server, t):
        kernel, _ = _cpu_over(e, "server_kernel", at)
        part = f", {kernel:.0%} of it in the kernel (system and softirq)" if pd.notna(kernel) else ""
        return "server CPU", f"; the server's CPU was {server:.0%} busy{part} ({s_at})", True
    lb, lb_at = _cpu_over(e, "lb_busy", at)
    idle, i_at = _cpu_over(e, "lb_idle", at)
    if _busy(lb, t):
        return "load balancer CPU", f"; the load balancer's CPU was {lb:.0%} busy per core it could use ({lb_at})", True
    if pd.notna(idle) and idle <= t["lb_idle"]:
        return "load balancer CPU", f"; HAProxy's Idle_pct fell to {idle:.0%} ({i_at})", True
    if e.server_side:
        return "load balancer queue", "", True
    who, share, where = _client_side(e, t, at)
    if pd.notna(share):
        return "", f"; {who} used {share:.0%} of the CPU it could use ({where}): not the load generator", True
    return "", "", False


def _used_up(e: Evidence, t: dict[str, float]) -> Finding | None:
    """Too few loads or no latency for a curve, but a CPU behind the client used up at the highest loads."""
    if len(e.loads) >= int(t["min_loads"]) and e.loads["r"].notna().any():
        return None  # the curve rules judge it, and name the resource
    at = _plateau(e, t)
    resource, words, ruled_out = _server_resource(e, t)
    if resource not in ("server CPU", "load balancer CPU"):
        return None
    n = len(e.loads)
    notes = [] if n >= int(t["min_loads"]) else [f"{n} load{'' if n == 1 else 's'} only: no plateau shown"]
    if not e.loads["r"].notna().any():
        notes.append("no latency in these outputs: no queue shown")
    if not ruled_out:
        notes.append(NOT_RULED_OUT)
    return Finding({"span": _span(e, at), "cpu": words.lstrip("; ")}, confidence="medium" if ruled_out else "low",
                   notes=notes, resource=resource)  # fmt: skip


def _client_measured(e: Evidence) -> bool:
    """Whether any CPU figure of the client (its process or its host) was read for the series."""
    cpu = e.cpu
    return cpu is not None and any(c in cpu and cpu[c].notna().any() for c in ("client_busy", "client_host_busy"))


#: Why a plateau without CPU figures is not called a server's with high confidence.
NOT_RULED_OUT = (
    "the load generator's CPU was not ruled out (no figure of the client's CPU against what it could use, no queue "
    "shown behind it)"
)


# ------------------------------------------------------------------- table ---
#: The verdict rules, in the order they are tried.
RULES: tuple[Rule, ...] = (
    Rule(
        "errors",
        {"error_share": (0.01, "share of the attempts that failed or were not 2xx, above which a series is 'errors'")},
        _errors,
        "{where}, {share:.1%} of the attempts failed or were not 2xx ({basis}; threshold {error_share:.0%})",
        "failures above the threshold at some load: the figures there measure error pages, not service",
    ),
    Rule(
        "capacity mismatch",
        {"mismatch_above": (1.1, "utilisation above which the capacity cannot be this path's")},
        _mismatch,
        "{used} ({basis}) at {load} {at:g} against {cap} for its path ({source}): {util:.0%}, more than a run can "
        "carry, so this capacity belongs to another path or was measured otherwise; no network verdict",
        "the runs carried more than the capacity matched to their path",
    ),
    Rule(
        "network",
        {"network_threshold": (0.8, "share of the path's capacity from which a run is network-bound")},
        _network,
        "{used} ({basis}) at {load} {at:g} against {cap} for its path ({source}): {util:.0%} (threshold "
        "{network_threshold:.0%})",
        "the runs used the path's capacity (payload against iperf's goodput, or wire bits against a link's rate)",
        "link",
    ),
    Rule(
        "cannot tell",
        {},
        _nothing_usable,
        "no run can carry a curve: {why}",
        "every run is too short, too small, a debug run or the copy of another",
    ),
    Rule(
        "load generator",
        {"cpu_busy": (0.85, "share of the CPU a process or host could use from which it was busy (about 90%)")},
        _client_cpu,
        "{span} (the plateau), {who} used {share:.0%} of the CPU it could use ({where}; threshold {cpu_busy:.0%}): "
        "the load generator's CPU was the bound",
        "the load tool's process used about all the CPU it could use (its threads, a taskset, a cgroup quota) at the "
        "plateau, or its host was that busy, or the tool warned that it was (Locust's 'CPU usage above 90%')",
        "client CPU",
    ),
    Rule(
        "load generator",
        {"generator_share": (0.8, "share of the asked concurrency in flight below which the clients were idle")},
        _generator,
        "at {load} {top:g}, throughput × latency = {in_flight:.1f} requests in flight{spread}, {ratio:.0%} of the "
        "{top:g} asked (below {generator_share:.0%}): {why}",
        "a closed-loop tool kept fewer requests in flight than asked (Little's law) and, where the iteration or the "
        "wait asked is known, fewer users busy in their iterations (iterations/s × iteration duration, or "
        "throughput × (latency + wait): siege -d, Locust's wait_time, a k6 script's sleep()s, a JMeter plan's "
        "timers); a wait possible but not read (a script not found, a sleep in a loop) makes it low confidence",
    ),
    Rule(
        "server saturation",
        {},
        _used_up,
        "{span}, {cpu}: a CPU used up",
        "too few loads or no latency for a curve, but the server's or the load balancer's CPU busy (from "
        "`cpu_busy`) at the highest loads",
    ),
    Rule(
        "cannot tell",
        {"min_loads": (3, "distinct loads a bound needs to show")},
        _one_load,
        "{loads} only: a bound needs at least {min_loads:g} to show",
        "too few loads",
    ),
    Rule("cannot tell", {}, _no_latency, "no latency in these outputs: saturation cannot be told", "no latency"),
    Rule(
        "server saturation",
        {"keep_up_share": (0.9, "share of a fixed rate asked (open loop) the answers must reach to have kept up")},
        kept_up_finding,
        "at {load} {top:g} the tool was asked for {asked:,.10g} requests/s (open loop) and the answers came at "
        "{got:,.0f} ({share:.0%}, below {keep_up_share:.0%}){latency}{side}{cpu}",
        "a fixed-rate (open-loop) tool's answers fell behind the rate it sent, the network ruled out (the tool's "
        "own sent rate below the rate asked: the load generator)",
    ),
    Rule(
        "load generator",
        {
            "cross_gain": (
                0.2,
                "how much more another client must reach against the same target (beyond the "
                "run-to-run spread) for a plateau not to be the server's",
            )
        },
        _cross_series,
        "past {load} {knee:g} throughput levelled at {best:,.0f} requests/s, but the same server answered "
        "{other:,.0f} requests/s to {other_tool} in this folder ({other_series}: {ratio:.1f}x, beyond the run-to-run "
        "spread of {noise:.0%}): the plateau is not the server's{cpu}",
        "a plateau while another client reached clearly more against the same target and workload (same origin)",
    ),
    Rule(
        "server saturation",
        {
            "lb_gap": (
                0.2,
                "how far below a direct series to its backend a series through the load balancer "
                "plateaus for the load balancer to be the bound",
            ),
            "lb_idle": (0.1, "HAProxy's Idle_pct (share) at or below which its own loop had no time left"),
        },
        _through_lb,
        "through the load balancer, at best {best:,.0f} requests/s while the direct series to its backend "
        "({direct_series}) reached {direct:,.0f} ({share:.0%}, below {most:.0%}) and no load-balancer statistics "
        "show a backend queue: the load balancer, {span}{cpu}",
        "through the load balancer, well below a direct series to its backend, no backend queue shown, and a plateau, "
        "a rate below the direct one at every load both ran, or the load balancer's CPU used up: its CPU when HAProxy's Idle_pct is near 0 or its process or host is busy "
        "per core it could use (Idle_pct alone never clears it)",
        "load balancer",
    ),
    Rule(
        "server saturation",
        {
            "flat_gain": (0.05, "share of the best throughput within which loads count as the plateau"),
            "latency_growth": (0.2, "rise of mean latency past the knee that shows a queue"),
            "little_tolerance": (0.2, "how far throughput × latency may be from the concurrency"),
        },
        _saturation,
        "past {load} {knee:g}, throughput changed {gain} (at most {flat_gain2}) while mean latency rose {growth} "
        "(at least {latency_growth_pct}){little}",
        "throughput flat or falling past the knee while latency rises, the clients busy, and the network ruled out "
        "(a capacity known and not reached, or load-balancer statistics showing a server-side queue)",
    ),
    Rule(
        "no bound reached",
        {},
        _no_bound,
        "throughput still grows at the highest {load} ({gain} from {prev:g} to {top:g}): no bound reached in these runs",
        "throughput still growing at the highest load, or a fixed rate kept up to it (open loop; a JMeter plan's "
        "throughput timer)",
    ),
    Rule("cannot tell", {}, _otherwise, "{why}: not the pattern of a saturated server", "none of the above"),
)

#: Every threshold of the rules and its default.
THRESHOLDS: dict[str, float] = {k: v for rule in RULES for k, (v, _) in rule.thresholds.items()}
#: Guards on runs (not series): fewest requests and shortest duration a run needs to count in curves.
RUN_GUARDS: dict[str, tuple[float, str]] = {
    "min_requests": (100, "fewest attempts a run needs to count in fits, knees and verdicts"),
    "min_duration_s": (1.0, "shortest run (s) that counts in fits, knees and verdicts"),
}
THRESHOLDS.update({k: v for k, (v, _) in RUN_GUARDS.items()})
#: The verdicts, in rule order.
VERDICTS: tuple[str, ...] = tuple(dict.fromkeys(r.name for r in RULES))


def judge(e: Evidence, **given: float) -> dict[str, Any]:
    """The first rule that answers: ``verdict``, ``rule`` (its position), ``confidence``, ``evidence``, ``notes``.

    >>> loads = pd.DataFrame({"runs": [2, 2, 2], "x": [100.0, 190, 192], "r": [0.01, 0.0105, 0.0208],
    ...                       "step": 0.0, "util": 0.1, "rate": float("nan"), "delay": float("nan")},
    ...                      index=pd.Index([1, 2, 4], name="concurrency"))
    >>> errors = pd.DataFrame({"bad": [0], "attempts": [600], "share": [0.0], "basis": ["requests"]}, index=[4])
    >>> judge(Evidence("concurrency", loads, errors))["verdict"]
    'server saturation'
    """
    t = {**THRESHOLDS, **{k: v for k, v in given.items() if v is not None}}
    for i, rule in enumerate(RULES):
        found = rule.check(e, t)
        if found is None:
            continue
        words = {
            **t,
            **found.figures,
            "load": e.load,
            "flat_gain2": _pct(2 * t["flat_gain"]),
            "latency_growth_pct": _pct(t["latency_growth"]),
        }
        sentence = (found.sentence or rule.evidence).format(**words)
        resource = found.resource if found.resource is not None else rule.resource
        verdict = found.verdict or rule.name
        notes = list(found.notes)
        if verdict == "cannot tell" and not e.server_side and not _client_measured(e) and NOT_RULED_OUT not in notes:
            notes.append(NOT_RULED_OUT)  # whatever else is unknown, the client's CPU is too
        return {"verdict": verdict, "rule": i, "confidence": found.confidence, "evidence": sentence,
                "notes": notes, "figures": found.figures, "resource": resource}  # fmt: skip
    raise AssertionError("the last rule always answers")  # pragma: no cover


def rules_table() -> pd.DataFrame:
    """The rules as a table (order, verdict, thresholds with defaults, meaning), for documentation.

    >>> rules_table().loc[0, ["verdict", "thresholds"]].tolist()
    ['errors', 'error_share=0.01']
    """
    return pd.DataFrame(
        [
            {"order": i + 1, "verdict": r.name,
             "thresholds": ", ".join(f"{k}={v:g}" for k, (v, _) in r.thresholds.items()), "when": r.meaning,
             "resource": r.resource}
            for i, r in enumerate(RULES)
        ]
    )  # fmt: skip


def rules_markdown() -> str:
    """The rules as a Markdown table (README, generated by ``scripts/update_docs.py``).

    >>> rules_markdown().splitlines()[2][:40]
    '| 1 | errors | `error_share` = 0.01: sha'
    """
    lines = ["| order | verdict | thresholds (default: meaning) | when | resource |", "|---:|---|---|---|---|"]
    for i, r in enumerate(RULES):
        t = "; ".join(f"`{k}` = {v:g}: {doc}" for k, (v, doc) in r.thresholds.items()) or "—"
        lines.append(f"| {i + 1} | {r.name} | {t} | {r.meaning} | {r.resource or '—'} |")
    guards = "; ".join(f"`{k}` = {v:g}: {doc}" for k, (v, doc) in RUN_GUARDS.items())
    lines.append(
        f"| runs | (left out of curves) | {guards} | debugging runs, and a log of a run another file summarises | — |"
    )
    return "\n".join(lines)


def thresholds_text(**given: float) -> str:
    """The thresholds in words, from the values used (defaults: :data:`THRESHOLDS`).

    >>> thresholds_text(network_threshold=0.9)[:60]
    "errors above 1% of attempts; network at 90% of the path's ca"
    """
    t = {**THRESHOLDS, **{k: v for k, v in given.items() if v is not None}}
    return (
        f"errors above {t['error_share'] * 100:g}% of attempts; network at {t['network_threshold'] * 100:g}% of the "
        f"path's capacity; server saturation when throughput stays within {2 * t['flat_gain'] * 100:g}% (or falls) "
        f"past the knee while latency rises {t['latency_growth'] * 100:g}% or more and Little's law holds within "
        f"{t['little_tolerance'] * 100:g}%; load generator below {t['generator_share'] * 100:g}% of the asked "
        f"concurrency in flight; at a fixed rate (open loop), answers below {t['keep_up_share'] * 100:g}% of the rate "
        f"asked fell behind (the load generator when it sent below that); a CPU busy from {t['cpu_busy'] * 100:g}% of "
        f"what it could use; another client {t['cross_gain'] * 100:g}% faster against the same target, or a direct "
        f"series {t['lb_gap'] * 100:g}% faster than through the load balancer, moves the bound; runs under "
        f"{t['min_requests']:g} requests "
        f"or {t['min_duration_s']:g} s left out of curves"
    )
