"""Loopback ports for the servers the tests start (brokers, daemons, hubs, nginx).

A port is drawn at random below the kernel's ephemeral range and checked free by binding it.
The kernel's own choice (bind to port 0) comes from the ephemeral range, the one every outgoing
connection draws its local port from: between the moment a test picks such a port and the moment
its server listens on it (a process to start, a hall's files to write first), another process's
connection could take it, and the server then fails with "Address already in use" — a flaky
test. Below the range only another test's pick can collide, one chance in some twenty thousand.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

__all__ = ["free_port"]

_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")


def _lowest_ephemeral() -> int:
    try:
        return int(_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


def free_port() -> int:
    """A port on 127.0.0.1 nobody listens on now, below the ephemeral range."""
    low = _lowest_ephemeral()
    for port in random.sample(range(10000, low), min(200, low - 10000)):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in 10000-{low}")
