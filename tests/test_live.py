"""Live checks: run the real tools against servers started here on 127.0.0.1, read what they print.

The committed fixtures pin exact values; these tests check that the readers
still agree with whatever the installed tools print today. `make test`
installs the tools (scripts/install-tools.sh); a missing tool skips its test
with the reason. Every run is bounded (a few hundred requests or 1-2 s).
"""

from __future__ import annotations

import http.server
import io
import os
import select
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator

import pytest

import lbanalysis

from .ports import free_port

pytestmark = [pytest.mark.live, pytest.mark.slow]
BODY = b"x" * 177  # the size of Apache's "It works" page in article 000


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{tool} is not installed in CI (scripts/install-tools.sh installs it)")
        pytest.skip(f"{tool} is not installed (make tools installs it)")
    return path


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        status = 404 if self.path.startswith("/missing") else 200
        self.send_response(status)
        self.send_header("Content-Length", str(len(BODY)))
        if self.headers.get("Connection", "").lower() == "keep-alive":
            self.send_header("Connection", "keep-alive")  # ab -k speaks HTTP/1.0 keep-alive
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def web() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def wait_port(port: int, timeout: float = 10.0) -> None:
    """Wait until a server accepts connections on 127.0.0.1:port."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    pytest.fail(f"nothing listening on 127.0.0.1:{port} after {timeout} s")


def wait_banner(proc: subprocess.Popen, banner: str, timeout: float = 10.0) -> None:
    """Wait until a server prints its listening banner on stdout (read unbuffered)."""
    deadline = time.monotonic() + timeout
    seen = b""
    fd = proc.stdout.fileno()
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            seen += chunk
            if banner.encode() in seen:
                return
    pytest.fail(f"server did not print {banner!r} within {timeout} s: {seen[-200:]!r}")


def run(cmd: list[str], timeout: float = 60) -> str:
    """The command's stdout and stderr together, as a terminal shows them."""
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, check=False)
    return out.stdout.decode("utf-8", errors="replace")


def transcript(cmd: list[str], text: str) -> io.StringIO:
    return io.StringIO("$ " + " ".join(cmd) + "\n" + text)


def test_ab_keepalive_run(web):
    cmd = [need("ab"), "-k", "-c", "4", "-n", "300", f"{web}/"]
    runs = lbanalysis.read(transcript(cmd, run(cmd)))
    r = runs.iloc[0]
    assert (r["tool"], r["requests"], r["failed"], r["concurrency"]) == ("ab", 300, 0, 4)
    assert r["keepalive"] == True and r["keepalive_requests"] == 300  # noqa: E712
    assert r["document_length_bytes"] == len(BODY) and r["bytes_html"] == 300 * len(BODY)
    assert r["requests_per_s"] > 0 and r["latency_mean_s"] > 0
    pct = lbanalysis.read(transcript(cmd, run(cmd)), table="percentiles")
    assert pct["percentile"].max() == 100


def test_ab_non_2xx_and_refused(web):
    cmd = [need("ab"), "-n", "50", f"{web}/missing"]
    r = lbanalysis.read(io.StringIO(run(cmd))).iloc[0]
    assert (r["requests"], r["non_2xx"], r["requests_ok"]) == (50, 50, 0)
    refused = [need("ab"), "-n", "10", f"http://127.0.0.1:{free_port()}/"]
    r = lbanalysis.read(io.StringIO(run(refused))).iloc[0]
    assert "refused" in r["error"].lower()


def test_ab_gnuplot_file_matches_the_summary(web, tmp_path):
    tsv = tmp_path / "g.tsv"
    cmd = [need("ab"), "-c", "2", "-n", "200", "-g", str(tsv), f"{web}/"]
    summary = lbanalysis.read(io.StringIO(run(cmd))).iloc[0]
    req = lbanalysis.read(tsv, table="requests")
    assert len(req) == summary["requests"] == 200
    assert req["start"].is_monotonic_increasing


def test_siege_summary_and_json(web, tmp_path):
    siege = need("siege")
    rc = tmp_path / "siegerc"
    rc.write_text("verbose = false\ncolor = off\nprotocol = HTTP/1.1\nlogging = false\nshow-logfile = false\n")
    cmd = [siege, "-R", str(rc), "-c", "2", "-r", "10", "-b", f"{web}/"]
    r = lbanalysis.read(transcript(cmd, run(cmd))).iloc[0]
    assert (r["tool"], r["requests"], r["concurrency"], r["requests_planned"]) == ("siege", 20, 2, 20)
    assert r["failed"] == 0 and r["availability_pct"] == 100.0
    cmd_json = [*cmd[:-1], "-j", cmd[-1]]
    rj = lbanalysis.read(transcript(cmd_json, run(cmd_json))).iloc[0]
    assert rj["requests"] == 20 and rj["format"] in ("siege-json", "siege")


@pytest.fixture
def iperf3_server():
    iperf3 = need("iperf3")
    port = free_port()
    proc = subprocess.Popen([iperf3, "-s", "-B", "127.0.0.1", "-p", str(port), "--forceflush"], stdout=subprocess.PIPE)
    wait_banner(proc, "Server listening")  # a probe connection would upset iperf3's next test
    yield iperf3, port
    proc.kill()
    proc.wait()


def test_iperf3_text_and_capacity(iperf3_server):
    iperf3, port = iperf3_server
    cmd = [iperf3, "-c", "127.0.0.1", "-p", str(port), "-t", "1", "-i", "0.5"]
    ds = lbanalysis.read(transcript(cmd, run(cmd)), table="all")
    runs = ds.runs
    assert set(runs["tool"]) == {"iperf3"} and runs["bits_per_s"].gt(0).all()
    assert len(ds.intervals) >= 2
    cap = lbanalysis.capacity.link_capacity(runs)
    assert cap["capacity_bits_per_s"].gt(0).all()


def test_iperf3_json(iperf3_server):
    iperf3, port = iperf3_server
    cmd = [iperf3, "-c", "127.0.0.1", "-p", str(port), "-t", "1", "-J"]
    runs = lbanalysis.read(io.StringIO(run(cmd)))
    assert set(runs["format"]) == {"iperf3-json"} and runs["bits_per_s"].gt(0).all()


def test_iperf2_client(tmp_path):
    iperf = need("iperf")
    port = free_port()
    server = subprocess.Popen([iperf, "-s", "-B", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL)
    try:
        wait_port(port)
        cmd = [iperf, "-c", "127.0.0.1", "-p", str(port), "-t", "1"]
        runs = lbanalysis.read(transcript(cmd, run(cmd)))
    finally:
        server.kill()
        server.wait()
    assert set(runs["tool"]) == {"iperf"} and runs["bits_per_s"].gt(0).all()
