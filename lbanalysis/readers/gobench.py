"""gobench (github.com/cmpxchg16/gobench) output, net/http and fasthttp versions.

Format (stdout; identical labels in both versions)::

    Dispatching 10 clients
    Waiting for results...

    Requests:                            54133 hits
    Successful requests:                 54133 hits
    Network failed:                          0 hits
    Bad requests failed (!2xx):              0 hits
    Successful requests rate:            10826 hits/sec
    Read throughput:                   4222374 bytes/sec
    Write throughput:                   931259 bytes/sec
    Test time:                               5 sec

========================== ==================== ==============================
label                      column               unit
========================== ==================== ==============================
Dispatching N clients      ``concurrency``      clients (-c, default 100)
Requests                   ``requests``         all requests made, failed included
Successful requests        ``requests_ok``      2xx (net/http version: 200 only)
Network failed             ``failed_network``   connect/read/write errors
Bad requests failed (!2xx) ``non_2xx``          responses outside 2xx (net/http: != 200)
(sum of the two above)     ``failed``           network failed + bad requests
Successful requests rate   ``requests_per_s``   **successful** requests per s
Read throughput            ``bytes_per_s``      B/s received (headers included)
Write throughput           ``bytes_sent_per_s`` B/s sent
Test time                  ``duration_s``       s
========================== ==================== ==============================

gobench prints no latency at all: the latency columns stay empty. The
fasthttp version (``cmd/gobench``, December 2016 on) prints integers only:
the elapsed time is truncated to whole seconds (at least 1) and every rate
is an integer division by it. The older net/http version (the 2016 article
runs; ``gobench.go`` at the repository root) prints the rates with
``%10.0f`` and, in its last revisions, ``Test time`` with ``%10.2f`` — both
forms are read.

Command line (Go ``flag`` syntax: ``-c 10``, ``-c=10``, ``--c 10``):
``-u`` URL, ``-f`` URL file (``urls_file``), ``-c`` clients, ``-r``
requests per client (``repetitions``; ``requests_planned`` = r x c),
``-t`` seconds (``time_limit_s``), ``-k`` keep-alive (a bool flag, default
**true**: only ``-k=false`` turns it off), ``-d`` POST data file / ``-b``
POST body (``method`` POST), ``-auth``, ``-tr``/``-tw``/``-tc`` timeouts,
``-content-type`` (accepted, not stored).

Errors: without ``-r`` or ``-t`` gobench prints ``Requests or period must
be provided`` then its usage text and exits 1; with both, ``Only one should
be provided: [requests|period]``; without ``-u``/``-f`` only the usage;
unknown flags give ``flag provided but not defined: -x``. Each is one run
with ``error`` set. A run where every request failed at the network level
(nothing listening) is a run with ``error`` set and its figures kept.

Versions checked: the fasthttp version (four live outputs in the lab
corpus), the net/http version (ten outputs quoted by the 2016 article,
``data/raw/haproxy-maxconn-gobench``) and both sources.

>>> p = parse(Segment("Dispatching 10 clients\\nWaiting for results...\\n\\nRequests:  38 hits\\n"
...                   "Successful requests:  8 hits\\nNetwork failed:  0 hits\\nBad requests failed (!2xx):  30 hits\\n"
...                   "Test time:  5 sec\\n", command="gobench -u http://h/ -c 10 -t 5"))
>>> r = p.runs[0]
>>> r["concurrency"], r["requests"], r["requests_ok"], r["non_2xx"], r["failed"], r["time_limit_s"], r["keepalive"]
(10, 38, 8, 30, 30, 5.0, True)
"""

from __future__ import annotations

import re

from ..text import Segment, command_argv
from .base import Format, Parsed, to_float, to_int

