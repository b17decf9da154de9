"""Mutated real outputs: only the package's own errors, no hang, line endings and BOM change nothing.

Every small fixture is mutated the ways real files get damaged or pasted
(truncation, lines deleted, duplicated or swapped, numbers replaced by huge,
negative, NaN, empty or non-ASCII digits, NUL bytes, a 1 MB line, two files
spliced, CRLF, a byte-order mark). Reading any of them either gives frames or
raises an :class:`lbanalysis.LBAnalysisError`; none takes over 5 s.

CI runs a bounded number of examples (``LBANALYSIS_FUZZ_EXAMPLES``, default
300 per test); ``make fuzz`` runs 100,000.
"""

from __future__ import annotations

import io
import os
import re
import signal
from pathlib import Path

import pandas as pd
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import lbanalysis  # noqa: E402
from lbanalysis.analysis.tests import windows  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TEXTS = sorted(
    p
    for p in FIXTURES.rglob("*")
    if p.is_file() and p.suffix in (".txt", ".csv", ".tsv", ".json", ".log") and p.stat().st_size < 20_000
)
EXAMPLES = int(os.environ.get("LBANALYSIS_FUZZ_EXAMPLES", "300"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=EXAMPLES <= 1000,  # CI: the same examples every run; make fuzz: new ones
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
NUMBERS = ["99999999999999999999999", "-5", "nan", "", "١٢٣", "1e309", "0", "-0.0", "NaN"]


def _read(text: str):
    def alarm(signum, frame):
        raise TimeoutError("a reader took over 5 s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(5)
    try:
        return lbanalysis.read(io.StringIO(text), table="all")
    except lbanalysis.LBAnalysisError:
        return None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@st.composite
def mutated(draw) -> str:
    text = draw(st.sampled_from(TEXTS)).read_text(errors="replace")
    lines = text.split("\n")
    kind = draw(st.sampled_from(["truncate", "delete", "duplicate", "swap", "number", "nul", "long", "splice"]))
    i = draw(st.integers(0, max(0, len(lines) - 1)))
    j = draw(st.integers(0, max(0, len(lines) - 1)))
    if kind == "truncate":
        return text[: draw(st.integers(0, len(text)))]
    if kind == "delete":
        del lines[i]
    elif kind == "duplicate":
        lines.insert(i, lines[i])
    elif kind == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "number":
        import re

        nums = list(re.finditer(r"\d+(?:\.\d+)?", text))
        if nums:
            m = nums[draw(st.integers(0, len(nums) - 1))]
            return text[: m.start()] + draw(st.sampled_from(NUMBERS)) + text[m.end() :]
    elif kind == "nul":
        lines[i] = lines[i][: len(lines[i]) // 2] + "\x00" + lines[i][len(lines[i]) // 2 :]
    elif kind == "long":
        lines.insert(i, "x" * (1 << 20))
    elif kind == "splice":
        other = draw(st.sampled_from(TEXTS)).read_text(errors="replace").split("\n")
        lines = lines[:i] + other[j:]
    return "\n".join(lines)


@FUZZ
@given(mutated())
def test_mutated_outputs_raise_only_the_package_errors(text):
    _read(text)  # any other exception, or a TimeoutError, fails the test


@FUZZ
@given(st.sampled_from(TEXTS), st.booleans(), st.booleans())
def test_line_endings_and_bom_change_nothing(path, crlf, bom):
    text = path.read_text(errors="replace")
    plain = _read(text)
    changed = ("\ufeff" if bom else "") + (text.replace("\n", "\r\n") if crlf else text)
    other = _read(changed)
    if plain is None or other is None:
        assert plain is None and other is None
        return
    for name, frame in plain.tables.items():
        # equals first (the same frame, in a fraction of the time); the assertion, which says where, when it is not
        if not frame.equals(other.tables[name]):
            pd.testing.assert_frame_equal(frame, other.tables[name], check_exact=False, rtol=1e-12)


def test_integer_beyond_64_bits_in_a_detail_table_names_file_and_column():
    # found by the fuzz suite: an HAProxy counter beyond 64 bits raised OverflowError from the frame builder
    text = (FIXTURES / "haproxy" / "show_stat_after.csv").read_text().replace(",762,", ",99999999999999999999999,", 1)
    with pytest.raises(lbanalysis.ParseError, match=r"servers\.sessions_total = \d+ does not fit"):
        lbanalysis.read(io.StringIO(text), table="all")


def test_a_stray_reader_exception_becomes_a_parse_error():
    # found by the fuzz suite: a 1 MB line in an HAProxy CSV raised csv.Error (field larger than field limit)
    lines = (FIXTURES / "haproxy" / "show_stat_after.csv").read_text().split("\n")
    lines.insert(1, "x" * (1 << 20))
    with pytest.raises(lbanalysis.ParseError, match="could not read this haproxy-stat-csv output"):
        lbanalysis.read(io.StringIO("\n".join(lines)), table="all")


def test_a_duration_of_thousands_of_years_leaves_the_runs_window_empty():
    """A mutated rate makes a run last 15,000 years: its window is unknown (NaT), not a pandas overflow."""
    text = (Path(__file__).parent / "fixtures/locust/cpu/locust_cpu.txt").read_text()
    text = re.sub(r"(Aggregated\s.*\|\s+)[\d.]+(\s+[\d.]+\s*)$", r"\g<1>0.0000001\2", text, flags=re.M)
    ds = lbanalysis.read(io.StringIO(text), table="all")
    assert ds.runs["duration_s"][0] > 1e11 and ds.cpu["paired_by"].tolist() == ["same file"]
    w = windows(ds.runs)
    assert w["end"].isna().all() and w["start"].notna().all()
    assert lbanalysis.study(ds).verdicts["verdict"].notna().all()


def test_manifest_end_times_beside_ends_from_durations_keep_nanoseconds():
    """A manifest's end time (text: microseconds in pandas 3) beside a run whose end comes from its start and a
    duration to the nanosecond: the window holds both (it raised a lossless-cast error: a study of tests/fixtures
    failed on it)."""
    runs = pd.DataFrame({
        "source": ["a", "b"], "run": [0, 0],
        "timestamp": pd.to_datetime(["2026-11-27 10:00:00", "2026-11-27 10:00:00"]).astype("datetime64[ns]"),
        "end_time": ["2026-11-27 10:00:04", None], "duration_s": [4.0, 1.226138446],
    })  # fmt: skip
    w = windows(runs)
    assert str(w["end"].dtype) == "datetime64[ns]"
    assert w["end"].tolist() == [pd.Timestamp("2026-11-27 10:00:04"), pd.Timestamp("2026-11-27 10:00:01.226138446")]
    assert w["window_basis"].tolist() == ["start and end times (manifest)", "start time shown and duration"]


def test_a_time_with_a_damaged_year_is_empty_not_a_pandas_overflow():
    """A CPU sample stamped in year -5 (a mutated sweep CSV): that time is NaT, the others are read, in ns."""
    header = "time,host,role,scope,cores,interval_s,busy_pct,tool,run_source,run,paired_by\n"
    rows = [
        "-5-11-27 15:28:30.932741,vm,client,all,2.0,0.7,100.0,proc-stat,../001-ab-c1-r1.txt,0,name stem\n",
        "2026-11-27 15:28:30.932897,vm,client,all,2.0,0.7,100.0,proc-stat,../001-ab-c1-r1.txt,0,name stem\n",
    ]
    cpu = lbanalysis.read(io.StringIO(header + "".join(rows)), table="cpu")
    assert str(cpu["time"].dtype) == "datetime64[ns]"
    assert cpu["time"].isna().tolist() == [True, False]


def test_a_byte_order_mark_before_a_heading_leaves_it_a_heading():
    # found by the fuzz suite: a BOM before a README's first `### Apache benchmarking` hid that heading from its runs
    path = FIXTURES / "autobench" / "shapes" / "autobench_markdown_no_hosts.txt"
    text = path.read_text(encoding="utf-8")
    plain, marked = _read(text), _read("\ufeff" + text)
    assert plain.runs["heading"].iloc[0] == "Apache benchmarking"
    pd.testing.assert_frame_equal(plain.runs, marked.runs)


def test_a_travis_log_with_crlf_line_ends_reads_as_with_lf():
    # found by the fuzz suite: a CRLF line end after `travis_time:start:ID$ wrk ...` was taken for the CR that ends
    # a raw log's marker, and the command went with it
    text = (FIXTURES / "pasted" / "wrk_travis_log_copied.txt").read_text(encoding="utf-8")
    plain, crlf = _read(text), _read(text.replace("\n", "\r\n"))
    pd.testing.assert_frame_equal(plain.runs, crlf.runs)
    assert plain.runs["command"].iloc[0].startswith("wrk -t2")
