"""JMeter's results file as XML (a JTL with ``jmeter.save.saveservice.output_format=xml``).

::

    <?xml version="1.0" encoding="UTF-8"?>
    <testResults version="1.2">
    <httpSample t="57" lt="57" ts="1795790215980" s="true" lb="home" rc="200" rm="OK" tn="users 1-1" dt="text"
     by="414" ng="2" na="2"/>
    <httpSample t="16" lt="5" ts="1795790216236" s="true" lb="redirect" rc="200" rm="OK" … by="785" ng="2" na="2">
      <httpSample t="5" lt="5" ts="1795790216236" s="true" lb="http://127.0.0.1:18840/dir" rc="301" … by="371"/>
      <httpSample t="10" lt="8" ts="1795790216242" s="true" lb="http://127.0.0.1:18840/dir/" rc="200" … by="414"/>
    </httpSample>
    </testResults>

Each ``<httpSample>`` (or ``<sample>``, another sampler's) directly inside
``<testResults>`` is a sample; its attributes are the CSV columns under
short names (:data:`ATTRIBUTES`; :mod:`lbanalysis.readers.jmeter.shared` says what
each becomes). Samples nested in a sample are its parts (the hops of a
followed redirect, a transaction's samplers): the sample holds their time
and bytes, so they are not requests of their own. A sample's
``<java.net.URL>`` gives ``url``, its first failed ``<assertionResult>``'s
``<failureMessage>`` its error.

>>> p = parse(Segment('<?xml version="1.0"?>\\n<testResults version="1.2">\\n<httpSample t="57" lt="50" '
...                   'ts="1795790215980" s="true" lb="home" rc="200" rm="OK" by="414" na="2"/>\\n</testResults>\\n'))
>>> p.runs[0]["requests"], p.runs[0]["concurrency"], p.tables["requests"][0]["first_byte_s"]
(1, 2, 0.05)
"""

from __future__ import annotations

import re
from xml.parsers import expat

from ...errors import ParseError
from ...text import Segment
from ..base import Format, Parsed
from .shared import error_of, parse_time, status_of, summarize

__all__ = ["ATTRIBUTES", "FORMATS", "detect", "parse"]

# attribute -> (requests column, how it is read: "ms" milliseconds to s, "int", "text", ...)
ATTRIBUTES: dict[str, tuple[str, str]] = {
    "ts": ("start_ms", "time"),
    "t": ("latency_s", "ms"),
    "lb": ("label", "text"),
    "rc": ("status", "code"),
    "tn": ("thread", "text"),
    "s": ("success", "bool"),
    "by": ("bytes", "int"),
    "sby": ("bytes_sent", "int"),
    "ng": ("group_threads", "int"),
    "na": ("threads", "int"),
    "lt": ("first_byte_s", "ms"),
    "it": ("idle_s", "ms"),
    "ct": ("connect_s", "ms"),
}
SAMPLES = ("httpSample", "sample")
_WHOLE_RE = re.compile(r"^-?\d{1,15}$")
_DETECT_RE = re.compile(r"^\s*(?:<\?xml[^>]*\?>\s*)?(?:<\?xml-stylesheet[^>]*\?>\s*)?<testResults\b")


def detect(text: str) -> bool:
    """True for a JMeter XML results file (``<testResults`` first, after the XML declaration).

    >>> detect('<?xml version="1.0" encoding="UTF-8"?>\\n<testResults version="1.2">\\n'), detect("<html>")
    (True, False)
    """
    return bool(_DETECT_RE.match(text.lstrip("\ufeff")[:400]))


class _Reader:
    """The expat handlers: one sample per element directly inside ``<testResults>``."""

    def __init__(self, seg: Segment) -> None:
        self.seg = seg
        self.parser = expat.ParserCreate()
        self.parser.StartElementHandler = self.start
        self.parser.EndElementHandler = self.end
        self.parser.CharacterDataHandler = self.chars
        self.depth = 0
        self.samples: list[dict] = []
        self.have: set[str] = set()
        self.cur: dict | None = None
        self.texts: list[str] = []  # the text of a URL or failure message being read
        self.path: list[str] = []

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        self.depth += 1
        self.path.append(tag)
        if self.depth == 2 and tag in SAMPLES:
            self.cur = {"_line": self.parser.CurrentLineNumber, "_attrs": attrs}
        self.texts = []

    def chars(self, data: str) -> None:
        self.texts.append(data)

    def end(self, tag: str) -> None:
        cur = self.cur
        if cur is not None and self.depth == 3 and tag == "java.net.URL":
            cur["url"] = "".join(self.texts).strip() or None
        elif cur is not None and tag == "failureMessage" and self.path[-2:-1] == ["assertionResult"]:
            cur.setdefault("_failure", "".join(self.texts).strip())
        elif cur is not None and self.depth == 2 and tag in SAMPLES:
            self.samples.append(self.sample(cur))
            self.cur = None
        self.texts = []
        self.path.pop()
        self.depth -= 1

    def sample(self, cur: dict) -> dict:
        attrs, n = cur["_attrs"], cur["_line"]
        s: dict = {}
        for name, (key, kind) in ATTRIBUTES.items():
            raw = attrs.get(name)
            if raw is None:
                continue
            self.have.add(key)
            s[key] = self.value(kind, raw, n, name)
        if s.get("status") is None:
            s.pop("status", None)
        if cur.get("url"):
            s["url"] = cur["url"]
        if s.get("success") is False or s.get("status") == 0:
            s["error"] = error_of(attrs.get("rc", ""), attrs.get("rm", ""), cur.get("_failure", "")) or None
        return {k: v for k, v in s.items() if v is not None}

    def value(self, kind: str, raw: str, n: int, name: str) -> object:
        src = self.seg.source
        if kind == "text":
            return raw
        if kind == "time":
            return parse_time(raw, src, n)
        if kind == "bool":
            if raw not in ("true", "false"):
                raise ParseError(f"not true or false in attribute {name!r}: {raw!r}", source=src, line=n, text=raw)
            return raw == "true"
        if kind == "code":
            return status_of(raw)
        if not _WHOLE_RE.match(raw):  # no count or time of JMeter's has 16 digits
            raise ParseError(f"not a whole number in attribute {name!r}: {raw!r}", source=src, line=n, text=raw[:40])
        v = int(raw)
        return v / 1e3 if kind == "ms" else v


def parse(seg: Segment) -> Parsed:
    """Read a JMeter XML results file: one run, a requests row per sample (its nested parts not counted)."""
    reader = _Reader(seg)
    try:
        reader.parser.Parse(seg.text.lstrip("\ufeff").encode("utf-8"), True)
    except expat.ExpatError as e:
        message = expat.errors.messages[e.code]
        if not (reader.samples and message == expat.errors.XML_ERROR_NO_ELEMENTS):  # cut at a line end: kept
            raise ParseError(f"broken JMeter XML: {message}", source=seg.source, line=e.lineno) from None
    return summarize(reader.samples, reader.have)


FORMATS = [
    Format("jmeter-xml", "jmeter", detect, parse, whole_file=True,
           description="JMeter results (JTL) as XML, nested sub-samples inside their sample"),
]  # fmt: skip
