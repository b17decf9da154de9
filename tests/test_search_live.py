"""Live: capacity at an objective, known by construction, found by `sweep --search` and gated by `check`.

A backend on 127.0.0.1 answers each request after a fixed service time S, behind HAProxy whose server line
says ``maxconn 2``: at most N = 2 requests are served at once, the others wait in HAProxy's queue. The
service time each request really takes (S plus Python's and HAProxy's own work) is measured by each test
just before its search, S_eff: the mean latency of ab at concurrency N, where nothing waits (it moves with
the other work of the machine, so a test judges what it found against S_eff measured before and after). Little's law then gives the capacity at an
objective on the mean latency L:

* closed model (ab, concurrency c): past N, each request waits its turn, R = c × S_eff / N, so the most
  concurrency with R <= L is c* = N × L / S_eff;
* open model (vegeta, a rate): the server completes at most X* = N / S_eff requests/s; above it the queue
  grows for the whole run and the mean latency with it, so the most rate within L = 3 S_eff is X*
  (below it the queue stays short).

The search must find them within its resolution, in a bounded number of runs. wrk2 is not packaged in
Debian (the registry says to build it), so the open-model search runs vegeta, installed by
scripts/install-tools.sh. Every run lasts 2 s; each search is bounded by --max-runs.
"""

from __future__ import annotations

import csv
import http.server
import math
import re
import socket
import subprocess
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest

import lbanalysis
from lbanalysis.cli import main
from lbanalysis.sweep.search import search_sweep

from .ports import free_ports
from .test_sweep import need, stop, wait_port

#: One worker holds the lab (its HAProxy, backend and measured S_eff made once) and runs its searches one at a time.
pytestmark = [pytest.mark.live, pytest.mark.slow, pytest.mark.xdist_group("slo-lab")]

N = 2  # HAProxy's maxconn on the one server
SERVICE_S = 0.02  # the backend's own time per request

_HAPROXY = """global
    maxconn 1000
    stats socket {sock} mode 600 level admin
defaults
    mode http
    option http-server-close
    http-reuse never
    timeout connect 2s
    timeout client 10s
    timeout server 10s
    timeout queue 10s
frontend fe
    bind 127.0.0.1:{front}
    default_backend be
backend be
    server s1 127.0.0.1:{back} maxconn {n}
"""


class _Slow(http.server.BaseHTTPRequestHandler):
    service_s = SERVICE_S  # changed by the test that makes the backend slower

    def do_GET(self):
        time.sleep(type(self).service_s)
        body = b"x" * 100
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _mean_ms(ab_output: str) -> float:
    m = re.search(r"Time per request:\s+([\d.]+) \[ms\] \(mean\)", ab_output)
    assert m, ab_output
    return float(m.group(1))


def _s_eff(url: str) -> float:
    """The service time each request really takes, in seconds: ab's mean latency at concurrency N (nothing waits)."""
    out = subprocess.run([need("ab"), "-c", str(N), "-t", "2", url], capture_output=True, text=True, timeout=30)
    return _mean_ms(out.stdout) / 1e3


@pytest.fixture(scope="module")
def slo_lab(tmp_path_factory):
    """The backend (a thread here) behind HAProxy (maxconn N, a stats socket): its URL and socket."""
    haproxy = need("haproxy")
    need("ab")
    need("ss")
    d = tmp_path_factory.mktemp("slo")
    back, front = free_ports(2)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", back), _Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sock = d / "haproxy.sock"
    (d / "haproxy.cfg").write_text(_HAPROXY.format(sock=sock, front=front, back=back, n=N))
    procs: list[subprocess.Popen] = []
    with open(d / "haproxy.log", "wb") as log:
        try:
            procs.append(subprocess.Popen([haproxy, "-db", "-f", str(d / "haproxy.cfg")], stdout=log, stderr=log))
            wait_port(front)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:  # the socket's file appears at bind, before it accepts
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c:
                    if c.connect_ex(str(sock)) == 0:
                        break
                time.sleep(0.05)
            url = f"http://127.0.0.1:{front}/"
            yield {"url": url, "sock": str(sock)}
        finally:
            stop(procs)
            server.shutdown()
            server.server_close()
            _Slow.service_s = SERVICE_S


