"""JMeter's results file as CSV (a JTL, ``jmeter -n -t plan.jmx -l out.jtl``): one sample per line.

JMeter 3.0+ writes a header line naming the columns it saves (any subset,
in this order; ``jmeter.save.saveservice.*`` chooses them)::

    timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,
    sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect
    1795790190647,592,nginx-home,200,OK,users 1-1,text,true,,414,2,2,http://127.0.0.1:18840/,592,0,546

JMeter 2.x writes no header by default (``print_field_names=false``). A file
without one is read with the columns of JMeter's defaults for its number of
fields (:data:`LAYOUTS`), checked on every line (a time stamp, ``true`` or
``false`` where ``success`` is, whole numbers where counts are); another
set of columns cannot be told from the values alone and is refused, asking
for the header. A tab (``default_delimiter=\\t``) is read like a comma.
What each column becomes, and the run the samples make, is in
:mod:`lbanalysis.readers.jmeter.shared`; columns JMeter adds for
``sample_variables`` are not kept.

>>> p = parse(Segment("timeStamp,elapsed,label,responseCode,success\\n1795790205014,260,GET,200,true\\n"))
>>> p.runs[0]["requests"], p.runs[0]["latency_mean_s"], p.tables["requests"][0]["label"]
(1, 0.26, 'GET')
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterator

from ...errors import ParseError
from ...text import Segment
from ..base import Format, Parsed
from .shared import error_of, parse_time, status_of, summarize

__all__ = ["COLUMNS", "FORMATS", "LAYOUTS", "detect", "parse"]

# CSV column -> (requests column, how its text is read: "ms" milliseconds to s, "int", "text", ...)
COLUMNS: dict[str, tuple[str, str]] = {
    "timeStamp": ("start_ms", "time"),
    "elapsed": ("latency_s", "ms"),
    "label": ("label", "text"),
    "responseCode": ("status", "code"),
    "responseMessage": ("_message", "text"),
    "threadName": ("thread", "text"),
    "dataType": ("", "text"),
    "success": ("success", "bool"),
    "failureMessage": ("_failure", "text"),
    "bytes": ("bytes", "int"),
    "sentBytes": ("bytes_sent", "int"),
    "grpThreads": ("group_threads", "int"),
    "allThreads": ("threads", "int"),
    "URL": ("url", "url"),
    "Filename": ("", "text"),
    "Latency": ("first_byte_s", "ms"),
    "Encoding": ("", "text"),
    "SampleCount": ("", "int"),
    "ErrorCount": ("", "int"),
    "Hostname": ("", "text"),
    "IdleTime": ("idle_s", "ms"),
    "Connect": ("connect_s", "ms"),
}
_2X = "timeStamp elapsed label responseCode responseMessage threadName dataType success bytes grpThreads allThreads"
_5X = _2X.replace("success bytes", "success failureMessage bytes sentBytes")
#: The columns of a file without a header, by its number of fields: JMeter's defaults of each version.
LAYOUTS: dict[int, tuple[str, ...]] = {
    12: (*_2X.split(), "Latency"),  # JMeter 2.x default
    13: (*_2X.split(), "Latency", "Connect"),  # 2.13 with connect_time=true
    16: (*_5X.split(), "Latency", "IdleTime", "Connect"),  # JMeter 3.1-4.x default
    17: (*_5X.split(), "URL", "Latency", "IdleTime", "Connect"),  # JMeter 5.x default
}
_STAMP_RE = re.compile(r"^(?:\d{12,13}|\d{4}[/-]\d\d[/-]\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,6})?)$")
_WHOLE_RE = re.compile(r"^-?\d{1,15}$")
# how a headerless file's values must look, by how the column is read
_LOOKS: dict[str, Callable[[str], bool]] = {
    "time": lambda v: bool(_STAMP_RE.match(v)),
    "ms": str.isdigit,
    "int": str.isdigit,
    "bool": lambda v: v in ("true", "false"),
    "url": lambda v: v in ("", "null") or "://" in v,
}


def _split(line: str) -> list[str]:
    """The fields of one line (a tab-separated one if it holds a tab); none for a line no CSV reader takes.

    >>> _split('1,"a,b",c'), _split("x" * 200_000)
    (['1', 'a,b', 'c'], [])
    """
    delimiter = "\t" if "\t" in line else ","
    try:
        return next(csv.reader([line], delimiter=delimiter), [])
    except csv.Error:  # a field over the csv module's limit: no JMeter line
        return []


def _header(first: str) -> list[str] | None:
    """The column names of a header line, else None.

    >>> _header("timeStamp,elapsed,label"), _header("1795790205014,260,GET")
    (['timeStamp', 'elapsed', 'label'], None)
    """
    names = _split(first.strip())
    known = [n for n in names if n in COLUMNS]
    if len(known) >= 2 and names[0] in COLUMNS and ("elapsed" in names or "timeStamp" in names):
        return names
    return None


def _fits(layout: tuple[str, ...], fields: list[str]) -> bool:
    return len(fields) == len(layout) and all(
        _LOOKS.get(COLUMNS[c][1], lambda v: True)(v) for c, v in zip(layout, fields, strict=True)
    )


def detect(text: str) -> bool:
    """True for a JMeter CSV results file: its header, or a first line of one of JMeter's default layouts.

    >>> detect("1795790177074,24,GET,200,OK,users 1-1,text,true,414,4,4,24\\n"), detect("a,b\\n1,2\\n")
    (True, False)
    """
    first = text.lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
    if _header(first) is not None:
        return True
    fields = _split(first)
    layout = LAYOUTS.get(len(fields))
    return layout is not None and _fits(layout, fields)


def _value(kind: str, raw: str, seg: Segment, n: int, col: str) -> object:
    if kind == "text":
        return raw
    if kind == "time":
        return parse_time(raw, seg.source, n)
    if kind == "bool":
        if raw not in ("true", "false"):
            raise ParseError(f"not true or false in column {col!r}: {raw!r}", source=seg.source, line=n, text=raw)
        return raw == "true"
    if kind == "url":
        return raw if raw not in ("", "null") else None
    if kind == "code":
        return status_of(raw)
    if not _WHOLE_RE.match(raw):  # no count or time of JMeter's has 16 digits
        raise ParseError(f"not a whole number in column {col!r}: {raw!r}", source=seg.source, line=n, text=raw[:40])
    v = int(raw)
    return v / 1e3 if kind == "ms" else v


def _lines(reader: Iterator[list[str]], seg: Segment) -> Iterator[list[str]]:
    """The CSV reader's rows; what it cannot read (a field over its limit) is a ParseError naming the line."""
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            line = getattr(reader, "line_num", 0)
            raise ParseError(f"not a JMeter CSV line: {e}", source=seg.source, line=line) from None
        yield fields


