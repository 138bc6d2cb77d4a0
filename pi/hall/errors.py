"""Exceptions of the hall: messages off the network that are not the protocol's, pairings files
and ``damiera hub init``'s refusals (bad input), and a share of the hub that another process
already runs on the state directory (state). One line each, shown or logged as is."""

from __future__ import annotations

from engine.errors import InputError, StateError

__all__ = ["BadMessage", "PairingError", "HallInitError", "DemoError", "ShareClaimError"]


class BadMessage(InputError):
    """A message that is not the protocol's: one line, for the log; the message is dropped."""


class PairingError(InputError):
    """A bad pairings CSV: one line naming the CSV line."""


class HallInitError(InputError):
    """A refusal of ``damiera hub init`` (one line, exit 2); nothing was written."""


class DemoError(InputError):
    """``damiera hub demo`` cannot start (options, no Mosquitto, a broker that exits): one
    line, exit 2."""


class ShareClaimError(StateError):
    """A share of the hub (``damiera hub --share K/N``) whose boards another process of the
    same state directory already takes: one line, exit 2; nothing was touched."""
