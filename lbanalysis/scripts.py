"""The think time a load script asks for, read from the script a run's command names, beside its output.

A closed-loop tool whose clients wait between requests (Locust's
``wait_time``, JMeter's timers, a ``sleep()`` in a k6 script) keeps fewer
requests in flight than it has clients, by design: Little's law on the
requests alone cannot tell that wait from a client that could not keep up.
The tool's output does not show the wait; the script does. For each run whose
tool says how its script asks for a wait (:attr:`lbanalysis.registry.Tool.think_times`,
:attr:`~lbanalysis.registry.Tool.script_language`), the script its command names
(:attr:`~lbanalysis.registry.Tool.script_options`, a positional argument ending in one
of :attr:`~lbanalysis.registry.Tool.script_suffixes`, else the script its output names,
:attr:`~lbanalysis.registry.Tool.script_lines`, else
:attr:`~lbanalysis.registry.Tool.script_default`, else the one such file in the folder) is
looked for beside the output it was read from, and its wait read into
``think_time_s`` (the mean wait before or after each request, seconds; 0 when
the script asks none) and ``think_time_source`` (file, line and text). A
script not found, or a wait that cannot be sized (a function, a sleep in a loop
or a branch, a timer JMeter sizes at run time), leaves ``think_time_s`` empty:
the wait stays unknown. A JMeter plan paced by a throughput timer sets
``rate_target_per_s`` instead: the wait is then whatever the target implies.

Readers of the three kinds of script:

- **patterns** (Locust): the registry's ``think_times``, one regular expression each.
- **k6**: the default function's body (functions of the same file it calls
  inlined), its ``sleep(...)`` calls (:data:`K6_SLEEP`, the random functions'
  means in :data:`K6_MEANS`) summed and spread over its requests
  (:data:`K6_REQUEST`); a sleep or a request inside a loop or a branch
  (:data:`K6_REPEATS`) makes the wait unknown.
- **jmx** (JMeter): the timers (:data:`JMETER_TIMERS`) in scope of each
  sampler, summed; the samplers weighed by the controllers above them
  (:data:`JMETER_CONTROLLERS`).

>>> import pandas as pd, tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "lf.py").write_text("class U(HttpUser):\\n    wait_time = between(1, 3)\\n")
>>> runs = pd.DataFrame({"tool": ["locust"], "source": [str(d / "out.txt")],
...                      "command": ["locust -f lf.py --headless -u 4"]})
>>> with_think_times(runs)[["think_time_s", "think_time_source"]].values.tolist()
[[2.0, 'lf.py:2: wait_time = between(1, 3)']]
"""

from __future__ import annotations

import ast
import math
import operator
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from .registry import TOOLS, Tool, get_tool
from .text import command_argv

__all__ = [
    "JMETER_CONTROLLERS",
    "JMETER_TIMERS",
    "K6_MEANS",
    "K6_REPEATS",
    "K6_REQUEST",
    "K6_SLEEP",
    "SCRIPT_LIMIT",
    "Wait",
    "script_named",
    "think_time",
    "wait_asked",
    "with_think_times",
]

#: The most bytes of a script read (a test plan larger than this is not a script a person wrote).
SCRIPT_LIMIT = 4_000_000

# ---------------------------------------------------------------------------------------------- k6 ---
#: Where a k6 script's default function begins (``export default function () {``, an arrow function).
K6_ENTRY = re.compile(r"export\s+default\s+(?:async\s+)?(?:function\b\s*\*?\s*[\w$]*\s*\([^)]*\)|\([^)]*\)\s*=>)\s*\{")
#: A default export naming a function of the script (``export default runTest;``).
K6_ENTRY_NAME = re.compile(r"export\s+default\s+([\w$]+)\s*;?\s*$", re.M)
#: A sleep: k6's ``sleep(seconds)`` (its one argument, a number or an expression of :data:`K6_MEANS`).
K6_SLEEP = re.compile(r"(?<![\w$.])sleep\s*\(")
#: A request: ``http.get(``, ``http.post(``… one request each; ``http.batch(`` sends several at once (unknown).
K6_REQUEST = re.compile(r"(?<![\w$])http\s*\.\s*(get|post|put|patch|del|head|options|request|asyncRequest|batch)\s*\(")
#: The means of the random functions a sleep's argument may call: ``Math.random()`` (uniform on [0, 1)) and
#: k6-utils' ``randomIntBetween(min, max)`` (an integer from min to max, both included): (pattern, mean).
K6_MEANS: tuple[tuple[str, Callable[[re.Match], float]], ...] = (
    (r"Math\.random\(\s*\)", lambda m: 0.5),
    (r"randomIntBetween\(\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*\)", lambda m: (float(m[1]) + float(m[2])) / 2),
)
#: What makes a statement run an unknown number of times per iteration: a loop, a branch, a callback.
K6_REPEATS = re.compile(r"\b(?:for|while|do|if|else|switch|case|catch)\b|\?|\.\s*(?:forEach|map|filter|some|"
                        r"every|reduce|then)\s*\(|\bsetTimeout\b|\bsetInterval\b")  # fmt: skip
