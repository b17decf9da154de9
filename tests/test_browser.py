"""Reports as a reader sees them: built, opened in headless Chromium, measured.

Every article report and an explore report are built once (the reports are
the product); each page is loaded in Debian's Chromium (installed by
``scripts/install-tools.sh``) and checked for what a reader would trip over:
code cells, tracebacks or warnings, scientific notation, elided or raw
missing cells, tables wider than a 1400 px page, images that do not load, a
script from the data that ran, a request that leaves the page (the network is
off), a chart without a description, a link that leads nowhere; at 600 px,
a table box or a verdict column off the page. Full-page screenshots at 1,400
and 600 px are kept under ``reports/screenshots/`` for a person to flip through.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd
import pytest

import lbanalysis
from lbanalysis import cli
from tests.browser import CHROMIUM, problems, render, screenshot

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SHOTS = ROOT / "reports" / "screenshots"
SLUGS = ["haproxy-wordpress-ab", "haproxy-sizing", "haproxy-maxconn-gobench", "haproxy-apache-siege", "lbbench"]

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]

if CHROMIUM is None:
    if os.environ.get("CI"):
        raise RuntimeError("chromium is not installed: scripts/install-tools.sh should have installed it")
    pytest.skip("chromium not installed (make tools installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reports")
    assert cli.main(["report", "--all", "-o", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def hostile_explore(tmp_path_factory) -> Path:
    logs = tmp_path_factory.mktemp("logs")
    for name in ("ab_hostile_headers.txt",):
        (logs / name).write_bytes((FIXTURES / "hostile" / name).read_bytes())
    for name in ("ab_c1.txt", "ab_c10.txt", "ab_c50.txt"):
        (logs / name).write_bytes((FIXTURES / "ab" / name).read_bytes())
    out = tmp_path_factory.mktemp("explore")
    assert cli.main(["explore", str(logs), "-o", str(out)]) == 0
    return out / "explore.html"


@pytest.fixture(scope="module")
def scenarios_explore(tmp_path_factory) -> Path:
    """Explore over the labelled scenarios: every kind of verdict, HAProxy statistics, iperf, 264 outputs."""
    out = tmp_path_factory.mktemp("explore-scenarios")
    assert cli.main(["explore", str(FIXTURES / "scenarios"), "-o", str(out)]) == 0
    return out / "explore.html"


NARROW = 600  # a phone, or half a laptop screen
MAX_ARTICLE_BYTES = 250_000  # an article report's HTML and CSS, images left out


def _look(page: Path, name: str, width: int = 1400) -> dict:
    seen = render(page, width=width)
    suffix = "" if width == 1400 else f"-{width}"
    screenshot(page, SHOTS / f"{name}{suffix}.png", seen["height"], width=width)
    return seen


def _without_images(page: Path) -> int:
    """Bytes of a page's HTML and CSS, its embedded images left out."""
    return len(re.sub(rb"data:image/[a-z]+;base64,[A-Za-z0-9+/=]+", b"", page.read_bytes()))


@pytest.mark.parametrize("slug", SLUGS)
def test_article_report_reads_as_a_document(built, slug):
    page = built / slug / f"{slug}.html"
    seen = _look(page, slug)
    assert seen["images"], "a report without a chart"
    assert problems(seen) == []
    assert seen["requests"] == []  # the network is off and nothing tried to leave the page
    assert seen["title"] and seen["title"] != "Notebook" and seen["title"] in seen["text"]
    assert seen["toc"] >= 3 and seen["print"]
    assert all(i["alt"].startswith("Figure") for i in seen["images"]), [i["alt"][:40] for i in seen["images"]]
    assert _without_images(page) < MAX_ARTICLE_BYTES
    text = seen["text"]
    for word in ("compare()", "True", "n_peak", "kappa", "cpu_share", "concurrency little", "e+0", "R² 1.0000"):
        assert word not in text, word


@pytest.mark.parametrize("slug", SLUGS)
def test_article_report_reads_at_600_px(built, slug):
    page = built / slug / f"{slug}.html"
    seen = _look(page, slug, width=NARROW)
    assert seen["width"] == NARROW and seen["verdicts"], "no ledger"
    assert problems(seen) == []  # every table in a box that scrolls, the verdict column in view


def test_report_names_only_files_that_travel_with_it(built):
    for slug in SLUGS:
        page = built / slug / f"{slug}.html"
        for href in re.findall(r'href="([^"#:]+)"', page.read_text(encoding="utf-8")):
            assert (page.parent / href).is_file(), f"{slug}: {href}"


def test_index_links_every_report_with_its_key_chart(built):
    page = built / "index.html"
    seen = _look(page, "index")
    for slug in SLUGS:
        assert slug in seen["text"]
    assert len(seen["images"]) == len(SLUGS) and all(i["ok"] for i in seen["images"])
    assert problems(seen) == []


def test_explore_report_shows_hostile_values_as_text(hostile_explore):
    seen = _look(hostile_explore, "explore-hostile")
    assert not seen["scripted"], "a script from the logs ran"
    assert seen["inputs"] == 0
    assert seen["requests"] == [] and seen["title"] != "Notebook" and seen["print"]
    _look(hostile_explore, "explore-hostile", width=NARROW)


def test_styled_table_shows_markup_from_logs_as_text(tmp_path):
    runs = lbanalysis.read(FIXTURES / "hostile" / "ab_hostile_headers.txt")
    table = lbanalysis.style(runs[["server_software", "url", "requests_per_s", "non_2xx"]]).to_html()
    page = tmp_path / "table.html"
    page.write_text(f"<!DOCTYPE html><html><head><title>t</title></head><body>{table}</body></html>")
    seen = render(page)
    assert not seen["scripted"]
    assert "<script>window.__lbanalysis_injected=true;document.title='pwned'</script>" in seen["cells"]
    assert any("<img src=x onerror=window.__lbanalysis_injected=true>" in c for c in seen["cells"])
    assert problems(seen) == []


def test_checks_catch_what_a_reader_trips_over(tmp_path):
    # the checks themselves: a raw pandas dump of a wide frame fails them
    raw = pd.DataFrame({f"column_{i}": [1.2e-9, None] for i in range(40)}).to_html()
    page = tmp_path / "raw.html"
    page.write_text(f"<html><body><div class='jp-InputArea-editor'>x = 1</div>{raw}</body></html>")
    found = problems(render(page))
    assert any("scientific notation" in p for p in found)
    assert any("raw missing value" in p for p in found)
    assert any("wider than" in p for p in found)
    assert any("code cell" in p for p in found)


def test_explore_report_reads_as_a_document(scenarios_explore):
    seen = _look(scenarios_explore, "explore-scenarios")
    assert problems(seen) == [] and seen["requests"] == []
    assert seen["title"] == "Explore load-test outputs" and seen["toc"] >= 5 and seen["print"]
    assert seen["images"] and all(i["alt"] and not i["alt"].startswith("No description") for i in seen["images"])
    text = seen["text"]
    # the conclusion first, then the evidence, the run-by-run detail last
    assert text.index("Conclusion") < text.index("What bounded each series") < text.index("Appendix")
    for word in ("True", "False", "e+0", "nan", "summary_frame", "link_capacity", "output_dir", "fit_model"):
        assert word not in text, word
    assert _without_images(scenarios_explore) < 600_000
    assert problems(_look(scenarios_explore, "explore-scenarios", width=NARROW)) == []
