"""Run evidence: each run's target, and why a run is left out of curves (empty: used).

>>> import pandas as pd
>>> runs = pd.DataFrame({"url": ["http://h:8080/a?x=1"], "host": ["h"]})
>>> target(runs).tolist()
['h:8080/a?x=1']
"""

from __future__ import annotations

import os
import re

import pandas as pd

from ... import registry
from ...schema import COMMAND_REFUSED
from ..series import as_floats

__all__ = ["files_from", "is_debug", "known_tool", "left_out", "short_name", "target"]


def known_tool(tool: object) -> bool:
    """Whether ``tool`` is a name of the registry (missing values are not).

    >>> known_tool("ab"), known_tool(None)
    (True, False)
    """
    return isinstance(tool, str) and tool in registry.names()


def target(runs: pd.DataFrame) -> pd.Series:
    """The full target (URL with its query string), else host:port/path; empty when the output does not say
    (:func:`lbanalysis.design.infer.target_text`, which the design reads too)."""
    from ...design.infer import target_text

    return target_text(runs)


def is_debug(runs: pd.DataFrame) -> pd.Series:
    """Runs started with a tool's debugging option (ab -v, siege -D): kept, left out of curves.

    >>> is_debug(pd.DataFrame({"tool": "ab", "command": ["ab -v 2 -c 4 http://h/", "/usr/bin/time -v ab -c 4 http://h/"]})).tolist()
    [True, False]
    """
    out = pd.Series(False, index=runs.index)
    if "command" not in runs or "tool" not in runs:
        return out
    for tool in registry.TOOLS:
        if not tool.debug_options:
            continue
        mine = (runs["tool"] == tool.name).fillna(False).to_numpy(bool)
        if not mine.any():
            continue
        opts = "|".join(re.escape(o) for o in tool.debug_options)
        pattern = rf"(?:^|\s)(?:{opts})(?:\s*\d+)?(?=\s|$)|(?:^|\s)-[a-zA-Z]*v\d"
        # the tool's own options: a wrapper's before it (``/usr/bin/time -v ab ...``) are not the tool's
        own = (
            runs.loc[mine, "command"]
            .astype("string")
            .fillna("")
            .str.replace(rf"^.*?(?:^|\s|/){re.escape(tool.name)}(?=\s|$)", "", n=1, regex=True)
        )
        out[mine] = own.str.contains(pattern, regex=True).to_numpy()
    return out


def short_name(source: object) -> str:
    """A file named from its folder and name.

    >>> short_name("/data/lab/ab_c8.txt")
    'lab/ab_c8.txt'
    """
    s = str(source)
    return os.path.join(os.path.basename(os.path.dirname(s)), os.path.basename(s)) if "/" in s else s


def files_from(text: str, root: str) -> str:
    """``text`` with the files under ``root`` named from it (a page sent elsewhere names no build machine's folder).

    >>> files_from("iperf a→b, /x/logs/net/iperf3.json:1", "/x/logs")
    'iperf a→b, net/iperf3.json:1'
    """
    return text.replace(root.rstrip("/") + "/", "") if root and root != "/" else text


def _line_of(row: pd.Series) -> str:
    line = row.get("line")
    return f"{int(line)}" if line is not None and pd.notna(line) else f"run {row.get('run')}"


def _why(twin: pd.Series | None, err: str, kind: str, rate: float, debug: bool) -> str:
    """Why a run without enough counts is left out: the copy of another, no result, a debug run (empty: none)."""
    if twin is not None:
        return f"the same run as {short_name(twin.get('source'))}:{_line_of(twin)} (its own log)"
    if err and not rate > 0 and kind == COMMAND_REFUSED:
        return f"the tool refused its command line: {err}"
    if err and not rate > 0:
        return f"no result: {err}"
    if not rate > 0:
        return "no throughput"
    return "a debugging run (its command asks for debug output)" if debug else ""


def left_out(http: pd.DataFrame, t: dict[str, float]) -> pd.DataFrame:
    """Why a run is left out of curves (``left_out``, empty: used) and whether it is used (``used``)."""
    why = pd.Series("", index=http.index, dtype=object)
    attempts = http["attempts"].fillna(as_floats(http, "requests"))
    dur = as_floats(http, "duration_s")
    rate = as_floats(http, "requests_per_s")
    err = http["error"].astype("string").fillna("").str.strip() if "error" in http else pd.Series("", index=http.index)
    kind = http["error_kind"].astype("string").fillna("") if "error_kind" in http else pd.Series("", index=http.index)
    debug = is_debug(http)
    for i in http.index:
        twin = http.loc[http.at[i, "twin_of"]] if pd.notna(http.at[i, "twin_of"]) else None
        why[i] = _why(twin, err[i], kind[i], rate[i], debug[i])
        if why[i]:
            continue
        if attempts[i] < t["min_requests"]:
            why[i] = f"too few requests: {attempts[i]:,.0f} (fewer than {t['min_requests']:g})"
        elif dur[i] < t["min_duration_s"]:
            why[i] = f"too short: {dur[i]:g} s (under {t['min_duration_s']:g} s)"
    http["left_out"] = why
    http["used"] = why == ""
    return http