#: Scenarios that run another exported function than the default one (``exec: 'browse'``).
K6_EXEC = re.compile(r"\bexec\s*:\s*['\"`]")
#: A function of the script's own file, by name: ``function name(``, ``const name = (…) =>``, ``= function``.
K6_FUNCTION = re.compile(r"(?:function\s+([\w$]+)\s*\([^)]*\)(?:\s*:\s*[\w$<>\[\]| ]+)?|(?:const|let|var)\s+([\w$]+)\s*=\s*(?:async\s+)?"
                         r"(?:function\b[^(]*\([^)]*\)|\([^)]*\)\s*=>|[\w$]+\s*=>))\s*\{")  # fmt: skip
#: A name given a number at the top of a script (``const THINK = 2;``), read into a sleep's argument.
K6_CONSTANT = re.compile(r"^\s*(?:export\s+)?(?:const|let|var)\s+([\w$]+)\s*=\s*(\d+(?:\.\d+)?)\s*;?\s*$", re.M)
#: A name imported from a file of the project (its functions are not read: their sleeps and requests unknown).
K6_LOCAL_IMPORT = re.compile(r"import\s*\{([^}]*)\}\s*from\s*['\"]\.{1,2}/|import\s+([\w$]+)\s+from\s*['\"]\.{1,2}/")

# ------------------------------------------------------------------------------------------- JMeter ---


class Timer(NamedTuple):
    """A JMeter timer: how its mean wait (ms) is sized. ``kind``: ``wait`` (the sum of its properties times
    their weights), ``paced`` (a throughput target: its property ``figures[0]`` in samples per ``per``
    seconds, or per the seconds of property ``figures[1]``), ``unknown`` (sized at run time)."""

    label: str
    kind: str
    figures: tuple[str, ...] = ()
    weights: tuple[float, ...] = ()
    per: float = 0.0


#: JMeter's timers by test class. Uniform Random: delay + range/2; Gaussian Random: the offset (a normal
#: deviation of mean 0 around it); Poisson Random: offset + lambda; Constant Throughput: samples per minute
#: (calcMode 0: each thread; else all threads together); Precise Throughput: samples per throughputPeriod
#: seconds (the thread group's); Synchronizing: waits for other threads (unknown); scripted timers: unknown.
JMETER_TIMERS: dict[str, Timer] = {
    "ConstantTimer": Timer("Constant Timer", "wait", ("ConstantTimer.delay",), (1.0,)),
    "UniformRandomTimer": Timer(
        "Uniform Random Timer", "wait", ("ConstantTimer.delay", "RandomTimer.range"), (1.0, 0.5)
    ),
    "GaussianRandomTimer": Timer("Gaussian Random Timer", "wait", ("ConstantTimer.delay",), (1.0,)),
    "PoissonRandomTimer": Timer(
        "Poisson Random Timer", "wait", ("ConstantTimer.delay", "RandomTimer.range"), (1.0, 1.0)
    ),
    "ConstantThroughputTimer": Timer("Constant Throughput Timer", "paced", ("throughput", "calcMode"), per=60.0),
    "PreciseThroughputTimer": Timer("Precise Throughput Timer", "paced", ("throughput", "throughputPeriod")),
    "SyncTimer": Timer("Synchronizing Timer", "unknown"),
    "BeanShellTimer": Timer("BeanShell Timer", "unknown"),
    "JSR223Timer": Timer("JSR223 Timer", "unknown"),
}
#: The Constant Throughput Timer's calcMode whose target is each thread's (the others: all threads together).
JMETER_PER_THREAD = {"0"}
#: Controllers (and the plan itself): the property saying how many times their children run per pass ("": once),
#: None: not known from the plan (a condition, a share, a module elsewhere). One not named here counts as not known.
JMETER_CONTROLLERS: dict[str, str | None] = {
    "TestPlan": "", "GenericController": "", "TransactionController": "", "RandomOrderController": "",
    "CriticalSectionController": "", "LoopController": "LoopController.loops", "IfController": None,
    "WhileController": None, "SwitchController": None, "RandomController": None, "ThroughputController": None,
    "OnceOnlyController": None, "InterleaveControl": None, "RunTime": None, "ForeachController": None,
    "ModuleController": None, "IncludeController": None,
}  # fmt: skip
#: A sampler (one request each), a thread group; what is left out: thread groups run before or after the test,
#: a test fragment (run only where a Module Controller names it).
JMETER_SAMPLER = re.compile(r"Sampler(?:Proxy)?\d*$")
JMETER_THREAD_GROUP = re.compile(r"ThreadGroup$")
JMETER_SETUP_GROUPS = {"SetupThreadGroup", "PostThreadGroup", "TestFragmentController"}
#: A property the command line sets (``${__P(threads,1)}``, ``${__property(name,,default)}``): name, default.
JMETER_PROPERTY = re.compile(r"^\$\{__P(?:roperty)?\(\s*([^,)]+?)\s*(?:,\s*(?:[^,)]*,\s*)?([^)]*?)\s*)?\)\}$")


