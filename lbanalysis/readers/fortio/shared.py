"""What fortio's JSON and text readers share: the status codes into the count columns, its requested rate and
duration as it writes them.

fortio counts a call by its status: the HTTP code of the answer, or ``-1``
for a call that got none (a socket error: refused, reset, timed out). Only
200 is a success to fortio (its ``Error cases`` are every other code), so
``failed`` is every call not 200; ``failed_network`` the calls without an
answer; ``requests`` the answers (``-1`` excluded), ``requests_ok`` the 2xx
and ``non_2xx`` the others.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["count_fields", "go_duration", "requested_rate"]

_GO_DURATION_RE = re.compile(r"(\d+(?:\.\d+)?)(h|ms|us|µs|ns|m|s)")
_GO_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


#: Status names of fortio's other run types that are successes (gRPC health: SERVING; TCP and UDP: OK).
OK_NAMES = ("OK", "SERVING")


def _code(key: str) -> int | None:
    """A status as a number (``"-1"``: -1), None for a name (``SERVING``)."""
    try:
        return int(key)
    except ValueError:
        return None


def count_fields(codes: dict[str, int]) -> dict:
    """The count columns from fortio's calls per status (HTTP codes; ``-1``: no answer; names for its gRPC, TCP
    and UDP runs, where ``OK`` and ``SERVING`` are successes).

    >>> count_fields({"200": 73, "503": 27})
    {'requests': 100, 'requests_ok': 73, 'non_2xx': 27, 'failed': 27, 'failed_network': 0, 'requests_attempted': 100, 'status_codes': '200: 73; 503: 27'}
    >>> count_fields({"-1": 10})["requests"], count_fields({"-1": 10})["failed_network"]
    (0, 10)
    >>> count_fields({"SERVING": 4})["requests_ok"]
    4
    """
    answered = ok = failed = lost = 0
    for key, n in codes.items():
        code = _code(key)
        if code is not None and code < 0:
            lost += n
            failed += n
            continue
        answered += n
        if (code is not None and 200 <= code < 300) or key in OK_NAMES:
            ok += n
        if code != 200 and key not in OK_NAMES:
            failed += n
    order = sorted(codes, key=lambda k: (_code(k) is None, _code(k) or 0, k))
    return {
        "requests": answered,
        "requests_ok": ok,
        "non_2xx": answered - ok,
        "failed": failed,
        "failed_network": lost,
        "requests_attempted": answered + lost,
        "status_codes": "; ".join(f"{k}: {codes[k]}" for k in order) or None,
    }


@lru_cache(maxsize=1024)
def go_duration(text: str) -> float | None:
    """A Go duration (``5m0s``, ``1.5s``, ``250ms``) in seconds; None for anything else (``exactly 300 calls``).
    Each text read once (a folder's results ask for a few durations, each a pattern's two passes).

    >>> go_duration("5m0s"), go_duration("250ms"), go_duration("exactly 300 calls")
    (300.0, 0.25, None)
    """
    text = text.strip()
    if not text or _GO_DURATION_RE.sub("", text):
        return None
    return sum(float(v) * _GO_UNITS[u] for v, u in _GO_DURATION_RE.findall(text))


def requested_rate(text: str) -> float | None:
    """The rate asked for (``-qps``) as fortio writes it: a number, or ``max`` (also 0 and -1: no rate); None for
    no rate.

    >>> requested_rate("200"), requested_rate("max"), requested_rate("-1"), requested_rate("0")
    (200.0, None, None, None)
    """
    try:
        rate = float(text)
    except ValueError:
        return None
    return rate if rate > 0 else None
