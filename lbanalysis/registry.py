"""The tool registry: the one place that knows which tools lbanalysis reads.

A :class:`Tool` line names a tool, the executables that start it in a
terminal transcript, its kind, the reader modules (in
:mod:`lbanalysis.readers`) that hold its formats, and what its byte counts
mean. Everything else derives from this table: the formats tried and their
detection order, the transcript splitter's command pattern, the CLI's
``--tool`` choices, and which runs the analysis treats as link measurements.

Adding a reader is one module in the tool's folder ``lbanalysis/readers/<tool>/``,
one fixture folder in ``tests/fixtures/``, and one line here (see
``docs/architecture.md``); a tool's ``readers`` name those modules as
``"<folder>.<module>"`` (``"k6.json"``: ``lbanalysis/readers/k6/json.py``).

Detection order: formats of ``whole_file`` readers (CSV logs, TSV, JSON) are
tried first, in the order of this table and of each tool's ``readers``; then
every transcript segment is tried with the text formats, in the same order.

>>> [t.name for t in TOOLS][:3]
['ab', 'siege', 'gobench']
>>> tool_of_executable("ab2"), tool_of_executable("iperf3.exe"), tool_of_executable("curl")
('ab', 'iperf3', None)
>>> names(kind="network")
('iperf3', 'iperf')
>>> names(kind="resources")[:3]
('time', 'vmstat', 'mpstat')
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "KINDS",
    "TOOLS",
    "Drive",
    "Tool",
    "command_patterns",
    "cpu_spinners",
    "drive_of",
    "drives",
    "echo_patterns",
    "executables",
    "get_tool",
    "info_kind",
    "names",
    "subcommands",
    "tool_of_executable",
    "workload",
]

KINDS = {
    "http-load": "HTTP load generator (ab, siege, ...): requests, latency, throughput",
    "network": "network throughput tester (iperf): link capacity of a path",
    "lb-stats": "load-balancer statistics (per proxy and server counters, into the servers table)",
    "resources": "host or process resource monitor (vmstat, mpstat, time -v, ...): CPU samples, into the cpu table",
}


@dataclass(frozen=True)
class Drive:
    """How ``lbanalysis sweep`` runs one executable of a tool (see :mod:`lbanalysis.sweep`).

    Each option is a tuple of argument templates; ``{load}``, ``{requests}``,
    ``{requests_per_load}`` (requests per client, rounded up), ``{seconds}``
    (whole seconds), ``{load_seconds}`` (the load times the seconds: httperf's
    connections at its rate), ``{threads}`` (the load, at most the machine's cores),
    ``{url}`` (and its parts ``{url_host}``, ``{url_port}``, ``{url_path}``) and ``{config}`` (the path of ``config_file`` in the output
    folder) are filled in for each run. ``load`` sets the load, which the
    runs table shows as ``load_column``; ``requests`` and ``duration`` bound
    a run (empty: the tool cannot be bounded that way); ``options`` are
    always given, first; ``url`` places the target (last by default).
    ``install`` says what provides the executable, shown when it is
    missing; ``config_text`` is written to ``config_file`` in the output
    folder before the first run (siege reads ``~/.siegerc`` otherwise).
    ``stdin`` (a template) is given to the tool on its standard input, and
    ``then`` is a command its output is piped into: vegeta takes its target
    as ``GET url`` on stdin, and ``vegeta report`` prints what it measured.
    ``cores`` is how many cores the tool's process can keep busy (a
    template: ``1`` for ab, siege and Locust, which run one thread;
    ``{threads}`` for wrk; ``{cpus}``, the cores the process may run on,
    for Go and Rust tools that use them all): the sweep's CPU capture
    judges the process's CPU time against it (and against a taskset or a
    cgroup CPU quota, where smaller). ``prints_start``: the tool prints
    when it started (Locust's log lines, after its imports, which may take
    seconds), so the manifest leaves a run's ``timestamp`` to it.

    >>> d = drive_of("ab")
    >>> d.executable, d.load, d.requests, d.install
    ('ab', ('-c', '{load}'), ('-n', '{requests}'), 'Debian package apache2-utils')
    """

    executable: str
    load: tuple[str, ...]
    requests: tuple[str, ...] = ()
    duration: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    url: tuple[str, ...] = ("{url}",)
    load_column: str = "concurrency"
    install: str = ""
    config_file: str = ""
    config_text: str = ""
    stdin: str = ""
    then: tuple[str, ...] = ()
    cores: str = "{cpus}"
    prints_start: bool = False


# What siege reads with -R in a sweep: its defaults of 4.0.7 spelled out (no delay, no log file), so that a
# ~/.siegerc never changes a sweep. -b (benchmark) only when the user passes it.
_SIEGERC = """\
# siege settings of this sweep, read with -R (written by lbanalysis sweep): ~/.siegerc is not read
verbose = false
color = off
quiet = false
json_output = false
show-logfile = false
logging = false
protocol = HTTP/1.1
chunked = true
cache = false
connection = close
delay = 0.0
internet = false
benchmark = false
accept-encoding = gzip, deflate
url-escaping = true
"""


# What k6 and Locust run in a sweep: one GET of the sweep's URL per iteration, no think time (k6 runs one
# iteration after another per VU; a Locust user without wait_time waits 0 s). The URL comes from the command line.
_K6_SCRIPT = """\
// written by lbanalysis sweep: one GET of the URL given with -e URL=... per iteration
import http from "k6/http";

