"""A cable that can be pulled: a TCP relay on a free loopback port to a target port, for a
board whose network goes away while it plays on.

    with Cable(broker.port) as cable:     # the board connects to 127.0.0.1:cable.port
        cable.cut()                       # every connection through it dropped, new ones refused
        cable.mend()                      # connections pass again

Nothing here reaches any address but 127.0.0.1.
"""

from __future__ import annotations

import socket
import threading

__all__ = ["Cable"]


class Cable:
    """The relay (module docstring). Threads: one accepting, two per connection."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(64)
        self.port = int(self.server.getsockname()[1])
        self.open = True
        self._closed = False
        self._lock = threading.Lock()
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            with self._lock:
                if not self.open:
                    client.close()
                    continue
                try:
                    upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5)
                except OSError:
                    client.close()
                    continue
                upstream.settimeout(None)
                self._pairs.append((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        """The network goes: every connection through the cable is dropped (both ends see it
        closed) and new ones are refused until :meth:`mend`."""
        with self._lock:
            self.open = False
            pairs, self._pairs = self._pairs, []
        for pair in pairs:
            for s in pair:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()

    def mend(self) -> None:
        with self._lock:
            self.open = True

    def close(self) -> None:
        self._closed = True
        self.cut()
        self.server.close()

    def __enter__(self) -> Cable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
