"""Fault records of the sensors: what the scan loop hands to the daemon beside piece events, and
:class:`Inbox`, where every driver thread hands what it sensed.

Run-time sensor faults are records, not exceptions: the process never dies of a sensor problem.
A :class:`SensorFault` is reported once per outage and followed, when the sensors can be trusted
again, by a :class:`SensorFaultCleared` for the same chip, squares and ``kind`` (and a
``SnapshotTaken`` when the occupancy had to be read afresh).

Their messages and kinds are English (the journal's ``fault`` line, the logs), made from
template msgids (:mod:`engine.i18n`): the OLED, the terminal and the pages show them in their
language with ``localize``, as they do the flags.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, Union

from engine.events import ButtonPressed, PieceChanged, PieceLifted, PiecePlaced, SnapshotTaken
from engine.i18n import N_

#: ``SensorFault.kind`` values.
NO_ANSWER = N_("no answer")
CHATTERING = N_("chattering")
STUCK_CLOSED = N_("stuck closed")
RESET = N_("reset")
FAULT_KINDS = (NO_ANSWER, CHATTERING, STUCK_CLOSED, RESET)


@dataclass(frozen=True, slots=True)
class SensorFault:
    """Sensors that cannot be trusted: chip ``address`` and the (logical) ``squares`` concerned.

    ``kind``: ``"no answer"`` (NACK, EIO, bus lost), ``"chattering"``, ``"stuck closed"`` or
    ``"reset"`` (the chip answers but came back with its power-on configuration: it is set up
    again and the fault cleared in the same scan).
    """

    t: float
    address: int
    squares: tuple[str, ...]
    kind: str
    detail: str = ""

    @property
    def message(self) -> str:
        return N_("sensor fault: {chip}, squares {squares}").format(
            chip=f"0x{self.address:02x}", squares=" ".join(self.squares))

    @property
    def shown(self) -> str:
        """The screen's line: the message and the kind (``sensor fault: 0x21, squares c3 e3
        (no answer)``), in English, localized where it is shown."""
        return N_("sensor fault: {chip}, squares {squares} ({kind})").format(
            chip=f"0x{self.address:02x}", squares=" ".join(self.squares), kind=self.kind)

    def to_dict(self) -> dict[str, Any]:
        """The journal's ``fault`` line (docs/trace-format.md)."""
        return {"t": self.t, "type": "fault", "squares": list(self.squares),
                "message": self.message}


@dataclass(frozen=True, slots=True)
class SensorFaultCleared:
    """A fault reported earlier is over (the chip answers again, the square is quiet again)."""

    t: float
    address: int
    squares: tuple[str, ...]
    kind: str

    @property
    def message(self) -> str:
        return N_("sensor ok: {chip}, squares {squares}").format(
            chip=f"0x{self.address:02x}", squares=" ".join(self.squares))

    def to_dict(self) -> dict[str, Any]:
        """The journal's ``fault_cleared`` line (docs/trace-format.md)."""
        return {"t": self.t, "type": "fault_cleared", "squares": list(self.squares)}


@dataclass(frozen=True, slots=True)
class SensorInterrupt:
    """Put on the inbox by the interrupt line while no scan loop is attached
    (``Hardware.on_interrupt`` is None): some expander saw a change; scan now."""


#: Everything a scan returns, in order: piece events and fault records (PieceChanged only from
#: a board that knows the pieces, :mod:`pi.drivers.analog`).
SensorOutput = Union[PieceLifted, PiecePlaced, PieceChanged, SnapshotTaken, SensorFault,
                     SensorFaultCleared]


class Inbox(Protocol):
    """Where the drivers' threads (gpiozero's callbacks, the serial reader) hand what they
    sensed: the daemon's bridge into its event loop (``pi.board.handoff.LoopInbox``), or a plain
    ``queue.Queue`` in the tests. ``put`` is safe from any thread and never blocks."""

    def put(self, item: ButtonPressed | SensorInterrupt, /) -> None: ...
