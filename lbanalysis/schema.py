"""The one place that defines every table, column, dtype and unit.

Every reader returns plain Python values under the names defined here, and
:func:`conform` turns them into a frame with these dtypes and this column
order. SI units throughout: seconds, bytes, bits, per second. Percentages
carry a ``_pct`` suffix and stay in percent (0-100) as the tools print them.

Tables
------
runs
    one row per tool run (the key is ``source`` + ``run``).
percentiles, phases, requests, intervals, servers, streams
    long-form detail tables; each row carries ``source`` and ``run`` so it
    joins to ``runs`` (``servers``: one row per proxy and server of an
    HAProxy statistics snapshot; ``streams``: the final summary of each
    stream of an iperf ``-P`` test; ``histogram``: hey's response time
    histogram; ``metrics``: every figure of k6's metric lines and of Locust's
    rows per request name, one per row).

Example
-------
>>> from lbanalysis.schema import RUNS, conform
>>> RUNS["requests_per_s"].unit
'1/s'
>>> df = conform([{"source": "a.txt", "run": 0, "tool": "ab", "requests": 10}], "runs")
>>> df.loc[0, "requests"], str(df["requests"].dtype)
(10, 'Int64')
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "COMMAND_REFUSED",
    "CPU",
    "ERROR_KINDS",
    "HISTOGRAM",
    "INTERVALS",
    "KEY",
    "METRICS",
    "NO_ANSWER",
    "NO_RESULT_SHOWN",
    "PERCENTILES",
    "PHASES",
    "REQUESTS",
    "RUNS",
    "SERVERS",
    "STREAMS",
    "TABLES",
    "Column",
    "conform",
    "describe",
    "empty",
]


@dataclass(frozen=True)
class Column:
    """A column of a tidy table: its name, pandas dtype, unit and meaning."""

    name: str
    dtype: str
    unit: str
    description: str
    tools: str = "all"  # which tools fill it ("all", or e.g. "ab,siege")


def _cols(*cols: Column) -> dict[str, Column]:
    return {c.name: c for c in cols}


S, I, F, B, T = "string", "Int64", "float64", "boolean", "datetime64[ns]"

KEY = ("source", "run")

#: The values of the runs' ``error_kind``: what an error says of the requests (see the column).
NO_ANSWER, COMMAND_REFUSED, NO_RESULT_SHOWN = "no answer", "command refused", "no result shown"
ERROR_KINDS = (NO_ANSWER, COMMAND_REFUSED, NO_RESULT_SHOWN)

# ---------------------------------------------------------------- runs ---
# Common columns, filled by every reader where the output shows the value.
_RUNS_COMMON = (
    Column("source", S, "", "file the run was read from (path as given, or '<buffer>')"),
    Column("run", I, "", "0-based position of the run inside its file"),
    Column("line", I, "", "1-based line of the file where the run starts"),
    Column("tool", S, "", "the tool (a name of lbanalysis.registry: ab, siege, gobench, wrk, hey, iperf3, iperf)"),
    Column("format", S, "", "input format the run was read from (e.g. ab, siege-log, iperf3-json)"),
    Column("tool_version", S, "", "version the tool printed (e.g. '2.3', '4.0.7', '3.12')"),
    Column("tool_build", S, "", "build or revision the tool printed (ab's $Revision$)"),
    Column("command", S, "", "command line as shown in the file"),
    Column("label", S, "", "free-text label the file attaches (siege -m mark, a note line)"),
    Column("timestamp", T, "", "when the run happened, where the output says"),
    Column("url", S, "", "target URL (from the command line or the output)"),
    Column("host", S, "", "target host name or address"),
    Column("port", I, "", "target TCP/UDP port"),
    Column("path", S, "", "request path"),
    Column("method", S, "", "HTTP method (GET unless the command says otherwise)"),
    Column("concurrency", I, "", "configured concurrent clients (ab -c, siege -c, gobench -c, iperf -P)"),
    Column("requests_planned", I, "", "requests asked for on the command line (ab -n, siege -r x -c, gobench -r x -c)"),
    Column("time_limit_s", F, "s", "time limit asked for on the command line (ab -t, siege -t, gobench -t, iperf -t)"),
    Column("keepalive", B, "", "HTTP keep-alive used (ab -k; gobench -k)"),
    Column(
        "requests",
        I,
        "",
        "responses received (ab Complete requests, siege Transactions, gobench Requests minus Network failed,"
        " wrk/hey responses); an attempt without an answer is a failure, never a request",
    ),
    Column(
        "requests_ok",
        I,
        "",
        "successful requests as the tool counts them, each once; empty where the output cannot tell"
        " (ab with both failures and Non-2xx, often the same error pages)",
    ),
    Column("failed", I, "", "failed requests as the tool counts them"),
    Column("non_2xx", I, "", "responses with a status outside 2xx"),
    Column("duration_s", F, "s", "measured test duration"),
    Column("requests_per_s", F, "1/s", "throughput in requests per second"),
    Column("latency_mean_s", F, "s", "mean time per request seen by one client"),
    Column(
        "latency_mean_step_s",
        F,
        "s",
        "the step the mean latency was printed to (siege: 0.01 s in secs; Locust: 1 ms); the true mean lies within"
        " half a step",
        "siege,locust",
    ),
    Column("latency_min_s", F, "s", "shortest request"),
    Column("latency_max_s", F, "s", "longest request"),
    Column("bytes_total", F, "B", "bytes received (ab: total transferred incl. headers; iperf: transfer)"),
    Column("bytes_per_s", F, "B/s", "bytes received per second"),
    Column("bytes_sent", F, "B", "bytes sent by the client (request bodies)"),
    Column("bytes_sent_per_s", F, "B/s", "bytes sent per second"),
    Column("error", S, "", "why the run aborted or produced no result; empty when it completed"),
    Column(
        "error_kind",
        S,
        "",
        "what the error says of the requests: 'no answer' (the tool tried and got none: refused, reset, "
        "unreachable, timed out: all errors), 'command refused' (the tool refused its command line or script and "
        "sent no request), 'no result shown' (the output holds no result: cut off, written elsewhere, or no "
        "request made); empty where the run completed or the output does not say",
    ),
    Column("warnings", S, "", "non-fatal remarks the tool printed (e.g. 'WARNING: Response code not 2xx')"),
)

# ApacheBench (ab 1.3 and 2.x).
_RUNS_AB = (
    Column("server_software", S, "", "Server Software header value", "ab"),
    Column("server_hostname", S, "", "Server Hostname", "ab"),
    Column("tls_protocol", S, "", "SSL/TLS Protocol line", "ab"),
    Column("tls_cipher", S, "", "SSL/TLS cipher (from the Protocol line)", "ab"),
    Column("tls_key_bits", I, "bit", "server public key size (3rd field of the Protocol line)", "ab"),
    Column("tls_cipher_bits", I, "bit", "cipher secret bits (4th field of the Protocol line)", "ab"),
    Column("tls_temp_key", S, "", "Server Temp Key (e.g. 'X25519 253 bits')", "ab"),
    Column("tls_server_name", S, "", "TLS Server Name (SNI)", "ab"),
    Column("document_length_bytes", F, "B", "Document Length (empty when 'Variable')", "ab"),
    Column("document_length_variable", B, "", "ab printed 'Document Length: Variable'", "ab"),
    Column("latency_mean_all_s", F, "s", "mean time per request across all concurrent requests", "ab"),
    Column("failed_connect", I, "", "failed requests: connect", "ab"),
    Column("failed_receive", I, "", "failed requests: receive", "ab"),
    Column("failed_length", I, "", "failed requests: length", "ab"),
    Column("failed_exceptions", I, "", "failed requests: exceptions", "ab"),
    Column("write_errors", I, "", "Write errors", "ab"),
    Column("keepalive_requests", I, "", "Keep-Alive requests", "ab"),
    Column("bytes_html", F, "B", "HTML (body) bytes transferred", "ab"),
    Column("bytes_per_s_total", F, "B/s", "transfer rate, received + sent (ab; httperf Net I/O)", "ab,httperf"),
)

# siege 3.x / 4.x (summary text, JSON, siege.log).
_RUNS_SIEGE = (
    Column("availability_pct", F, "%", "Availability", "siege"),
    Column(
        "concurrency_achieved",
        F,
        "",
        "siege's 'Concurrency:' — achieved average of simultaneous connections (Little's law), not -c",
        "siege",
    ),
    Column("http_ok", I, "", "HTTP OK received", "siege"),
    Column("repetitions", I, "", "siege -r / gobench -r per client", "siege,gobench"),
    Column("delay_s", F, "s", "siege -d delay", "siege"),
    Column("benchmark_mode", B, "", "siege -b (no delay)", "siege"),
    Column("internet_mode", B, "", "siege -i (random URLs from file)", "siege"),
    Column("urls_file", S, "", "siege -f / gobench -f URL file", "siege,gobench"),
)

# gobench.
_RUNS_GOBENCH = (
    Column(
        "failed_network",
        I,
        "",
        "requests that got no response (gobench 'Network failed'; k6, Locust: refused, reset, timed out; JMeter:"
        " a 'Non HTTP response code'; httperf Errors total; Gatling: a KO whose message says no answer came)",
        "gobench,k6,locust,jmeter,httperf,gatling",
    ),
    Column(
        "requests_attempted",
        I,
        "",
        "requests made, answered or not, as the tool prints them (gobench 'Requests: N hits', vegeta Requests"
        " total, JMeter samples, httperf Total requests, Gatling request count; ``requests`` is this minus those that"
        " got no response)",
        "gobench,vegeta,jmeter,httperf,gatling",
    ),
)

# iperf 2 and iperf3.
_RUNS_IPERF = (
    Column("protocol", S, "", "tcp or udp", "iperf,iperf3"),
    Column("role", S, "", "client or server: which side printed the output", "iperf,iperf3"),
    Column(
        "direction",
        S,
        "",
        "sender or receiver: whose summary bits_per_s, bytes_total and duration_s hold (the receiver's when printed)",
        "iperf,iperf3",
    ),
    Column("reverse", B, "", "reverse mode (-R)", "iperf,iperf3"),
    Column("streams", I, "", "parallel streams (-P)", "iperf,iperf3"),
    Column("bits_per_s", F, "bit/s", "throughput (1 Mbit = 10^6 bit); whose: see direction", "iperf,iperf3"),
    Column("sender_bits_per_s", F, "bit/s", "the sender's own summary throughput, when printed", "iperf,iperf3"),
    Column("sender_bytes_total", F, "B", "the sender's own summary transfer, when printed", "iperf,iperf3"),
    Column("sender_duration_s", F, "s", "the sender's own summary interval length, when printed", "iperf,iperf3"),
    Column(
        "sender_total_packets", I, "", "UDP datagrams the sender's own summary counts, when printed", "iperf,iperf3"
    ),
    Column("retransmits", I, "", "TCP retransmits (Retr)", "iperf,iperf3"),
    Column("jitter_s", F, "s", "UDP jitter", "iperf,iperf3"),
    Column("lost_packets", I, "", "UDP datagrams lost", "iperf,iperf3"),
    Column("total_packets", I, "", "UDP datagrams sent", "iperf,iperf3"),
    Column("lost_percent", F, "%", "UDP loss", "iperf,iperf3"),
    Column("out_of_order", I, "", "UDP datagrams received out of order", "iperf,iperf3"),
    Column(
        "rtt_mean_s",
        F,
        "s",
        "the sender's mean TCP round-trip time (iperf3 JSON mean_rtt; iperf 2 -e: the RTT of the total line),"
        " averaged over the streams",
        "iperf,iperf3",
    ),
    Column(
        "rtt_min_s",
        F,
        "s",
        "the sender's shortest TCP round-trip time over the streams (iperf3 JSON min_rtt)",
        "iperf3",
    ),
    Column(
        "rtt_max_s", F, "s", "the sender's longest TCP round-trip time over the streams (iperf3 JSON max_rtt)", "iperf3"
    ),
    Column("cpu_local_pct", F, "%", "CPU utilisation of the local host (total)", "iperf3"),
    Column("cpu_remote_pct", F, "%", "CPU utilisation of the remote host (total)", "iperf3"),
    Column("cpu_local_user_pct", F, "%", "CPU utilisation of the local host: user", "iperf3"),
    Column("cpu_local_system_pct", F, "%", "CPU utilisation of the local host: system", "iperf3"),
    Column("cpu_remote_user_pct", F, "%", "CPU utilisation of the remote host: user", "iperf3"),
    Column("cpu_remote_system_pct", F, "%", "CPU utilisation of the remote host: system", "iperf3"),
    Column("local_host", S, "", "local address", "iperf,iperf3"),
    Column("local_port", I, "", "local port", "iperf,iperf3"),
    Column("remote_host", S, "", "remote address", "iperf,iperf3"),
    Column("remote_port", I, "", "remote port", "iperf,iperf3"),
)

# wrk 4.x and wrk2 (Thread Stats, socket errors, the fixed rate and HdrHistogram summary).
_RUNS_WRK = (
    Column("threads", I, "", "load-generator threads (wrk -t)", "wrk"),
    Column(
        "latency_stdev_s",
        F,
        "s",
        "standard deviation of the latency (wrk Thread Stats; Gatling std deviation)",
        "wrk,gatling",
    ),
    Column("latency_within_stdev_pct", F, "%", "share of requests within one stdev of the mean (+/- Stdev)", "wrk"),
    Column("thread_requests_per_s_mean", F, "1/s", "requests per second of one thread: mean (Req/Sec Avg)", "wrk"),
    Column("thread_requests_per_s_stdev", F, "1/s", "requests per second of one thread: stdev", "wrk"),
    Column("thread_requests_per_s_max", F, "1/s", "requests per second of one thread: max", "wrk"),
    Column(
        "thread_requests_per_s_within_stdev_pct",
        F,
        "%",
        "share of thread samples within one stdev of the mean (Req/Sec +/- Stdev)",
        "wrk",
    ),
    Column(
        "non_2xx_3xx",
        I,
        "",
        "responses with a status of 400 or more (wrk 'Non-2xx or 3xx responses'; Locust HTTPError failures)",
        "wrk,locust",
    ),
    Column("socket_errors_connect", I, "", "socket errors: connect", "wrk"),
    Column("socket_errors_read", I, "", "socket errors: read (includes a server closing the connection)", "wrk"),
    Column("socket_errors_write", I, "", "socket errors: write", "wrk"),
    Column("socket_errors_timeout", I, "", "socket errors: timeout (requests with no answer within --timeout)", "wrk"),
    Column(
        "rate_target_per_s",
        F,
        "1/s",
        "fixed request rate asked for (wrk2 -R; k6 arrival-rate executors: iterations/s; httperf --rate: connections/s,"
        " each of --num-calls requests): an open-loop run",
        "wrk,k6,httperf",
    ),
    Column("hdr_latency_mean_s", F, "s", "HdrHistogram mean of the recorded (corrected) latency (wrk2)", "wrk"),
    Column("hdr_latency_stdev_s", F, "s", "HdrHistogram standard deviation (wrk2)", "wrk"),
    Column("hdr_latency_max_s", F, "s", "HdrHistogram max (wrk2)", "wrk"),
    Column("hdr_count", I, "", "HdrHistogram total count (wrk2)", "wrk"),
    Column("hdr_uncorrected_latency_mean_s", F, "s", "HdrHistogram mean of the uncorrected latency (wrk2 -U)", "wrk"),
    Column("hdr_uncorrected_latency_stdev_s", F, "s", "HdrHistogram standard deviation, uncorrected (wrk2 -U)", "wrk"),
    Column("hdr_uncorrected_latency_max_s", F, "s", "HdrHistogram max, uncorrected (wrk2 -U)", "wrk"),
    Column("hdr_uncorrected_count", I, "", "HdrHistogram total count, uncorrected (wrk2 -U)", "wrk"),
)

# hey (rakyll/hey).
_RUNS_HEY = (
    Column(
        "bytes_per_request",
        F,
        "B",
        "response body bytes per request (hey Size/request, Locust Average Content Size)",
        "hey,locust",
    ),
    Column(
        "status_codes",
        S,
        "",
        "status code distribution as 'code: count; ...' (hey; httperf by class: '2xx: 5')",
        "hey,httperf",
    ),
    Column(
        "requests_attempted_per_s",
        F,
        "1/s",
        "requests made per second, answered or not, as hey and oha print them (Requests/sec, oha JSON"
        " requestsPerSec, JMeter's summariser and statistics.json throughput, httperf Request rate, Gatling mean"
        " requests/sec; ``requests_per_s`` counts responses)",
        "hey,oha,jmeter,httperf,gatling",
    ),
)

# k6 (end-of-test summary, summary JSON, metric points) and Locust.
_RUNS_K6_LOCUST = (
    Column("scenarios", S, "", "k6 scenarios as printed ('name: 3 looping VUs for 2s (...)'; joined by '; ')", "k6"),
    Column("vus_max", I, "", "most VUs k6 allocated (vus_max)", "k6"),
    Column("iterations", I, "", "iterations of the script completed (k6 iterations)", "k6"),
    Column(
        "iterations_dropped", I, "", "iterations an arrival-rate executor could not start (dropped_iterations)", "k6"
    ),
    Column("checks_passed", I, "", "checks that passed (k6 check())", "k6"),
    Column("checks_failed", I, "", "checks that failed (k6 check())", "k6"),
    Column(
        "thresholds",
        S,
        "",
        "thresholds and their outcome ('metric expression: ok' or ': failed'; joined by '; ')",
        "k6",
    ),
    Column("thresholds_failed", I, "", "thresholds that failed (k6 exits 99)", "k6"),
    Column("spawn_rate_per_s", F, "1/s", "users started per second during the ramp-up (locust -r)", "locust"),
    Column("exceptions", I, "", "errors raised by the test script itself, outside any request (Locust)", "locust"),
)

# HAProxy statistics snapshots (show stat / show info): one run per snapshot file.
_RUNS_HAPROXY = (
    Column("uptime_s", F, "s", "time since HAProxy started (show info Uptime_sec)", "haproxy"),
    Column("nbthread", I, "", "HAProxy threads (show info Nbthread)", "haproxy"),
    Column("maxconn", I, "", "process connection limit (show info Maxconn)", "haproxy"),
    Column("connections_current", I, "", "connections open at the snapshot (show info CurrConns)", "haproxy"),
    Column(
        "idle_pct",
        F,
        "%",
        "HAProxy's own idle share of its event loop at the snapshot (show info Idle_pct; 100 - it is its busy share;"
        " under a CPU quota it stays high while HAProxy is starved)",
        "haproxy",
    ),
    Column("run_queue", I, "", "HAProxy tasks ready to run at the snapshot (show info Run_queue)", "haproxy"),
    Column(
        "conn_rate_per_s",
        F,
        "1/s",
        "connections accepted per second over the last second (show info ConnRate)",
        "haproxy",
    ),
    Column("sess_rate_per_s", F, "1/s", "sessions per second over the last second (show info SessRate)", "haproxy"),
    Column("connections_total", I, "", "connections accepted since start (show info CumConns)", "haproxy"),
    Column("requests_total", I, "", "HTTP requests since start (show info CumReq)", "haproxy"),
)

# vegeta, oha and bombardier (their other figures fill the common, wrk and hey columns).
_RUNS_VEGETA_OHA_BOMBARDIER = (
    Column(
        "rate_sent_per_s", F, "1/s", "requests sent per second while sending, answered or not (vegeta rate)", "vegeta"
    ),
    Column(
        "requests_ok_per_s",
        F,
        "1/s",
        "successful requests per second over the whole test as the tool counts them (vegeta throughput: 200-399)",
        "vegeta",
    ),
    Column(
        "success_pct",
        F,
        "%",
        "share of requests the tool counts as successful (vegeta Success ratio: status 200-399; oha Success rate:"
        " any response, requests cut off by -z left out)",
        "vegeta,oha",
    ),
    Column(
        "send_duration_s", F, "s", "time spent sending: first to last request sent (vegeta Duration attack)", "vegeta"
    ),
    Column("wait_s", F, "s", "from the last request sent to its answer (vegeta Duration wait)", "vegeta"),
    Column(
        "bytes_sent_per_request",
        F,
        "B",
        "bytes sent per request (vegeta Bytes Out mean: the body; httperf Request size: headers included)",
        "vegeta,httperf",
    ),
    Column(
        "interval_requests_per_s_mean",
        F,
        "1/s",
        "mean of the request rates sampled in short windows (10 ms), errors included (bombardier Reqs/sec Avg,"
        " oha JSON rps mean; httperf Reply rate avg: replies in 5-s samples)",
        "bombardier,oha,httperf",
    ),
    Column(
        "interval_requests_per_s_stdev",
        F,
        "1/s",
        "their standard deviation (bombardier Reqs/sec Stdev, oha rps stddev, httperf Reply rate stddev)",
        "bombardier,oha,httperf",
    ),
    Column(
        "interval_requests_per_s_max",
        F,
        "1/s",
        "the highest of them (bombardier Reqs/sec Max, oha rps max, httperf Reply rate max)",
        "bombardier,oha,httperf",
    ),
    Column(
        "interval_requests_per_s_min",
        F,
        "1/s",
        "the lowest of them (oha JSON rps min; httperf Reply rate min)",
        "oha,httperf",
    ),
    *(
        Column(
            f"interval_requests_per_s_p{q.replace('.', '_')}",
            F,
            "1/s",
            f"their {q}th percentile (JSON rps percentiles: bombardier 50 ... 99, oha 10 ... 99.99)",
            "bombardier,oha",
        )
        for q in ("10", "25", "50", "75", "90", "95", "99", "99.9", "99.99")
    ),
)

# httperf (its summary and the options it echoes) and Gatling.
_RUNS_HTTPERF_GATLING = (
    Column("connections", I, "", "connections opened (httperf Total connections)", "httperf"),
    Column("connections_planned", I, "", "connections asked for (httperf --num-conns)", "httperf"),
    Column("calls_per_connection", I, "", "requests sent on each connection (httperf --num-calls)", "httperf"),
    Column(
        "timeout_s", F, "s", "time a request may wait for its answer before it fails (httperf --timeout)", "httperf"
    ),
    Column("connection_rate_per_s", F, "1/s", "connections opened per second (httperf Connection rate)", "httperf"),
    Column(
        "connections_concurrent_max",
        I,
        "",
        "most connections open at once (httperf '<=N concurrent connections')",
        "httperf",
    ),
    Column(
        "connect_burst_max",
        I,
        "",
        "most connections opened in one burst (httperf Maximum connect burst length)",
        "httperf",
    ),
    Column("replies_per_connection", F, "", "replies per connection (httperf Connection length)", "httperf"),
    Column("reply_header_bytes", F, "B", "mean header bytes of a reply (httperf Reply size header)", "httperf"),
    Column("reply_footer_bytes", F, "B", "mean footer bytes of a reply (httperf Reply size footer)", "httperf"),
    Column("reply_bytes", F, "B", "mean bytes of a reply, headers included (httperf Reply size total)", "httperf"),
    Column(
        "interval_samples",
        I,
        "",
        "samples of the reply rate (httperf: one per 5 s; none in a shorter run, whose min ... stddev stay empty)",
        "httperf",
    ),
    *(
        Column(f"errors_{name}", I, "", f"failed: {what} (httperf Errors {word})", "httperf")
        for name, word, what in (
            ("client_timeout", "client-timo", "no reply within --timeout"),
            ("socket_timeout", "socket-timo", "the TCP connection timed out"),
            ("connection_refused", "connrefused", "connection refused"),
            ("connection_reset", "connreset", "connection reset by the server"),
            ("fd_unavailable", "fd-unavail", "no file descriptor left on the client"),
            ("address_unavailable", "addrunavail", "no local port left on the client"),
            ("ftab_full", "ftab-full", "the client's file table full"),
            ("other", "other", "any other error"),
        )
    ),
)

RUNS = _cols(
    *_RUNS_COMMON, *_RUNS_AB, *_RUNS_SIEGE, *_RUNS_GOBENCH, *_RUNS_IPERF, *_RUNS_WRK, *_RUNS_HEY, *_RUNS_K6_LOCUST,
    *_RUNS_VEGETA_OHA_BOMBARDIER, *_RUNS_HAPROXY, *_RUNS_HTTPERF_GATLING,
)  # fmt: skip

# ---------------------------------------------------------- detail ---
_KEYCOLS = (
    Column("source", "category", "", "file (joins to runs; categorical: detail tables can be long)"),
    Column("run", I, "", "run inside the file (joins to runs)"),
)

PERCENTILES = _cols(
    *_KEYCOLS,
    Column("percentile", F, "%", "percentage of requests (0-100)"),
    Column("latency_s", F, "s", "requests served within this time"),
    Column(
        "kind",
        S,
        "",
        "which latency: empty for the tool's only one; wrk2 'recorded' or 'uncorrected', and 'recorded printed' or"
        " 'uncorrected printed' for the 50 ... 100 % lines wrk2 prints above a Detailed Percentile spectrum of the"
        " same distribution (the spectrum rows keep 'recorded'/'uncorrected'); oha 'first byte' (JSON"
        " firstBytePercentiles), '2xx only' and '4xx + 5xx only' (--stats-success-breakdown)",
    ),
    Column("count", I, "", "requests at or below this latency (wrk2 spectrum TotalCount)"),
)

PHASES = _cols(
    *_KEYCOLS,
    Column("phase", S, "", "connect, processing, waiting or total (ab Connection Times)"),
    Column("min_s", F, "s", "minimum"),
    Column("mean_s", F, "s", "mean"),
    Column("sd_s", F, "s", "standard deviation ([+/-sd])"),
    Column("median_s", F, "s", "median"),
    Column("max_s", F, "s", "maximum"),
)

REQUESTS = _cols(
    *_KEYCOLS,
    Column("seq", I, "", "0-based position in start-time order"),
    Column("start", T, "", "wall-clock start of the request (UTC), where logged"),
    Column(
        "logged",
        T,
        "",
        "wall-clock time the tool printed the request's line, as printed (siege -v CSV form: its local time)",
    ),
    Column("start_s", F, "s", "start relative to the first request of the run"),
    Column("connect_s", F, "s", "connect time (ab -g ctime; hey DNS+dialup)"),
    Column("dns_s", F, "s", "DNS lookup time (hey and oha CSV DNS; hey's DNS+dialup includes it)"),
    Column("blocked_s", F, "s", "time waiting for a free connection, connect and TLS included (k6 http_req_blocked)"),
    Column("tls_s", F, "s", "TLS handshake time (k6 http_req_tls_handshaking)"),
    Column("processing_s", F, "s", "processing time (ab -g dtime)"),
    Column("waiting_s", F, "s", "waiting time (ab -g wait; hey Response-delay)"),
    Column("write_s", F, "s", "time writing the request (hey Request-write)"),
    Column("read_s", F, "s", "time reading the response (hey Response-read)"),
    Column("latency_s", F, "s", "total time of the request (ab -g ttime, siege secs)"),
    Column("status", I, "", "HTTP status code (siege -v, hey)"),
    Column("bytes", F, "B", "response bytes (siege -v)"),
    Column("method", S, "", "HTTP method (siege -v)"),
    Column("url", S, "", "requested URL or path (siege -v)"),
    Column("error", S, "", "the error the tool recorded (vegeta: no answer, or the text of a status of 400 or more)"),
    Column("client", I, "", "the simulated user that made the request (siege display-id; Gatling 2.x, 3.0-3.3 user)"),
    Column("label", S, "", "the request's name in the test plan (JMeter sampler label; Gatling groups / name)"),
    Column("thread", S, "", "the thread that made the request, as named (JMeter threadName 'users 1-2')"),
    Column("success", B, "", "the tool counted the request successful (JMeter success; Gatling OK)"),
    Column(
        "first_byte_s",
        F,
        "s",
        "from just before sending the request to the first byte of the answer, connect included (JMeter Latency)",
    ),
    Column("idle_s", F, "s", "time inside the sample spent waiting, not sampling (JMeter IdleTime)"),
    Column("bytes_sent", F, "B", "request bytes sent, headers included (JMeter sentBytes)"),
    Column("threads", I, "", "threads active in every thread group when the request ended (JMeter allThreads)"),
    Column("group_threads", I, "", "threads active in the request's thread group (JMeter grpThreads)"),
)

INTERVALS = _cols(
    *_KEYCOLS,
    Column("stream", S, "", "stream id as printed ('5', 'SUM')"),
    Column("start_s", F, "s", "interval start"),
    Column("end_s", F, "s", "interval end"),
    Column("bytes", F, "B", "bytes transferred (iperf binary prefixes: 1 MByte = 2^20 B)"),
    Column("bits_per_s", F, "bit/s", "throughput (1 Mbit = 10^6 bit)"),
    Column("retransmits", I, "", "TCP retransmits"),
    Column("cwnd_bytes", F, "B", "congestion window"),
    Column(
        "rtt_s", F, "s", "TCP round-trip time the sender saw at the end of the interval (iperf3 JSON rtt, iperf 2 -e)"
    ),
    Column("jitter_s", F, "s", "UDP jitter"),
    Column("lost_packets", I, "", "UDP datagrams lost"),
    Column("total_packets", I, "", "UDP datagrams"),
    Column("lost_percent", F, "%", "UDP loss"),
    Column("omitted", B, "", "interval inside the -O omit period"),
    Column("direction", S, "", "iperf: sender or receiver, the side that measured the interval"),
    Column(
        "users", I, "", "users running at the end of the interval (Locust _stats_history.csv User Count, JMeter Active)"
    ),
    Column("requests_per_s", F, "1/s", "requests per second in the interval (Locust _stats_history.csv)"),
    Column("failures_per_s", F, "1/s", "failed requests per second in the interval (Locust _stats_history.csv)"),
    Column("requests", I, "", "requests made in the interval, answered or not (JMeter summariser 'summary +')"),
    Column("errors", I, "", "failed requests in the interval (JMeter summariser Err)"),
    Column("latency_mean_s", F, "s", "mean time per request in the interval (JMeter summariser Avg)"),
    Column("latency_min_s", F, "s", "shortest request in the interval (JMeter summariser Min)"),
    Column("latency_max_s", F, "s", "longest request in the interval (JMeter summariser Max)"),
    Column("users_started", I, "", "threads started so far (JMeter summariser Started)"),
    Column("users_finished", I, "", "threads finished so far (JMeter summariser Finished)"),
)

STREAMS = _cols(
    *_KEYCOLS,
    Column("stream", S, "", "stream id as printed ('5'); one row per stream and side of its final summary"),
    Column("direction", S, "", "sender or receiver: the side whose summary this is"),
    Column("start_s", F, "s", "summary start"),
    Column("end_s", F, "s", "summary end"),
    Column("bytes", F, "B", "bytes transferred (iperf binary prefixes: 1 MByte = 2^20 B)"),
    Column("bits_per_s", F, "bit/s", "throughput (1 Mbit = 10^6 bit)"),
    Column("retransmits", I, "", "TCP retransmits"),
    Column("cwnd_bytes", F, "B", "congestion window (iperf 2 -e total line; iperf3 JSON max_snd_cwnd)"),
    Column("rtt_s", F, "s", "TCP round-trip time on the total line (iperf 2 -e)"),
    Column("rtt_min_s", F, "s", "shortest TCP round-trip time (iperf3 JSON min_rtt)"),
    Column("rtt_max_s", F, "s", "longest TCP round-trip time (iperf3 JSON max_rtt)"),
    Column("rtt_mean_s", F, "s", "mean TCP round-trip time (iperf3 JSON mean_rtt)"),
    Column("jitter_s", F, "s", "UDP jitter"),
    Column("lost_packets", I, "", "UDP datagrams lost"),
    Column("total_packets", I, "", "UDP datagrams"),
    Column("lost_percent", F, "%", "UDP loss"),
    Column("out_of_order", I, "", "UDP datagrams received out of order"),
    Column("local_port", I, "", "the stream's local port, as this side printed its connection"),
    Column("remote_port", I, "", "the stream's remote port"),
)

SERVERS = _cols(
    *_KEYCOLS,
    Column("proxy", S, "", "proxy name (HAProxy pxname / be_name)"),
    Column("server", S, "", "server name, or FRONTEND / BACKEND for the proxy's totals (svname)"),
    Column("type", S, "", "frontend, backend, server or listener"),
    Column("status", S, "", "UP, DOWN, OPEN, MAINT, no check … as HAProxy prints it"),
    Column("weight", F, "", "effective weight (a backend: the sum of its servers')"),
    Column("sessions_current", I, "", "current sessions (scur)"),
    Column("sessions_max", I, "", "highest current sessions seen (smax)"),
    Column("sessions_limit", I, "", "configured session limit: maxconn (slim)"),
    Column("sessions_total", I, "", "sessions since start (stot)"),
    Column("queue_current", I, "", "requests waiting in the queue (qcur)"),
    Column("queue_max", I, "", "longest queue seen (qmax)"),
    Column("queue_limit", I, "", "configured queue limit (qlimit)"),
    Column("lbtot", I, "", "times the server was chosen by the balancer (lbtot)"),
    Column("bytes_in", F, "B", "bytes received from clients (bin)"),
    Column("bytes_out", F, "B", "bytes sent to clients (bout)"),
    Column("hrsp_1xx", I, "", "HTTP responses 1xx"),
    Column("hrsp_2xx", I, "", "HTTP responses 2xx"),
    Column("hrsp_3xx", I, "", "HTTP responses 3xx"),
    Column("hrsp_4xx", I, "", "HTTP responses 4xx"),
    Column("hrsp_5xx", I, "", "HTTP responses 5xx"),
    Column("hrsp_other", I, "", "HTTP responses with another code"),
    Column("errors_request", I, "", "request errors (ereq)"),
    Column("errors_connect", I, "", "connection errors to the server (econ)"),
    Column("errors_response", I, "", "response errors (eresp)"),
    Column("denied_request", I, "", "requests denied (dreq)"),
    Column("denied_response", I, "", "responses denied (dresp)"),
    Column("retries", I, "", "connection retries (wretr)"),
    Column("redispatches", I, "", "requests redispatched to another server (wredis)"),
    Column("rate", F, "1/s", "sessions per second over the last second (rate)"),
    Column("rate_max", F, "1/s", "highest sessions per second seen (rate_max)"),
    Column("queue_time_s", F, "s", "average queue time over the last 1024 requests (qtime, ms)"),
    Column("connect_time_s", F, "s", "average connect time (ctime, ms)"),
    Column("response_time_s", F, "s", "average response time (rtime, ms)"),
    Column("total_time_s", F, "s", "average total session time (ttime, ms)"),
    Column("active_servers", I, "", "active servers UP (act; a server: 1 if active)"),
    Column("backup_servers", I, "", "backup servers UP (bck; a server: 1 if backup)"),
    Column("check_failures", I, "", "failed health checks (chkfail)"),
    Column("check_downs", I, "", "UP to DOWN transitions (chkdown)"),
    Column("last_change_s", F, "s", "time since the last UP/DOWN transition (lastchg)"),
    Column("downtime_s", F, "s", "total downtime (downtime)"),
    Column("process_id", I, "", "HAProxy process number (pid)"),
    Column("proxy_id", I, "", "proxy id (iid)"),
    Column("server_id", I, "", "server id inside the proxy (sid)"),
    Column("throttle_pct", F, "%", "slow-start throttle (throttle)"),
    Column("tracked", S, "", "the server whose checks this one tracks (tracked)"),
    Column("rate_limit", F, "1/s", "configured limit on new sessions per second (rate_lim)"),
    Column("check_status", S, "", "status of the last health check (check_status, e.g. L7OK)"),
    Column("check_code", I, "", "layer 5-7 code of the last health check (check_code)"),
    Column("check_duration_s", F, "s", "time the last health check took (check_duration, ms)"),
    Column("check_failed_details", I, "", "failed health checks details (hanafail)"),
    Column("request_rate", F, "1/s", "HTTP requests per second over the last second (req_rate)"),
    Column("request_rate_max", F, "1/s", "highest HTTP requests per second seen (req_rate_max)"),
    Column("requests_total", I, "", "HTTP requests received (req_tot)"),
    Column("aborts_client", I, "", "data transfers aborted by the client (cli_abrt)"),
    Column("aborts_server", I, "", "data transfers aborted by the server (srv_abrt)"),
    Column("compressed_in", F, "B", "bytes fed to the compressor (comp_in)"),
    Column("compressed_out", F, "B", "bytes the compressor emitted (comp_out)"),
    Column("compression_bypassed", F, "B", "bytes that bypassed the compressor (comp_byp)"),
    Column("compressed_responses", I, "", "HTTP responses that were compressed (comp_rsp)"),
    Column("last_session_s", F, "s", "time since the last session was assigned (lastsess)"),
    Column("last_check", S, "", "last health check contents or textual error (last_chk)"),
    Column("last_agent_check", S, "", "last agent check contents or textual error (last_agt)"),
    Column("check_rise", I, "", "checks to pass before a server is UP (check_rise)"),
    Column("check_fall", I, "", "checks to fail before a server is DOWN (check_fall)"),
    Column("check_health", I, "", "current health-check counter (check_health)"),
    Column("mode", S, "", "proxy mode: http, tcp, health (mode)"),
    Column("algorithm", S, "", "load-balancing algorithm (algo)"),
    Column("connection_rate", F, "1/s", "connections per second over the last second (conn_rate)"),
    Column("connection_rate_max", F, "1/s", "highest connections per second seen (conn_rate_max)"),
    Column("connections_total", I, "", "connections accepted (conn_tot)"),
    Column("intercepted", I, "", "requests intercepted by the frontend: stats, redirects (intercepted)"),
    Column("denied_connection", I, "", "connections denied by tcp-request connection rules (dcon)"),
    Column("denied_session", I, "", "sessions denied by tcp-request session rules (dses)"),
    Column("rewrite_failures", I, "", "failed HTTP header rewrites (wrew)"),
    Column("connect_attempts", I, "", "connection establishment attempts to the server (connect)"),
    Column("connection_reuses", I, "", "connections reused (reuse)"),
    Column("cache_lookups", I, "", "cache lookups (cache_lookups)"),
    Column("cache_hits", I, "", "cache hits (cache_hits)"),
    Column("idle_connections_current", I, "", "idle connections available for reuse (srv_icur)"),
    Column("idle_connections_limit", I, "", "limit on idle connections available for reuse (src_ilim)"),
    Column("queue_time_max_s", F, "s", "longest queue time seen (qtime_max, ms)"),
    Column("connect_time_max_s", F, "s", "longest connect time seen (ctime_max, ms)"),
    Column("response_time_max_s", F, "s", "longest response time seen (rtime_max, ms)"),
    Column("total_time_max_s", F, "s", "longest total session time seen (ttime_max, ms)"),
    Column("errors_internal", I, "", "internal errors (eint)"),
    Column("unsafe_idle_connections", I, "", "unsafe idle connections (idle_conn_cur)"),
    Column("safe_idle_connections", I, "", "safe idle connections (safe_conn_cur)"),
    Column("used_connections", I, "", "connections in use (used_conn_cur)"),
    Column("needed_connections", I, "", "estimated connections needed (need_conn_est)"),
    Column("weight_user", F, "", "weight set by the user, before slow start and the like (uweight)"),
    Column("aggregated_server_status", I, "", "a backend's servers' aggregated status code (agg_server_status)"),
    Column("aggregated_server_check_status", I, "", "aggregated server check status (agg_server_check_status)"),
    Column("aggregated_check_status", I, "", "aggregated check status code (agg_check_status)"),
    Column("check_description", S, "", "description of the last health check status (check_desc)"),
    Column("agent_status", S, "", "status of the last agent check (agent_status)"),
    Column("agent_code", I, "", "code of the last agent check (agent_code)"),
    Column("agent_duration_s", F, "s", "time the last agent check took (agent_duration, ms)"),
    Column("agent_description", S, "", "description of the last agent check status (agent_desc)"),
    Column("agent_rise", I, "", "agent checks to pass before UP (agent_rise)"),
    Column("agent_fall", I, "", "agent checks to fail before DOWN (agent_fall)"),
    Column("agent_health", I, "", "current agent check counter (agent_health)"),
    Column("cookie", S, "", "the server's cookie value (cookie)"),
    Column("address", S, "", "server address (addr without its :port / srv_addr)"),
    Column("port", I, "", "server port (show servers state's srv_port; show stat's addr after its colon)"),
)

HISTOGRAM = _cols(
    *_KEYCOLS,
    Column("latency_s", F, "s", "the bucket's upper edge: requests slower than the bucket before, up to this (hey)"),
    Column("count", I, "", "requests in the bucket"),
)

METRICS = _cols(
    *_KEYCOLS,
    Column(
        "metric",
        S,
        "",
        "the metric as the tool names it (k6 iteration_duration, http_req_duration{scenario:a}; Locust a request"
        " name, 'GET /flaky')",
    ),
    Column(
        "stat",
        S,
        "",
        "which figure of it: avg, min, med, max, p(95) (a trend); count, rate (a counter); value, min, max (a gauge);"
        " rate, passes, fails, total (a rate metric: passes are its true samples); Locust per name: requests,"
        " failures, failures_pct, avg, min, max, med, p(95), rate, failures_rate, size (--json: total_time,"
        " size_total, none_requests)",
    ),
    Column("value", F, "", "the figure, in the unit of the next column"),
    Column(
        "unit",
        S,
        "",
        "s, B, B/s, 1/s, % (a rate metric's share of true samples), or empty for a count or a plain number",
    ),
)

# ----------------------------------------------------------------- cpu ---
#: Where a CPU sample's figures come from and which run it belongs to (see ``paired_by``).
CPU_SCOPES = ("all", "process")  # or a core id ("0", "1", ...)
PAIRED_BY = ("same file", "name stem", "time", "folder")
ROLES = ("client", "load balancer", "server")

CPU = _cols(
    Column("source", "category", "", "file the sample was read from (path as given, or '<buffer>')"),
    Column("line", I, "", "1-based line of the file where the sample is printed"),
    Column(
        "run",
        I,
        "",
        "the run the sample belongs to: its ``run`` in the runs table, with ``run_source`` (empty where the sample"
        " belongs to no one run)",
    ),
    Column("run_source", S, "", "the runs table's ``source`` of the run the sample belongs to"),
    Column(
        "paired_by",
        S,
        "",
        "how the sample was paired with its run: 'same file' (printed after the run's output), 'name stem' (a file"
        " named after the run's file), 'time' (inside the run's start and end), 'folder' (only the same folder: no"
        " one run), or empty (not paired)",
    ),
    Column("host", S, "", "the host the sample was taken on (from the file's header, a monitor name or a manifest)"),
    Column(
        "role",
        S,
        "",
        "what the host or process was in the test: 'client', 'load balancer', 'server', or empty (not known)",
    ),
    Column("time", T, "", "when the sample was taken (its end), where the file shows it"),
    Column("interval_s", F, "s", "the length of the interval the percentages are averaged over"),
    Column("scope", S, "", "'all' (every core of the host), a core id ('0', '1', ...), or 'process'"),
    Column(
        "cores",
        F,
        "",
        "the cores the scope could use: the host's count for 'all', 1 for a core, a process's"
        " CPU limit (its threads, a taskset, a cgroup quota) where known",
    ),
    Column(
        "cores_by",
        S,
        "",
        "how ``cores`` was found, each limit named (the sweep: 'ab: 1; affinity: 2 (0-1); cgroup /lbtest: 0.2')",
    ),
    Column("user_pct", F, "%", "share of the scope's CPU time in user mode (nice included), 0-100"),
    Column("system_pct", F, "%", "share in kernel mode (system; irq and softirq apart where the tool splits them)"),
    Column("iowait_pct", F, "%", "share idle while waiting for I/O"),
    Column("steal_pct", F, "%", "share taken by the hypervisor for other guests"),
    Column("softirq_pct", F, "%", "share in software interrupts (network receive and send work)"),
    Column("idle_pct", F, "%", "share idle (iowait apart)"),
    Column("busy_pct", F, "%", "100 - idle - iowait: the share the scope was busy; for a process, cpu_pct / cores"),
    Column("irq_pct", F, "%", "share in hardware interrupts (mpstat %irq, top hi)"),
    Column("nice_pct", F, "%", "share in user mode at a lowered priority (counted in user_pct too)"),
    Column(
        "summary",
        S,
        "",
        "empty for a sample of one interval; 'since boot' (vmstat's and iostat's first figures, top's first"
        " snapshot: averages since the host started, no sample of any run), 'average' (the tool's own average"
        " of the samples above it: mpstat, sar, pidstat), 'warning' (a tool's own warning that its CPU passed a"
        " threshold: Locust's 'CPU usage above 90%!'; cpu_pct is that threshold, a lower bound)",
    ),
    Column("run_queue", F, "", "runnable processes (vmstat r, sar -q runq-sz, HAProxy Run_queue: its tasks)"),
    Column("interrupts_per_s", F, "1/s", "interrupts per second (vmstat in, dstat int)"),
    Column("context_switches_per_s", F, "1/s", "context switches per second (vmstat cs, dstat csw)"),
    Column("command", S, "", "a process's command line, as the tool shows it"),
    Column("pid", I, "", "a process's id"),
    Column(
        "cpu_pct", F, "%", "a process's CPU use in percent of one core (200 = two cores busy), as top and time print"
    ),
    Column("user_s", F, "s", "a process's user CPU time"),
    Column("system_s", F, "s", "a process's system CPU time"),
    Column("wall_s", F, "s", "a process's elapsed (wall clock) time"),
    Column("max_rss_bytes", F, "B", "a process's peak resident memory"),
    Column(
        "tool",
        S,
        "",
        "the program that printed the sample (time, vmstat, mpstat, sar, iostat, pidstat, dstat,"
        " top, haproxy, proc-stat, manifest, path: a path pattern's field; 'sweep': the load tool's process as the"
        " sweep measured it)",
    ),
)


TABLES: dict[str, dict[str, Column]] = {
    "runs": RUNS,
    "percentiles": PERCENTILES,
    "phases": PHASES,
    "requests": REQUESTS,
    "intervals": INTERVALS,
    "servers": SERVERS,
    "streams": STREAMS,
    "histogram": HISTOGRAM,
    "metrics": METRICS,
    "cpu": CPU,
}


def _table(table: str | Mapping[str, Column]) -> Mapping[str, Column]:
    if isinstance(table, str):
        try:
            return TABLES[table]
        except KeyError:
            raise ValueError(f"unknown table {table!r}; known tables: {', '.join(TABLES)}") from None
    return table


def empty(table: str) -> pd.DataFrame:
    """An empty frame with the table's columns and dtypes.

    >>> list(empty("percentiles").columns)
    ['source', 'run', 'percentile', 'latency_s', 'kind', 'count']
    """
    if isinstance(table, str) and table in TABLES:
        return _template(table).copy()
    cols = _table(table)
    return pd.DataFrame({n: pd.Series(dtype=c.dtype) for n, c in cols.items()})


_TEMPLATES: dict[str, pd.DataFrame] = {}


def _template(table: str) -> pd.DataFrame:
    """The cached empty frame of a named table (never handed out: copy it)."""
    t = _TEMPLATES.get(table)
    if t is None:
        cols = TABLES[table]
        t = _TEMPLATES[table] = pd.DataFrame({n: pd.Series(dtype=c.dtype) for n, c in cols.items()})
    return t


def _cast(s: pd.Series, dtype: str) -> pd.Series:
    if str(s.dtype) == dtype:
        return s
    if dtype == T:
        if s.dtype.kind == "M":
            return s.astype(T)
        return pd.to_datetime(s, errors="coerce")
    if dtype == I:
        return pd.to_numeric(s, errors="raise").round().astype("Int64") if s.dtype == object else s.astype("Int64")
    if dtype == F:
        return pd.to_numeric(s, errors="coerce").astype("float64")
    if dtype == B:
        return s.astype("boolean")
    if dtype == "category":
        return s.astype("category")
    return s.astype("string")


def missing_array(dtype: str, n: int):
    """An all-missing array of ``n`` values of a schema dtype, built in O(1) Python work.

    >>> bool(missing_array("Int64", 3).isna().all()), str(missing_array("string", 2).dtype)
    (True, 'string')
    """
    if dtype == F:
        return np.full(n, np.nan)
    if dtype == T:
        return np.full(n, np.datetime64("NaT"), dtype="datetime64[ns]")
    if dtype == I:
        return pd.arrays.IntegerArray(np.zeros(n, dtype=np.int64), np.ones(n, dtype=bool))
    if dtype == B:
        return pd.arrays.BooleanArray(np.zeros(n, dtype=bool), np.ones(n, dtype=bool))
    if dtype == "category":
        return pd.Categorical.from_codes(np.full(n, -1, dtype=np.int8), categories=[])
    return _null_strings(n, dtype) if n else pd.array([], dtype=dtype)


def _arrow_strings(values) -> pd.api.extensions.ExtensionArray | None:
    """A pyarrow array of strings (or nulls) as the schema's string array, if that is its storage.

    ``pd.StringDtype()`` follows pandas' ``mode.string_storage``; without
    pyarrow, or with python storage, this returns None and the caller builds
    the array the slow way. Several times faster than ``pd.array(list)``.
    """
    try:
        arr = pd.arrays.ArrowStringArray(values)
    except (ImportError, TypeError, ValueError):  # pragma: no cover - without pyarrow
        return None
    return arr if arr.dtype == pd.StringDtype() else None


def _null_strings(n: int, dtype: str):
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - without pyarrow
        return pd.array(np.full(n, None, dtype=object), dtype=dtype)
    arr = _arrow_strings(pa.nulls(n, pa.large_string())) if dtype == S else None
    return arr if arr is not None else pd.array(np.full(n, None, dtype=object), dtype=dtype)


def _strings(vals: list):
    """Plain ``str``/None values as a schema string array.

    >>> _strings(["a", None]).tolist()
    ['a', <NA>]
    """
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - without pyarrow
        return pd.array(vals, dtype=S)
    try:
        arr = _arrow_strings(pa.array(vals, type=pa.large_string()))
    except (pa.ArrowException, TypeError, ValueError):  # pragma: no cover - checked by the caller
        arr = None
    return arr if arr is not None else pd.array(vals, dtype=S)


def _missing(dtype: str, index: pd.Index) -> pd.Series:
    """An all-missing column, built without per-element Python objects."""
    return pd.Series(missing_array(dtype, len(index)), index=index, copy=False)


def conform(rows: Iterable[Mapping] | pd.DataFrame, table: str | Mapping[str, Column]) -> pd.DataFrame:
    """Build a frame from rows (or a frame) with the table's dtypes and order.

    Schema columns come first in schema order; every column the schema does
    not know is kept after them, as it is (readers may add tool-specific
    extras, documented in their module).

    >>> conform([{"percentile": 50, "latency_s": 0.1, "source": "x", "run": 0}],
    ...         "percentiles").dtypes.astype(str).tolist()
    ['category', 'Int64', 'float64', 'float64', 'string', 'Int64']
    """
    cols = _table(table)
    if not isinstance(rows, pd.DataFrame):
        return _from_rows(list(rows), cols)
    df = rows
    if not isinstance(df.index, pd.RangeIndex) or df.index.start != 0 or df.index.step != 1:
        df = df.reset_index(drop=True)
    present = set(df.columns)
    absent = [name for name in cols if name not in present]
    filler = None
    if absent and len(df) < 1000 and isinstance(table, str) and table in TABLES:
        # few rows, many absent columns (a runs table): reindex the cached empty frame once
        filler = _template(table)[absent].reindex(df.index)
    out = {}
    for name, col in cols.items():
        if name in present:
            out[name] = _cast(df[name], col.dtype)
        elif filler is not None:
            out[name] = filler[name]
        else:
            out[name] = _missing(col.dtype, df.index)
    extra = [c for c in df.columns if c not in cols]
    result = pd.DataFrame(out, index=df.index, copy=False)
    for c in extra:
        result[c] = df[c]
    return result.reset_index(drop=True)


_STR_OR_NONE = {str, type(None)}
_INT_OR_NONE = {int, type(None)}


def _values_as(vals: list, dtype: str):
    """A list of plain values (None for missing) as an array of a schema dtype."""
    if dtype == F:
        try:
            return np.array(vals, dtype=float)  # None -> nan
        except (TypeError, ValueError):
            return pd.to_numeric(pd.Series(vals, dtype=object), errors="coerce").to_numpy(dtype=float)
    kinds = set(map(type, vals))
    if dtype == S:
        if not kinds <= _STR_OR_NONE:
            vals = [None if v is None or v is pd.NA else str(v) for v in vals]
        return _strings(vals)
    if dtype == I and kinds <= _INT_OR_NONE:  # plain ints: no pandas inference (3x faster)
        missing = np.fromiter((v is None for v in vals), dtype=bool, count=len(vals))
        data = np.array([0 if v is None else v for v in vals], dtype=np.int64)
        return pd.arrays.IntegerArray(data, missing)
    return _cast(pd.Series(vals, dtype=object), dtype).array


def _columns(rows: list[Mapping]) -> dict[str, list]:
    """Rows (dicts) as columns (lists, None where a row lacks the key), first-seen key order.

    Each row is visited once (all its keys looked up in a row) and the rows
    are then transposed with ``zip``: a column-by-column walk visits every
    row once per key, and for 10,000 rows of ~35 keys that is half again as
    slow (the rows no longer fit in the CPU caches).

    >>> _columns([{"a": 1, "b": 2}, {"b": 3}, {"a": 4, "b": 5}])
    {'a': [1, None, 4], 'b': [2, 3, 5]}
    """
    keys = list(dict.fromkeys(itertools.chain.from_iterable(rows)))
    if not rows or not keys:
        return {k: [None] * len(rows) for k in keys}
    return dict(zip(keys, map(list, zip(*[list(map(r.get, keys)) for r in rows], strict=True)), strict=True))


def _from_rows(rows: list[Mapping], cols: Mapping[str, Column]) -> pd.DataFrame:
    """conform() for a list of dicts: one array per column, no intermediate frame."""
    n = len(rows)
    columns = _columns(rows)
    out = {}
    for name, col in cols.items():
        vals = columns.get(name)
        out[name] = missing_array(col.dtype, n) if vals is None else _values_as(vals, col.dtype)
    for k, vals in columns.items():
        if k not in cols:
            out[k] = pd.Series(vals, dtype=object).infer_objects().array
    return pd.DataFrame(out, index=pd.RangeIndex(n), copy=False)


def describe(table: str = "runs") -> pd.DataFrame:
    """The table's columns as a frame (name, dtype, unit, tools, description).

    >>> describe("phases").loc[2, "name"]
    'phase'
    """
    cols = _table(table)
    return pd.DataFrame(
        [
            {"name": c.name, "dtype": c.dtype, "unit": c.unit, "tools": c.tools, "description": c.description}
            for c in cols.values()
        ]
    )


def markdown(table: str = "runs") -> str:
    """The table's columns as a Markdown table (used for the README)."""
    lines = ["| column | dtype | unit | tools | meaning |", "|---|---|---|---|---|"]
    for c in _table(table).values():
        lines.append(f"| `{c.name}` | {c.dtype} | {c.unit} | {c.tools} | {c.description} |")
    return "\n".join(lines)
