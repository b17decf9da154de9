"""sysstat ``sar -u`` (``-u ALL``) and ``sar -P ALL``: one ``cpu`` row per CPU line.

The host, date and cores come from its first line; each interval prints
``all`` (and with ``-P`` each core: scope ``all`` or the core id);
``Average:`` lines are sar's own means (``summary`` 'average'). ``%user``
(``%usr``) + ``%nice`` is ``user_pct``, ``%system`` (``%sys``)
``system_pct``. See :mod:`lbanalysis.readers.cpu.sysstat`.

>>> text = ("Linux 6.1.0 (web-1) \\t11/27/2026 \\t_x86_64_\\t(4 CPU)\\n\\n"
...         "14:40:01        CPU     %user     %nice   %system   %iowait    %steal     %idle\\n"
...         "14:40:02        all     40.00      0.00     10.00      1.00      0.00     49.00\\n")
>>> r = parse(Segment(text)).tables["cpu"][0]
>>> r["host"], r["busy_pct"], r["cores"], r["tool"]
('web-1', 50.0, 4.0, 'sar')
"""

from __future__ import annotations

from ...text import Segment
from ..base import Format, Parsed
from .shared import sysstat_trailer
from .sysstat import header_names, read_tables

__all__ = ["FORMATS", "SIGNATURES", "parse"]

#: how sar's CPU tables begin: -u, and -u ALL (%steal before %irq: not mpstat's order)
SIGNATURES = (("CPU", "%user", "%nice", "%system"), ("CPU", "%usr", "%nice", "%sys", "%iowait", "%steal"))


def parse(seg: Segment) -> Parsed:
    """A sar CPU report into rows of the ``cpu`` table."""
    return Parsed(tables={"cpu": read_tables(seg, "sar")})


def detect(text: str) -> bool:
    """sysstat's host line, then a table whose columns begin as sar's CPU report."""
    names = tuple(header_names(text))
    return any(names[: len(s)] == s for s in SIGNATURES)


FORMATS = [Format("sar", "sar", detect, parse, trailer=sysstat_trailer, description="sar -u and -P ALL")]
