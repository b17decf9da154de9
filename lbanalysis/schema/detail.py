"""The detail tables, long form, each row keyed by ``source`` and ``run`` (joins to the runs).

``percentiles``, ``phases``, ``requests``, ``intervals``, ``streams``,
``servers``, ``histogram`` and ``metrics`` (see :mod:`lbanalysis.schema`).

>>> list(PERCENTILES)[:4]
['source', 'run', 'percentile', 'latency_s']
"""

from __future__ import annotations

from .columns import B, Column, F, I, S, T, columns_of

__all__ = ["HISTOGRAM", "INTERVALS", "METRICS", "PERCENTILES", "PHASES", "REQUESTS", "SERVERS", "STREAMS"]

# ---------------------------------------------------------- detail ---
_KEYCOLS = (
    Column("source", "category", "", "file (joins to runs; categorical: detail tables can be long)"),
    Column("run", I, "", "run inside the file (joins to runs)"),
)

PERCENTILES = columns_of(
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

PHASES = columns_of(
    *_KEYCOLS,
    Column("phase", S, "", "connect, processing, waiting or total (ab Connection Times)"),
    Column("min_s", F, "s", "minimum"),
    Column("mean_s", F, "s", "mean"),
    Column("sd_s", F, "s", "standard deviation ([+/-sd])"),
    Column("median_s", F, "s", "median"),
    Column("max_s", F, "s", "maximum"),
)

REQUESTS = columns_of(
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

INTERVALS = columns_of(
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

STREAMS = columns_of(
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

SERVERS = columns_of(
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

HISTOGRAM = columns_of(
    *_KEYCOLS,
    Column("latency_s", F, "s", "the bucket's upper edge: requests slower than the bucket before, up to this (hey)"),
    Column("count", I, "", "requests in the bucket"),
)

METRICS = columns_of(
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
