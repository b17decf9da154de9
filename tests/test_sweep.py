"""`lbanalysis sweep`: the plan (order, commands, estimate) without running anything, then short live sweeps.

The live tests start nginx (two of them), HAProxy with a stats socket in
front, and iperf3 -s on 127.0.0.1, run sweeps whose runs take well under a
second each, and read the folder back: every file read, no note, the
manifest attached, HAProxy snapshots paired with their runs, the iperf
capacity of the path, and a sweep interrupted half-way.
"""

from __future__ import annotations

import csv
import io
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

import lbanalysis
from lbanalysis import registry
from lbanalysis.cli import main
from lbanalysis.sweep import (
    CONFIRM_ABOVE_S,
    MANIFEST_COLUMNS,
    PlannedRun,
    SweepRefused,
    build_command,
    command_line,
    estimate_seconds,
    parse_duration,
    parse_labels,
    parse_loads,
    plan_runs,
    run_file,
    run_sweep,
)
from lbanalysis.text import split_transcript

ROOT = Path(__file__).resolve().parent.parent
CAPTURE = ROOT / "tests" / "fixtures" / "capture"
FIXTURES = ROOT / "tests" / "fixtures"

# One xdist worker runs this module: each module-scoped lab takes the first free ports of the sweep's range,
# and two labs started at once in two workers would take the same ones.
pytestmark = pytest.mark.xdist_group("sweep")


# ------------------------------------------------------------------ planning ---
@pytest.mark.parametrize("order", ["shuffle", "alternate", "up"])
def test_every_load_runs_once_per_repeat_and_repeats_follow_one_another(order):
    plan = plan_runs([1, 2, 4, 8, 16], repeats=3, order=order, seed=7)
    assert [r.index for r in plan] == list(range(1, 16))
    assert Counter((r.load, r.repeat) for r in plan) == Counter(
        {(n, k): 1 for n in (1, 2, 4, 8, 16) for k in (1, 2, 3)}
    )
    assert [r.repeat for r in plan] == sorted(r.repeat for r in plan)  # repeat-major: spread over the sweep


def test_shuffle_is_seeded_and_differs_between_repeats():
    a = plan_runs([1, 2, 4, 8, 16, 32], repeats=3, seed=3)
    assert a == plan_runs([1, 2, 4, 8, 16, 32], repeats=3, seed=3)
    orders = [tuple(r.load for r in a if r.repeat == k) for k in (1, 2, 3)]
    assert len(set(orders)) > 1
    assert [r.load for r in plan_runs([4, 1, 2], repeats=2, order="alternate")] == [1, 2, 4, 4, 2, 1]


def test_parsing_the_options():
    assert parse_loads("1,2,4,8,16,32") == [1, 2, 4, 8, 16, 32]
    for bad in ("", "0,1", "1,-2", "1.5", "a"):
        with pytest.raises(SweepRefused):
            parse_loads(bad)
    assert (parse_duration("10s"), parse_duration("1m"), parse_duration("10")) == (10, 60, 10)
    for bad in ("0s", "500ms", "ten", "1.5s"):
        with pytest.raises(SweepRefused):
            parse_duration(bad)
    assert parse_labels({"setup": "a"}) == {"setup": "a"}
    for bad in (["no-equals sign=1"], ["timestamp=1"], ["exit_code=0"]):
        with pytest.raises(SweepRefused):
            parse_labels(bad)