LABELS: dict[str, tuple[str, str]] = {
    "requests": ("requests", "int"),
    "successful requests": ("requests_ok", "int"),
    "network failed": ("failed_network", "int"),
    "bad requests failed (!2xx)": ("non_2xx", "int"),
    "successful requests rate": ("requests_per_s", "float"),
    "read throughput": ("bytes_per_s", "float"),
    "write throughput": ("bytes_sent_per_s", "float"),
    "test time": ("duration_s", "float"),
}
_LABEL_RE = re.compile(
    r"^\s*(" + "|".join(re.escape(k) for k in LABELS) + r")\s*:\s*([-+]?[\d.]+(?:[eE][-+]?\d+)?|nan|[-+]?inf)"
    r"\s*(hits/sec|hits|bytes/sec|secs?|s)?\s*$",
    re.IGNORECASE,
)
_DISPATCH_RE = re.compile(r"^\s*Dispatching\s+(\d+)\s+clients?\s*$")
_WAITING_RE = re.compile(r"^\s*Waiting for results\.\.\.\s*$")
_USAGE_RE = re.compile(r"^\s*Usage of \S*:\s*$")
_USAGE_BODY_RE = re.compile(r"^(?:\s+-\w|\s{4,}|\t)")
_ERROR_RE = re.compile(
    r"^\s*(Requests or period must be provided|Only one should be provided: \[requests\|period\]|"
    r"flag provided but not defined: .*|invalid value .* for flag .*|bad flag syntax: .*|"
    r"flag needs an argument: .*|caught recover: .*|panic: .*|"
    r"(?:\d{4}/\d\d/\d\d \d\d:\d\d:\d\d )?Error in ioutil\.ReadFile .*)\s*$"
)
_DETECT_RE = re.compile(
    r"^(?:\s*Dispatching \d+ clients|\s*Bad requests failed \(!2xx\):|\s*Successful requests rate:|"
    r"\s*Requests or period must be provided|\s*Only one should be provided: \[requests\|period\]|"
    r"Usage of \S*gobench\S*:)",
    re.MULTILINE,
)
_DETECT_HINTS = (
    "Dispatching ",
    "Bad requests failed",
    "Successful requests rate",
    "Requests or period",
    "Only one",
    "Usage of ",
)
_URL_RE = re.compile(r"^(?:(https?)://)?([^/:\[\]\s]+|\[[^\]]+\])(?::(\d+))?(/\S*)?$", re.IGNORECASE)
_BOOL_FLAGS = {"k"}
_FALSE = {"false", "0", "f", "F", "FALSE", "False"}


def detect(text: str) -> bool:
    """True when text looks like gobench output (or its usage error).

    >>> detect("Dispatching 10 clients\\nWaiting for results...\\n")
    True
    >>> detect("Transactions:  5 hits\\n")
    False
    """
    if not any(h in text for h in _DETECT_HINTS):
        return False
    return _DETECT_RE.search(text) is not None


def parse_command(command: str) -> dict:
    """Run fields from a gobench command line (Go ``flag`` syntax).

    >>> d = parse_command("gobench -u http://10.42.226.10/fast -c 20 -t 30")
    >>> d["url"], d["host"], d["path"], d["concurrency"], d["time_limit_s"], d["keepalive"], d["method"]
    ('http://10.42.226.10/fast', '10.42.226.10', '/fast', 20, 30.0, True, 'GET')
    >>> d = parse_command("gobench -u=http://h:8080/ -r 100 -k=false -d post.json")
    >>> d["repetitions"], d["requests_planned"], d["keepalive"], d["method"], d["port"]
    (100, 10000, False, 'POST', 8080)
    """
    argv = command_argv(command)
    opts: dict[str, str] = {}
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok.startswith("-") and len(tok) > 1 and tok != "--":
            name, eq, val = tok.lstrip("-").partition("=")
            if name in _BOOL_FLAGS:
                opts[name] = val if eq else "true"
            elif eq:
                opts[name] = val
            elif i + 1 < len(argv):
                i += 1
                opts[name] = argv[i]
        i += 1
    out: dict = {}
    out["concurrency"] = to_int(opts.get("c", "100"))
    if "t" in opts and (to_float(opts["t"]) or -1) > 0:
        out["time_limit_s"] = to_float(opts["t"])
    if "r" in opts and (to_int(opts["r"]) or -1) > 0:
        out["repetitions"] = to_int(opts["r"])
        if out["concurrency"] is not None:
            out["requests_planned"] = out["repetitions"] * out["concurrency"]
    out["keepalive"] = opts.get("k", "true") not in _FALSE
    out["method"] = "POST" if (opts.get("d") or opts.get("b")) else "GET"
    if opts.get("f"):
        out["urls_file"] = opts["f"]
    url = opts.get("u")
    if url:
        out["url"] = url
        m = _URL_RE.match(url)
        if m:
            out["host"] = m.group(2)
            out["port"] = int(m.group(3)) if m.group(3) else (443 if (m.group(1) or "").lower() == "https" else 80)
            out["path"] = m.group(4) or "/"
    return out