class Wait(NamedTuple):
    """The wait a script asks: ``mean`` seconds before or after each request (NaN: unknown), ``where`` (file,
    line, text), ``rate`` requests/s a throughput timer paces the run at (NaN: none)."""

    mean: float
    where: str
    rate: float = math.nan


# ------------------------------------------------------------------------------------------ finding ---


def _tool(tool: str) -> Tool | None:
    """The registry's tool of that name, or ``None`` (a run's ``tool`` may be missing or another word)."""
    try:
        return get_tool(tool)
    except ValueError:
        return None


@cache
def _patterns(tool: str) -> tuple[tuple[re.Pattern, str, float], ...]:
    """The compiled think-time patterns of a tool (none for a tool the registry gives none)."""
    info = _tool(tool)
    return tuple((re.compile(p, re.MULTILINE), kind, f) for p, kind, f in info.think_times) if info else ()


def script_named(tool: str, command: str) -> str:
    """The script a command runs: the value of one of the tool's script options, a positional argument ending
    as the tool's scripts do, else its default script.

    >>> script_named("locust", "locust -f tests/lf.py -u 4"), script_named("locust", "locust --locustfile=a.py")
    ('tests/lf.py', 'a.py')
    >>> script_named("locust", "locust --headless -u 4"), script_named("jmeter", "jmeter -n -t plan.jmx -l r.jtl")
    ('locustfile.py', 'plan.jmx')
    >>> script_named("k6", "k6 run --vus 10 -d 30s tests/load.js"), script_named("k6", "k6 run -")
    ('tests/load.js', '')
    >>> script_named("ab", "ab -n 10 http://h/")
    ''
    """
    info = _tool(tool)
    if info is None or not (info.script_options or info.script_suffixes):
        return ""
    return _in_command(info, command) or info.script_default


def _in_command(info: Tool, command: str) -> str:
    """The script a command names (an option's value, a positional argument ending as scripts do), else ""."""
    argv = command_argv(command)
    for i, arg in enumerate(argv):
        for opt in info.script_options:
            if arg == opt and i + 1 < len(argv):
                return argv[i + 1]
            if opt.startswith("--") and arg.startswith(opt + "="):
                return arg[len(opt) + 1 :]
    for arg in reversed(argv):
        if info.script_suffixes and not arg.startswith("-") and arg.lower().endswith(info.script_suffixes):
            return arg
    return ""


def _where(text: str, start: int, end: int, name: str) -> str:
    """``name:line: text`` of the line(s) from ``start`` to ``end`` (120 characters at most)."""
    line = text.count("\n", 0, start) + 1
    a, b = text.rfind("\n", 0, start) + 1, text.find("\n", end)
    return f"{name}:{line}: {' '.join(text[a : b if b >= 0 else len(text)].split())[:120]}"


def _pattern_wait(tool: str, text: str, name: str) -> Wait:
    """The wait the registry's patterns read (Locust): the first pattern that matches, once."""
    for pattern, kind, factor in _patterns(tool):
        found = list(pattern.finditer(text))
        if not found:
            continue
        m = found[0]
        where = _where(text, m.start(), m.end(), name)
        if kind == "unknown" or len(found) > 1:
            return Wait(math.nan, where)
        figures = [float(g) for g in m.groups()]
        mean = figures[0] if kind == "constant" else sum(figures) / len(figures)
        return Wait(mean * factor, where)
    return Wait(0.0, f"{name}: no wait asked")


# ---------------------------------------------------------------------------------------- k6 reader ---


def _code(text: str) -> str:
    """A script's text with its comments blanked (same length, line ends kept), strings left as they are.

    >>> _code("a(1); // b\\nc('//x') /* d */")
    "a(1);     \\nc('//x')        "
    """
    out, i, n, quote = list(text), 0, len(text), ""
    while i < n:
        c = text[i]
        if quote:
            i += 2 if c == "\\" else 1
            quote = "" if c == quote else quote
            continue
        if c in "'\"`":
            quote = c
        elif text.startswith("//", i) or text.startswith("/*", i):
            end = text.find("\n", i) if text[i + 1] == "/" else text.find("*/", i + 2) + 2
            end = n if end < (i + 2 if text[i + 1] == "*" else 0) else end
            for j in range(i, end):
                out[j] = out[j] if text[j] == "\n" else " "
            i = end
            continue
        i += 1
    return "".join(out)


