"""`lbanalysis sweep`: the plan (order, commands, estimate) without running anything, then short live sweeps.

The live tests start nginx (two of them), HAProxy with a stats socket in
front, and iperf3 -s on 127.0.0.1, run sweeps whose runs take well under a
second each, and read the folder back: every file read, no note, the
manifest attached, HAProxy snapshots paired with their runs, the iperf
capacity of the path, and a sweep interrupted half-way.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pandas as pd
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
    warnings_of,
)
from lbanalysis.text import split_transcript

from .ports import free_ports

ROOT = Path(__file__).resolve().parent.parent
CAPTURE = ROOT / "tests" / "fixtures" / "capture"
FIXTURES = ROOT / "tests" / "fixtures"

# One xdist worker runs this module: its module-scoped lab (two nginx, HAProxy, iperf3) then starts once, not once
# per worker that gets one of its tests, and its CPU-starved runs are not starved further by a second lab.
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


def wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if subprocess.run(["ss", "-H", "-ltn", f"sport = :{port}"], capture_output=True, text=True).stdout.strip():
            return
        time.sleep(0.05)
    pytest.fail(f"nothing listening on 127.0.0.1:{port} after {timeout} s")


def wait_socket(path: Path, timeout: float = 10.0) -> None:
    """Wait until a UNIX socket accepts a connection (its file appears at bind, before it listens)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c:
            try:
                c.connect(str(path))
                return
            except OSError:
                time.sleep(0.05)
    pytest.fail(f"nothing accepting on {path} after {timeout} s")


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
            wait_socket(sock)
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


def assert_sweep_cpu(ds, runs, cores: float) -> None:
    """Each run has its process row (os.wait4) and this host's rows (/proc/stat), paired with it by name."""
    cpu = ds.cpu[ds.cpu["tool"].isin(["sweep", "proc-stat"])]  # the sweep's own (show info and monitors apart)
    proc = cpu[cpu["scope"] == "process"]
    assert sorted(proc["run_source"]) == sorted(runs["source"])
    assert (proc["run"] == 0).all() and (proc["paired_by"] == "name stem").all()
    assert (proc["user_s"] + proc["system_s"] > 0).all()
    rss = proc["max_rss_bytes"]
    assert rss.dropna().between(1e5, 5e7).all(), rss  # ab's own, not the sweep's
    # read while the process lives: a run over before its first reading (a busy machine) has none, not a guess
    assert (proc["wall_s"][rss.isna()] < 1).all(), proc[["wall_s", "max_rss_bytes"]]
    assert (proc["cores"] <= cores).all() and proc["cores_by"].str.startswith(f"ab: {cores:g}").all()
    assert (proc["wall_s"] > 0).all() and proc["pid"].notna().all() and (proc["tool"] == "sweep").all()
    assert proc["command"].str.startswith("ab -c ").all()
    assert ((proc["busy_pct"] - proc["cpu_pct"] / proc["cores"]).abs() < 1e-6).all()
    host = cpu[cpu["scope"] != "process"]
    assert set(host["tool"]) == {"proc-stat"} and set(cpu["role"]) == {"client"}
    n = os.cpu_count()
    assert set(host["scope"]) <= {"all", *map(str, range(n))} and "all" in set(host["scope"])
    total = host[["user_pct", "system_pct", "iowait_pct", "steal_pct", "softirq_pct", "idle_pct"]].sum(axis=1)
    assert ((total - 100).abs() < 0.01).all()
    assert (host[host["scope"] == "all"]["cores"] == n).all()
    assert cpu["time"].notna().all() and (cpu["host"] == socket.gethostname()).all()