@pytest.mark.parametrize(
    ("exe", "bound", "expected"),
    [
        ("ab", {"requests": 2000}, "ab -c 8 -n 2000 -k http://h:81/"),
        ("ab", {"seconds": 10}, "ab -c 8 -t 10 -k http://h:81/"),
        ("siege", {"requests": 2000}, "siege -R siege.conf -c 8 -r 250 -k http://h:81/"),
        ("siege", {"seconds": 10}, "siege -R siege.conf -c 8 -t 10S -k http://h:81/"),
        ("hey", {"requests": 2000}, "hey -c 8 -n 2000 -k http://h:81/"),
        ("hey", {"seconds": 10}, "hey -c 8 -z 10s -k http://h:81/"),
        ("wrk", {"seconds": 10}, "wrk -c 8 -t 2 -d 10s -k http://h:81/"),
        ("wrk2", {"seconds": 10}, "wrk2 -R 8 -d 10s -k http://h:81/"),
        ("gobench", {"requests": 2000}, "gobench -c 8 -r 250 -k -u http://h:81/"),
        ("gobench", {"seconds": 10}, "gobench -c 8 -t 10 -k -u http://h:81/"),
        ("k6", {"requests": 2000}, "k6 run --vus 8 --iterations 2000 -k -e URL=http://h:81/ sweep-k6.js"),
        ("k6", {"seconds": 10}, "k6 run --vus 8 --duration 10s -k -e URL=http://h:81/ sweep-k6.js"),
        ("httperf", {"requests": 2000}, "httperf --rate 8 --num-conns 2000 -k --server h --port 81 --uri /"),
        ("httperf", {"seconds": 10}, "httperf --rate 8 --num-conns 80 -k --server h --port 81 --uri /"),
        (
            "locust",
            {"seconds": 10},
            "locust -f sweep-locustfile.py --headless --only-summary -u 8 -r 8 -t 10s -k --host http://h:81/",
        ),
        (
            "jmeter",
            {"requests": 2000},
            "jmeter -n -t sweep-jmeter.jmx -j /dev/null -Jsummariser.name=summary -Jthreads=8 -Jloops=250 -k "
            "-Jurl=http://h:81/",
        ),
        (
            "jmeter",
            {"seconds": 10},
            "jmeter -n -t sweep-jmeter.jmx -j /dev/null -Jsummariser.name=summary -Jthreads=8 -Jduration=10 -k "
            "-Jurl=http://h:81/",
        ),
    ],
)
def test_commands_put_the_users_options_after_the_sweeps(exe, bound, expected):
    argv = build_command(registry.drive_of(exe), "http://h:81/", 8, extra=["-k"], cores=2, **bound)
    assert shlex.join(argv) == expected


@pytest.mark.parametrize("exe", list(registry.drives()))
def test_a_run_file_starts_with_a_command_line_the_reader_knows(exe):
    drive = registry.drive_of(exe)
    bound = {"seconds": 5} if not drive.requests else {"requests": 100}
    url = "http://127.0.0.1:8080/"
    argv = build_command(drive, url, 4, extra=["-H", "Accept: text/html"], **bound)
    line = command_line(drive, argv, url)
    seg = split_transcript(f"$ {line}\nsome output\n")[-1]
    assert seg.tool == registry.tool_of_executable(exe)
    assert seg.command == line and seg.text == "some output\n"


def test_vegeta_takes_its_target_on_stdin_and_prints_through_its_report():
    """vegeta's rate is the load; the line a run is written under is the pipeline a shell would run, which its
    reader takes the rate and the target from; a number of requests cannot bound it."""
    drive = registry.drive_of("vegeta")
    argv = build_command(drive, "http://h:81/x", 200, seconds=5, extra=["-timeout=2s"])
    line = command_line(drive, argv, "http://h:81/x")
    assert line == "echo 'GET http://h:81/x' | vegeta attack -rate=200 -duration=5s -timeout=2s | vegeta report"
    report = (FIXTURES / "vegeta" / "vegeta_report.txt").read_text()
    run = lbanalysis.read(io.StringIO(f"$ {line}\n{report}")).iloc[0]
    assert (run["tool"], run["rate_target_per_s"], run["host"], run["port"], run["path"]) == (
        "vegeta",
        200,
        "h",
        81,
        "/x",
    )
    with pytest.raises(SweepRefused, match="vegeta cannot be bounded by a number of requests"):
        build_command(drive, "http://h/", 1, requests=5)
    assert run_file(PlannedRun(1, 200, 1), drive) == "001-vegeta-R200-r1.txt"


