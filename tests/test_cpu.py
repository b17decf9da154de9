"""CPU evidence: the monitors' readers, time's report after a tool's output, wrapped commands, pairing, cpu_per_run.

The fixtures are live captures (``tests/fixtures/capture/capture_cpu.sh``, see ``tests/fixtures/cpu/COMMANDS.md``);
the expected figures are read off the files' own text where a test checks a value.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

import lbanalysis
from lbanalysis import cli, registry
from lbanalysis.analysis.cpu import cpu_per_run
from lbanalysis.pairing import role_of_command, role_of_host, stem_words
from lbanalysis.text import command_argv, split_transcript

from .conftest import FIXTURES

CPU = FIXTURES / "cpu"


def _cpu(name: str) -> pd.DataFrame:
    return lbanalysis.read(CPU / name, table="cpu")


def _line(name: str, n: int) -> str:
    return (CPU / name).read_text().split("\n")[n - 1]


@pytest.mark.parametrize(
    ("name", "tool", "scopes"),
    [
        ("vmstat.txt", "vmstat", {"all"}),
        ("vmstat_t.txt", "vmstat", {"all"}),
        ("vmstat_w.txt", "vmstat", {"all"}),
        ("vmstat_tw.txt", "vmstat", {"all"}),
        ("mpstat_all.txt", "mpstat", {"all", "0", "1"}),
        ("sar_u.txt", "sar", {"all"}),
        ("sar_p_all.txt", "sar", {"all", "0", "1"}),
        ("iostat_c.txt", "iostat", {"all"}),
        ("pidstat_u.txt", "pidstat", {"process"}),
        ("dstat.txt", "dstat", {"all"}),
        ("dool_output.csv", "dstat", {"all"}),
        ("top_b.txt", "top", {"all", "process"}),
        ("top_head.txt", "top", {"all", "process"}),
    ],
)
def test_each_monitor_is_read_from_its_content(name, tool, scopes):
    cpu = _cpu(name)
    assert len(cpu) > 0
    assert set(cpu["tool"]) == {tool}
    assert set(cpu["scope"]) == scopes
    assert lbanalysis.read(CPU / name).empty  # a monitor has no runs of its own
    hosts = set(cpu["host"].dropna())
    if tool in ("mpstat", "sar", "iostat", "pidstat") or name.endswith(".csv"):
        assert hosts == {"vm"}  # from sysstat's header line, dool's Host: cell
    else:
        assert hosts == set()  # vmstat, dstat's screen and top print no host: left empty
    shares = cpu[cpu["scope"] != "process"]
    assert shares["busy_pct"].between(0, 100).all()
    for _, row in cpu.head(3).iterrows():  # every figure names its line: the line shows it
        text = _line(name, int(row["line"]))
        figure = row["cpu_pct"] if row["scope"] == "process" else row["idle_pct"]
        assert f"{figure:g}".split(".")[0] in text


def test_vmstat_first_line_is_since_boot_and_t_gives_times():
    cpu = _cpu("vmstat_t.txt")
    assert cpu["summary"].tolist()[0] == "since boot"
    assert cpu["summary"].iloc[1:].isna().all()
    assert cpu["time"].notna().all() and (cpu["interval_s"].iloc[1:] == 1.0).all()
    first = _line("vmstat_t.txt", int(cpu["line"].iloc[1])).split()
    header = _line("vmstat_t.txt", 2).split()
    us, sy, idle, wa = (float(first[header.index(c)]) for c in ("us", "sy", "id", "wa"))
    row = cpu.iloc[1]
    assert (row["user_pct"], row["system_pct"], row["idle_pct"]) == (us, sy, idle)
    assert row["busy_pct"] == pytest.approx(100 - idle - wa)
    assert row["run_queue"] == float(first[0])


def test_mpstat_rows_per_core_with_host_date_and_averages():
    cpu = _cpu("mpstat_all.txt")
    assert set(cpu["cores"].dropna()) == {1.0, 2.0}
    assert (cpu.loc[cpu["scope"] == "all", "cores"] == 2.0).all()
    averages = cpu[cpu["summary"] == "average"]
    assert len(averages) == 3 and averages["time"].isna().all()
    samples = cpu[cpu["summary"].isna()]
    assert samples["time"].dt.strftime("%Y-%m-%d").unique().tolist() == ["2026-11-27"]
    row = samples.iloc[0]
    cells = _line("mpstat_all.txt", int(row["line"])).split()
    assert row["softirq_pct"] == float(cells[7]) and row["system_pct"] == float(cells[4])


def test_pidstat_processes_get_their_roles():
    cpu = _cpu("pidstat_u.txt")
    roles = dict(zip(cpu["command"], cpu["role"], strict=False))
    assert roles == {"nginx": "server", "haproxy": "load balancer", "hey": "client"}
    assert cpu["pid"].notna().all() and cpu["cpu_pct"].notna().all()


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("time_v_hey.txt", r"Percent of CPU this job got: (\d+)%"),
        ("time_gnu_ab.txt", r" (\d+)%CPU "),
        ("time_zsh_hey.txt", r" (\d+)% cpu "),
        ("time_bash_ab.txt", None),
        ("time_p_wrk.txt", None),
    ],
)
def test_time_after_a_tool_output_is_that_runs_process(name, shown):
    ds = lbanalysis.read(CPU / name, table="all")
    assert len(ds.runs) == 1 and ds.runs["requests_per_s"].notna().all()  # the tool's output still reads
    (row,) = ds.cpu.to_dict("records")
    assert (row["run"], row["run_source"], row["paired_by"]) == (0, str(CPU / name), "same file")
    assert row["scope"] == "process" and row["tool"] == "time" and row["role"] == "client"
    text = (CPU / name).read_text()
    if shown:
        assert row["cpu_pct"] == float(re.search(shown, text)[1])
    else:  # bash and -p print no share: (user + system) / real
        assert row["cpu_pct"] == pytest.approx((row["user_s"] + row["system_s"]) / row["wall_s"] * 100)
    assert row["line"] > ds.runs["line"].iloc[0]


def test_time_v_keeps_user_system_wall_and_rss():
    (row,) = _cpu("time_v_hey.txt").to_dict("records")
    text = (CPU / "time_v_hey.txt").read_text()
    assert row["user_s"] == float(re.search(r"User time \(seconds\): ([\d.]+)", text)[1])
    assert row["system_s"] == float(re.search(r"System time \(seconds\): ([\d.]+)", text)[1])
    assert row["max_rss_bytes"] == 1024 * float(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)[1])
    assert row["command"].startswith("hey -c 8 ")
    assert "Command being timed" in _line("time_v_hey.txt", int(row["line"]))


def test_two_timed_runs_in_one_transcript_each_keep_their_report():
    ds = lbanalysis.read(CPU / "time_v_transcript.txt", table="all")
    assert ds.runs["concurrency"].tolist() == [2, 8]
    assert ds.cpu["run"].tolist() == [0, 1]
    assert ds.cpu["command"].str.extract(r"-c (\d+)")[0].tolist() == ["2", "8"]


def test_wrapped_commands_are_the_tools_commands():
    runs = lbanalysis.read(CPU / "wrapped.txt")
    assert runs["tool"].tolist() == ["hey", "ab", "wrk", "hey", "hey"]
    assert runs["concurrency"].tolist() == [8, 4, 8, 8, 16]
    assert runs["command"].str.split().str[0].tolist() == ["taskset", "nice", "timeout", "env", "/usr/bin/time"]
    cpu = _cpu("wrapped.txt")
    (row,) = cpu.to_dict("records")
    assert row["run"] == 4 and row["cores"] == 2.0  # taskset -c 0,1
    assert row["busy_pct"] == pytest.approx(row["cpu_pct"] / 2)


@pytest.mark.parametrize(
    ("line", "tool", "argv"),
    [
        ("$ /usr/bin/time -v hey -c 8 -n 10 http://h/", "hey", ["-c", "8", "-n", "10", "http://h/"]),
        ("$ sudo -u bench taskset -c 0 ab -c 3 http://h/", "ab", ["-c", "3", "http://h/"]),
        ("$ timeout -s INT 30 nice -n 5 wrk -c 8 http://h/", "wrk", ["-c", "8", "http://h/"]),
        ("$ env GOMAXPROCS=1 A='b c' hey -c 2 http://h/", "hey", ["-c", "2", "http://h/"]),
        ("$ time -p siege -c 4 -t 5S http://h/", "siege", ["-c", "4", "-t", "5S", "http://h/"]),
    ],
)
def test_wrappers_split_and_argv(line, tool, argv):
    (seg,) = split_transcript(line + "\nout\n")
    assert seg.tool == tool and command_argv(seg.command) == argv


def test_zsh_time_line_is_no_command():
    segs = split_transcript(
        "% time hey -c 4 http://h/\nout\nhey -c 4 http://h/  0.02s user 0.04s system 45% cpu 0.149 total\n"
    )
    assert len(segs) == 1


def test_haproxy_show_info_keeps_idle_and_gives_a_process_row():
    ds = lbanalysis.read(CPU / "show_info_during.txt", table="all")
    text = (CPU / "show_info_during.txt").read_text()
    fields = dict(re.findall(r"^(\w+): (.*)$", text, re.M))
    run = ds.runs.iloc[0]
    assert run["idle_pct"] == float(fields["Idle_pct"]) and run["run_queue"] == int(fields["Run_queue"])
    assert run["conn_rate_per_s"] == float(fields["ConnRate"]) and run["sess_rate_per_s"] == float(fields["SessRate"])
    (row,) = ds.cpu.to_dict("records")
    assert row["busy_pct"] == 100 - float(fields["Idle_pct"])
    assert (row["role"], row["host"], row["pid"], row["cores"]) == (
        "load balancer",
        fields["node"],
        int(fields["Pid"]),
        float(fields["Nbthread"]),
    )
    assert _line("show_info_during.txt", int(row["line"])).startswith("Idle_pct:")


def test_name_stem_pairs_monitor_files_with_their_run():
    ds = lbanalysis.read(CPU / "paired", table="all")
    tests = ds.runs[ds.runs["tool"] == "ab"]
    assert sorted(tests["concurrency"]) == [2, 8]
    paired = ds.cpu[ds.cpu["summary"].astype("string").fillna("") != "since boot"]
    assert set(paired["paired_by"]) == {"name stem"}
    for src, run_source in zip(paired["source"].astype(str), paired["run_source"], strict=True):
        assert Path(run_source).name == "ab_" + re.search(r"(c0\d_r1)", src)[1] + ".txt"
    assert ds.cpu.loc[ds.cpu["summary"] == "since boot", "run"].isna().all()  # no sample of the run


def test_sweep_monitor_folder_pairs_by_number_and_names_the_host(tmp_path):
    out = tmp_path / "sweep"
    shutil.copytree(CPU / "sweep", out)
    (out / "monitor" / "lb").mkdir(parents=True)
    first = sorted(p.name for p in out.glob("0*.txt"))[0]
    shutil.copy(CPU / "mpstat_all.txt", out / "monitor" / "lb" / f"{first[:3]}.txt")
    ds = lbanalysis.read(out, table="all")
    mine = ds.cpu[ds.cpu["source"].astype(str).str.contains("/monitor/lb/")]
    assert set(mine["paired_by"]) == {"name stem"} and set(mine["run_source"]) == {str(out / first)}
    assert set(mine["host"]) == {"vm"}  # the file names its host; the monitor name fills only an empty one
    shutil.copy(CPU / "vmstat.txt", out / "monitor" / "lb" / f"{first[:3]}.txt")
    ds = lbanalysis.read(out, table="all")
    mine = ds.cpu[ds.cpu["source"].astype(str).str.contains("/monitor/lb/")]
    assert set(mine["host"]) == {"lb"} and set(mine["role"]) == {"load balancer"}


def test_time_pairs_a_sweep_long_vmstat_with_each_run():
    ds = lbanalysis.read(CPU / "sweep", table="all")
    cpu = ds.cpu[ds.cpu["tool"] == "vmstat"]
    runs = ds.runs.set_index(ds.runs["source"].astype(str))
    timed = cpu[cpu["paired_by"] == "time"]
    assert set(timed["run_source"]) == set(runs.index)  # every run got its samples
    for _, row in timed.iterrows():
        run = runs.loc[row["run_source"]]
        assert pd.Timestamp(run["timestamp"]) < row["time"] <= pd.Timestamp(run["end_time"]) + pd.Timedelta("0.5s")
    rest = cpu[cpu["paired_by"] != "time"]
    assert set(rest["paired_by"].dropna()) <= {"folder"} and rest["run"].isna().all()


def test_manifest_cpu_columns_of_article_000():
    ds = lbanalysis.read(FIXTURES.parent.parent / "data" / "raw" / "haproxy-wordpress-ab", table="all")
    cpu = ds.cpu
    assert set(cpu["tool"]) == {"manifest"} and set(cpu["paired_by"]) == {"same file"}
    t28 = cpu[cpu["run_source"].str.endswith("test-28.txt")]
    lb = t28[t28["role"] == "load balancer"].iloc[0]
    assert (lb["host"], lb["busy_pct"], lb["system_pct"], lb["cores"]) == ("tu-lb-01", 22.0, 20.15, 4.0)
    web = t28[t28["role"] == "server"].iloc[0]
    assert pd.isna(web["host"]) and web["busy_pct"] == 42.0  # web_cpu_pct: the prefix says the role, no host
    assert str(lb["source"]).endswith("manifest.csv") and lb["line"] == 8


def test_cpu_per_run_summarises_hosts_cores_and_processes():
    ds = lbanalysis.read(CPU / "paired", table="all")
    t = cpu_per_run(ds)
    assert set(t["scope"]) == {"all", "core", "process"}
    one = t[(t["source"].str.endswith("ab_c08_r1.txt")) & (t["tool"] == "mpstat") & (t["scope"] == "all")].iloc[0]
    rows = ds.cpu[(ds.cpu["run_source"] == one["source"]) & (ds.cpu["tool"] == "mpstat") & (ds.cpu["scope"] == "all")]
    rows = rows[rows["summary"].isna()]
    assert one["samples"] == len(rows) and one["busy_max_pct"] == rows["busy_pct"].max()
    assert one["busy_mean_pct"] == pytest.approx(rows["busy_pct"].mean())
    src, line = one["busy_max_at"].rsplit(":", 1)
    assert (
        float(_line(str(Path(src).relative_to(CPU)), int(line)).split()[-1])
        == rows.loc[rows["busy_pct"].idxmax(), "idle_pct"]
    )


def test_cpu_per_run_leaves_folder_samples_out():
    cpu = lbanalysis.read([CPU / "vmstat.txt", CPU / "time_v_hey.txt"], table="cpu")
    assert set(cpu["paired_by"].dropna()) == {"same file", "folder"}
    t = cpu_per_run(cpu)
    assert t["tool"].tolist() == ["time"]


def test_roles_and_stems_as_data():
    assert role_of_host("tu-lb-01") == "load balancer" and role_of_host("web-2") == "server"
    assert role_of_host("injector1") == "client" and role_of_host("vm") == ""
    for exe in registry.executables():
        if registry.get_tool(registry.tool_of_executable(exe)).kind == "http-load":
            assert role_of_command(f"/usr/local/bin/{exe} -x") == "client"
    assert role_of_command("nice -n 5 /usr/sbin/nginx -g daemon") == "server"
    assert stem_words("haproxy-info_ab_c08_r1_before.txt") == stem_words("ab_c08_r1.txt") == ("c08", "r1")


def test_resources_kind_tools_have_no_runs_and_are_not_load_tools():
    assert set(registry.names(kind="resources")) >= {"time", "vmstat", "mpstat", "sar", "iostat", "pidstat", "dstat"}
    assert not set(registry.names(kind="resources")) & set(registry.executables().values())


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            "Linux 6.1 (h) \t11/27/2026 \t_x86_64_\t(2 CPU)\n\n"
            "14:40:01     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle\n"
            "14:40:02     all   10.00    0.00    5.00\n",
            4,
        ),
        (
            "top - 14:38:41 up 8 min,  0 user,  load average: 9.03, 5.95, 2.68\n%Cpu(s): 75.0 us, 25.0 sy\n",
            2,
        ),
    ],
)
def test_broken_monitor_output_is_a_parse_error_naming_file_and_line(tmp_path, text, where):
    f = tmp_path / "broken.txt"
    f.write_text(text)
    with pytest.raises(lbanalysis.ParseError) as e:
        lbanalysis.read(f, table="cpu")
    assert e.value.line == where and "broken.txt" in str(e.value)


def test_cli_read_table_cpu(capsys):
    assert cli.main(["read", str(CPU / "time_v_hey.txt"), "--table", "cpu", "-o", "-"]) == 0
    out = capsys.readouterr().out
    header, row = out.strip().split("\n")[:2]
    assert "paired_by" in header and "same file" in row and "hey -c 8" in row


def test_shape_mpstat_with_a_12_hour_clock():
    """sysstat/sysstat#337: mpstat -P ALL with PM times and a long host name (SHAPES.md)."""
    cpu = _cpu("public/mpstat_ampm_sysstat_pr337.txt")
    assert cpu["time"].dt.strftime("%Y-%m-%d %H:%M:%S").unique().tolist() == [
        "2022-10-04 12:44:56",
        "2022-10-04 12:45:01",
    ]
    assert set(cpu["host"]) == {"localhost.localdomain"} and cpu["busy_pct"].max() == pytest.approx(0.2)


