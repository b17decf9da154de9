"""Shared test helpers: paths to fixtures and to ../shared/corpus."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from lbanalysis import schema

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
CORPUS = Path(os.environ.get("LBANALYSIS_CORPUS", ROOT.parent / "shared" / "corpus"))


def corpus(*parts: str) -> Path:
    """Path inside ../shared/corpus; skips the test when the corpus is absent, and fails it in CI.

    CI runs with ``../shared`` beside the clone: a missing corpus there means
    the tests would claim what they did not read.
    """
    p = CORPUS.joinpath(*parts)
    if not p.exists():
        if os.environ.get("CI"):
            pytest.fail(f"corpus not available in CI: {p} (CI runs with ../shared beside the clone)")
        pytest.skip(f"corpus not available: {p}")
    return p


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep ``--dist loadgroup`` grouping: each ``xdist_group`` on one worker.

    pytest-xdist (3.8) names a test's group by setting ``item._nodeid`` to
    ``nodeid@group`` on the worker; pytest 9 keeps a node's id elsewhere, so
    the suffix never reached the scheduler and a group's tests ran on both
    workers, each building the group's expensive module fixtures (every
    article report for the browser tests, the sweep's lab, a Dask cluster, a
    wheel): minutes of the suite twice over. Where the suffix was set but not
    seen, it is set where pytest reads it (a no-op on pytest 8, or once xdist
    does it itself).
    """
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        grouped = item.__dict__.get("_nodeid")
        if grouped and item.nodeid != grouped and hasattr(item, "_id"):
            from _pytest.nodes import coerce_node_id  # pytest 9's form of a node id

            item._id = coerce_node_id(grouped)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def expect(frame: pd.DataFrame, rows: list[dict], table: str = "runs") -> None:
    """Compare the columns named in ``rows`` with the frame, with schema dtypes.

    ``source`` is compared as text (detail tables hold it as categorical).
    """
    cols = list(rows[0])
    spec = schema.TABLES[table]
    exp = schema.conform(rows, {c: spec[c] for c in cols})
    got = frame[cols].reset_index(drop=True)
    if "source" in cols:
        got = got.astype({"source": "string"})
        exp = exp.astype({"source": "string"})
    assert_frame_equal(got, exp, check_exact=False, rtol=1e-9)
