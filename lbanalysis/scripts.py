"""The think time a load script asks for, read from the script a run's command names, beside its output.

A closed-loop tool whose clients wait between requests (Locust's
``wait_time``, JMeter's timers) keeps fewer requests in flight than it has
clients, by design: Little's law on the requests alone cannot tell that wait
from a client that could not keep up. The tool's output does not show the
wait; the script does. For each run whose tool names how its script asks for
a wait (:attr:`lbanalysis.registry.Tool.think_times`), the script its command
names (:attr:`~lbanalysis.registry.Tool.script_options`, else
:attr:`~lbanalysis.registry.Tool.script_default`) is looked for beside the
output it was read from, and its wait read into ``think_time_s`` (the mean
wait, seconds; 0 when the script asks none) and ``think_time_source`` (file,
line and text). A script not found, or a wait no pattern can size (a
function, several waits), leaves both empty: the wait stays unknown.

>>> import pandas as pd, tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "lf.py").write_text("class U(HttpUser):\\n    wait_time = between(1, 3)\\n")
>>> runs = pd.DataFrame({"tool": ["locust"], "source": [str(d / "out.txt")],
...                      "command": ["locust -f lf.py --headless -u 4"]})
>>> with_think_times(runs)[["think_time_s", "think_time_source"]].values.tolist()
[[2.0, 'lf.py:2: wait_time = between(1, 3)']]
"""

from __future__ import annotations

import math
import re
from functools import cache
from pathlib import Path

import pandas as pd

from .registry import TOOLS
from .text import command_argv

__all__ = ["SCRIPT_LIMIT", "script_named", "think_time", "with_think_times"]

#: The most bytes of a script read (a test plan larger than this is not a script a person wrote).
SCRIPT_LIMIT = 4_000_000


@cache
def _patterns(tool: str) -> tuple[tuple[re.Pattern, str, float], ...]:
    """The compiled think-time patterns of a tool (none for a tool the registry gives none)."""
    info = next((t for t in TOOLS if t.name == tool), None)
    return tuple((re.compile(p, re.MULTILINE), kind, f) for p, kind, f in info.think_times) if info else ()


def script_named(tool: str, command: str) -> str:
    """The script a command runs: the value of one of the tool's script options, else its default script.

    >>> script_named("locust", "locust -f tests/lf.py -u 4"), script_named("locust", "locust --locustfile=a.py")
    ('tests/lf.py', 'a.py')
    >>> script_named("locust", "locust --headless -u 4"), script_named("jmeter", "jmeter -n -t plan.jmx -l r.jtl")
    ('locustfile.py', 'plan.jmx')
    >>> script_named("ab", "ab -n 10 http://h/")
    ''
    """
    info = next((t for t in TOOLS if t.name == tool), None)
    if info is None or not info.script_options:
        return ""
    argv = command_argv(command)
    for i, arg in enumerate(argv):
        for opt in info.script_options:
            if arg == opt and i + 1 < len(argv):
                return argv[i + 1]
            if opt.startswith("--") and arg.startswith(opt + "="):
                return arg[len(opt) + 1 :]
    return info.script_default


def think_time(tool: str, text: str, name: str = "script") -> tuple[float, str]:
    """The mean wait a script asks for between a client's requests, and where it says so.

    No statement of a wait: 0 (the tool's default is no wait). One statement a pattern sizes: its mean.
    A wait no pattern sizes, or several: NaN (unknown).

    >>> think_time("locust", "class U(HttpUser):\\n    wait_time = constant(1)\\n", "lf.py")
    (1.0, 'lf.py:2: wait_time = constant(1)')
    >>> think_time("locust", "class U(HttpUser):\\n    @task\\n    def t(self): pass\\n")
    (0.0, 'script: no wait asked')
    >>> think_time("locust", "    wait_time = constant_throughput(2)\\n")[0]
    nan
    >>> think_time("jmeter", '<ConstantTimer testclass="ConstantTimer">'
    ...            '<stringProp name="ConstantTimer.delay">300</stringProp>', "p.jmx")
    (0.3, 'p.jmx:1: <ConstantTimer testclass="ConstantTimer"><stringProp name="ConstantTimer.delay">300</stringProp>')
    """
    patterns = _patterns(tool)
    for pattern, kind, factor in patterns:
        found = list(pattern.finditer(text))
        if not found:
            continue
        m = found[0]
        line = text.count("\n", 0, m.start()) + 1
        start, end = text.rfind("\n", 0, m.start()) + 1, text.find("\n", m.end())
        where = f"{name}:{line}: {text[start : end if end >= 0 else len(text)].strip()[:120]}"
        if kind == "unknown" or len(found) > 1:
            return math.nan, where
        figures = [float(g) for g in m.groups()]
        mean = figures[0] if kind == "constant" else sum(figures) / len(figures)
        return mean * factor, where
    return 0.0, f"{name}: no wait asked"


def _read_script(path: Path) -> str | None:
    """A script's text (None: absent or unreadable)."""
    try:
        with path.open("rb") as f:
            return f.read(SCRIPT_LIMIT).decode("utf-8", "replace")
    except OSError:
        return None


def with_think_times(runs: pd.DataFrame) -> pd.DataFrame:
    """``runs`` with ``think_time_s`` and ``think_time_source`` filled where a script beside the output says,
    for the runs whose think time is not known yet (a command's own option, siege's ``-d``, comes first)."""
    if not len(runs) or not {"tool", "source", "command"} <= set(runs.columns):
        return runs
    tools = {t.name for t in TOOLS if t.think_times}
    todo = runs["tool"].isin(list(tools)).fillna(False).to_numpy(bool, copy=True)
    if "think_time_s" in runs:
        todo = todo & runs["think_time_s"].isna().to_numpy(bool)
    if not todo.any():
        return runs
    out = runs.copy()
    for col, dtype in (("think_time_s", "Float64"), ("think_time_source", "string")):
        if col not in out:
            out[col] = pd.Series(pd.NA, index=out.index, dtype=dtype)
    seen: dict[tuple[str, Path], tuple[float, str] | None] = {}  # a script read once for all the runs naming it
    for i in out.index[todo]:
        tool, source, command = out.at[i, "tool"], out.at[i, "source"], out.at[i, "command"]
        if not isinstance(command, str) or not isinstance(source, str):
            continue
        name = script_named(str(tool), command)
        if not name:
            continue
        key = (str(tool), Path(source).parent / name)
        if key not in seen:
            text = _read_script(key[1])
            seen[key] = None if text is None else think_time(str(tool), text, name)
        if seen[key] is None:
            continue
        mean, where = seen[key]  # type: ignore[misc]
        out.at[i, "think_time_source"] = where
        if not math.isnan(mean):
            out.at[i, "think_time_s"] = mean
    return out