@pytest.mark.live
@pytest.mark.slow
def test_sweep_with_haproxy_snapshots_and_iperf(lab, tmp_path, capsys):
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
    # per run: show stat and show info before and after, and the CPU the sweep measured
    assert tools == {"ab": 6, "haproxy": 24, "iperf3": 2, "sweep": 6}
    assert all(row["exit_code"] == "0" for row in manifest if row["tool"] in ("ab", "iperf3"))
    assert sorted(p.name for p in (out / "haproxy").glob("001-*")) == [
        "001-after-info.txt", "001-after.csv", "001-before-info.txt", "001-before.csv"
    ]  # fmt: skip
    # every file of the folder is in the manifest, and every manifest file exists
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert files == {row["file"] for row in manifest} | {"manifest.csv"}

    runs = ds.runs
    ab = runs[runs["tool"] == "ab"].sort_values("source")
    assert len(ab) == 6 and ab["load"].tolist() == ab["concurrency"].tolist()
    assert (ab["requests"] == 300).all() and (ab["failed"] == 0).all()
    assert sorted(zip(ab["load"], ab["repeat"], strict=True)) == [(n, k) for n in (1, 2, 4) for k in (1, 2)]
    assert set(ab["setup"]) == {"two-nginx"} and ab["timestamp"].notna().all()
    # show info read beside show stat: one haproxy run per snapshot file, its uptime and connections counted
    info = runs[runs["source"].str.endswith("-info.txt")]
    assert len(info) == 12 and info["tool"].eq("haproxy").all() and info["uptime_s"].notna().all()
    assert_sweep_cpu(ds, ab, cores=1)
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
    # the study (what explore, summary and the verdicts show) gives every HTTP run of the sweep that capacity,
    # unless the two measures disagree (a loopback's rate follows the machine's load: CI's parallel tests)
    s = lbanalysis.study(ds)
    http = s.runs[s.runs["tool"] == "ab"]
    assert (http["capacity_basis"] == "payload").all()
    said = capsys.readouterr().err
    if cap["consistent"].iloc[0]:
        assert http["capacity_bits_per_s"].notna().all()
        assert http["capacity_source"].str.contains("iperf3-before.json").all()
        assert "more than 2x apart" not in said
    else:  # no capacity, and the sweep and the study say why
        assert http["capacity_bits_per_s"].isna().all() and http["capacity_note"].str.contains("disagree").all()
        assert "iperf3 measured the path 127.0.0.1 -> 127.0.0.1" in said and "more than 2x apart" in said


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
    manifest = [row for row in read_manifest(out) if row["tool"] == "ab"]
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
        ("locust", {"duration": "2s"}),
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


@pytest.mark.live
@pytest.mark.slow
def test_fortio_sweeps_its_rate_into_a_folder_that_reads(lab, tmp_path):
    """fortio's load is the rate it asks for (-qps, over its default 4 threads), bounded by a time (-t)."""
    if shutil.which("fortio") is None:
        pytest.skip(f"fortio is not installed ({registry.drive_of('fortio').install})")
    ds = lbanalysis.sweep("fortio", lab["direct"], [20, 40], output=tmp_path / "fortio", order="up", progress=False,
                          duration="1s")  # fmt: skip
    assert_reads_clean(ds)
    runs = ds.runs.sort_values("source")
    assert runs["tool"].tolist() == ["fortio"] * 2 and runs["format"].tolist() == ["fortio"] * 2
    assert runs["rate_target_per_s"].tolist() == runs["load"].tolist() == [20, 40]
    assert (runs["concurrency"] == 4).all() and (runs["failed"] == 0).all(), runs[["failed", "error"]]
    assert runs["requests"].tolist() == [20, 40]  # the rate for 1 s
    assert runs["requests_per_s"].to_numpy() == pytest.approx([20, 40], rel=0.05)
    assert len(ds.histogram) and len(ds.percentiles)
    assert len(lbanalysis.study(ds).verdicts) == 1


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


