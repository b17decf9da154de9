"""Per-request logs on Dask: same schema and numbers as the pandas path, on a 2-worker LocalCluster."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import lbanalysis
from lbanalysis.analysis.requests import latency_percentiles, per_second, run_summary

from .conftest import FIXTURES

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.xdist_group("dask")  # one cluster at a time on CI's two cores

KEY = ["source", "run", "seq"]
LOGS = [FIXTURES / "stall", FIXTURES / "ab" / "ab_both.tsv", FIXTURES / "hey" / "hey_csv.csv"]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as c:
            yield c


@pytest.fixture(scope="module")
def big_g(tmp_path_factory) -> str:
    """An ab -g file of 60,000 requests over 40 seconds, in ab's order (by total time, not start)."""
    rng = np.random.default_rng(7)
    n = 60_000
    secs = 1_795_352_000 + np.sort(rng.integers(0, 40, n))
    ttime = rng.integers(0, 80, n)
    order = np.argsort(ttime, kind="stable")
    body = "".join(
        f"Sun Nov 22 12:53:44 2026\t{s}\t0\t{t}\t{t}\t{t}\n" for s, t in zip(secs[order], ttime[order], strict=True)
    )
    path = tmp_path_factory.mktemp("g") / "big.tsv"
    path.write_text("starttime\tseconds\tctime\tdtime\tttime\twait\n" + body)
    return str(path)


def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    return df.assign(source=df["source"].astype(str)).sort_values(KEY).reset_index(drop=True)


def test_a_large_g_file_in_byte_ranges_equals_the_pandas_path(client, big_g):
    ddf = lbanalysis.read(big_g, table="requests", engine="dask", blocksize=256 << 10)
    assert ddf.npartitions >= 4  # cut into byte ranges, read on the workers
    got = ddf.compute()
    expected = lbanalysis.read(big_g, table="requests")
    assert got.dtypes.equals(expected.dtypes)
    pd.testing.assert_frame_equal(got.sort_values("seq").reset_index(drop=True), expected)


def test_a_folder_of_logs_equals_the_pandas_path(client):
    ddf = lbanalysis.read(LOGS, table="requests", engine="dask")
    got, expected = ddf.compute(), lbanalysis.read(LOGS, table="requests")
    assert list(ddf.columns) == list(expected.columns)
    # the same dtypes; source's categories list every file read (ab_stall.txt holds no request)
    assert [str(t) for t in ddf.dtypes] == [str(t) for t in expected.dtypes]
    assert set(expected["source"].cat.categories) < set(got["source"].cat.categories)
    pd.testing.assert_frame_equal(_sorted(got), _sorted(expected))


def test_aggregations_are_the_same_on_both_engines(client, big_g):
    paths = [*LOGS, big_g]
    ddf = lbanalysis.read(paths, table="requests", engine="dask", blocksize=256 << 10)
    pdf = lbanalysis.read(paths, table="requests")
    pd.testing.assert_frame_equal(latency_percentiles(ddf), latency_percentiles(pdf))
    a, b = per_second(ddf), per_second(pdf)
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12)
    assert a["requests"].sum() == pdf["start_s"].notna().sum()  # siege -v logs no start: not binned
    s1, s2 = run_summary(ddf), run_summary(pdf)
    pd.testing.assert_frame_equal(s1, s2, check_exact=False, rtol=1e-12)
    runs = lbanalysis.read(paths)
    joined = runs.assign(source=runs["source"].astype(str)).merge(s2, on=["source", "run"], suffixes=("", "_req"))
    assert (joined["requests"] == joined["requests_req"]).all()  # per-run summaries join to the runs table


def test_parquet_dataset_round_trip_on_both_engines(client, tmp_path, capsys):
    from lbanalysis import cli

    out = tmp_path / "requests"
    assert cli.main(["read", *map(str, LOGS), "--table", "requests", "-o", f"{out}/", "--format", "parquet"]) == 0
    expected = _sorted(lbanalysis.read(LOGS, table="requests"))
    back = lbanalysis.read(out, table="requests")
    pd.testing.assert_frame_equal(_sorted(back), expected)
    assert back.dtypes.equals(lbanalysis.read(LOGS, table="requests").dtypes)
    on_dask = lbanalysis.read(out, table="requests", engine="dask").compute()
    pd.testing.assert_frame_equal(_sorted(on_dask), expected, check_categorical=False)
    assert "(by source and run)" in capsys.readouterr().err
    assert cli.main(["read", *map(str, LOGS), "--table", "requests", "-o", f"{out}/", "--format", "parquet"]) == 2


def test_import_lbanalysis_does_not_import_dask():
    code = "import sys, lbanalysis; lbanalysis.read; print('dask' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
        == "False"
    )


def test_other_tables_and_buffers_are_refused_clearly():
    with pytest.raises(lbanalysis.LBAnalysisError, match="reads the requests table"):
        lbanalysis.read(LOGS, table="runs", engine="dask")
    with pytest.raises(lbanalysis.LBAnalysisError, match="engine must be"):
        lbanalysis.read(LOGS, engine="spark")


def test_explore_sections_on_dask_give_the_pandas_figures(client):
    from lbanalysis.report import explore

    paths = [FIXTURES / "stall", FIXTURES / "ab" / "ab_c10.txt"]
    on_pandas, on_dask = explore.load(paths), explore.load(paths, engine="dask")
    assert type(on_dask.requests).__module__.startswith("dask") and len(on_dask.runs) == len(on_pandas.runs)
    a, b = explore.tail_section(on_pandas), explore.tail_section(on_dask)
    pd.testing.assert_frame_equal(
        a.tables[0].sort_values("source").reset_index(drop=True),
        b.tables[0].sort_values("source").reset_index(drop=True),
    )
    assert a.text[0] == b.text[0]  # the same computed sentence
    ta, tb = explore.timeseries_section(on_pandas), explore.timeseries_section(on_dask)
    cols = ["source", "run", "seconds", "requests", "peak_req_per_s", "min_req_per_s", "latency_max_ms"]
    pd.testing.assert_frame_equal(
        ta.tables[0][cols].sort_values("source").reset_index(drop=True),
        tb.tables[0][cols].sort_values("source").reset_index(drop=True),
        check_dtype=False,
    )
    assert tb.text[0].startswith("Per-request logs read and aggregated on Dask")
