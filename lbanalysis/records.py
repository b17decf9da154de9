"""Read-only lists of records that pandas shares between frames instead of copying them.

pandas deep-copies a frame's ``attrs`` into every frame or Series built from
it (a filter, a column, ``Series.map``...). ``read()`` keeps what it skipped in
``runs.attrs["skipped"]`` and ``runs.attrs["not_runs"]``: stored as plain lists
of dicts, each of those operations copied every record, and a read that
builds a frame per file it pairs grew with the square of the folder
(issue #39). :class:`Records` is a list that cannot change, of
:class:`Record` dicts that cannot change, whose copy (deep or not) is itself:
equal to the list of dicts it was made of, and free to copy.

>>> import copy
>>> rs = Records([{"source": "a.txt", "reason": "empty"}])
>>> rs == [{"source": "a.txt", "reason": "empty"}], copy.deepcopy(rs) is rs, rs[0]["source"]
(True, True, 'a.txt')
>>> rs.append({})
Traceback (most recent call last):
TypeError: Records are read-only: build a list (list(records)) to change them
>>> rs[0]["reason"] = "x"
Traceback (most recent call last):
TypeError: a Record is read-only: build a dict (dict(record)) to change it
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

__all__ = ["Record", "Records"]


class Record(dict):
    """A dict that cannot change; its copy is itself.

    >>> import pickle
    >>> r = Record({"a": 1})
    >>> pickle.loads(pickle.dumps(r)) == r, dict(r) == {"a": 1}
    (True, True)
    """

    __slots__ = ()

    def _readonly(self, *_: Any, **__: Any) -> NoReturn:
        raise TypeError("a Record is read-only: build a dict (dict(record)) to change it")

    __setitem__ = __delitem__ = __ior__ = _readonly  # type: ignore[assignment]
    clear = pop = popitem = setdefault = update = _readonly  # type: ignore[assignment]

    def __copy__(self) -> Record:
        return self

    def __deepcopy__(self, memo: dict) -> Record:
        return self

    def __reduce__(self) -> tuple:
        return (Record, (dict(self),))


class Records(list):
    """A list of :class:`Record` that cannot change; its copy (deep or not) is itself.

    >>> import pickle
    >>> rs = Records([{"a": 1}, {"a": 2}])
    >>> pickle.loads(pickle.dumps(rs)) == rs, [r["a"] for r in rs], len(rs), rs[1:] == [{"a": 2}]
    (True, [1, 2], 2, True)
    """

    __slots__ = ()

    def __init__(self, rows: Iterable[Mapping] = ()) -> None:
        super().__init__(r if isinstance(r, Record) else Record(r) for r in rows)

    def _readonly(self, *_: Any, **__: Any) -> NoReturn:
        raise TypeError("Records are read-only: build a list (list(records)) to change them")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _readonly  # type: ignore[assignment]
    append = extend = insert = pop = remove = clear = sort = reverse = _readonly  # type: ignore[assignment]

    def __copy__(self) -> Records:
        return self

    def __deepcopy__(self, memo: dict) -> Records:
        return self

    def __reduce__(self) -> tuple:
        return (Records, ([dict(r) for r in self],))
