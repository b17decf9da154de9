"""Field tables (readers/fields.py): the JSON and CSV readers' knowledge as data, and the one walker."""

from __future__ import annotations

import importlib

import pytest

from lbanalysis import registry, schema
from lbanalysis.readers.fields import Field, si_unit, walk

# kinds of a field table that feed the runs table, by the step of the reader that applies them
RUN_KINDS = {"runs", "answered", "late", "rps"}


def _tables() -> list[tuple[str, str, Field]]:
    """(module, table name, field) of every field table a registry reader module holds."""
    found = []
    for name in sorted({m for t in registry.TOOLS for m in t.readers}):
        module = importlib.import_module(f"lbanalysis.readers.{name}")
        for attr, value in vars(module).items():
            if isinstance(value, tuple) and value and all(isinstance(f, Field) for f in value):
                found += [(name, attr, f) for f in value]
    return found


def test_the_json_and_csv_readers_hold_field_tables():
    modules = {m for m, _, _ in _tables()}
    assert {"k6.json", "bombardier.json", "vegeta.json", "oha.json", "locust.json", "locust.csv", "hey.csv"} <= modules


@pytest.mark.parametrize(("module", "table", "field"), _tables(), ids=lambda x: x if isinstance(x, str) else x.source)
def test_a_field_feeds_a_schema_column_in_its_unit(module, table, field):
    """A field of a table names a column of the schema (a metrics stat aside), and its unit converts to the column's."""
    if field.kind == "metrics":  # a stat of the metrics table (its unit column says the SI unit)
        assert si_unit(field.unit) in ("", "s", "B", "1/s", "B/s", "%")
        return
    columns = schema.TABLES["runs" if field.kind in RUN_KINDS else field.kind]
    assert field.column in columns, f"{module}.{table}: {field.column} is no column"
    assert si_unit(field.unit) == columns[field.column].unit, f"{module}.{table}: {field.source}"


def test_walk_keeps_numbers_only_and_converts_them():
    table = (Field("a.b", "latency_s", "ms"), Field("n", "requests", cast=round), Field("f", "success_pct", "fraction"))
    assert walk({"a": {"b": 250}, "n": 4.0, "f": 0.5}, table) == {"latency_s": 0.25, "requests": 4, "success_pct": 50.0}
    # what the document does not hold (or holds as no number) stays out of the row: never zero, never borrowed
    assert walk({"a": {"b": "12"}, "n": True, "f": None}, table) == {}
    assert walk({"a": 3}, table) == {}
    assert walk({"a": {"b": 1000}}, table, kind="other") == {}
