"""sysstat ``mpstat`` (``-P ALL`` or ``-P 0,1``, or all CPUs alone): one ``cpu`` row per CPU line.

The host, date and cores come from its first line; each interval prints
``all`` then each core (scope ``all`` or the core id); ``Average:`` lines
are mpstat's own means (``summary`` 'average'). ``%usr`` + ``%nice`` is
``user_pct``; ``%sys`` ``system_pct``, ``%irq`` ``irq_pct``, ``%soft``
``softirq_pct``; ``%guest`` and ``%gnice`` (counted in ``%usr`` and
``%nice`` by the kernel) are not kept. See :mod:`lbanalysis.readers.cpu.sysstat`.

>>> text = ("Linux 6.1.0 (lb-1) \\t11/27/2026 \\t_x86_64_\\t(2 CPU)\\n\\n"
...         "14:40:01     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle\\n"
...         "14:40:02       1   90.00    0.00    8.00    0.00    0.00    2.00    0.00    0.00    0.00    0.00\\n")
>>> r = parse(Segment(text)).tables["cpu"][0]
>>> r["scope"], r["busy_pct"], r["softirq_pct"], r["cores"]
('1', 100.0, 2.0, 1.0)
"""

from __future__ import annotations

from ...text import Segment
from ..base import Format, Parsed
from .shared import sysstat_trailer
from .sysstat import header_names, read_tables

__all__ = ["FORMATS", "parse"]

#: the columns that make a sysstat CPU table mpstat's (sar -u ALL prints %steal before %irq)
SIGNATURE = ("CPU", "%usr", "%nice", "%sys", "%iowait", "%irq")


def parse(seg: Segment) -> Parsed:
    """An mpstat report into rows of the ``cpu`` table."""
    return Parsed(tables={"cpu": read_tables(seg, "mpstat")})


def detect(text: str) -> bool:
    """sysstat's host line, then a table whose columns begin as mpstat's."""
    return tuple(header_names(text)[: len(SIGNATURE)]) == SIGNATURE


FORMATS = [Format("mpstat", "mpstat", detect, parse, trailer=sysstat_trailer, description="mpstat (-P ALL)")]