def _block(code: str, brace: int) -> int:
    """The index just past the ``}`` closing the ``{`` at ``brace`` (the text's end if it never closes)."""
    depth, quote, i = 0, "", brace
    while i < len(code):
        c = code[i]
        if quote:
            i += 2 if c == "\\" else 1
            quote = "" if c == quote else quote
            continue
        if c in "'\"`":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(code)


def _call_end(code: str, paren: int) -> int:
    """The index just past the ``)`` closing the ``(`` at ``paren``."""
    depth = 0
    for i in range(paren, len(code)):
        depth += {"(": 1, ")": -1}.get(code[i], 0)
        if depth == 0:
            return i + 1
    return len(code)


def _statement_start(code: str, start: int, pos: int) -> int:
    """Where the statement holding ``pos`` begins: just past the last ``;``, ``{`` or ``}`` before it outside
    parentheses (a ``for (…;…;…)`` head is one statement), not before ``start``."""
    depth = 0
    for i in range(pos - 1, start - 1, -1):
        c = code[i]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
            if depth < 0:  # the argument list holding pos: a callback's head lies before it
                depth = 0
        elif c in ";{}" and depth == 0:
            return i + 1
    return start


def _repeated(code: str, start: int, pos: int) -> bool:
    """Whether the statement at ``pos`` (inside the body beginning at ``start``) runs an unknown number of times:
    in a loop's or a branch's block, or after one on its own line, or in a callback.

    >>> code = "{ for (let i = 0; i < n; i++) { sleep(1); } group('g', () => { sleep(2); }); if (a) sleep(3); }"
    >>> [_repeated(code, 0, code.index(f"sleep({k})")) for k in (1, 2, 3)]
    [True, False, True]
    """
    depth, i = 0, pos
    while i > start:  # walk out of the blocks that hold pos, reading each one's head
        i -= 1
        c = code[i]
        if c == "}":
            depth += 1
        elif c == "{":
            if depth:
                depth -= 1
                continue
            head = code[_statement_start(code, start, i) : i]
            if K6_REPEATS.search(head) and not re.search(r"\bgroup\s*\(", head):
                return True
    return bool(K6_REPEATS.search(code[_statement_start(code, start, pos) : pos]))


