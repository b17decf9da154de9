"""Shared test helpers: paths to fixtures and to ../shared/corpus."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
CORPUS = Path(os.environ.get("LBANALYSIS_CORPUS", ROOT.parent / "shared" / "corpus"))


def corpus(*parts: str) -> Path:
    """Path inside ../shared/corpus; skips the test when the corpus is absent."""
    p = CORPUS.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"corpus not available: {p}")
    return p


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")
