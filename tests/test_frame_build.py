"""The fast builds of frames (issue #39) give what pandas' own constructors give, and share nothing a user can change.

A read builds its frames without pandas' inference and checks (``schema.categorical``, absent columns made in
blocks, the column index made once per list of names) and leaves the detail tables no file gave unbuilt until asked
for (``Dataset``): these tests hold that each is the same frame the slow way, and that one frame's change reaches no
other.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import lbanalysis
from lbanalysis import schema

AB = Path(__file__).resolve().parent / "fixtures" / "ab"


@pytest.mark.parametrize(
    "names",
    [["a.txt"], ["results/c8000.json", "results/c10000.json"], ["1", "2.5", "x"], ["été/ü.txt", "b"], ["", "a"]],
)
def test_categorical_is_pandas_own(names):
    codes = np.arange(len(names)).repeat(2)
    ours, theirs = schema.categorical(codes, names), pd.Categorical.from_codes(codes, categories=names)
    assert ours.dtype == theirs.dtype
    assert ours.categories.dtype == theirs.categories.dtype
    pd.testing.assert_series_equal(pd.Series(ours), pd.Series(theirs))


def test_absent_columns_are_missing_and_apart():
    cols, fills = schema.absent_columns("runs", ["source", "run"], 3)
    for fill in fills:
        fill()
    assert all(pd.isna(pd.array(v)).all() for v in cols.values())
    for name, column in cols.items():
        assert str(column.dtype) == schema.TABLES["runs"][name].dtype, name
    ids = [id(v) for v in cols.values()]
    assert len(set(ids)) == len(ids)  # an array each: none written through another


def _read(path: Path) -> lbanalysis.Dataset:
    return lbanalysis.read(path, table="all", errors="skip")  # the folder holds an error output on purpose


def test_a_change_to_one_read_reaches_no_other():
    first, second = _read(AB), _read(AB)
    absent = [c for c in schema.TABLES["runs"] if first.runs[c].isna().all()]
    strings = [c for c in absent if schema.TABLES["runs"][c].dtype == "string"][:2]
    ints = [c for c in absent if schema.TABLES["runs"][c].dtype == "Int64"][:2]
    assert len(strings) == 2 and len(ints) == 2
    first.runs.loc[0, strings[0]] = "changed"
    first.runs.loc[0, ints[0]] = 7
    for table in ("runs", "percentiles", "servers"):  # a frame's column index is its own: naming it names no other's
        first.tables[table].columns.name = "mine"
    assert first.runs[strings[1]].isna().all() and first.runs[ints[1]].isna().all()
    assert second.runs[strings[0]].isna().all() and second.runs[ints[0]].isna().all()
    for table in ("runs", "percentiles", "servers"):
        assert second.tables[table].columns.name is None and _read(AB).tables[table].columns.name is None


def test_a_table_no_file_gave_is_made_when_asked_for():
    ds = _read(AB / "ab_S.txt")
    assert ds.__dict__["_servers"] is None  # not built by the read
    pd.testing.assert_frame_equal(ds.servers, schema.empty("servers"))
    assert ds.servers is ds.servers  # made once
    assert len(ds.percentiles) and ds.__dict__["_percentiles"] is not None
    assert ds.tables["streams"].empty and list(ds.tables["streams"].columns) == list(schema.TABLES["streams"])
    pd.testing.assert_frame_equal(lbanalysis.read(AB / "ab_S.txt", table="servers"), schema.empty("servers"))


def test_a_frame_built_block_by_block_is_pandas_own_and_its_columns_apart():
    """The runs frame's blocks built as they are (one float block, each extension array its own): the frame the
    public constructor makes of the same arrays, and a change to one float column reaches no other."""
    from lbanalysis.schema import frames

    rows = [
        {"source": "a", "run": 0, "tool": "ab", "requests": 5, "requests_per_s": 1.5, "latency_mean_s": 0.2,
         "timestamp": pd.Timestamp("2026-12-03 06:00:00"), "keepalive": True},
        {"source": "b", "run": 1, "tool": "wrk", "requests_per_s": 2.5, "error": "refused"},
    ]  # fmt: skip
    built = schema.conform(rows, "runs")
    assert len(built._mgr.blocks) < len(built.columns)  # the float columns are one block
    arrays = {c: built[c].array for c in built.columns}
    pd.testing.assert_frame_equal(built, pd.DataFrame(arrays))
    absent, fills = frames.absent_columns("runs", ["source"], 2)
    for fill in fills:
        fill()
    assert frames._by_blocks(absent, 2) is not None  # the absent columns' kinds are all built so
    pd.testing.assert_frame_equal(frames._by_blocks(absent, 2), pd.DataFrame(absent))
    # the columns no table knows: objects (a reader's extra of mixed values), times with a zone, as pandas has them
    extras = {
        "o": np.array([{"k": 1}, "a"], dtype=object),
        "z": pd.array(pd.to_datetime(["2026-12-03 06:00Z", None], utc=True)),
        "i": np.array([1, 2]),
        "f": np.array([0.5, 1.5]),
    }
    mine = frames._by_blocks(extras, 2)
    pd.testing.assert_frame_equal(mine, pd.DataFrame(extras))
    assert mine.dtypes.astype(str).tolist() == ["object", "datetime64[us, UTC]", "int64", "float64"]
    assert frames._by_blocks({"x": np.array(["a"])}, 1) is None  # NumPy texts: pandas sorts them out
    built.loc[0, "requests_per_s"] = 9.0
    assert built["latency_mean_s"].tolist()[0] == 0.2 and built["requests_per_s"].tolist() == [9.0, 2.5]


def test_a_conformed_large_frame_shares_its_missing_columns_and_keeps_them_apart():
    """conform() of a frame of many rows gives every absent float column one array of NaN (and every datetime
    column one of NaT), shared through pandas' copy-on-write: a write to one column reaches no other, and the
    frame equals the one built with an array each."""
    n = 5_000
    given = pd.DataFrame({"source": ["a"] * n, "run": 0, "seq": np.arange(n), "latency_s": np.linspace(0, 1, n)})
    built = schema.conform(given, "requests")
    floats = [c for c, col in schema.TABLES["requests"].items() if col.dtype == "float64" and c not in given]
    assert len(floats) >= 3
    assert np.shares_memory(built[floats[0]].to_numpy(), built[floats[1]].to_numpy())
    apart, fills = schema.absent_columns("requests", given.columns, n)
    for fill in fills:
        fill()
    pd.testing.assert_frame_equal(built[floats], pd.DataFrame({c: apart[c] for c in floats}))
    built.loc[built["latency_s"] > 0.5, floats[0]] = 1.0
    built[floats[1]] = built[floats[1]].fillna(2.0)
    assert built[floats[2:]].isna().all().all() and built["logged"].isna().all()
    assert (built[floats[0]] == 1.0).sum() == (given["latency_s"] > 0.5).sum()
    assert schema.conform(given, "requests")[floats].isna().all().all()


def test_several_g_logs_read_as_one_share_the_columns_none_fills_and_equal_a_plain_concat(tmp_path):
    """ab -g logs of one folder: the requests columns ab never fills are not copied into the joined frame but made
    once, shared (copy-on-write keeps a write to one from the others); the frame is the one a plain pandas concat
    of each file's read gives."""
    files = []
    for k in range(3):  # 3,000 rows: a frame conform gives shared missing columns
        files.append(tmp_path / f"c{k}.tsv")
        files[-1].write_bytes((AB / "ab_gnuplot.tsv").read_bytes())
    whole = lbanalysis.read(tmp_path, table="requests")
    each = [lbanalysis.read(str(p), table="requests") for p in files]
    pd.testing.assert_frame_equal(whole, schema.conform(pd.concat(each, ignore_index=True), "requests"))
    pd.testing.assert_frame_equal(whole, lbanalysis.read(tmp_path, table="all").requests)
    blank = schema.missing_in_all(each, schema.TABLES["requests"])
    floats = [c for c in blank if schema.TABLES["requests"][c].dtype == "float64"]
    assert len(floats) >= 3 and "latency_s" not in blank and "start" not in blank
    assert np.shares_memory(whole[floats[0]].to_numpy(), whole[floats[1]].to_numpy())
    whole.loc[0, floats[0]] = 1.0
    assert whole[floats[1:]].isna().all().all() and whole[floats[0]].notna().sum() == 1
    assert lbanalysis.read(tmp_path, table="requests")[floats[0]].isna().all()
    # a value in one part's column keeps that column, however the parts' columns are laid out
    each[1].loc[5, floats[0]] = 2.0
    assert floats[0] not in schema.missing_in_all(each, floats) and floats[1] in schema.missing_in_all(each, floats)
    assert schema.missing_in_all([each[0].copy()], floats) == floats  # its own arrays (a block each, or one)