def _seconds(arg: str, constants: dict[str, float]) -> float:
    """The mean of a sleep's argument: numbers, the script's numeric constants and :data:`K6_MEANS` combined by
    + - * / (a mean of a linear expression is the expression of the means); NaN for anything else.

    >>> _seconds("1", {}), _seconds("Math.random() * 3", {}), _seconds("randomIntBetween(1, 5)", {})
    (1.0, 1.5, 3.0)
    >>> _seconds("THINK / 2", {"THINK": 4.0}), _seconds("__ENV.SLEEP", {}), _seconds("Math.floor(Math.random()*3)", {})
    (2.0, nan, nan)
    """
    for pattern, mean in K6_MEANS:
        arg = re.sub(pattern, lambda m, f=mean: repr(f(m)), arg)  # type: ignore[misc]
    arg = re.sub(r"[A-Za-z_$][\w$]*", lambda m: repr(constants[m[0]]) if m[0] in constants else m[0], arg)
    try:
        return float(_arithmetic(ast.parse(arg.strip(), mode="eval").body))
    except (SyntaxError, ValueError, ZeroDivisionError, TypeError):
        return math.nan


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _arithmetic(node: ast.AST) -> float:
    """The value of an expression of numbers and + - * / (ValueError: anything else)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_arithmetic(node.left), _arithmetic(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return -_arithmetic(node.operand) if isinstance(node.op, ast.USub) else _arithmetic(node.operand)
    raise ValueError("not arithmetic")


class _K6Body(NamedTuple):
    sleeps: list[tuple[int, int, float]]  # start, end, mean seconds (NaN: unknown)
    requests: int
    unknown: tuple[int, int] | None  # a sleep or request of unknown count, or a call nothing here reads


def _k6_body(code: str, start: int, end: int, functions: dict[str, int], imported: set[str], depth: int = 0) -> _K6Body:
    """The sleeps and requests of one function body (the text from ``start`` to ``end``), the functions of the
    same script it calls read in place (up to 4 deep)."""
    sleeps: list[tuple[int, int, float]] = []
    requests, unknown = 0, None
    constants = {m[1]: float(m[2]) for m in K6_CONSTANT.finditer(code)}
    for m in K6_SLEEP.finditer(code, start, end):
        close = _call_end(code, m.end() - 1)
        mean = _seconds(code[m.end() : close - 1], constants)
        sleeps.append((m.start(), close, mean))
        if _repeated(code, start, m.start()):
            unknown = unknown or (m.start(), close)
    for m in K6_REQUEST.finditer(code, start, end):
        requests += 1
        if m[1] == "batch" or _repeated(code, start, m.start()):
            unknown = unknown or (m.start(), _call_end(code, m.end() - 1))
    for m in re.finditer(r"(?<![\w$.])([\w$]+)\s*\(", code[start:end]):
        name, at = m[1], start + m.start()
        if name in imported:
            unknown = unknown or (at, at + len(m[0]))
        elif name in functions and depth < 4 and not (functions[name] <= at < _block(code, functions[name])):
            inner = _k6_body(code, functions[name], _block(code, functions[name]), functions, imported, depth + 1)
            sleeps += inner.sleeps
            requests += inner.requests
            if inner.unknown or ((inner.sleeps or inner.requests) and _repeated(code, start, at)):
                unknown = unknown or inner.unknown or (at, at + len(m[0]))
    return _K6Body(sleeps, requests, unknown)


def _k6_wait(text: str, name: str) -> Wait:
    """The mean wait per request a k6 script's default function asks (its sleeps summed over its requests).

    >>> _k6_wait("import http from 'k6/http';\\nimport { sleep } from 'k6';\\n"
    ...          "export default function () {\\n  http.get(URL);\\n  sleep(Math.random() * 3);\\n}\\n", "s.js")
    Wait(mean=1.5, where='s.js:5: sleep(Math.random() * 3); (1.5 s per iteration, 1 request)', rate=nan)
    >>> _k6_wait("export default function () {\\n  for (let i = 0; i < n; i++) { http.get(U); sleep(1); }\\n}", "s.js")[:2]
    (nan, 's.js:2: for (let i = 0; i < n; i++) { http.get(U); sleep(1); } (a sleep or request repeated an unknown number of times)')
    """
    code = _code(text)
    functions = {m[1] or m[2]: m.end() - 1 for m in K6_FUNCTION.finditer(code)}
    entry, named = K6_ENTRY.search(code), K6_ENTRY_NAME.search(code)
    start = entry.end() - 1 if entry else functions.get(named[1], -1) if named else -1
    if start < 0:
        return Wait(math.nan, f"{name}: no default function read")
    if K6_EXEC.search(code):
        m = K6_EXEC.search(code)
        return Wait(math.nan, _where(text, m.start(), m.end(), name) + " (a scenario runs another function)")
    imported = {w.split(" as ")[-1].strip() for m in K6_LOCAL_IMPORT.finditer(code) for w in (m[1] or m[2]).split(",")}
    imported.discard("")
    body = _k6_body(code, start, _block(code, start), functions, imported)
    if body.unknown:
        a, b = body.unknown
        return Wait(math.nan, _where(text, a, b, name) + " (a sleep or request repeated an unknown number of times)")
    if not body.sleeps:
        return Wait(0.0, f"{name}: no sleep in the default function")
    total = sum(s for _, _, s in body.sleeps)
    a, b = body.sleeps[0][0], body.sleeps[-1][1]
    where = _where(text, a, b if text.count("\n", a, b) < 3 else a + 1, name)
    if math.isnan(total):
        bad = next(s for s in body.sleeps if math.isnan(s[2]))
        return Wait(math.nan, _where(text, bad[0], bad[1], name) + " (a sleep whose mean is not read)")
    if not body.requests:
        return Wait(math.nan, f"{where} ({total:g} s per iteration, no request read)")
    sleeps = f"{len(body.sleeps)} sleeps, " if len(body.sleeps) > 1 else ""
    reqs = f"{body.requests} request{'s' if body.requests > 1 else ''}"
    return Wait(total / body.requests, f"{where} ({sleeps}{total:g} s per iteration, {reqs})")


# ------------------------------------------------------------------------------------ JMeter reader ---


def _jmeter_properties(command: str) -> dict[str, str]:
    """The properties a JMeter command line sets (``-Jname=value``).

    >>> _jmeter_properties("jmeter -n -t p.jmx -Jthreads=8 -J delay=300")
    {'threads': '8', 'delay': '300'}
    """
    argv, out = command_argv(command), {}
    for i, a in enumerate(argv):
        arg = a[2:] if a.startswith("-J") else ""
        if a == "-J" and i + 1 < len(argv):
            arg = argv[i + 1]
        if "=" in arg:
            k, v = arg.split("=", 1)
            out[k] = v
    return out


def _prop(el: ET.Element, name: str, props: dict[str, str]) -> float:
    """A property of a plan's element as a number (``${__P(name,default)}`` from the command's ``-J`` or its
    default), NaN when absent or not a number."""
    value = None
    for child in el:
        if child.get("name") == name:
            value = child.text
        elif child.findtext("name") == name:
            value = child.findtext("value")
    m = JMETER_PROPERTY.match((value or "").strip())
    if m:
        value = props.get(m[1], m[2])
    try:
        return float(value) if value is not None and value.strip() else math.nan
    except ValueError:
        return math.nan


def _enabled(el: ET.Element) -> bool:
    return el.get("enabled", "true") != "false"


def _class(el: ET.Element) -> str:
    return (el.get("testclass") or el.tag).rsplit(".", 1)[-1]


class _Sampler(NamedTuple):
    wait_ms: float  # the mean wait of the timers in its scope (NaN: one sized at run time)
    weight: float  # how many times it runs per pass of its thread group (NaN: not known)
    timers: tuple[ET.Element, ...]


def _samplers(tree: ET.Element, timers: tuple[ET.Element, ...], weight: float, props: dict) -> list[_Sampler]:
    """The samplers under a ``hashTree``, each with the timers in its scope and its weight."""
    kids = list(tree)
    pairs = [(el, kids[i + 1] if i + 1 < len(kids) and kids[i + 1].tag == "hashTree" else None)
             for i, el in enumerate(kids) if el.tag != "hashTree" and _enabled(el)]  # fmt: skip
    here = timers + tuple(el for el, _ in pairs if _class(el) in JMETER_TIMERS or _class(el).endswith("Timer"))
    out: list[_Sampler] = []
    for el, sub in pairs:
        cls = _class(el)
        if JMETER_SAMPLER.search(cls):
            own = here + tuple(
                t for t in (sub if sub is not None else []) if _enabled(t) and _class(t).endswith("Timer")
            )
            out.append(_Sampler(_timers_ms(own, props), weight, own))
        elif sub is not None and cls not in JMETER_SETUP_GROUPS:
            if JMETER_THREAD_GROUP.search(cls):
                w = weight
            elif cls in JMETER_CONTROLLERS and JMETER_CONTROLLERS[cls] is not None:
                prop = JMETER_CONTROLLERS[cls]
                loops = _prop(el, prop, props) if prop else 1.0
                w = weight * loops if loops >= 0 else math.nan
            else:
                w = math.nan
            out += _samplers(sub, here, w, props)
    return out


def _timers_ms(timers: tuple[ET.Element, ...], props: dict[str, str]) -> float:
    """The mean wait of timers that all wait (NaN: one of them is sized at run time, or paces)."""
    total = 0.0
    for el in timers:
        t = JMETER_TIMERS.get(_class(el))
        if t is None or t.kind != "wait":
            return math.nan
        total += sum(w * _prop(el, p, props) for p, w in zip(t.figures, t.weights, strict=True))
    return total


def _xml_where(text: str, el: ET.Element, name: str) -> str:
    """Where a plan's element is: ``name:line: TestClass "its name"`` (the first line naming both)."""
    cls, label = el.get("testclass", el.tag), el.get("testname", "")
    i = text.find(f'testclass="{cls}" testname="{label}"')
    i = i if i >= 0 else text.find(f'testclass="{cls}"')
    line = text.count("\n", 0, i) + 1 if i >= 0 else 0
    return f'{name}:{line}: {cls} "{label}"' if line else f'{name}: {cls} "{label}"'