def test_bounds_are_required_and_must_suit_the_tool():
    ab = registry.drive_of("ab")
    with pytest.raises(SweepRefused, match="exactly one"):
        build_command(ab, "http://h/", 1)
    with pytest.raises(SweepRefused, match="exactly one"):
        build_command(ab, "http://h/", 1, requests=5, seconds=5)
    with pytest.raises(SweepRefused, match="wrk cannot be bounded by a number of requests"):
        build_command(registry.drive_of("wrk"), "http://h/", 1, requests=5)


def test_every_drive_says_what_installs_it():
    for exe, drive in registry.drives().items():
        assert drive.install, exe
        assert drive.load and (drive.requests or drive.duration), exe
    assert "not packaged in Debian" in registry.drive_of("wrk2").install
    assert "Go module" in registry.drive_of("gobench").install


def test_estimate_and_file_names():
    assert estimate_seconds(12, seconds=10, iperf_seconds=5) == pytest.approx(12 * 10.5 + 10)
    assert estimate_seconds(12) is None
    plan = plan_runs([1, 2], repeats=2, order="up")
    names = [run_file(r, registry.drive_of("ab")) for r in plan]
    assert names == ["001-ab-c1-r1.txt", "002-ab-c2-r1.txt", "003-ab-c1-r2.txt", "004-ab-c2-r2.txt"]


# ------------------------------------------------------------------ refusals ---
def test_a_missing_tool_is_refused_naming_what_installs_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on PATH
    for exe, package in (("ab", "apache2-utils"), ("wrk2", "not packaged in Debian"), ("gobench", "Go module")):
        with pytest.raises(SweepRefused, match=f"{exe} is not installed.*{package}"):
            run_sweep(exe, "http://127.0.0.1:1/", "1,2", output=tmp_path / "out", duration="1s")
    assert not (tmp_path / "out").exists()


def test_unbounded_or_too_long_sweeps_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda exe: "/bin/true")
    out = tmp_path / "out"
    with pytest.raises(SweepRefused, match="--requests N or --duration"):
        run_sweep("ab", "http://127.0.0.1:1/", "1,2", output=out)
    with pytest.raises(SweepRefused, match="below the largest load"):
        run_sweep("ab", "http://127.0.0.1:1/", "1,20", output=out, requests=10)
    with pytest.raises(SweepRefused, match="cannot be bounded by a number of requests"):
        run_sweep("wrk", "http://127.0.0.1:1/", "1,2", output=out, requests=100)
    long = int(CONFIRM_ABOVE_S // 2)
    with pytest.raises(SweepRefused, match="pass --yes"):
        run_sweep("ab", "http://127.0.0.1:1/", "1,2,4", output=out, duration=f"{long}s")
    assert not out.exists()
    out.mkdir()
    (out / "old.txt").write_text("x")
    with pytest.raises(SweepRefused, match="not an empty folder"):
        run_sweep("ab", "http://127.0.0.1:1/", "1", output=out, requests=10)


def test_cli_dry_run_passes_the_tools_options_through(tmp_path, capsys):
    if shutil.which("ab") is None:
        pytest.skip("ab is not installed")
    status = main([
        "sweep", "ab", "http://127.0.0.1:1", "--loads", "1,2", "--repeat", "2", "--requests", "10", "--order", "up",
        "-o", str(tmp_path / "runs"), "--dry-run", "--", "-k", "-H", "Accept: text/html",
    ])  # fmt: skip
    err = capsys.readouterr().err
    assert status == 0, err
    assert "4 runs of ab (2 loads x 2 repeat(s), 10 requests each, order up)" in err
    assert "001-ab-c1-r1.txt: ab -c 1 -n 10 -k -H 'Accept: text/html' http://127.0.0.1:1/" in err
    assert not (tmp_path / "runs").exists()


def test_cli_refusal_is_a_usage_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["sweep", "gobench", "http://127.0.0.1:1/", "--loads", "1", "--duration", "1s", "-o", "x"]) == 2
    assert "gobench is not installed" in capsys.readouterr().err