@pytest.mark.live
@pytest.mark.slow
def test_monitors_run_beside_each_run_into_their_own_folder(lab, tmp_path):
    need("ab"), need("vmstat"), need("mpstat")
    out = tmp_path / "watched"
    monitors = ["client=vmstat -t 1", "cores=mpstat -P ALL 1"]
    ds = lbanalysis.sweep("ab", lab["direct"], [1, 2], duration="2s", output=out, monitors=monitors, order="up")
    manifest = read_manifest(out)
    for name, first in (("client", "procs"), ("cores", "Linux")):
        files = sorted(p.relative_to(out).as_posix() for p in (out / "monitor" / name).iterdir())
        assert files == [f"monitor/{name}/001.txt", f"monitor/{name}/002.txt"]
        for f in files:
            text = (out / f).read_text()
            assert text.startswith(first), text[:200]
            assert len(text.splitlines()) >= 3  # samples taken while the 2 s run went on
            row = next(r for r in manifest if r["file"] == f)
            assert row["note"].startswith(f"monitor {name} during run 00") and row["timestamp"] < row["end_time"]
            assert row["exit_code"] == ""  # stopped by the sweep, not ended on its own
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert files == {row["file"] for row in manifest} | {"manifest.csv"}
    runs = ds.runs[ds.runs["tool"] == "ab"]
    assert len(runs) == 2 and runs["error"].isna().all()
    assert_sweep_cpu(ds, runs, cores=1)
    if "vmstat" not in registry.names():
        pytest.skip("the vmstat and mpstat readers are not in this tree yet: the monitor files are written, unread")
    cpu = ds.cpu[ds.cpu["source"].astype(str).str.contains("/monitor/")]
    monitor = cpu["source"].astype(str).str.extract(r"/monitor/(\w+)/")[0]
    hosts = {m: sorted(set(cpu.loc[monitor == m, "host"].dropna())) for m in monitor.unique()}
    # vmstat names no host: the monitor's name is its host; mpstat's header names the machine, which wins
    assert hosts == {"client": ["client"], "cores": [socket.gethostname()]}, hosts
    paired = cpu[cpu["run_source"].notna()]  # (vmstat's first line, since boot, is no sample of a run)
    assert (paired["paired_by"] == "name stem").all()
    assert sorted(set(zip(paired["run_source"], monitor[paired.index], strict=True))) == sorted(
        (r, m) for r in runs["source"] for m in ("client", "cores")
    )


@pytest.mark.live
@pytest.mark.slow
def test_a_missing_monitor_is_refused_before_anything_runs(lab, tmp_path):
    with pytest.raises(SweepRefused, match="no-such-monitor is not installed"):
        run_sweep("ab", lab["direct"], "1", requests=10, output=tmp_path / "m", monitors=["lb=no-such-monitor 1"])
    assert not (tmp_path / "m").exists()


@pytest.mark.live
@pytest.mark.slow
def test_direct_runs_interleave_with_the_runs_through_the_load_balancer(lab, tmp_path):
    need("ab")
    out = tmp_path / "direct"
    ds = lbanalysis.sweep(
        "ab", lab["url"], [1, 2], requests=200, output=out, haproxy_stats=lab["sock"], direct="auto", order="up"
    )
    assert_reads_clean(ds)
    manifest = [r for r in read_manifest(out) if r["tool"] == "ab"]
    assert [(r["file"], r["route"]) for r in manifest] == [
        ("001-ab-c1-r1.txt", "lb"), ("002-ab-c1-r1-direct.txt", "direct"),
        ("003-ab-c2-r1.txt", "lb"), ("004-ab-c2-r1-direct.txt", "direct"),
    ]  # fmt: skip
    front = lab["url"].split("//")[1].rstrip("/")
    assert {r["group"] for r in manifest} == {front}
    runs = ds.runs[ds.runs["tool"] == "ab"].sort_values("source")
    backend_port = int(lab["direct"].rsplit(":", 1)[1].rstrip("/"))  # nginx_a, the first server listed
    assert runs["port"].tolist() == [int(front.rsplit(":", 1)[1]), backend_port] * 2
    assert runs["route"].tolist() == ["lb", "direct"] * 2 and (runs["requests"] == 200).all()
    s = lbanalysis.study(ds)
    by_route = s.runs.groupby("route")["series"].nunique()
    assert by_route.to_dict() == {"direct": 1, "lb": 1} and s.runs["series"].nunique() == 2
    assert_sweep_cpu(ds, runs, cores=1)


