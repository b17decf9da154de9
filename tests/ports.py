"""Ports for the servers the live tests start on 127.0.0.1: outside the range the kernel gives connections' own
ends (:func:`lbanalysis.sweep.settings.listening_ports`: a load test in another worker opens thousands of
connections, and one could take a port found free there before its server binds it), each pytest-xdist worker in a
part of its own.
"""

from __future__ import annotations

import os

from lbanalysis.sweep.settings import free_ports as _free_ports
from lbanalysis.sweep.settings import listening_ports


def _mine() -> range:
    """This worker's part of :func:`~lbanalysis.sweep.settings.listening_ports`."""
    ports = listening_ports()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    index = int(worker) if worker.isdigit() else 0
    count = max(int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")), index + 1)
    share = len(ports) // count
    return ports[index * share : (index + 1) * share]


def free_ports(n: int) -> list[int]:
    """``n`` distinct ports of 127.0.0.1 that nothing is bound to, in this worker's part of the listening ports.

    >>> a, b = free_ports(2); a != b and a in _mine() and b in _mine()
    True
    """
    return _free_ports("127.0.0.1", n, _mine())


def free_port() -> int:
    """One port of :func:`free_ports`."""
    return free_ports(1)[0]