export default function () {
  http.get(__ENV.URL);
}
"""

# What JMeter runs in a sweep: one thread group of -Jthreads threads, each GETting -Jurl with no think time,
# -Jloops times (-1: until -Jduration seconds have passed). The same plan as tests/fixtures/capture/jmeter_get.jmx.
_JMETER_PLAN = """\
<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2" properties="2.8" jmeter="2.13 r1665067">
  <hashTree>
    <TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="lbanalysis sweep" enabled="true">
      <stringProp name="TestPlan.comments">one GET of ${__P(url)} per iteration, no think time; -Jthreads -Jloops -Jduration</stringProp>
      <boolProp name="TestPlan.functional_mode">false</boolProp>
      <boolProp name="TestPlan.serialize_threadgroups">false</boolProp>
      <elementProp name="TestPlan.user_defined_variables" elementType="Arguments" guiclass="ArgumentsPanel" testclass="Arguments" testname="User Defined Variables" enabled="true">
        <collectionProp name="Arguments.arguments"/>
      </elementProp>
      <stringProp name="TestPlan.user_define_classpath"></stringProp>
    </TestPlan>
    <hashTree>
      <ThreadGroup guiclass="ThreadGroupGui" testclass="ThreadGroup" testname="users" enabled="true">
        <stringProp name="ThreadGroup.on_sample_error">continue</stringProp>
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController" guiclass="LoopControlPanel" testclass="LoopController" testname="Loop Controller" enabled="true">
          <boolProp name="LoopController.continue_forever">false</boolProp>
          <stringProp name="LoopController.loops">${__P(loops,-1)}</stringProp>
        </elementProp>
        <stringProp name="ThreadGroup.num_threads">${__P(threads,1)}</stringProp>
        <stringProp name="ThreadGroup.ramp_time">0</stringProp>
        <longProp name="ThreadGroup.start_time">0</longProp>
        <longProp name="ThreadGroup.end_time">0</longProp>
        <boolProp name="ThreadGroup.scheduler">true</boolProp>
        <stringProp name="ThreadGroup.duration">${__P(duration,3600)}</stringProp>
        <stringProp name="ThreadGroup.delay">0</stringProp>
      </ThreadGroup>
      <hashTree>
        <HTTPSamplerProxy guiclass="HttpTestSampleGui" testclass="HTTPSamplerProxy" testname="${__P(label,GET)}" enabled="true">
          <elementProp name="HTTPsampler.Arguments" elementType="Arguments" guiclass="HTTPArgumentsPanel" testclass="Arguments" enabled="true">
            <collectionProp name="Arguments.arguments"/>
          </elementProp>
          <stringProp name="HTTPSampler.domain"></stringProp>
          <stringProp name="HTTPSampler.port"></stringProp>
          <stringProp name="HTTPSampler.protocol"></stringProp>
          <stringProp name="HTTPSampler.path">${__P(url,http://127.0.0.1/)}</stringProp>
          <stringProp name="HTTPSampler.method">GET</stringProp>
          <boolProp name="HTTPSampler.follow_redirects">true</boolProp>
          <boolProp name="HTTPSampler.auto_redirects">false</boolProp>
          <boolProp name="HTTPSampler.use_keepalive">true</boolProp>
          <boolProp name="HTTPSampler.DO_MULTIPART_POST">false</boolProp>
          <stringProp name="HTTPSampler.implementation">HttpClient4</stringProp>
          <stringProp name="HTTPSampler.connect_timeout">${__P(connect_timeout,)}</stringProp>
          <stringProp name="HTTPSampler.response_timeout">${__P(response_timeout,)}</stringProp>
        </HTTPSamplerProxy>
        <hashTree/>
      </hashTree>
    </hashTree>
  </hashTree>
</jmeterTestPlan>
"""

_LOCUSTFILE = """\
# written by lbanalysis sweep: one GET of --host per task, no wait between tasks
from locust import HttpUser, task


class SweepUser(HttpUser):
    @task
    def get(self):
        self.client.get("")
"""


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
    as runs. ``drives`` say how ``lbanalysis sweep`` runs each of its
    executables (:class:`Drive`; empty: the sweep cannot run it). ``unseen_think_time`` names a wait between a client's requests
    that the tool can be told to make without its output showing it (siege's
    ``.siegerc`` delay): fewer requests in flight than clients may then be
    that wait rather than a client that could not keep up. ``subcommands``
    are the words that may follow the executable in a command line (``k6
    run``): with one of them a line is a command even without options.
    ``latency_is_little`` says why the mean latency the tool prints cannot
    show an idle client (it is computed from the concurrency), empty when it
    can; ``debug_options`` are the options that make a run a debugging one
    (kept, but left out of curves). For tools whose target may be in a
    script rather than the command (k6, Locust), ``load_options`` are the
    options (every spelling) that set a run's load or bound or only what it
    prints, each with a value, and ``output_flags`` the flags that only
    change what it prints: runs whose commands differ only in them are one
    workload (:func:`workload`). ``echo_patterns`` are regular expressions of
    lines the tool prints that look like its command line but are its output
    (httperf echoes its options, defaults included): such a line, without a
    prompt, does not start a transcript segment. ``cpu_spins`` says why the
    tool's own CPU figure shows no client bound (httperf polls its sockets
    in a loop: near 100 % of a core at any load), empty when it can.
    ``script_options`` are the options whose value is the script a run
    executes (Locust's ``-f``), ``script_default`` the script it runs when
    none is named, and ``think_times`` how the script asks for a wait
    between a client's requests: (regular expression, how its groups give
    the mean wait, factor to seconds), read by :mod:`lbanalysis.scripts`
    (``constant``: one figure; ``between``: the mean of two; ``unknown``: a
    wait the pattern cannot size). ``script_language`` names a script the
    patterns cannot read, read by :mod:`lbanalysis.scripts` instead (``k6``:
    the sleeps of a k6 script's default function; ``jmx``: the timers of a
    JMeter test plan); ``script_suffixes`` the ends of a script's name (a
    positional argument of the command with one is the script; a folder
    holding one such file and no script named holds the run's script);
    ``script_lines`` regular expressions of the tool's output lines naming
    the script it ran (k6's ``script: loadtest.js``).
    ``fixed_buckets`` says that the tool's latency histogram has the same
    bucket edges in every run (fortio's ``-r``), so the histograms of the
    processes of one test add up bucket by bucket; hey's and oha's buckets
    span each run's own fastest to slowest, and do not.

    >>> Tool("ab", "http-load", ("ab",), ("ab.text",)).kind
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
    drives: tuple[Drive, ...] = ()
    subcommands: tuple[str, ...] = ()
    latency_is_little: str = ""
    debug_options: tuple[str, ...] = ()
    load_options: tuple[str, ...] = ()
    output_flags: tuple[str, ...] = ()
    echo_patterns: tuple[str, ...] = ()
    written_files: tuple[str, ...] = ()
    cpu_spins: str = ""
    script_options: tuple[str, ...] = ()
    script_default: str = ""
    think_times: tuple[tuple[str, str, float], ...] = ()
    script_language: str = ""
    script_suffixes: tuple[str, ...] = ()
    script_lines: tuple[str, ...] = ()
    fixed_buckets: bool = False

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
        ("ab.gnuplot", "ab.csv", "ab.text"),
        "ApacheBench",
        "ab: bytes received incl. HTTP headers",
        closed_loop=True,
        info_options=("-h", "-V"),
        latency_is_little="ab's Time per request is concurrency × time / requests, so throughput × latency equals "
        "the concurrency by construction: without its -g log or Connection Times, ab cannot show an idle client",
        debug_options=("-v",),
        info_patterns=(
            (r"^This is ApacheBench, Version(?![\s\S]*^Benchmarking )", "version banner"),
            (r"^Usage: ab \[options\]", "help text"),
        ),
        drives=(
            Drive(
                "ab",
                ("-c", "{load}"),
                ("-n", "{requests}"),
                ("-t", "{seconds}"),
                install="Debian package apache2-utils",
                cores="1",
            ),
        ),
    ),
    Tool(
        "siege",
        "http-load",
        ("siege",),
        ("siege.log", "siege.json", "siege.text"),
        "siege",
        "siege: response bodies only (HTTP headers not counted)",
        closed_loop=True,
        info_options=("-h", "--help", "-V", "--version"),
        info_patterns=((r"^Usage: siege \[options\]", "help text"), (r"^SIEGE \d[\d.]*\s*$", "version banner")),
        unseen_think_time="a delay between requests set in .siegerc, which siege's output does not show",
        drives=(
            Drive(
                "siege",
                ("-c", "{load}"),
                ("-r", "{requests_per_load}"),
                ("-t", "{seconds}S"),
                options=("-R", "{config}"),
                install="Debian package siege",
                cores="1",
                config_file="siege.conf",
                config_text=_SIEGERC,
            ),
        ),
        debug_options=("-D", "--debug"),
    ),
    Tool(
        "gobench",
        "http-load",
        ("gobench",),
        ("gobench.text",),
        "gobench",
        "gobench: bytes read as the tool counts them",
        closed_loop=True,
        info_options=("-h", "--help", "-help"),
        drives=(
            Drive(
                "gobench",
                ("-c", "{load}"),
                ("-r", "{requests_per_load}"),
                ("-t", "{seconds}"),
                url=("-u", "{url}"),
                install="Go module github.com/cmpxchg16/gobench (not packaged in Debian)",
            ),
        ),
    ),
    Tool(
        "wrk",
        "http-load",
        ("wrk", "wrk2"),
        ("wrk.text",),
        "wrk 4.x and wrk2",
        "wrk: bytes read incl. HTTP headers",
        closed_loop=True,
        info_options=("-v", "--version"),
        info_patterns=(
            (r"^wrk \S+ \[\w+\] Copyright", "version banner"),
            (r"^Usage: wrk <options> <url>", "help text"),
        ),
        drives=(
            Drive(
                "wrk",
                ("-c", "{load}", "-t", "{threads}"),
                duration=("-d", "{seconds}s"),
                install="Debian package wrk",
                cores="{threads}",
            ),
            # wrk2's load is the rate it holds (-R); connections and threads: its defaults, or after --
            Drive(
                "wrk2",
                ("-R", "{load}"),
                duration=("-d", "{seconds}s"),
                load_column="rate_target_per_s",
                install="not packaged in Debian: build https://github.com/giltene/wrk2 and put it on PATH as wrk2",
                cores="2",  # wrk2's default -t
            ),
        ),
    ),
    Tool(
        "hey",
        "http-load",
        ("hey", "hey_linux_amd64", "hey_darwin_amd64", "hey_windows_amd64"),  # and its release binaries' names
        ("hey.csv", "hey.text"),
        "hey",
        "hey: response bodies only (HTTP headers not counted)",
        closed_loop=True,
        info_options=("-h", "--help"),
        info_patterns=((r"^Usage: hey \[options\.\.\.\] <url>", "help text"),),
        drives=(
            Drive(
                "hey",
                ("-c", "{load}"),
                ("-n", "{requests}"),
                ("-z", "{seconds}s"),
                install="Debian package hey (or Go module github.com/rakyll/hey)",
            ),
        ),
    ),
    Tool(
        "k6",
        "http-load",
        ("k6",),
        ("k6.json", "k6.points", "k6.text"),
        "Grafana k6",
        "k6: bytes received incl. HTTP headers (data_received)",
        closed_loop=True,  # VUs; an arrival-rate executor's runs carry rate_target_per_s (open loop)
        unseen_think_time="a sleep() in its script, which only k6's iteration_duration and iterations rate show",
        script_language="k6",
        script_suffixes=(".js", ".mjs", ".cjs", ".ts"),
        script_lines=(r"^\s*script: (\S.*?)\s*$",),
        info_options=("version", "--version", "-h", "--help", "help"),
        info_patterns=((r"^k6 v\d+\.\d+\S* \(", "version banner"), (r"^Usage:\n\s+k6 \[command\]", "help text")),
        subcommands=("run", "cloud", "version", "help", "inspect", "archive", "new"),
        load_options=(
            "--vus",
            "-u",
            "--iterations",
            "-i",
            "--duration",
            "-d",
            "--stage",
            "-s",
            "--summary-mode",
            "--summary-export",
            "--summary-trend-stats",
            "--out",
            "-o",
            "--console-output",
            "--log-output",
            "--log-format",
        ),
        output_flags=("--quiet", "-q", "--no-summary", "--no-color", "--verbose", "-v"),
        drives=(
            Drive(
                "k6",
                ("--vus", "{load}"),
                ("--iterations", "{requests}"),
                ("--duration", "{seconds}s"),
                options=("run",),
                url=("-e", "URL={url}", "{config}"),
                install="Go module go.k6.io/k6 (go install go.k6.io/k6@latest)",
                config_file="sweep-k6.js",
                config_text=_K6_SCRIPT,
            ),
        ),
    ),
    Tool(
        "locust",
        "http-load",
        ("locust",),
        ("locust.csv", "locust.json", "locust.text"),
        "Locust",
        "locust: response bodies only (Average Content Size)",
        closed_loop=True,
        unseen_think_time="a wait_time in its locustfile, which Locust's output does not show",
        script_options=("-f", "--locustfile"),
        script_default="locustfile.py",
        think_times=(
            (r"^\s*wait_time\s*=\s*(?:locust\.)?constant\(\s*([\d.]+)\s*\)", "constant", 1.0),
            (r"^\s*wait_time\s*=\s*(?:locust\.)?between\(\s*([\d.]+)\s*,\s*([\d.]+)\s*\)", "between", 1.0),
            (r"^\s*wait_time\s*=", "unknown", 1.0),
        ),
        info_options=("-V", "--version", "-h", "--help"),
        info_patterns=((r"^locust \d+\.\d+\S* from ", "version banner"), (r"^Usage: locust \[options\]", "help text")),
        load_options=(
            "-u",
            "--users",
            "-r",
            "--spawn-rate",
            "-t",
            "--run-time",
            "-i",
            "--iterations",
            "--csv",
            "--json-file",
            "--html",
            "--loglevel",
            "-L",
            "--logfile",
        ),
        output_flags=("--headless", "--only-summary", "--json", "--csv-full-history", "--print-stats"),
        written_files=(
            "{prefix}_stats.csv",
            "{prefix}_stats_history.csv",
            "{prefix}_failures.csv",
            "{prefix}_exceptions.csv",
            "{prefix}.json",
        ),
        drives=(
            Drive(
                "locust",
                ("-u", "{load}", "-r", "{load}"),
                duration=("-t", "{seconds}s"),
                options=("-f", "{config}", "--headless", "--only-summary"),
                url=("--host", "{url}"),
                install="PyPI package locust (pip install locust)",
                config_file="sweep-locustfile.py",
                config_text=_LOCUSTFILE,
                cores="1",  # one process, one thread of Python (gevent): several cores take workers
                prints_start=True,
            ),
        ),
    ),
    Tool(
        "haproxy",
        "lb-stats",
        ("haproxy",),
        ("haproxy.stat", "haproxy.info"),
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
        ("iperf.iperf3_json", "iperf.iperf3"),
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
        ("iperf.iperf2_csv", "iperf.iperf2"),
        "iperf 2",
        "iperf: payload rate (bits_per_s)",
        info_options=("-h", "--help", "-v", "--version"),
        info_patterns=((r"^iperf version 2\.", "version banner"), (r"^Usage: iperf \[-s\|-c host\]", "help text")),
    ),
    Tool(
        "vegeta",
        "http-load",
        ("vegeta",),
        ("vegeta.csv", "vegeta.json", "vegeta.text"),
        "vegeta (open loop: -rate requests per second)",
        "vegeta: response bodies only, at most -max-body each",
        # `echo 'GET url' | vegeta attack ... | vegeta report`, and vegeta's subcommands
        command_patterns=(
            r"""(?:(?:echo|printf|cat|jq)\b[^|\n]*\|\s*)?(?:[\w.~/-]*/)?vegeta(?:\s+-\S+)*\s+(?:attack|report|encode)\b[^\n]*""",
        ),
        info_options=("-h", "--help", "-version", "--version"),
        info_patterns=((r"^Version: .*\nCommit: .*\nRuntime: go", "version banner"), (r"^Usage: vegeta ", "help text")),
        # open loop: the load is the rate; the target on stdin, the results piped into `vegeta report`
        drives=(
            Drive(
                "vegeta",
                ("-rate={load}",),
                duration=("-duration={seconds}s",),
                options=("attack",),
                url=(),
                load_column="rate_target_per_s",
                install="Go module github.com/tsenart/vegeta/v12 (go install github.com/tsenart/vegeta/v12@latest)",
                stdin="GET {url}",
                then=("vegeta", "report"),
            ),
        ),
    ),
    Tool(
        "gatling",
        "http-load",
        ("gatling.sh", "gatling"),
        ("gatling.log", "gatling.text"),
        "Gatling (console and simulation.log; open injection by default)",
        "gatling: no bytes in its console or simulation.log",
    ),
    Tool(
        "httperf",
        "http-load",
        ("httperf",),
        ("httperf.text",),
        "httperf (open loop: --rate connections per second)",
        "httperf: replies, headers and bodies (Reply size total x replies); Net I/O adds the bytes sent",
        info_options=("-h", "--help", "-V", "--version"),
        info_patterns=((r"^httperf: httperf-\S+ compiled", "version banner"), (r"^Usage: httperf ", "help text")),
        echo_patterns=(r"httperf(?: --[\w-]+(?:=\S*)?)* --client=\d+/\d+(?: --[\w-]+(?:=\S*)?)*",),
        cpu_spins="httperf polls its sockets in a loop, so its CPU is near 100 % of a core at any load (99 % at 20 "
        "connections/s here): its own CPU figure shows no client bound",
        # open loop: the load is the connection rate; a run is bounded by its connections (rate x seconds)
        drives=(
            Drive(
                "httperf",
                ("--rate", "{load}"),
                ("--num-conns", "{requests}"),
                ("--num-conns", "{load_seconds}"),
                url=("--server", "{url_host}", "--port", "{url_port}", "--uri", "{url_path}"),
                load_column="rate_target_per_s",
                install="Debian package httperf",
                cores="1",  # one process, one thread (select loop)
            ),
        ),
    ),
    Tool(
        "oha",
        "http-load",
        ("oha",),
        ("oha.json", "oha.text"),
        "oha",
        "oha: response bodies only (HTTP headers not counted)",
        closed_loop=True,
        info_options=("-h", "--help", "-V", "--version"),
        info_patterns=((r"^oha \d+\.\d+\.\d+\s*$", "version banner"), (r"^Usage: oha \[OPTIONS\]", "help text")),
        drives=(
            Drive(
                "oha",
                ("-c", "{load}"),
                ("-n", "{requests}"),
                ("-z", "{seconds}s"),
                options=("--no-tui",),
                install="crate oha (cargo install --locked oha)",
            ),
        ),
    ),
    Tool(
        "bombardier",
        "http-load",
        ("bombardier",),
        ("bombardier.json", "bombardier.text"),
        "bombardier (codesenberg/bombardier)",
        "bombardier: bytes read incl. HTTP headers; Throughput adds the bytes written",
        closed_loop=True,
        info_options=("--help", "--help-long", "--version"),
        info_patterns=(
            (r"^bombardier version \S+", "version banner"),
            (r"^usage: bombardier \[<flags>\]", "help text"),
        ),
        drives=(
            Drive(
                "bombardier",
                ("-c", "{load}"),
                ("-n", "{requests}"),
                ("-d", "{seconds}s"),
                options=("-l", "-p", "r"),
                install="Go module github.com/codesenberg/bombardier (go install github.com/codesenberg/bombardier@latest)",
            ),
        ),
    ),
    Tool(
        "jmeter",
        "http-load",
        ("jmeter", "jmeter.sh"),
        ("jmeter.csv", "jmeter.xml", "jmeter.json", "jmeter.text"),
        "Apache JMeter (non-GUI)",
        "jmeter: bytes received incl. HTTP headers (bytes)",
        closed_loop=True,
        unseen_think_time="timers in its test plan, which JMeter's output does not show",
        script_options=("-t", "--testfile"),
        script_language="jmx",
        script_suffixes=(".jmx",),
        info_options=("-v", "--version", "-h", "--help", "-?"),
        # the target and the load are in the plan; -Jname=value sets a property the plan reads (${__P(threads)})
        load_options=(
            "-Jthreads",
            "-Jloops",
            "-Jduration",
            "-Jsummariser.name",
            "-Jsummariser.interval",
            "-l",
            "--logfile",
            "-j",
            "--jmeterlogfile",
            "-o",
            "--reportoutputfolder",
        ),
        output_flags=("-e", "--reportatendofloadtests"),
        drives=(
            Drive(
                "jmeter",
                ("-Jthreads={load}",),
                ("-Jloops={requests_per_load}",),
                ("-Jduration={seconds}",),
                options=("-n", "-t", "{config}", "-j", "/dev/null", "-Jsummariser.name=summary"),
                url=("-Jurl={url}",),
                install="Debian package jmeter (or Apache JMeter's binary release on PATH)",
                config_file="sweep-jmeter.jmx",
                config_text=_JMETER_PLAN,
            ),
        ),
    ),
    Tool(
        "taurus",
        "http-load",
        ("bzt",),
        ("taurus.text",),
        "Taurus (bzt) final stats (the summary of whichever tool it ran)",
        "taurus: no bytes in its final stats",
        info_options=("-h", "--help"),
    ),
    Tool(
        "fortio",
        "http-load",
        ("fortio",),
        ("fortio.json", "fortio.text"),
        "fortio (Istio's load tool: -qps rate over -c threads, or max)",
        "fortio: response bytes incl. HTTP headers (Response Body/Total Sizes)",
        closed_loop=True,  # -c threads, each call after the last answer; a -qps rate (rate_target_per_s) paces them
        info_options=("version", "help", "-h", "--help"),
        info_patterns=((r"^\d+\.\d+\.\d+\s*$", "version banner"), (r"^Φορτίο \S+ usage:", "help text")),
        subcommands=("load", "server", "curl", "report", "version", "help", "grpcping", "nc", "redirect", "proxies"),
        written_files=("{prefix}", "{prefix}.json"),  # -json FILE: the result beside what it printed
        fixed_buckets=True,  # -r (0.001 s by default), then wider: the same edges in every run
        # open loop in the sense of wrk2's -R: the load is the rate asked for, over fortio's default 4 threads
        drives=(
            Drive(
                "fortio",
                ("-qps", "{load}"),
                ("-n", "{requests}"),
                ("-t", "{seconds}s"),
                options=("load",),
                load_column="rate_target_per_s",
                install="Go module fortio.org/fortio (go install fortio.org/fortio@v1.68.2)",
            ),
        ),
    ),
    Tool(
        "crank",
        "http-load",
        ("crank",),
        ("crank.json",),
        "crank (the .NET benchmark job runner of ASP.NET and YARP: bombardier or wrk, and each job's CPU)",
        "crank: bombardier's bytes read (Throughput adds those written) or wrk's, incl. HTTP headers",
        closed_loop=True,  # its load jobs: bombardier and wrk, connections each waiting for its answer
        info_options=("--help", "-?", "--version"),
    ),
    Tool(
        "autobench",
        "http-load",
        (),  # its command line is not read: its table says what each run measured
        ("autobench.table",),
        "autobench (httperf at one --rate after another: its TSV or CSV, or the table pasted in Markdown or columns)",
        "autobench: httperf's Net I/O (sent + received, KB/s); no byte counts",
        info_options=("--version",),
        info_patterns=((r"^Autobench \d[\w.]*$", "version banner"),),
    ),
    # host and process resource monitors: no runs of their own, CPU samples into the cpu table (paired with runs
    # by lbanalysis.pairing); no executables: their command lines do not start a transcript segment
    Tool("time", "resources", (), ("cpu.gnu_time",), "GNU time -v and default, the shells' time (bash, zsh, -p)"),
    Tool("vmstat", "resources", (), ("cpu.vmstat",), "procps vmstat (plain, -t, -w)"),
    Tool("mpstat", "resources", (), ("cpu.mpstat",), "sysstat mpstat (-P ALL)"),
    Tool("sar", "resources", (), ("cpu.sar",), "sysstat sar -u and -P ALL"),
    Tool("iostat", "resources", (), ("cpu.iostat",), "sysstat iostat -c"),
    Tool("pidstat", "resources", (), ("cpu.pidstat",), "sysstat pidstat -u"),
    Tool("dstat", "resources", (), ("cpu.dstat",), "dstat and dool (screen and --output CSV)"),
    Tool("top", "resources", (), ("cpu.top",), "procps top -b snapshots"),
    # what `lbanalysis sweep` measured of each run's CPU (cpu/NNN.csv): the load tool's process, this host's cores
    Tool("sweep", "resources", (), ("cpu.capture_csv",), "lbanalysis sweep's CPU capture (os.wait4, /proc/stat)"),
)


#: What every output of a tool shows somewhere, as written in the file, in any of its formats: its results, errors,
#: help and version texts, the command lines of its ``command_patterns``, and where a report of it appended after
#: another tool's output begins. Regular expressions (most of them plain texts), searched for in a whole text before
#: any clean-up: a text longer than a head in which none stands, nor a tool's executable as a word, is refused
#: without the clean-up and detection passes (:func:`lbanalysis.readers.markers`, issue #39). Wider is safe (a
#: text that shows one gets the full pass); a new tool needs its line here (``tests/test_markers.py`` checks it
#: and every fixture and corpus file).
DETECTION_MARKERS: dict[str, tuple[str, ...]] = {
    "ab": (r"ApacheBench", r"ab: ", r"Usage: ab", r"Requests per second", r"Complete requests", r"Time taken for tests",
           r"Percentage of the requests", r"apr_", r"Test aborted", r"Percentage served", r"dtime"),
    "siege": (r"siege", r"SIEGE", r"Siege", r"Transaction", r"transaction", r"HTTP/", r"\*\*\*\*", r"&\s*(?i:time)", r":\d\d:\d\d,"),
    "gobench": (r"Dispatching ", r"Bad requests", r"Successful requests rate", r"Requests or period",
                r"Only one should be provided", r"gobench"),
    "wrk": (r"test @", r"threads and", r"unable to connect to"),
    "hey": (r"Summary:", r"DNS\+dialup"),
    "k6": (r"http_reqs", r"iterations", r"vus_max", r"checks_total", r"data_received", r"TOTAL RESULTS", r"max VUs",
           r"metric_name,", r'"type":"(?:Point|Metric)"', r'\{"metric":'),
    "locust": (r"locust", r"# reqs", r"Request Count", r"User Count", r"Occurrences", r"Count,Message,Traceback",
               r"num_requests"),
    "haproxy": (r"HAProxy", r"HA-Proxy", r"pxname", r"objType", r"# be_id", r":\w*:\w+:", r"show\s+(?:stat|info|servers)"),
    "iperf3": (r"Connecting to host", r"Server listening on", r"Accepted connection", r" connected to ", r"iperf",
               r"sender", r"receiver", r"\[ ID", r"bits/sec", r"Bytes/sec", r'"(?:connecting_to|accepted_connection|'
               r'test_start|sum_sent|sum_received|cpu_utilization_percent|intervals|event|start)"'),
    "iperf": (r"iperf", r"connect failed", r"Client connecting to", r"Server listening on", r" connected with ",
              r" sec ", r"--?\d+(?:\.\d+)?,"),
    "vegeta": (r"\[(?:total|min|mean)", r"Bucket", r"Value\(ms\)", r'"latencies"', r'"latency"', r",\d{1,3},\d+,\d+,\d+,",
               r"Version: ", r"vegeta"),
    "gatling": (r"Global Information", r"Simulation ", r"RUN\t", r"\tRUN\t", r"\x00\x00\x00\x00"),
    "httperf": (r"test-duration", r"httperf"),
    "oha": (r"Summary:", r"Response time distribution", r'"summary"', r"successRate", r"request-start,"),
    "bombardier": (r"Statistics", r"Bombarding", r"numberOfConnections", r"bytesRead", r"bombardier"),
    "jmeter": (r"Err:", r"Created the tree successfully", r"NonGUIDriver", r"<testResults", r'"transaction"',
               r"sampleCount", r"timeStamp", r"elapsed", r",true,", r",false,"),
    "taurus": (r"Samples count: ",),
    "fortio": (r"Fortio ", r"qps", r"RunType", r"ActualQPS", r"DurationHistogram", r"All done", r"Φορτίο",
               r"\.\d+\.\d+\s*$"),
    "crank": (r'"jobs"', r'"(?:benchmarks|bombardier|wrk|http)/'),
    "autobench": (r"dem_req_rate", r"Autobench", r"Zero replies received"),
    "time": (r"Command being timed", r"user ", r"real(?:\t\d+m| \d)", r"maxresident"),
    "vmstat": (r"procs", r"swpd"),
    "mpstat": (r"%usr", r" CPU\)"),  # " CPU)": the end of sysstat's header line (its reports appended)
    "sar": (r"%user", r"%usr", r" CPU\)"),
    "iostat": (r"avg-cpu:", r" CPU\)"),
    "pidstat": (r"%CPU", r" CPU\)"),
    "dstat": (r"usr sys idl", r"CSV output"),
    "top": (r"top - ", r"Cpu"),
    "sweep": (r"time,host,role,scope,cores,",),
}  # fmt: skip


def cpu_spinners() -> dict[str, str]:
    """Tool name -> why its own CPU figure shows no client bound (:attr:`Tool.cpu_spins`), for the tools that spin.

    >>> list(cpu_spinners())
    ['httperf']
    """
    return {t.name: t.cpu_spins for t in TOOLS if t.cpu_spins}


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


def workload(tool: str, argv: Sequence[str]) -> str:
    """A command's arguments without those that set its load or bound (``Tool.load_options``): what runs of
    one workload at several loads share. Empty for a tool without such options.

    >>> workload("k6", ["run", "--quiet", "--vus", "8", "--iterations=300", "-e", "URL=http://h/", "get.js"])
    'run -e URL=http://h/ get.js'
    >>> workload("ab", ["-c", "8", "http://h/"])
    ''
    """
    found = next((t for t in TOOLS if t.name == tool), None)
    options = set(found.load_options) if found else set()
    if not options:
        return ""
    flags = set(found.output_flags) if found else set()
    kept, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a in options:
            skip = True  # its value follows
        elif a not in flags and a.split("=", 1)[0] not in options:
            kept.append(a)
    return shlex.join(kept)


def drives() -> dict[str, Drive]:
    """Executable -> how the sweep runs it, for every tool the sweep can run (registry order).

    >>> list(drives())
    ['ab', 'siege', 'gobench', 'wrk', 'wrk2', 'hey', 'k6', 'locust', 'vegeta', 'httperf', 'oha', 'bombardier', 'jmeter', 'fortio']
    """
    return {d.executable: d for t in TOOLS for d in t.drives}


def drive_of(name: str) -> Drive:
    """How the sweep runs ``name`` (an executable, or a tool's name); an unknown one lists the known ones.

    >>> drive_of("wrk2").load_column
    'rate_target_per_s'
    """
    found = drives()
    if name in found:
        return found[name]
    tool = next((t for t in TOOLS if t.name == name and t.drives), None)
    if tool is not None:
        return tool.drives[0]
    raise ValueError(f"the sweep cannot run {name!r}; it runs: {', '.join(found)}")


def command_patterns() -> dict[str, tuple[str, ...]]:
    """Tool name -> regular expressions of command lines (besides its executables) that start its output.

    >>> import re
    >>> any(re.fullmatch(p, 'echo "show stat" | socat stdio /run/haproxy/admin.sock')
    ...     for p in command_patterns()["haproxy"])
    True
    """
    return {t.name: t.command_patterns for t in TOOLS if t.command_patterns}


def echo_patterns() -> dict[str, tuple[str, ...]]:
    """Executable name -> regular expressions of output lines that look like its command (httperf's echo).

    >>> import re
    >>> bool(re.fullmatch(echo_patterns()["httperf"][0], "httperf --client=0/1 --server=h --port=80 --uri=/"))
    True
    """
    return {exe: t.echo_patterns for t in TOOLS if t.echo_patterns for exe in t.executables}


def subcommands() -> dict[str, tuple[str, ...]]:
    """Executable name -> the subcommands that may follow it (``k6 run``), for the tools that have them.

    >>> subcommands()["k6"][:2]
    ('run', 'cloud')
    """
    return {exe: t.subcommands for t in TOOLS if t.subcommands for exe in t.executables}


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

    >>> executables()["hey_linux_amd64"], executables()["bombardier"], executables()["k6"]
    ('hey', 'bombardier', 'k6')
    """
    pairs = [(exe, t.name) for t in TOOLS for exe in t.executables]
    return dict(sorted(pairs, key=lambda p: (-len(p[0]), p[0])))


def tool_of_executable(exe: str) -> str | None:
    """The tool an executable name (maybe with ``.exe`` or a path) starts, else None."""
    base = exe.replace("\\", "/").rsplit("/", 1)[-1]
    if base.lower().endswith(".exe"):
        base = base[:-4]
    return executables().get(base)
