"""What Gatling's console and ``simulation.log`` readers share: which KO messages mean that no answer came.

Gatling counts as KO both a request that got no answer (refused, reset, timed
out) and an answer its checks failed (a 404 where 2xx was wanted). The first
are ``failed_network`` (no answer), the second bad answers.

>>> no_answer("j.n.ConnectException: finishConnect(..) failed: Connection refused"), no_answer("found 404")
(True, False)

A status check's message names the status that came (``status.find.in(200,...), but actually found 503``;
Gatling 2.x: ``status.find.in([200, 209], 304), found 404``): an answer outside 2xx, counted in ``non_2xx``
beside ``failed`` (every KO, as Gatling counts it).
"""

from __future__ import annotations

import re

__all__ = ["FOUND_RE", "NO_ANSWER_RE", "no_answer", "non_2xx", "status_found"]

#: KO messages of a request that got no answer (Gatling 2.x and 3.x spell the exceptions short or long).
NO_ANSWER_RE = re.compile(
    r"ConnectException|Connection refused|Connection reset|connection was closed|PrematureClose|[Rr]equest timeout"
    r"|TimeoutException|UnknownHostException|SSLException|ClosedChannelException|Connection timed out"
)


def no_answer(message: str) -> bool:
    """Whether a KO message says the request got no answer."""
    return bool(NO_ANSWER_RE.search(message))


#: A status check's KO message: the status code that came instead.
FOUND_RE = re.compile(r"^status\.find\.\w+\(.*\),(?: but actually)? found (\d{3})$")


def status_found(message: str) -> int | None:
    """The HTTP status a status check's KO message says came (None: another message).

    >>> status_found("status.find.in(200,201,202,203,204,205,206,207,208,209,304), but actually found 503")
    503
    >>> status_found("status.find.in([200, 209], 304), found 404"), status_found("jsonPath($.id).find.exists, found nothing")
    (404, None)
    """
    m = FOUND_RE.match(message.strip())
    return int(m.group(1)) if m else None


def non_2xx(counts: dict[str, int]) -> int:
    """The KO answers whose status was outside 2xx, from KO messages and their counts.

    >>> non_2xx({"status.find.is(200), but actually found 503": 6, "status.find.is(201), but actually found 200": 2})
    6
    """
    return sum(c for msg, c in counts.items() if (code := status_found(msg)) is not None and not 200 <= code < 300)
