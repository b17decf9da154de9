"""Field tables: what a JSON or CSV reader knows, as data, and the one walker that applies it.

A text reader lists its line kinds (:mod:`lbanalysis.readers.base`); a JSON
or CSV reader lists its fields. A :class:`Field` names where a value is in
the document (a path of keys into a JSON object, ``"latency.mean"``, or a
CSV header), the schema column it feeds, the unit the tool writes it in
(converted to the column's SI unit through :data:`lbanalysis.units.PRINTED`)
and its kind (which table or part of a row it feeds, when a reader walks one
table for several). :func:`walk` applies a table to a document: every field
whose value is a number lands in its column, converted; a field the
document does not hold stays out of the row (never borrowed, never zero).

>>> TABLE = (Field("timeTakenSeconds", "duration_s", "s"), Field("latency.mean", "latency_mean_s", "us"),
...          Field("connections", "concurrency", cast=int))
>>> walk({"timeTakenSeconds": 0.5, "latency": {"mean": 1555.968}, "connections": 10.0}, TABLE)
{'duration_s': 0.5, 'latency_mean_s': 0.001555968, 'concurrency': 10}
>>> walk({"latency": "n/a"}, TABLE)
{}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..units import PRINTED

__all__ = ["Field", "convert", "lookup", "number", "si_unit", "walk"]

# Units a JSON field may hold that a printed table does not (a fraction, written as a percentage column).
_EXTRA: dict[str, tuple[str, float]] = {"fraction": ("%", 100.0), "ns": ("s", 1e-9)}
# units whose values are already in the column's SI unit
_AS_WRITTEN = frozenset(["", *(unit for unit, (_, factor) in PRINTED.items() if factor == 1.0)])


@dataclass(frozen=True)
class Field:
    """One source field: where it is, the column it feeds, its unit as written, the kind of row it feeds.

    ``source`` is a path of keys separated by dots (``"rps.percentiles.50"``)
    or a CSV header; ``unit`` a key of :data:`lbanalysis.units.PRINTED`
    (``"ms"``, ``"us"``, ``"B"``; ``""``: as written) or ``"fraction"``
    (0-1, to a percentage); ``cast`` turns the converted value into the
    column's type (``round`` for a count written as a float).

    >>> Field("http_reqs.count", "requests").path
    ('http_reqs', 'count')
    """

    source: str
    column: str
    unit: str = ""
    kind: str = "runs"
    cast: Callable[[float], Any] | None = None

    @property
    def path(self) -> tuple[str, ...]:
        """The keys from the document's top to the value."""
        return tuple(self.source.split("."))


def number(value: object) -> float | None:
    """A JSON number as a float; None for anything else (a boolean is not a number here).

    >>> number(3), number(2.5), number(True), number("4")
    (3.0, 2.5, None, None)
    """
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def lookup(doc: object, path: Iterable[str]) -> object:
    """The value at a path of keys, or None where a step is missing or not an object.

    >>> lookup({"a": {"b": 2}}, ("a", "b")), lookup({"a": 1}, ("a", "b"))
    (2, None)
    """
    for key in path:
        if not isinstance(doc, Mapping):
            return None
        doc = doc.get(key)
    return doc


def convert(value: float, unit: str) -> float:
    """A value written in ``unit``, in the SI unit of its column (a sub-unit is divided out: 62.3 ms is 62.3 / 1e3).

    >>> convert(250.0, "ms"), convert(1555.968, "us"), convert(0.25, "fraction"), convert(2.0, "KB")
    (0.25, 0.001555968, 25.0, 2048.0)
    """
    if unit in _AS_WRITTEN:  # already the column's unit: a CSV of a million rows pays one set lookup a cell
        return value
    _, factor = PRINTED[unit] if unit in PRINTED else _EXTRA[unit]
    if factor < 1:
        return value / round(1 / factor)
    return float(value * factor)


def si_unit(unit: str) -> str:
    """The SI unit a value written in ``unit`` is converted to (``""`` stays ``""``).

    >>> si_unit("ms"), si_unit("B"), si_unit(""), si_unit("fraction")
    ('s', 'B', '', '%')
    """
    if not unit:
        return ""
    return (PRINTED[unit] if unit in PRINTED else _EXTRA[unit])[0]


def walk(doc: object, fields: Iterable[Field], kind: str | None = None) -> dict[str, Any]:
    """The columns a document's numbers give, by a field table (only the fields of ``kind``, when given).

    >>> walk({"a": {"b": 1500}}, [Field("a.b", "latency_s", "ms"), Field("a.c", "x")])
    {'latency_s': 1.5}
    """
    row: dict[str, Any] = {}
    for f in fields:
        if kind is not None and f.kind != kind:
            continue
        v = number(lookup(doc, f.path))
        if v is not None:
            v = convert(v, f.unit)
            row[f.column] = f.cast(v) if f.cast else v
    return row