def test_shape_top_of_procps_3_after_its_prompt():
    """zhangyachen/zhangyachen.github.io#64: `Cpu(s): 21.7% us, ... 2.2% ni` (no st), after a prompt line."""
    cpu = _cpu("public/top_procps3_zhangyachen_issue64.txt")
    total = cpu[cpu["scope"] == "all"].iloc[0]
    assert (total["user_pct"], total["nice_pct"], total["busy_pct"]) == (pytest.approx(23.9), 2.2, pytest.approx(30.6))
    assert pd.isna(total["steal_pct"])
    procs = cpu[cpu["scope"] == "process"]
    assert procs["pid"].tolist() == [2729, 29603, 24599] and procs["cpu_pct"].tolist() == [47.3, 47.3, 35.4]


def test_locust_printed_tables_and_csv_files_are_one_run():
    """Locust's --csv PREFIX files beside its printed tables are the same run (their counts differ: the CSV is
    written before the last requests are counted): one series, the CSV left out naming its twin."""
    ds = lbanalysis.read(FIXTURES / "locust", table="all")
    runs = lbanalysis.study(ds).runs.assign(name=lambda r: r["source"].astype(str).map(lambda s: Path(s).name))
    by_name = runs.set_index("name")
    for printed in ("locust_nginx.txt", "locust_haproxy.txt", "locust_mixed.txt", "locust_periodic.txt"):
        csv = printed.replace(".txt", "_stats.csv")
        assert by_name.at[csv, "series"] == by_name.at[printed, "series"]
        assert by_name.at[csv, "twin_of"] == runs.index[runs["name"] == printed][0]
        assert by_name.at[csv, "requests"] != by_name.at[printed, "requests"]
    assert pd.isna(by_name.at["locust_json_log.txt", "twin_of"])  # another run, whose name only begins alike


