"""HAProxy statistics: every form of a snapshot reads into the same servers table; balance per backend."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

import lbanalysis
from lbanalysis import schema
from lbanalysis.analysis import balance, balance_each, balance_per_run, diff_snapshots, jain_index

FIXTURES = Path(__file__).resolve().parent / "fixtures"
HAP = FIXTURES / "haproxy"
COLS = [c for c in schema.SERVERS if c not in ("source", "run")]


def servers(name: str) -> pd.DataFrame:
    return lbanalysis.read(HAP / name, table="servers")


def test_show_stat_csv_whole_server_rows():
    s = servers("show_stat_after.csv")
    assert s[["proxy", "server", "type"]].values.tolist() == [
        ["web", "FRONTEND", "frontend"], ["app", "s1", "server"], ["app", "s2", "server"], ["app", "s3", "server"],
        ["app", "BACKEND", "backend"], ["stats", "FRONTEND", "frontend"], ["stats", "BACKEND", "backend"],
    ]  # fmt: skip
    s1 = s.iloc[1]
    want = {
        "status": "no check", "weight": 1.0, "sessions_current": 0, "sessions_max": 2, "sessions_limit": 2,
        "sessions_total": 762, "queue_current": 0, "queue_max": 0, "lbtot": 4, "bytes_in": 66132.0,
        "bytes_out": 89154.0, "hrsp_1xx": 0, "hrsp_2xx": 762, "hrsp_3xx": 0, "hrsp_4xx": 0, "hrsp_5xx": 0,
        "hrsp_other": 0, "errors_connect": 0, "errors_response": 0, "denied_response": 0, "retries": 0,
        "redispatches": 0, "rate": 509.0, "rate_max": 465.0, "queue_time_s": 0.385, "connect_time_s": 0.001,
        "response_time_s": 0.183, "total_time_s": 0.569, "address": "127.0.0.1", "port": 18101,
        "active_servers": 1, "backup_servers": 0, "last_change_s": 79.0, "process_id": 1, "proxy_id": 3,
        "server_id": 1, "requests_total": 762, "aborts_client": 0, "aborts_server": 0, "last_session_s": 0.0,
        "mode": "http", "rewrite_failures": 0, "connect_attempts": 762, "connection_reuses": 0,
        "idle_connections_current": 3, "queue_time_max_s": 4.486, "connect_time_max_s": 0.009,
        "response_time_max_s": 1.512, "total_time_max_s": 5.989, "errors_internal": 0, "unsafe_idle_connections": 3,
        "safe_idle_connections": 0, "used_connections": 0, "needed_connections": 3, "weight_user": 1.0,
    }  # fmt: skip
    for col in COLS:
        if col in want:
            assert s1[col] == pytest.approx(want[col]) if isinstance(want[col], float) else s1[col] == want[col], col
        elif col not in ("proxy", "server", "type"):
            assert pd.isna(s1[col]), f"{col} should be empty: {s1[col]!r}"
    backend = s.iloc[4]
    assert backend["queue_max"] == 15 and backend["weight"] == 6.0


@pytest.mark.parametrize("name", ["show_stat.json", "show_stat_typed.txt", "stats_page.csv"])
def test_every_form_gives_the_same_table(name):
    csv = servers("show_stat_after.csv")
    other = servers(name)
    if name == "stats_page.csv":  # fetched a moment later: counters moved by the stats request itself
        cols = ["proxy", "server", "type", "weight", "sessions_limit"]  # the page does not show addresses
    else:  # the same counters; the rates are over the last second, read a moment later
        cols = [c for c in COLS if c not in ("rate", "request_rate", "connection_rate")]
    pd.testing.assert_frame_equal(
        csv[cols].reset_index(drop=True), other[cols].reset_index(drop=True), check_exact=False, rtol=1e-9
    )


def test_show_info_text_and_json_fill_the_snapshot_run():
    for name in ("show_info.txt", "show_info.json"):
        r = lbanalysis.read(HAP / name).iloc[0]
        assert (r["tool"], r["tool_version"], r["nbthread"], r["maxconn"]) == ("haproxy", "2.6.12-1+deb12u4", 2, 256)
        assert r["uptime_s"] > 0 and r["requests_total"] >= 2300


def test_show_servers_state():
    s = servers("show_servers_state.txt")
    assert s[["server", "address", "port", "weight", "status"]].values.tolist() == [
        ["s1", "127.0.0.1", 18101, 1.0, "RUNNING"], ["s2", "127.0.0.1", 18102, 2.0, "RUNNING"],
        ["s3", "127.0.0.1", 18103, 3.0, "RUNNING"],
    ]  # fmt: skip


def test_balance_of_a_run_from_two_snapshots():
    b = balance(servers("show_stat_after.csv"), before=servers("show_stat_before.csv"))
    assert b["server"].tolist() == ["s1", "s2", "s3"]
    assert b["requests"].tolist() == [762, 780, 758] and set(b["counted_by"]) == {"stot"}
    assert b["weight_share"].round(4).tolist() == [0.1667, 0.3333, 0.5]
    per_weight = [762 / 1, 780 / 2, 758 / 3]
    assert b["jain"].iloc[0] == pytest.approx(sum(per_weight) ** 2 / (3 * sum(x * x for x in per_weight)))
    assert b["max_min"].iloc[0] == pytest.approx(762 / (758 / 3))
    assert b["limit_reached"].all()  # every server hit its maxconn of 2
    assert b["share_ratio"].iloc[0] > 1.9  # the lightest server did twice its weighted share


def test_lbtot_undercounts_queued_requests():
    b = balance(servers("show_stat_after.csv"), before=servers("show_stat_before.csv"), by="lbtot")
    assert b["requests"].sum() == 14 and set(b["counted_by"]) == {"lbtot"}


@pytest.mark.parametrize("by", ["stot", "lbtot"])
def test_balance_each_is_balance_of_each_snapshot_alone(by):
    """Every snapshot of the captured statistics (and of a scenario's), balanced in one pass, is what
    balance gives for it alone; one that cannot be balanced is said, as balance raises it."""
    every = pd.concat([lbanalysis.read(HAP, table="servers"),
                       lbanalysis.read(FIXTURES / "scenarios" / "backend-cpu", table="servers")], ignore_index=True)  # fmt: skip
    every["source"] = every["source"].astype(str)
    fronts = every[every["type"] == "frontend"].assign(source="fronts-only.csv", run=0)  # no server row
    one = every[every["source"].str.contains("scenarios")].iloc[0]
    first = every[(every["source"] == one["source"]) & (every["run"] == one["run"])]
    nameless = first.assign(source="nameless.csv", proxy=None)  # servers, counters, but no backend named
    every = pd.concat([every, fronts, nameless], ignore_index=True)
    out, why = balance_each(every, by=by)
    snapshots = every[["source", "run"]].drop_duplicates().sort_values(["source", "run"])
    assert len(snapshots) > 30 and why[("fronts-only.csv", 0)].startswith("no server rows")
    assert why[(str(HAP / "show_servers_state.txt"), 0)] == "neither stot nor lbtot in these statistics"
    assert why[("nameless.csv", first["run"].iloc[0])] == "no backend named in these statistics (pxname)"
    assert list(out[["source", "run"]].drop_duplicates().itertuples(index=False, name=None)) == [
        k for k in snapshots.itertuples(index=False, name=None) if k not in why
    ]
    for (src, run), mine in out.groupby(["source", "run"], sort=False):
        alone = every[(every["source"] == src) & (every["run"] == run)]
        pd.testing.assert_frame_equal(
            mine.drop(columns=["source", "run"]).reset_index(drop=True), balance(alone, by=by)
        )
    for (src, run), said in why.items():
        with pytest.raises(ValueError, match=re.escape(said)):
            balance(every[(every["source"] == src) & (every["run"] == run)], by=by)
    assert set(out["note"]) >= {"", "one server: nothing to balance"}


def test_jain_and_edge_cases():
    assert jain_index([5, 5]) == 1.0 and jain_index([1, 0]) == 0.5
    one = pd.DataFrame({"proxy": ["a"], "server": ["x"], "type": ["server"], "weight": [1.0], "sessions_total": [3]})
    assert balance(one)["note"].iloc[0] == "one server: nothing to balance"
    with pytest.raises(ValueError, match="went down"):
        diff_snapshots(servers("show_stat_after.csv"), servers("show_stat_before.csv"))


def test_a_folder_with_load_tests_and_statistics(tmp_path):
    for name in ("show_stat_after.csv", "show_info.txt", "ab_through_haproxy.txt"):
        shutil.copy(HAP / name, tmp_path / name)
    ds = lbanalysis.read(tmp_path, table="all")
    assert sorted(ds.runs["tool"]) == ["ab", "haproxy", "haproxy"]
    assert len(ds.servers) == 7 and set(ds.servers["source"].astype(str)) == {str(tmp_path / "show_stat_after.csv")}


def test_explore_gains_a_load_balancer_section_only_with_statistics(tmp_path):
    from lbanalysis.report.explore import load_balancer_section

    shutil.copy(HAP / "show_stat_after.csv", tmp_path / "stat.csv")
    shutil.copy(HAP / "ab_through_haproxy.txt", tmp_path / "ab.txt")
    section = load_balancer_section(lbanalysis.read(tmp_path, table="all"))
    assert not section.absent
    assert "backend `app`: 3 servers" in section.text[0] and "3 of 3 servers reached their maxconn" in section.text[0]
    assert section.tables[0]["server"].tolist() == ["s1", "s2", "s3"]
    html = section._repr_html_()
    assert "Jain&#x27;s index" in html or "Jain's index" in html
    only_ab = tmp_path / "ab-only"
    only_ab.mkdir()
    shutil.copy(HAP / "ab_through_haproxy.txt", only_ab / "ab.txt")
    assert load_balancer_section(lbanalysis.read(only_ab, table="all")).absent


def test_snapshots_join_to_runs_by_time_from_a_manifest(tmp_path):
    from lbanalysis.analysis import balance_per_run

    for name in (
        "show_stat_before.csv",
        "ab_slow_through_haproxy.txt",
        "ab_through_haproxy.txt",
        "show_stat_after.csv",
    ):
        shutil.copy(HAP / name, tmp_path / name)
    (tmp_path / "manifest.csv").write_text(
        "file,timestamp\n"
        "show_stat_before.csv,2026-11-24 15:42:50\n"
        "ab_slow_through_haproxy.txt,2026-11-24 15:42:52\n"
        "ab_through_haproxy.txt,2026-11-24 15:43:20\n"
        "show_stat_after.csv,2026-11-24 15:44:10\n"
    )
    ds = lbanalysis.read(tmp_path, table="all")
    assert ds.runs["timestamp"].notna().all()
    per_run = balance_per_run(ds.runs, ds.servers)
    # both ab runs lie between the same two snapshots: each gets the servers' totals over that window
    assert sorted(set(per_run["run_source"].map(lambda s: Path(s).name))) == [
        "ab_slow_through_haproxy.txt", "ab_through_haproxy.txt"
    ]  # fmt: skip
    assert per_run.groupby("run_source")["requests"].sum().tolist() == [2300, 2300]


def _absent(version: str) -> list[str]:
    """Columns whose HAProxy field the version's show stat lacks (scripts/make_haproxy_shapes.py builds the shapes)."""
    from lbanalysis.readers.haproxy.stat import FIELDS

    header = (HAP / "shapes" / f"show_stat_{version}.csv").read_text().split("\n", 1)[0].lstrip("# ").split(",")
    absent = [col for name, (col, _) in FIELDS.items() if name not in header]
    return absent + ["port"] * ("address" in absent)  # the port comes from addr's ':port'


@pytest.mark.parametrize("version", ["1.4", "1.5", "2.9"])
def test_column_sets_of_other_versions(version):
    """1.4's 52 fields, 1.5's 57 and 2.9's 200-odd (module counters after '-') read alike; absent fields stay empty."""
    capture = servers("show_stat_after.csv").reset_index(drop=True)
    shape = lbanalysis.read(HAP / "shapes" / f"show_stat_{version}.csv", table="servers").reset_index(drop=True)
    absent = _absent(version)
    if version != "2.9":
        assert {"queue_time_s", "connect_time_s", "response_time_s", "total_time_s", "address"} <= set(absent)
    kept = [c for c in COLS if c not in absent]
    pd.testing.assert_frame_equal(shape[kept], capture[kept])
    for col in absent:
        assert shape[col].isna().all(), col


def test_shapes_are_what_the_script_makes():
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "scripts" / "make_haproxy_shapes.py"
    spec = importlib.util.spec_from_file_location("make_haproxy_shapes", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    recs = mod.records(HAP / "show_stat_after.csv")
    for name, header in mod.SHAPES.items():
        assert (HAP / "shapes" / name).read_text() == mod.project(recs, header), name


def test_statistics_read_through_socat_in_a_transcript():
    ds = lbanalysis.read(HAP / "transcript_socat.txt", table="all")
    assert ds.runs["tool"].tolist() == ["haproxy", "ab", "haproxy", "haproxy"]
    assert ds.runs["format"].tolist() == ["haproxy-stat-csv", "ab", "haproxy-stat-csv", "haproxy-info"]
    assert ds.runs["line"].tolist() == [1, 11, 61, 71]
    assert ds.runs.loc[0, "command"] == 'echo "show stat" | socat stdio /tmp/lbcap-hap/admin.sock'
    assert ds.servers.groupby("run").size().to_dict() == {0: 7, 2: 7}
    # the run's requests, attributed to servers by the snapshots printed around it, add up to what ab counted
    per_server = balance_per_run(ds.runs, ds.servers)
    assert per_server["run_run"].unique().tolist() == [1]
    assert per_server["requests"].sum() == ds.runs.loc[1, "requests"] == 600
    assert per_server["server"].tolist() == ["s1", "s2", "s3"]


def _tutorial(prompt: str, pipe: str) -> str:
    """A Markdown note in the shape of stats-socket tutorials, around the captured outputs."""
    text = (HAP / "transcript_socat.txt").read_text()
    stat_before, ab_part, stat_after, info = text.split("root@lb:~# ")[1:]
    body = lambda part: part.split("\n", 1)[1]  # noqa: E731 - the output without its command line
    return (
        "# Checking the balance\n\nStatistics before the test:\n\n```\n"
        f'{prompt}echo "show stat" | {pipe}\n{body(stat_before)}```\n\n'
        "Then the test, from the client (not the same machine):\n\n```\n"
        f"{prompt}ab -n 600 -c 6 http://127.0.0.1:18110/\n{body(ab_part)}```\n\n"
        f"And after it:\n\n```\n{prompt}echo 'show stat' | {pipe}\n{body(stat_after)}```\n"
        f"\n```\n{prompt}printf 'show info\\n' | {pipe}\n{body(info)}```\n"
    )


@pytest.mark.parametrize(
    "prompt, pipe",
    [
        ("$ ", "sudo socat stdio /run/haproxy/admin.sock"),
        ("root@lb01:~# ", "socat stdio unix-connect:/var/run/haproxy.sock"),
        ("$ ", "nc -U /var/run/haproxy.sock"),
        ("[user@lb ~]$ ", "sudo ncat -U /var/lib/haproxy/stats"),
    ],
)
def test_statistics_in_a_markdown_tutorial(prompt, pipe):
    ds = lbanalysis.read(io.StringIO(_tutorial(prompt, pipe)), table="all")
    assert ds.runs["tool"].tolist() == ["haproxy", "ab", "haproxy", "haproxy"]
    assert balance_per_run(ds.runs, ds.servers)["requests"].sum() == 600


def test_prose_about_the_socket_is_not_a_command():
    text = 'To see the counters, run echo "show stat" | socat stdio /run/haproxy/admin.sock on the balancer.\n'
    with pytest.raises(lbanalysis.errors.UnknownFormatError):
        lbanalysis.read(io.StringIO(text), table="all")
