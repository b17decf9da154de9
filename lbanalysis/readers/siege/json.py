"""siege JSON output (``-j``, ``--json-output``, or ``json_output = true``).

siege 4.0.5 added ``-j``: the final statistics go to **stdout** as one JSON
object, and quiet mode is forced (no banner, no summary, no verbose lines;
error notices such as ``[error] socket: ...`` still reach stderr). Debian's
``/etc/siege/siegerc`` sets ``json_output = true``, so a plain ``siege`` on
Debian prints only this object. siege 4.0.7 (Debian 12) prints (tabs shown as spaces)::

    {    "transactions":                       4,
        "availability":                  100.00,
        "elapsed_time":                    0.01,
        "data_transferred":                0.00,
        "response_time":                0.00,
        "transaction_rate":              400.00,
        "throughput":                    0.00,
        "concurrency":                    2.00,
        "successful_transactions":               4,
        "failed_transactions":                   0,
        "longest_transaction":                0.01,
        "shortest_transaction":                0.00
    }

(4.0.5-4.0.8 put ``{`` alone on the first line; ``"http_ok_received"`` is
only printed with ``-D``/debug.)

=========================== ========================= ========================
key                         column                    unit as printed -> stored
=========================== ========================= ========================
transactions                ``requests``              count
availability                ``availability_pct``      %
elapsed_time                ``duration_s``            s
data_transferred            ``bytes_total``           MB (2^20 B) -> B
response_time               ``latency_mean_s``        s
transaction_rate            ``requests_per_s``        1/s
throughput                  ``bytes_per_s``           MB/s (2^20 B/s) -> B/s
concurrency                 ``concurrency_achieved``  mean open transactions
successful_transactions     ``requests_ok``           count
http_ok_received            ``http_ok``               count
failed_transactions         ``failed``                count
longest_transaction         ``latency_max_s``         s
shortest_transaction        ``latency_min_s``         s
=========================== ========================= ========================

Units: the JSON keeps seconds in every version, including 4.1.x whose text
summary switched to ms (``src/main.c`` prints ``data_get_response_time()``
unscaled in the JSON branch); MB is ``bytes / (1024.0 * 1024.0)``
(``data_get_megabytes()`` in ``src/data.c``). Every value is ``%12.2f`` or
``%12u``, so sizes are rounded to 0.01 MB (10 KiB).

Known defects: siege prints C floats, so a value can be ``nan``, ``-nan`` or
``inf``, which is not JSON; objects are therefore read key by key, not with
:func:`json.loads`, and such values become NaN. An object may be preceded by
``^C``, error notices or a ``siege aborted due to excessive socket failure``
notice, and several objects may follow each other (a loop appending to one
file): each object is one run. The object may also sit inside a transcript
after a ``$ siege ...`` command, or after verbose lines. All of that is read
by the siege text reader (:mod:`lbanalysis.readers.siege.text`), which this
format delegates to; runs read from JSON get ``format = "siege-json"``.

Versions checked: siege 4.0.7 (Debian 12, live), the 4.0.x and 4.1.x
sources (``src/main.c`` of JoeDog/siege).

>>> detect('{\\t"transactions":\\t\\t\\t           4,\\n}\\n')
True
"""

from __future__ import annotations

import re

from ...text import Segment, split_transcript
from ..base import Format, Parsed
from ..fields import has_keys
from .fields import FIELDS, OBJECT_START_RE, fields_from_json
from .text import parse_segment

# Lines that may precede the object in a JSON-only output.
_PRELUDE = r"(?:[ \t]*(?:\^C|\[\w+\][^\n]*|siege aborted[^\n]*|can change the failure[^\n]*|LOG FILE:[^\n]*)?\n)*"
_DETECT_RE = re.compile(r"\A" + _PRELUDE + r'[ \t]*\{\s*"transactions"\s*:')


#: The keys of siege's object, in whatever order and layout they are written (``jq -S`` of it).
KEYS = ("transactions", "availability", "elapsed_time", "transaction_rate")


def detect(text: str) -> bool:
    """True when the text is siege JSON output (maybe after ``^C`` or error notices).

    >>> detect("[error] socket: unable to connect sock.c:282: Connection refused\\n{\\n\\t\\"transactions\\": 0,\\n}")
    True
    >>> detect('{"start": {"version": "iperf 3.12"}}')
    False
    >>> detect('{\\n  "availability": 100.0,\\n  "elapsed_time": 0.06,\\n  "transaction_rate": 1.0,\\n  "transactions": 20\\n}')
    True
    """
    if '"transactions"' not in text:
        return False  # what the pattern and the keys hold, looked for first (most documents are not siege's)
    if not _DETECT_RE.match(text) and not has_keys(text, KEYS, within=4096):
        return False
    # A transcript that starts with JSON but holds commands is split first.
    return all(s.command is None for s in split_transcript(text))


def parse(seg: Segment) -> Parsed:
    """Read every siege JSON object (and whatever siege printed around it)."""
    return parse_segment(seg)


FORMATS = [
    Format(
        "siege-json",
        "siege",
        detect,
        parse,
        whole_file=True,
        json=True,
        json_words=("transactions",),  # what detect looks for first
        description="siege -j / json_output JSON (siege >= 4.0.5), alone or after error notices",
    )
]

__all__ = ["FIELDS", "FORMATS", "OBJECT_START_RE", "detect", "fields_from_json", "parse"]
