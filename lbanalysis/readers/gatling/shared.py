"""What Gatling's console and ``simulation.log`` readers share: which KO messages mean that no answer came.

Gatling counts as KO both a request that got no answer (refused, reset, timed
out) and an answer its checks failed (a 404 where 2xx was wanted). The first
are ``failed_network`` (no answer), the second bad answers.

>>> no_answer("j.n.ConnectException: finishConnect(..) failed: Connection refused"), no_answer("found 404")
(True, False)
"""

from __future__ import annotations

import re

__all__ = ["NO_ANSWER_RE", "no_answer"]

#: KO messages of a request that got no answer (Gatling 2.x and 3.x spell the exceptions short or long).
NO_ANSWER_RE = re.compile(
    r"ConnectException|Connection refused|Connection reset|connection was closed|PrematureClose|[Rr]equest timeout"
    r"|TimeoutException|UnknownHostException|SSLException|ClosedChannelException|Connection timed out"
)


def no_answer(message: str) -> bool:
    """Whether a KO message says the request got no answer."""
    return bool(NO_ANSWER_RE.search(message))
