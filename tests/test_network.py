"""Network utilisation: runs at known link utilisation, capacity forms, bound labels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lbanalysis.analysis.network import Framing, format_bits_per_s, network_utilisation, wire_bits_per_s

FULL = 1538 / 1448  # wire bytes per payload byte for full segments


def test_framing_model_defaults():
    f = Framing()
    assert (f.mss, f.tcpip_header, f.ethernet, f.handshake_segments) == (1448, 52, 38, 3.0)
    assert f.segment_overhead() == 90 and f.segment_overhead(udp=True) == 66
    assert f.efficiency() * 1e9 == pytest.approx(941.5e6, rel=1e-4)  # iperf's familiar 941 Mbit/s


def test_iperf_at_known_utilisation():
    runs = pd.DataFrame({"tool": ["iperf3", "iperf3"], "bits_per_s": [90e6, 50e6]})
    raw = network_utilisation(runs, 100e6, overhead=None)
    assert raw["utilisation"].tolist() == pytest.approx([0.9, 0.5])
    assert raw["network_bound"].tolist() == [True, False]
    framed = network_utilisation(runs, 100e6)
    assert framed["wire_bits_per_s"].tolist() == pytest.approx([90e6 * FULL, 50e6 * FULL])
    assert framed.loc[0, "bound_by"] == "network"
    assert framed.loc[0, "bound_reason"] == "96% of 100 Mbit/s link (threshold 80%)"
    assert framed.loc[1, "bound_reason"] == "53% of 100 Mbit/s link: below 80%"


def test_udp_uses_udp_headers():
    runs = pd.DataFrame({"tool": ["iperf"], "protocol": ["udp"], "bits_per_s": [10e6]})
    assert wire_bits_per_s(runs).loc[0, "wire_bits_per_s"] == pytest.approx(10e6 * (1448 + 66) / 1448)


def test_http_segments_and_handshakes():
    # 1000 responses/s of 2896 bytes = 2 full segments each
    runs = pd.DataFrame(
        {"tool": "ab", "requests_per_s": [1000.0, 1000.0], "bytes_per_s": [2896e3, 2896e3],
         "keepalive": pd.array([True, False], dtype="boolean")}
    )  # fmt: skip
    wire = wire_bits_per_s(runs)
    assert wire["wire_bits_per_s"].tolist() == [(2896 + 2 * 90) * 8e3, (2896 + 5 * 90) * 8e3]
    assert wire.loc[0, "wire_source"] == "ab: bytes received incl. HTTP headers + framing estimate"
    out = network_utilisation(runs, "30 Mbit/s", threshold=0.85)
    assert out["utilisation"].tolist() == pytest.approx([24.608 / 30, 26.768 / 30])
    assert out["network_bound"].tolist() == [False, True]


def test_small_responses_cost_a_whole_segment_each():
    runs = pd.DataFrame({"tool": "ab", "requests_per_s": [10000.0], "bytes_per_s": [4.4e6], "keepalive": [True]})
    assert wire_bits_per_s(runs).loc[0, "wire_bits_per_s"] == pytest.approx((440 + 90) * 10000 * 8)


def test_overhead_factor_and_none():
    runs = pd.DataFrame({"tool": "gobench", "requests_per_s": [100.0], "bytes_per_s": [1e6]})
    assert wire_bits_per_s(runs, overhead=None).loc[0, "wire_bits_per_s"] == 8e6
    assert wire_bits_per_s(runs, overhead=1.1).loc[0, "wire_bits_per_s"] == pytest.approx(8.8e6)
    assert wire_bits_per_s(runs, overhead=None).loc[0, "wire_source"] == "gobench: bytes read as the tool counts them"


def test_sources_say_what_was_counted():
    runs = pd.DataFrame(
        {"tool": ["siege", "ab", "ab"], "requests_per_s": [100.0, 100.0, 100.0],
         "bytes_per_s": [1e5, np.nan, np.nan], "bytes_total": [np.nan, 1e6, np.nan], "duration_s": [10.0, 10.0, 10.0]}
    )  # fmt: skip
    wire = wire_bits_per_s(runs, overhead=None)
    assert wire.loc[0, "wire_source"].startswith("siege: response bodies only")
    assert wire.loc[1, "wire_bits_per_s"] == 8e5  # bytes_total / duration_s
    assert np.isnan(wire.loc[2, "wire_bits_per_s"])
    assert wire.loc[2, "wire_source"] == "no byte counts or rate: wire rate unknown"


def test_sent_direction_used_when_larger():
    runs = pd.DataFrame({"tool": "ab", "requests_per_s": [10.0], "bytes_per_s": [1e4], "bytes_sent_per_s": [1e6]})
    wire = wire_bits_per_s(runs, overhead=None)
    assert wire.loc[0, "wire_bits_per_s"] == 8e6
    assert "sent" in wire.loc[0, "wire_source"]


# ------------------------------------------------------------ capacity ---
def _paths() -> pd.DataFrame:
    return pd.DataFrame({"tool": "iperf", "link": ["fast", "slow", "other"], "bits_per_s": [80e6, 80e6, 80e6]})


def test_capacity_mapping_by_path():
    out = network_utilisation(_paths(), {"fast": "160 Mbit/s", "slow": 100e6}, path="link", overhead=None)
    assert out["capacity_bits_per_s"].tolist()[:2] == [160e6, 100e6]
    assert out["utilisation"].tolist()[:2] == pytest.approx([0.5, 0.8])
    assert out["network_bound"].tolist()[:2] == [False, True]
    assert pd.isna(out.loc[2, "network_bound"])
    assert out.loc[2, "bound_reason"] == "no capacity known for path 'other'"
    assert out.loc[1, "bound_reason"] == "80% of 100 Mbit/s link (slow) (threshold 80%)"
    series = network_utilisation(_paths(), pd.Series({"fast": 160e6}), path="link", overhead=None)
    assert series["capacity_bits_per_s"].tolist()[0] == 160e6


def test_capacity_mapping_needs_path():
    with pytest.raises(ValueError, match="path="):
        network_utilisation(_paths(), {"fast": 1e9})


def test_capacity_frame_joined_like_link_capacity():
    runs = pd.DataFrame(
        {"tool": "ab", "local_host": ["inj", "inj", "lb"], "remote_host": ["lb", "lb", "web1"],
         "requests_per_s": [100.0, 100.0, 100.0], "bytes_per_s": [9.4e6, 4.7e6, 1e6], "keepalive": True}
    )  # fmt: skip
    capacity = pd.DataFrame(
        {"local_host": ["inj", "lb"], "remote_host": ["lb", "web1"], "capacity_bits_per_s": [94e6, 160e6],
         "n_runs": [3, 3], "direction_used": ["receiver", "receiver"]}
    )  # fmt: skip
    out = network_utilisation(runs, capacity, overhead=None)
    assert out["capacity_bits_per_s"].tolist() == [94e6, 94e6, 160e6]
    assert out["utilisation"].tolist() == pytest.approx([0.8, 0.4, 0.05])
    assert out["bound_reason"].iloc[0] == "80% of 94 Mbit/s link (inj ↔ lb) (threshold 80%)"
    with pytest.raises(ValueError, match="capacity_bits_per_s"):
        network_utilisation(runs, capacity.drop(columns="capacity_bits_per_s"))


def test_capacity_frame_with_explicit_path_and_text_values():
    runs = _paths()
    table = pd.DataFrame({"link": ["fast", "slow"], "capacity_bits_per_s": ["160 Mbit/s", "100 Mbit/s"]})
    out = network_utilisation(runs, table, path="link", overhead=None)
    assert out["capacity_bits_per_s"].tolist()[:2] == [160e6, 100e6]


def test_bad_capacity_type():
    with pytest.raises(TypeError, match="capacity must be"):
        network_utilisation(_paths(), [1, 2])


# ---------------------------------------------------- saturation labels ---
def _saturating(bytes_per_req: float) -> pd.DataFrame:
    load = [10, 10, 20, 20, 40, 40, 80, 80]
    rps = [500.0, 505, 900, 905, 910, 902, 905, 908]
    return pd.DataFrame({"tool": "siege", "concurrency": load, "requests_per_s": rps,
                         "bytes_per_s": [r * bytes_per_req for r in rps], "keepalive": True})  # fmt: skip


def test_saturated_low_utilisation_is_bound_elsewhere():
    out = network_utilisation(_saturating(1000), "100 Mbit/s")
    assert out["bound_by"].tolist() == [""] * 2 + ["cpu/server/client (not network)"] * 6
    assert not out["network_bound"].any()
    assert out.loc[2, "bound_reason"].startswith("throughput at/after the knee (concurrency=20) with the link at only")


def test_saturated_high_utilisation_is_network_bound():
    out = network_utilisation(_saturating(12000), "100 Mbit/s")  # ~ 90 Mbit/s payload at the plateau
    assert out["bound_by"].tolist()[2:] == ["network"] * 6
    assert out["network_bound"].tolist()[:2] == [False, False]


def test_saturation_given_or_skipped():
    runs = _saturating(1000).assign(flag=[True] + [False] * 7)
    assert network_utilisation(runs, 1e8, saturated=False)["bound_by"].eq("").all()
    given = network_utilisation(runs, 1e8, saturated="flag")
    assert given["bound_by"].tolist() == ["cpu/server/client (not network)"] + [""] * 7


def test_knee_per_group_with_by():
    a = _saturating(1000).assign(servers="one")
    b = _saturating(1000).assign(servers="two", requests_per_s=[500.0, 505, 1000, 1005, 2000, 2004, 4000, 4010])
    out = network_utilisation(pd.concat([a, b], ignore_index=True), "1 Gbit/s", by="servers")
    assert out["bound_by"].iloc[:8].tolist().count("cpu/server/client (not network)") == 6
    assert out["bound_by"].iloc[8:].eq("").all()  # still scaling: not saturated


def test_returns_a_copy_with_the_documented_columns():
    runs = _saturating(1000)
    out = network_utilisation(runs, 1e8)
    new = ["wire_bits_per_s", "capacity_bits_per_s", "utilisation", "network_bound", "bound_by", "bound_reason"]
    assert set(new) <= set(out.columns)
    assert not set(new) & set(runs.columns)
    assert str(out["network_bound"].dtype) == "boolean"


def test_format_bits_per_s():
    assert format_bits_per_s(94e6) == "94 Mbit/s"
    assert format_bits_per_s(2.5e9) == "2.5 Gbit/s"
    assert format_bits_per_s(800) == "800 bit/s"
    assert format_bits_per_s(float("nan")) == "unknown"


def test_capacity_basis_payload_does_not_count_framing_twice():
    """iperf measures goodput: against it, payload is compared with payload."""
    runs = pd.DataFrame(
        {
            "tool": "ab",
            "link": ["lan"],
            "concurrency": [10],
            "requests_per_s": [100.0],
            "bytes_per_s": [11.0e6 / 8],
            "keepalive": [True],
        }
    )
    wire = network_utilisation(runs, "10 Mbit/s", saturated=False)
    payload = network_utilisation(runs, "10 Mbit/s", saturated=False, capacity_basis="payload")
    assert payload.loc[0, "utilisation"] == pytest.approx(1.1)
    assert wire.loc[0, "utilisation"] > payload.loc[0, "utilisation"] * 1.05
    assert (wire.loc[0, "capacity_basis"], payload.loc[0, "capacity_basis"]) == ("wire", "payload")
    iperf_like = pd.DataFrame({"link": ["lan"], "capacity_bits_per_s": [10e6], "n_runs": [3]})
    auto = network_utilisation(runs, iperf_like, saturated=False)
    assert auto.loc[0, "capacity_basis"] == "payload"
    with pytest.raises(ValueError, match="capacity_basis"):
        network_utilisation(runs, "10 Mbit/s", capacity_basis="goodput")
