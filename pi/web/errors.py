"""Exceptions of the board's web server."""

from __future__ import annotations

from engine.errors import NetworkError

__all__ = ["WebError"]


class WebError(NetworkError):
    """The web server cannot start (its address is in use or not this host's): one line."""
