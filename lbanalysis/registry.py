"""The tool registry: the one place that knows which tools lbanalysis reads.

A :class:`Tool` line names a tool, the executables that start it in a
terminal transcript, its kind, the reader modules (in
:mod:`lbanalysis.readers`) that hold its formats, and what its byte counts
mean. Everything else derives from this table: the formats tried and their
detection order, the transcript splitter's command pattern, the CLI's
``--tool`` choices, and which runs the analysis treats as link measurements.

Adding a reader is one module in ``lbanalysis/readers/``, one fixture folder
in ``tests/fixtures/``, and one line here (see ``docs/architecture.md``).

Detection order: formats of ``whole_file`` readers (CSV logs, TSV, JSON) are
tried first, in the order of this table and of each tool's ``readers``; then
every transcript segment is tried with the text formats, in the same order.

>>> [t.name for t in TOOLS][:3]
['ab', 'siege', 'gobench']
>>> tool_of_executable("ab2"), tool_of_executable("iperf3.exe"), tool_of_executable("curl")
('ab', 'iperf3', None)
>>> names(kind="network")
('iperf3', 'iperf')
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "KINDS",
    "TOOLS",
    "Tool",
    "command_patterns",
    "executables",
    "get_tool",
    "info_kind",
    "names",
    "tool_of_executable",
]

KINDS = {
    "http-load": "HTTP load generator (ab, siege, ...): requests, latency, throughput",
    "network": "network throughput tester (iperf): link capacity of a path",
    "lb-stats": "load-balancer statistics (per proxy and server counters, into the servers table)",
}


@dataclass(frozen=True)
class Tool:
    """One tool: its name, kind, the executables that start it, its reader modules.

    ``bytes_counted`` says what the tool's byte counts hold, for the network
    analysis (wire rate = payload + framing). ``closed_loop`` says that the
    tool sends a connection's next request only when the previous answer
    came back, so a server stall also stalls the load and the tool's own
    percentiles understate the tail (coordinated omission; see
    :mod:`lbanalysis.analysis.latency`). ``command_patterns`` are regular
    expressions of whole command lines, other than the tool's executables,
    whose output is the tool's (HAProxy's statistics come through
    ``echo "show stat" | socat stdio /run/haproxy/admin.sock``).
    ``info_options`` are the options that make the tool print its help or
    version instead of testing; ``info_patterns`` recognise such outputs
    (regular expression, kind), so they are listed apart and not counted
    as runs. ``unseen_think_time`` names a wait between a client's requests
    that the tool can be told to make without its output showing it (siege's
    ``.siegerc`` delay): fewer requests in flight than clients may then be
    that wait rather than a client that could not keep up.

    >>> Tool("ab", "http-load", ("ab",), ("ab",)).kind
    'http-load'
    """

    name: str
    kind: str
    executables: tuple[str, ...]
    readers: tuple[str, ...]
    description: str = ""
    bytes_counted: str = ""
    closed_loop: bool = False
    command_patterns: tuple[str, ...] = ()
    info_options: tuple[str, ...] = ()
    info_patterns: tuple[tuple[str, str], ...] = ()
    unseen_think_time: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"tool {self.name!r}: unknown kind {self.kind!r}; known kinds: {', '.join(KINDS)}")


# name, kind, executables, reader modules (detection order), description, bytes counted, closed loop
# (wrk2's fixed-rate runs, with rate_target_per_s, are open loop: wrk2 corrects its own latencies)
TOOLS: tuple[Tool, ...] = (
    Tool(
        "ab",
        "http-load",
        ("ab", "ab2"),
        ("ab_gnuplot", "ab_csv", "ab"),
        "ApacheBench",
        "ab: bytes received incl. HTTP headers",
        closed_loop=True,
        info_options=("-h", "-V"),
        info_patterns=(
            (r"^This is ApacheBench, Version(?![\s\S]*^Benchmarking )", "version banner"),
            (r"^Usage: ab \[options\]", "help text"),
        ),
    ),
    Tool(
        "siege",
        "http-load",
        ("siege",),
        ("siege_log", "siege_json", "siege"),
        "siege",
        "siege: response bodies only (HTTP headers not counted)",
        closed_loop=True,
        info_options=("-h", "--help", "-V", "--version"),
        info_patterns=((r"^Usage: siege \[options\]", "help text"), (r"^SIEGE \d[\d.]*\s*$", "version banner")),
        unseen_think_time="a delay between requests set in .siegerc, which siege's output does not show",
    ),
    Tool(
        "gobench",
        "http-load",
        ("gobench",),
        ("gobench",),
        "gobench",
        "gobench: bytes read as the tool counts them",
        closed_loop=True,
        info_options=("-h", "--help", "-help"),
    ),
    Tool(
        "wrk",
        "http-load",
        ("wrk", "wrk2"),
        ("wrk",),
        "wrk 4.x and wrk2",
        "wrk: bytes read incl. HTTP headers",
        closed_loop=True,
        info_options=("-v", "--version"),
        info_patterns=(
            (r"^wrk \S+ \[\w+\] Copyright", "version banner"),
            (r"^Usage: wrk <options> <url>", "help text"),
        ),
    ),
    Tool(
        "hey",
        "http-load",
        ("hey",),
        ("hey_csv", "hey"),
        "hey",
        "hey: response bodies only (HTTP headers not counted)",
        closed_loop=True,
        info_options=("-h", "--help"),
        info_patterns=((r"^Usage: hey \[options\.\.\.\] <url>", "help text"),),
    ),
    Tool(
        "haproxy",
        "lb-stats",
        ("haproxy",),
        ("haproxy_stat", "haproxy_info"),
        "HAProxy statistics",
        # a stats-socket command piped to socat / nc, as tutorials and notes show it
        command_patterns=(
            r"""(?:sudo\s+)?(?:echo|printf)(?:\s+-[neE]+)*\s+["']?show\s+(?:stat|info|servers\s+state)\b[^|\n]*"""
            r"""\|\s*(?:sudo\s+)?(?:socat|nc|ncat|netcat)\b[^\n]*""",
        ),
        info_options=("-v", "-vv", "-h"),
        info_patterns=((r"^(?:HA-Proxy|HAProxy) version \d", "version banner"),),
    ),
    Tool(
        "iperf3",
        "network",
        ("iperf3",),
        ("iperf3_json", "iperf3"),
        "iperf3",
        "iperf: payload rate (bits_per_s)",
        info_options=("-h", "--help", "-v", "--version"),
        info_patterns=(
            (r"^iperf 3\.\S*(?: \(cJSON[^)]*\))?\s*$", "version banner"),
            (r"^Usage: iperf3 \[-s\|-c host\]", "help text"),
        ),
    ),
    Tool(
        "iperf",
        "network",
        ("iperf",),
        ("iperf2_csv", "iperf2"),
        "iperf 2",
        "iperf: payload rate (bits_per_s)",
        info_options=("-h", "--help", "-v", "--version"),
        info_patterns=((r"^iperf version 2\.", "version banner"), (r"^Usage: iperf \[-s\|-c host\]", "help text")),
    ),
    Tool(
        "vegeta",
        "http-load",
        ("vegeta",),
        ("vegeta_csv", "vegeta_json", "vegeta"),
        "vegeta (open loop: -rate requests per second)",
        "vegeta: response bodies only, at most -max-body each",
        # `echo 'GET url' | vegeta attack ... | vegeta report`, and vegeta's subcommands
        command_patterns=(
            r"""(?:(?:echo|printf|cat|jq)\b[^|\n]*\|\s*)?(?:[\w.~/-]*/)?vegeta(?:\s+-\S+)*\s+(?:attack|report|encode)\b[^\n]*""",
        ),
        info_options=("-h", "--help", "-version", "--version"),
        info_patterns=((r"^Version: .*\nCommit: .*\nRuntime: go", "version banner"), (r"^Usage: vegeta ", "help text")),
    ),
    Tool(
        "oha",
        "http-load",
        ("oha",),
        ("oha_json", "oha"),
        "oha",
        "oha: response bodies only (HTTP headers not counted)",
        closed_loop=True,
        info_options=("-h", "--help", "-V", "--version"),
        info_patterns=((r"^oha \d+\.\d+\.\d+\s*$", "version banner"), (r"^Usage: oha \[OPTIONS\]", "help text")),
    ),
    Tool(
        "bombardier",
        "http-load",
        ("bombardier",),
        ("bombardier_json", "bombardier"),
        "bombardier (codesenberg/bombardier)",
        "bombardier: bytes read incl. HTTP headers; Throughput adds the bytes written",
        closed_loop=True,
        info_options=("--help", "--help-long", "--version"),
        info_patterns=(
            (r"^bombardier version \S+", "version banner"),
            (r"^usage: bombardier \[<flags>\]", "help text"),
        ),
    ),
)


