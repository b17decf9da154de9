"""sysstat ``pidstat -u``: one ``cpu`` row per process line, scope ``process``.

The host comes from its first line. ``%CPU`` is the process's share of one
core (``cpu_pct``: 200 is two cores busy), ``%usr`` and ``%system`` its
parts (``user_pct``, ``system_pct``, also of one core); ``PID`` and
``Command`` name it. ``Average:`` lines are pidstat's own means
(``summary`` 'average'). ``UID``, ``%guest``, ``%wait`` and the core it
last ran on (``CPU``) are not kept. See :mod:`lbanalysis.readers.cpu.sysstat`.

>>> text = ("Linux 6.1.0 (lb-1) \\t11/27/2026 \\t_x86_64_\\t(2 CPU)\\n\\n"
...         "14:40:01      UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command\\n"
...         "14:40:02        0      4242   61.00   38.00    0.00    0.00   99.00     1  haproxy\\n")
>>> r = parse(Segment(text)).tables["cpu"][0]
>>> r["scope"], r["pid"], r["cpu_pct"], r["command"]
('process', 4242, 99.0, 'haproxy')
"""

from __future__ import annotations

from ...text import Segment
from ..base import Format, Parsed
from .shared import sysstat_trailer
from .sysstat import header_names, read_tables

__all__ = ["FORMATS", "parse"]


def parse(seg: Segment) -> Parsed:
    """A pidstat -u report into rows of the ``cpu`` table."""
    return Parsed(tables={"cpu": read_tables(seg, "pidstat")})


def detect(text: str) -> bool:
    """sysstat's host line, then a table of processes with their %CPU."""
    names = header_names(text)
    return "PID" in names and "%CPU" in names and "Command" in names


FORMATS = [Format("pidstat", "pidstat", detect, parse, trailer=sysstat_trailer, description="pidstat -u")]
