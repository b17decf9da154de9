"""``dstat`` and ``dool``: the screen (``dstat -tcy``) and the ``--output`` CSV, one ``cpu`` row per line, scope ``all``.

::

    ----system---- --total-cpu-usage-- ---system--
         time     |usr sys idl wai stl| int   csw
    27-11 14:39:27| 51  16  32   0   0|1994  6532

The CSV (``--output FILE``) opens with a block naming the tool, the host
(``"Host:","vm"``), the command and the date, then the same two header rows
as cells. The columns are found by group and name: the ``total cpu usage``
group's ``usr``, ``sys``, ``idl``, ``wai``, ``stl`` (``hiq``, ``siq`` in
older versions: ``irq_pct``, ``softirq_pct``), the ``system`` group's ``int``
and ``csw`` (large counts shortened with a decimal suffix: ``38k``), and the ``time`` column (``dd-mm HH:MM:SS`` on screen, dool's
CSV ``Mon-dd HH:MM:SS``, on the year of the CSV's date; the screen shows no
year: its times stay empty). The first line averages since the host booted
(``summary`` 'since boot'). A single-core group (``cpu0 usage``) is that
core's scope.

>>> text = ("----system---- --total-cpu-usage-- ---system--\\n"
...         "     time     |usr sys idl wai stl| int   csw \\n"
...         "27-11 14:39:27| 51  16  32   0   0|1994  6532 \\n"
...         "27-11 14:39:28| 86  14   0   0   0| 765  1970 \\n")
>>> [(r["busy_pct"], r["context_switches_per_s"]) for r in parse(Segment(text)).tables["cpu"]]
[(68.0, 6532.0), (100.0, 1970.0)]
"""

from __future__ import annotations

import csv
import io
import re
from datetime import datetime

from ...errors import ParseError
from ...text import Segment
from ...units import DECIMAL
from ..base import Format, Parsed, to_float
from .shared import cpu_row

__all__ = ["CPU_NAMES", "FORMATS", "SYSTEM_NAMES", "parse", "parse_csv"]

#: the names of a cpu group's columns -> cpu columns
CPU_NAMES = {
    "usr": "user_pct",
    "sys": "system_pct",
    "idl": "idle_pct",
    "wai": "iowait_pct",
    "stl": "steal_pct",
    "hiq": "irq_pct",
    "siq": "softirq_pct",
}
#: the system group's columns -> cpu columns
SYSTEM_NAMES = {"int": "interrupts_per_s", "csw": "context_switches_per_s"}

_GROUP_RE = re.compile(r"-*([a-z][\w /-]*?)-*(?=\s|\||$)")
_SCREEN_RE = re.compile(r"^-+system-+|^-*total-cpu-usage-+|^-+cpu\d+-usage-+", re.MULTILINE)


def _scope(group: str) -> str | None:
    """The scope of a cpu group's name, None for another group.

    >>> _scope("total cpu usage"), _scope("cpu1-usage"), _scope("system")
    ('all', '1', None)
    """
    group = group.replace("-", " ").strip()
    if group == "total cpu usage":
        return "all"
    m = re.fullmatch(r"cpu(\d+) usage", group)
    return m[1] if m else None


def _columns(groups: list[str], names: list[str]) -> list[tuple[str, str]]:
    """(scope or 'system' or 'time', cpu column) of each column, from its group and name."""
    out = []
    for group, name in zip(groups, names, strict=True):
        scope = _scope(group)
        if name == "time":
            out.append(("time", "time"))
        elif scope is not None and name in CPU_NAMES:
            out.append((scope, CPU_NAMES[name]))
        elif group.strip() == "system" and name in SYSTEM_NAMES:
            out.append(("system", SYSTEM_NAMES[name]))
        else:
            out.append(("", ""))
    return out


def _time(text: str, year: int | None) -> str | None:
    """An ISO time from dstat's ``27-11 14:39:27`` or dool's ``Nov-27 14:39:26`` (None without the year).

    >>> _time("27-11 14:39:27", 2026), _time("Nov-27 14:39:26", 2026), _time("27-11 14:39:27", None)
    ('2026-11-27 14:39:27', '2026-11-27 14:39:26', None)
    """
    if year is None:
        return None
    for fmt in ("%d-%m %H:%M:%S", "%b-%d %H:%M:%S"):
        try:
            return datetime.strptime(f"{year} {text.strip()}", f"%Y {fmt}").isoformat(sep=" ")
        except ValueError:
            continue
    return None


_SUFFIXED_RE = re.compile(r"^(\d+(?:\.\d+)?)([kKMGT]?)$")


def _value(cell: str) -> float | None:
    """A cell's figure: dstat shortens large counts with a decimal suffix (``38k``, ``1.2M``).

    >>> _value("38k"), _value("1994"), _value("0.369"), _value("")
    (38000.0, 1994.0, 0.369, None)
    """
    m = _SUFFIXED_RE.match(cell.strip())
    if m is None:
        return to_float(cell) if cell.strip() else None
    return float(m[1]) * DECIMAL[m[2].upper()]