# ---------------------------------------------------------------- live sweeps ---
def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{tool} is not installed in CI (scripts/install-tools.sh installs it)")
        pytest.skip(f"{tool} is not installed (make tools installs it)")
    return path


def free_ports(n: int) -> list[int]:
    """``n`` distinct ports of 127.0.0.1 that nothing listens on, chosen by the kernel (no two labs share them)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if subprocess.run(["ss", "-H", "-ltn", f"sport = :{port}"], capture_output=True, text=True).stdout.strip():
            return
        time.sleep(0.05)
    pytest.fail(f"nothing listening on 127.0.0.1:{port} after {timeout} s")


def stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


_NGINX = """daemon off;
{user}
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    keepalive_requests 100000;
    client_body_temp_path {d}/cb; proxy_temp_path {d}/px; fastcgi_temp_path {d}/fc;
    uwsgi_temp_path {d}/uw; scgi_temp_path {d}/sc;
    server {{ listen 127.0.0.1:{a}; root {d}/www; }}
    server {{ listen 127.0.0.1:{b}; root {d}/www; }}
}}
"""
_HAPROXY = """global
    maxconn 4096
    stats socket {sock} mode 600 level admin
defaults
    mode http
    timeout connect 2s
    timeout client 10s
    timeout server 10s
frontend fe_http
    bind 127.0.0.1:{front}
    default_backend be_nginx
frontend fe_stats
    bind 127.0.0.1:{stats}
    stats enable
    stats uri /stats
    stats auth lab:secret
backend be_nginx
    balance roundrobin
    server nginx_a 127.0.0.1:{a}
    server nginx_b 127.0.0.1:{b}
