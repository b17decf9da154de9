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
from lbanalysis.report import kernel_sockets

MO = 2**20
NOTEBOOKS = ("04-haproxy-apache-siege", "05-lbbench")


#: Each notebook's module fixture runs once: the tests reading it on one worker (under ``-n``, a module fixture runs
#: on every worker that gets one of its tests: the notebook executed two or three times over).
NB04 = pytest.mark.xdist_group("notebook-04")
NB05 = pytest.mark.xdist_group("notebook-05")


def execute(name: str, out: Path, **parameters) -> tuple[Path, Path, nbformat.NotebookNode]:
    papermill = pytest.importorskip("papermill")
    figures, processed = out / "figures", out / "processed"
    executed = out / f"{name}.ipynb"
    with kernel_sockets() as sockets:
        papermill.execute_notebook(
            str(paths.NOTEBOOKS / f"{name}.ipynb"),
            str(executed),
            parameters={"output_dir": str(figures), "processed_dir": str(processed), **parameters},
            kernel_name="python3",
            progress_bar=False,
            cwd=str(out),  # the notebook must not depend on the working directory
            **sockets,
        )
    return figures, processed, nbformat.read(str(executed), as_version=4)


def assert_committed_matches(processed: Path, slug: str) -> None:
    """Every CSV the notebook wrote equals the committed one in data/processed/<slug>/ (same files, same values)."""
    committed = paths.DATA_PROCESSED / slug
    written = sorted(p.name for p in processed.glob("*.csv"))
    assert written == sorted(p.name for p in committed.glob("*.csv"))
    for name in written:
        pd.testing.assert_frame_equal(
            # 1e-6: an iterative least-squares fit (the USL's lambda) moves in its 8th digit between scipy and BLAS
            # builds; a stale figure differs far more
            pd.read_csv(committed / name),
            pd.read_csv(processed / name),
            check_exact=False,
            rtol=1e-6,
            obj=name,
        )


def shown_text(nb: nbformat.NotebookNode) -> str:
    """Everything a reader sees that code printed or displayed (Markdown, plain text, streams)."""
    parts = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            parts.append(o.get("text", ""))
            parts.append(o.get("data", {}).get("text/markdown", ""))
    return "\n".join(parts)


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
        assert p["inferred_type_name"] in ("str", "float", "int", "bool") and p["help"], p


# ---------------------------------------------------- 04: article 003 ---
@pytest.fixture(scope="module")
def siege_nb(tmp_path_factory):
    return execute("04-haproxy-apache-siege", tmp_path_factory.mktemp("nb04"), threshold=0.5)


@pytest.mark.slow
@NB04
def test_04_ran_with_its_parameters(siege_nb):
    _, _, nb = siege_nb
    assert_no_errors(nb)
    assert nb.metadata.papermill.parameters["threshold"] == 0.5


@pytest.mark.slow
@NB04
def test_04_figures(siege_nb):
    figures, _, _ = siege_nb
    for name in ("transactions", "response-times", "throughput-mo-s", "gain", "utilisation"):
        assert (figures / f"{name}.png").stat().st_size > 10_000


@pytest.mark.slow
@NB04
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
@NB04
def test_04_per_level_means(siege_nb):
    _, processed, _ = siege_nb
    means = pd.read_csv(processed / "level-means.csv").set_index(["servers", "concurrency"])
    assert len(means) == 15
    assert means.loc[(1, 10), "requests"] == 9611
    assert means.loc[(2, 10), "requests"] == 15289.5
    assert means.loc[(1, 120), "latency_max_s"] == pytest.approx(4.285)
    assert means.loc[(2, 140), "bytes_per_s"] / MO == pytest.approx(5.58)  # the repeated run left out
    assert means.loc[(2, 140), "runs"] == 1 and means.loc[(2, 120), "runs"] == 2
    checks = pd.read_csv(processed / "printed-means-check.csv")
    assert len(checks) == 75 and checks["agrees"].all()