@pytest.mark.live
@pytest.mark.slow
def test_processes_share_each_load_and_make_one_test(lab, tmp_path):
    need("ab")
    out = tmp_path / "two"
    ds = lbanalysis.sweep("ab", lab["direct"], [2, 5], requests=401, output=out, processes=2, order="up")
    assert_reads_clean(ds)
    manifest = [r for r in read_manifest(out) if r["tool"] == "ab"]
    assert list(manifest[0])[len(MANIFEST_COLUMNS) :] == ["test", "processes", "process"]
    got = [(r["file"], r["load"], r["test"], r["process"]) for r in manifest]
    assert got == [
        ("001-ab-c2-r1-p1.txt", "1", "001-ab-c2-r1", "1"), ("001-ab-c2-r1-p2.txt", "1", "001-ab-c2-r1", "2"),
        ("002-ab-c5-r1-p1.txt", "3", "002-ab-c5-r1", "1"), ("002-ab-c5-r1-p2.txt", "2", "002-ab-c5-r1", "2"),
    ]  # fmt: skip
    runs = ds.runs.sort_values("source")
    assert runs["concurrency"].tolist() == [1, 1, 3, 2]
    assert runs["requests"].tolist() == [201, 200, 201, 200]  # the requests shared too, the remainder spread
    # the processes of one test ran at the same time
    for test, g in runs.groupby("test"):
        assert g["timestamp"].max() < pd.to_datetime(g["end_time"]).min(), test
    proc = ds.cpu[ds.cpu["tool"] == "sweep"]
    assert sorted(proc["run_source"]) == sorted(runs["source"])
    if len(os.sched_getaffinity(0)) >= 2:  # each pinned to its own core
        assert proc["cores_by"].str.contains(r"affinity: 1 \(").all()
        pinned = sorted(set(proc["cores_by"].str.extract(r"affinity: 1 \((\d+)\)")[0]))
        assert pinned == sorted(map(str, sorted(os.sched_getaffinity(0))[:2]))
    host = ds.cpu[ds.cpu["scope"] != "process"]
    assert host["run_source"].isna().all()  # this host's CPU belongs to the test, not to one of its processes


def locust_on_path(monkeypatch) -> str:
    """Locust, from PATH or its own venv (LOCUST=/path/to/locust, or /work/locust-venv as the captures make it)."""
    found = os.environ.get("LOCUST") or shutil.which("locust")
    if not found and Path("/work/locust-venv/bin/locust").exists():
        found = "/work/locust-venv/bin/locust"
    if not found:
        pytest.skip(f"locust is not installed ({registry.drive_of('locust').install})")
    monkeypatch.setenv("PATH", f"{Path(found).parent}{os.pathsep}{os.environ['PATH']}")
    return found


@pytest.mark.live
@pytest.mark.slow
def test_locust_processes_run_a_master_and_its_workers(lab, tmp_path, monkeypatch):
    locust_on_path(monkeypatch)
    out = tmp_path / "locust"
    ds = lbanalysis.sweep("locust", lab["direct"], [2, 4], duration="2s", output=out, processes=2, order="up")
    assert_reads_clean(ds)
    ignored = sorted(Path(p).relative_to(out).as_posix() for p in ds.ignored)
    assert [p for p in ignored if p.startswith("workers/")] == [
        "workers/001-w1.txt", "workers/001-w2.txt", "workers/002-w1.txt", "workers/002-w2.txt"
    ]  # fmt: skip
    runs = ds.runs.sort_values("source")
    assert runs["tool"].tolist() == ["locust"] * 2 and runs["load"].tolist() == [2, 4]
    assert runs["concurrency"].tolist() == [2, 4] and (runs["requests"] > 0).all()
    assert runs["command"].str.contains("--master --expect-workers 2").all()
    manifest = read_manifest(out)
    workers = [r for r in manifest if r["file"].startswith("workers/")]
    assert [(r["test"], r["process"], r["exit_code"]) for r in workers] == [
        ("001-locust-c2-r1", "1", "0"), ("001-locust-c2-r1", "2", "0"),
        ("002-locust-c4-r1", "1", "0"), ("002-locust-c4-r1", "2", "0"),
    ]  # fmt: skip
    for path in out.glob("workers/*.txt"):
        assert "Got quit message from master" in path.read_text()  # each worker served its master's test
    proc = ds.cpu[ds.cpu["tool"] == "sweep"]
    assert proc.groupby("run_source").size().to_dict() == dict.fromkeys(runs["source"], 3)  # master + 2 workers
    assert proc["command"].str.contains("--worker").sum() == 4 and (proc["cores"] <= 1).all()
    assert (proc["user_s"] > 0).all()
    assert len(lbanalysis.study(ds).verdicts) == 1  # one series: the master port is the sweep's, not the run's