def test_cli_reads_the_cpu_table_of_monitors_alone(capsys, tmp_path):
    assert cli.main(["read", str(CPU / "vmstat.txt"), "--table", "cpu", "-o", "-"]) == 0
    assert len(capsys.readouterr().out.strip().split("\n")) == 1 + len(_cpu("vmstat.txt"))
    assert (
        cli.main(["read", str(CPU / "vmstat.txt"), "--table", "cpu", "-o", str(tmp_path / "d"), "--format", "parquet"])
        == 2
    )
    assert "one file" in capsys.readouterr().err


def test_broken_time_report_after_an_output_names_its_line_in_the_file(tmp_path):
    text = (CPU / "time_v_hey.txt").read_text()
    n = next(i for i, ln in enumerate(text.split("\n"), 1) if "User time (seconds)" in ln)
    f = tmp_path / "timed.txt"
    f.write_text(text.replace("User time (seconds): ", "User time (seconds): n/a"))
    with pytest.raises(lbanalysis.ParseError) as e:
        lbanalysis.read(f)
    assert e.value.line == n and "User time" in str(e.value)


def test_path_pattern_cpu_columns_are_cpu_rows(tmp_path):
    for host, busy in (("tu-lb-01", 87), ("tu-web-01", 42)):
        (tmp_path / host / f"cpu{busy}").mkdir(parents=True)
        shutil.copy(CPU / "paired" / "ab_c08_r1.txt", tmp_path / host / f"cpu{busy}" / "ab.txt")
    ds = lbanalysis.read(tmp_path, pattern="{host}/cpu{cpu_pct}/ab.txt", table="all")
    rows = ds.cpu.sort_values("busy_pct")
    assert rows["busy_pct"].tolist() == [42.0, 87.0] and rows["role"].tolist() == ["server", "load balancer"]
    assert set(rows["tool"]) == {"path"} and set(rows["paired_by"]) == {"same file"}
    assert rows["run_source"].tolist() == rows["source"].astype(str).tolist() and rows["line"].isna().all()


