"""A virtual board of physical pieces that drives the fake expanders through a wiring file.

Squares given to its methods are *logical* (White's view); ``rotation`` says how the physical
sensor board is turned (as in :mod:`engine.squares`), so a test can put a board down turned by 90°.
Every change updates the chips' pin levels, latches their interrupts, and drives the shared INT
line (a gpiozero MockPin: low while any chip asserts INT).

On an analog Hall wiring (``kind = "analog-hall"``) the pieces are real ones, colour and crown:
a :class:`~hardware_mocks.field.FieldModel` (``field``) gives each ADC input its conversions. A
piece put down without saying which is the one lifted last (a move: lift, place), else one of the
side whose half of the board the square is on; :meth:`crown` stacks a second man on a man,
:meth:`uncrown` lifts a king's top man off.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import random

from engine.board import Piece
from engine.colour import BLACK, WHITE
from engine.squares import parse_square, rotate_square, unrotate_square
from hardware_mocks.chips.adcs import MID_CODE, FakeADC
from hardware_mocks.field import FieldModel
from hardware_mocks.smbus import CHIP_MODELS, FakeChip, FakeI2CBus
from pi.drivers.wiring import Wiring


class VirtualBoard:
    """Pieces on squares; ``bus`` gets one fake chip per wiring chip (created if absent)."""

    def __init__(self, wiring: Wiring, bus: FakeI2CBus, *, rotation: int = 0,
                 interrupt_pin: Any = None, field: FieldModel | None = None,
                 seed: int = 40) -> None:
        self.wiring = wiring
        self.bus = bus
        self.rotation = rotation % 4
        self.interrupt_pin = interrupt_pin
        self.pieces: set[str] = set()  # physical squares
        self._version = 0  # bumped by refresh(): the direct sources' cached masks are stale
        self.chips: dict[str, FakeChip] = {}
        for spec in wiring.chips:
            chip = bus.chips.get(spec.address)
            if chip is None:
                chip = bus.attach(CHIP_MODELS[spec.kind](spec.address))
            self.chips[spec.name] = chip
        self.field: FieldModel | None = None
        self.hand: list[Piece] = []  # pieces lifted, the last on top
        if wiring.is_analog:
            self.field = field or FieldModel(sorted(wiring.sensed_squares), wiring.size,
                                             rng=random.Random(seed))
            for spec in wiring.chips:
                chip = self.chips[spec.name]
                if isinstance(chip, FakeADC):
                    chip.analog = self._analog_source(spec.squares)
        elif wiring.matrix is None:
            for spec in wiring.chips:
                pins = [(pin, s) for pin, s in enumerate(spec.squares) if s]
                self.chips[spec.name].external_low = self._direct_source(pins)
        else:
            for name, chip in self.chips.items():
                chip.external_low = self._matrix_source(name)
        bus.listeners.append(self._update_interrupt)
        self._update_interrupt()

    def _direct_source(self, pins: list[tuple[int, str]]) -> Any:
        # The chips ask several times per transaction: compute once per change of the pieces.
        cache = [-1, 0]  # version, mask

        def external_low() -> int:
            if cache[0] != self._version:
                mask = 0
                for pin, square in pins:
                    closed = square in self.pieces
                    if closed == self.wiring.active_low:  # closed to ground, or open to pull-down
                        mask |= 1 << pin
                cache[0], cache[1] = self._version, mask
            return cache[1]
        return external_low

    def _analog_source(self, squares: tuple[str, ...]) -> Any:
        model = self.field
        assert model is not None

        def convert(channel: int) -> int:
            square = squares[channel] if channel < len(squares) else ""
            return model.code(square) if square else MID_CODE
        return convert

    def _matrix_source(self, name: str) -> Any:
        m = self.wiring.matrix
        assert m is not None

        def external_low() -> int:
            mask = 0
            for i, row in enumerate(m.rows):
                row_chip = self.chips[row.chip]
                if row_chip.driven_levels() >> row.pin & 1:
                    continue  # row not driven low: its switches pull nothing
                for j, col in enumerate(m.columns):
                    if col.chip == name and m.squares[i][j] in self.pieces:
                        mask |= 1 << col.pin
            return mask
        return external_low

    # -- squares ---------------------------------------------------------------------------
    def physical(self, square: str) -> str:
        """The physical square under logical ``square``."""
        return unrotate_square(square, self.rotation, self.wiring.size)

    @property
    def occupied(self) -> frozenset[str]:
        """Logical squares holding a piece."""
        return frozenset(rotate_square(s, self.rotation, self.wiring.size) for s in self.pieces)

    def refresh(self) -> None:
        """Re-evaluates every chip's pins and the INT line (after changing a chip by hand,
        e.g. injecting a stuck bit)."""
        self._version += 1
        for chip in self.chips.values():
            chip.refresh()
        self._update_interrupt()

    def _update_interrupt(self) -> None:
        pin = self.interrupt_pin
        if pin is None:
            return
        low = any(chip.int_asserted for chip in self.chips.values())
        if low and pin.state:
            pin.drive_low()
        elif not low and not pin.state:
            pin.drive_high()

    # -- moving pieces -----------------------------------------------------------------------
    def set_occupied(self, squares: Iterable[str],
                     pieces: dict[str, Piece] | None = None) -> None:
        """Puts pieces on exactly ``squares`` (logical), all at once; on an analog board
        ``pieces`` (logical square → piece) says which, else by the half of the board."""
        squares = list(squares)
        self.pieces = {self.physical(s) for s in squares}
        if self.field is not None:
            for p in list(self.field.pieces):
                self.field.remove(p)
            for s in squares:
                piece = (pieces or {}).get(s) or self._side_of(s)
                self.field.put(self.physical(s), piece)
        self.refresh()

    def _side_of(self, square: str) -> Piece:
        """A man of the side whose half of the board ``square`` (logical) is on."""
        rank = parse_square(square, self.wiring.size)[1]
        return Piece(WHITE if rank < self.wiring.size // 2 else BLACK, False)

    def piece(self, square: str) -> Piece | None:
        """The piece on logical ``square`` (analog boards), None when empty or unknown."""
        return None if self.field is None else self.field.pieces.get(self.physical(square))

    def place(self, *squares: str, piece: Piece | None = None) -> None:
        """Puts a piece on each square at the same instant (on an analog board ``piece``, else
        the one lifted last, see module doc)."""
        for s in squares:
            p = self.physical(s)
            if p in self.pieces:
                raise ValueError(f"{s} is already occupied")
            self.pieces.add(p)
            if self.field is not None:
                chosen = piece or (self.hand.pop() if self.hand else self._side_of(s))
                self.field.put(p, chosen)
        self.refresh()

    def lift(self, *squares: str) -> None:
        """Lifts the pieces of ``squares`` at the same instant."""
        for s in squares:
            p = self.physical(s)
            if p not in self.pieces:
                raise ValueError(f"{s} is empty")
            self.pieces.discard(p)
            if self.field is not None:
                lifted = self.field.remove(p)
                if lifted is not None:
                    self.hand.append(lifted)
        self.refresh()

    def crown(self, square: str) -> None:
        """Stacks a second man of its colour on the man of ``square`` (analog boards)."""
        self._analog().crown(self._occupied_physical(square))
        self.refresh()

    def uncrown(self, square: str) -> None:
        """Lifts the top man off the king of ``square`` (analog boards)."""
        self._analog().uncrown(self._occupied_physical(square))
        self.refresh()

    def _analog(self) -> FieldModel:
        if self.field is None:
            raise ValueError("this board senses occupancy only: no crowns to see")
        return self.field

    def _occupied_physical(self, square: str) -> str:
        p = self.physical(square)
        if p not in self.pieces:
            raise ValueError(f"{square} is empty")
        return p

    def knock(self, *squares: str) -> None:
        """A hand knocks several pieces off at once (same as lifting them together)."""
        self.lift(*squares)

    def slide_step(self, src: str, dst: str) -> None:
        """A sliding piece leaves ``src`` and covers ``dst`` in the same instant."""
        p, q = self.physical(src), self.physical(dst)
        if p not in self.pieces:
            raise ValueError(f"{src} is empty")
        self.pieces.discard(p)
        self.pieces.add(q)
        if self.field is not None:
            moving = self.field.remove(p)
            if moving is not None:
                self.field.put(q, moving)
        self.refresh()
