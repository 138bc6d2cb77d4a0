"""Sensor groups: how one set of sensors is read through its expanders (direct pins, a diode
matrix). A group raises :class:`ChipFailure` naming the chip whose transaction failed; the
scanner decides what that means.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from pi.drivers.errors import ChipFailure
from pi.drivers.expanders import ALL_PINS, Expander

if TYPE_CHECKING:
    from engine.board import Piece


class SensorChip(Protocol):
    """What the scanner asks of a group's chips: an expander or an ADC."""

    @property
    def address(self) -> int: ...

    def config_intact(self) -> bool: ...


class SensorGroup:
    """Sensors read together. Bit ``i`` of a reading is ``squares[i]`` (physical name or "")."""

    squares: tuple[str, ...]
    mask: int
    expanders: tuple[SensorChip, ...]

    def identities(self) -> list[tuple[Piece | None, float]] | None:
        """Per bit, the piece the last read saw and its normalised reading (analog sensors,
        :mod:`pi.drivers.analog`); None for presence sensors, which cannot tell."""
        return None

    def init(self) -> None:
        """Configures the group's chips; raises ChipFailure."""
        raise NotImplementedError

    def read(self) -> tuple[int, int]:
        """(occupied bits, bits known to have changed since the last read); raises ChipFailure."""
        raise NotImplementedError


class DirectGroup(SensorGroup):
    """One sensor per expander input pin: one transaction per read."""

    def __init__(self, expander: Expander, squares: Sequence[str], *, active_low: bool = True):
        self.expander = expander
        self.expanders = (expander,)
        self.squares = tuple(squares) + ("",) * (16 - len(squares))
        self.mask = sum(1 << i for i, s in enumerate(self.squares) if s)
        self._invert = ALL_PINS if active_low else 0

    def init(self) -> None:
        try:
            self.expander.init()
        except OSError as e:
            raise ChipFailure(self.expander.address, e) from e

    def read(self) -> tuple[int, int]:
        try:
            r = self.expander.read()
        except OSError as e:
            raise ChipFailure(self.expander.address, e) from e
        return (r.levels ^ self._invert) & self.mask, r.changed & self.mask


class MatrixGroup(SensorGroup):
    """A diode matrix: rows are outputs driven low one at a time, columns are pulled-up inputs.

    A closed switch at (row, column) pulls the column low while its row is low. Bit
    ``row * ncolumns + column`` is ``squares_grid[row][column]``. One transaction per row when
    the rows and columns share one chip, else one write per row chip and one read per column chip.
    """

    def __init__(self, rows: Sequence[tuple[Expander, int]], columns: Sequence[tuple[Expander, int]],
                 squares_grid: Sequence[Sequence[str]]) -> None:
        self.rows = list(rows)
        self.columns = list(columns)
        self.ncols = len(self.columns)
        chips: list[Expander] = []
        for chip, _ in self.rows + self.columns:
            if chip not in chips:
                chips.append(chip)
        self.expanders = tuple(chips)
        self._chips = chips
        self.row_chips = [c for c in chips if any(c is r for r, _ in self.rows)]
        self.column_chips = [c for c in chips if any(c is k for k, _ in self.columns)]
        self.squares = tuple(s for row in squares_grid for s in row)
        self.mask = sum(1 << i for i, s in enumerate(self.squares) if s)
        self._single = chips[0] if len(chips) == 1 else None

    def init(self) -> None:
        for chip in self._chips:
            try:
                chip.init(ALL_PINS)
            except OSError as e:
                raise ChipFailure(chip.address, e) from e

    def read(self) -> tuple[int, int]:
        occupied = 0
        chip: Expander | None = None
        try:
            for i, (row_chip, row_pin) in enumerate(self.rows):
                pattern = ALL_PINS & ~(1 << row_pin)
                if self._single is not None:
                    chip = self._single
                    levels = {id(chip): chip.write_then_read(pattern)}
                else:
                    for chip in self.row_chips:
                        want = pattern if chip is row_chip else ALL_PINS
                        if chip.output_levels & chip.outputs != want & chip.outputs:
                            chip.write_outputs(want)
                    levels = {}
                    for chip in self.column_chips:
                        levels[id(chip)] = chip.read().levels
                base = i * self.ncols
                for j, (col_chip, col_pin) in enumerate(self.columns):
                    if not levels[id(col_chip)] >> col_pin & 1:
                        occupied |= 1 << (base + j)
            if self._single is None:
                for chip in self.row_chips:
                    if chip.output_levels & chip.outputs != chip.outputs:
                        chip.write_outputs(ALL_PINS)
        except OSError as e:
            assert chip is not None
            raise ChipFailure(chip.address, e) from e
        return occupied & self.mask, 0