@pytest.mark.live
@pytest.mark.slow
def test_locust_workers_elsewhere_are_awaited_and_told_how_to_start(lab, tmp_path, monkeypatch):
    locust = locust_on_path(monkeypatch)
    out = tmp_path / "elsewhere"
    cmd = [sys.executable, "-m", "lbanalysis", "sweep", "locust", lab["direct"], "--loads", "2", "--duration", "1s",
           "--processes", "2", "--workers-elsewhere", "127.0.0.1", "--timeout", "30", "--no-progress",
           "-o", str(out)]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=env)
    workers: list[subprocess.Popen] = []
    logs: list = []
    try:
        said = ""
        # read stderr to its end through the one buffered reader: communicate(timeout=) reads the pipe's fd and
        # would lose the lines this reader had already buffered (the "waits for" line among them, at times)
        for line in proc.stderr:
            said += line
            m = re.search(r"start: (while locust .*; done)", line)
            if m and not workers:
                loop = m.group(1).replace("locust -f", f"{shlex.quote(locust)} -f", 1)
                assert "--master-host 127.0.0.1" in loop
                for k in (1, 2):  # the two "other machines", here: each its own temporary folder, where a
                    # worker of `-f -` writes the locustfile it got (two in one /tmp rewrite one file under each other)
                    machine = tmp_path / f"machine{k}"
                    (machine / "tmp").mkdir(parents=True)
                    logs.append(log := (machine / "worker.log").open("w"))
                    workers.append(subprocess.Popen(["bash", "-c", loop], cwd=machine, start_new_session=True,
                                                    env={**os.environ, "TMPDIR": str(machine / "tmp")},
                                                    stdout=log, stderr=subprocess.STDOUT))  # fmt: skip
        proc.wait(timeout=120)  # the sweep is bounded (--timeout 30): its stderr closed at its end
    finally:
        for w in workers:
            os.killpg(w.pid, signal.SIGTERM)
            w.wait(timeout=10)
        for log in logs:
            log.close()
    told = "".join(f"\n--- machine{k}:\n" + (tmp_path / f"machine{k}" / "worker.log").read_text()[-2000:]
                   for k in (1, 2) if (tmp_path / f"machine{k}" / "worker.log").exists())  # fmt: skip
    assert proc.returncode == 0, said + told
    assert "waits for 2 workers at 127.0.0.1:" in said
    ds = lbanalysis.read(out, table="all")
    assert_reads_clean(ds)
    assert ds.runs["requests"].iloc[0] > 0 and not (out / "workers").exists()


CGROUP_CPU = Path("/sys/fs/cgroup/cpu")


@contextlib.contextmanager
def cpu_quota(name: str, cores: float):
    """A cgroup v1 ``cpu`` group limited to ``cores`` (cfs quota / period), removed afterwards (root only)."""
    if os.geteuid() != 0 or not (CGROUP_CPU / "cpu.cfs_quota_us").exists():
        pytest.skip("needs root and a cgroup v1 cpu hierarchy at /sys/fs/cgroup/cpu to set a CPU quota")
    group = CGROUP_CPU / f"lbtest-{name}-{os.getpid()}"
    group.mkdir()
    try:
        (group / "cpu.cfs_period_us").write_text("100000")
        (group / "cpu.cfs_quota_us").write_text(str(round(cores * 100000)))
        yield group
    finally:
        for pid in (group / "cgroup.procs").read_text().split():  # what is left goes back to the root group
            with contextlib.suppress(OSError):
                (CGROUP_CPU / "cgroup.procs").write_text(pid)
        group.rmdir()