@pytest.mark.slow
@NB04
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
    # two runs against two at each level: too few to tell, no interval and no planning figure, per level or overall
    assert levels["lower"].isna().all() and levels["verdict"].str.startswith("too few runs to tell").all()
    assert levels["runs_needed"].isna().all()
    assert pd.isna(overall["lower"]) and str(overall["verdict"]).startswith("too few runs to tell")


@pytest.mark.slow
@NB04
def test_04_iperf_links(siege_nb):
    _, processed, _ = siege_nb
    links = pd.read_csv(processed / "links.csv")
    assert links["capacity_bits_per_s"].tolist() == [94e6, 160e6, 100e6]
    assert links["path"].tolist()[0] == "injecteur-haproxy"


@pytest.mark.slow
@NB04
def test_04_every_path_against_its_own_capacity(siege_nb):
    _, processed, _ = siege_nb
    net = pd.read_csv(processed / "network.csv")
    assert len(net) == 15 * 3  # setups and levels x the three iperf paths
    caps = net.groupby("path")["capacity_bits_per_s"].first().to_dict()
    assert caps == {"injecteur-haproxy": 94e6, "haproxy-serveur_rapide": 160e6, "haproxy-serveur_lent": 100e6}
    client = net[net["path"] == "injecteur-haproxy"].set_index(["servers", "concurrency"])
    assert client.loc[(2, 20), "utilisation"] == pytest.approx(6.785 * MO * 8 / 94e6)  # mean payload / iperf payload
    assert client.loc[(2, 20), "high"] == pytest.approx(6.88 * MO * 8 * 1538 / 1448 / 94e6)  # fastest run, framed
    assert client.loc[(2, 20), "low"] == pytest.approx(6.69 * MO * 8 / 94e6)
    assert (net["low"] <= net["utilisation"]).all() and (net["utilisation"] <= net["high"]).all()
    assert set(client.loc[1, "status"]) == {"below"}
    near = client.loc[2, "status"]
    assert near.drop(index=100).eq("near the limit").all() and near[100] == "below"  # 100 clients: at most 49 %
    assert not (net["status"] == "at the limit").any()
    servers = net[net["path"] != "injecteur-haproxy"]
    assert (servers["status"] == "below").all()


@pytest.mark.slow
@NB04
def test_04_ledger(siege_nb):
    figures, _, _ = siege_nb
    ledger = pd.read_csv(figures / "ledger.csv").set_index("claim")
    claims = pd.read_csv(paths.raw("haproxy-apache-siege", "claims.csv"))
    assert ledger.index.tolist() == claims["claim"].tolist()
    assert ledger.loc[["P1", "P2", "N4", "M1"], "verdict"].eq("not reproducible").all()
    assert ledger.loc["G1", "verdict"] == "reproduced" and ledger.loc["G2", "verdict"] == "differs"
    assert ledger.loc["N1", "verdict"] == "differs"  # 94 Mbit/s is 11.8 MB/s, not 9
    assert ledger.loc["T2", "verdict"] == "table differs" and "left out" in ledger.loc["T2", "why"]


@pytest.mark.slow
@NB04
def test_04_stated_numbers_follow_the_parameters(siege_nb, tmp_path_factory):
    figures, _, nb = execute(
        "04-haproxy-apache-siege", tmp_path_factory.mktemp("nb04b"), include_duplicates=True, threshold=0.4, limit=0.6
    )
    text, default = shown_text(nb), shown_text(siege_nb[2])
    assert "It is left out of the means" in default and "It is kept, as this report's parameters ask." in text
    assert "CI" not in default and "runs a side needed" not in default and "`threshold`" not in default
    assert "The longest response of any run is 8.02 s" in default
    assert "to 5.58 MO/s at 140 (-18 %)" in default and "to 5.54 MO/s at 140 (-18 %)" in text
    assert "1 are at the limit" not in text and "and 0 reach 90% at their upper bound" in default
    assert "and 3 reach 60% at their upper bound" in text
    assert "stay under 90% everywhere" in default and "bars reach into the 'at the limit' zone (60%)" in text
    ledger = pd.read_csv(figures / "ledger.csv").set_index("claim")
    assert ledger.loc["T2", "why"] == "kept, as this report's parameters ask"


