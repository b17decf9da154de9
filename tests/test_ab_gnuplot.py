"""ab -g files: the chunked, parallel reader gives the same frame as a plain stable sort."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import lbanalysis
from lbanalysis.errors import ParseError
from lbanalysis.readers.ab import gnuplot as ab_gnuplot

from .conftest import FIXTURES

AB = FIXTURES / "ab"
HEADER = "starttime\tseconds\tctime\tdtime\tttime\twait\n"


def write(path, secs, rows=None, newline="\n"):
    """A -g file in ab's layout: lines sorted by total time, so starts are out of order."""
    rng = np.random.default_rng(len(secs))
    ctime = rng.integers(0, 3, len(secs))
    dtime = rng.integers(0, 40, len(secs))
    lines = [
        f"Sun Nov 22 12:53:44 2026\t{s}\t{c}\t{d}\t{c + d}\t{max(d - 1, 0)}"
        for s, c, d in sorted(zip(secs, ctime, dtime, strict=True), key=lambda r: r[1] + r[2])
    ]
    path.write_bytes((HEADER + "\n".join(lines + (rows or [])) + "\n").replace("\n", newline).encode())
    return path


def expected(path) -> pd.DataFrame:
    """The requests frame built the slow, obvious way."""
    raw = pd.read_csv(path, sep="\t")
    raw = raw.iloc[np.argsort(raw["seconds"].to_numpy(), kind="stable")].reset_index(drop=True)
    start = pd.to_datetime(raw["seconds"], unit="s").astype("datetime64[ns]")
    return pd.DataFrame(
        {
            "seq": pd.array(range(len(raw)), dtype="Int64"),
            "start": start,
            "start_s": (raw["seconds"] - raw["seconds"].min()).astype(float),
            "connect_s": raw["ctime"] / 1000,
            "processing_s": raw["dtime"] / 1000,
            "waiting_s": raw["wait"] / 1000,
            "latency_s": raw["ttime"] / 1000,
        }
    )


@pytest.mark.parametrize("span", [1, 60, 300, 70_000])  # 8-bit, 16-bit and wide second keys
@pytest.mark.parametrize("chunks", [1, 2, 3, 7])
def test_chunked_read_is_a_stable_sort_by_start(tmp_path, span, chunks):
    secs = (1_795_352_000 + np.random.default_rng(span).integers(0, span, 5000)).tolist()
    path = write(tmp_path / "g.tsv", secs)
    got = ab_gnuplot.parse_path(path, "g.tsv", chunks=chunks)
    req = got.tables["requests"]
    assert_frame_equal(req[list(expected(path).columns)], expected(path))
    assert req["run"].eq(0).all() and req[["status", "bytes", "method", "url"]].isna().all().all()
    run = got.runs[0]
    assert run["requests"] == 5000
    assert run["timestamp"] == pd.Timestamp(min(secs), unit="s")
    assert run["latency_mean_s"] == pytest.approx(expected(path)["latency_s"].mean(), rel=1e-12)
    assert run["latency_max_s"] == expected(path)["latency_s"].max()


def test_file_and_text_paths_agree(tmp_path):
    path = write(tmp_path / "g.tsv", [1_795_352_000 + i % 7 for i in range(20_000)])  # > 64 KiB: fast path
    from_file = lbanalysis.read(path, table="all")
    from_text = lbanalysis.read(__import__("io").StringIO(path.read_text()), table="all")
    assert_frame_equal(from_file.requests.drop(columns="source"), from_text.requests.drop(columns="source"))
    assert from_file.runs.loc[0, "format"] == from_text.runs.loc[0, "format"] == "ab-gnuplot"


def test_crlf_and_byte_order_mark(tmp_path):
    path = tmp_path / "g.tsv"
    write(path, [1_795_352_000 + i % 3 for i in range(30_000)], newline="\r\n")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    req = lbanalysis.read(path, table="requests")
    assert len(req) == 30_000 and req["start"].is_monotonic_increasing


@pytest.mark.parametrize("chunks", [1, 3])
def test_bad_line_is_named(tmp_path, chunks):
    secs = [1_795_352_000 + i % 5 for i in range(3000)]
    path = write(tmp_path / "g.tsv", secs, rows=["Sun Nov 22 12:53:44 2026\t1795352000\t0\tx\t1\t1"])
    with pytest.raises(ParseError) as e:
        ab_gnuplot.parse_path(path, "g.tsv", chunks=chunks)
    assert e.value.line == 3002 and "g.tsv:3002" in str(e.value) and "whole numbers" in str(e.value)