def in_group(group: Path, argv: list[str]) -> list[str]:
    """``argv`` started inside ``group`` (the shell joins it, then becomes the command)."""
    return ["sh", "-c", f'echo $$ > {group}/cgroup.procs && exec "$@"', "sh", *argv]


def verdict_of(study, route: str) -> dict:
    rows = study.summary_frame()
    runs = study.runs[study.runs["route"] == route] if route else study.runs
    return rows[rows["series"] == runs["series"].iloc[0]].iloc[0].to_dict()


@pytest.mark.live
@pytest.mark.slow
def test_haproxy_under_a_cpu_quota_is_named_from_the_sweeps_own_capture(lab, tmp_path):
    need("ab"), need("haproxy")
    front = free_ports(1)[0]
    sock = tmp_path / "lb.sock"
    backend = lab["direct"].split("//")[1].rstrip("/")
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(
        f"global\n    stats socket {sock} mode 600 level admin\ndefaults\n    mode http\n    timeout connect 2s\n"
        f"    timeout client 10s\n    timeout server 10s\nfrontend fe\n    bind 127.0.0.1:{front}\n"
        f"    default_backend be\nbackend be\n    server web1 {backend}\n"
    )
    out = tmp_path / "lb-starved"
    with cpu_quota("lb", 0.03) as group, open(tmp_path / "haproxy.log", "wb") as log:
        lb = subprocess.Popen(in_group(group, ["haproxy", "-db", "-f", str(cfg)]), stdout=log, stderr=log)
        try:
            wait_port(front)
            wait_socket(sock)
            ds = lbanalysis.sweep(
                "ab", f"http://127.0.0.1:{front}/", [1, 4, 16, 32], duration="2s", output=out, extra=["-k"],
                haproxy_stats=str(sock), direct="auto", order="up", progress=False,
            )  # fmt: skip
        finally:
            stop([lb])
    runs = ds.runs[ds.runs["tool"] == "ab"]
    best = runs.groupby("route")["requests_per_s"].max()
    assert best["direct"] > 1.5 * best["lb"], best  # the backend answered far more straight than through HAProxy
    info = ds.runs[ds.runs["source"].str.endswith("-info.txt")]
    assert len(info) == 16  # show info before and after each of the 8 runs
    s = lbanalysis.study(ds)
    if "resource" not in s.summary_frame():
        pytest.skip(f"the resource rules are not in this tree yet (through the LB {best['lb']:.0f}/s, direct "
                    f"{best['direct']:.0f}/s)")  # fmt: skip
    through = verdict_of(s, "lb")
    said = {k: through.get(k) for k in ("verdict", "confidence", "resource", "evidence")}
    assert through["resource"] in ("load balancer CPU", "load balancer"), (said, best.to_dict())
    assert verdict_of(s, "direct")["resource"] != "load balancer CPU"


@pytest.mark.live
@pytest.mark.slow
def test_a_cpu_starved_client_is_named_from_the_sweeps_own_capture(lab, tmp_path, monkeypatch):
    real = need("ab")
    out = tmp_path / "client-starved"
    with cpu_quota("client", 0.02) as group:
        # ab joins the group as it starts (as under cgexec), the sweep itself does not (its imports would take long)
        wrapper = tmp_path / "bin" / "ab"
        wrapper.parent.mkdir()
        wrapper.write_text(f'#!/bin/sh\necho $$ > {group}/cgroup.procs && exec {real} "$@"\n')
        wrapper.chmod(0o755)
        monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
        ds = lbanalysis.sweep("ab", lab["direct"], [1, 4, 16, 32], duration="2s", output=out, extra=["-k"],
                              order="up", progress=False)  # fmt: skip
    assert_reads_clean(ds)
    proc = ds.cpu[ds.cpu["tool"] == "sweep"]
    assert len(proc) == 4 and (proc["cores"] - 0.02).abs().max() < 1e-9, proc[["cores", "cores_by"]]
    assert proc["cores_by"].str.contains(f"cgroup /{group.name}: 0.02").all()
    # at the highest loads ab used (nearly) all it was allowed (at one connection it also waits for answers)
    top = proc.set_index("run_source").loc[sorted(ds.runs["source"])[-2:]]
    assert (top["busy_pct"] > 75).all(), proc[["run_source", "busy_pct", "cpu_pct"]]
    s = lbanalysis.study(ds)
    if "resource" not in s.summary_frame():
        pytest.skip("the resource rules are not in this tree yet")
    v = verdict_of(s, "")
    assert v["verdict"] == "load generator" and v["resource"] == "client CPU", v