def test_a_monitor_printed_after_the_run_in_its_own_file_is_that_runs(tmp_path):
    f = tmp_path / "ab_c08.txt"
    f.write_text((CPU / "paired" / "ab_c08_r1.txt").read_text() + "$ vmstat 1 3\n" + (CPU / "vmstat.txt").read_text())
    ds = lbanalysis.read(f, table="all")
    assert len(ds.runs) == 1
    samples = ds.cpu[ds.cpu["summary"].isna()]
    assert set(samples["paired_by"]) == {"same file"} and set(samples["run"]) == {0}


@pytest.mark.parametrize("monitor", ["vmstat_t.txt", "mpstat_all.txt", "top_head.txt", "dstat.txt"])
def test_a_monitor_after_its_prompt_or_notes_is_read(tmp_path, monitor):
    f = tmp_path / "m.txt"
    f.write_text("notes from the load balancer\n$ some-monitor --flags\n" + (CPU / monitor).read_text())
    got = lbanalysis.read(f, table="cpu")
    want = _cpu(monitor)
    assert len(got) == len(want) and (got["line"].to_numpy() == want["line"].to_numpy() + 2).all()


def test_a_monitor_named_after_one_tools_run_is_not_another_tools():
    """scenarios/client-cpu: vmstat_ab_c16_r1.txt beside ab_c16_r1.txt and hey_c16_r1.txt is ab's."""
    cpu = lbanalysis.read(FIXTURES / "scenarios" / "client-cpu", table="cpu")
    vm = cpu[(cpu["tool"] == "vmstat") & cpu["summary"].isna()]
    assert set(vm["paired_by"]) == {"name stem"}
    for src, run_source in zip(vm["source"].astype(str), vm["run_source"], strict=True):
        assert Path(run_source).name == Path(src).name.removeprefix("vmstat_")


def test_a_monitor_names_its_role_when_its_header_names_a_plain_host(tmp_path):
    """`--monitor lb='ssh lb mpstat -P ALL 1'`: mpstat's header names the machine ('vm', no role in it); the
    monitor's name says it is the load balancer."""
    where = tmp_path / "monitor" / "lb"
    where.mkdir(parents=True)
    (where / "001.txt").write_text((CPU / "mpstat_all.txt").read_text())
    cpu = lbanalysis.read(tmp_path, table="cpu")
    assert set(cpu["host"]) == {"vm"}
    assert set(cpu["role"]) == {"load balancer"}
