"""Article notebooks 04 (article 003, siege) and 05 (article 004, lbbench), executed once each with papermill.

Each notebook runs in a module-scoped fixture with its figures and tidy CSVs
redirected to ``tmp_path``; the tests assert on what it wrote: the article's
figures in the rebuilt tables, per-level means, network-bound flags, fitted
parameters, figure files, and that the committed ``data/processed`` CSVs are
what the notebook rebuilds from ``data/raw``.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from articles import paths

MO = 2**20
NOTEBOOKS = ("04-haproxy-apache-siege", "05-lbbench")


def execute(name: str, out: Path, **parameters) -> tuple[Path, Path, nbformat.NotebookNode]:
    papermill = pytest.importorskip("papermill")
    figures, processed = out / "figures", out / "processed"
    executed = out / f"{name}.ipynb"
    papermill.execute_notebook(
        str(paths.NOTEBOOKS / f"{name}.ipynb"),
        str(executed),
        parameters={"output_dir": str(figures), "processed_dir": str(processed), **parameters},
        kernel_name="python3",
        progress_bar=False,
        cwd=str(out),  # the notebook must not depend on the working directory
    )
    return figures, processed, nbformat.read(str(executed), as_version=4)


def assert_committed_matches(processed: Path, slug: str) -> None:
    """Every CSV the notebook wrote equals the committed one in data/processed/<slug>/ (same files, same values)."""
    committed = paths.DATA_PROCESSED / slug
    written = sorted(p.name for p in processed.glob("*.csv"))
    assert written == sorted(p.name for p in committed.glob("*.csv"))
    for name in written:
        pd.testing.assert_frame_equal(
            pd.read_csv(committed / name), pd.read_csv(processed / name), check_exact=False, rtol=1e-9, obj=name
        )


def assert_no_errors(nb: nbformat.NotebookNode) -> None:
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_committed_without_outputs_one_parameters_cell_after_imports(name):
    nb = nbformat.read(paths.NOTEBOOKS / f"{name}.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.outputs == [] and c.execution_count is None for c in code)
    tagged = [i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
    assert re.search(
        r"^from articles import .*\bpaths\b", nb.cells[tagged[0] - 1].source, re.M
    )  # imports before the parameters


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_parameters_are_typed_and_documented(name):
    papermill = pytest.importorskip("papermill")
    params = papermill.inspect_notebook(str(paths.NOTEBOOKS / f"{name}.ipynb"))
    assert {"output_dir", "processed_dir", "raw_dir"} <= set(params)
    for p in params.values():
        assert p["inferred_type_name"] in ("str", "float", "int") and p["help"], p


# ---------------------------------------------------- 04: article 003 ---
@pytest.fixture(scope="module")
def siege_nb(tmp_path_factory):
    return execute("04-haproxy-apache-siege", tmp_path_factory.mktemp("nb04"), threshold=0.5)


@pytest.mark.slow
def test_04_ran_with_its_parameters(siege_nb):
    _, _, nb = siege_nb
    assert_no_errors(nb)
    assert nb.metadata.papermill.parameters["threshold"] == 0.5


@pytest.mark.slow
def test_04_figures(siege_nb):
    figures, _, _ = siege_nb
    for name in ("transactions", "response-times", "throughput-mo-s", "gain", "utilisation"):
        assert (figures / f"{name}.png").stat().st_size > 10_000


@pytest.mark.slow
def test_04_results_table_carries_the_article_figures(siege_nb):
    _, processed, _ = siege_nb
    t = pd.read_csv(processed / "results.csv").set_index(["servers", "concurrency", "row_in_group"])
    assert len(t) == 45
    first = t.loc[(1, 10, 1)]
    assert (first["requests"], first["latency_mean_s"], first["latency_min_s"], first["latency_max_s"]) == (
        9585,
        0.09,
        0.02,
        0.35,
    )
    assert first["bytes_per_s"] / MO == pytest.approx(4.12, rel=1e-12)
    assert t.loc[(2, 140, 1), "requests"] == 14473
    assert t.loc[(2, 140, 1), "latency_max_s"] == 6.03
    assert t.loc[(2, 20, 2), "bytes_per_s"] / MO == pytest.approx(6.88, rel=1e-12)
    assert t.loc[(1, 100, 1), "latency_max_s"] == 4.02
    assert (t.xs(3, level="row_in_group")["row_kind"] == "mean").all()
    assert t["source"].eq("data/raw/haproxy-apache-siege/results.csv").all()


@pytest.mark.slow
def test_04_per_level_means(siege_nb):
    _, processed, _ = siege_nb
    means = pd.read_csv(processed / "level-means.csv").set_index(["servers", "concurrency"])
    assert len(means) == 15
    assert means.loc[(1, 10), "requests"] == 9611
    assert means.loc[(2, 10), "requests"] == 15289.5
    assert means.loc[(1, 120), "latency_max_s"] == pytest.approx(4.285)
    assert means.loc[(2, 140), "bytes_per_s"] / MO == pytest.approx(5.54)
    checks = pd.read_csv(processed / "printed-means-check.csv")
    assert len(checks) == 75 and checks["agrees"].all()


@pytest.mark.slow
def test_04_gain_of_the_second_server(siege_nb):
    _, processed, _ = siege_nb
    gain = pd.read_csv(processed / "gain.csv", index_col=0)
    levels = gain.drop(index="overall").dropna(subset=["ratio"])
    assert list(levels.index.astype(int)) == [10, 20, 40, 60, 80, 100, 120]
    assert levels["change_pct"].min() == pytest.approx(41.88, abs=0.01)  # 80 clients
    assert levels["change_pct"].max() == pytest.approx(65.65, abs=0.01)  # 20 clients
    assert levels.loc["10", "ratio"] == pytest.approx(15289.5 / 9611)
    overall = gain.loc["overall"]
    assert float(overall["ratio"]) == pytest.approx(1.5248, abs=1e-4)
    assert float(overall["lower"]) < float(overall["ratio"]) < float(overall["upper"])
    assert 1.4 < float(overall["lower"]) and float(overall["upper"]) < 1.6
    assert (levels["lower"] <= levels["ratio"]).all() and (levels["ratio"] <= levels["upper"]).all()


@pytest.mark.slow
def test_04_iperf_links(siege_nb):
    _, processed, _ = siege_nb
    links = pd.read_csv(processed / "links.csv")
    assert links["capacity_bits_per_s"].tolist() == [94e6, 160e6, 100e6]
    assert links["path"].tolist()[0] == "injecteur-haproxy"


@pytest.mark.slow
def test_04_network_bound_flags(siege_nb):
    _, processed, _ = siege_nb
    net = pd.read_csv(processed / "network.csv")
    assert len(net) == 30  # the runs, not the printed means
    assert (net["capacity_bits_per_s"] == 94e6).all()
    # wire = MO/s x 2^20 x 8 x 1538/1448 (framing), against 94 Mbit/s
    first = net.iloc[0]
    assert first["wire_bits_per_s"] == pytest.approx(4.12 * MO * 8 * 1538 / 1448)
    assert (net["network_bound"] == (net["utilisation"] >= 0.5)).all()
    one, two = net[net["servers"] == 1], net[net["servers"] == 2]
    assert one["utilisation"].between(0.37, 0.40).all() and not one["network_bound"].any()
    assert (one["bound_by"] == "cpu/server/client (not network)").all()
    flagged = sorted(set(two.loc[two["network_bound"], "concurrency"]))
    assert flagged == [10, 20, 40, 60, 80, 120, 140]
    assert not two.loc[two["concurrency"] == 100, "network_bound"].any()  # 48-49 %
    assert two["utilisation"].max() == pytest.approx(0.652, abs=0.001)  # 20 clients, 6.88 MO/s
    # payload against iperf's payload rate: 6 % lower, the 80-140 flags go
    assert sorted(set(two.loc[two["network_bound_payload_only"], "concurrency"])) == [10, 20, 40, 60]


@pytest.mark.slow
def test_04_committed_processed_data_is_current(siege_nb):
    _, processed, _ = siege_nb
    assert_committed_matches(processed, "haproxy-apache-siege")


# ---------------------------------------------------- 05: article 004 ---
@pytest.fixture(scope="module")
def lbbench_nb(tmp_path_factory):
    if not (paths.raw("lbbench-local") / "manifest.csv").exists():
        pytest.skip("data/raw/lbbench-local has no runs yet (make_runs.sh)")
    return execute("05-lbbench", tmp_path_factory.mktemp("nb05"), fit_model="amdahl")


@pytest.mark.slow
def test_05_ran(lbbench_nb):
    figures, _, nb = lbbench_nb
    assert_no_errors(nb)
    for name in ("thumbnail", "scaling-cores", "multi-ab"):
        assert (figures / f"{name}.png").stat().st_size > 10_000


@pytest.mark.slow
def test_05_table_carries_the_article_figures(lbbench_nb):
    _, processed, _ = lbbench_nb
    runs = pd.read_csv(processed / "runs.csv")
    assert len(runs) == 58 and runs["equal"].all()
    by = runs.groupby(["setup", "mode"])["requests_per_s"].agg(list)
    assert by["shared-1-cpu-1-ram", "haproxy-2"] == [836.55, 780.21]
    assert by["compute-32-cpu-64-ram", "haproxy-16"] == [18446.09, 17429.7]
    assert by["shared-8-cpu-16-ram", "haproxy-8"] == [7057.47, 8785.8]
    assert runs["setup"].iloc[0] == "shared-1-cpu-1-ram" and runs["setup"].iloc[-1] == "compute-32-cpu-64-ram"
    assert runs.groupby("kind")["vcpus"].agg(sorted).to_dict() == {
        "compute": [8] * 8 + [16] * 8 + [32] * 10,
        "shared": [1] * 12 + [2] * 6 + [4] * 6 + [8] * 8,
    }
    wide = pd.read_csv(processed / "requests-per-s-table.csv", header=[0, 1], index_col=0)
    assert wide.shape == (8, 10)
    assert wide.loc["compute-32-cpu-64-ram", ("haproxy-16", "1")] == 17429.7


@pytest.mark.slow
def test_05_claims(lbbench_nb):
    _, processed, _ = lbbench_nb
    claims = pd.read_csv(processed / "claims.csv")["from its figures"].tolist()
    assert claims == ["2563 req/s", "18582 req/s (haproxy-8 on compute-32-cpu-64-ram)", "7.2 times"]


@pytest.mark.slow
def test_05_scaling_fits(lbbench_nb):
    _, processed, _ = lbbench_nb
    fits = pd.read_csv(processed / "scaling-fits.csv", index_col="mode", keep_default_na=False, na_values=[""])
    assert (fits.loc[["node", "haproxy-2", "haproxy-4", "haproxy-8"], "model"] == "amdahl").all()
    assert 0.04 < fits.loc["haproxy-2", "sigma"] < 0.10 and 750 < fits.loc["haproxy-2", "lambda"] < 1000
    assert 0.02 < fits.loc["haproxy-4", "sigma"] < 0.10
    assert 0.10 < fits.loc["node", "sigma"] < 0.40  # one node process barely uses more cores
    assert fits.loc["haproxy-2", "r2"] > 0.98
    assert "needs at least 3 distinct values" in fits.loc["haproxy-16", "error"]
    by_kind = pd.read_csv(processed / "scaling-fits-by-kind.csv", index_col=[0, 1])
    assert ("haproxy-2", "shared") in by_kind.index and ("haproxy-2", "compute") in by_kind.index


@pytest.mark.slow
def test_05_multi_ab_sums_and_fits(lbbench_nb):
    _, processed, _ = lbbench_nb
    per_process = pd.read_csv(processed / "multi-ab-runs.csv")
    summed = pd.read_csv(processed / "multi-ab-summed.csv")
    assert per_process["failed"].sum() == 0
    levels = sorted(summed["ab_processes"].unique())
    assert levels == [1, 2, 3, 4]
    assert (summed["processes"] == summed["ab_processes"]).all()
    assert (summed.groupby("ab_processes").size() == 3).all()
    again = per_process.groupby(["ab_processes", "rep"])[["requests_per_s", "bytes_per_s"]].sum().reset_index()
    pd.testing.assert_frame_equal(again, summed[["ab_processes", "rep", "requests_per_s", "bytes_per_s"]])
    assert summed["transfer_kb_per_s"].tolist() == pytest.approx((summed["bytes_per_s"] / 1024).tolist())
    fits = pd.read_csv(processed / "multi-ab-fits.csv", index_col="y")
    for y in ("requests_per_s", "transfer_kb_per_s"):
        fit = fits.loc[y]
        assert 0 <= fit["r2"] <= 1 and fit["n"] == 12
        assert fit["slope_lower"] <= fit["slope"] <= fit["slope_upper"]
        # the line passes through the middle of the data: mean of y at the mean of x
        assert fit["intercept"] + fit["slope"] * 2.5 == pytest.approx(summed[y].mean(), rel=1e-9)


@pytest.mark.slow
def test_05_committed_processed_data_is_current(lbbench_nb):
    _, processed, _ = lbbench_nb
    assert_committed_matches(processed, "lbbench")
