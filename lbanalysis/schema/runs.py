"""The runs table: one row per tool run, its common columns and those of each tool (SI units).

>>> RUNS["requests_per_s"].unit, RUNS["source"].dtype
('1/s', 'string')
"""

from __future__ import annotations

from .columns import B, Column, F, I, S, T, columns_of

__all__ = ["RUNS"]

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
    Column(
        "bytes_per_s_total", F, "B/s", "transfer rate, received + sent (ab; httperf Net I/O)", "ab,httperf,autobench"
    ),
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
    Column(
        "think_time_s",
        F,
        "s",
        "mean wait a client makes between its requests (think time) as the run asked it: half of siege -d (a random "
        "wait up to it), Locust's wait_time, a k6 script's sleeps per request and a JMeter plan's timers, read from "
        "the script the command or output names; 0: no wait asked",
        "siege,locust,jmeter,k6",
    ),
    Column(
        "think_time_source",
        S,
        "",
        "where think_time_s (or a JMeter throughput timer's rate_target_per_s) was read ('locustfile.py:6: wait_time "
        "= constant(1)')",
        "siege,locust,jmeter,k6",
    ),
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
        "gobench,k6,locust,jmeter,httperf,gatling,fortio",
    ),
    Column(
        "requests_attempted",
        I,
        "",
        "requests made, answered or not, as the tool prints them (gobench 'Requests: N hits', vegeta Requests"
        " total, JMeter samples, httperf Total requests, Gatling request count; ``requests`` is this minus those that"
        " got no response)",
        "gobench,vegeta,jmeter,httperf,gatling,fortio",
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
        " each of --num-calls requests; a JMeter plan's Constant or Precise Throughput Timer; autobench dem_req_rate: requests/s): an open-loop run",
        "wrk,k6,httperf,fortio,jmeter,autobench",
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
        "hey,oha,jmeter,httperf,gatling,fortio,autobench",
    ),
)

# k6 (end-of-test summary, summary JSON, metric points) and Locust.
_RUNS_K6_LOCUST = (
    Column("scenarios", S, "", "k6 scenarios as printed ('name: 3 looping VUs for 2s (...)'; joined by '; ')", "k6"),
    Column("vus_max", I, "", "most VUs k6 allocated (vus_max)", "k6"),
    Column("iterations", I, "", "iterations of the script completed (k6 iterations)", "k6"),
    Column(
        "ramped",
        B,
        "",
        "the load rose or fell during the run (k6's 'Up to N looping VUs … over K stages'): its load column is the "
        "most, not the load of the whole run",
        "k6",
    ),
    Column("iterations_per_s", F, "1/s", "iterations completed per second (k6 iterations' rate)", "k6"),
    Column(
        "iteration_mean_s",
        F,
        "s",
        "mean duration of one iteration of the script, its waits (sleep) included (k6 iteration_duration avg)",
        "k6",
    ),
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
        "bombardier,oha,httperf,autobench",
    ),
    Column(
        "interval_requests_per_s_stdev",
        F,
        "1/s",
        "their standard deviation (bombardier Reqs/sec Stdev, oha rps stddev, httperf Reply rate stddev)",
        "bombardier,oha,httperf,autobench",
    ),
    Column(
        "interval_requests_per_s_max",
        F,
        "1/s",
        "the highest of them (bombardier Reqs/sec Max, oha rps max, httperf Reply rate max)",
        "bombardier,oha,httperf,autobench",
    ),
    Column(
        "interval_requests_per_s_min",
        F,
        "1/s",
        "the lowest of them (oha JSON rps min; httperf Reply rate min)",
        "oha,httperf,autobench",
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
    Column(
        "connections", I, "", "connections opened (httperf Total connections; fortio Sockets used)", "httperf,fortio"
    ),
    Column("connections_planned", I, "", "connections asked for (httperf --num-conns)", "httperf"),
    Column("calls_per_connection", I, "", "requests sent on each connection (httperf --num-calls)", "httperf"),
    Column(
        "timeout_s", F, "s", "time a request may wait for its answer before it fails (httperf --timeout)", "httperf"
    ),
    Column(
        "connection_rate_per_s",
        F,
        "1/s",
        "connections opened per second (httperf Connection rate)",
        "httperf,autobench",
    ),
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
    Column(
        "errors_per_reply_pct",
        F,
        "%",
        "httperf's Errors total as a percentage of its replies, as autobench writes it (errors_<host>: 100 x"
        " errors / replies, above 100 when errors outnumber replies); autobench's 101 for no reply is the run's"
        " error instead",
        "autobench",
    ),
)

RUNS = columns_of(
    *_RUNS_COMMON, *_RUNS_AB, *_RUNS_SIEGE, *_RUNS_GOBENCH, *_RUNS_IPERF, *_RUNS_WRK, *_RUNS_HEY, *_RUNS_K6_LOCUST,
    *_RUNS_VEGETA_OHA_BOMBARDIER, *_RUNS_HAPROXY, *_RUNS_HTTPERF_GATLING,
)  # fmt: skip
