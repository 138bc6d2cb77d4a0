"""Exceptions of the hall: messages off the network that are not the protocol's, pairings files
and ``damiera hub init``'s refusals (bad input). One line each, shown or logged as is."""

from __future__ import annotations

from engine.errors import InputError

__all__ = ["BadMessage", "PairingError", "HallInitError", "DemoError"]


class BadMessage(InputError):
    """A message that is not the protocol's: one line, for the log; the message is dropped."""


class PairingError(InputError):
    """A bad pairings CSV: one line naming the CSV line."""


class HallInitError(InputError):
    """A refusal of ``damiera hub init`` (one line, exit 2); nothing was written."""


class DemoError(InputError):
    """``damiera hub demo`` cannot start (options, no Mosquitto, a broker that exits): one
    line, exit 2."""
