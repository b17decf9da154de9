"""Charts: assert on what was drawn (Agg backend, figures closed after each test)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from lbanalysis import plots
from lbanalysis.analysis.fits import fit_scaling, usl_throughput

LOADS = [1, 2, 4, 8, 16, 32, 64]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture
def ax():
    _, ax = plt.subplots()
    return ax


def _usl_runs(setup: str = "a", lam: float = 100.0) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = np.repeat(LOADS, 2)
    y = usl_throughput(n, lam, 0.03, 0.0005) + rng.normal(0, 5, len(n))
    return pd.DataFrame({"setup": setup, "concurrency": n, "requests_per_s": y, "latency_mean_s": n / y})


def test_helpers_draw_on_the_given_axes_and_create_no_figure(ax):
    before = plt.get_fignums()
    runs = _usl_runs()
    assert plots.throughput_vs_load(runs, ax=ax) is ax
    assert plots.latency_vs_load(runs, ax=ax) is ax
    assert plots.throughput_bars(runs, x="setup", ax=ax) is ax
    assert plt.get_fignums() == before


def test_throughput_vs_load_with_usl_fit(ax):
    runs = _usl_runs()
    plots.throughput_vs_load(runs, fit="usl", ax=ax)
    points, curve, peak = ax.lines
    got = points.get_xydata()
    assert got[:, 0].tolist() == sorted(runs["concurrency"].astype(float))
    fit = fit_scaling(runs)
    xs = curve.get_xdata()
    assert xs[0] == 1.0 and xs[-1] == pytest.approx(64.0)  # the measured loads only
    assert curve.get_ydata() == pytest.approx(fit.predict(xs).to_numpy())
    assert peak.get_xydata().tolist() == [[pytest.approx(fit.n_peak), pytest.approx(fit.x_peak)]]
    assert len(ax.collections) == 1  # the confidence band
    band = ax.collections[0].get_paths()[0].vertices
    assert band[:, 1].max() > fit.x_peak
    assert ax.get_xlabel() == "concurrency" and ax.get_ylabel() == "requests/s"


def test_throughput_vs_load_without_band_or_fit(ax):
    runs = _usl_runs()
    plots.throughput_vs_load(runs, fit="usl", band=False, peak=False, ax=ax)
    assert len(ax.lines) == 2 and len(ax.collections) == 0
    ax.clear()
    plots.throughput_vs_load(runs, ax=ax)
    means = ax.lines[1].get_xydata()
    assert means[:, 0].tolist() == [float(n) for n in LOADS]
    assert means[:, 1] == pytest.approx(runs.groupby("concurrency")["requests_per_s"].mean().to_numpy())


def test_throughput_vs_load_hue_colours_and_legend(ax):
    runs = pd.concat([_usl_runs("a"), _usl_runs("b", lam=150.0)], ignore_index=True)
    plots.throughput_vs_load(runs, hue="setup", fit="usl", ax=ax)
    assert len(ax.lines) == 6
    assert ax.lines[0].get_color() == "C0" and ax.lines[3].get_color() == "C1"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b"]


def test_unfittable_group_warns_and_keeps_points(ax):
    runs = pd.DataFrame({"concurrency": [1, 2], "requests_per_s": [10.0, 20.0]})
    with pytest.warns(UserWarning, match="no usl curve"):
        plots.throughput_vs_load(runs, fit="usl", ax=ax)
    assert len(ax.lines) == 1


def test_fit_result_plot_method(ax):
    fit = fit_scaling(_usl_runs())
    assert fit.plot(ax=ax) is ax
    assert len(ax.lines) == 3 and len(ax.collections) == 1
    assert ax.lines[0].get_xydata().shape == (len(LOADS) * 2, 2)


def test_scaling_fits_plot_all_groups(ax):
    runs = pd.concat([_usl_runs("a"), _usl_runs("b", lam=150.0)], ignore_index=True)
    fits = fit_scaling(runs, by="setup")
    fits.plot(ax=ax)
    assert len(ax.lines) == 6 and len(ax.collections) == 2


def test_latency_vs_load(ax):
    runs = _usl_runs()
    plots.latency_vs_load(runs, ax=ax)
    points, means = ax.lines
    assert points.get_xydata().shape == (len(runs), 2)
    assert means.get_ydata() == pytest.approx(runs.groupby("concurrency")["latency_mean_s"].mean().to_numpy())
    assert ax.get_ylabel() == "mean latency"


def test_latency_percentiles_one_line_per_run(ax):
    pct = pd.DataFrame(
        {"source": ["a.txt"] * 4 + ["b.txt"] * 2, "run": [0, 0, 1, 1, 0, 0],
         "percentile": [99, 50, 50, 99, 50, 99], "latency_s": [0.05, 0.01, 0.02, 0.09, 0.03, 0.3]}
    )  # fmt: skip
    plots.latency_percentiles(pct, logy=True, ax=ax)
    assert len(ax.lines) == 3
    assert ax.lines[0].get_xydata().tolist() == [[50.0, 0.01], [99.0, 0.05]]  # sorted by percentile
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a.txt:0", "a.txt:1", "b.txt:0"]
    assert ax.get_yscale() == "log"


def test_throughput_bars_mean_and_one_marker_per_run(ax):
    runs = pd.DataFrame({"setup": ["node", "node", "haproxy-2", "haproxy-2", "haproxy-2"],
                         "requests_per_s": [3500.0, 3300.0, 17000.0, 17500.0, 18000.0]})  # fmt: skip
    plots.throughput_bars(runs, x="setup", order=["node", "haproxy-2"], ax=ax)
    assert [p.get_height() for p in ax.patches] == [3400.0, 17500.0]
    assert ax.lines[0].get_xydata().tolist() == [[0, 3500], [0, 3300], [1, 17000], [1, 17500], [1, 18000]]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["node", "haproxy-2"]


def test_utilisation_bars_and_threshold_line(ax):
    util = pd.DataFrame({"source": "s.txt", "run": [0, 1, 2], "utilisation": [0.3, 0.85, np.nan],
                         "network_bound": pd.array([False, True, pd.NA], dtype="boolean")})  # fmt: skip
    plots.utilisation(util, threshold=0.75, ax=ax)
    assert [p.get_height() for p in ax.patches] == [0.3, 0.85, 0.0]
    assert list(ax.lines[0].get_ydata()) == [0.75, 0.75]
    assert list(ax.lines[1].get_ydata()) == [1.0, 1.0]
    assert ax.patches[1].get_facecolor() != ax.patches[0].get_facecolor()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["s.txt:0", "s.txt:1", "s.txt:2"]
    with pytest.raises(ValueError, match="utilisation"):
        plots.utilisation(util.drop(columns="utilisation"), ax=ax)


def test_gca_is_used_when_no_axes_given():
    _, ax = plt.subplots()
    assert plots.latency_vs_load(_usl_runs()) is ax