def test_blank_lines_are_passed_over_and_not_blamed(tmp_path):
    secs = [1_795_352_000 + i % 5 for i in range(100)]
    rows = ["", "Sun Nov 22 12:53:44 2026\t1795352001\t0\t1\t1\t0", "Sun Nov 22 12:53:44 2026\t17x\t0\t1\t1\t0"]
    path = write(tmp_path / "g.tsv", secs, rows=rows)
    with pytest.raises(ParseError) as e:
        ab_gnuplot.parse_path(path, "g.tsv", chunks=2)
    assert e.value.line == 104
    path = write(tmp_path / "ok.tsv", secs, rows=rows[:2])
    assert len(ab_gnuplot.parse_path(path, "ok.tsv", chunks=2).tables["requests"]) == 101


def test_short_line_is_named(tmp_path):
    path = write(tmp_path / "g.tsv", [1_795_352_000] * 10, rows=["Sun Nov 22 12:53:44 2026\t1795352000\t0"])
    with pytest.raises(ParseError, match=r"g.tsv:12: .*expected 6 tab-separated fields, found 3"):
        ab_gnuplot.parse_path(path, "g.tsv", chunks=2)


@pytest.mark.parametrize("chunks", [1, 2])
def test_times_beyond_int32_are_read(tmp_path, chunks):
    path = write(tmp_path / "g.tsv", [1_795_352_000 + i % 3 for i in range(1000)])
    with path.open("a") as fh:
        fh.write("Sun Nov 22 12:53:44 2026\t1795352001\t0\t3000000000\t3000000000\t0\n")
    req = ab_gnuplot.parse_path(path, "g.tsv", chunks=chunks).tables["requests"]
    assert req["latency_s"].max() == 3_000_000.0 and len(req) == 1001


def test_header_only_file_is_a_run_without_requests(tmp_path):
    path = tmp_path / "g.tsv"
    path.write_text(HEADER)
    ds = lbanalysis.read(path, table="all")
    assert ds.runs.loc[0, "requests"] == 0 and len(ds.requests) == 0
    assert ab_gnuplot.parse_path(path, "g.tsv", chunks=3).runs[0]["requests"] == 0


def test_captured_fixture_through_the_parallel_path():
    path = AB / "ab_gnuplot.tsv"
    for chunks in (1, 4):
        req = ab_gnuplot.parse_path(path, "x", chunks=chunks).tables["requests"]
        assert_frame_equal(req[list(expected(path).columns)], expected(path))


def test_threads_reading_at_once_each_get_the_same_frames(tmp_path):
    paths = [write(tmp_path / f"g{i}.tsv", (1_795_352_000 + np.arange(3000) % (7 + i)).tolist()) for i in range(4)]
    with ThreadPoolExecutor(4) as ex:
        got = list(ex.map(lambda p: ab_gnuplot.parse_path(p, p.name, chunks=3).tables["requests"], paths * 2))
    for p, req in zip(paths * 2, got, strict=True):
        assert_frame_equal(req[list(expected(p).columns)], expected(p))


@pytest.mark.parametrize("chunks", [2, 7])
def test_the_callers_pool_gives_the_same_frame(tmp_path, chunks):
    path = write(tmp_path / "g.tsv", (1_795_352_000 + np.random.default_rng(3).integers(0, 90, 6000)).tolist())
    with ThreadPoolExecutor(2) as pool:
        got = [ab_gnuplot.parse_path(path, "g.tsv", chunks=chunks, executor=pool) for _ in range(2)]
        assert pool.submit(lambda: 1).result() == 1  # still open: the reader does not shut the caller's pool
    plain = ab_gnuplot.parse_path(path, "g.tsv", chunks=chunks)
    for g in got:
        assert_frame_equal(g.tables["requests"], plain.tables["requests"])
        assert g.runs == plain.runs


class CountingPool(ThreadPoolExecutor):
    """A thread pool that counts the tasks it was given."""

    tasks = 0

    def submit(self, fn, /, *args, **kwargs):
        self.tasks += 1
        return super().submit(fn, *args, **kwargs)


def test_read_takes_a_kept_thread_pool(tmp_path):
    # past read()'s first look (1 MiB) and the split threshold: read from disk in byte ranges
    path = write(tmp_path / "g.tsv", (1_795_352_000 + np.arange(160_000) % 97).tolist())
    assert path.stat().st_size > ab_gnuplot._CHUNK_MIN_BYTES
    with CountingPool(2) as pool:
        got = lbanalysis.read(path, table="requests", executor=pool)
    assert pool.tasks > 0
    assert_frame_equal(got, lbanalysis.read(path, table="requests"))
    assert_frame_equal(got[list(expected(path).columns)], expected(path))


def test_read_refuses_a_process_pool_as_executor(tmp_path):
    from concurrent.futures import ProcessPoolExecutor

    path = write(tmp_path / "g.tsv", [1_795_352_000] * 10)
    with ProcessPoolExecutor(1) as pool, pytest.raises(lbanalysis.LBAnalysisError, match="ThreadPoolExecutor"):
        lbanalysis.read(path, table="requests", executor=pool)