def _names(first: str, seg: Segment) -> tuple[list[str], bool]:
    """The file's columns (its header, else JMeter's default layout for its number of fields) and whether it has a header."""
    names = _header(first)
    if names is not None:
        return names, True
    fields = _split(first)
    names = list(LAYOUTS.get(len(fields), ()))
    if not names:
        raise ParseError(f"a JMeter CSV without a header, with {len(fields)} fields: no default layout has "
                         "them; save it with its header (jmeter.save.saveservice.print_field_names=true)",
                         source=seg.source, line=1, text=first[:200])  # fmt: skip
    return names, False


def _sample(fields: list[str], names: list[str], cols: list[tuple], seg: Segment, n: int) -> dict:
    """One line's sample: its requests columns read by :data:`COLUMNS`, a failed sample's error."""
    s = {key: _value(kind, fields[i], seg, n, name) for i, name, key, kind in cols}
    if s.get("status") is None:
        s.pop("status", None)
    failed = s.get("success") is False or s.get("status") == 0
    message, failure = s.pop("_message", ""), s.pop("_failure", "")
    if failed:
        raw_code = fields[names.index("responseCode")] if "responseCode" in names else ""
        s["error"] = error_of(raw_code, str(message), str(failure)) or None
    return {k: v for k, v in s.items() if v is not None}


def parse(seg: Segment) -> Parsed:
    """Read a JMeter CSV results file: one run, a requests row per sample."""
    text = seg.text.lstrip("\ufeff")
    first = text.split("\n", 1)[0].rstrip("\r")
    names, headed = _names(first, seg)
    skip = 1 if headed else 0
    delimiter = "\t" if "\t" in first else ","
    cols = [(i, name, *COLUMNS[name]) for i, name in enumerate(names) if name in COLUMNS and COLUMNS[name][0]]
    samples = []
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    for fields in _lines(reader, seg):
        n = reader.line_num
        if n <= skip or not fields or not any(f.strip() for f in fields):
            continue
        if len(fields) != len(names):
            raise ParseError(f"expected {len(names)} fields, found {len(fields)}", source=seg.source, line=n,
                             text=delimiter.join(fields)[:200])  # fmt: skip
        if not skip and not _fits(tuple(names), fields):
            raise ParseError("a JMeter CSV without a header whose values do not fit JMeter's default columns; "
                             "save it with its header (jmeter.save.saveservice.print_field_names=true)",
                             source=seg.source, line=n, text=delimiter.join(fields)[:200])  # fmt: skip
        samples.append(_sample(fields, names, cols, seg, n))
    return summarize(samples, {key for _, _, key, _ in cols if not key.startswith("_")})


FORMATS = [
    Format("jmeter-csv", "jmeter", detect, parse, whole_file=True,
           description="JMeter results (JTL) as CSV, with or without its header"),
]  # fmt: skip
