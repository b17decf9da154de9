"""The claims ledgers (articles.ledger): verdicts, claims.csv files, and the ledger frame."""

from __future__ import annotations

import pytest

from articles import ARTICLES, paths
from articles.ledger import Claim, Ledger, load_claims, verdict


@pytest.mark.parametrize(
    ("said", "got", "kw", "expected"),
    [
        (20272.52, 20272.52, {}, "reproduced"),
        (20000, 20272.52, {"tolerance": 0.05}, "reproduced"),
        (30000, 29000, {"tolerance": 0.02}, "close"),
        (35000, 29331.99, {"tolerance": 0.05}, "differs"),
        (200, 110, {"relation": "<"}, "reproduced"),
        (200, 205, {"relation": "<"}, "close"),
        (200, 622, {"relation": "<"}, "differs"),
        (8500, 9000, {"relation": ">"}, "reproduced"),
        (6000, 7500, {"relation": "between", "high": 7000}, "differs"),
        (None, True, {"relation": "shown"}, "reproduced"),
        (None, False, {"relation": "shown"}, "differs"),
        (None, True, {"relation": "table"}, "table shown"),
        (None, False, {"relation": "table"}, "table differs"),
        (25000, None, {}, "not reproducible"),
        (25000, float("nan"), {}, "not reproducible"),
    ],
)
def test_verdict(said, got, kw, expected):
    assert verdict(said, got, **kw) == expected


def test_unknown_relation_is_an_error():
    with pytest.raises(ValueError, match="unknown relation"):
        verdict(1.0, 1.0, relation="~")


@pytest.mark.parametrize("slug", [a.slug for a in ARTICLES if paths.raw(a.slug, "claims.csv").exists()])
def test_every_claims_file_reads(slug):
    claims = load_claims(slug)
    assert claims and all(c.relation in ("shown", "table") or c.value is not None for c in claims)
    assert all(c.reason for c in claims if c.relation not in ("shown", "table") and c.value is None)


def test_bad_claims_file_names_file_and_line(tmp_path):
    bad = tmp_path / "claims.csv"
    bad.write_text("claim,section,says,relation,value,high,unit,tolerance,reason\nA,s,x,≈,1,,,,\nB,s,y,~,2,,,,\n")
    with pytest.raises(ValueError, match=r"claims.csv, line 3: relation '~'"):
        load_claims(path=bad)


def test_ledger_frame_marks_unrecorded_claims():
    led = Ledger([Claim("A", "s", "x", "≈", 1.0), Claim("B", "s", "y", "<", 2.0, unit="MB")])
    led.record("B", 1.5)
    assert led.unrecorded() == ["A"]
    frame = led.frame().set_index("claim")
    assert frame.loc["A", "our data gives"] == "not computed" and frame.loc["A", "verdict"] == "not reproducible"
    assert frame.loc["B", "our data gives"] == "1.50 MB" and frame.loc["B", "verdict"] == "reproduced"
    with pytest.raises(KeyError, match="no claim 'C'"):
        led.record("C", 1.0)


@pytest.mark.parametrize("article", ARTICLES, ids=[a.slug for a in ARTICLES])
def test_every_report_opens_with_its_findings_and_has_a_claims_file(article):
    import nbformat

    nb = nbformat.read(paths.NOTEBOOKS / article.notebook, as_version=4)
    headings = [
        line for c in nb.cells if c.cell_type == "markdown" for line in c.source.splitlines() if line.startswith("## ")
    ]
    assert headings[0].startswith("## Findings"), headings[:2]
    assert paths.raw(article.slug, "claims.csv").is_file()
    assert "claims.csv" in paths.raw(article.slug, ".lbignore").read_text()  # not read as tool output
    code = "".join(c.source for c in nb.cells if c.cell_type == "code")
    assert f'Ledger.for_article("{article.slug}")' in code and "ledger.to_csv(" in code


def test_ledger_rows_show_their_rule_and_link_their_evidence():
    led = Ledger(
        [
            Claim("H3", "HAProxy over one Apache", "improves by 50 %", "≈", 50.0, unit="%", tolerance=0.05),
            Claim("T1", "The tests", "the table", "table"),
        ]
    )
    led.record("H3", 44.7)
    led.record("T1", True)
    frame = led.frame().set_index("claim")
    assert list(led.frame().columns[:3]) == ["claim", "verdict", "rule"]  # the verdict beside the claim
    assert (
        frame.loc["H3", "verdict"] == "differs" and frame.loc["H3", "rule"] == "within 5 % of 50 %; close within 10 %"
    )
    assert led.counts() == {"differs": 1, "table shown": 1}
    page = led.style().to_html()
    assert 'id="claim-H3"' in page and 'href="#HAProxy-over-one-Apache"' in page
    conclusion = led.conclusion()
    assert conclusion.startswith("**The article makes 1 checked claim: 1 differs; 1 table rebuilt")
    assert "**What does not:** [H3](#claim-H3) improves by 50 %: our data gives 44.7 % (differs)" in conclusion
