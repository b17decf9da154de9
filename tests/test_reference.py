"""articles.sizing (the sizing guide's figures, its rules of thumb) and the general helpers the notebooks use."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import lbanalysis
from articles import paths, sizing
from lbanalysis import analysis, plots
from lbanalysis.analysis import fit_scaling
from lbanalysis.reader import DEFAULT_IGNORE

# The article's figures (000: tests #22-#29; 002: the ten gobench outputs; 001: the reference).
APACHE = pd.DataFrame({"concurrency": [10, 20, 30, 150], "requests_per_s": [12570.77, 19419.05, 20272.52, 17088.43]})


@pytest.fixture(scope="module")
def ref() -> pd.DataFrame:
    return sizing.read_reference()


# ------------------------------------------------------------- reading ---
def test_read_reference_has_every_figure_of_the_section(ref):
    assert list(ref.columns) == ["metric", "value", "unit", "mode", "note", "kind"]
    assert len(ref) == 28
    assert ref["value"].dtype == float
    rates = ref[ref["unit"] == "1/s"].set_index("mode")["value"].to_dict()
    assert rates == {
        "tcp": 83000.0,
        "http close": 82000.0,
        "server-close": 97000.0,
        "end-to-end keep-alive": 243000.0,
        "anti-ddos filtering": 300000.0,
        "tls keep-alive": 160000.0,
        "tls resume": 13100.0,
        "tls renegotiation rsa2048": 1300.0,
    }
    bandwidth = ref.loc[ref["metric"] == "max_bandwidth", "value"].tolist()
    assert bandwidth == [20e9, 10e9, 4.6e9]
    per_gb = ref.loc[ref["metric"] == "concurrent_connections_per_gb", "value"].tolist()
    assert per_gb == [20000.0, 8000.0, 5000.0]
    assert set(ref["kind"]) == set(sizing.KINDS.values())
    assert (ref["note"] != "").sum() > 0 and not ref["note"].isna().any()


def test_read_reference_rejects_missing_columns_and_unknown_units(tmp_path):
    bad = tmp_path / "ref.csv"
    bad.write_text("metric,value,unit\nx,1,1/s\n")
    with pytest.raises(ValueError, match=r"missing column.*mode, note"):
        sizing.read_reference(bad)
    bad.write_text("metric,value,unit,mode,note\nx,1,furlongs,m,\n")
    with pytest.raises(ValueError, match=r"unknown unit.*furlongs"):
        sizing.read_reference(bad)


def test_reference_value_and_its_errors(ref):
    assert sizing.reference_value(ref, "http_requests_per_s", "server-close") == 97000.0
    with pytest.raises(KeyError, match="no metric 'nope'"):
        sizing.reference_value(ref, "nope", "x")
    with pytest.raises(KeyError, match="its modes are: 'server-close', 'end-to-end keep-alive'"):
        sizing.reference_value(ref, "http_requests_per_s", "close")


def test_reference_rates_are_the_per_second_figures_largest_first(ref):
    rates = sizing.reference_rates(ref)
    assert rates["value"].tolist() == [300000.0, 243000.0, 160000.0, 97000.0, 83000.0, 82000.0, 13100.0, 1300.0]
    assert rates.loc[1, "label"] == "http requests (end-to-end keep-alive)"
    assert rates["label"].is_unique


# ------------------------------------------------------- rules of thumb ---
def test_rules_of_thumb_recomputed_from_the_figures(ref):
    rules = sizing.rules_of_thumb(ref)
    assert rules.loc["http keep-alive / server-close", "recomputed"] == pytest.approx(243000 / 97000)  # ≈ 2.5
    assert rules.loc["http keep-alive / http close", "recomputed"] == pytest.approx(243000 / 82000)  # ≈ 3.0
    assert rules.loc["tls keep-alive / tls resume", "recomputed"] == pytest.approx(160000 / 13100)  # ≈ 12.2
    assert rules.loc["tls resume / tls renegotiation", "recomputed"] == pytest.approx(13100 / 1300)  # ≈ 10.1
    assert rules["stated"].tolist() == [3.0, 3.0, 10.0, 10.0]
    assert rules["recomputed"].round(1).tolist() == [2.5, 3.0, 12.2, 10.1]
    assert rules["recomputed_over_stated"].tolist() == pytest.approx((rules["recomputed"] / rules["stated"]).tolist())


def test_memory_per_connection_from_connections_per_gb(ref):
    mem = sizing.memory_per_connection(ref)
    assert mem["connections_per_gb"].tolist() == [20000.0, 8000.0, 5000.0]
    assert mem["bytes_per_connection"].tolist() == [50000.0, 125000.0, 200000.0]
    gib = sizing.memory_per_connection(ref, gb=2**30)
    assert gib.loc[0, "bytes_per_connection"] == pytest.approx(53687.0912)


def test_memory_for_connections():
    assert sizing.memory_for_connections(20000) == 1.0
    assert sizing.memory_for_connections(300) == pytest.approx(0.015)
    assert sizing.memory_for_connections(pd.Series([600, 5000]), per_gb=5000).tolist() == [0.12, 1.0]
    with pytest.raises(ValueError, match="per_gb must be > 0"):
        sizing.memory_for_connections(1, per_gb=0)


# ------------------------------------------------ measured vs reference ---
def test_against_reference_fractions_of_243000():
    measured = pd.DataFrame({"requests_per_s": [29331.99, 20928.0, 19237.28]})
    out = sizing.against_reference(measured, 243000.0)
    assert out["fraction"].tolist() == pytest.approx([29331.99 / 243000, 20928 / 243000, 19237.28 / 243000])
    assert out["times_below"].tolist() == pytest.approx([243000 / 29331.99, 243000 / 20928, 243000 / 19237.28])
    assert (out["reference_per_s"] == 243000.0).all()
    assert list(measured.columns) == ["requests_per_s"]  # the input is not modified
    with pytest.raises(ValueError, match="reference_per_s must be > 0"):
        sizing.against_reference(measured, 0)
    with pytest.raises(ValueError, match="no column 'hits'"):
        sizing.against_reference(measured, 1.0, y="hits")


def test_best_runs_of_the_articles_raw_folders():
    frames = {
        "000": lbanalysis.read(paths.raw("haproxy-wordpress-ab")),
        "002": lbanalysis.read(paths.raw("haproxy-maxconn-gobench")),
        "004": lbanalysis.read(paths.raw("lbbench"), pattern="{setup}/{mode}", ignore=(*DEFAULT_IGNORE, "figures.txt")),
    }
    best = sizing.best_runs(frames, columns=["source", "tool", "concurrency", "setup", "mode"])
    assert best["article"].tolist() == ["000", "002", "004"]
    assert best["requests_per_s"].tolist() == [29331.99, 20928.0, 19237.28]
    assert best["source"].str.rsplit("/", n=1).str[-1].tolist() == ["test-26.txt", "run-01.txt", "haproxy-8"]
    assert best["tool"].tolist() == ["ab", "gobench", "ab"]
    assert best.loc[2, "setup"] == "compute-32-cpu-64-ram"
    assert pd.isna(best.loc[0, "setup"])  # a column the frame lacks stays empty


def test_best_runs_leaves_out_frames_without_numbers():
    frames = {"a": pd.DataFrame({"requests_per_s": [np.nan]}), "b": pd.DataFrame({"x": [1]})}
    out = sizing.best_runs(frames, columns=[])
    assert out.empty and list(out.columns) == ["article", "requests_per_s"]


# ------------------------------------------------------------- general ---
def test_ratio_table_more_vcpus_give_nothing():
    runs = pd.DataFrame(
        {"test": [27, 28, 29], "lb_vcpu": [1, 4, 4], "requests_per_s": [28130.55, 28542.19, 28359.73]}
    ).set_index("test")
    out = analysis.ratio_table(runs, columns=["lb_vcpu"])
    assert list(out.columns) == ["lb_vcpu", "requests_per_s", "ratio", "change_pct"]
    assert out["ratio"].tolist() == pytest.approx([1.0, 28542.19 / 28130.55, 28359.73 / 28130.55])
    assert (out["change_pct"].abs() < 1.5).all()
    assert out.index.tolist() == [27, 28, 29]


def test_ratio_table_baseline_by_label_and_errors():
    runs = pd.DataFrame({"fullconn": [20, 1], "requests_per_s": [20928.0, 17571.0]}).set_index("fullconn")
    out = analysis.ratio_table(runs, baseline=1)
    assert out.loc[20, "ratio"] == pytest.approx(20928 / 17571)
    assert out.loc[20, "change_pct"] == pytest.approx(19.1053, abs=1e-4)
    with pytest.raises(KeyError, match="no row 5 to use as baseline; rows are: 20, 1"):
        analysis.ratio_table(runs, baseline=5)
    with pytest.raises(ValueError, match="no column 'x'"):
        analysis.ratio_table(runs, y="x")
    with pytest.raises(ValueError, match="empty frame"):
        analysis.ratio_table(runs.iloc[:0])


def test_fit_table_usl_on_the_apache_tests():
    fit = fit_scaling(APACHE, model="usl")
    table = fit.summary_frame().set_index("term")
    assert table.index.tolist() == ["lambda", "sigma", "kappa", "n_peak", "x_peak", "asymptote"]
    assert table["kind"].tolist() == ["parameter"] * 3 + ["derived"] * 3
    assert table.loc[["lambda", "sigma", "kappa"], "estimate"].tolist() == pytest.approx(fit.params.tolist())
    assert table.loc["n_peak", "estimate"] == pytest.approx(fit.n_peak)
    assert 20 < table.loc["n_peak", "estimate"] < 60
    assert (table["lower"] < table["estimate"]).all() and (table["estimate"] < table["upper"]).all()
    assert set(table["df_resid"]) == {1} and set(table["nobs"]) == {4} and set(table["model"]) == {"usl"}


def test_fit_table_linear_has_no_derived_rows():
    fit = fit_scaling(APACHE, model="linear")
    table = fit.summary_frame()
    assert table["term"].tolist() == ["intercept", "slope"]
    assert table["estimate"].dtype == float


def test_peak_bracket_of_the_apache_tests():
    out = analysis.peak_bracket(APACHE)
    assert out.to_dict() == {"x_best": 30.0, "y_best": 20272.52, "x_below": 20.0, "x_above": 150.0, "loads": 4}


def test_peak_bracket_at_the_edge_and_with_repeats():
    runs = pd.DataFrame({"n": [1, 1, 2, 2], "rps": [10.0, 12.0, 5.0, 4.0]})
    out = analysis.peak_bracket(runs, x="n", y="rps")
    assert out["x_best"] == 1.0 and out["y_best"] == 11.0
    assert math.isnan(out["x_below"]) and out["x_above"] == 2.0
    with pytest.raises(ValueError, match="no run has numbers"):
        analysis.peak_bracket(pd.DataFrame({"n": [np.nan], "rps": [1.0]}), x="n", y="rps")


def test_closed_loop_rate_matches_every_slow_gobench_run():
    runs = lbanalysis.read(paths.raw("haproxy-maxconn-gobench"))
    slow = runs[runs["speed"] == "slow"]
    slots = slow[["maxconn", "connections"]].min(axis=1)  # connections in use: clients capped by maxconn
    expected = analysis.closed_loop_rate(slots, slow["backend_delay_s"], slow["duration_s"])
    assert expected.tolist() == slow["requests_per_s"].tolist() == [6.0, 6.0, 6.0, 6.0, 12.0, 18.0, 24.0, 30.0]
    # 90 % of the Little's-law bound slots / service time
    assert (slow["requests_per_s"] / (slots / slow["backend_delay_s"])).round(12).tolist() == [0.9] * 8


def test_closed_loop_rate_scalars_and_fractional_windows():
    assert analysis.closed_loop_rate(20, 3.0, 30.0) == 6.0
    assert isinstance(analysis.closed_loop_rate(20, 3, 30), float)
    assert analysis.closed_loop_rate(10, 4.0, 30.0) == pytest.approx(10 * 7 / 30)  # 7.5 slots: 7 complete
    assert analysis.closed_loop_rate(10, 40.0, 30.0) == 0.0  # nothing completes
    assert analysis.closed_loop_rate(np.array([20, 40]), 3.0, 30.0).tolist() == [6.0, 12.0]
    for service in (0.7, 1.0, 2.9, 3.0, 3.1):
        assert analysis.closed_loop_rate(50, service, 30.0) <= 50 / service


def test_plot_rates_draws_bars_on_a_log_scale_and_measured_lines(ref):
    import matplotlib.pyplot as plt

    _fig, ax = plt.subplots()
    measured = pd.DataFrame({"article": ["000", "002"], "requests_per_s": [29331.99, 20928.0]})
    plots.plot_rates(sizing.reference_rates(ref), measured=measured, measured_label="article", ax=ax)
    assert [p.get_width() for p in ax.patches][:2] == [300000.0, 243000.0]
    assert ax.get_xscale() == "log"
    assert [line.get_xdata()[0] for line in ax.lines] == [29331.99, 20928.0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["000", "002"]
    top = max(ax.get_yticklabels(), key=lambda t: t.get_position()[1])
    assert top.get_text() == "filtered tcp connections (anti-ddos filtering)"  # largest first, at the top


def test_plot_rates_without_measured_has_no_legend(ref):
    import matplotlib.pyplot as plt

    _fig, ax = plt.subplots()
    plots.plot_rates(sizing.reference_rates(ref), ax=ax)
    assert len(ax.patches) == 8 and not ax.lines and ax.get_legend() is None
