"""The README and docs/schema.md show the data model as schema.py defines it."""

from __future__ import annotations

import importlib.util

import pytest

from .conftest import ROOT


def _update():
    spec = importlib.util.spec_from_file_location("update_docs", ROOT / "scripts" / "update_docs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.update


@pytest.mark.parametrize("doc", ["README.md", "docs/schema.md"])
def test_generated_tables_are_current(doc):
    text = (ROOT / doc).read_text()
    assert "<!-- generated:" in text
    assert _update()(text) == text, f"run scripts/update_docs.py to refresh {doc}"


def test_readme_names_the_two_commands():
    text = (ROOT / "README.md").read_text()
    assert "make report" in text and "make test" in text
