"""Calibration of an analog Hall board and the margins ``hardware test`` reports (issue 40).

**Calibration** (:func:`calibrate`): the board read empty, then with white men, black men, white
kings and black kings on every sensed square, batch by batch (a set has 12 or 20 men a side).
Each square's levels are then *derived*, not copied: one man measured on a square carries its
own magnet's ±10 %, so the square's gain ``g`` is the mean over the six magnets it saw (a white
man, a black man, two in each king), and its levels are ``empty ± g`` and ``empty ± ρ·g``, ρ the
board's median king-over-man ratio. The thresholds are the midpoints (:mod:`pi.drivers.analog`).
The square's own gain (over the board's median) and king ratio are stored too, for the test.

**Margins** (:func:`margins`): how far each decision stands from going wrong with the worst
piece the parts allow — a magnet ±10 % (:data:`PIECE_SPREAD`, plus 1 % for a piece 2 mm off
centre), a neighbour's magnet (:data:`LEAK`) — and :data:`NOISE_SIGMAS` times the square's
noise, as a fraction of the square's man field ``g``:

- empty/man: a weak man above the empty/man threshold, and the empty square with its
  neighbours' leak below it;
- man/king: a strong man below the man/king threshold, and a weak king above it (with the
  square's own king ratio where it is clearly below the board's, :data:`OWN_RATIO_SPREAD`);
- colour: a weak man on the right side of empty.

A square is named when a margin is below :data:`MIN_MARGIN`, or its gain is more than
:data:`GAIN_TOLERANCE` off the board's median (a sensor of another sensitivity, mounted deeper).
"""

from __future__ import annotations

import gettext
import os
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.board import Piece
from engine.colour import BLACK, WHITE
from engine.i18n import N_
from engine.squares import square_sort_key
from pi.drivers.analog import AnalogGroup
from pi.drivers.errors import ChipFailure
from pi.drivers.expanders import SMBusLike
from pi.drivers.probe import Finding
from pi.drivers.wiring import LEVELS, SquareCalibration, Wiring, parse_wiring

__all__ = ["STEPS", "SquareMargin", "calibrate", "derive", "margins", "measure",
           "calibration_toml", "store_calibration", "plan", "probe_analog"]

#: The calibration steps: the level measured and the piece put on the squares (None: empty).
STEPS: tuple[tuple[str, Piece | None], ...] = (
    ("empty", None), ("white", Piece(WHITE, False)), ("black", Piece(BLACK, False)),
    ("white_king", Piece(WHITE, True)), ("black_king", Piece(BLACK, True)))
#: A piece's field off its nominal (magnet ±10 %, 2 mm off centre ≈ 1 %), fraction of a man's.
PIECE_SPREAD = 0.11
#: The field of the neighbours' magnets on an empty square, fraction of a man's.
LEAK = 0.03
#: Noise sigmas a margin must keep besides.
NOISE_SIGMAS = 6.0
#: A margin below this (fraction of the man's field) cannot tell the levels apart reliably.
MIN_MARGIN = 0.03
#: A square's gain this far off the board's median is named.
GAIN_TOLERANCE = 0.20
#: How far a square's own measured king ratio may fall below the board's before it counts.
OWN_RATIO_SPREAD = 0.12
#: Conversions averaged per square and step.
READS = 32


