"""What a whole text is, seen from its first characters, before any clean-up: a JSON document, a CSV table; and
which of the JSON formats a document may be, from the words it holds (:attr:`~lbanalysis.readers.base.Format.json_words`).

The dispatcher (:mod:`lbanalysis.readers`) reads such a text as it is, with the whole-file formats, and asks a
JSON document only of the formats whose words stand in it.

>>> json_document('{"a": 1}'), csv_document("a,b,c\\n1,2,3\\n")
('{"a": 1}', 'a,b,c\\n1,2,3\\n')
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from ..text import longest_of
from .base import Format

__all__ = ["WORDS_HEAD", "all_json", "csv_document", "json_asked", "json_document", "json_start", "words_pattern"]

#: A JSON document up to this long is searched for the formats' words (:func:`json_asked`); a longer one is asked
#: of every JSON format (their checks look at their own heads, and a search of megabytes costs more than they do).
WORDS_HEAD = 1 << 16


JSON_START_RE = re.compile(r"\ufeff?[\r\n]*(?:\{|\[\s*[\[{\"\]])")


def json_document(text: str) -> str | None:
    """The text of a JSON document (or JSON lines) with only its BOM and CR line ends taken off, else None.

    A text is taken for JSON by its first characters (``{``, or ``[`` before ``{``, ``[``, ``"`` or ``]``:
    not iperf's ``[  3]`` nor siege's ``[error]``; at the start of a line: an indented document is a quoted
    one, which the clean-up dedents), unless it holds Ansible's ``stdout_lines`` (outputs inside
    JSON strings, which :func:`~lbanalysis.text.normalize` unquotes).

    >>> json_document('\\ufeff{\\r\\n  "a": 1\\r\\n}\\r\\n'), json_document("[  3]  0.0- 1.0 sec"), json_document("[]")
    ('{\\n  "a": 1\\n}\\n', None, '[]')
    >>> json_document('    {"a": 1}') is None
    True
    """
    if JSON_START_RE.match(text) is None or "stdout_lines" in text:
        return None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


CSV_HEAD_RE = re.compile(r'\ufeff?[A-Za-z"][^\n\x1b|>]*,[^\n\x1b|]*,')


def csv_document(text: str) -> str | None:
    """The text of a CSV file with only its BOM and CR line ends taken off, else None.

    A text is taken for a table by its first lines: a header of three fields or more, starting with a letter
    or a quote, with no ANSI escape, ``|`` (a log's prefix) or ``>`` (a quote) in it, and a second line of
    as many commas (not a sentence with commas in it).

    >>> csv_document('\\ufeffType,Name,Request Count\\r\\nGET,/,5\\r\\n'), csv_document("Requests per second: 5")
    ('Type,Name,Request Count\\nGET,/,5\\n', None)
    >>> csv_document("siege  | a,b,c\\n") is None, csv_document("# pxname,svname,qcur\\n") is None
    (True, True)
    >>> csv_document("Running 1s test @ http://h/, 2 threads, 10 connections\\n  Thread Stats\\n") is None
    True
    """
    if CSV_HEAD_RE.match(text) is None or "\x1b" in text or "stdout_lines" in text:
        return None
    end = text.find("\n")
    after = text.find("\n", end + 1) if end >= 0 else -1
    if end < 0 or text.count(",", 0, end) != text.count(",", end + 1, after if after >= 0 else len(text)):
        return None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def json_start(doc: str) -> bool:
    """Whether a JSON text opens with a document's first token and no more (not the quoted outputs of a log).

    >>> json_start('{"a": 1}'), json_start('[{"a": 1}]'), json_start('["$ ab -c 1 http://h/"]')
    (True, True, False)
    """
    return re.match(r"\s*(?:\{\s*\"|\[\s*[\[{\]])", doc) is not None


def all_json(doc: str) -> bool:
    """Whether the text is JSON through and through: one document, or one per line (not a tool's JSON log lines
    followed by what it printed, as fortio's text output is).

    >>> all_json('{"a": 1}'), all_json('{"a": 1}\\n{"b": 2}\\n'), all_json('{"ts": 1}\\nFortio running at 10 qps')
    (True, True, False)
    """
    try:
        json.loads(doc)
        return True
    except ValueError:
        pass
    for line in doc.split("\n"):
        if not line.strip():
            continue
        try:
            json.loads(line)
        except ValueError:
            return False
    return True


def words_pattern(formats: Sequence[Format]) -> re.Pattern:
    """One pattern of the formats' words (:attr:`Format.json_words`), each quoted: a search of a document finds
    every word it holds (the closing quote looked ahead: it may open the next).

    >>> from lbanalysis.readers import get_format
    >>> p = words_pattern([get_format("bombardier-json")])
    >>> sorted(set(p.findall('{"spec": {"numberOfConnections": 2}, "x": "bytesRead"}')))
    ['bytesRead', 'numberOfConnections']
    """
    words = {w for f in formats for w in f.json_words or ()}
    return re.compile('"(' + longest_of(sorted(words)) + ')(?=")')


def json_asked(doc: str, formats: Sequence[Format], words: re.Pattern) -> list[Format]:
    """The formats that may recognise a JSON document, in their order: those that say no words, and those with one
    of their words (``words``: :func:`words_pattern` of them) in it. A document longer than :data:`WORDS_HEAD` is
    asked of all.

    One search of the document for every format's words costs about half of what asking each format costs (each
    looks for its own first: a pass over the document each).

    >>> from lbanalysis.readers import _json_formats
    >>> formats = _json_formats(None)
    >>> [f.name for f in json_asked('{"spec": {"numberOfConnections": 2}, "result": {}}', formats, words_pattern(formats))]
    ['haproxy-info', 'bombardier-json']
    """
    if len(doc) > WORDS_HEAD:
        return list(formats)
    found = set(words.findall(doc))
    return [f for f in formats if f.json_words is None or not found.isdisjoint(f.json_words)]
