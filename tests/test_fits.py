"""Scaling fits: R usl's published coefficients and data from known parameters."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from lbanalysis.analysis.fits import (
    ScalingFit,
    ScalingFits,
    amdahl_throughput,
    fit_scaling,
    usl_throughput,
)
from lbanalysis.errors import FitError

USL_DATA = Path(__file__).parent / "data" / "usl"


def _signif(x: float, digits: int) -> float:
    return float(f"{x:.{digits}g}")


# ------------------------------------------------- R usl reference values ---
@pytest.fixture(scope="module")
def specsdm91() -> ScalingFit:
    data = pd.read_csv(USL_DATA / "specsdm91.csv")
    return fit_scaling(data, x="load", y="throughput", model="usl")


def test_specsdm91_coefficients_match_r_usl(specsdm91):
    # tests/usl-nlxb.Rout.save: alpha 0.0277285, beta 0.0001044, gamma 89.9952330
    p = specsdm91.params
    assert _signif(p["sigma"], 6) == 0.0277285
    assert _signif(p["kappa"], 4) == 0.0001044
    assert _signif(p["lambda"], 8) == 89.995233  # R prints 89.9952330; we differ by 1e-7
    # standard errors 0.0091217, 0.0000199, 14.2134894
    se = specsdm91.bse
    assert _signif(se["sigma"], 5) == 0.0091217
    assert _signif(se["kappa"], 3) == 0.0000199
    assert _signif(se["lambda"], 9) == 14.2134894


def test_specsdm91_fit_statistics_match_r_usl(specsdm91):
    # tests/summary.Rout.save: "Residual standard error: 82.85 on 4 degrees of freedom", R² 0.9896, adj 0.9875
    assert round(specsdm91.resid_std, 2) == 82.85
    assert specsdm91.df_resid == 4
    assert round(specsdm91.rsquared, 4) == 0.9896
    # tests/fitted.Rout.save
    assert specsdm91.fittedvalues.round().tolist() == [90, 1078, 1541, 1850, 1879, 1822, 1646]


def test_specsdm91_derived_values_match_r_usl(specsdm91):
    assert _signif(specsdm91.n_peak, 2) == 97  # tests/peak-scalability.Rout.save
    assert specsdm91.asymptote == pytest.approx(3245.589, rel=1e-4)  # tests/limit-scalability.R
    assert specsdm91.retrograde
    assert specsdm91.x_peak == pytest.approx(float(usl_throughput(specsdm91.n_peak, *specsdm91.params)))


def test_raytracer_matches_r_usl_and_its_confint():
    data = pd.read_csv(USL_DATA / "raytracer.csv")
    fit = fit_scaling(data, x="processors", y="throughput")
    # tests/confint.Rout.save: coef alpha 0.0578, beta 0.0000, gamma 21.8488
    assert round(fit.params["sigma"], 4) == 0.0578
    assert fit.params["kappa"] == 0.0
    assert round(fit.params["lambda"], 4) == 21.8488
    # R's confint is estimate ± se * qt(0.95, n - 1); rebuild it from our standard errors
    half = fit.bse * stats.t.ppf(0.95, fit.nobs - 1)
    assert round(fit.params["sigma"] - half["sigma"], 6) == 0.033677
    assert round(fit.params["sigma"] + half["sigma"], 6) == 0.081864
    assert round(half["kappa"], 6) == 0.000214
    assert round(fit.params["lambda"] - half["lambda"], 5) == 17.86838
    assert round(fit.params["lambda"] + half["lambda"], 5) == 25.82931
    # no coherency: no peak, not retrograde, and the result says kappa sits on its bound
    assert math.isinf(fit.n_peak)
    assert not fit.retrograde
    assert fit.x_peak == pytest.approx(fit.asymptote)
    assert any("kappa is at its bound 0" in n for n in fit.notes)


def test_dataset_without_load_one_matches_r_usl():
    # tests/t04.Rout.save (usl 1.x): sigma 0.0418302, kappa 0.0004091, scale factor 12.67
    data = pd.read_csv(USL_DATA / "no_unit_load.csv")
    p = fit_scaling(data, x="clients", y="reqrate").params
    assert _signif(p["sigma"], 5) == 0.04183  # R: 0.0418302, ours 0.0418301: R's solver tolerance
    assert _signif(p["kappa"], 4) == 0.0004091
    assert round(p["lambda"], 2) == 12.67


def test_r_usl_coef_example_exact():
    # tests/coef.Rout.save: alpha 0.02, beta 0.02, gamma 1.00
    data = pd.DataFrame({"load": [1, 2, 4, 6, 8, 10], "tput": [1, 1.8868, 3.0769, 3.5294, 3.5398, 3.3557]})
    p = fit_scaling(data, x="load", y="tput").params
    assert p.round(3).tolist() == [1.0, 0.02, 0.02]


# ----------------------------------------------- known parameters + noise ---
LOADS = [1, 2, 4, 8, 16, 24, 32, 48, 64]


def _noisy(curve: np.ndarray, seed: int, repeats: int = 3, cv: float = 0.02) -> pd.DataFrame:
    """Runs at LOADS, ``repeats`` each, with normal noise of sd ``cv`` x the highest throughput."""
    rng = np.random.default_rng(seed)
    n = np.repeat(LOADS, repeats)
    y = np.repeat(curve, repeats) + cv * np.max(curve) * rng.standard_normal(len(n))
    return pd.DataFrame({"concurrency": pd.array(n, dtype="Int64"), "requests_per_s": y})


def _inside(fit: ScalingFit, truth: dict[str, float]) -> None:
    ci = fit.conf_int()
    for name, value in truth.items():
        assert ci.loc[name, "lower"] <= value <= ci.loc[name, "upper"], (name, value, ci.loc[name].tolist())


def test_usl_recovers_known_parameters_within_intervals():
    truth = {"lambda": 100.0, "sigma": 0.03, "kappa": 0.0005}
    runs = _noisy(usl_throughput(LOADS, *truth.values()), seed=1)
    fit = fit_scaling(runs, model="usl")
    _inside(fit, truth)
    assert fit.nobs == len(runs) == 27  # repeated runs are separate observations
    assert fit.df_resid == 24
    n_star = math.sqrt((1 - truth["sigma"]) / truth["kappa"])
    d = fit.derived()
    assert d.loc["n_peak", "lower"] <= n_star <= d.loc["n_peak", "upper"]
    assert fit.retrograde


def test_amdahl_recovers_known_parameters_within_intervals():
    truth = {"lambda": 50.0, "sigma": 0.08}
    fit = fit_scaling(_noisy(amdahl_throughput(LOADS, *truth.values()), seed=2), model="amdahl")
    _inside(fit, truth)
    assert fit.serial_fraction == fit.params["sigma"]
    assert fit.asymptote == pytest.approx(fit.params["lambda"] / fit.params["sigma"])
    d = fit.derived()
    assert d.loc["asymptote", "lower"] <= 50.0 / 0.08 <= d.loc["asymptote", "upper"]


def test_linear_recovers_known_parameters_within_intervals():
    truth = {"intercept": 5.0, "slope": 12.0}
    rng = np.random.default_rng(3)
    n = np.repeat(LOADS, 2)
    runs = pd.DataFrame({"cores": n, "rps": 5.0 + 12.0 * n + rng.normal(0, 4.0, len(n))})
    fit = fit_scaling(runs, x="cores", y="rps", model="linear")
    _inside(fit, truth)
    ols = np.polyfit(n, runs["rps"], 1)
    assert fit.params.tolist() == pytest.approx([ols[1], ols[0]])


def test_usl_interval_coverage_is_near_nominal():
    truth = {"lambda": 100.0, "sigma": 0.03, "kappa": 0.0005}
    curve = usl_throughput(LOADS, *truth.values())
    hits = dict.fromkeys(truth, 0)
    for seed in range(100):
        ci = fit_scaling(_noisy(curve, seed=100 + seed)).conf_int()
        for k, v in truth.items():
            hits[k] += bool(ci.loc[k, "lower"] <= v <= ci.loc[k, "upper"])
    assert all(88 <= h <= 100 for h in hits.values()), hits


def test_usl_on_amdahl_data_is_not_retrograde():
    runs = _noisy(amdahl_throughput(LOADS, 50.0, 0.08), seed=4)
    fit = fit_scaling(runs, model="usl")
    assert not fit.retrograde
    assert fit.kappa_pvalue > 0.05


# ------------------------------------------------------------- the API ---
@pytest.fixture(scope="module")
def usl_fit() -> ScalingFit:
    return fit_scaling(_noisy(usl_throughput(LOADS, 100.0, 0.03, 0.0005), seed=5))


def test_params_bse_conf_int_are_labelled(usl_fit):
    assert usl_fit.params.index.tolist() == ["lambda", "sigma", "kappa"]
    assert usl_fit.bse.index.tolist() == ["lambda", "sigma", "kappa"]
    ci = usl_fit.conf_int(alpha=0.1)
    assert ci.columns.tolist() == ["lower", "upper"]
    wide = usl_fit.conf_int(alpha=0.01)
    assert (wide["lower"] < ci["lower"]).all() and (wide["upper"] > ci["upper"]).all()
    assert usl_fit.cov_params().shape == (3, 3)


def test_goodness_of_fit(usl_fit):
    assert 0.9 < usl_fit.rsquared <= 1
    assert usl_fit.n == usl_fit.nobs == 27 and usl_fit.dof == 24
    k, n, ssr = 3, 27, usl_fit.ssr
    assert usl_fit.aic == pytest.approx(n * math.log(2 * math.pi * ssr / n) + n + 2 * k)
    assert usl_fit.bic == pytest.approx(usl_fit.aic - 2 * k + k * math.log(n))


def test_predict_and_bands(usl_fit):
    pred = usl_fit.predict([10, 100])
    assert isinstance(pred, pd.Series) and pred.index.tolist() == [10.0, 100.0]
    assert pred.tolist() == pytest.approx(usl_throughput([10, 100], *usl_fit.params).tolist())
    conf = usl_fit.predict([10, 100], interval=True)
    new = usl_fit.predict([10, 100], interval=True, kind="prediction")
    assert conf.columns.tolist() == ["predicted", "lower", "upper"]
    assert ((conf.lower < conf.predicted) & (conf.predicted < conf.upper)).all()
    assert ((new.upper - new.lower) > (conf.upper - conf.lower)).all()
    assert len(usl_fit.predict()) == usl_fit.nobs


def test_summary_text_and_html(usl_fit):
    s = usl_fit.summary()
    text = str(s)
    assert "USL fit of requests_per_s against concurrency" in text
    for word in ("lambda", "sigma", "kappa", "n_peak", "x_peak", "r2", "aic", "coherency limits scaling"):
        assert word in text
    assert "<table" in s._repr_html_()
    assert repr(s) == text
    assert usl_fit._repr_html_().startswith("<h4>")


def test_to_dict_is_json(usl_fit):
    d = usl_fit.to_dict()
    again = json.loads(json.dumps(d, allow_nan=False))
    assert again["model"] == "usl" and again["n"] == 27 and again["dof"] == 24
    assert set(again["params"]) == {"lambda", "sigma", "kappa"}
    assert again["retrograde"] is True
    assert len(again["conf_int"]["kappa"]) == 2


def test_to_dict_turns_infinity_into_null():
    runs = _noisy(amdahl_throughput(LOADS, 50.0, 0.08), seed=6)
    runs.loc[:, "requests_per_s"] = amdahl_throughput(runs["concurrency"].astype(float), 50.0, 0.08)
    d = fit_scaling(runs, model="usl").to_dict()
    assert d["derived"]["n_peak"] is None
    json.dumps(d, allow_nan=False)


def test_by_fits_each_group():
    a = _noisy(usl_throughput(LOADS, 100.0, 0.03, 0.0005), seed=7).assign(setup="a")
    b = _noisy(amdahl_throughput(LOADS, 80.0, 0.05), seed=8).assign(setup="b")
    fits = fit_scaling(pd.concat([a, b], ignore_index=True), by="setup", model="usl")
    assert isinstance(fits, ScalingFits)
    assert list(fits) == ["a", "b"] and len(fits) == 2
    assert fits.params.index.name == "setup"
    assert fits.params.columns.tolist() == ["lambda", "sigma", "kappa"]
    frame = fits.to_frame()
    assert {"sigma_lower", "kappa_bse", "r2", "n_peak", "retrograde", "error"} <= set(frame.columns)
    assert frame.loc["a", "retrograde"] and not frame.loc["b", "retrograde"]
    assert fits["a"].params["lambda"] == frame.loc["a", "lambda"]
    json.dumps(fits.to_dict(), allow_nan=False)
    assert "Scaling fits by setup" in str(fits.summary())


def test_by_with_two_columns_uses_tuples():
    runs = pd.concat(
        [_noisy(amdahl_throughput(LOADS, 50.0, 0.08), seed=s).assign(host=h, mode=m) for s, (h, m) in
         enumerate([("x", "ka"), ("x", "close"), ("y", "ka")])],
        ignore_index=True,
    )  # fmt: skip
    fits = fit_scaling(runs, by=["host", "mode"], model="amdahl")
    assert set(fits) == {("x", "ka"), ("x", "close"), ("y", "ka")}
    assert fits.params.index.names == ["host", "mode"]


def test_by_errors_raise_or_coerce():
    good = _noisy(amdahl_throughput(LOADS, 50.0, 0.08), seed=9).assign(setup="good")
    bad = pd.DataFrame({"concurrency": [1, 2], "requests_per_s": [1.0, 2.0], "setup": "bad"})
    runs = pd.concat([good, bad], ignore_index=True)
    with pytest.raises(FitError, match="for bad"):
        fit_scaling(runs, by="setup")
    fits = fit_scaling(runs, by="setup", errors="coerce")
    assert list(fits) == ["good"]
    assert "needs at least 4 distinct values" in fits.errors["bad"]
    assert fits.to_frame().loc["bad", "error"].startswith("the usl model")


# ----------------------------------------------------------- failures ---
@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (pd.DataFrame({"concurrency": [1, 2, 4], "requests_per_s": [1.0, 2.0, 3.0]}), "needs at least 4 distinct"),
        (pd.DataFrame({"concurrency": [1, 1, 2, 2, 4, 4], "requests_per_s": [1.0] * 6}), "needs at least 4 distinct"),
        (pd.DataFrame({"concurrency": [1, 2], "requests_per_s": [np.nan, np.nan]}), "no run has numbers"),
        (pd.DataFrame({"concurrency": [0, 1, 2, 4], "requests_per_s": [0.0, 1, 2, 3]}), "loads > 0"),
        (pd.DataFrame({"clients": [1, 2, 4, 8]}), "no column 'concurrency'"),
    ],
)
def test_unfittable_data_raise_fit_error(frame, message):
    with pytest.raises(FitError, match=message):
        fit_scaling(frame)


def test_unknown_model_lists_the_known_ones():
    with pytest.raises(ValueError, match="known models: linear, amdahl, usl"):
        fit_scaling(pd.DataFrame({"concurrency": [1, 2], "requests_per_s": [1, 2]}), model="gompertz")


def test_nullable_and_missing_values_are_dropped():
    runs = pd.DataFrame(
        {
            "concurrency": pd.array([1, 2, 4, 8, 16, None], dtype="Int64"),
            "requests_per_s": [10.0, 19.0, 35.0, None, 90.0, 50.0],
        }
    )
    fit = fit_scaling(runs, model="amdahl")
    assert fit.nobs == 4
    assert fit.data.index.tolist() == [0, 1, 2, 4]


def test_flat_data_fit_does_not_pretend():
    # constant throughput: USL fits (sigma -> 1), R² is undefined (no variance), no silent numbers
    runs = pd.DataFrame({"concurrency": [1, 2, 4, 8, 16], "requests_per_s": [100.0] * 5})
    fit = fit_scaling(runs, model="amdahl")
    assert fit.params["sigma"] == pytest.approx(1.0)
    assert math.isnan(fit.rsquared)
    assert any("sigma is at its bound 1" in n for n in fit.notes)
