"""Published tables: article 003's results table, article 004's printed list, and the reader's rules."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import lbanalysis as lb
from articles import haproxy_apache_siege, paths
from lbanalysis import tables
from lbanalysis.errors import LBAnalysisError, ParseError
from lbanalysis.reader import DEFAULT_IGNORE

SIEGE = paths.raw("haproxy-apache-siege")
LBBENCH = paths.raw("lbbench")
MO = 2**20


@pytest.fixture(scope="module")
def siege() -> pd.DataFrame:
    return haproxy_apache_siege.TABLE.read(SIEGE / "results.csv")


# ------------------------------------------------------- article 003 ---
def test_siege_table_long_form(siege):
    # 8 groups of 3 printed rows; the 140 group has the two-server half only
    assert len(siege) == 7 * 3 + 8 * 3
    assert siege.groupby("servers").size().to_dict() == {1: 21, 2: 24}
    assert siege["run"].tolist() == list(range(45))
    assert set(siege.loc[siege["servers"] == 1, "concurrency"]) == {10, 20, 40, 60, 80, 100, 120}
    assert sorted(siege.loc[siege["servers"] == 2, "concurrency"].unique()) == [10, 20, 40, 60, 80, 100, 120, 140]


def test_siege_first_run_as_printed(siege):
    row = siege.iloc[0]
    assert (row["servers"], row["concurrency"], row["requests"]) == (1, 10, 9585)
    assert row["latency_mean_s"] == 0.09
    assert row["latency_min_s"] == 0.02
    assert row["latency_max_s"] == 0.35
    assert row["bytes_per_s"] == pytest.approx(4.12 * MO, rel=1e-15)
    assert row["line"] == 2 and row["row_in_group"] == 1 and row["row_kind"] == "run"


def test_siege_decimal_commas_and_units(siege):
    two = siege[siege["servers"] == 2].set_index(["concurrency", "row_in_group"])
    assert two.loc[(140, 1), "requests"] == 14473
    assert two.loc[(140, 1), "latency_mean_s"] == 0.87
    assert two.loc[(140, 1), "bytes_per_s"] / MO == pytest.approx(5.58)
    assert two.loc[(60, 2), "latency_max_s"] == 8.02
    assert str(siege["requests"].dtype) == "Int64"
    assert str(siege["latency_mean_s"].dtype) == "float64"


def test_siege_fill_down_and_row_kinds(siege):
    one = siege[siege["servers"] == 1]
    assert one["concurrency"].tolist()[:6] == [10, 10, 10, 20, 20, 20]
    assert one["row_kind"].tolist()[:3] == ["run", "run", "mean"]
    assert (siege.groupby(["servers", "concurrency"])["row_kind"].agg(tuple) == ("run", "run", "mean")).all()


def test_siege_manifest_applied(siege):
    assert (siege["tool"] == "siege").all()
    assert (siege["format"] == "table").all()
    assert (siege["apache_maxclients"] == 30).all()
    assert siege["source"].str.endswith("results.csv").all()


def test_siege_round_trip_equals_the_csv(siege):
    printed = tables.as_printed(siege)
    original = pd.read_csv(SIEGE / "results.csv", sep=";", decimal=",")
    original["flux"] = original["flux"].ffill()
    assert list(printed.columns) == list(original.columns)
    np.testing.assert_allclose(
        printed.to_numpy(dtype=float, na_value=np.nan), original.to_numpy(dtype=float), rtol=1e-12, equal_nan=True
    )


def test_siege_printed_means_are_means_of_the_runs(siege):
    checks = tables.check_printed_means(siege, by=["servers", "concurrency"])
    assert len(checks) == 15 * 5  # SOURCE.md: 75 cells
    assert checks["agrees"].all()
    assert (checks["n_runs"] == 2).all()
    one_10 = checks[(checks["servers"] == 2) & (checks["concurrency"] == 10) & (checks["column"] == "requests")]
    assert one_10[["mean_of_runs", "printed_mean"]].iloc[0].tolist() == [15289.5, 15290.0]


def test_printed_mean_off_by_more_than_rounding_disagrees(siege):
    broken = siege.copy()
    broken.loc[2, "requests"] = 9613  # printed 9611 = (9585 + 9637) / 2
    checks = tables.check_printed_means(broken, by=["servers", "concurrency"], columns=["requests"])
    assert checks["agrees"].tolist().count(False) == 1


def test_spec_agrees_with_columns_csv():
    """columns.csv (the raw folder's own description) and the column map say the same."""
    described = pd.read_csv(SIEGE / "columns.csv").set_index("name")
    spec = haproxy_apache_siege.TABLE
    for servers, cmap in spec.blocks.items():
        for name, (target, unit) in cmap.items():
            assert described.loc[name, "servers"] == servers
            si, factor = tables.UNITS[unit.strip("()")]
            if described.loc[name, "unit"] == "MiB/s":
                assert (target, si, factor) == ("bytes_per_s", "B/s", MO)
            elif described.loc[name, "unit"] == "s":
                assert target.startswith("latency_") and si == "s" and factor == 1
            else:
                assert described.loc[name, "unit"] == "transactions" and target == "requests"


# ------------------------------------------------------ reader rules ---
def read(text: str, columns, **kw) -> pd.DataFrame:
    return tables.read_table(io.StringIO(text), columns, **kw)


def test_decimal_comma_and_thousands():
    t = read("a;b\n1 234,5;0,25\n", {"a": "requests_per_s", "b": ("latency_mean_s", "ms")}, sep=";", decimal=",",
             thousands=" ")  # fmt: skip
    assert t.loc[0, "requests_per_s"] == 1234.5
    assert t.loc[0, "latency_mean_s"] == pytest.approx(0.25e-3)


def test_dot_with_comma_decimal_is_an_error():
    with pytest.raises(ParseError, match=r"has a '\.' but the decimal mark is ','") as e:
        read("a;b\n1;2.5\n", {"a": "concurrency", "b": "requests_per_s"}, sep=";", decimal=",")
    assert e.value.line == 2


def test_not_a_number_names_line_and_column():
    with pytest.raises(ParseError, match="column 'b': not a number: 'n/a'") as e:
        read("a,b\n1,2\n3,n/a\n", {"a": "concurrency", "b": "requests_per_s"})
    assert e.value.line == 3


def test_unknown_unit():
    with pytest.raises(LBAnalysisError, match="unknown unit 'furlongs'"):
        read("a\n1\n", {"a": ("duration_s", "furlongs")})


def test_unit_must_match_the_schema():
    with pytest.raises(LBAnalysisError, match="unit 'MO/sec' gives B/s, but 'latency_mean_s' is in s"):
        read("a\n1\n", {"a": ("latency_mean_s", "MO/sec")})


def test_missing_column():
    with pytest.raises(ParseError, match="no column\\(s\\) 'c' in the table; it has: a, b"):
        read("a,b\n1,2\n", {"a": "concurrency", "c": "requests"})


def test_row_kinds_too_short():
    with pytest.raises(ParseError, match="more rows than row_kinds") as e:
        read("g,x\n1,5\n,6\n,7\n", {"g": "concurrency", "x": "requests"}, fill_down=["g"], row_kinds=["run", "run"])
    assert e.value.line == 4


def test_block_with_all_cells_empty_gives_no_row():
    text = "n;a;a2\n10;1;2\n20;;3\n"
    t = read(text, {"n": "concurrency"}, blocks={"x": {"a": "requests"}, "y": {"a2": "requests"}},
             block_column="side", sep=";")  # fmt: skip
    assert t[["side", "concurrency", "requests"]].values.tolist() == [["x", 10, 1], ["y", 10, 2], ["y", 20, 3]]


def test_text_columns_and_unknown_columns():
    t = read("setup,note,n\nweb-1,fast,3\n", {"setup": "label", "note": "comment", "n": "extra_count"})
    assert t.loc[0, "label"] == "web-1"
    assert t.loc[0, "comment"] == "fast"  # not in the schema, not numbers: kept as text
    assert t.loc[0, "extra_count"] == 3.0
    assert t.attrs["resolution"] == {"extra_count": 1.0}


def test_buffer_source_and_no_manifest():
    t = read("a\n1\n", {"a": "concurrency"})
    assert t.loc[0, "source"] == "<buffer>"
    assert t.loc[0, "line"] == 2


def test_explicit_manifest_frame(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("a\n1\n2\n")
    m = pd.DataFrame({"file": ["t.csv"], "tool": ["siege"], "setup": ["lab"], "_dir": [str(tmp_path)]})
    t = tables.read_table(f, {"a": "concurrency"}, manifest=m)
    assert t["tool"].tolist() == ["siege", "siege"] and t["setup"].tolist() == ["lab", "lab"]
    assert "_abs" not in t.columns


def test_no_such_file(tmp_path):
    with pytest.raises(LBAnalysisError, match="no such file"):
        tables.read_table(tmp_path / "nope.csv", {"a": "concurrency"})


def test_as_printed_needs_a_column_map():
    with pytest.raises(LBAnalysisError, match="no column map"):
        tables.as_printed(pd.DataFrame({"line": [2]}))


# ------------------------------------------------------- article 004 ---
@pytest.fixture(scope="module")
def figures() -> pd.DataFrame:
    return tables.read_figures(LBBENCH / "figures.txt")


@pytest.fixture(scope="module")
def lbbench_runs() -> pd.DataFrame:
    return lb.read(LBBENCH, pattern="{setup}/{mode}", ignore=(*DEFAULT_IGNORE, "figures.txt"))


def test_figures_tidy(figures):
    assert len(figures) == 58
    assert list(figures.columns) == ["setup", "mode", "run", "requests_per_s", "order"]
    assert figures.iloc[0].tolist() == ["shared-1-cpu-1-ram", "haproxy-2", 0, 836.55, 0]
    assert figures.iloc[1]["requests_per_s"] == 780.21
    last = figures[(figures["setup"] == "compute-32-cpu-64-ram") & (figures["mode"] == "haproxy-16")]
    assert last["requests_per_s"].tolist() == [18446.09, 17429.7]
    assert figures.groupby(["setup", "mode"]).size().eq(2).all()
    assert figures["setup"].nunique() == 8


def test_figures_equal_the_raw_files(figures, lbbench_runs):
    checked = tables.check_figures(figures, lbbench_runs)
    assert len(checked) == 58 and checked["equal"].all()
    assert checked[["setup", "mode", "run"]].equals(figures[["setup", "mode", "run"]])  # printed order
    assert list(checked.columns[:6]) == ["setup", "mode", "run", "printed", "read", "equal"]
    assert checked["vcpus"].iloc[-1] == 32  # manifest columns come along


def test_figures_check_catches_a_difference(figures, lbbench_runs):
    changed = lbbench_runs.copy()
    changed.loc[changed["requests_per_s"] == 2455.9, "requests_per_s"] = 2455.0
    with pytest.raises(LBAnalysisError, match=r"setup=shared-1-cpu-1-ram mode=node run=1: printed 2455\.9, read 2455"):
        tables.check_figures(figures, changed)
    loose = tables.check_figures(figures, changed, strict=False)
    assert (~loose["equal"]).sum() == 1


def test_figures_check_catches_missing_and_extra_runs(figures, lbbench_runs):
    with pytest.raises(LBAnalysisError, match="no run read"):
        tables.check_figures(figures, lbbench_runs.iloc[1:])
    with pytest.raises(LBAnalysisError, match="not printed"):
        tables.check_figures(figures.iloc[1:], lbbench_runs)


def test_read_figures_other_levels():
    t = tables.read_figures(io.StringIO("[['a', [1, 2.5]], ['b', []]]"), levels=["host"], value="bits_per_s")
    assert t.to_dict("list") == {"host": ["a", "a"], "run": [0, 1], "bits_per_s": [1.0, 2.5], "order": [0, 1]}


@pytest.mark.parametrize(
    "text, message",
    [
        ("[['a', [1, 2]", "not a Python literal"),
        ("[['a', [['m', [1, 'x']]]]]", "expected a list of numbers at a/m"),
        ("[['a', [1, 2]]]", r"expected \[mode, \[...\]\] at a"),
        ("{'a': 1}", r"expected a list of \[setup, \.\.\.\] pairs at the top level"),
        ("__import__('os').system('true')", "not a Python literal"),
    ],
)
def test_read_figures_errors(text, message):
    with pytest.raises(ParseError, match=message):
        tables.read_figures(io.StringIO(text))