def names(*, kind: str | None = None) -> tuple[str, ...]:
    """Tool names, in registry order, optionally of one kind.

    >>> names()[:2]
    ('ab', 'siege')
    """
    return tuple(t.name for t in TOOLS if kind is None or t.kind == kind)


def get_tool(name: str) -> Tool:
    """The tool called ``name``; an unknown name lists the known ones.

    >>> get_tool("siege").executables
    ('siege',)
    """
    for t in TOOLS:
        if t.name == name:
            return t
    raise ValueError(f"unknown tool {name!r}; known tools: {', '.join(names())}")


def command_patterns() -> dict[str, tuple[str, ...]]:
    """Tool name -> regular expressions of command lines (besides its executables) that start its output.

    >>> import re
    >>> any(re.fullmatch(p, 'echo "show stat" | socat stdio /run/haproxy/admin.sock')
    ...     for p in command_patterns()["haproxy"])
    True
    """
    return {t.name: t.command_patterns for t in TOOLS if t.command_patterns}


def info_kind(tool: str, text: str) -> str | None:
    """What a tool's output that is not a test is: "help text", "version banner", or None.

    >>> info_kind("iperf3", "iperf 3.12 (cJSON 1.7.15)\\nLinux lb 6.1.0\\n"), info_kind("ab", "Requests per second: 5")
    ('version banner', None)
    """
    import re

    for pattern, kind in get_tool(tool).info_patterns:
        if re.search(pattern, text, re.MULTILINE):
            return kind
    return None


def executables() -> dict[str, str]:
    """Executable name -> tool name, longest names first (for regex alternations).

    >>> list(executables())[:3]
    ['bombardier', 'gobench', 'haproxy']
    """
    pairs = [(exe, t.name) for t in TOOLS for exe in t.executables]
    return dict(sorted(pairs, key=lambda p: (-len(p[0]), p[0])))


def tool_of_executable(exe: str) -> str | None:
    """The tool an executable name (maybe with ``.exe`` or a path) starts, else None."""
    base = exe.replace("\\", "/").rsplit("/", 1)[-1]
    if base.lower().endswith(".exe"):
        base = base[:-4]
    return executables().get(base)