def _rows(table: list[tuple[int, list[str]]], columns: list[tuple[str, str]], year: int | None, host: str | None,
          seg: Segment) -> list[dict]:  # fmt: skip
    """One cpu row per line and cpu group, the system group's figures on each."""
    rows: list[dict] = []
    scopes = list(dict.fromkeys(s for s, _ in columns if s not in ("", "time", "system")))
    for k, (n, cells) in enumerate(table):
        if len(cells) != len(columns):
            raise ParseError(
                f"{len(cells)} values under {len(columns)} columns",
                source=seg.source,
                line=seg.line - 1 + n,
                text=" ".join(cells),
            )
        when = next((_time(c, year) for (s, _), c in zip(columns, cells, strict=True) if s == "time"), None)
        system = {col: _value(c) for (s, col), c in zip(columns, cells, strict=True) if s == "system"}
        for scope in scopes:
            figures = {col: _value(c) for (s, col), c in zip(columns, cells, strict=True) if s == scope}
            row = cpu_row("dstat", n, scope=scope, host=host, time=when, **figures, **system)
            if scope != "all":
                row["cores"] = 1.0
            if k == 0:
                row["summary"] = "since boot"
            rows.append(row)
    return rows


def parse(seg: Segment) -> Parsed:
    """dstat's screen into rows of the ``cpu`` table."""
    lines = seg.text.split("\n")
    start = next((i for i, ln in enumerate(lines) if _SCREEN_RE.match(ln)), None)
    if start is None or start + 1 >= len(lines):
        raise ParseError("no dstat header (----system---- --total-cpu-usage--)", source=seg.source, line=seg.line)
    groups_line, names_line = lines[start], lines[start + 1]
    groups = [g.strip("-").replace("-", " ") for g in re.split(r"\s+|\|", groups_line) if g.strip("-")]
    blocks_names = [b.split() for b in names_line.split("|")]
    names, group_of = [], []
    for g, block in zip(groups, blocks_names, strict=False):
        names.extend(block)
        group_of.extend([g] * len(block))
    columns = _columns(group_of, names)
    table = []
    for i in range(start + 2, len(lines)):
        line = lines[i].rstrip()
        if not line.strip() or _SCREEN_RE.match(line) or line.lstrip().startswith(("time", "usr")):
            continue
        cells = []
        for j, block in enumerate(line.split("|")):
            cells.extend([block.strip()] if names and j == 0 and "time" in blocks_names[0] else block.split())
        table.append((i + 1, cells))
    return Parsed(tables={"cpu": _rows(table, columns, None, None, seg)})


def parse_csv(seg: Segment) -> Parsed:
    """dstat's or dool's ``--output`` CSV into rows of the ``cpu`` table."""
    records = list(csv.reader(io.StringIO(seg.text)))
    host, year, groups, names, table = None, None, None, None, []
    for n, rec in enumerate(records, start=1):
        if not any(c.strip() for c in rec):
            continue
        if names is not None:
            table.append((n, rec))
        elif groups is not None:
            names = rec
        elif rec[0] == "Host:":
            host = rec[1] or None
        elif "Date:" in rec:
            m = re.search(r"\b(\d{4})\b", rec[rec.index("Date:") + 1] if rec.index("Date:") + 1 < len(rec) else "")
            year = int(m[1]) if m else None
        elif any(_scope(c) for c in rec if c):
            groups = []
            for c in rec:
                groups.append(c or (groups[-1] if groups else ""))
    if groups is None or names is None:
        raise ParseError('no dstat CSV header ("system","total cpu usage", ...)', source=seg.source, line=1)
    groups = groups + [groups[-1]] * (len(names) - len(groups))
    return Parsed(tables={"cpu": _rows(table, _columns(groups[: len(names)], names), year, host, seg)})


def detect(text: str) -> bool:
    """dstat's screen header: a ``----system----`` or cpu usage group line, the names under it."""
    return bool(_SCREEN_RE.search(text[:3000])) and "usr sys idl" in text[:3000]


def trailer(text: str) -> int | None:
    """Where dstat's header begins after another tool's output, else None."""
    m = _SCREEN_RE.search(text) if "usr sys idl" in text else None
    return None if m is None else m.start()


def detect_csv(text: str) -> bool:
    """The CSV's first cell: ``"Dstat 0.8.0 CSV output"`` or ``"dool 1.3.8 CSV output"``."""
    return bool(re.match(r'^"(?:Dstat|dool|pcp-dstat)\b[^"]* CSV output"', text.lstrip()))


FORMATS = [
    Format("dstat-csv", "dstat", detect_csv, parse_csv, whole_file=True, description="dstat/dool --output CSV"),
    Format("dstat", "dstat", detect, parse, trailer=trailer, description="dstat/dool screen"),
]