def _jmx_wait(text: str, name: str, command: str = "", threads: float = math.nan) -> Wait:
    """The mean wait before each request a JMeter plan's timers ask, or the rate a throughput timer paces it at.

    >>> plan = ('<jmeterTestPlan><hashTree><ThreadGroup testclass="ThreadGroup" testname="tg"/><hashTree>'
    ...         '<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="get"/><hashTree/>'
    ...         '<UniformRandomTimer testclass="UniformRandomTimer" testname="think">'
    ...         '<stringProp name="ConstantTimer.delay">200</stringProp>'
    ...         '<stringProp name="RandomTimer.range">${__P(range,100)}</stringProp></UniformRandomTimer>'
    ...         '<hashTree/></hashTree></hashTree></jmeterTestPlan>')
    >>> _jmx_wait(plan, "p.jmx").mean, _jmx_wait(plan, "p.jmx", "jmeter -n -t p.jmx -Jrange=400").mean
    (0.25, 0.4)
    """
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        return Wait(math.nan, f"{name}: not a test plan XML reads ({e})")
    props = _jmeter_properties(command)
    all_timers = [el for el in root.iter() if el.tag != "hashTree" and _class(el).endswith("Timer") and _enabled(el)]
    if not all_timers:
        return Wait(0.0, f"{name}: no timer")
    pacers = [el for el in all_timers if JMETER_TIMERS.get(_class(el), Timer("", "")).kind == "paced"]
    if pacers:
        return _paced(pacers, text, name, props, threads)
    tree = root.find("hashTree")
    samplers = _samplers(tree, (), 1.0, props) if tree is not None else []
    bad = next((t for t in all_timers if JMETER_TIMERS.get(_class(t), Timer("", "")).kind != "wait"), None)
    if bad is not None:
        label = JMETER_TIMERS.get(_class(bad), Timer(_class(bad), "unknown")).label
        return Wait(math.nan, f"{_xml_where(text, bad, name)} ({label}: a wait JMeter sizes at run time)")
    first = next((t for s in samplers for t in s.timers), all_timers[0])
    labels = sorted({JMETER_TIMERS[_class(t)].label for t in all_timers})
    return _samplers_wait(samplers, f"{_xml_where(text, first, name)} ({', '.join(labels)}")