def _read_in_child(path) -> None:
    os._exit(0 if len(ab_gnuplot.parse_path(path, "g.tsv", chunks=2).tables["requests"]) == 2000 else 1)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_child_starts_its_own_threads(tmp_path):
    # Nothing is kept between reads: a child forked after one starts threads of its own and does not hang.
    path = write(tmp_path / "g.tsv", (1_795_352_000 + np.arange(2000) % 5).tolist())
    assert len(ab_gnuplot.parse_path(path, "g.tsv", chunks=2).tables["requests"]) == 2000
    assert _exit_of_forked(_read_in_child, path) == 0


def _exit_of_forked(target, path) -> int:
    """The exit code of ``target(path)`` in a forked child; the test fails if the child hangs."""
    child = multiprocessing.get_context("fork").Process(target=target, args=(path,))
    child.start()
    child.join(timeout=60)
    if child.is_alive():
        child.kill()
        child.join()
        pytest.fail(f"the forked child hung reading {path.name}")
    return child.exitcode


def _reader_threads() -> list:
    import threading

    return [t for t in threading.enumerate() if t.name.startswith("lbanalysis-ab-g")]


def test_no_reader_threads_are_kept_between_files(tmp_path):
    # threads live only inside the call that parses a large file in ranges: nothing is
    # left for a fork (read(..., workers=N)) to copy, and no process-wide state is kept
    paths = [write(tmp_path / f"g{i}.tsv", (1_795_352_000 + np.arange(1000) % 3).tolist()) for i in range(3)]
    req = ab_gnuplot.parse_path(paths[0], "g0.tsv", chunks=2).tables["requests"]
    assert_frame_equal(req[list(expected(paths[0]).columns)], expected(paths[0]))
    assert not _reader_threads()
    forked = []
    os.register_at_fork(before=lambda: forked.append(len(_reader_threads())))
    runs = lbanalysis.read(paths, workers=2)
    assert forked and set(forked) == {0}
    assert runs["requests"].tolist() == [1000] * 3
    assert not _reader_threads()


def test_several_workers_leave_a_large_log_to_this_process(tmp_path, monkeypatch):
    """With workers > 1, a large -g log is parsed here, on threads, while the workers read the text outputs: its
    rows are not pickled back from a worker. The result is the one worker's."""
    import dataclasses
    import shutil

    from lbanalysis import files

    big = write(tmp_path / "g.tsv", (1_795_352_000 + np.arange(20_000) % 9).tolist())
    small = write(tmp_path / "small.tsv", [1_795_352_000, 1_795_352_001])
    for i in range(6):
        shutil.copy(AB / "ab_c10.txt", tmp_path / f"c10-{i}.txt")
    assert big.stat().st_size > files.HEAD
    assert files._read_away((files.Item(str(big), "g.tsv", "g.tsv"), None, None, None)) is None  # left here
    assert files._read_away((files.Item(str(small), "small.tsv", "small.tsv"), None, None, None)) is not None
    assert files._read_away((files.Item(str(AB / "ab_c10.txt"), "c", "c"), None, None, None)) is not None
    one = lbanalysis.read(tmp_path, table="all")

    pids = tmp_path.parent / f"{tmp_path.name}-pids.txt"
    path_format = files.path_format

    def recorded(head, tool):
        f = path_format(head, tool)
        if f is None:
            return None

        def parse_path(*args, **kwargs):
            with open(pids, "a") as fh:
                fh.write(f"{os.getpid()}\n")
            return f.parse_path(*args, **kwargs)

        return dataclasses.replace(f, parse_path=parse_path)

    monkeypatch.setattr(files, "path_format", recorded)  # forked workers inherit it, if they read the log
    two = lbanalysis.read(tmp_path, table="all", workers=2)
    assert pids.read_text().split() == [str(os.getpid())]
    for name in ("runs", "requests", "percentiles", "phases"):
        assert_frame_equal(getattr(one, name), getattr(two, name))


def test_run_row_only_when_no_requests_table_is_asked_for(tmp_path):
    path = write(tmp_path / "g.tsv", (1_795_352_000 + np.arange(500) % 4).tolist())
    lean = ab_gnuplot.parse_path(path, "g.tsv", frozenset(), chunks=2)
    full = ab_gnuplot.parse_path(path, "g.tsv", None, chunks=2)
    assert lean.runs == full.runs and "requests" not in lean.tables and len(full.tables["requests"]) == 500


def _large(tmp_path, name="big.tsv", rows=None, span=97):
    """A -g file above the split threshold (the reader's large-file path)."""
    path = write(tmp_path / name, (1_795_352_000 + np.arange(110_000) % span).tolist(), rows=rows)
    assert path.stat().st_size > ab_gnuplot._CHUNK_MIN_BYTES
    return path