"""


# pytest's temporary folders are private to their owner: nginx's workers (user nobody) would answer 403 from
# them, so as root they run as root (the directive is ignored, with a warning, when nginx is not started as root).
_WORKER_USER = "user root;" if os.geteuid() == 0 else ""


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """nginx x2 behind HAProxy (stats socket), and iperf3 -s, all on 127.0.0.1; stopped by PID at the end."""
    nginx, haproxy, iperf3 = need("nginx"), need("haproxy"), need("iperf3")
    need("ss")
    d = tmp_path_factory.mktemp("lab")
    (d / "www").mkdir()
    shutil.copy(CAPTURE / "page177.html", d / "www" / "index.html")
    a, b, front, iperf_port, stats = free_ports(5)
    sock = d / "haproxy.sock"
    (d / "nginx.conf").write_text(_NGINX.format(d=d, a=a, b=b, user=_WORKER_USER))
    (d / "haproxy.cfg").write_text(_HAPROXY.format(sock=sock, front=front, a=a, b=b, stats=stats))
    procs: list[subprocess.Popen] = []
    with open(d / "servers.log", "wb") as log:
        try:
            nginx_cmd = [nginx, "-p", str(d), "-e", str(d / "error.log"), "-c", str(d / "nginx.conf")]
            procs.append(subprocess.Popen(nginx_cmd, stdout=log, stderr=log))
            procs.append(subprocess.Popen([haproxy, "-db", "-f", str(d / "haproxy.cfg")], stdout=log, stderr=log))
            iperf_cmd = [iperf3, "-s", "-B", "127.0.0.1", "-p", str(iperf_port)]
            procs.append(subprocess.Popen(iperf_cmd, stdout=log, stderr=log))
            for port in (a, b, front, iperf_port, stats):
                wait_port(port)
            deadline = time.monotonic() + 10
            while not sock.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            yield {
                "url": f"http://127.0.0.1:{front}/",
                "direct": f"http://127.0.0.1:{a}/",
                "sock": str(sock),
                "iperf": f"127.0.0.1:{iperf_port}",
                "stats_url": f"http://lab:secret@127.0.0.1:{stats}/stats",
            }
        finally:
            stop(procs)


def read_manifest(folder: Path) -> list[dict]:
    with open(folder / "manifest.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def assert_reads_clean(ds) -> None:
    assert ds.skipped.empty, ds.skipped.to_dict("records")
    assert ds.notes == []
    assert ds.not_runs.empty, ds.not_runs.to_dict("records")


@pytest.mark.live
@pytest.mark.slow
def test_sweep_with_haproxy_snapshots_and_iperf(lab, tmp_path):
    need("ab")
    out = tmp_path / "runs"
    ds = lbanalysis.sweep(
        "ab", lab["url"], "1,2,4", repeat=2, requests=300, output=out, labels=["setup=two-nginx"],
        iperf=lab["iperf"], iperf_seconds=1, haproxy_stats=lab["sock"], seed=5,
    )  # fmt: skip
    assert_reads_clean(ds)
    manifest = read_manifest(out)
    assert list(manifest[0]) == [*MANIFEST_COLUMNS, "setup"]
    tools = Counter(row["tool"] for row in manifest)
    assert tools == {"ab": 6, "haproxy": 12, "iperf3": 2}
    assert all(row["exit_code"] == "0" for row in manifest if row["tool"] != "haproxy")
    # every file of the folder is in the manifest, and every manifest file exists
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert files == {row["file"] for row in manifest} | {"manifest.csv"}

    runs = ds.runs
    ab = runs[runs["tool"] == "ab"].sort_values("source")
    assert len(ab) == 6 and ab["load"].tolist() == ab["concurrency"].tolist()
    assert (ab["requests"] == 300).all() and (ab["failed"] == 0).all()
    assert sorted(zip(ab["load"], ab["repeat"], strict=True)) == [(n, k) for n in (1, 2, 4) for k in (1, 2)]
    assert set(ab["setup"]) == {"two-nginx"} and ab["timestamp"].notna().all()
    for path in ab["source"]:
        first = Path(path).read_text().splitlines()[0]
        assert first.startswith("$ ab -c ") and first.endswith(lab["url"])
    from lbanalysis.analysis.series import assign_series

    assert assign_series(ab).nunique() == 1  # one series: the manifest's columns do not split it

    from lbanalysis.analysis.balance import balance_per_run

    pairs = balance_per_run(runs, ds.servers)
    per_run = pairs.groupby("run_source")["requests"].sum()
    assert sorted(per_run.index) == sorted(ab["source"])  # every run paired with its own two snapshots
    assert (per_run == 300).all()  # one session per request (no keep-alive), through the two servers
    assert set(pairs["server"]) == {"nginx_a", "nginx_b"}

    from lbanalysis.capacity import link_capacity

    cap = link_capacity(runs)
    assert cap[["local_host", "remote_host", "n_runs"]].values.tolist() == [["127.0.0.1", "127.0.0.1", 2]]
    assert cap["capacity_bits_per_s"].iloc[0] > 1e8
    # the study (what explore, summary and the verdicts show) gives every HTTP run of the sweep that capacity
    s = lbanalysis.study(ds)
    http = s.runs[s.runs["tool"] == "ab"]
    assert http["capacity_bits_per_s"].notna().all() and (http["capacity_basis"] == "payload").all()
    assert http["capacity_source"].str.contains("iperf3-before.json").all()


@pytest.mark.live
@pytest.mark.slow
def test_the_stats_page_csv_pairs_like_the_socket(lab, tmp_path):
    need("ab")
    ds = lbanalysis.sweep(
        "ab", lab["url"], "1,2", requests=100, output=tmp_path / "page", haproxy_stats=lab["stats_url"]
    )
    assert_reads_clean(ds)
    from lbanalysis.analysis.balance import balance_per_run

    pairs = balance_per_run(ds.runs, ds.servers)
    assert (pairs.groupby("run_source")["requests"].sum() == 100).tolist() == [True, True]
    wrong = lab["stats_url"].replace("secret", "wrong")
    with pytest.raises(SweepRefused, match="no HAProxy statistics"):
        run_sweep("ab", lab["url"], "1", requests=10, output=tmp_path / "denied", haproxy_stats=wrong)
    assert not (tmp_path / "denied").exists()


@pytest.mark.live
@pytest.mark.slow
def test_no_run_starts_when_iperf3_cannot_measure_the_path(lab, tmp_path):
    need("ab")
    closed = free_ports(1)[0]
    out = tmp_path / "no-iperf"
    result = run_sweep("ab", lab["url"], "1,2", requests=10, output=out, iperf=f"127.0.0.1:{closed}", iperf_seconds=1)
    assert result.done == 0 and "is `iperf3 -s` listening" in result.stopped
    assert [row["file"] for row in read_manifest(out)] == ["iperf3-before.json"]
    assert "Connection refused" in read_manifest(out)[0]["note"]
    ds = lbanalysis.read(out, table="all")
    assert ds.skipped.empty and ds.runs["error"].notna().all()  # the failed measurement reads, as a failure


@pytest.mark.live
@pytest.mark.slow
def test_a_failed_run_is_kept_and_not_retried(lab, tmp_path):
    need("ab")
    closed = free_ports(1)[0]
    out = tmp_path / "refused"
    result = run_sweep("ab", f"http://127.0.0.1:{closed}/", "1,2", requests=10, output=out, progress=False)
    assert (result.done, result.failed) == (2, 2)
    manifest = read_manifest(out)
    assert len(manifest) == 2 and all(row["exit_code"] not in ("", "0") for row in manifest)
    assert all("not retried" in row["note"] for row in manifest)
    ds = lbanalysis.read(out, table="all")
    assert ds.skipped.empty and len(ds.runs) == 2
    assert ds.runs["error"].str.contains("refused", case=False).all()


@pytest.mark.live
@pytest.mark.slow
@pytest.mark.parametrize(
    ("tool", "bound"),
    [("siege", {"requests": 40}), ("hey", {"requests": 40}), ("wrk", {"duration": "1s"}), ("ab", {"duration": "1s"})],
)
def test_each_installed_tool_sweeps_into_a_folder_that_reads(lab, tmp_path, tool, bound):
    need(tool)
    ds = lbanalysis.sweep(tool, lab["direct"], [1, 4], output=tmp_path / tool, order="up", progress=False, **bound)
    assert_reads_clean(ds)
    runs = ds.runs.sort_values("source")
    assert runs["tool"].tolist() == [registry.tool_of_executable(tool)] * 2
    assert runs["concurrency"].tolist() == runs["load"].tolist() == [1, 4]
    assert runs["requests_per_s"].notna().all()  # siege may print 0.00 trans/sec for a run this short
    bad = runs[["failed", "non_2xx"]].reindex(columns=["failed", "non_2xx"]).fillna(0).sum(axis=1)
    assert (bad == 0).all(), runs[["source", "failed", "non_2xx", "error"]]  # answered pages, not 403s
    if tool == "siege":
        assert (tmp_path / tool / "siege.conf").is_file()  # what siege read, instead of ~/.siegerc
        assert runs["requests"].tolist() == [40, 40]


@pytest.mark.live
@pytest.mark.slow
@pytest.mark.parametrize(
    ("tool", "bound"),
    [
        ("k6", {"requests": 40}),
        ("locust", {"duration": "1s"}),
        ("oha", {"requests": 40}),
        ("bombardier", {"requests": 40}),
        ("vegeta", {"duration": "1s"}),
        ("httperf", {"duration": "1s"}),
    ],
)
def test_tools_outside_debian_sweep_into_a_folder_that_reads(lab, tmp_path, tool, bound):
    # Not Debian packages (Go modules, a crate, a PyPI package; and httperf, whose load is its rate): skips if missing.
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed ({registry.drive_of(tool).install})")
    ds = lbanalysis.sweep(tool, lab["direct"], [1, 2], output=tmp_path / tool, order="up", progress=False, **bound)
    assert_reads_clean(ds)
    runs = ds.runs.sort_values("source")
    assert runs["tool"].tolist() == [tool] * 2
    load = registry.drive_of(tool).load_column  # the concurrency, or vegeta's rate
    assert runs[load].tolist() == runs["load"].tolist() == [1, 2]
    assert (runs["requests"] > 0).all(), runs[["requests", "failed", "error"]]
    assert (runs["failed"].fillna(0) == 0).all(), runs[["requests", "failed", "error"]]
    if registry.drive_of(tool).config_file:
        assert (tmp_path / tool / registry.drive_of(tool).config_file).is_file()
    if tool in ("k6", "oha", "bombardier"):
        assert runs["requests"].tolist() == [40, 40]
    if tool in ("vegeta", "httperf"):  # 1 and 2 requests a second for 1 s (httperf: --num-conns = rate x 1 s)
        assert runs["requests"].tolist() == [1, 2]
    # one series across the loads, even where the target is in the sweep's script (k6, Locust)
    assert len(lbanalysis.study(ds).verdicts) == 1, lbanalysis.study(ds).verdicts["series"].tolist()


#: Debian 12's jmeter 2.13 cannot load a plan with its xstream 1.4.20; xstream 1.4.17 from Maven Central put first
#: on its class path does (tests/fixtures/capture/capture_jmeter.sh)
XSTREAM_1_4_17 = Path.home() / ".m2/repository/com/thoughtworks/xstream/xstream/1.4.17/xstream-1.4.17.jar"


@pytest.mark.live
@pytest.mark.slow
def test_jmeter_sweeps_its_plan_into_a_folder_that_reads(lab, tmp_path, monkeypatch):
    if shutil.which("jmeter") is None:
        pytest.skip(f"jmeter is not installed ({registry.drive_of('jmeter').install})")
    if XSTREAM_1_4_17.is_file() and "JAVA_CLASSPATH" not in os.environ:
        monkeypatch.setenv("JAVA_CLASSPATH", str(XSTREAM_1_4_17))
    out = tmp_path / "jmeter"
    ds = lbanalysis.sweep("jmeter", lab["direct"], [1, 2], output=out, order="up", progress=False, requests=40)
    runs = ds.runs.sort_values("source")
    if runs["error"].fillna("").str.contains("ForbiddenClassException").any():
        pytest.skip("Debian's jmeter 2.13 cannot load a plan with xstream 1.4.20: put xstream 1.4.17 first "
                    "(JAVA_CLASSPATH; mvn dependency:get -Dartifact=com.thoughtworks.xstream:xstream:1.4.17)")  # fmt: skip
    assert_reads_clean(ds)
    assert runs["tool"].tolist() == ["jmeter"] * 2 and runs["format"].tolist() == ["jmeter"] * 2
    assert runs["concurrency"].tolist() == runs["load"].tolist() == [1, 2]
    assert runs["requests"].tolist() == [40, 40] and (runs["failed"] == 0).all()
    assert (out / "sweep-jmeter.jmx").is_file()
    assert len(lbanalysis.study(ds).verdicts) == 1  # one plan at two loads: one series


@pytest.mark.live
@pytest.mark.slow
def test_ctrl_c_stops_after_the_current_run_and_the_folder_reads(lab, tmp_path):
    need("ab")
    out = tmp_path / "interrupted"
    cmd = [sys.executable, "-m", "lbanalysis", "sweep", "ab", lab["url"], "--loads", "1,2,4,8", "--repeat", "3",
           "--requests", "2000", "--haproxy-stats", lab["sock"], "--no-progress", "-o", str(out)]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=env)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("[2/12]"):
            proc.send_signal(signal.SIGINT)
            break
    rest = proc.communicate(timeout=60)[1]
    assert proc.returncode == 130, "".join(seen) + rest
    assert "interrupted" in rest
    manifest = read_manifest(out)
    done = [row for row in manifest if row["tool"] == "ab"]
    assert 2 <= len(done) < 12
    assert all(row["exit_code"] == "0" and not row["note"] for row in done)  # the current run was let finish
    ds = lbanalysis.read(out, table="all")
    assert_reads_clean(ds)
    assert (ds.runs["tool"] == "ab").sum() == len(done)
    assert len(list(out.glob("0*.txt"))) == len(done)
