"""A column of the schema (:class:`Column`), its dtypes, the runs' key and the kinds of errors.

>>> Column("requests", I, "", "requests completed").dtype
'Int64'
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "COMMAND_REFUSED",
    "ERROR_KINDS",
    "KEY",
    "NO_ANSWER",
    "NO_RESULT_SHOWN",
    "B",
    "Column",
    "F",
    "I",
    "S",
    "T",
    "columns_of",
]


@dataclass(frozen=True)
class Column:
    """A column of a tidy table: its name, pandas dtype, unit and meaning."""

    name: str
    dtype: str
    unit: str
    description: str
    tools: str = "all"  # which tools fill it ("all", or e.g. "ab,siege")


def columns_of(*cols: Column) -> dict[str, Column]:
    """Columns by name, in the order given: a table of the schema.

    >>> list(columns_of(Column("a", "Int64", "", "a count"), Column("b", "float64", "s", "a time")))
    ['a', 'b']
    """
    return {c.name: c for c in cols}


#: The dtypes of the schema, short: string, integer (nullable), float, boolean, time.
S, I, F, B, T = "string", "Int64", "float64", "boolean", "datetime64[ns]"

KEY = ("source", "run")

#: The values of the runs' ``error_kind``: what an error says of the requests (see the column).
NO_ANSWER, COMMAND_REFUSED, NO_RESULT_SHOWN = "no answer", "command refused", "no result shown"
ERROR_KINDS = (NO_ANSWER, COMMAND_REFUSED, NO_RESULT_SHOWN)