def test_large_file_read_in_any_number_of_ranges_is_the_same_frame(tmp_path):
    path = _large(tmp_path)
    default = ab_gnuplot.parse_path(path, "big.tsv")  # a range per core
    for chunks in (1, 2, 3, 7):
        ranged = ab_gnuplot.parse_path(path, "big.tsv", chunks=chunks)
        assert_frame_equal(default.tables["requests"], ranged.tables["requests"])
        assert default.runs == ranged.runs
    assert_frame_equal(default.tables["requests"][list(expected(path).columns)], expected(path))


@pytest.mark.parametrize(
    "row, named",
    [
        ("Sun Nov 22 12:53:44 2026\t1795352000\t0\tx\t1\t1", "whole numbers"),
        ("Sun Nov 22 12:53:44 2026\t1795352000\t0", "found 3"),
        ("Sun Nov 22 12:53:44 2026\t1795352000\t0\t\t1\t1", "whole numbers"),
    ],
)
def test_large_file_bad_line_is_still_named(tmp_path, row, named):
    # the range that holds the line fails; a plain scan then names it
    path = _large(tmp_path, rows=[row])
    with pytest.raises(ParseError, match=named) as e:
        ab_gnuplot.parse_path(path, "big.tsv")
    assert e.value.line == 110_002


def test_large_file_with_crlf_and_byte_order_mark_reads_the_same(tmp_path):
    plain = _large(tmp_path)
    path = write(tmp_path / "crlf.tsv", (1_795_352_000 + np.arange(110_000) % 97).tolist(), newline="\r\n")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert_frame_equal(
        ab_gnuplot.parse_path(path, "crlf.tsv").tables["requests"],
        ab_gnuplot.parse_path(plain, "big.tsv").tables["requests"],
    )


def test_large_file_times_beyond_int32_are_read(tmp_path):
    path = _large(tmp_path, rows=["Sun Nov 22 12:53:44 2026\t1795352001\t0\t3000000000\t3000000000\t0"])
    req = ab_gnuplot.parse_path(path, "big.tsv").tables["requests"]
    assert req["latency_s"].max() == 3_000_000.0 and len(req) == 110_001


def test_large_file_without_pyarrow_reads_the_same(tmp_path, monkeypatch):
    # pyarrow holds the absent string columns when it is there; without it they are built the slow way
    import builtins

    path = _large(tmp_path)
    with_arrow = ab_gnuplot.parse_path(path, "big.tsv")
    real_import = builtins.__import__

    def no_arrow(name, *args, **kwargs):
        if name.startswith("pyarrow"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_arrow)
    assert_frame_equal(ab_gnuplot.parse_path(path, "big.tsv").tables["requests"], with_arrow.tables["requests"])


def _read_large_in_child(path) -> None:
    os._exit(0 if len(ab_gnuplot.parse_path(path, "big.tsv").tables["requests"]) == 110_000 else 1)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_child_reads_a_large_file_after_its_parent(tmp_path):
    # the threads of a large file's read stop with it; a child forked after one reads again and does not hang
    path = _large(tmp_path)
    assert len(ab_gnuplot.parse_path(path, "big.tsv").tables["requests"]) == 110_000
    assert _exit_of_forked(_read_large_in_child, path) == 0


def _set(indexer, key, value):
    return lambda df: getattr(df, indexer).__setitem__(key, value)


@pytest.mark.parametrize(
    "write_one",
    [
        lambda df: df.__setitem__("dns_s", df["dns_s"].fillna(1.0)),
        _set("loc", (0, "dns_s"), 1.0),
        lambda df: df.iloc.__setitem__((1, df.columns.get_loc("dns_s")), 2.0),
        lambda df: df.loc.__setitem__((df["latency_s"] >= 0, "dns_s"), 3.0),
        lambda df: df.fillna({"dns_s": 4.0}, inplace=True),
        _set("loc", (0, "logged"), pd.Timestamp(0)),
    ],
    ids=["setitem", "loc", "iloc", "mask", "fillna-inplace", "datetime"],
)
def test_absent_columns_are_written_one_at_a_time(tmp_path, write_one):
    """The float (and datetime) columns ab does not fill share one array of NaN (NaT): a write to one, of
    any kind a user makes, changes that column only, in this frame and in a second read."""
    path = _large(tmp_path)
    df = lbanalysis.read(path, table="requests")
    floats = [c for c in df.columns if df[c].dtype == "float64" and df[c].isna().all()]
    assert {"dns_s", "tls_s", "first_byte_s"} <= set(floats)
    write_one(df)
    changed = [c for c in [*floats, "logged"] if not df[c].isna().all()]
    assert len(changed) == 1 and changed[0] in ("dns_s", "logged")
    again = lbanalysis.read(path, table="requests")
    assert all(again[c].isna().all() for c in [*floats, "logged"])
