"""Ports for the servers the live tests start on 127.0.0.1.

A port the kernel picks (``bind(("127.0.0.1", 0))``), closed and handed to a server that binds it a moment later,
comes from the range the kernel also gives connections' own ends: a load test running in another worker opens
thousands of connections, and one of them may take it in between (a report's kernel died so in a CI run). These
ports are chosen below that range instead, which no connection is given, each pytest-xdist worker in a part of its
own, at random, and checked to be free.
"""

from __future__ import annotations

import os
import random
import socket
from pathlib import Path

#: The lowest port chosen: below it stand the well-known and registered ports of common services.
LOWEST = 10_000


def ephemeral_range() -> tuple[int, int]:
    """The kernel's range of ports for connections' own ends (Linux's ``ip_local_port_range``, else its default).

    >>> lo, hi = ephemeral_range(); 1024 <= lo < hi <= 65535
    True
    """
    try:
        lo, hi = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
        return lo, hi
    except (OSError, ValueError):
        return 32768, 60999


def _pool() -> range:
    """This worker's part of the ports outside the ephemeral range (below it, else above it)."""
    lo, hi = ephemeral_range()
    ports = range(LOWEST, lo) if lo - LOWEST >= 2_000 else range(hi + 1, 65536)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    index = int(worker) if worker.isdigit() else 0
    count = max(int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")), index + 1)
    share = len(ports) // count
    return ports[index * share : (index + 1) * share]


def free_ports(n: int) -> list[int]:
    """``n`` distinct ports of 127.0.0.1 that nothing is bound to, outside the ephemeral range.

    >>> a, b = free_ports(2); a != b and not ephemeral_range()[0] <= a <= ephemeral_range()[1]
    True
    """
    found: list[int] = []
    pool = _pool()
    for port in random.sample(pool, len(pool)):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        found.append(port)
        if len(found) == n:
            return found
    raise RuntimeError(f"fewer than {n} free ports of 127.0.0.1 in {pool}")


def free_port() -> int:
    """One port of :func:`free_ports`."""
    return free_ports(1)[0]