@pytest.mark.slow
@NB04
def test_04_capacity_with_one_server_and_with_two(siege_nb):
    """mean <= 0.5 s: one server crosses between 40 and 60 clients, two between 60 and 80 (two runs a level)."""
    _, processed, nb = siege_nb
    cap = pd.read_csv(processed / "capacity.csv").set_index("series")
    means = pd.read_csv(processed / "level-means.csv").set_index(["servers", "concurrency"])["latency_mean_s"]
    expected = {}
    for servers, met, failed in ((1, 40, 60), (2, 60, 80)):
        row = cap.loc[servers]
        assert (row["status"], row["met_load"], row["failed_load"]) == ("crossed", met, failed)
        m0, m1 = means[(servers, met)] / 0.5 - 1, means[(servers, failed)] / 0.5 - 1
        expected[servers] = met + m0 / (m0 - m1) * (failed - met)
        assert row["capacity_load"] == pytest.approx(expected[servers])
        assert pd.isna(row["lower"]) and pd.isna(row["capacity_requests_per_s"])  # no run length: no rate
    ratio = expected[2] / expected[1]
    assert f"The second server carries {ratio:.2f} times the clients within the objective" in shown_text(nb)


@pytest.mark.slow
@NB04
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
@NB05
def test_05_ran(lbbench_nb):
    figures, _, nb = lbbench_nb
    assert_no_errors(nb)
    for name in ("thumbnail", "scaling-cores", "multi-ab"):
        assert (figures / f"{name}.png").stat().st_size > 10_000


@pytest.mark.slow
@NB05
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
@NB05
def test_05_claims(lbbench_nb):
    _, processed, _ = lbbench_nb
    claims = pd.read_csv(processed / "claims.csv")["from its figures"].tolist()
    assert claims == ["2563 req/s", "18582 req/s (haproxy-8 on compute-32-cpu-64-ram)", "7.2 times"]


@pytest.mark.slow
@NB05
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
@NB05
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
@NB05
def test_05_ledger(lbbench_nb):
    figures, _, nb = lbbench_nb
    ledger = pd.read_csv(figures / "ledger.csv").set_index("claim")
    claims = pd.read_csv(paths.raw("lbbench", "claims.csv"))
    assert ledger.index.tolist() == claims["claim"].tolist()
    assert ledger.loc[["N1", "N2", "N3", "M1", "M2"], "verdict"].eq("not reproducible").all()
    assert ledger.loc[["C1", "C2", "C3", "C5"], "verdict"].eq("reproduced").all()
    assert ledger.loc[["T1", "T2"], "verdict"].eq("table shown").all()
    assert ledger.loc["C4", "verdict"] == "differs"  # × 23 for 32 times the cores: more cores did help
    assert ledger.loc["N3", "our data gives"] == "the highest printed figure is 19,237 requests/s"
    text = shown_text(nb)
    assert "directly, with no load\nbalancer" in "".join(c.source for c in nb.cells)
    assert (
        "The article makes 10 checked claims: 4 reproduced, 1 differs, 5 not reproducible; "
        "2 tables rebuilt from its figures, checked apart: all match the article." in text
    )


@pytest.mark.slow
@NB05
def test_05_stated_numbers_follow_the_parameters(lbbench_nb, tmp_path_factory):
    _, processed, nb = execute("05-lbbench", tmp_path_factory.mktemp("nb05b"), fit_model="usl")
    text, default = shown_text(nb), shown_text(lbbench_nb[2])
    assert "With the amdahl model" in default and "With the usl model" in text
    fits = pd.read_csv(processed / "scaling-fits.csv", index_col="mode")
    sigma = fits.loc["haproxy-2", "sigma"]
    assert f"haproxy-2: σ = {sigma:.3f}" in text and f"haproxy-2: σ = {sigma:.3f}" not in default


@pytest.mark.slow
@NB05
def test_05_committed_processed_data_is_current(lbbench_nb):
    _, processed, _ = lbbench_nb
    assert_committed_matches(processed, "lbbench")