def _samplers_wait(samplers: list[_Sampler], where: str) -> Wait:
    """The mean wait before a request over a plan's samplers: theirs when they all wait alike, else weighed by how
    many times each runs (NaN: a figure not read, or a sampler run an unknown number of times)."""
    waits = {s.wait_ms for s in samplers}
    if not samplers:
        return Wait(math.nan, f"{where}: no sampler read)")
    if any(math.isnan(w) for w in waits):
        return Wait(math.nan, f"{where}: a figure not read)")
    if len(waits) == 1:
        return Wait(waits.pop() / 1e3, f"{where}: {samplers[0].wait_ms:g} ms on average before each request)")
    weights = [s.weight for s in samplers]
    if any(math.isnan(w) for w in weights) or not sum(weights):
        return Wait(math.nan, f"{where}: samplers with different waits, run an unknown number of times)")
    mean = sum(s.wait_ms * s.weight for s in samplers) / sum(weights)
    return Wait(mean / 1e3, f"{where}: {mean:g} ms on average over {len(samplers)} samplers)")


def _paced(pacers: list[ET.Element], text: str, name: str, props: dict[str, str], threads: float) -> Wait:
    """The rate (requests/s) a plan's one throughput timer paces it at (NaN: several, or a figure not read)."""
    el = pacers[0]
    t = JMETER_TIMERS[_class(el)]
    where = _xml_where(text, el, name)
    if len(pacers) > 1:
        return Wait(math.nan, f"{where} ({len(pacers)} throughput timers: the pace is not read)")
    target, second = _prop(el, t.figures[0], props), _prop(el, t.figures[1], props)
    per = t.per or second
    rate = target / per if per and per > 0 else math.nan
    mode = ""
    if t.per and f"{second:g}" in JMETER_PER_THREAD:
        rate, mode = rate * threads, f" per thread × {threads:g} threads"
    if not rate > 0:
        return Wait(math.nan, f"{where} ({t.label}: a target not read)")
    unit = "minute" if t.per == 60 else f"{per:g} s"
    return Wait(math.nan, f"{where} ({target:g} samples per {unit}{mode}: paced at {rate:.4g} requests/s)", rate)


# ------------------------------------------------------------------------------------------ dispatch ---


def wait_asked(tool: str, text: str, name: str = "script", command: str = "", threads: float = math.nan) -> Wait:
    """The wait a tool's script asks between a client's requests, by the script's language.

    >>> wait_asked("k6", "export default function () { http.get(U); sleep(1); }", "s.js").mean
    1.0
    """
    info = _tool(tool)
    language = info.script_language if info else ""
    if language == "k6":
        return _k6_wait(text, name)
    if language == "jmx":
        return _jmx_wait(text, name, command, threads)
    return _pattern_wait(tool, text, name)


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
    >>> think_time("jmeter", '<hashTree><ThreadGroup testclass="ThreadGroup"/><hashTree><HTTPSamplerProxy '
    ...            'testclass="HTTPSamplerProxy"/><hashTree/><ConstantTimer testclass="ConstantTimer">'
    ...            '<stringProp name="ConstantTimer.delay">300</stringProp></ConstantTimer><hashTree/></hashTree>'
    ...            '</hashTree>', "p.jmx")[0]
    0.3
    """
    return tuple(wait_asked(tool, text, name)[:2])  # type: ignore[return-value]


def _read_script(path: Path) -> str | None:
    """A script's text (None: absent or unreadable)."""
    try:
        with path.open("rb") as f:
            return f.read(SCRIPT_LIMIT).decode("utf-8", "replace")
    except OSError:
        return None


def _named_in_output(info: Tool, text: str, line: object) -> str:
    """The script the tool's output ``text`` names (k6's ``script:`` line): the last such line at or before the
    run's first lines (its banner), else the first in the file.

    >>> k6 = get_tool("k6")
    >>> _named_in_output(k6, "  execution: local\\n     script: a.js\\n\\n  execution: local\\n     script: b.js\\n", 4)
    'b.js'
    """
    found = [
        (text.count("\n", 0, m.start()) + 1, m[1])
        for p in info.script_lines
        for m in re.finditer(p, text, re.MULTILINE)
    ]
    at = int(line) if isinstance(line, int | float) and not pd.isna(line) else 0
    before = [name for n, name in sorted(found) if n <= at + 15]
    return before[-1] if before else (found[0][1] if found else "")


