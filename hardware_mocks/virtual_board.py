"""A virtual board of physical pieces that drives the fake expanders through a wiring file.

Squares given to its methods are *logical* (White's view); ``rotation`` says how the physical
sensor board is turned (as in :mod:`engine.squares`), so a test can put a board down turned by 90°.
Every change updates the chips' pin levels, latches their interrupts, and drives the shared INT
line (a gpiozero MockPin: low while any chip asserts INT).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.squares import rotate_square, unrotate_square
from hardware_mocks.smbus import CHIP_MODELS, FakeChip, FakeI2CBus
from pi.drivers.wiring import Wiring


class VirtualBoard:
    """Pieces on squares; ``bus`` gets one fake chip per wiring chip (created if absent)."""

    def __init__(self, wiring: Wiring, bus: FakeI2CBus, *, rotation: int = 0,
                 interrupt_pin: Any = None) -> None:
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
        if wiring.matrix is None:
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
    def set_occupied(self, squares: Iterable[str]) -> None:
        """Puts pieces on exactly ``squares`` (logical), all at once."""
        self.pieces = {self.physical(s) for s in squares}
        self.refresh()

    def place(self, *squares: str) -> None:
        """Puts a piece on each square at the same instant."""
        for s in squares:
            p = self.physical(s)
            if p in self.pieces:
                raise ValueError(f"{s} is already occupied")
            self.pieces.add(p)
        self.refresh()

    def lift(self, *squares: str) -> None:
        """Lifts the pieces of ``squares`` at the same instant."""
        for s in squares:
            p = self.physical(s)
            if p not in self.pieces:
                raise ValueError(f"{s} is empty")
            self.pieces.discard(p)
        self.refresh()

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
        self.refresh()
