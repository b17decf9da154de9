"""A folder mixing every load generator (#25): it reads without a skipped file and is judged like any other.

The five newer tools (k6, Locust, vegeta, oha, bombardier) beside the older
ones (ab, siege, wrk, hey, gobench, iperf3, HAProxy statistics), all from
captured fixtures: each tool's figures are checked against what it printed in
its own test file; here the point is the whole folder, as a user has it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import lbanalysis
from lbanalysis.analysis.rules import VERDICTS
from tests.conftest import FIXTURES

NEW = ("k6", "locust", "vegeta", "oha", "bombardier")
#: Files of the older tools, copied beside the newer tools' folders (one series each, or a scenario).
OLDER = {
    "ab": ["scenarios/saturation/ab"],
    "hey": ["scenarios/errors-404/hey"],
    "wrk": ["scenarios/errors-404/wrk"],
    "siege": ["scenarios/loadgen/siege"],
    "iperf3": ["scenarios/network/ab"],  # its iperf3 files, with the ab runs they measured the path for
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mixed")
    for tool in NEW:
        shutil.copytree(FIXTURES / tool, root / tool)
    for tool, parts in OLDER.items():
        for part in parts:
            shutil.copytree(FIXTURES / part, root / tool / Path(part).name, dirs_exist_ok=True)
    return root


@pytest.fixture(scope="module")
def ds(folder):
    return lbanalysis.read(folder, table="all", errors="raise")


def test_the_mixed_folder_reads_without_a_skipped_file(ds):
    assert ds.skipped.empty, ds.skipped.to_dict("records")
    tools = set(ds.runs["tool"].astype(str))
    assert set(NEW) | {"ab", "hey", "wrk", "siege", "iperf3"} <= tools


def test_every_series_is_judged_and_each_new_tool_gets_a_verdict(ds):
    s = lbanalysis.study(ds)
    frame = s.summary_frame()
    assert set(frame["verdict"]) <= set(VERDICTS)
    assert frame["evidence"].str.len().gt(0).all()
    by_tool = s.verdicts.groupby("tool")["verdict"].agg(set)
    for tool in NEW:  # every new tool has a captured refused or error run: "errors", from its own counters
        assert "errors" in by_tool[tool], (tool, by_tool[tool])
    shares = s.runs["error_share"].dropna()
    assert ((shares >= 0) & (shares <= 1)).all()
    # the older tools' scenarios keep their labelled verdicts among the newer tools' runs
    v = s.verdicts.set_index("series")["verdict"]
    assert v[v.index.str.startswith("ab 127.0.0.1:18520/slow?ms=20")].tolist() == ["server saturation"]
    assert v[v.index.str.startswith("ab 127.0.0.1:18510/big.bin")].tolist() == ["network"]
    # siege -d 0.5: its users waited by design, as the labelled scenario now says (think time, #38)
    assert v[v.index.str.startswith("siege 127.0.0.1:18531")].tolist() == ["no bound reached"]