def _lone_script(info: Tool, folder: Path) -> tuple[Path, str] | None:
    """The one file in ``folder`` whose name ends as the tool's scripts do (None: none, or several)."""
    try:
        lone = [p for p in folder.iterdir() if p.name.lower().endswith(info.script_suffixes) and p.is_file()]
    except OSError:
        return None
    return (lone[0], lone[0].name) if len(lone) == 1 else None


def _script_of(info: Tool, command: object, source: str, line: object, memo: dict) -> tuple[Path, str] | None:
    """The script a run executed, beside its output, and its name as named: by its command, by its output, the
    tool's default, else the one file in the folder ending as the tool's scripts do (None: not found). ``memo``
    keeps what was read of each output and folder for the other runs."""
    folder = Path(source).parent
    named = _in_command(info, command) if isinstance(command, str) else ""
    if not named and info.script_lines:
        if ("output", source) not in memo:
            memo[("output", source)] = _read_script(Path(source)) or ""
        named = _named_in_output(info, memo[("output", source)], line)
    named = named or info.script_default
    if named:
        return folder / named, named
    if not info.script_suffixes:
        return None
    if ("folder", info.name, folder) not in memo:
        memo[("folder", info.name, folder)] = _lone_script(info, folder)
    return memo[("folder", info.name, folder)]


def with_think_times(runs: pd.DataFrame) -> pd.DataFrame:
    """``runs`` with ``think_time_s`` and ``think_time_source`` filled where a script beside the output says,
    for the runs whose think time is not known yet (a command's own option, siege's ``-d``, comes first);
    ``rate_target_per_s`` where a JMeter plan's throughput timer paces the run (and none is known)."""
    if not len(runs) or "tool" not in runs or "source" not in runs:
        return runs
    infos = {t.name: t for t in TOOLS if t.think_times or t.script_language}
    tools = runs["tool"]  # a category's names hold every tool present (maybe more): no pass over the rows
    named = tools.cat.categories if isinstance(tools.dtype, pd.CategoricalDtype) else tools.unique()
    if not any(t in infos for t in named):  # the usual read: no tool that reads a script
        return runs
    todo = runs["tool"].isin(list(infos)).fillna(False).to_numpy(bool, copy=True)
    if "think_time_s" in runs:
        todo = todo & runs["think_time_s"].isna().to_numpy(bool)
    if not todo.any():
        return runs
    out = runs.copy()
    for col, dtype in (("think_time_s", "Float64"), ("think_time_source", "string")):
        if col not in out:
            out[col] = pd.Series(pd.NA, index=out.index, dtype=dtype)
    seen: dict[tuple, Wait | None] = {}  # a script read once for all the runs naming it alike
    memo: dict[tuple, object] = {}  # each output's text and each folder's lone script, once
    for i in out.index[todo]:
        wait = _run_wait(out.loc[i], infos, seen, memo)
        if wait is not None:
            _put(out, i, wait)
    return out


def _run_wait(run: pd.Series, infos: dict[str, Tool], seen: dict, memo: dict) -> Wait | None:
    """The wait one run's script asks (None: no script found beside its output)."""
    tool, source, command = str(run["tool"]), run["source"], run.get("command")
    if not isinstance(source, str):
        return None
    info = infos[tool]
    found = _script_of(info, command, source, run.get("line"), memo)
    if found is None:
        return None
    path, named = found
    command = command if isinstance(command, str) else ""
    threads = float(run["concurrency"]) if pd.notna(run.get("concurrency", math.nan)) else math.nan
    key = (tool, path, command if info.script_language == "jmx" else "", threads)
    if key not in seen:
        text = _read_script(path)
        seen[key] = None if text is None else wait_asked(tool, text, named, command, threads)
    return seen[key]


def _put(out: pd.DataFrame, i: object, wait: Wait) -> None:
    """A run's wait into its row: where it was read, the mean wait, a throughput timer's rate (none known yet)."""
    out.at[i, "think_time_source"] = wait.where
    if not math.isnan(wait.mean):
        out.at[i, "think_time_s"] = wait.mean
    if not math.isnan(wait.rate):
        if "rate_target_per_s" not in out:
            out["rate_target_per_s"] = pd.Series(pd.NA, index=out.index, dtype="Float64")
        if pd.isna(out.at[i, "rate_target_per_s"]):
            out.at[i, "rate_target_per_s"] = wait.rate
