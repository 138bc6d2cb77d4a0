"""Whether a board's ``ack`` is the board's own (``pi/hall/PROTOCOL.md``, "Acknowledgements").

A board with a key signs every ``ack`` (``pi.hall.signing.ack_mac``). A pairing's ack is what
stops the hub sending the pairing again, so it must be signed by the board's key: unsigned, or
signed otherwise, it is refused (someone else with the board's broker password, or a board older
than signed acks: the pairing is sent again, done at most once). An action's ack confirms nothing
by itself (its signed journal line does), so an unsigned one is taken as before; one whose mac
is there and wrong is refused all the same (a forgery). A board accepted unsigned is taken as it
is; one neither keyed nor accepted is refused, as its lines are.

Pure: no I/O, no state; the hub logs the reason (one line) and drops the ack.
"""

from __future__ import annotations

from pi.hall.protocol import Ack
from pi.hall.signing import ack_mac, same_mac

__all__ = ["ack_refusal"]


def ack_refusal(signing: str, key: bytes | None, ack: Ack, *, pairing: bool) -> str | None:
    """Why ``ack`` is not the board's (one line), or None when it is taken. ``signing``: the
    board's mode in ``hub.toml`` (``HubConfig.signing``: ``signed``, ``unsigned``, ``refused``),
    ``key`` its key when signed; ``pairing``: the ack answers the pairing the hub sent it."""
    if signing == "unsigned":
        return None
    if signing == "refused" or key is None:
        return "the board has no key in hub.toml and is not in accept_unsigned"
    if ack.mac is None:
        return "a pairing's ack not signed by the board (PROTOCOL.md)" if pairing else None
    if not same_mac(ack.mac, ack_mac(key, ack.body)):
        return "not signed by the board's key (someone else publishes with its credentials?)"
    return None