def _new(line: int) -> dict:
    return {"tool": "gobench", "format": "gobench", "line": line}


def parse(seg: Segment) -> Parsed:
    """Read every gobench run in a segment (usage errors become error rows)."""
    cmd = parse_command(seg.command) if seg.command else {}
    runs: list[dict] = []
    cur = _new(1)
    keys: set[str] = set()
    lines = seg.text.split("\n")
    n_lines = len(lines)
    n = 0

    def started() -> bool:
        return bool(keys) or "concurrency" in cur or "error" in cur

    while n < n_lines:
        line = lines[n].rstrip()
        n += 1
        if not line.strip():
            continue
        m = _LABEL_RE.match(line)
        if m:
            label = m.group(1).lower()
            if label in keys:  # a repeated label: the next pasted output
                runs.append(cur)
                cur, keys = _new(n), set()
            elif not started():
                cur["line"] = n
            keys.add(label)
            col, kind = LABELS[label]
            cur[col] = to_int(m.group(2)) if kind == "int" else to_float(m.group(2))
            continue
        m = _DISPATCH_RE.match(line)
        if m:
            if started():
                runs.append(cur)
                cur, keys = _new(n), set()
            cur["line"] = n
            cur["concurrency"] = int(m.group(1))
            continue
        if _WAITING_RE.match(line):
            continue
        m = _ERROR_RE.match(line)
        if m:
            if keys:
                runs.append(cur)
                cur, keys = _new(n), set()
            elif "error" not in cur and "concurrency" not in cur:
                cur["line"] = n
            msg = m.group(1)
            cur["error"] = f"{cur['error']}; {msg}" if cur.get("error") and cur["error"] != "usage error" else msg
            continue
        if _USAGE_RE.match(line):
            if keys:
                runs.append(cur)
                cur, keys = _new(n), set()
            if "error" not in cur:
                cur["line"] = n
                cur["error"] = "usage error"
            while n < n_lines and (not lines[n].strip() or _USAGE_BODY_RE.match(lines[n])):
                n += 1
            continue
    if started():
        runs.append(cur)
    if not runs and seg.command:
        runs.append({**_new(1), "error": "no output after the command"})
    out = Parsed()
    for d in runs:
        for k, v in cmd.items():
            d.setdefault(k, v)
        if d.get("repetitions") is not None and d.get("concurrency") is not None:
            d["requests_planned"] = d["repetitions"] * d["concurrency"]
        net, bad = d.get("failed_network"), d.get("non_2xx")
        if net is not None or bad is not None:
            d["failed"] = (net or 0) + (bad or 0)
        if not d.get("error"):
            if "requests" not in d:
                d["error"] = "no result in the output (interrupted before the summary)"
            elif d["requests"] == 0:
                d["error"] = "no request completed"
            elif d.get("requests_ok") == 0 and not bad and net:
                d["error"] = f"every request failed at the network level ({net} network failures)"
        out.runs.append(d)
    return out


FORMATS = [
    Format(
        "gobench",
        "gobench",
        detect,
        parse,
        description="gobench results (net/http 2016 and fasthttp versions) and its usage errors",
    )
]

__all__ = ["FORMATS", "LABELS", "detect", "parse", "parse_command"]
