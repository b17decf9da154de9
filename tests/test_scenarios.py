"""Ground truth: labelled scenarios whose bound is known by construction.

``tests/fixtures/scenarios/`` holds series captured live by
``tests/fixtures/capture/capture_scenarios.sh`` (a shaped link, HAProxy
``maxconn`` before a fixed service time, siege think time, refused / 503 /
404, a healthy series, and two origins targeting one URL), and
``LABELS.csv`` says what bounded each one, and which resource was used up
(``expected_resource``: a name of ``rules.RESOURCES``, or empty). A labelled
folder holds one series, or several told apart by ``series`` (the tool, the
first word of the series name, or a part of it such as the port: the
client-cpu folder holds ab, hey and wrk against one nginx); the whole
scenario folder is read, so a series that pools the labelled folder with a
sibling one is caught.

A wrong confident verdict fails; "cannot tell" passes only where the label
allows it. Where the engine is wrong the test is marked ``xfail`` (strict)
with what it says (``TODAY``), so that fixing the engine turns it into a pass.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd
import pytest

import lbanalysis
from lbanalysis.analysis.engine import series_load
from lbanalysis.analysis.rules import RESOURCES
from lbanalysis.analysis.series import assign_series
from lbanalysis.capacity import link_capacity

SCENARIOS = Path(__file__).resolve().parent / "fixtures" / "scenarios"
LABELS = pd.read_csv(
    SCENARIOS / "LABELS.csv", dtype={"cannot_tell_allowed": str, "series": str, "expected_resource": str}
).fillna({"series": "", "expected_resource": ""})
VERDICT_NAMES = {"errors", "network", "load generator", "server saturation", "no bound reached", "capacity mismatch"}
CANNOT_TELL = {"cannot tell"}

#: Where the engine is wrong (labelled folder -> what it says), marked xfail(strict); empty since the study (#23).
TODAY: dict[str, str] = {}


@functools.cache
def _dataset(scenario: str) -> lbanalysis.Dataset:
    return lbanalysis.read(SCENARIOS / scenario, table="all")


def _runs(scenario: str) -> pd.DataFrame:
    return _dataset(scenario).runs


@functools.cache
def _study(scenario: str):
    return lbanalysis.study(_dataset(scenario))


def _mine(names: set[str], series: str) -> set[str]:
    """The series a label names: every one (``series`` empty), else those whose tool (first word) is ``series`` or
    whose name holds it.

    >>> sorted(_mine({"ab h:80/ keep-alive", "wrk h:80/", "ab h:81/"}, ":80/"))
    ['ab h:80/ keep-alive', 'wrk h:80/']
    """
    if not series:
        return names
    return {n for n in names if n.split(" ", 1)[0] == series or series in n}


def engine_verdict(scenario: str, folder: str, series: str = "") -> tuple[str, str, str]:
    """The study's verdict, resource and evidence for the series of ``folder`` (the one ``series`` names, where
    the folder holds several), read with its whole scenario folder.

    The one place that calls the engine: the whole folder is read with every
    table (HAProxy's statistics beside the runs), as a user would point
    explore at it. A series holding runs from outside ``folder`` (pooled with
    a sibling) is reported as ``"pooled"``.
    """
    s = _study(scenario)
    runs = s.runs
    inside = runs["source"].astype(str).str.startswith(str(SCENARIOS / folder) + "/")
    names = _mine(set(runs.loc[inside, "series"].dropna()), series)
    assert len(names) == 1, f"{folder} {series}: expected one series, got {sorted(names)}"
    name = names.pop()
    if (runs.loc[~inside, "series"] == name).any():
        return "pooled", "", f"series {name!r} holds runs from outside {folder}"
    table = s.verdicts.set_index("series")
    return table.loc[name, "verdict"], table.loc[name, "resource"], table.loc[name, "evidence"]


def _case(row: pd.Series):
    marks = [pytest.mark.xfail(strict=True, reason=f"today: {TODAY[row.folder]}")] if row.folder in TODAY else []
    return pytest.param(row.scenario, row.folder, row.series, row.expected_verdict, row.expected_resource,
                        row.cannot_tell_allowed == "true", id=f"{row.folder} {row.series}".strip(),
                        marks=marks)  # fmt: skip


@pytest.mark.parametrize(("scenario", "folder", "series", "expected", "resource", "cannot_tell"),
                         [_case(r) for r in LABELS.itertuples()])  # fmt: skip
def test_labelled_verdict(scenario, folder, series, expected, resource, cannot_tell):
    verdict, got, evidence = engine_verdict(scenario, folder, series)
    if cannot_tell and verdict in CANNOT_TELL:
        return
    assert (verdict, got) == (expected, resource), (
        f"{folder} {series}: {verdict!r} ({got}), expected {expected!r} ({resource}): {evidence}"
    )


def test_labels_are_well_formed():
    assert list(LABELS.columns) == ["scenario", "folder", "expected_verdict", "cannot_tell_allowed", "why", "series",
                                    "expected_resource"]  # fmt: skip
    assert set(LABELS["expected_verdict"]) <= VERDICT_NAMES
    assert set(LABELS["expected_resource"]) <= {"", *RESOURCES}
    assert set(LABELS["cannot_tell_allowed"]) <= {"true", "false"}
    assert not LABELS.duplicated(["folder", "series"]).any()
    for row in LABELS.itertuples():
        assert row.folder.split("/")[0] == row.scenario, row.folder
        assert (SCENARIOS / row.folder / "COMMANDS.md").is_file(), row.folder


@pytest.mark.parametrize("folder", LABELS["folder"].unique().tolist())
def test_each_series_has_five_loads_with_repeats(folder):
    """At least five loads (the concurrency, or the rate of an open-loop tool), each run at least twice; every
    file in the manifest, with its load."""
    runs = _runs(folder.split("/")[0])
    mine = runs[runs["source"].astype(str).str.startswith(str(SCENARIOS / folder) + "/")]
    http = mine[assign_series(mine).notna()]
    load = series_load(http)
    per_load = http[load].value_counts()
    assert len(per_load) >= 5 and per_load.min() >= 2, per_load.to_dict()
    manifest = pd.read_csv(SCENARIOS / folder / "manifest.csv")
    listed = {str(SCENARIOS / folder / f) for f in manifest["file"]}
    assert set(http["source"].astype(str)) <= listed
    assert (http["load"] == http[load]).all()
    assert (manifest["ended_s"] > manifest["started_s"]).all()


def test_the_saturation_lab_queues_past_maxconn():
    """HAProxy never let more than 4 requests reach the server, and queued the others (up to 28 of 32)."""
    servers = lbanalysis.read(SCENARIOS / "saturation" / "ab", table="all").servers
    assert servers.loc[servers["type"] == "server", "sessions_max"].max() == 4
    assert servers.loc[servers["type"] == "backend", "queue_max"].max() >= 16


@pytest.mark.parametrize("folder", ["network/ab", "network/hey", "two-origins/with-iperf"])
def test_the_shaped_link_is_what_bounds_the_network_lab(folder):
    """At every load the payload moved is 90-105 % of what iperf3 measured (2 s tests) on the same shaped path."""
    runs = lbanalysis.read(SCENARIOS / folder)
    capacity = link_capacity(runs)["capacity_bits_per_s"]
    assert len(capacity) == 1 and 45e6 < capacity.iloc[0] < 50e6  # the 50 Mbit/s token bucket, as goodput
    http = runs[assign_series(runs).notna()]
    share = http.groupby("concurrency")["bytes_per_s"].mean() * 8 / capacity.iloc[0]
    assert share.between(0.9, 1.05).all(), share.to_dict()