def _manifest(folder: Path, tool: str) -> list[dict]:
    """The manifest's rows of the tool's own runs (not the CPU files or HAProxy's snapshots)."""
    with open(folder / "manifest.csv", newline="") as fh:
        return [r for r in csv.DictReader(fh) if r["tool"] == tool]


def test_search_finds_the_concurrency_littles_law_gives(slo_lab, tmp_path):
    """ab: the most concurrency whose mean latency stays within L = 2.75 S_eff is c* = N L / S_eff = 5.5.

    S_eff is measured just before the search and again after it: on a machine shared with the suite's other
    tests it moves (a CI run measured 31 ms when the lab was built and 25 ms during the search, whose c* was
    then 6.8, found 7). The concurrency found stands within one client of c* for a service time the server
    showed. A c* that drifts near a whole number puts a load of the bracket at the limit, where the repeats
    disagree and the bracket moves (a CI run bisected again after its repeats and had no run left for the
    confirmation at 12): the search may take 16."""
    s_eff = _s_eff(slo_lab["url"])
    limit = 2.75 * s_eff
    expected = N * limit / s_eff
    objective = f"mean <= {limit * 1e3:.2f}ms"
    result = search_sweep("ab", slo_lab["url"], objective, output=tmp_path / "ab", start=2, duration="2s",
                          max_runs=16, haproxy_stats=slo_lab["sock"], progress=False)  # fmt: skip
    assert result.done <= 16 and not result.failed, result.steps
    cap = result.capacity.iloc[0]
    assert cap["status"] == "crossed", cap["evidence"]
    s_after = _s_eff(slo_lab["url"])
    c_low, c_high = N * limit / max(s_eff, s_after), N * limit / min(s_eff, s_after)
    evidence = (expected, N * limit / s_after, cap.to_dict(), result.steps)
    assert c_low - 1.0 <= cap["capacity_load"] <= c_high + 1.0, evidence  # one client
    print(f"ab: S_eff {s_eff * 1e3:.1f} ms, c* {expected:.2f}, found {cap['capacity_load']:.2f} "
          f"({cap['lower']:.2f} to {cap['upper']:.2f}) in {result.done} runs")  # fmt: skip
    assert cap["met_load"] < cap["failed_load"]
    assert cap["load"] == "concurrency"
    # every run says why its load was chosen; the search doubled, bisected, repeated and confirmed
    rows = _manifest(tmp_path / "ab", "ab")
    assert len(rows) == result.done
    steps = [r["search"].split(":")[0] for r in rows]
    assert steps[0] == "start" and "doubling" in steps and steps[-1] == "confirmation", steps
    # the folder reads like any sweep's, and its capacity is the one study computes from it
    again = lbanalysis.analysis.study(lbanalysis.read(tmp_path / "ab", table="all"), objective=objective).capacity()
    assert again.iloc[0]["capacity_load"] == cap["capacity_load"]
    both = min(_runs_at(rows, cap["met_load"]), _runs_at(rows, cap["failed_load"]))
    assert (not math.isnan(cap["lower"])) == (both >= 3)  # an interval from three runs a side, else none


