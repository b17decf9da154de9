"""Link capacity from iperf runs (lbanalysis.capacity) and capacities given by hand."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal, assert_series_equal

import lbanalysis
from lbanalysis.capacity import capacities, capacity, link_capacity
from lbanalysis.errors import LBAnalysisError

from .conftest import corpus


def runs_frame(rows: list[dict]) -> pd.DataFrame:
    base = {
        "tool": "iperf3",
        "role": "client",
        "reverse": False,
        "direction": "receiver",
        "local_host": "a",
        "remote_host": "b",
        "local_port": 40000,
        "remote_port": 5201,
        "error": None,
    }
    return lbanalysis.schema.conform([{**base, **r} for r in rows], "runs")


def expected(rows: list[dict], by=("local_host", "remote_host")) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    for c in by:
        df[c] = df[c].astype("string")
    df["n_runs"] = df["n_runs"].astype("int64")
    df["direction_used"] = df["direction_used"].astype("string")
    return df


def test_median_of_receiver_figures_per_directed_pair():
    runs = runs_frame(
        [
            {"bits_per_s": 94e6, "sender_bits_per_s": 95e6},
            {"bits_per_s": 93e6, "sender_bits_per_s": 96e6},
            {"bits_per_s": 95e6},
            {"local_host": "a", "remote_host": "c", "bits_per_s": 9.4e8},
        ]
    )
    got = link_capacity(runs)
    exp = expected(
        [
            {
                "local_host": "a",
                "remote_host": "b",
                "capacity_bits_per_s": 94e6,
                "n_runs": 3,
                "direction_used": "receiver",
                "min_bits_per_s": 93e6,
                "max_bits_per_s": 95e6,
            },
            {
                "local_host": "a",
                "remote_host": "c",
                "capacity_bits_per_s": 9.4e8,
                "n_runs": 1,
                "direction_used": "receiver",
                "min_bits_per_s": 9.4e8,
                "max_bits_per_s": 9.4e8,
            },
        ]
    )
    assert_frame_equal(got[exp.columns], exp)
    assert got["consistent"].tolist() == [True, True] and got["spread"].iloc[0] == pytest.approx(95 / 93)


def test_error_rows_non_iperf_rows_and_missing_figures_are_ignored():
    runs = runs_frame(
        [
            {"bits_per_s": 50e6},
            {"bits_per_s": None, "error": "no summary line (run interrupted?)"},
            {"bits_per_s": 1e3, "error": "unable to connect to server: Connection refused"},
            {"tool": "ab", "bits_per_s": 1e12},
            {"bits_per_s": None},
        ]
    )
    got = link_capacity(runs)
    assert got[["capacity_bits_per_s", "n_runs"]].values.tolist() == [[50e6, 1]]


def test_rows_printed_by_the_receiving_end_are_turned_along_the_data():
    runs = runs_frame(
        [
            {"role": "client", "local_host": "inj", "remote_host": "lb", "bits_per_s": 90e6},
            # the server's own output of a client->server test: local=lb, remote=inj
            {"role": "server", "local_host": "lb", "remote_host": "inj", "bits_per_s": 92e6},
            # -R from the client: the data went lb -> inj
            {"role": "client", "reverse": True, "local_host": "inj", "remote_host": "lb", "bits_per_s": 40e6},
        ]
    )
    got = link_capacity(runs, stat="mean")
    assert got[["local_host", "remote_host", "capacity_bits_per_s", "n_runs"]].values.tolist() == [
        ["inj", "lb", 91e6, 2],
        ["lb", "inj", 40e6, 1],
    ]
    sym = link_capacity(runs, symmetric=True, stat="max")
    assert sym[["local_host", "remote_host", "capacity_bits_per_s", "n_runs"]].values.tolist() == [
        ["inj", "lb", 92e6, 3]
    ]


def test_mixed_sides_and_custom_by_and_stat_function():
    runs = runs_frame(
        [
            {"bits_per_s": 80e6, "direction": "sender", "tool": "iperf"},
            {"bits_per_s": 60e6, "direction": "receiver"},
        ]
    )
    runs["setup"] = ["lb-1", "lb-1"]
    got = link_capacity(runs, by="setup", stat=lambda s: s.quantile(0.5))
    assert got.columns.tolist()[:4] == ["setup", "capacity_bits_per_s", "n_runs", "direction_used"]
    assert got[["setup", "capacity_bits_per_s", "direction_used"]].values.tolist() == [["lb-1", 70e6, "mixed"]]


def test_empty_and_bad_arguments():
    runs = runs_frame([{"bits_per_s": None, "error": "no data"}])
    got = link_capacity(runs)
    assert got.empty and "capacity_bits_per_s" in got and str(got["n_runs"].dtype) == "int64"
    with pytest.raises(LBAnalysisError, match="no column 'site'"):
        link_capacity(runs, by=("site",))
    with pytest.raises(LBAnalysisError, match="unknown stat"):
        link_capacity(runs, stat="mode")
    with pytest.raises(LBAnalysisError, match="two `by` columns"):
        link_capacity(runs, by="local_host", symmetric=True)


def test_capacities_by_hand():
    got = capacities({"injecteur-haproxy": "94 Mbit/s", "haproxy-web": "1 Gbit/s", "web-db": "12.5 MB/s", "x": 1e8})
    exp = pd.Series(
        [94e6, 1e9, 100e6, 1e8],
        index=pd.Index(["injecteur-haproxy", "haproxy-web", "web-db", "x"], name="path"),
        name="capacity_bits_per_s",
    )
    assert_series_equal(got, exp)
    assert capacity("100 Mbps") == 1e8 and capacity(" 1.2 Gbits/sec") == 1.2e9
    with pytest.raises(LBAnalysisError, match="not a link capacity"):
        capacity("lots")
    with pytest.raises(LBAnalysisError):
        capacity(-5)


def test_package_root_exports_capacity_names():
    assert lbanalysis.link_capacity is link_capacity and lbanalysis.capacities is capacities


def test_capacity_per_path_from_the_public_corpus():
    runs = lbanalysis.read([corpus("public", "iperf3"), corpus("public", "iperf2")], errors="skip")
    cap = link_capacity(runs).set_index(["local_host", "remote_host"])
    # three Ansible clients to one server, each its own path
    assert cap.loc[("10.50.0.17", "10.50.0.25"), "capacity_bits_per_s"] == 6.99e9
    # Windows notes: two runs on one path, median of 39.5 and 46.6 Mbit/s
    row = cap.loc[("192.168.8.5", "192.168.8.21")]
    assert (row["n_runs"], row["capacity_bits_per_s"], row["min_bits_per_s"]) == (2, 43.05e6, 39.5e6)
    # server-side outputs are turned: the client that sent is local_host
    assert cap.loc[("192.168.178.34", "192.168.178.20"), "direction_used"] == "sender"  # old-server quirk
    assert cap.loc[("10.8.42.43", "10.8.7.49"), "capacity_bits_per_s"] == pytest.approx(41963324.47)
    # killed runs and banners give no capacity; the bare iperf2 lines have no hosts
    assert ("10.0.0.1", "10.0.0.2") not in cap.index and ("10.0.0.2", "10.0.0.1") not in cap.index
    assert cap.index.get_level_values(0).isna().sum() == 1


def test_read_then_capacity_on_a_transcript():
    text = (
        "$ iperf3 -c 10.0.0.2\n"
        "Connecting to host 10.0.0.2, port 5201\n"
        "[  5] local 10.0.0.1 port 39600 connected to 10.0.0.2 port 5201\n"
        "[ ID] Interval           Transfer     Bitrate         Retr\n"
        "[  5]   0.00-10.00  sec   112 MBytes  94.1 Mbits/sec    0             sender\n"
        "[  5]   0.00-10.04  sec   112 MBytes  93.6 Mbits/sec                  receiver\n"
        "$ iperf3 -c 10.0.0.2 -R\n"
        "Connecting to host 10.0.0.2, port 5201\n"
        "Reverse mode, remote host 10.0.0.2 is sending\n"
        "[  5] local 10.0.0.1 port 39602 connected to 10.0.0.2 port 5201\n"
        "[ ID] Interval           Transfer     Bitrate         Retr\n"
        "[  5]   0.00-10.04  sec   113 MBytes  94.4 Mbits/sec    3             sender\n"
        "[  5]   0.00-10.00  sec   112 MBytes  94.2 Mbits/sec                  receiver\n"
    )
    cap = link_capacity(lbanalysis.read(io.StringIO(text)))
    assert cap[["local_host", "remote_host", "capacity_bits_per_s"]].values.tolist() == [
        ["10.0.0.1", "10.0.0.2", 93.6e6],
        ["10.0.0.2", "10.0.0.1", 94.2e6],
    ]