@pytest.mark.live
@pytest.mark.slow
def test_an_interrupted_parallel_sweep_leaves_whole_tests_that_read(lab, tmp_path):
    need("ab")
    out = tmp_path / "interrupted-two"
    cmd = [sys.executable, "-m", "lbanalysis", "sweep", "ab", lab["direct"], "--loads", "2,4,8", "--repeat", "3",
           "--requests", "2000", "--processes", "2", "--no-progress", "-o", str(out)]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=env)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("[1/9]"):
            proc.send_signal(signal.SIGINT)
            break
    rest = proc.communicate(timeout=60)[1]
    assert proc.returncode == 130, "".join(seen) + rest
    done = [row for row in read_manifest(out) if row["tool"] == "ab"]
    tests = Counter(row["test"] for row in done)
    assert 1 <= len(tests) < 9 and set(tests.values()) == {2}  # every test with both its processes
    ds = lbanalysis.read(out, table="all")
    assert_reads_clean(ds)
    assert len(ds.runs) == len(done) and ds.runs["test"].notna().all()
    assert set(ds.cpu["run_source"].dropna()) == set(ds.runs["source"])


SWEEP_FIXTURES = ROOT / "tests" / "fixtures" / "sweep"


def test_the_sweeps_cpu_csv_reads_into_the_cpu_table_each_row_naming_its_run():
    ds = lbanalysis.read(SWEEP_FIXTURES / "one", table="all")
    assert_reads_clean(ds)
    runs = ds.runs.sort_values("source")
    assert runs["tool"].tolist() == ["ab", "ab"]
    cpu = ds.cpu
    assert set(cpu["tool"]) == {"sweep", "proc-stat"} and (cpu["role"] == "client").all()
    assert (cpu["source"].astype(str).str.contains("/cpu/00")).all() and cpu["line"].min() == 2
    # every row names its run as the runs table keys it, file and position
    assert set(zip(cpu["run_source"], cpu["run"], strict=True)) == set(zip(runs["source"], runs["run"], strict=True))
    proc = cpu[cpu["scope"] == "process"].set_index("run_source").loc[runs["source"]]
    assert proc["command"].tolist() == runs["command"].tolist()  # the command the run's file starts with
    assert (proc["cores"] == 1).all() and proc["cores_by"].str.startswith("ab: 1; affinity: ").all()
    assert ((proc["cpu_pct"] - 100 * (proc["user_s"] + proc["system_s"]) / proc["wall_s"]).abs() < 0.01).all()
    host = cpu[cpu["scope"] != "process"]
    assert host.groupby("run_source")["scope"].apply(lambda s: s.iloc[0]).eq("all").all()  # all, then each core


def test_the_cpu_of_parallel_processes_names_each_process_and_leaves_the_host_to_the_test():
    ds = lbanalysis.read(SWEEP_FIXTURES / "two", table="all")
    assert_reads_clean(ds)
    assert ds.runs.groupby("test").size().tolist() == [2, 2]
    proc = ds.cpu[ds.cpu["tool"] == "sweep"]
    assert sorted(proc["run_source"]) == sorted(ds.runs["source"])
    assert proc["cores_by"].str.contains(r"affinity: 1 \(\d\)").all()  # each pinned to one core
    assert ds.cpu[ds.cpu["scope"] != "process"]["run_source"].isna().all()