def plan(squares: Iterable[str], men: int) -> list[tuple[str, Piece | None, list[str]]]:
    """The steps, batch by batch: (level, piece, squares to put it on). ``men``: men of one
    colour in the set (a king takes two)."""
    ordered = sorted(squares, key=square_sort_key)
    out: list[tuple[str, Piece | None, list[str]]] = []
    for level, piece in STEPS:
        if piece is None:
            out.append((level, None, ordered))
            continue
        size = max(1, men // 2 if piece.king else men)
        for i in range(0, len(ordered), size):
            out.append((level, piece, ordered[i:i + size]))
    return out


def measure(groups: Sequence[AnalogGroup], reads: int = READS) -> dict[str, tuple[float, float]]:
    """Each sensed (physical) square's mean code and its standard deviation over ``reads``
    conversions. Raises ChipFailure."""
    samples: dict[str, list[int]] = {}
    for group in groups:
        for _ in range(reads):
            group.read()
            for n, square in enumerate(group.squares):
                if square:
                    samples.setdefault(square, []).append(group.codes[n])
    return {sq: (statistics.fmean(v), statistics.pstdev(v)) for sq, v in samples.items()}


def calibrate(groups: Sequence[AnalogGroup], steps: Sequence[tuple[str, Piece | None,
                                                                   list[str]]],
              ready: Callable[[str, Piece | None, list[str]], None],
              reads: int = READS) -> dict[str, SquareCalibration]:
    """Runs the ``steps`` (:func:`plan`): ``ready(level, piece, squares)`` returns once the
    pieces stand there (a person pressed Enter, or a simulation put them), then the board is
    read. Returns the derived calibration. Raises ChipFailure, ValueError (a level that did not
    move: a piece missing, a dead sensor — the squares named)."""
    for group in groups:
        group.init()
    measured: dict[str, dict[str, tuple[float, float]]] = {}
    for level, piece, squares in steps:
        ready(level, piece, squares)
        values = measure(groups, reads)
        for sq in squares:
            measured.setdefault(sq, {})[level] = values[sq]
    return derive(measured)


def derive(measured: Mapping[str, Mapping[str, tuple[float, float]]]
           ) -> dict[str, SquareCalibration]:
    """Levels from the measurements (square → level → (mean, stdev)); see module doc. Raises
    ValueError naming the squares whose levels are not in order (no piece seen)."""
    wrong = sorted((sq for sq, m in measured.items()
                    if not (m["black_king"][0] < m["black"][0] < m["empty"][0] < m["white"][0]
                            < m["white_king"][0])), key=square_sort_key)
    if wrong:
        raise ValueError("no piece, or not the one asked for, seen on "
                         + " ".join(wrong[:12]) + (" ..." if len(wrong) > 12 else ""))
    ratios: dict[str, float] = {}
    for sq, m in measured.items():
        man = (m["white"][0] - m["black"][0]) / 2
        king = (m["white_king"][0] - m["black_king"][0]) / 2
        ratios[sq] = king / man
    rho = statistics.median(ratios.values())
    gains: dict[str, float] = {}
    for sq, m in measured.items():
        e = m["empty"][0]
        gains[sq] = ((m["white"][0] - e) + (e - m["black"][0])
                     + 2 * (m["white_king"][0] - e) / rho + 2 * (e - m["black_king"][0]) / rho) / 6
    median_gain = statistics.median(gains.values())
    out: dict[str, SquareCalibration] = {}
    for sq, m in measured.items():
        e, g = m["empty"][0], gains[sq]
        out[sq] = SquareCalibration(e - rho * g, e - g, e, e + g, e + rho * g,
                                    noise=max(m["empty"][1], 0.3), gain=g / median_gain,
                                    king_ratio=ratios[sq])
    return out


@dataclass(frozen=True)
class SquareMargin:
    """One square's margins, fractions of its man field (negative: short by that much)."""

    square: str
    empty_man: float
    man_king: float
    colour: float
    gain: float
    man_codes: float

    @property
    def worst(self) -> float:
        return min(self.empty_man, self.man_king, self.colour)

    def problems(self, t: gettext.NullTranslations | None = None) -> list[str]:
        """What this square cannot do, and by how much (empty: nothing), in the language of
        ``t`` (None: English)."""
        t = t or gettext.NullTranslations()
        out = []
        for name, value in ((N_("empty/man"), self.empty_man), (N_("man/king"), self.man_king),
                            (N_("colour"), self.colour)):
            if value < MIN_MARGIN:
                # the % signs in the values: "% o" in a message would read as a %-format
                out.append(t.gettext("{margin} margin {percent} of a man's field ({codes} "
                                     "codes; {needed} needed)").format(
                    margin=t.gettext(name), percent=f"{value * 100:+.0f} %",
                    codes=f"{value * self.man_codes:+.0f}", needed=f"{MIN_MARGIN * 100:.0f} %"))
        if abs(self.gain - 1) > GAIN_TOLERANCE:
            out.append(t.gettext("sensor gain {percent} of the board's median (another "
                                 "sensitivity, or mounted at another depth?)").format(
                percent=f"{self.gain * 100:.0f} %"))
        return out


def margins(wiring: Wiring) -> list[SquareMargin]:
    """Every sensed square's margins from the wiring's calibration (nominal levels where a
    square has none), squares in order."""
    spec = wiring.analog
    if spec is None:
        raise ValueError(f"{wiring.source}: not an analog Hall board")
    out = []
    for sq in sorted(wiring.sensed_squares, key=square_sort_key):
        cal = spec.square(sq)
        g = (cal.white - cal.black) / 2
        rho = (cal.white_king - cal.black_king) / 2 / g
        # The square's own king ratio counts when it is further below the board's than the
        # pieces' spread explains (one king and one man measured: about 5 % rms): a sensor
        # that clips a king's field, a square where the kings stand off the sensor.
        own = cal.king_ratio if 0 < cal.king_ratio < rho * (1 - OWN_RATIO_SPREAD) else rho
        noise = NOISE_SIGMAS * cal.noise / g
        lo, hi = 1 - PIECE_SPREAD, 1 + PIECE_SPREAD
        empty_man = min(lo - 0.5, 0.5 - LEAK) - noise
        threshold = (1 + rho) / 2
        man_king = min(threshold - hi, lo * own - threshold) - noise
        colour = lo - noise
        out.append(SquareMargin(sq, empty_man, man_king, colour, cal.gain, g))
    return out


def calibration_toml(table: Mapping[str, SquareCalibration]) -> str:
    """The ``[calibration]`` table of a wiring file, squares in order."""
    lines = ["[calibration]",
             "# written by `damiera hardware calibrate`: each square's levels in ADC codes (the",
             "# thresholds are the midpoints), its noise (codes rms), its gain over the board's",
             "# median and its own king/man ratio"]
    for sq in sorted(table, key=square_sort_key):
        c = table[sq]
        levels = ", ".join(f"{name} = {value:.1f}" for name, value in zip(LEVELS, c.levels(),
                                                                         strict=True))
        lines.append(f"{sq} = {{ {levels}, noise = {c.noise:.2f}, gain = {c.gain:.3f}, "
                     f"king_ratio = {c.king_ratio:.3f} }}")
    return "\n".join(lines) + "\n"


def store_calibration(path: str | Path, table: Mapping[str, SquareCalibration]) -> Wiring:
    """Writes ``table`` into the wiring file ``path`` (its old ``[calibration]`` replaced, the
    rest kept as written), atomically, after checking the result parses. Returns it. Raises
    WiringError, OSError."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    kept: list[str] = []
    skipping = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            skipping = stripped == "[calibration]"
        if not skipping:
            kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    new = "\n".join(kept) + "\n\n" + calibration_toml(table)
    wiring = parse_wiring(new, str(path))
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(new, encoding="utf-8")
    os.replace(tmp, path)
    return wiring


def probe_analog(wiring: Wiring, bus: SMBusLike) -> list[Finding]:
    """``hardware probe`` on an analog Hall board (the board empty): each ADC of the wiring
    answers, and each square reads empty; a square that does not is named with what it reads
    (a piece left on it, a sensor at a rail, an input not wired). Raises the bus's OSError
    when the bus itself is gone."""
    from pi.drivers.analog import classify
    from pi.drivers.bus import ManagedBus
    from pi.drivers.hardware import analog_groups
    from pi.drivers.probe import FAIL, OK, answering
    found = set(answering(bus, [c.address for c in wiring.chips]))
    findings: list[Finding] = []
    managed = ManagedBus(bus, clock=lambda: 0.0)
    groups, _identity = analog_groups(wiring, managed)
    by_address = {g.adc.address: g for g in groups}
    for chip in wiring.chips:
        subject = f"0x{chip.address:02x}"
        name = f"{chip.name} {chip.kind.upper()}"
        if chip.address not in found:
            findings.append(Finding(FAIL, subject, N_("{chip} does not answer").format(
                chip=name), N_("check its supply, SDA/SCL and its address pins")))
            continue
        group = by_address[chip.address]
        try:
            group.init()
            group.read()
        except ChipFailure as exc:
            findings.append(Finding(FAIL, subject, N_("{chip} answered, then failed "
                                                      "({error})").format(chip=name,
                                                                          error=exc.error)))
            continue
        findings.append(Finding(OK, subject, N_("{chip}: {count} inputs read").format(
            chip=name, count=sum(1 for s in chip.squares if s))))
        for n, square in enumerate(group.squares):
            cal = group.calibrations[n]
            if not square or cal is None:
                continue
            piece = classify(cal, group.codes[n])
            if piece is not None:
                findings.append(Finding(FAIL, square, N_("reads a piece with the board empty "
                                                         "(code {code})").format(
                    code=group.codes[n]), N_("a piece left on it, or a sensor at a rail: "
                                             "check its supply and output")))
    return findings