def test_search_finds_the_rate_littles_law_gives(slo_lab, tmp_path):
    """vegeta: the most rate whose mean latency stays within 3 S_eff is the server's own, X* = N / S_eff."""
    need("vegeta")
    s_eff = _s_eff(slo_lab["url"])
    x_star = N / s_eff
    objective = f"mean <= {3 * s_eff * 1e3:.2f}ms, errors <= 1%"
    result = search_sweep("vegeta", slo_lab["url"], objective, output=tmp_path / "vegeta", start=round(0.7 * x_star),
                          duration="2s", resolution="10%", max_runs=12, progress=False)  # fmt: skip
    assert result.done <= 12 and not result.failed, result.steps
    cap = result.capacity.iloc[0]
    assert cap["load"] == "rate_target_per_s"
    assert cap["status"] == "crossed", cap["evidence"]
    print(f"vegeta: S_eff {s_eff * 1e3:.1f} ms, X* {x_star:.1f}/s, found {cap['capacity_requests_per_s']:.1f}/s at "
          f"rate {cap['capacity_load']:.1f} ({cap['lower']:.1f} to {cap['upper']:.1f}) in {result.done} runs")  # fmt: skip
    # X* as the server's service time gives it before the search and again after it: on a machine shared with other
    # work (the suite's other tests) S_eff moves between the two. Past X* the queue grows for the whole run, so no rate
    # much above it meets the objective (the throughput found is at most 1.1 X*); below it the queue stays short, so
    # the search does not fail at a rate far below it (its first failed rate is at least 0.9 X*). The rate it reports
    # met stands below that failure by at most its resolution (10 %), and the mean latency a rate near X* gets from
    # the jitter of a shared machine takes some more: a bound on the throughput found from below would hold the
    # resolution against the search (a CI run found 68.5/s met, 74 failed, X* 77.3: right, and 0.89 X*).
    s_after = _s_eff(slo_lab["url"])
    x_low, x_high = N / max(s_eff, s_after), N / min(s_eff, s_after)
    evidence = (x_star, N / s_after, cap.to_dict(), result.steps)
    assert cap["capacity_requests_per_s"] <= 1.1 * x_high, evidence
    assert cap["failed_load"] >= 0.9 * x_low, evidence
    assert cap["failed_load"] - cap["met_load"] <= max(0.1 * cap["met_load"], 1) + 1e-9, evidence  # its resolution


def _runs_at(rows: list[dict], load: float) -> int:
    return sum(float(r["load"]) == load for r in rows)


def test_check_passes_against_itself_and_fails_when_the_backend_is_slower(slo_lab, tmp_path):
    """`check` on a sweep below the capacity: 0; the same sweep with the backend three times as slow: 1, by the
    objective and against the baseline (JUnit XML says which case).

    The objective's limit is 1.6 times the mean latency the fast sweep measured (at concurrency N nothing waits:
    its mean is S_eff), not a service time measured earlier: on a machine shared with the suite's other tests
    S_eff moves (a CI run measured 31 ms when the lab was built, 25 ms in the fast sweep and 45 ms in one with
    the backend twice as slow, under the 46.6 ms that 1.5 times the first gave). Each run lasts 4 s: at three
    times the service time, 3 s gave 96 requests, fewer than the study judges."""
    fast, slow = tmp_path / "fast", tmp_path / "slow"
    sweep = ["sweep", "ab", slo_lab["url"], "--loads", str(N), "--repeat", "3", "--duration", "4s", "--no-progress"]
    assert main([*sweep, "-o", str(fast)]) == 0
    s_eff = float(pd.to_numeric(lbanalysis.read(fast)["latency_mean_s"]).mean())
    objective = f"mean <= {1.6 * s_eff * 1e3:.2f}ms, errors <= 1%"
    junit = tmp_path / "fast.xml"
    assert main(["check", str(fast), "--objective", objective, "--junit", str(junit)]) == 0
    suite = ET.parse(junit).getroot()
    assert suite.get("tests") == "2" and suite.get("failures") == "0"
    assert main(["check", str(fast), "--objective", objective, "--baseline", str(fast)]) == 0
    _Slow.service_s = SERVICE_S * 3
    try:
        assert main([*sweep, "-o", str(slow)]) == 0
    finally:
        _Slow.service_s = SERVICE_S
    junit = tmp_path / "slow.xml"
    assert main(["check", str(slow), "--objective", objective, "--baseline", str(fast), "--junit", str(junit)]) == 1
    failed = {c.get("name") for c in ET.parse(junit).getroot().iter("testcase") if c.find("failure") is not None}
    mean = lbanalysis.Objective(objective).clauses[0].text
    assert failed == {mean, "mean latency ms against the baseline", "req/s against the baseline"}