def _cell(text: str, column: str, value: str) -> str:
    """The CSV with ``column`` of its first row set to ``value``."""
    lines = text.split("\n")
    header = lines[0].split(",")
    rows = list(csv.reader(io.StringIO(lines[1])))
    rows[0][header.index(column)] = value
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(rows[0])
    return "\n".join([lines[0], out.getvalue(), *lines[2:]])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.replace(",sweep,", ",sweep,,", 1), r"001\.csv:2: 26 fields where the header has 25"),
        (lambda t: _cell(t, "cpu_pct", "fast"), r"001\.csv:2: cpu_pct: not a number: 'fast'"),
        (lambda t: _cell(t, "pid", "12.5"), r"001\.csv:2: pid: not a whole number: '12\.5'"),
        (lambda t: t.split("\n", 1)[0] + "\n", r"001\.csv:1: the sweep's cpu CSV has a header and no sample"),
        (
            lambda t: t.replace("cores_by", "cores_from", 1),
            r"001\.csv:1: not a column of the sweep's cpu CSV: cores_from",
        ),
    ],
)
def test_a_broken_cpu_csv_is_an_error_naming_its_file_and_line(tmp_path, change, message):
    broken = tmp_path / "cpu" / "001.csv"
    broken.parent.mkdir()
    broken.write_text(change((SWEEP_FIXTURES / "one" / "cpu" / "001.csv").read_text()))
    with pytest.raises(lbanalysis.ParseError, match=message):
        lbanalysis.read(broken, table="all", errors="raise")


def test_locusts_master_port_is_none_that_a_connection_can_be_given():
    """The kernel gives outgoing connections ports of its ephemeral range: a master port found free there, closed
    and bound by the master a moment later, could be taken in between by a load test's connection."""
    from lbanalysis.sweep.settings import _free_port, ephemeral_range

    lo, hi = ephemeral_range()
    ports = {_free_port("127.0.0.1") for _ in range(20)}
    assert not any(lo <= p <= hi for p in ports)
    assert len(ports) > 1  # at random: two sweeps on one machine do not try the same port first


def test_a_process_peak_memory_is_its_own_not_the_forked_sweep(tmp_path):
    """VmHWM read while the tool lives: a child that holds 60 MB shows about that, though the process that
    started it held 200 MB when it forked (``os.wait4``'s maxrss would count those)."""
    from lbanalysis.sweep.processes import Stop, launch, wait_all

    ballast = b"\x01" * 200_000_000  # the sweep's memory at the fork (written: resident)
    code = "import time; b = bytearray(60_000_000); time.sleep(0.4)"
    child = launch([sys.executable, "-c", code], sys.executable, tmp_path / "out.txt", tmp_path, None)
    child.sense = lambda pid: (1.0, "test")
    child.watch_memory()
    with Stop() as stop:
        wait_all([child], 30, stop)
    assert child.code == 0 and len(ballast) == 200_000_000
    assert 60e6 <= child.peak_rss < 120e6, child.peak_rss  # the child's bytes and its interpreter
    assert child.usage.ru_maxrss * 1024 > 190e6  # what wait4 says: the fork's copy of the sweep


@pytest.mark.parametrize(
    ("before", "after", "said"),
    [
        ("scenarios/network/ab/iperf3_before.json", "scenarios/network/ab/iperf3_after.json", None),
        ("scenarios/network/ab/iperf3_before.json", "iperf3/iperf3_tcp_json.json", "46.8 to 9,819.3 Mbit/s"),
    ],
)
def test_the_sweep_says_when_its_two_measures_of_the_path_disagree(tmp_path, before, after, said):
    """Captured measures (a tc-shaped path, and a loopback's) as a sweep's before and after: two more than 2x
    apart give the runs no capacity, and what the sweep prints at its end says so."""
    shutil.copy(FIXTURES / before, tmp_path / "iperf3-before.json")
    shutil.copy(FIXTURES / after, tmp_path / "iperf3-after.json")
    runs = lbanalysis.read(tmp_path)
    warned = [w for w in warnings_of(runs) if w.startswith("iperf3 measured")]
    if said is None:
        assert warned == []
    else:
        assert warned == [
            f"iperf3 measured the path 127.0.0.1 -> 127.0.0.1 at {said}, more than 2x apart (the path or the "
            "machines' load changed during the sweep): the analysis gives the runs no network capacity; measure "
            "again, or give it (explore --capacity RATE)"
        ]
